"""Fuzz: sampling intervals at levels across (0, 1) and beyond, as Python and numpy numbers, on a
fixed table and on small random ones.

``fp.bound(..., ci=level)``: a level outside (0, 1) or below 0.5 is a ConfigError that names the fix
(a level such as 0.95); from 0.5 up, every method (bootstrap, bayes, projection) gives a finite
interval that holds the bias-only interval ``[lower, upper]`` and lies in the metric's range, a
higher level with the same seed gives an interval holding the lower level's, numpy levels, seeds
and resample counts are taken as the Python numbers they hold, and ``res.to_dict()`` goes to JSON.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairprobe as fp
from fairprobe.core.uncertainty import METHODS
from fairprobe.exceptions import ConfigError
from tests.fuzz.oracle import confirmed, examples, outcome

pytestmark = pytest.mark.fuzz

COUNTS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                       "n": [40, 10, 10, 40, 30, 20, 10, 40]})
TABLE = fp.ObservedTable.from_counts(COUNTS)
RANGES = {"fpr": (0, 1), "selection_rate": (0, 1), "fpr_parity": (-1, 1), "demographic_parity": (-1, 1)}
TOL = 1e-6

levels = st.one_of(
    st.floats(min_value=0.5, max_value=1, exclude_max=True),
    st.floats(min_value=0, max_value=1, exclude_min=True, exclude_max=True),
    st.sampled_from([0.5, np.nextafter(0.5, 0), np.nextafter(0.5, 1), 0.95, 0.999999, 1 - 1e-12, 1e-300]),
    st.sampled_from([0.0, 1.0, -0.2, 1.5, math.nan, math.inf]),
)
numpy_kinds = st.sampled_from([None, np.float64, np.float32])
seeds = st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**31 - 1).map(np.int64),
                  st.integers(0, 2**32 - 1).map(np.uint32))


def _as(kind, level):
    return level if kind is None else kind(level)


@settings(max_examples=examples(8, 200))
@given(level=levels, kind=numpy_kinds, method=st.sampled_from(METHODS), seed=seeds,
       metric=st.sampled_from(sorted(RANGES)), D=st.sampled_from([0.0, 0.02, 0.1]),
       step=st.floats(min_value=0, max_value=0.5), numpy_resamples=st.booleans(),
       counts=st.one_of(st.none(), st.lists(st.integers(0, 30), min_size=8, max_size=8)))
def test_interval_levels(level, kind, method, seed, metric, D, step, numpy_resamples, counts) -> None:
    table = TABLE
    if counts is not None:  # a small table of its own, perhaps with empty cells
        table, error = outcome(lambda: fp.ObservedTable.from_counts(COUNTS.assign(n=counts)))
        if error is not None:
            assert sum(counts) == 0, error
            return
    ci = _as(kind, level)
    plain = float(ci)  # the level as the interval reports it (a float32 keeps the decimal it shows)
    if kind is np.float32 and math.isfinite(plain):
        plain = float(str(ci))
    resamples = np.int64(20) if numpy_resamples else 20

    def bound(level_):
        return fp.bound("proxy_label", metric, table, D=D, ci=level_, ci_method=method, resamples=resamples,
                        seed=seed, time_limit=10, progress=False)

    res, error = outcome(lambda: bound(ci))
    if not 0.5 <= plain < 1:  # outside (0, 1), or a level that misses more often than it covers
        assert isinstance(error, ConfigError), f"ci={ci!r} ({type(ci).__name__}) gave {res!r}"
        message = str(error)
        assert "ci=0.95" in message, message
        if 0 < plain < 0.5:
            assert "below 0.5" in message, message
        return
    if error is not None and counts is not None:  # a metric undefined on a small table's resamples
        assert not isinstance(error, ConfigError) or "ci=" not in str(error), error
        return
    assert error is None, f"ci={ci!r} ({type(ci).__name__}), {method}: {error}"
    interval = res.interval
    low, high = RANGES[metric]
    assert interval is not None and interval.level == pytest.approx(plain, abs=1e-7), interval
    assert math.isfinite(interval.lower) and math.isfinite(interval.upper), interval
    assert interval.lower <= res.lower + TOL and res.upper - TOL <= interval.upper, (res.lower, res.upper, interval)
    assert low - TOL <= interval.lower and interval.upper <= high + TOL, (metric, interval)
    d = res.to_dict()
    text = json.dumps(d)  # numpy levels and seeds are plain numbers
    back = json.loads(text)["interval"]
    assert back["seed"] == int(seed) and type(back["seed"]) is int, back
    assert back["level"] == pytest.approx(plain, abs=1e-7) and type(d["interval"]["level"]) is float, back
    higher = plain + step * (1 - plain)  # a level between this one and 1: its interval holds this one
    if higher < 1 and higher > plain:
        wider, error = outcome(lambda: bound(higher))
        assert error is None or counts is not None, error
        if error is not None:
            return
        assert wider.interval.lower <= interval.lower + TOL and interval.upper - TOL <= wider.interval.upper, \
            (plain, interval, higher, wider.interval)
    confirmed()

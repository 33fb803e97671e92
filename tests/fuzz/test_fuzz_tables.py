"""Fuzz: unit-level tables of every odd kind through ``fp.bound`` under ``proxy_label``.

A result is confirmed against the rates computed with pandas on the raw rows: at ``D = 0`` the
proxy is the outcome, so the bound is the observed rate itself; at any ``D`` the observed rate lies
inside it (the ``D = 0`` model is admitted at every larger ``D``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fairprobe as fp
from tests.fuzz.oracle import confirmed, outcome

pytestmark = pytest.mark.fuzz

LABELS = [[0, 1], [1, 2], ["f", "m"], [0, 1, 2], ["a", "b", "c"], [True, False]]
ODD = [np.nan, 2, -1, 0.5, "x", None, 10**20]
RATES = {  # metric -> (event, condition) on the recorded columns, the observed reading of the metric
    "fpr": (("P", 1), ("Y", 0)), "fnr": (("P", 0), ("Y", 1)), "tpr": (("P", 1), ("Y", 1)),
    "ppv": (("Y", 1), ("P", 1)), "selection_rate": (("P", 1), None),
}


def _rate(frame: pd.DataFrame, metric: str, label) -> float:
    (var, value), cond = RATES[metric]
    rows = frame[frame["A"] == label]
    if cond is not None:
        rows = rows[rows[cond[0]] == cond[1]]
    return float((rows[var] == value).mean()) if len(rows) else math.nan


@st.composite
def tables(draw):
    labels = draw(st.sampled_from(LABELS))
    n = draw(st.integers(0, 40))
    a = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    y = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    p = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    frame = pd.DataFrame({"A": a, "Y": y, "P": p})
    if n and draw(st.booleans()) and draw(st.booleans()):  # one odd value somewhere
        column = draw(st.sampled_from(["A", "Y", "P"]))
        frame[column] = frame[column].astype(object)
        frame.loc[draw(st.integers(0, n - 1)), column] = draw(st.sampled_from(ODD))
    return labels, frame


@given(case=tables(), metric=st.sampled_from([*RATES, "fpr_parity", "selection_rate_parity", "demographic_parity"]),
       D=st.sampled_from([0.0, 0.0, 0.02, 0.1, 0.3, -0.1, 1.5, math.nan]), pick=st.integers(0, 2))
def test_tables_through_bound(case, metric: str, D: float, pick: int) -> None:
    labels, frame = case
    first, second = labels[pick % len(labels)], labels[(pick + 1) % len(labels)]
    parity = metric.endswith("parity")
    if metric == "selection_rate_parity":
        metric = "demographic_parity"
    spec = outcome(lambda: fp.metric(metric, groups=(first, second)) if parity else fp.metric(metric, group=first))[0]
    if spec is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result, error = outcome(lambda: fp.bound("proxy_label", spec, frame, D=D, time_limit=5))
    if error is not None:
        return
    assert result.lower <= result.upper + 1e-9
    assert -1 - 1e-9 <= result.lower and result.upper <= 1 + 1e-9
    rate = "selection_rate" if metric == "demographic_parity" else metric.removesuffix("_parity")
    observed = (_rate(frame, rate, first) - _rate(frame, rate, second)) if parity else _rate(frame, rate, first)
    if not math.isnan(observed):
        assert result.lower - 1e-7 <= observed <= result.upper + 1e-7, (observed, result)
        if D == 0:
            assert result.upper - result.lower < 1e-7 and abs(result.lower - observed) < 1e-7, (observed, result)
    confirmed()

"""Fuzz: every built-in metric under every built-in bias on count tables with empty cells and groups.

A count table of small random counts, with random cells and sometimes a whole group of the
attribute at zero, must give a fairprobe error naming the problem or a bound whose ends and
achieved values lie in the metric's natural range (``BoundProblem(...).natural_range``, itself
checked against the range every model gives the metric, :data:`RANGES`, written out here), with
the achieved values between the ends; under ``proxy_label`` the observed rate, computed with pandas
on the counts, lies inside the bound. Solves are cut short at random (a tenth of a second or five
seconds): a bound stopped at its limit must stay in the range too.
"""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fairprobe as fp
from fairprobe.core.engine import BoundProblem
from fairprobe.core.registry import registered
from fairprobe.core.solving import ACHIEVED_TOLERANCE
from tests.fuzz.oracle import confirmed, examples, outcome

pytestmark = pytest.mark.fuzz

#: the values each built-in metric can take in any model at all
RANGES = {"accuracy": (0, 1), "counterfactual_fairness": (0, 1), "equalized_odds": (0, 1),
          **{m: (0, 1) for m in ("fnr", "fpr", "npv", "ppv", "selection_rate", "tnr", "tpr")},
          **{m: (-1, 1) for m in ("accuracy_parity", "demographic_parity", "fnr_parity", "fpr_parity", "npv_parity",
                                  "ppv_parity", "tnr_parity", "tpr_parity", "spurious_effect", "total_effect")}}
#: how far outside its range a reported number may lie: a reported model satisfies its rows to
#: ACHIEVED_TOLERANCE (1e-5), a global solver's certified end is outward by its tolerance
SLACK = ACHIEVED_TOLERANCE
SELECTED = {"selection", "proxy_label_and_selection"}
PLAIN_CELLS = pd.DataFrame({"A": [0] * 4 + [1] * 4, "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4})
#: selective labels: the outcome O is recorded only for the selected (O = 0 where S = 0)
SELECTIVE_CELLS = pd.DataFrame({"A": [0] * 6 + [1] * 6, "P": [0, 0, 0, 1, 1, 1] * 2, "S": [0, 1, 1] * 4,
                                "O": [0, 0, 1] * 4})
#: rate -> (event, condition) of the observed reading under proxy_label (Y is the recorded label)
RATES = {"fpr": (("P", 1), ("Y", 0)), "tpr": (("P", 1), ("Y", 1)), "fnr": (("P", 0), ("Y", 1)),
         "tnr": (("P", 0), ("Y", 0)), "ppv": (("Y", 1), ("P", 1)), "npv": (("Y", 0), ("P", 0)),
         "selection_rate": (("P", 1), None)}


def test_the_grid_knows_every_builtin_metric() -> None:
    assert set(RANGES) == set(registered("metrics")), "a new built-in metric: add its range to RANGES"


def _counts(bias: str, counts: list[int], empty: int | None) -> pd.DataFrame:
    cells = SELECTIVE_CELLS if bias == "selective_labels" else PLAIN_CELLS
    table = cells.assign(n=counts[:len(cells)])
    if empty is not None:  # a whole group without units
        table.loc[table["A"] == empty, "n"] = 0
    return table


def _observed_rate(counts: pd.DataFrame, metric: str) -> float:
    (var, value), cond = RATES[metric]
    rows = counts[counts["A"] == 0]  # the metric's default group: A = 0
    if cond is not None:
        rows = rows[rows[cond[0]] == cond[1]]
    total = rows["n"].sum()
    return float(rows.loc[rows[var] == value, "n"].sum() / total) if total else math.nan


@settings(max_examples=examples(12, 300))
# found by this test: spurious_effect's natural range is (-2, 2) (TV - TE lies in [-1, 1]), and a solve stopped at
# its limit reports [-2, 2] or [-1.02, 1.4]
@example(bias="proxy_attribute", metric="spurious_effect", D=0.03, time_limit=0.1,
         cells=[30, 10, 10, 50, 0, 0, 0, 0, 0, 0, 0, 0], empty=1)
@given(bias=st.sampled_from(sorted(registered("biases"))), metric=st.sampled_from(sorted(registered("metrics"))),
       D=st.sampled_from([0.0, 0.01, 0.03, 0.1, 0.3]), time_limit=st.sampled_from([0.1, 5.0]),
       cells=st.lists(st.sampled_from([0, 0, 0, 1, 2, 7, 40]), min_size=12, max_size=12),
       empty=st.sampled_from([None, 0, 1, 1]))
def test_empty_groups_stay_in_the_metrics_range(bias: str, metric: str, D: float, time_limit: float,
                                                cells: list[int], empty: int | None) -> None:
    counts = _counts(bias, cells, empty)
    given_ = {"S": 1} if bias in SELECTED else None
    table, error = outcome(lambda: fp.ObservedTable.from_counts(counts, given=given_))
    if error is not None:
        assert counts["n"].sum() == 0, f"a count table was refused: {error}"
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a solve stopped at its limit says so
        res, error = outcome(lambda: fp.bound(bias, metric, table, D=D, time_limit=time_limit, progress=False))
    if error is not None:
        return
    natural = BoundProblem(bias, metric, table).natural_range
    for low, high, what in (*natural, "natural range"), (*RANGES[metric], "range of every model"):
        assert low - SLACK <= res.lower <= res.upper + SLACK and res.upper <= high + SLACK, \
            f"{bias}, {metric}, D={D}: [{res.lower}, {res.upper}] ({res.status}) outside the {what} [{low}, {high}]"
        for achieved in (res.lower_achieved, res.upper_achieved):
            if achieved is not None:
                assert low - SLACK <= achieved <= high + SLACK, (bias, metric, what, achieved, res)
                assert res.lower - SLACK <= achieved <= res.upper + SLACK, (bias, metric, achieved, res)
    assert RANGES[metric][0] <= natural[0] <= natural[1] <= RANGES[metric][1], \
        f"{metric}: natural range {natural} is wider than the range of every model {RANGES[metric]}"
    if bias == "proxy_label" and metric in RATES:
        rate = _observed_rate(counts, metric)
        if not math.isnan(rate):  # the recorded label is a model of every D
            assert res.lower - 1e-6 <= rate <= res.upper + 1e-6, (metric, rate, res)
    confirmed()

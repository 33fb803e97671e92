"""Undefined metrics (issue 13, Part B item 1): never a bound on a free ratio.

A rate conditions on an event (FNR of group ``a``: ``Y = 1 & A = a``). When that event has
probability 0 in every model the bias admits, the metric has no value and ``bound`` raises
:class:`UndefinedMetricError`; when only some models give it probability 0, the bound is over the
others and the result lists the event in ``excluded_events``.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.compiler import compile_program
from fairprobe.exceptions import UndefinedMetricError
from tests.bad_input import run_cli

# a table with both groups, both labels and both predictions
CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})
# group A = 1 is absent
ONLY_A0 = pd.DataFrame({"A": [0, 0, 0, 0], "Y": [0, 0, 1, 1], "P": [0, 1, 0, 1], "prob": [0.3, 0.2, 0.1, 0.4]})
# group A = 1 has no Y = 1
NO_POS_A1 = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1], "Y": [0, 0, 1, 1, 0, 0], "P": [0, 1, 0, 1, 0, 1],
                          "prob": [0.2, 0.1, 0.1, 0.2, 0.2, 0.2]})


def selected(frame: pd.DataFrame) -> fp.ObservedTable:
    return fp.ObservedTable.from_probabilities(frame, given={"S": 1})


@pytest.mark.parametrize("metric", ["fpr_parity", "demographic_parity", "fnr_parity", "ppv_parity", "equalized_odds"])
def test_absent_group_under_selection_at_D0_is_undefined(metric: str) -> None:
    # at D = 0 every unit is selected, so P(A = 1) = 0 in every admitted model; the old code
    # returned e.g. [-0.769, 0.231] with status optimal
    with pytest.raises(UndefinedMetricError) as info:
        fp.bound("selection", metric, selected(ONLY_A0), D=0.0)
    message = str(info.value)
    assert "undefined" in message and "group A = 1" in message and "D = 0" in message
    assert "Choose groups" in message


@pytest.mark.parametrize("metric", ["fpr_parity", "demographic_parity", "tpr_parity", "equalized_odds"])
def test_absent_group_under_proxy_labels_is_undefined(metric: str) -> None:
    # P(A) is pinned by the table: no bias makes group 1 appear (the old code raised StopIteration)
    for D in (0.0, 0.2):
        with pytest.raises(UndefinedMetricError, match=r"group A = 1.*no row with A = 1"):
            fp.bound("proxy_label", metric, ONLY_A0, D=D)


@pytest.mark.parametrize("bias", ["selection", "proxy_label", "proxy_label_missed_positives"])
@pytest.mark.parametrize("metric", ["fnr_parity", "tpr_parity", "equalized_odds"])
def test_group_without_positives_at_D0_is_undefined(bias: str, metric: str) -> None:
    # FNR/TPR of group 1 is 0/0 in every model at D = 0; the old code gave finite intervals
    data = selected(NO_POS_A1) if bias == "selection" else NO_POS_A1
    with pytest.raises(UndefinedMetricError, match=r"conditions on .*= 1 & A = 1 \(group A = 1\)"):
        fp.bound(bias, metric, data, D=0.0)


def test_single_group_rate_is_an_undefined_metric_error() -> None:
    with pytest.raises(UndefinedMetricError, match=r"'fnr \(A = 1\)' is undefined"):
        fp.bound("selection", fp.metric("fnr", group=1), selected(NO_POS_A1), D=0.0)
    with pytest.raises(UndefinedMetricError):
        fp.bound("proxy_label", "P(P = 0 | Z = 1 & A = 1)", NO_POS_A1, D=0.0)  # a query string too


def test_defined_metrics_on_the_same_table_still_bound() -> None:
    # FPR parity conditions on Y = 0, which both groups have: point-identified at D = 0
    res = fp.bound("proxy_label", "fpr_parity", NO_POS_A1, D=0.0)
    fpr0, fpr1 = 0.1 / 0.3, 0.2 / 0.4
    assert res.lower == pytest.approx(fpr0 - fpr1, abs=1e-7) and res.upper == pytest.approx(fpr0 - fpr1, abs=1e-7)
    assert res.excluded_events == []
    full = fp.bound("selection", "equalized_odds", selected(CELLS), D=0.05)
    assert full.excluded_events == [] and "partly undefined" not in full.summary()


def test_partly_defined_metric_says_so() -> None:
    # at D = 0.1 a proxy label may hide true positives in group 1: FNR_1 is defined in those
    # models only, and the result says the bound is over them
    res = fp.bound("proxy_label", "fnr_parity", NO_POS_A1, D=0.1)
    assert res.excluded_events == ["Z = 1 & A = 1"]
    assert any("undefined in the admitted models where P(Z = 1 & A = 1) = 0" in n for n in res.notes)
    assert "partly undefined" in res.summary()
    assert res.to_dict()["excluded_events"] == ["Z = 1 & A = 1"]
    sel = fp.bound("selection", "fpr_parity", selected(ONLY_A0), D=0.1)  # unselected units may be in group 1
    assert sel.excluded_events == ["Y = 0 & A = 1"]


def test_partly_defined_bound_contains_a_model_where_the_metric_is_defined() -> None:
    """A true model with hidden positives in group 1 (recorded as Y = 0) lies inside the bounds."""
    # joint law of (A, Z, Y, P): Z = Y except for 3% of the population, in group 1, with Z = 1, Y = 0
    rows = [  # A, Z, Y, P, prob
        (0, 0, 0, 0, 0.20), (0, 0, 0, 1, 0.10), (0, 1, 1, 0, 0.10), (0, 1, 1, 1, 0.20),
        (1, 0, 0, 0, 0.19), (1, 0, 0, 1, 0.18), (1, 1, 0, 0, 0.01), (1, 1, 0, 1, 0.02),
    ]
    truth = pd.DataFrame(rows, columns=["A", "Z", "Y", "P", "prob"])
    observed = truth.groupby(["A", "Y", "P"], as_index=False)["prob"].sum()
    z1 = truth[truth.Z == 1]
    fnr = {a: z1[(z1.A == a) & (z1.P == 0)].prob.sum() / z1[z1.A == a].prob.sum() for a in (0, 1)}
    res = fp.bound("proxy_label", "fnr_parity", observed, D=0.03)
    assert res.excluded_events == ["Z = 1 & A = 1"]
    assert res.contains(fnr[0] - fnr[1], tol=1e-7)


def test_sweep_marks_undefined_points_and_refuses_an_all_undefined_sweep() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = fp.sensitivity("proxy_label", "fnr_parity", NO_POS_A1, D=[0.0, 0.1], progress=False)
    frame = res.to_frame()
    assert list(frame["status"]) == ["undefined", "optimal"]
    assert "undefined" in frame["error"][0] and frame["excluded_events"][1] == "Z = 1 & A = 1"
    assert "undefined" in res.summary()
    with pytest.raises(UndefinedMetricError):
        fp.sensitivity("selection", "fnr_parity", selected(NO_POS_A1), D=[0.0], progress=False)


def test_breakdown_of_an_undefined_metric_raises() -> None:
    with pytest.raises(UndefinedMetricError, match="group A = 1"):
        fp.breakdown("selection", "tpr_parity", selected(NO_POS_A1), tolerance=0.05)


def test_max_over_pairs_with_an_absent_group_is_undefined() -> None:
    three = pd.concat([CELLS, pd.DataFrame({"A": [2], "Y": [0], "P": [0], "prob": [0.0]})])
    three = three.assign(prob=three.prob / three.prob.sum())
    with pytest.raises(UndefinedMetricError, match="group A = 2"):
        fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), three, D=0.0)


def test_compile_program_never_leaves_a_free_ratio() -> None:
    from fairprobe.core.bound import resolve_bias
    from fairprobe.core.table import ObservedTable

    cfg = resolve_bias("proxy_label")
    table = ObservedTable.from_probabilities(ONLY_A0)
    with pytest.raises(UndefinedMetricError):
        compile_program(cfg, table, "P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A = 1)", {"D": 0.1})


def test_cli_reports_an_undefined_metric(tmp_path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "cells.csv"
    NO_POS_A1.to_csv(path, index=False)
    for command, d in (("bound", "0"), ("sweep", "0")):
        code, _, err = run_cli([command, "--bias", "proxy_label", "--metric", "fnr_parity", "--data", str(path),
                                "--D", d], capsys)
        assert code == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert "undefined" in err and "group A = 1" in err and "Choose groups" in err
    code, out, err = run_cli(["bound", "--bias", "proxy_label", "--metric", "fnr_parity", "--data", str(path),
                              "--D", "0.1"], capsys)
    assert code == 0 and "partly undefined" in out

"""Focused regressions for the defects the fuzz suite found (tests/fuzz/test_fuzz_labels.py and
test_fuzz_empty_groups.py pin them as explicit examples; these name each one)."""

from __future__ import annotations

import contextlib
import io
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.app import logic
from fairprobe.cli import main
from fairprobe.core.engine import BoundProblem
from fairprobe.core.inputs import resolve_bias
from fairprobe.core.metric_range import metric_range as _natural_range
from fairprobe.core.metric_range import paired_range as _paired_range
from fairprobe.core.query import parse_expression
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import DataError
from tests.core.test_bad_input_pass4 import EMPTY_1

ROWS = pd.DataFrame({"race": list("ffffmmmm"), "y": [1, 1, 0, 0] * 2, "p": [1, 0, 1, 0, 1, 1, 1, 1]})
COLS = {"A": "race", "Y": "y", "P": "p"}


# -- 1. fp.group_rates follows from_frame's pos_label rule -----------------------------------------------------
def test_observed_refuses_a_single_pos_label_on_0_1_columns_as_from_frame_does() -> None:
    with pytest.raises(DataError, match="pos_label=0 is not a label of any column") as table_error:
        ObservedTable.from_frame(ROWS, pos_label=0, **COLS)
    with pytest.raises(DataError) as observed_error:
        fp.group_rates(ROWS, pos_label=0, **COLS)
    assert str(observed_error.value) == str(table_error.value)
    # the same from a table built without it
    with pytest.raises(DataError, match="pos_label=0 is not a label"):
        fp.group_rates(ObservedTable.from_frame(ROWS, **COLS), pos_label=0)


def test_observed_reverses_a_0_1_column_only_by_its_node() -> None:
    plain = fp.group_rates(ROWS, **COLS).by_group["fpr"].to_dict()
    assert plain == {"f": 0.5, "m": 1.0}
    reversed_y = fp.group_rates(ROWS, pos_label={"Y": 0}, **COLS).by_group["fpr"].to_dict()
    assert reversed_y == {"f": 0.5, "m": 1.0}  # FPR over Y = 1 rows as negatives: f 1 of 2, m 2 of 2


def test_a_single_pos_label_leaves_a_0_1_prediction_alone() -> None:
    # Y labelled 0/2 (unclear), P 0/1: pos_label=0 is Y's positive label and not P's
    rows = ROWS.assign(y=ROWS.y * 2)
    got = fp.group_rates(rows, pos_label=0, **COLS).by_group
    want = fp.group_rates(rows, pos_label={"Y": 0}, **COLS).by_group
    pd.testing.assert_frame_equal(got, want)
    assert fp.group_rates(ROWS.assign(y=1 - ROWS.y), **COLS).by_group["selection_rate"].to_dict() == \
        got["selection_rate"].to_dict()


# -- 2. integer labels 1/2 and -1/1 in counts and cells go through is_binary_coding -----------------------
COUNTS_12 = pd.DataFrame({"A": ["f", "m", "f", "m"], "Y": [0, 0, 1, 1], "P": [1, 2, 2, 1], "n": [1] * 4})


@pytest.mark.parametrize("labels", [(1, 2), (-1, 1)])
@pytest.mark.parametrize("reader", ["counts", "cells"])
def test_counts_and_cells_with_unclear_integer_labels_ask_for_pos_label(labels, reader) -> None:
    frame = COUNTS_12.assign(P=COUNTS_12.P.map({1: labels[0], 2: labels[1]}))
    table = ObservedTable.from_counts(frame) if reader == "counts" else \
        ObservedTable.from_probabilities(frame.assign(prob=0.25).drop(columns="n"))
    assert table.unclear_labels(["Y", "P"]) == {"P": list(labels)}
    assert logic.unclear_labels(table, None) == {"P": list(labels)}
    assert logic.unclear_labels(table, resolve_bias("proxy_label")) == {"P": list(labels)}
    with pytest.raises(DataError, match=r"Column 'P' holds the labels .* pos_label=") as error:
        fp.group_rates(table)
    assert "np.int64" not in str(error.value)
    with pytest.raises(DataError, match=rf"Column 'P' holds the labels \[{labels[0]}, {labels[1]}\].*pos_label="):
        fp.bound("proxy_label", "fpr", table, D=0.0, progress=False)
    # naming the label works: P = labels[1] is 1
    named = ObservedTable.from_counts(frame, pos_label=labels[1]) if reader == "counts" else \
        ObservedTable.from_probabilities(frame.assign(prob=0.25).drop(columns="n"), pos_label=labels[1])
    assert fp.group_rates(named).by_group["selection_rate"].to_dict() == {"f": 0.5, "m": 0.5}
    assert fp.group_rates(named).by_group["fpr"].to_dict() == {"f": 0.0, "m": 1.0}


def test_the_attribute_and_declared_nodes_keep_their_codes() -> None:
    counts = pd.DataFrame({"A": [1, 2, 1, 2], "Y": [0, 0, 1, 1], "P": [0, 1, 1, 0], "n": [3, 4, 5, 6]})
    table = ObservedTable.from_counts(counts)
    assert table.categories == {} and table.cardinality("A") == 3  # codes with an empty group 0
    assert logic.unclear_labels(table, resolve_bias("proxy_label")) == {}
    # a node the config gives 3 values is no binary role
    cfg = fp.BiasConfig.from_dict({"dag_str": "A->Y, A->P, A->W", "constraints": [], "cardinalities": {"W": 3}})
    with_w = ObservedTable.from_counts(counts.assign(W=[1, 2, 1, 2]))
    assert with_w.unclear_labels(cfg) == {}


def test_the_command_line_asks_for_pos_label_on_a_counts_file(tmp_path) -> None:
    path = tmp_path / "counts.csv"
    COUNTS_12.to_csv(path, index=False)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as ex:
        main(["bound", "--bias", "proxy_label", "--metric", "fpr", "--group", "f", "--D", "0", "--data", str(path),
              "--counts", "n"])
    assert ex.value.code == 2
    assert "Column 'P' holds the labels [1, 2]" in err.getvalue() and "--pos-label 2" in err.getvalue()


# -- 3. a text column of only 'true' is 1, as one of only '1' -------------------------------------------
@pytest.mark.parametrize(("values", "labels", "codes"), [
    (["true"] * 3, ["false", "true"], [1]), (["TRUE"] * 3, ["FALSE", "TRUE"], [1]),
    (["False"] * 3, ["False", "True"], [0]), (["1"] * 3, ["0", "1"], [1]),
    (["true", "FALSE", "true"], ["FALSE", "true"], [0, 1]),
])
@pytest.mark.parametrize("category", [False, True])
def test_text_of_a_0_1_coding_keeps_its_meaning(values, labels, codes, category) -> None:
    column = pd.Series(values, dtype="category" if category else object)
    table = ObservedTable.from_frame(pd.DataFrame({"A": ["a", "b", "a"], "Y": column}))
    assert table.categories["Y"] == labels
    assert sorted(table.cells["Y"].unique().tolist()) == codes
    assert table.unclear_labels(["Y"]) == {}


def test_observed_reads_a_column_of_only_true() -> None:
    rows = ROWS.assign(y="true", p=ROWS.p.map({0: "false", 1: "true"}))
    rates = fp.group_rates(rows, **COLS).by_group
    assert rates["selection_rate"].to_dict() == {"f": 0.5, "m": 1.0}
    assert rates["base_rate"].to_dict() == {"f": 1.0, "m": 1.0}
    counts = pd.DataFrame({"A": ["f", "m"], "Y": ["true", "true"], "P": ["0", "1"], "n": [2, 2]})
    assert fp.group_rates(ObservedTable.from_counts(counts)).by_group["tpr"].to_dict() == {"f": 0.0, "m": 1.0}


def test_a_dict_pos_label_absent_from_a_one_label_0_1_column_makes_it_all_negative() -> None:
    # found by the long fuzz run: a column of only 1 (coded [0, 1]) with pos_label={'Y': 2}
    table = ObservedTable.from_frame(pd.DataFrame({"A": ["f"], "Y": [1], "P": [0]}), pos_label={"Y": 2})
    assert table.cells["Y"].tolist() == [0] and table.categories["Y"] == [1, 2]
    with pytest.raises(DataError, match=r"holds the labels \[0, 1\]; give one of them"):
        ObservedTable.from_frame(pd.DataFrame({"A": ["f", "m"], "Y": [1, 0], "P": [0, 0]}), pos_label={"Y": 2})


# -- 4. spurious_effect's natural range ---------------------------------------------------------------
SE = "P(P = 1 | A = 0) - P(P(A=0) = 1) - P(P = 1 | A = 1) + P(P(A=1) = 1)"


def _se_value(joint: np.ndarray) -> float:
    """TV - TE in a model: ``joint[a, p0, p1]`` = P(A = a, P(A=0) = p0, P(A=1) = p1); P = P(A=A) (consistency)."""
    k = joint.shape[0]
    pi = joint.reshape(k, -1).sum(axis=1)
    p0 = joint[0, 1, :].sum() / pi[0]  # P(P = 1 | A = 0): units with A = 0 have P = P(A=0)
    p1 = joint[1, :, 1].sum() / pi[1]
    q0, q1 = joint[:, 1, :].sum(), joint[:, :, 1].sum()
    return float(p0 - q0 - p1 + q1)


def _joint(k: int, rng: np.random.Generator) -> np.ndarray:
    """A random joint of the attribute (k values) and the prediction's potential values under A = 0 and A = 1
    (other interventions do not enter TV - TE); small Dirichlet weights reach the corners."""
    joint = rng.dirichlet(np.full(k * 4, rng.choice([0.05, 0.3, 1.0]))) + 1e-12  # every group has units
    return (joint / joint.sum()).reshape(k, 2, 2)


def test_spurious_effect_range_holds_in_random_models() -> None:
    low, high = _natural_range((SE,), False, frozenset({"A"}))
    assert (low, high) == (-1.0, 1.0)
    rng = np.random.default_rng(20240614)
    values = [_se_value(_joint(2, rng)) for _ in range(20000)]
    assert low - 1e-12 <= min(values) and max(values) <= high + 1e-12
    assert max(values) > 0.9 and min(values) < -0.9  # and the range is reached
    # every vertex of the model set (deterministic units in two groups, mixed by their share)
    for cell0, cell1 in itertools.product(itertools.product(range(2), repeat=2), repeat=2):
        for share in (1e-9, 0.5, 1 - 1e-9):
            joint = np.zeros((2, 2, 2))
            joint[(0, *cell0)] += share
            joint[(1, *cell1)] += 1 - share
            assert low - 1e-12 <= _se_value(joint) <= high + 1e-12


def test_a_three_valued_attribute_keeps_the_wide_range() -> None:
    # with a third group the pairs are not bound by 1: A = 0 and A = 1 rare, P(A=0) = 0 and P(A=1) = 1
    # elsewhere, P = 1 in group 0 and P = 0 in group 1 gives TV - TE near 2
    assert _natural_range((SE,), False, frozenset()) == (-2.0, 2.0)
    joint = np.zeros((3, 2, 2))
    joint[0, 1, 1], joint[1, 0, 0], joint[2, 0, 1] = 1e-3, 1e-3, 1 - 2e-3
    assert _se_value(joint) > 1.99
    rng = np.random.default_rng(7)
    assert all(-2 <= _se_value(_joint(3, rng)) <= 2 for _ in range(2000))


def test_paired_range_with_other_events_coefficients_and_terms() -> None:
    query = ("2 * P(W = 1 & V = 0 | X = 0) - 2 * P(W(X=0) = 1 & V(X=0) = 0) - P(W = 1 | X = 1) "
             "+ P(W(X=1) = 1) + 0.5 * P(V = 1 | X = 1)")
    low, high = _paired_range(parse_expression(query), frozenset({"X"}))
    assert (low, high) == (-2.0, 2.5)
    rng = np.random.default_rng(3)
    for _ in range(5000):
        # joint[x, w0, v0, w1, v1]: X and the potential values of (W, V) under X = 0 and X = 1
        joint = rng.dirichlet(np.full(32, rng.choice([0.05, 0.5]))) + 1e-12
        joint = (joint / joint.sum()).reshape(2, 2, 2, 2, 2)
        pi = joint.reshape(2, -1).sum(axis=1)
        value = (2 * joint[0, 1, 0].sum() / pi[0] - 2 * joint[:, 1, 0].sum() - joint[1, :, :, 1].sum() / pi[1]
                 + joint[:, :, :, 1].sum() + 0.5 * joint[1, :, :, :, 1].sum() / pi[1])
        assert low - 1e-12 <= value <= high + 1e-12


@pytest.mark.parametrize("time_limit", [0.01, 0.1])
def test_spurious_effect_cut_short_stays_in_minus_1_to_1(time_limit: float) -> None:
    table = fp.ObservedTable.from_counts(EMPTY_1)
    assert BoundProblem("proxy_attribute", "spurious_effect", table).natural_range == (-1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = fp.bound("proxy_attribute", "spurious_effect", table, D=0.03, time_limit=time_limit, progress=False)
    assert -1.0 <= res.lower <= res.upper <= 1.0, (res.lower, res.upper, res.status)

"""Bad-input pass 4 (issue 44) in core: which label means 1, near-duplicate labels, counts and ``n``
beyond exact floats, and missing values named by the user's columns.

Items 1, 11 (table part), 16, 17 (counts part) and 18 (the table's message). Every table path (the
API ``fp.group_rates``, ``ObservedTable.from_frame``/``from_counts``/``from_probabilities`` and the bias
path ``fp.bound``) follows one rule: labels that do not say which one means 1 (``good``/``bad``,
``1``/``2``, ``-1``/``1``) are refused in a binary role, and ``pos_label=`` names the positive label.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.inputs import resolve_bias
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import DataError

# group a: fpr 0.5 (one of two negatives predicted positive); group b: fpr 1.0 (both)
TRUTH_FPR = {"a": 0.5, "b": 1.0}
ROWS = pd.DataFrame({"race": list("aaaabbbb"), "y": [1, 1, 0, 0, 1, 1, 0, 0], "p": [1, 0, 1, 0, 1, 1, 1, 1]})


def _relabel(frame: pd.DataFrame, yes: object, no: object, columns=("y", "p")) -> pd.DataFrame:
    out = frame.copy()
    for c in columns:
        out[c] = out[c].map({1: yes, 0: no}).astype(object)
    return out


def _fpr(rates) -> dict:
    return {k: float(v) for k, v in rates.by_group["fpr"].items()}


# -- item 1: which label means 1 -----------------------------------------------------------------------
@pytest.mark.parametrize(("yes", "no"), [("good", "bad"), ("hired", "rejected"), (2, 1), (1, -1), ("Yes", "No")])
def test_observed_refuses_labels_that_do_not_say_which_is_1(yes, no) -> None:
    frame = _relabel(ROWS, yes, no)
    with pytest.raises(DataError) as info:
        fp.group_rates(frame, A="race", Y="y", P="p")
    message = str(info.value)
    assert "Column 'y' (node Y)" in message or "Column 'p' (node P)" in message
    assert "cannot tell which" in message and "pos_label=" in message and "--pos-label" in message
    assert repr(yes) in message and repr(no) in message  # the labels found


@pytest.mark.parametrize(("yes", "no"), [("good", "bad"), ("hired", "rejected"), (2, 1), (1, -1)])
def test_pos_label_gives_the_true_rates(yes, no) -> None:
    frame = _relabel(ROWS, yes, no)
    assert _fpr(fp.group_rates(frame, A="race", Y="y", P="p", pos_label=yes)) == TRUTH_FPR


def test_text_prediction_with_a_01_label_is_refused_then_named() -> None:
    frame = _relabel(ROWS, "hire", "reject", columns=("p",))
    with pytest.raises(DataError, match=r"Column 'p' \(node P\) holds the labels \['hire', 'reject'\]"):
        fp.group_rates(frame, A="race", Y="y", P="p")
    assert _fpr(fp.group_rates(frame, A="race", Y="y", P="p", pos_label="hire")) == TRUTH_FPR
    # a mapping names the label per node
    mixed = _relabel(_relabel(ROWS, "hired", "rejected", ("y",)), "hire", "reject", ("p",))
    assert _fpr(fp.group_rates(mixed, A="race", Y="y", P="p", pos_label={"Y": "hired", "P": "hire"})) == TRUTH_FPR


@pytest.mark.parametrize(("yes", "no"), [(1, 0), (True, False), ("1", "0"), ("true", "false")])
def test_unambiguous_codings_keep_working(yes, no) -> None:
    frame = _relabel(ROWS, yes, no)
    assert _fpr(fp.group_rates(frame, A="race", Y="y", P="p")) == TRUTH_FPR


def test_a_text_column_of_only_1s_stays_1() -> None:
    frame = ROWS.assign(p="1")
    table = ObservedTable.from_frame(frame, A="race", Y="y", P="p")
    assert set(table.cells.P) == {1} and table.categories["P"] == ["0", "1"]


def test_observed_refuses_a_table_and_cells_with_unclear_labels() -> None:
    frame = _relabel(ROWS, "good", "bad")
    table = ObservedTable.from_frame(frame, A="race", Y="y", P="p")
    with pytest.raises(DataError, match=r"Column 'y' \(node Y\) holds the labels \['bad', 'good'\]"):
        fp.group_rates(table)
    assert _fpr(fp.group_rates(table, pos_label="good")) == TRUTH_FPR
    cells = frame.rename(columns={"race": "A", "y": "Y", "p": "P"}).value_counts().rename("prob").reset_index()
    cells["prob"] /= cells["prob"].sum()
    with pytest.raises(DataError, match="cannot tell which"):
        fp.group_rates(cells)
    assert _fpr(fp.group_rates(cells, pos_label="good")) == TRUTH_FPR


def test_from_frame_takes_pos_label_and_the_bias_path_accepts_it() -> None:
    frame = _relabel(ROWS, "hired", "rejected")
    plain = ObservedTable.from_frame(frame, A="race", Y="y", P="p")
    with pytest.raises(DataError, match=r"Column 'y' \(node Y\) holds the labels \['hired', 'rejected'\].*"
                                        r"cannot tell which label means 1.*pos_label='hired'"):
        fp.bound("selection", "fpr_parity", plain, D=0.0)
    named = ObservedTable.from_frame(frame, A="race", Y="y", P="p", pos_label="hired")
    assert named.categories["Y"] == ["rejected", "hired"] and named.positive == {"Y": "hired", "P": "hired"}
    res = fp.bound("selection", fp.metric("fpr", group="b"), named, D=0.0)
    assert res.lower == pytest.approx(1.0, abs=1e-6)
    res = fp.bound("selection", fp.metric("fpr", group="a"), named, D=0.0)
    assert res.lower == pytest.approx(0.5, abs=1e-6)


def test_pos_label_for_counts_and_probabilities() -> None:
    frame = _relabel(ROWS, "good", "bad").rename(columns={"race": "A", "y": "Y", "p": "P"})
    counts = frame.value_counts().rename("n").reset_index()
    table = ObservedTable.from_counts(counts, pos_label="good")
    assert table.positive == {"Y": "good", "P": "good"} and table.n == 8
    assert _fpr(fp.group_rates(table)) == TRUTH_FPR
    probs = counts.assign(prob=counts.n / 8).drop(columns="n")
    labels = {"Y": "good", "P": "good"}
    assert _fpr(fp.group_rates(ObservedTable.from_probabilities(probs, pos_label=labels))) == TRUTH_FPR


def test_a_pos_label_may_reverse_a_01_column_only_by_name() -> None:
    """A scalar resolves unclear labels; it never recodes a 0/1 column. A mapping does, by name."""
    table = ObservedTable.from_frame(ROWS, A="race", Y="y", P="p", pos_label={"Y": 0})
    assert table.categories["Y"] == [1, 0] and table.positive == {"Y": 0}
    assert table.prob({"Y": 1}) == pytest.approx(0.5)
    with pytest.raises(DataError, match=r"pos_label=5 is not a label of any column.*labels"):
        ObservedTable.from_frame(ROWS, A="race", Y="y", P="p", pos_label=5)


@pytest.mark.parametrize(("pos_label", "problem"), [
    ("Good", r"pos_label='Good' is not a label of any column"),
    ({"Y": "Good"}, r"pos_label names 'Good' for column 'y' \(node Y\), which holds the labels \['bad', 'good'\]"),
    ({"Q": "good"}, r"pos_label names the node 'Q', which is not a node of the table \['A', 'Y', 'P'\]"),
    ({"A": "a"}, r"column 'race' \(node A\) holds 2 labels|pos_label"),
    (["good"], r"pos_label = \['good'\] must be one label"),
])
def test_bad_pos_labels_are_clear_errors(pos_label, problem) -> None:
    frame = _relabel(ROWS, "good", "bad")
    if pos_label == {"A": "a"}:  # naming an attribute's label is allowed: a two-valued column
        table = ObservedTable.from_frame(frame, A="race", Y="y", P="p", pos_label=pos_label)
        assert table.categories["A"] == ["b", "a"]
        return
    with pytest.raises(DataError, match=problem):
        ObservedTable.from_frame(frame, A="race", Y="y", P="p", pos_label=pos_label)


def test_pos_label_on_a_column_of_three_labels_is_refused() -> None:
    frame = ROWS.assign(y=["x", "y", "z", "x", "y", "z", "x", "y"])
    with pytest.raises(DataError, match=r"column 'y' \(node Y\) holds 3 labels \['x', 'y', 'z'\].*two"):
        ObservedTable.from_frame(frame, A="race", Y="y", P="p", pos_label={"Y": "x"})


def test_unclear_labels_lists_the_nodes_of_a_config() -> None:
    frame = _relabel(ROWS, "good", "bad", columns=("y",))
    table = ObservedTable.from_frame(frame, A="race", Y="y", P="p")
    config = resolve_bias("selection")
    assert table.unclear_labels(config) == {"Y": ["bad", "good"]}
    assert table.unclear_labels(["A", "P"]) == {"A": ["a", "b"]}  # asked for: the attribute's labels are text
    assert ObservedTable.from_frame(frame, A="race", Y="y", P="p", pos_label="good").unclear_labels(config) == {}


# -- item 16: labels that differ only by spaces or Unicode form ------------------------------------------
NFC, NFD = unicodedata.normalize("NFC", "é"), unicodedata.normalize("NFD", "é")


@pytest.mark.parametrize(("labels", "shown"), [
    (["a", "a ", "b", "b"], r"'a' and 'a '"),
    ([" a", "a", "b", "b"], r"' a' and 'a'"),
    ([NFC, NFD, "b", "b"], re.escape(ascii(NFC)) + ".*" + re.escape(ascii(NFD))),
    (["a b", "a  b", "c", "c"], r"'a b' and 'a  b'"),
])
def test_near_duplicate_labels_are_refused(labels, shown) -> None:
    frame = pd.DataFrame({"race": labels, "y": [0, 1, 0, 1], "p": [0, 1, 1, 0]})
    with pytest.raises(DataError) as info:
        ObservedTable.from_frame(frame, A="race", Y="y", P="p")
    message = str(info.value)
    assert re.search(r"Column 'race' \(node A\) holds labels that differ only by spaces or Unicode form", message)
    assert re.search(shown, message), message
    assert "str.strip()" in message and "normalize('NFC')" in message
    with pytest.raises(DataError, match="differ only by spaces or Unicode form"):
        fp.group_rates(frame, A="race", Y="y", P="p")
    cells = frame.rename(columns={"race": "A", "y": "Y", "p": "P"}).assign(prob=0.25)
    with pytest.raises(DataError, match="differ only by spaces or Unicode form"):
        ObservedTable.from_probabilities(cells)
    with pytest.raises(DataError, match="differ only by spaces or Unicode form"):
        ObservedTable.from_frame(frame.astype({"race": "category"}), A="race", Y="y", P="p")


def test_the_fix_the_message_names_works() -> None:
    frame = pd.DataFrame({"race": ["a", "a ", NFD, NFC], "y": [0, 1, 0, 1], "p": [0, 1, 1, 0]})
    frame["race"] = frame["race"].str.strip().str.normalize("NFC")
    assert ObservedTable.from_frame(frame, A="race", Y="y", P="p").categories["A"] == ["a", NFC]


def test_distinct_labels_are_not_near_duplicates() -> None:
    frame = pd.DataFrame({"race": ["a", "A", "ab", "a-b"], "y": [0, 1, 0, 1], "p": [0, 1, 1, 0]})
    assert len(ObservedTable.from_frame(frame, A="race", Y="y", P="p").categories["A"]) == 4


# -- item 17: counts beyond exact floats ------------------------------------------------------------------
def test_integer_counts_beyond_2_53_are_refused() -> None:
    counts = pd.DataFrame({"A": [0, 1, 1, 1, 1], "Y": [0, 0, 1, 0, 1], "P": [0, 0, 0, 1, 1],
                           "n": [2**53 + 1, 1, 1, 1, 1]})
    with pytest.raises(DataError, match=r"The counts in 'n' add up to 9007199254740997, more than 2\*\*53.*"
                                        r"from_probabilities"):
        ObservedTable.from_counts(counts)
    ok = ObservedTable.from_counts(counts.assign(n=[2**53 - 4, 1, 1, 1, 1]))
    assert ok.n == 2**53 and ok.counts().tolist()[1:] == [1, 1, 1, 1]  # the small cells keep their units
    assert ok.prob({"A": 1}) == pytest.approx(4 / 2**53, rel=1e-12)


def test_float_weights_beyond_2_53_have_no_number_of_units() -> None:
    table = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [1e17, 1e17]}))
    assert table.n is None and table.cells.prob.tolist() == [0.5, 0.5]


# -- item 11 (table part): n and probabilities of a table ---------------------------------------------------
CELLS = pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "prob": [0.25] * 4})


@pytest.mark.parametrize("n", [10**20, 2**53 + 1, 1e300])
def test_from_probabilities_refuses_an_unrealistic_n(n) -> None:
    with pytest.raises(DataError, match=r"n=.* (is more than 2\*\*53|must be a positive whole number)"):
        ObservedTable.from_probabilities(CELLS, n=n)


@pytest.mark.parametrize("n", [0, -3, 1.5, True, 10**20, "10"])
def test_with_probabilities_refuses_a_bad_n(n) -> None:
    table = ObservedTable.from_probabilities(CELLS, n=100)
    with pytest.raises(DataError, match=r"with_probabilities: n=.* must be a positive whole number of units"):
        table.with_probabilities([0.25] * 4, n=n)
    assert table.with_probabilities([0.25] * 4, n=np.int64(7)).n == 7


@pytest.mark.parametrize(("probs", "problem"), [
    (["a"] * 4, r"with_probabilities needs numbers; got 'a'"),
    ([[0.25, 0.25], [0.25, 0.25]], r"needs 4 probabilities \(one per cell\), got shape \(2, 2\)"),
    ([None] * 4, r"finite, non-negative probabilities"),
])
def test_with_probabilities_refuses_non_numbers(probs, problem) -> None:
    table = ObservedTable.from_probabilities(CELLS, n=100)
    with pytest.raises(DataError, match=problem):
        table.with_probabilities(probs)


def test_an_unrealistic_n_never_reaches_the_resampler() -> None:
    frame = pd.DataFrame({"A": [0, 0, 1, 1] * 2, "Y": [0, 1] * 4, "P": [0, 0, 1, 1, 1, 0, 1, 0], "prob": [0.125] * 8})
    with pytest.raises(DataError, match=r"2\*\*53"):
        fp.bound("proxy_label", "fpr_parity", ObservedTable.from_probabilities(frame, n=10**20), D=0.05, ci=0.95,
                 resamples=20)


# -- item 18: missing values name the user's columns ------------------------------------------------------
def test_missing_values_name_the_users_columns() -> None:
    frame = ROWS.astype({"race": object, "y": float})
    frame.loc[1, "race"] = None
    frame.loc[2, "y"] = np.nan
    with pytest.raises(DataError, match=r"Missing values in node column\(s\) \['A', 'Y'\]: column 'race' \(A\), "
                                        r"column 'y' \(Y\).*dropna\(subset=\['race', 'y'\]\)"):
        ObservedTable.from_frame(frame, A="race", Y="y", P="p")
    with pytest.raises(DataError, match=r"column 'race' \(A\)"):
        fp.group_rates(frame, A="race", Y="y", P="p")

"""Issue 23 S1: one meaning of a group value in query strings and in ``fp.metric``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.query import query_in_codes
from fairprobe.exceptions import ConfigError


@pytest.fixture(scope="module")
def coded_1_2() -> fp.ObservedTable:
    """Sex recorded as 1/2, as many surveys do: labels [1, 2], codes 0/1."""
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"A": rng.choice([1, 2], n), "Y": rng.integers(0, 2, n), "P": rng.integers(0, 2, n)})
    return fp.ObservedTable.from_frame(frame)


def _fpr(table: fp.ObservedTable, label: int) -> float:
    """The observed false-positive rate of the group with ``label``, from the cells directly."""
    cells = table.cells
    code = table.categories["A"].index(label)
    group = cells[(cells["A"] == code) & (cells["Y"] == 0)]
    return float(group.loc[group["P"] == 1, "prob"].sum() / group["prob"].sum())


def test_an_ambiguous_integer_label_is_an_error_that_names_both_readings(coded_1_2):
    with pytest.raises(ConfigError) as info:
        fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 1)", coded_1_2, D=0.05)
    message = str(info.value)
    assert "ambiguous" in message and "label 1 (code 0)" in message and "code 1 (label '2')" in message
    assert "A = '1'" in message and "A = #1" in message


@pytest.mark.parametrize("label", [1, 2])
def test_query_strings_take_labels_as_fp_metric_does(coded_1_2, label):
    by_metric = fp.bound("proxy_label", fp.metric("fpr", group=label), coded_1_2, D=0)
    by_query = fp.bound("proxy_label", f"P(P = 1 | Z = 0 & A = '{label}')", coded_1_2, D=0)
    code = coded_1_2.categories["A"].index(label)
    by_code = fp.bound("proxy_label", f"P(P = 1 | Z = 0 & A = #{code})", coded_1_2, D=0)
    truth = _fpr(coded_1_2, label)  # at D = 0 the proxy is the outcome: the bound is the observed rate
    for result in (by_metric, by_query, by_code):
        assert result.lower == pytest.approx(truth, abs=1e-7)
        assert result.upper == pytest.approx(truth, abs=1e-7)
    assert f"A = '{label}'" in by_query.metric and f"A = '{label}'" in by_code.metric  # the label, not the code


def test_an_unambiguous_number_is_the_label_it_equals(coded_1_2):
    """2 is a label (code 1) and no code of a two-group attribute: it can only mean the label."""
    result = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 2)", coded_1_2, D=0)
    assert result.lower == pytest.approx(_fpr(coded_1_2, 2), abs=1e-7)


def test_string_labels_and_codes_in_a_query():
    frame = pd.DataFrame({"A": ["f", "m", "f", "m", "f", "m"], "Y": [0, 0, 0, 0, 1, 1], "P": [1, 0, 0, 0, 1, 1]})
    table = fp.ObservedTable.from_frame(frame)
    by_label = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = f)", table, D=0)
    by_code = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 0)", table, D=0)  # no integer label: a code
    assert by_label.lower == pytest.approx(0.5) and by_code.lower == pytest.approx(0.5)
    assert "A = f" in by_label.metric and "A = f" in by_code.metric
    with pytest.raises(ConfigError, match=r"A = x is not a value of A; its labels are \['f', 'm'\]"):
        fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = x)", table, D=0)
    with pytest.raises(ConfigError, match="neither a label nor a code"):
        fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 5)", table, D=0)


@pytest.mark.parametrize(("query", "expected"), [
    ("P(Y(A=2) = 1)", ("P(Y(A=1) = 1)", "P(Y(A='2') = 1)")),  # an intervention value is a label too
    ("P(Y(A=#0) = 1 | A != 2)", ("P(Y(A=0) = 1 | A != 1)", "P(Y(A='1') = 1 | A != '2')")),
    ("P(P = 1 | Y = 0)", ("P(P = 1 | Y = 0)", "P(P = 1 | Y = 0)")),  # unlabelled nodes unchanged
])
def test_query_in_codes_rewrites_every_labelled_value(query, expected):
    assert query_in_codes(query, {"A": [1, 2]}) == expected

"""Bad-input pass 5 (API): counts that are weights name why intervals refuse them (D6); with_table
refuses what is not a table (D10)."""

from __future__ import annotations

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.core.uncertainty import require_counts
from fairprobe.exceptions import ConfigError, DataError
from tests.bad_input import run_cli

CELLS = {"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4}
#: survey weights: not whole numbers of units
FRACTIONAL = pd.DataFrame({**CELLS, "n": [12.5, 4.2, 10.0, 40.0, 30.0, 20.0, 10.0, 40.0]})
#: float counts adding up to more than 2**53
HUGE = pd.DataFrame({**CELLS, "n": [1e15, 2e15, 1e15, 4e15, 3e15, 2e15, 1e15, 4e15]})
#: float counts adding up to more than the float range
OVERFLOW = pd.DataFrame({**CELLS, "n": [1e308] * 8})
WHOLE = pd.DataFrame({**CELLS, "n": [40, 10, 10, 40, 30, 20, 10, 40]})


def test_fractional_counts_record_why_they_are_weights() -> None:
    table = fp.ObservedTable.from_counts(FRACTIONAL)
    assert table.n is None
    assert "12.5" in table.weights_reason and "whole" in table.weights_reason
    assert fp.ObservedTable.from_counts(WHOLE).weights_reason is None
    probs = fp.ObservedTable.from_probabilities(pd.DataFrame({"A": [0, 1], "prob": [0.5, 0.5]}))
    assert probs.weights_reason is None


@pytest.mark.parametrize(("frame", "problem"), [
    (FRACTIONAL, r"'n'.*not whole.*12\.5"),
    (HUGE, r"'n'.*add up to .*more than 2\*\*53"),
    (OVERFLOW, r"'n'.*add up to .*more than 2\*\*53"),
])
def test_counts_error_names_the_weights(frame: pd.DataFrame, problem: str) -> None:
    table = fp.ObservedTable.from_counts(frame)
    for call in (table.counts, lambda: require_counts(table),
                 lambda: fp.bound("proxy_label", "fpr", table, D=0.02, ci=0.95, progress=False)):
        with pytest.raises(DataError) as info:
            call()
        message = str(info.value)
        assert __import__("re").search(problem, message), message
        assert "round" in message and "whole numbers of units" in message, message
        assert "has probabilities but no sample size" not in message, message


def test_weights_reason_survives_derived_tables() -> None:
    table = fp.ObservedTable.from_counts(FRACTIONAL)
    p = table.cells["prob"].to_numpy()
    assert table.with_probabilities(p).weights_reason == table.weights_reason
    assert table.with_probabilities(p, n=100).counts().sum() == 100  # a sample size given: no longer weights


def test_probability_table_keeps_the_no_sample_size_message() -> None:
    table = fp.ObservedTable.from_probabilities(pd.DataFrame({"A": [0, 1], "prob": [0.5, 0.5]}))
    with pytest.raises(DataError, match="has probabilities but no sample size"):
        table.counts()


def test_cli_ci_on_fractional_counts(tmp_path, capsys) -> None:
    path = tmp_path / "weights.csv"
    FRACTIONAL.to_csv(path, index=False)
    code, _, err = run_cli(["bound", "--bias", "proxy_label", "--metric", "fpr", "--D", "0.02", "--ci", "0.95",
                            "--data", str(path), "--counts", "n"], capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, err
    assert "not whole" in lines[0] and "12.5" in lines[0] and "round" in lines[0], lines[0]


@pytest.mark.parametrize("bad", [None, pd.DataFrame(CELLS), "table.csv", 3])
def test_with_table_refuses_what_is_not_a_table(bad: object) -> None:
    problem = BoundProblem("proxy_label", "fpr", fp.ObservedTable.from_counts(WHOLE))
    with pytest.raises((DataError, ConfigError)) as info:
        problem.with_table(bad)
    message = str(info.value)
    assert "with_table takes an ObservedTable" in message, message
    assert "ObservedTable.from_frame" in message and "from_counts" in message, message

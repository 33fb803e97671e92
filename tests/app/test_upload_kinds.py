"""Bad-input pass 3 in the app: counts only when asked (S3), missing node values refused (S4)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.datasets import load_paper_table
from fairprobe.exceptions import DataError

pytest.importorskip("streamlit", reason="the web app needs the 'app' extra (streamlit)")
from fairprobe.app import logic


def test_a_count_named_variable_of_unit_rows_is_not_read_as_counts() -> None:
    rng = np.random.default_rng(0)
    rows = pd.DataFrame({"A": rng.integers(0, 2, 400), "Y": rng.integers(0, 2, 400), "P": rng.integers(0, 2, 400),
                         "n": rng.integers(0, 12, 400)})  # number of prior arrests
    kind = logic.table_kind(rows)
    assert kind == "units"
    table = logic.build_table(rows, kind, {"A": "A", "Y": "Y", "P": "P"})
    expected = fp.ObservedTable.from_frame(rows[["A", "Y", "P"]])
    np.testing.assert_allclose(table.cells.prob.to_numpy(), expected.cells.prob.to_numpy(), atol=1e-15)
    assert logic.count_column(rows) == "n"
    assert logic.table_kind(rows, counts=True) == "counts"  # only when the user says so


@pytest.mark.parametrize("kind", ["counts", "cells"])
def test_missing_node_value_is_refused(kind: str) -> None:
    cells = load_paper_table()
    frame = cells.assign(n=(cells.prob * 1000).round()).drop(columns="prob") if kind == "counts" else cells
    frame = frame.astype({"Y": float})
    frame.loc[2, "Y"] = np.nan
    with pytest.raises(DataError, match=r"Missing values in node column\(s\) Y \(Y\)"):
        logic.build_table(frame, kind, {"A": "A", "Y": "Y", "P": "P"})


# -- found by the fuzz suite: a sum per cell hid a negative, missing or fractional entry ----------------

@pytest.mark.parametrize(("kind", "column", "values", "problem"), [
    ("cells", "prob", [-1, 1, 1], "a probability per row, a finite number >= 0; row 0 holds -1"),
    ("counts", "n", [float("nan"), 1, 1], "a count per row, a finite number >= 0; row 0 holds nan"),
    ("counts", "n", [1, -2, 1], "a count per row, a finite number >= 0; row 1 holds -2"),
])
def test_weights_are_checked_row_by_row_before_cells_are_summed(kind, column, values, problem) -> None:
    frame = pd.DataFrame({"A": [0, 0, 0], "Y": [0, 0, 0], "P": [0, 0, 0], column: values})
    with pytest.raises(DataError, match=re.escape(problem)):
        logic.build_table(frame, kind, {"A": "A", "Y": "Y", "P": "P"})

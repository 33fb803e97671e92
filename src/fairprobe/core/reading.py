"""The one reader of a user's table, shared by the command line and the web app.

One rule says what a table holds, so the same file gives the same bounds everywhere:

* a column named ``prob``: one row per cell, with its probability;
* a count column **the user names** (``counts="n"``, ``--counts n``): one row per cell, with its count;
* otherwise one row per unit: a column called ``n`` or ``count`` is then a variable like any other.

With a mapping (node -> column) exactly the mapped columns are nodes; without one, every column but
the probability or count column is. Rows that repeat a cell are summed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import ConfigError, DataError

__all__ = ["COUNT_NAMES", "PROB_COLUMN", "TABLE_KINDS", "frame_to_table", "table_kind"]

#: What a table can hold, as :func:`table_kind` names it.
TABLE_KINDS = ("units", "cells", "counts")
#: The column that makes a table one of cell probabilities.
PROB_COLUMN = "prob"
#: Names a count column usually has (the app offers them; only a named one is read as counts).
COUNT_NAMES = ("n", "count")


def table_kind(frame: pd.DataFrame, *, counts: str | None = None) -> str:
    """What ``frame`` holds by the one rule: ``"cells"``, ``"counts"`` or ``"units"``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The user's table.
    counts : str, optional
        The column the user names as cell counts.

    Returns
    -------
    str

    Raises
    ------
    DataError
        ``counts`` names no column of ``frame``.
    ConfigError
        A ``prob`` column and a count column both.

    Examples
    --------
    >>> frame = pd.DataFrame({"A": [0, 1], "Y": [1, 0], "n": [30, 70]})
    >>> table_kind(frame), table_kind(frame, counts="n")
    ('units', 'counts')
    >>> table_kind(pd.DataFrame({"A": [0, 1], "prob": [0.4, 0.6]}))
    'cells'
    """
    if counts is not None:
        if counts not in frame.columns:
            raise DataError(f"No count column {counts!r} in the table; its columns are {list(frame.columns)}.")
        if PROB_COLUMN in frame.columns:
            raise ConfigError(f"The table has a {PROB_COLUMN!r} column (probabilities) and the count column "
                              f"{counts!r}; give one of them (drop the other column).")
        return "counts"
    return "cells" if PROB_COLUMN in frame.columns else "units"


def _check_weights(values: pd.Series, column: str, what: str) -> None:
    """Refuse a row whose probability or count (``what``) is not a finite number >= 0, before rows are summed."""
    numbers = pd.to_numeric(values, errors="coerce")
    bad = values[numbers.isna() | ~np.isfinite(numbers.fillna(0)) | (numbers < 0)]
    if len(bad):
        first = bad.iloc[0].item() if hasattr(bad.iloc[0], "item") else bad.iloc[0]
        raise DataError(f"Column {column!r} must hold {what} per row, a finite number >= 0; row {bad.index[0]} "
                        f"holds {first!r} ({len(bad)} such row(s)). Fix or drop those rows.")


def frame_to_table(frame: pd.DataFrame, columns: Mapping[str, str] | None = None, *, counts: str | None = None,
                   pos_label: Any = None) -> ObservedTable:
    """The observed table of a user's frame, by the one rule (module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        Unit rows, cells with a ``prob`` column, or cells with the count column ``counts``.
    columns : mapping of str to str, optional
        DAG node -> column; without it every column (but ``prob`` or ``counts``) is a node.
    counts : str, optional
        The column of cell counts, named by the user; without it no column is read as counts.
    pos_label : label or dict, optional
        The label that means 1, as for :meth:`~fairprobe.core.table.ObservedTable.from_frame`.

    Returns
    -------
    ObservedTable

    Raises
    ------
    DataError, ConfigError
        A missing column, a column mapped twice, a bad probability or count, a missing cell value.

    Examples
    --------
    >>> frame = pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "n": [30, 10, 20, 40]})
    >>> frame_to_table(frame, counts="n").n, frame_to_table(frame).n  # counts, or four units
    (100, 4)
    >>> frame_to_table(frame.assign(n=[30, -1, 20, 40]), counts="n")
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.DataError: Column 'n' must hold a count per row, a finite number >= 0; row 1 holds -1 ...
    """
    kind = table_kind(frame, counts=counts)
    weight = PROB_COLUMN if kind == "cells" else counts
    mapping = {k: v for k, v in (columns or {}).items() if v} or {
        c: c for c in frame.columns if c != weight}
    used = list(mapping.values())
    twice = sorted({c for c in used if used.count(c) > 1})
    if twice:
        raise ConfigError(f"Column(s) {twice} are mapped to more than one node; map each column once.")
    missing = [c for c in used if c not in frame.columns]
    if missing:
        raise DataError(f"The table has no column(s) {missing}; its columns are {list(frame.columns)}.")
    if kind == "units":
        return ObservedTable.from_frame(frame, pos_label=pos_label, **mapping)
    if weight in used:
        raise ConfigError(f"Column {weight!r} holds each cell's {'probability' if kind == 'cells' else 'count'}; "
                          "it cannot also be a node.")
    # groupby drops rows with a missing key, and with them their units: refuse them
    holes = [f"{node} ({col})" for node, col in mapping.items() if frame[col].isna().any()]
    if holes:
        raise DataError(f"Missing values in node column(s) {', '.join(holes)}; each cell needs a value for every "
                        "node. Fill or drop those rows first.")
    _check_weights(frame[weight], weight, "a probability" if kind == "cells" else "a count")
    cells = pd.DataFrame({node: frame[col] for node, col in mapping.items()}).assign(**{weight: frame[weight]})
    cells = cells.groupby(list(mapping), as_index=False, sort=True)[weight].sum()
    if kind == "cells":
        return ObservedTable.from_probabilities(cells, pos_label=pos_label)
    return ObservedTable.from_counts(cells, weight, pos_label=pos_label)

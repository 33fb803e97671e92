"""Observed tables: the joint distribution of the observed DAG nodes.

An :class:`ObservedTable` is a table of cells (one integer-coded column per node) with a
probability per cell, optionally with the counts it came from. Values are coded ``0..k-1``;
the original labels are kept in :attr:`ObservedTable.categories`. Tables from selected data
carry the conditioning event (``given={"S": 1}``): their probabilities are ``P(cell | S = 1)``.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairprobe.core.coding import apply_pos_label, cells_with_pos_label, code_column, is_binary_coding, plain_value
from fairprobe.core.coding import check_near_duplicates as check_near_duplicates  # still importable from here
from fairprobe.core.table_fit import check_table_fits
from fairprobe.exceptions import DataError

if TYPE_CHECKING:
    from fairprobe.core.config import BiasConfig

__all__ = ["MAX_EXACT_COUNT", "ObservedTable", "is_binary_coding"]

_PROB = "prob"
#: Largest number of units a table takes (2**53): beyond it floats skip whole numbers, so counts
#: lose units (a group of 4 next to 2**53 rounds away) and resampling cannot draw them.
MAX_EXACT_COUNT = 2**53


def _check_frame(df: Any, what: str) -> None:
    """A pandas DataFrame with unique string column names."""
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"{what} needs a pandas DataFrame; got {type(df).__name__}. Read the data with "
                        "pandas (pd.read_csv) or fairprobe.datasets.load_table first.")
    dupes = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
    if dupes:
        raise DataError(f"The data have duplicate column names {dupes}; rename or drop the duplicates "
                        "(e.g. df.loc[:, ~df.columns.duplicated()]).")


def check_one_column_per_node(mapping: Mapping[str, Any]) -> None:
    """Refuse a node-to-column mapping that maps one column to two nodes.

    Parameters
    ----------
    mapping : mapping of str to column name

    Raises
    ------
    DataError
        A column named for two or more nodes.

    Examples
    --------
    >>> check_one_column_per_node({"Y": "recid", "P": "recid"})
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.DataError: Column 'recid' is mapped to 2 nodes (Y, P); ...
    """
    shared: dict[Any, list[str]] = {}
    for node, col in mapping.items():
        shared.setdefault(col, []).append(node)
    for col, nodes in shared.items():
        if len(nodes) > 1:
            raise DataError(f"Column {col!r} is mapped to {len(nodes)} nodes ({', '.join(nodes)}); each node needs "
                            "its own column (a typo in --columns or the node=column keywords?).")


def _check_nodes(columns: list[Any]) -> None:
    if not columns:
        raise DataError("The table has no node columns; give at least one column per DAG node besides the "
                        "count/probability column.")
    bad = [c for c in columns if not isinstance(c, str)]
    if bad:
        raise DataError(f"Node column names must be strings; got {bad}. Rename the columns to the DAG's node "
                        "names (df.columns = ['A', 'Y', 'P', ...]).")
    if _PROB in columns:
        raise DataError(f"'{_PROB}' is reserved for the probability column; rename that node.")


def _check_given(given: Any) -> dict[str, int]:
    """``given`` as a dict of node -> non-negative integer code."""
    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise DataError(f"given = {given!r} must be a dict such as given={{'S': 1}} (the event the data are "
                        "conditioned on).")
    out: dict[str, int] = {}
    for k, v in given.items():
        if not isinstance(k, str) or isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise DataError(f"given has the entry {k!r}: {v!r}; name a node and an integer code, e.g. "
                            "given={'S': 1}.")
        out[k] = int(v)
    return out


def _check_count(n: Any, what: str = "n") -> int | None:
    """A number of units: None, or a whole number from 1 to :data:`MAX_EXACT_COUNT` (2**53)."""
    if n is None:
        return None
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_EXACT_COUNT:
        raise DataError(f"{what}={plain_value(n)!r} must be a positive whole number of units, at most 2**53 = "
                        f"{MAX_EXACT_COUNT} (a realistic count: sampling intervals draw that many units), or "
                        "None when unknown.")
    return int(n)


def _is_label_column(values: pd.Series) -> bool:
    """Text or categorical values (labels to code), as opposed to numbers that must be codes."""
    return (isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(values.dtype)
            or (values.dtype == object and all(isinstance(v, str) for v in values)))


def _negative_integers(values: pd.Series) -> bool:
    """Whether a node column holds whole numbers below 0 (-1/1): labels, since a code is never negative."""
    if not len(values) or pd.api.types.is_bool_dtype(values.dtype):
        return False
    if not pd.api.types.is_numeric_dtype(values.dtype) and not (values.dtype == object and all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values)):
        return False
    as_float = values.to_numpy(dtype=float)
    return bool(np.isfinite(as_float).all() and (as_float == np.floor(as_float)).all() and as_float.min() < 0)


def _numeric_column(df: pd.DataFrame, column: str, what: str) -> np.ndarray:
    """A count or probability column as finite floats, or a DataError naming the bad entries."""
    col = df[column]
    if pd.api.types.is_bool_dtype(col):
        raise DataError(f"The {what} column {column!r} holds True/False; give numbers.")
    try:
        values = pd.to_numeric(col, errors="coerce")
    except OverflowError:
        raise DataError(f"The {what} column {column!r} holds numbers beyond the float range (about 1.8e308); "
                        "divide the column by a common factor (the table only needs their proportions) or use "
                        "ObservedTable.from_probabilities.") from None
    bad = col[values.isna() & col.notna()]
    if len(bad):
        raise DataError(f"The {what} column {column!r} holds text such as {plain_value(bad.iloc[0])!r}; convert it to "
                        f"numbers (pd.to_numeric(df[{column!r}])) or name the right column ({what}=...).")
    out = values.to_numpy(dtype=float)
    if np.isnan(out).any():
        raise DataError(f"The {what} column {column!r} has missing values (NaN); fill or drop those rows.")
    if np.isinf(out).any():
        raise DataError(f"The {what} column {column!r} has infinite values; give finite {what}s.")
    if (out < 0).any():
        plural = "probabilities" if what == "probability" else f"{what}s"
        raise DataError(f"The {what} column {column!r} has negative values (e.g. {out[out < 0][0]:g}); "
                        f"{plural} must be non-negative (>= 0).")
    return out


def _codes(col: pd.Series, name: str) -> pd.Series:
    """A node column of a count/probability table as integer codes >= 0 (0/1 booleans and 1.0 floats accepted)."""
    if pd.api.types.is_bool_dtype(col):
        return col.astype(int)
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu" and len(col):  # codes already (the usual case)
        raw = col.to_numpy()
        if raw.min() >= 0 and raw.max() < 2**31:
            return col.astype(int)
    values = pd.to_numeric(col, errors="coerce") if not pd.api.types.is_numeric_dtype(col) else col
    ok = values.notna().all() and bool(np.isfinite(values.to_numpy(dtype=float)).all())
    if ok:
        as_float = values.to_numpy(dtype=float)
        ok = bool((as_float >= 0).all() and (as_float == np.floor(as_float)).all() and (as_float < 2**31).all())
    if not ok:
        bad = [plain_value(v) for v in pd.unique(col)][:5]
        raise DataError(f"Column {name!r} must hold integer codes >= 0; it holds {bad}. Use "
                        "ObservedTable.from_frame to code labels, or map them to 0, 1, ... first.")
    return values.astype(float).astype(int)


def _integer_total(column: pd.Series) -> int | None:
    """The exact sum of a count column of integers (None for floats): int64 sums wrap, floats round."""
    values = column.to_numpy()
    if values.dtype.kind in "iu":
        if len(values) and int(values.max()) <= MAX_EXACT_COUNT // len(values):
            return int(values.sum())  # cannot exceed 2**53, so neither wraps nor rounds
        return sum(int(v) for v in values)
    if values.dtype == object and len(values) and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        return sum(int(v) for v in values)
    return None


def _weights_reason(count: str, counts: np.ndarray, whole: bool, total: float) -> str:
    """Why the counts in column ``count`` are weights rather than units (the table then has no ``n``)."""
    if not whole:
        values = np.asarray(counts, dtype=float)
        shown = ", ".join(f"{v:g}" for v in pd.unique(values[values % 1 != 0])[:3])
        return (f"the counts in {count!r} are not whole numbers (such as {shown}): they are read as weights, "
                "not numbers of units")
    above = f"{total:.4g}" if np.isfinite(total) else "over 1.8e308 (beyond the float range)"
    return (f"the counts in {count!r} add up to {above}, more than 2**53 = {MAX_EXACT_COUNT}: floats no longer "
            "hold such counts exactly, so they are read as weights, not numbers of units")


def _merged_cells(cells: pd.DataFrame, nodes: list[str]) -> pd.DataFrame:
    """``groupby(nodes, sort=True)[prob].sum()`` of ``cells``; distinct cells (the usual case) are only sorted."""
    keys = cells[nodes].to_numpy()
    order = np.lexsort(keys.T[::-1])
    ranked = keys[order]
    if len(ranked) > 1 and (ranked[1:] == ranked[:-1]).all(axis=1).any():
        return cells.groupby(nodes, as_index=False, sort=True)[_PROB].sum().reset_index(drop=True)
    return cells.iloc[order][[*nodes, _PROB]].reset_index(drop=True)


@dataclass
class ObservedTable:
    """Joint (or selection-conditional) distribution of observed nodes.

    A single cell is a valid point mass: metrics conditioning on a group it lacks are then undefined.

    Parameters
    ----------
    cells : pandas.DataFrame
        One column per node plus ``prob``; duplicate cells are merged and labels coded, leaving one
        integer column per node and one row per distinct cell.
    categories : dict
        Node -> original labels (index = code).
    given : dict
        Conditioning event of the data, e.g. ``{"S": 1}`` for data observed only where S = 1.
    n : int or None
        Number of units behind the table, when known.

    Raises
    ------
    DataError
        For duplicate or non-string column names, no rows, NaN/infinite/negative probabilities,
        probabilities not summing to 1, or node columns that are not integer codes >= 0.

    Examples
    --------
    >>> t = ObservedTable(pd.DataFrame({"A": [0, 1, 0], "prob": [0.25, 0.5, 0.25]}))
    >>> t.cells.values.tolist(), t.n
    ([[0.0, 0.5], [1.0, 0.5]], None)
    """

    cells: pd.DataFrame
    categories: dict[str, list[Any]] = field(default_factory=dict)
    given: dict[str, int] = field(default_factory=dict)
    n: int | None = None
    #: Per-cell bounds ``(lower, upper)`` on the probabilities (see :meth:`with_region`).
    region: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)
    #: Node -> the label coded 1 because the user named it (``pos_label=``).
    positive: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: Node -> the user's column it was read from, when the names differ (``from_frame(df, A="race")``).
    source_columns: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: Why counts were read as weights (not whole numbers, or over 2**53), so there is no ``n``; None otherwise.
    weights_reason: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_frame(self.cells, "ObservedTable")
        self.n = _check_count(self.n, "n")
        if _PROB not in self.cells.columns:
            raise DataError(f"The cells need a '{_PROB}' column; build tables with ObservedTable.from_frame, "
                            "from_counts or from_probabilities.")
        nodes = [c for c in self.cells.columns if c != _PROB]
        _check_nodes(nodes)
        self.given = _check_given(self.given)
        if len(self.cells) == 0:
            raise DataError("The table has no rows; a distribution needs at least one cell with probability > 0.")
        probs = _numeric_column(self.cells, _PROB, "probability")
        with np.errstate(over="ignore"):
            total = probs.sum()
        if abs(total - 1.0) > 1e-6:
            raise DataError(
                f"Probabilities sum to {total:.8g}, not 1 (tolerance 1e-6); normalise the table "
                "(df['prob'] / df['prob'].sum()) or give counts with ObservedTable.from_counts."
            )
        cells = self.cells.copy()
        cells[_PROB] = probs + 0.0  # (-0.0 is 0.0: a group-by would make it so, a sort keeps it)
        for c in nodes:
            if c not in self.categories and (_is_label_column(cells[c]) or _negative_integers(cells[c])):
                # labels (race names, 'yes'/'no', -1/1) are coded in sorted order and kept, as in from_frame
                cells[c], self.categories[c] = code_column(c, c, cells[c])
            cells[c] = _codes(cells[c], c)
        # duplicate cells are merged so every cell appears once (deterministic order)
        self.cells = _merged_cells(cells, nodes)

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, given: Mapping[str, int] | None = None, pos_label: Any = None,
                   **columns: str) -> ObservedTable:
        """Unit-level rows -> joint table; ``node=column`` keywords map DAG nodes to columns.

        Booleans and numbers that are already codes (``0..k-1``) keep their values; other labels
        are coded in sorted order and kept in :attr:`categories`. Sorted order does not say which
        of two labels means 1 (``'hired'``/``'rejected'``): name it with ``pos_label``, or a binary
        role (the label, the prediction) refuses the column.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per unit.
        given : mapping of str to int, optional
            Conditioning event of the data, e.g. ``{"S": 1}``.
        pos_label : label or dict, optional
            The label coded 1: one label, applied to every column that holds it and whose labels do
            not say which one means 1, or a dict by node (``{"Y": "hired"}``), which may also reverse
            a 0/1 column.
        **columns : str
            ``node="column"`` pairs; by default every column is a node.

        Returns
        -------
        ObservedTable
            The empirical joint distribution, with ``n`` the number of rows.

        Raises
        ------
        DataError
            No rows, duplicate columns, missing values, a column that mixes value types
            (``[0, 1, "1"]``), labels that differ only by spaces or Unicode form, or a
            ``pos_label`` that is not a label of the column.

        Examples
        --------
        >>> df = pd.DataFrame({"race": ["a", "b", "b", "a"], "Y": [0, 1, 1, 0], "P": [0, 1, 0, 1]})
        >>> t = ObservedTable.from_frame(df, A="race", Y="Y", P="P")
        >>> t.categories["A"], t.n, t.prob({"A": 1, "P": 0})
        (['a', 'b'], 4, 0.25)
        >>> hires = pd.DataFrame({"A": ["a", "b"], "Y": ["hired", "rejected"]})
        >>> ObservedTable.from_frame(hires, pos_label="hired").categories["Y"]
        ['rejected', 'hired']
        """
        _check_frame(df, "from_frame")
        mapping = dict(columns) or {c: c for c in df.columns}
        # an unhashable value (nodes=["A", "Y"]) cannot be a column name; test membership only for hashables
        bad = {k: v for k, v in mapping.items()
               if not isinstance(v, str) and (not isinstance(v, Hashable) or v not in df.columns)}
        if bad:
            raise DataError(f"Map nodes to column names (strings), e.g. A='race'; got {bad}.")
        missing = [c for c in mapping.values() if c not in df.columns]
        if missing:
            raise DataError(f"Column(s) {missing} are not in the data; available: {list(df.columns)}.")
        check_one_column_per_node(mapping)
        _check_nodes(list(mapping))
        given = _check_given(given)
        if len(df) == 0:
            raise DataError("The data frame has no rows; a table needs at least one unit (check the file or "
                            "the filter that produced it).")
        data = pd.DataFrame({node: df[col] for node, col in mapping.items()})
        if data.isna().any().any():
            holes = [n for n in data.columns if data[n].isna().any()]
            shown = ", ".join(f"column {mapping[n]!r} ({n})" for n in holes)
            raise DataError(f"Missing values in node column(s) {holes}: {shown}; drop or impute those rows first, "
                            f"e.g. df = df.dropna(subset={[mapping[n] for n in holes]!r}).")
        done, positive = apply_pos_label(data, mapping, pos_label)
        coded, categories = {}, {}
        for node in data.columns:
            coded[node], categories[node] = done[node] if node in done else code_column(node, mapping[node],
                                                                                         data[node])
        # the counts' own column must not be a node's name (a node may be called n)
        count = next(name for name in ("n", "_n", "__n") if name not in coded)
        counts = pd.DataFrame(coded).value_counts().rename(count).reset_index()
        table = cls._from_count_frame(counts, count, given)
        table.categories = categories
        table.positive = positive
        table.source_columns = {node: col for node, col in mapping.items() if col != node}
        return table

    @classmethod
    def from_counts(cls, df: pd.DataFrame, count: str = "n", *,
                    given: Mapping[str, int] | None = None, pos_label: Any = None) -> ObservedTable:
        """Cell counts (one column per node plus ``count``) -> table.

        Probabilities are ``count / total``, computed without overflow. Fractional counts, and
        float counts beyond 2**53, are read as weights: ``n`` is then None (see
        :attr:`weights_reason`). Integer counts adding up to more than 2**53 are refused.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per cell: node columns and a count column.
        count : str
            Name of the count column.
        given : mapping of str to int, optional
            Conditioning event of the data, e.g. ``{"S": 1}``.
        pos_label : label or dict, optional
            The label coded 1 in node columns of labels, as in :meth:`from_frame`.

        Returns
        -------
        ObservedTable
            The normalised table, with ``n`` the total count.

        Raises
        ------
        DataError
            No count column or rows, counts that are not finite numbers >= 0 or are all 0, or an
            integer total over 2**53.

        Examples
        --------
        >>> t = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "n": [30, 10, 20, 40]}))
        >>> t.n, round(t.prob({"P": 1}), 6)
        (100, 0.5)
        """
        _check_frame(df, "from_counts")
        if count not in df.columns:
            raise DataError(f"No count column {count!r}; columns are {list(df.columns)} (name it with count=...).")
        df, categories, positive = cells_with_pos_label(df, count, pos_label)
        table = cls._from_count_frame(df, count, _check_given(given), categories)
        table.positive = positive
        return table

    @classmethod
    def _from_count_frame(cls, df: pd.DataFrame, count: str, given: Mapping[str, int] | None,
                          categories: Mapping[str, list[Any]] | None = None) -> ObservedTable:
        if len(df) == 0:
            raise DataError("The count table has no rows; a table needs at least one cell with a count > 0.")
        counts = _numeric_column(df, count, "count")
        top = counts.max()
        if top <= 0:
            raise DataError(f"Every count in {count!r} is 0: the table is empty; give at least one positive count.")
        exact = _integer_total(df[count])
        if exact is not None and exact > MAX_EXACT_COUNT:
            raise DataError(
                f"The counts in {count!r} add up to {exact}, more than 2**53 = {MAX_EXACT_COUNT}: beyond it "
                "floating-point numbers skip whole numbers, so small cells would be rounded away (a group of a few "
                "units next to 2**53 would get probability 0). No data have that many units: check the column "
                "(an identifier, a typo?), or give the shares with ObservedTable.from_probabilities.")
        # scaled by the largest count first, so a total beyond the float range cannot overflow
        scaled = counts / top
        with np.errstate(over="ignore"):
            total = float(np.sum(counts))
        cells = df.drop(columns=[count]).copy()
        cells[_PROB] = scaled / scaled.sum()
        # fractional counts, and float counts beyond 2**53, are weights: shares but no number of units
        whole = bool(np.all(counts % 1 == 0))
        n = exact if exact is not None else (
            round(total) if np.isfinite(total) and whole and total <= MAX_EXACT_COUNT else None)
        table = cls(cells, categories=dict(categories or {}), given=dict(given or {}), n=n)
        if n is None:
            table.weights_reason = _weights_reason(count, counts, whole, total)
        return table

    @classmethod
    def from_probabilities(cls, df: pd.DataFrame, prob: str = "prob", *, given: Mapping[str, int] | None = None,
                           n: int | None = None, pos_label: Any = None) -> ObservedTable:
        """One column per node plus a probability column (must sum to 1 within 1e-6).

        Parameters
        ----------
        df : pandas.DataFrame
            One row per cell: node columns and a probability column.
        prob : str
            Name of the probability column.
        given : mapping of str to int, optional
            Conditioning event of the data, e.g. ``{"S": 1}``.
        n : int, optional
            Number of units behind the probabilities (sampling intervals need it), at most 2**53.
        pos_label : label or dict, optional
            The label coded 1 in node columns of labels, as in :meth:`from_frame`.

        Returns
        -------
        ObservedTable

        Examples
        --------
        >>> df = pd.DataFrame({"A": [0, 1], "Y": [1, 1], "P": [1, 0], "p": [0.25, 0.75]})
        >>> t = ObservedTable.from_probabilities(df, prob="p", given={"S": 1})
        >>> t.prob({"A": 1}), t.given
        (0.75, {'S': 1})
        """
        _check_frame(df, "from_probabilities")
        if prob not in df.columns:
            raise DataError(f"No probability column {prob!r}; columns are {list(df.columns)} (name it with "
                            "prob=..., or use from_counts for counts).")
        if prob != _PROB and _PROB in df.columns:
            raise DataError(f"The data have a column '{_PROB}' besides the probability column {prob!r}; rename it.")
        cells = df.rename(columns={prob: _PROB}).copy()
        n = _check_count(n, "n")
        cells, categories, positive = cells_with_pos_label(cells, _PROB, pos_label)
        return cls(cells, categories=categories, given=_check_given(given), n=n, positive=positive)

    # -- queries --------------------------------------------------------------------------
    @property
    def nodes(self) -> list[str]:
        """Node columns (all but ``prob``), in the order given.

        Examples
        --------
        >>> ObservedTable.from_frame(pd.DataFrame({"A": [0], "Y": [1]})).nodes
        ['A', 'Y']
        """
        cached = self.__dict__.get("_nodes")
        if cached is None or cached[0] is not self.cells:  # iterating an Arrow-backed Index is slow
            cached = (self.cells, [c for c in self.cells.columns if c != _PROB])
            self.__dict__["_nodes"] = cached
        return list(cached[1])

    def prob(self, event: Mapping[str, int]) -> float:
        """Probability of an assignment of some nodes (in the table's own measure).

        Parameters
        ----------
        event : mapping of str to int
            Node -> code.

        Returns
        -------
        float

        Raises
        ------
        DataError
            ``event`` names a node that is not a column.

        Examples
        --------
        >>> t = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1, 1], "P": [1, 0, 1], "n": [1, 1, 2]}))
        >>> t.prob({"A": 1}), t.prob({"A": 1, "P": 1})
        (0.75, 0.5)
        """
        columns = self.column_arrays()
        unknown = [k for k in event if k not in columns or k == _PROB]
        if unknown:
            raise DataError(f"Node(s) {unknown} are not columns of the table {self.nodes}.")
        mask = np.ones(len(self.cells), dtype=bool)
        for k, v in event.items():
            mask &= columns[k] == v
        return float(columns[_PROB][mask].sum())

    def column_arrays(self) -> dict[str, np.ndarray]:
        """The cells' columns (nodes and ``prob``) as arrays, made once per ``cells`` frame; do not modify them.

        Returns
        -------
        dict of str to numpy.ndarray

        Examples
        --------
        >>> ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [3, 9]})).column_arrays()["prob"].tolist()
        [0.25, 0.75]
        """
        cached = self.__dict__.get("_columns")
        if cached is None or cached[0] is not self.cells:
            cached = (self.cells, {c: self.cells[c].to_numpy() for c in self.cells.columns})
            self.__dict__["_columns"] = cached
        return cached[1]

    def cell_probabilities(self) -> dict[tuple[int, ...], float]:
        """Cell (codes in :attr:`nodes` order) -> probability, made once per ``cells`` frame.

        Returns
        -------
        dict of tuple of int to float

        Examples
        --------
        >>> ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [3, 9]})).cell_probabilities()
        {(0,): 0.25, (1,): 0.75}
        """
        cached = self.__dict__.get("_cell_probs")
        if cached is None or cached[0] is not self.cells:
            columns = self.column_arrays()
            keys = zip(*(columns[v].tolist() for v in self.nodes), strict=True)
            cached = (self.cells, dict(zip(keys, columns[_PROB].tolist(), strict=True)))
            self.__dict__["_cell_probs"] = cached
        return dict(cached[1])

    # -- sampling -------------------------------------------------------------------------
    def counts(self) -> np.ndarray:
        """Unit counts per cell (aligned with :attr:`cells`): ``prob * n``, rounded.

        Returns
        -------
        numpy.ndarray of int

        Raises
        ------
        DataError
            The table has no sample size (a probability table, or counts read as weights).

        Examples
        --------
        >>> ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [3, 9]})).counts().tolist()
        [3, 9]
        """
        if not self.n and self.weights_reason:
            raise DataError(
                f"{self.weights_reason[0].upper()}{self.weights_reason[1:]}; the table therefore has no sample "
                "size, and a sampling interval needs unit counts: if the column holds counts, round them to whole "
                "numbers of units, at most 2**53 in all (a larger total is an identifier or a typo, not a count); if "
                "it holds survey weights, give the number of units with ObservedTable.from_probabilities(df, "
                "n=<number of units>), or one row per unit.")
        if not self.n:
            raise DataError(
                "This table has probabilities but no sample size, and a sampling interval needs the number of "
                "units behind it: pass n= (ObservedTable.from_probabilities(df, n=<number of units>)), or build "
                "the table with ObservedTable.from_counts (cell counts) or ObservedTable.from_frame (one row per "
                "unit); on the command line, give a cells file with an 'n' column of counts, or unit rows.")
        return np.rint(self.cells[_PROB].to_numpy() * self.n).astype(np.int64)

    def with_probabilities(self, probs: Any, *, n: int | None = None) -> ObservedTable:
        """The same cells with new probabilities (a resampled or updated table), without re-coding.

        Parameters
        ----------
        probs : array-like of float
            One probability per row of :attr:`cells`, summing to 1 (zeros allowed).
        n : int, optional
            Number of units behind the new table (default: this table's), 1 to 2**53.

        Returns
        -------
        ObservedTable

        Raises
        ------
        DataError
            Not numbers, wrong length, a negative or non-finite value, a sum other than 1, or an
            ``n`` that is not a whole number from 1 to 2**53.

        Examples
        --------
        >>> t = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [3, 9]})).with_probabilities([0.5, 0.5])
        >>> t.prob({"A": 0}), t.n
        (0.5, 12)
        """
        try:
            probs = np.array(probs, dtype=float)  # a copy: the caller may reuse its buffer
        except (TypeError, ValueError):
            bad = next((v for v in np.ravel(np.array(probs, dtype=object))
                        if not isinstance(v, (numbers.Real, type(None)))), probs)
            raise DataError(f"with_probabilities needs numbers; got {plain_value(bad)!r}. Give one probability per "
                            f"cell ({len(self.cells)} floats summing to 1).") from None
        n = _check_count(n, "with_probabilities: n")
        if probs.shape != (len(self.cells),):
            raise DataError(f"with_probabilities needs {len(self.cells)} probabilities (one per cell), got "
                            f"shape {probs.shape}.")
        if not np.all(np.isfinite(probs)) or probs.min() < 0 or abs(probs.sum() - 1.0) > 1e-6:
            raise DataError("with_probabilities needs finite, non-negative probabilities summing to 1 "
                            f"(sum {probs.sum():.8g}).")
        new = copy.copy(self)
        new.__dict__.pop("_cell_probs", None)
        new.cells = self.cells.assign(**{_PROB: probs})
        # the node columns are the same arrays; only the probabilities are new
        new.__dict__["_columns"] = (new.cells, {**self.column_arrays(), _PROB: probs})
        new.n = self.n if n is None else n
        new.region = None
        return new

    def _with_given(self, given: Mapping[str, int]) -> ObservedTable:
        """The same cells observed only where ``given`` holds, without re-coding (no :meth:`__post_init__`)."""
        new = copy.copy(self)
        new.given = _check_given(dict(given))
        return new

    def with_region(self, lower: Any, upper: Any) -> ObservedTable:
        """This table known only up to a box: each cell's probability in ``[lower, upper]``.

        A bound over the table is then a bound over every table in the box (the projection
        interval of :mod:`fairprobe.core.uncertainty`).

        Parameters
        ----------
        lower, upper : array-like of float
            Per-cell bounds, aligned with :attr:`cells`, ``0 <= lower <= prob <= upper <= 1``.

        Returns
        -------
        ObservedTable

        Raises
        ------
        DataError
            Wrong length, or bounds outside [0, 1] or crossing.

        Examples
        --------
        >>> ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [3, 9]})).with_region([0, 0.5], [0.5, 1]).region
        (array([0. , 0.5]), array([0.5, 1. ]))
        """
        lo, hi = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
        if lo.shape != (len(self.cells),) or hi.shape != lo.shape:
            raise DataError(f"with_region needs {len(self.cells)} lower and upper bounds (one per cell).")
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or lo.min() < 0 or hi.max() > 1 \
                or np.any(lo > hi) or lo.sum() > 1 + 1e-12 or hi.sum() < 1 - 1e-12:
            raise DataError("with_region needs bounds 0 <= lower <= upper <= 1 per cell, with sum(lower) <= 1 "
                            "<= sum(upper) (else no table lies in the box).")
        new = copy.copy(self)
        new.region = (lo, hi)
        return new

    def cardinality(self, node: str) -> int:
        """Number of values of ``node`` seen (or labelled).

        Parameters
        ----------
        node : str

        Returns
        -------
        int
            The number of labels, or the largest code + 1.

        Examples
        --------
        >>> ObservedTable.from_frame(pd.DataFrame({"A": ["a", "b", "c"]})).cardinality("A")
        3
        """
        if node in self.categories:
            return len(self.categories[node])
        return int(self.column_arrays()[node].max()) + 1

    def with_pos_label(self, pos_label: Any) -> ObservedTable:
        """This table with the label coded 1 named, as ``pos_label`` of :meth:`from_frame` does.

        Parameters
        ----------
        pos_label : label or dict
            As in :meth:`from_frame`.

        Returns
        -------
        ObservedTable
            A new table (without a :meth:`with_region` box); this one when ``pos_label`` is None.

        Raises
        ------
        DataError
            A label no column holds, a node that is not a column, or a column of more than two labels.

        Examples
        --------
        >>> t = ObservedTable.from_frame(pd.DataFrame({"A": ["a", "b"], "Y": ["good", "bad"]}))
        >>> t.categories["Y"], t.with_pos_label("bad").categories["Y"]
        (['bad', 'good'], ['good', 'bad'])
        """
        if pos_label is None:
            return self
        columns = self.column_arrays()
        decoded = pd.DataFrame({
            node: (pd.Series([self.categories[node][int(c)] for c in columns[node]], dtype=object)
                   if node in self.categories else pd.Series(columns[node])) for node in self.nodes})
        names = {node: self.source_columns.get(node, node) for node in self.nodes}
        done, positive = apply_pos_label(decoded, names, pos_label)
        cells = self.cells.copy()
        categories = dict(self.categories)
        for node in positive:
            codes, categories[node] = done[node]
            cells[node] = codes.to_numpy()
        return ObservedTable(cells, categories=categories, given=dict(self.given), n=self.n,
                             positive={**self.positive, **positive}, source_columns=dict(self.source_columns),
                             weights_reason=self.weights_reason)

    def unclear_labels(self, nodes: Iterable[str] | BiasConfig) -> dict[str, list[Any]]:
        """The nodes whose labels do not say which one means 1, with their labels (code order).

        A node is listed when its labels are no 0/1 coding (:func:`is_binary_coding`) and no
        ``pos_label`` named its positive label; codes of a count table count as labels (``1``/``2``
        is listed). Binary roles and ``fp.group_rates`` refuse such nodes.

        Parameters
        ----------
        nodes : iterable of str or BiasConfig
            The nodes to look at; for a bias config, the nodes its roles make binary
            (:func:`~fairprobe.core.validate.binary_nodes`).

        Returns
        -------
        dict of str to list

        Examples
        --------
        >>> df = pd.DataFrame({"A": ["a", "b"], "Y": ["hired", "rejected"], "P": [1, 0]})
        >>> ObservedTable.from_frame(df).unclear_labels(["Y", "P"])
        {'Y': ['hired', 'rejected']}
        >>> ObservedTable.from_frame(df, pos_label="hired").unclear_labels(["Y", "P"])
        {}
        >>> counts = pd.DataFrame({"A": [0, 1], "Y": [0, 1], "P": [1, 2], "n": [5, 5]})
        >>> ObservedTable.from_counts(counts).unclear_labels(["Y", "P"])
        {'P': [1, 2]}
        """
        if isinstance(nodes, str):
            nodes = [nodes]
        elif not isinstance(nodes, Iterable):
            from fairprobe.core.validate import binary_nodes  # validate imports tables only to type them

            nodes = binary_nodes(nodes)
        out = {}
        for node in nodes:
            if node not in self.nodes or node in self.positive:
                continue
            labels = self.categories.get(node)
            if labels is None:  # codes of a count or probability table: the values are the labels
                codes = sorted(int(c) for c in np.unique(self.column_arrays()[node]))
                labels = codes if codes and codes[-1] > 1 else None
            if labels is not None and not is_binary_coding(labels):
                out[node] = list(labels)
        return out

    def validate_against(self, config: BiasConfig, unmeasured: Iterable[str] = ()) -> None:
        """Check the table fits a bias config: columns are observed DAG nodes in range, none forgotten.

        Every DAG node that is neither latent (``unob``), conditioned on (``cond_nodes``), nor
        declared unmeasured (by ``unmeasured`` or by the config's ``observed_nodes``) must be a
        column: a forgotten column is never silently treated as unmeasured.

        Parameters
        ----------
        config : BiasConfig
        unmeasured : iterable of str
            Nodes of the DAG declared unmeasured (allowed to be absent from the table).

        Raises
        ------
        DataError
            A column that is not an observed node, a code outside the node's cardinality, a missing
            column, or a conditioning event that does not match the bias's ``cond_nodes``.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
        >>> df = pd.DataFrame({"race": ["a", "b", "b", "a"], "Y": [0, 1, 1, 0], "P": [0, 1, 0, 1]})
        >>> ObservedTable.from_frame(df, A="race", Y="Y", P="P").validate_against(cfg)
        >>> no_y = ObservedTable.from_frame(df, A="race", P="P")
        >>> no_y.validate_against(cfg)
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.DataError: The bias needs the column(s) ['Y'], which the table does not have ...
        >>> no_y.validate_against(cfg, unmeasured=["Y"])
        """
        columns = self.column_arrays()
        check_table_fits(config, self.nodes, {node: int(columns[node].max()) for node in self.nodes}, self.given,
                         unmeasured)

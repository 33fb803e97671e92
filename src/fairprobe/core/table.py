"""Observed tables: the joint distribution of the observed DAG nodes.

An :class:`ObservedTable` is a table of cells (one integer-coded column per node) with a
probability per cell, optionally with the counts it came from. Values are coded ``0..k-1``;
the original labels are kept in :attr:`ObservedTable.categories`. Tables from selected data
carry the conditioning event (``given={"S": 1}``): their probabilities are ``P(cell | S = 1)``.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"race": ["a", "b", "a", "b"], "recid": [0, 1, 1, 1], "pred": [0, 1, 0, 0]})
>>> t = ObservedTable.from_frame(df, A="race", Y="recid", P="pred")
>>> t.nodes
['A', 'Y', 'P']
>>> t.prob({"A": 0})
0.5
>>> t.categories["A"]
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import DataError

if TYPE_CHECKING:
    from fairprobe.core.config import BiasConfig

__all__ = ["ObservedTable"]

_PROB = "prob"


def _check_nodes(columns: list[str]) -> None:
    if not columns:
        raise DataError("The table has no node columns.")
    if _PROB in columns:
        raise DataError(f"'{_PROB}' is reserved for the probability column; rename that node.")


@dataclass
class ObservedTable:
    """Joint (or selection-conditional) distribution of observed nodes.

    Attributes
    ----------
    cells : pandas.DataFrame
        One integer column per node plus ``prob``; one row per distinct cell.
    categories : dict
        Node -> original labels (index = code).
    given : dict
        Conditioning event of the data, e.g. ``{"S": 1}`` for data observed only where S = 1.
    n : int or None
        Number of units behind the table, when known.
    """

    cells: pd.DataFrame
    categories: dict[str, list[Any]] = field(default_factory=dict)
    given: dict[str, int] = field(default_factory=dict)
    n: int | None = None

    def __post_init__(self) -> None:
        nodes = [c for c in self.cells.columns if c != _PROB]
        _check_nodes(nodes)
        probs = self.cells[_PROB].to_numpy(dtype=float)
        if np.isnan(probs).any():
            raise DataError("The table has NaN probabilities; fill or drop those cells.")
        if (probs < 0).any():
            raise DataError("The table has negative probabilities or counts.")
        total = probs.sum()
        if abs(total - 1.0) > 1e-6:
            raise DataError(
                f"Probabilities sum to {total:.8g}, not 1 (tolerance 1e-6); normalise the table or "
                "use ObservedTable.from_counts."
            )
        for c in nodes:
            col = self.cells[c]
            if not pd.api.types.is_integer_dtype(col) or (col < 0).any():
                raise DataError(f"Column {c!r} must hold integer codes >= 0 (use from_frame to encode labels).")
        # duplicate cells are merged so every cell appears once (deterministic order)
        self.cells = (self.cells.groupby(nodes, as_index=False, sort=True)[_PROB].sum()
                      .reset_index(drop=True))

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, given: Mapping[str, int] | None = None,
                   **columns: str) -> ObservedTable:
        """Unit-level rows -> joint table; ``node=column`` keywords map DAG nodes to columns.

        Without keywords every column is a node of the same name. Labels are coded in sorted
        order (``0/1`` columns keep their values).
        """
        if not isinstance(df, pd.DataFrame):
            raise DataError(f"from_frame needs a pandas DataFrame; got {type(df).__name__}.")
        mapping = dict(columns) or {c: c for c in df.columns}
        missing = [c for c in mapping.values() if c not in df.columns]
        if missing:
            raise DataError(f"Column(s) {missing} are not in the data; available: {list(df.columns)}.")
        if len(df) == 0:
            raise DataError("The data frame is empty.")
        data = pd.DataFrame({node: df[col] for node, col in mapping.items()})
        if data.isna().any().any():
            bad = [n for n in data.columns if data[n].isna().any()]
            raise DataError(f"Missing values in node column(s) {bad}; drop or impute them first.")
        coded, categories = {}, {}
        for node in data.columns:
            labels = sorted(pd.unique(data[node]), key=lambda v: (str(type(v)), v))
            categories[node] = list(labels)
            lookup = {v: k for k, v in enumerate(labels)}
            if all(isinstance(v, (int, np.integer)) for v in labels) and labels == list(range(len(labels))):
                coded[node] = data[node].astype(int)
            else:
                coded[node] = data[node].map(lookup).astype(int)
        counts = pd.DataFrame(coded).value_counts().rename("n").reset_index()
        table = cls._from_count_frame(counts, "n", given)
        table.categories = categories
        return table

    @classmethod
    def from_counts(cls, df: pd.DataFrame, count: str = "n", *,
                    given: Mapping[str, int] | None = None) -> ObservedTable:
        """Cell counts (one column per node plus ``count``) -> table."""
        if count not in df.columns:
            raise DataError(f"No count column {count!r}; columns are {list(df.columns)}.")
        return cls._from_count_frame(df, count, given)

    @classmethod
    def _from_count_frame(cls, df: pd.DataFrame, count: str,
                          given: Mapping[str, int] | None) -> ObservedTable:
        counts = df[count].to_numpy(dtype=float)
        if np.isnan(counts).any() or (counts < 0).any():
            raise DataError(f"Counts in {count!r} must be non-negative numbers (no NaN).")
        total = counts.sum()
        if total <= 0:
            raise DataError("The counts sum to zero: the table is empty.")
        cells = df.drop(columns=[count]).copy()
        cells[_PROB] = counts / total
        return cls(cells, given=dict(given or {}), n=round(total))

    @classmethod
    def from_probabilities(cls, df: pd.DataFrame, prob: str = "prob", *,
                           given: Mapping[str, int] | None = None) -> ObservedTable:
        """One column per node plus a probability column (must sum to 1 within 1e-6)."""
        if prob not in df.columns:
            raise DataError(f"No probability column {prob!r}; columns are {list(df.columns)}.")
        cells = df.rename(columns={prob: _PROB}).copy()
        return cls(cells, given=dict(given or {}))

    # -- queries --------------------------------------------------------------------------
    @property
    def nodes(self) -> list[str]:
        """Node columns, in the order given."""
        return [c for c in self.cells.columns if c != _PROB]

    def prob(self, event: Mapping[str, int]) -> float:
        """Probability of an assignment of some nodes (in the table's own measure)."""
        unknown = [k for k in event if k not in self.nodes]
        if unknown:
            raise DataError(f"Node(s) {unknown} are not columns of the table {self.nodes}.")
        mask = np.ones(len(self.cells), dtype=bool)
        for k, v in event.items():
            mask &= self.cells[k].to_numpy() == v
        return float(self.cells[_PROB].to_numpy()[mask].sum())

    def cardinality(self, node: str) -> int:
        """Number of values of ``node`` seen (or labelled)."""
        if node in self.categories:
            return len(self.categories[node])
        return int(self.cells[node].max()) + 1

    def validate_against(self, config: BiasConfig, unmeasured: Iterable[str] = ()) -> None:
        """Check the table fits a bias config: columns are observed DAG nodes in range, none forgotten.

        Every node of the DAG that is neither latent (``unob``), nor conditioned on (``cond_nodes``),
        nor declared unmeasured must be a column: a forgotten column is never silently treated as
        an unmeasured variable (that turns a question the data answer into one they cannot). A
        node is declared unmeasured by ``unmeasured`` (the argument of ``fairprobe.bound`` and
        friends) or by the config's ``observed_nodes``: when given, it lists the measured nodes
        and every other node is unmeasured (the built-in biases declare their unmeasured true
        outcome ``Z`` this way).
        """
        dag = config.dag
        unmeasured = list(unmeasured)
        for node in self.nodes:
            if node not in dag.nodes:
                raise DataError(
                    f"Table column {node!r} is not a node of the DAG {dag.nodes}; drop it or map "
                    "the columns to node names (from_frame(df, A='race', ...))."
                )
            if node in dag.unobserved:
                raise DataError(f"Table column {node!r} is declared unobserved (unob) in the bias config; drop the "
                                "column, or remove the node from 'unob' if it is in fact measured.")
            card = config.cardinality(node)
            top = int(self.cells[node].max())
            if top >= card:
                raise DataError(
                    f"Column {node!r} has code {top}, outside the declared cardinality {card}; set "
                    f"'cardinalities': {{'{node}': {top + 1}}} in the config."
                )
        measured = config.observed_nodes or [n for n in dag.nodes if n not in dag.unobserved
                                             and n not in config.cond_nodes]
        absent = [n for n in measured if n not in self.nodes and n not in self.given and n not in unmeasured]
        if absent:
            bias = f"The bias {config.name!r}" if config.name else "The bias"
            first = absent[0]
            latent = f", latent {list(dag.unobserved)}" if dag.unobserved else ""
            cond = f", conditioned on {list(config.cond_nodes)}" if config.cond_nodes else ""
            declared = sorted(set(dag.nodes) - set(measured) - set(dag.unobserved) - set(config.cond_nodes)
                              | set(unmeasured))
            unm = f", declared unmeasured {declared}" if declared else ""
            raise DataError(
                f"{bias} needs the column(s) {absent}, which the table does not have (table columns: "
                f"{self.nodes}; DAG nodes: {list(dag.nodes)}{latent}{cond}{unm}). A missing column is not "
                f"treated as an unmeasured variable. Add the column (ObservedTable.from_frame(df, "
                f"{first}='<column>'), or --columns {first}=<column> on the command line), or, if {first} "
                f"is genuinely unmeasured, declare it: unmeasured={absent!r} in bound/sensitivity/breakdown "
                f"(--unmeasured {','.join(absent)} on the command line), "
                "or list the measured nodes in the config's 'observed_nodes' (the others are then unmeasured)."
            )
        for node, value in self.given.items():
            if node not in config.cond_nodes:
                raise DataError(f"The table is conditioned on {node} = {value}, but {node} is not in the bias's "
                                f"cond_nodes {config.cond_nodes}; build the table without given=, or use a bias "
                                "that conditions on it (e.g. 'selection').")
        for node in config.cond_nodes:
            if node not in self.given and node not in self.nodes:
                raise DataError(
                    f"The config conditions on {node!r}: build the table with given={{'{node}': 1}} "
                    "(data observed only where it holds)."
                )

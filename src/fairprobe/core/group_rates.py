"""What the data show without any bias model: every group's rates and sizes from one table.

:func:`group_rates` is the plain group-metric table an auditor reads first (what fairlearn's
``MetricFrame`` gives: ``overall``, ``by_group``, ``difference()``, ``ratio()``), computed from the
same :class:`~fairprobe.core.table.ObservedTable` the causal bounds use, with no solver call. A rate
whose conditioning event has no unit is NaN (undefined), never 0; a group with fewer than
:data:`~fairprobe.core.small_groups.FEW_UNITS` units behind a rate (its denominator: the group's
negatives for its FPR, all its units for its selection rate) is listed in ``few_units``, and a
headline gap that rests on such a group names it (the rule: :mod:`fairprobe.core.small_groups`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.results import Conclusion, Explained, Summary
from fairprobe.core.small_groups import FEW_UNITS, too_few
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import ConfigError, DataError

__all__ = ["RATES", "GroupRates", "group_rates"]

#: Rate name -> (prediction or label event, conditioning event), over the nodes Y and P.
RATES: Mapping[str, tuple[dict[str, int], dict[str, int]]] = MappingProxyType({
    "base_rate": ({"Y": 1}, {}),
    "selection_rate": ({"P": 1}, {}),
    "tpr": ({"P": 1}, {"Y": 1}),
    "fpr": ({"P": 1}, {"Y": 0}),
    "fnr": ({"P": 0}, {"Y": 1}),
    "tnr": ({"P": 0}, {"Y": 0}),
    "ppv": ({"Y": 1}, {"P": 1}),
    "npv": ({"Y": 0}, {"P": 0}),
})


@dataclass(repr=False)
class GroupRates(Explained):
    """Every group's observed rates and sizes (see :func:`group_rates`).

    Attributes
    ----------
    by_group : pandas.DataFrame
        One row per group (by label): ``units`` (None for a probability table), ``share``,
        ``accuracy`` and every rate of :data:`RATES`.
    overall : pandas.Series
        The same over everyone.
    attribute : str
        The attribute node.
    few_units : dict of str to int
        ``"group: rate"`` entries whose rate rests on fewer than ``FEW_UNITS`` units (the units
        behind it: its denominator, all of the group's units for ``base_rate``, ``selection_rate``
        and ``accuracy``).

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> fp.group_rates(load_paper_table()).by_group.index.tolist()
    [0, 1]
    """

    by_group: pd.DataFrame
    overall: pd.Series
    attribute: str = "A"
    few_units: dict[str, int] = field(default_factory=dict)

    def difference(self, method: str = "between_groups") -> pd.Series:
        """Largest gap of each rate: between any two groups, or of a group against the overall value.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}

        Returns
        -------
        pandas.Series
            One value per rate (NaN when a group's rate is undefined).

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> float(group_rates(rows).difference()["fpr"])
        1.0
        """
        rates = self.by_group[list(RATES)]
        if method == "between_groups":
            return rates.max(skipna=False) - rates.min(skipna=False)
        if method == "to_overall":
            return (rates - self.overall[list(RATES)]).abs().max(skipna=False)
        raise ConfigError(f"method = {method!r} must be 'between_groups' or 'to_overall'.")

    def ratio(self) -> pd.Series:
        """Smallest over largest group value of each rate (1 is parity; NaN when undefined).

        Returns
        -------
        pandas.Series

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> float(group_rates(rows).ratio()["selection_rate"])
        0.5
        """
        rates = self.by_group[list(RATES)]
        with np.errstate(divide="ignore", invalid="ignore"):
            return rates.min(skipna=False) / rates.max(skipna=False)

    def to_frame(self) -> pd.DataFrame:
        """``by_group`` with the overall row last.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> group_rates(rows).to_frame().index.tolist()
        ['a', 'b', 'overall']
        """
        return pd.concat([self.by_group, self.overall.to_frame("overall").T])

    def __repr__(self) -> str:
        """The summary's text: the group table and the largest gaps (``print(fp.group_rates(...))``)."""
        return self.summary().as_text()

    def rests_on_few(self, rate: str) -> list[tuple[str, int]]:
        """The groups at either end of ``rate``'s gap whose rate rests on too few units, with their counts.

        Parameters
        ----------
        rate : str
            A rate of :data:`RATES`.

        Returns
        -------
        list of (str, int)
            Empty when the gap rests on enough units (or the table has no number of units).

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> group_rates(rows).rests_on_few("fpr")
        [('a', 1), ('b', 1)]
        """
        values = self.by_group[rate]
        ends = [g for g, v in values.items() if v == values.max() or v == values.min()]
        keys = [f"{g}: {rate}" for g in ends]
        return [(key.rsplit(": ", 1)[0], self.few_units[key]) for key in keys if key in self.few_units]

    def conclusion(self) -> Conclusion:
        """The largest observed gaps, with no bias model (``"finding"``).

        A gap whose end rests on fewer than ``FEW_UNITS`` units names that group and its count; when
        the largest gap does, the verdict is ``"too_few_units"``: it is no finding.

        Returns
        -------
        Conclusion

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> print(group_rates(rows).conclusion())  # doctest: +ELLIPSIS
        Observed without any bias model: the largest gaps between groups of A are fpr 1.0000, ...
        """
        gaps = self.difference().dropna().sort_values(ascending=False, kind="stable")
        top = list(gaps.head(3).index)
        shown = ", ".join(f"{k} {gaps[k]:.4f}" for k in top) or "none defined"
        text = f"Observed without any bias model: the largest gaps between groups of {self.attribute} are {shown}."
        behind = {rate: self.rests_on_few(rate) for rate in top}
        named = [f"the {rate} gap rests on " + " and ".join(f"{g}: {n} units" for g, n in few)
                 for rate, few in behind.items() if few]
        if named:
            text += f" Too few to say: {', '.join(named)} (fewer than {FEW_UNITS} units behind a rate)."
        covered = {f"{g}: {rate}" for rate, few in behind.items() for g, _ in few}
        others = [k for k in self.few_units if k not in covered]
        if others:
            text += (f" {len(others)} {'other ' if named else ''}rate(s) rest on fewer than {FEW_UNITS} units, so "
                     "their sampling error can exceed the gap itself.")
        if top and behind[top[0]]:
            return Conclusion("too_few_units", text, ("the largest gap rests on too few units",))
        return Conclusion("finding", text)

    def summary(self) -> Summary:
        """The group table as text (and HTML), with the largest gaps.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import pandas as pd
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> print(group_rates(rows).summary().splitlines()[0])
        observed rates by group of A (no bias model, no solver):
        """
        lines = [f"observed rates by group of {self.attribute} (no bias model, no solver):",
                 self.to_frame().round(4).to_string(), self.conclusion().text]
        return Summary("\n".join(lines), title="Observed group rates", tables={"by group": self.to_frame()})


def _rate(cells: pd.DataFrame, event: dict[str, int], given: dict[str, int]) -> tuple[float, float]:
    """P(event | given) over ``cells`` and the probability of ``given`` (NaN when it is 0)."""
    inside = np.ones(len(cells), dtype=bool)
    for node, value in given.items():
        inside &= cells[node].to_numpy() == value
    denominator = float(cells["prob"].to_numpy()[inside].sum())
    for node, value in event.items():
        inside &= cells[node].to_numpy() == value
    numerator = float(cells["prob"].to_numpy()[inside].sum())
    return (numerator / denominator if denominator > 0 else math.nan), denominator


def _row(cells: pd.DataFrame, n: int | None, label: str, few: dict[str, int]) -> dict[str, Any]:
    total = float(cells["prob"].sum())
    part = cells.assign(prob=cells["prob"] / total) if total > 0 else cells
    row: dict[str, Any] = {"units": None if n is None else round(total * n), "share": total}
    for name, (event, given) in RATES.items():
        value, mass = _rate(part, event, given)
        row[name] = value
        units = None if n is None else round(mass * total * n)  # the units behind the rate: its denominator
        if too_few(units):
            few[f"{label}: {name}"] = units
    row["accuracy"] = float(part["prob"][part["Y"] == part["P"]].sum()) if total > 0 else math.nan
    if too_few(row["units"]):
        few[f"{label}: accuracy"] = row["units"]
    return row


def _check_labels_say_which_is_1(table: ObservedTable) -> None:
    """The rule of every table path (:meth:`ObservedTable.unclear_labels`): Y and P must say which value is 1."""
    for node, labels in table.unclear_labels(["Y", "P"]).items():
        column = table.source_columns.get(node, node)
        shown = [v.item() if hasattr(v, "item") else v for v in labels]
        say = " or ".join(f"pos_label={v!r}" for v in shown[:2])
        flag = " or ".join(f"--pos-label {v}" for v in shown[:2])
        named = repr(column) if column == node else f"{column!r} (node {node})"
        what = "the label (outcome)" if node == "Y" else "the prediction"
        raise DataError(
            f"Column {named} holds the labels {shown}, and {node} is {what}, a 0/1 value: fairprobe cannot tell "
            f"which one means 1 (sorted order is not a meaning). Say which: {say} (command line: {flag}; app: "
            f"choose the positive label on the Data page), or recode the column to 0/1 first, e.g. "
            f"df[{column!r}] = (df[{column!r}] == {shown[-1]!r}).astype(int).")


def group_rates(data: Any, *, A: str = "A", Y: str = "Y", P: str = "P", pos_label: Any = None) -> GroupRates:
    """Every group's observed rates and sizes, from one table, with no bias model and no solver.

    The label and the prediction must say which value means 1: 0/1, False/True or '0'/'1'.
    Other labels (``'hired'``/``'rejected'``, ``1``/``2``) are refused unless ``pos_label``
    names the positive one: sorted order is not a meaning.

    Parameters
    ----------
    data : ObservedTable or pandas.DataFrame
        The table the causal bounds use, unit-level rows, or cells with a ``prob`` column.
    A, Y, P : str
        Columns (of a frame of rows) holding the attribute, the label and the binary prediction.
    pos_label : label or dict, optional
        The label that means 1 (the positive outcome and prediction), as in
        :meth:`ObservedTable.from_frame`: one label applies to every column that holds it and whose
        labels do not say which one means 1 (a 0/1 column keeps its meaning); a dict by node,
        ``{"Y": "hired", "P": "hire"}``, may also reverse a 0/1 column (``{"Y": 0}``).

    Returns
    -------
    GroupRates
        ``by_group``, ``overall``, ``difference()``, ``ratio()``, ``summary()``.

    Raises
    ------
    DataError
        A table without the nodes, a label or prediction that is not 0/1, or labels that do not
        say which one means 1 (without ``pos_label``).

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> rates = fp.group_rates(load_paper_table())
    >>> rates.by_group[["fpr", "fnr"]].round(4).values.tolist()
    [[0.2309, 0.4895], [0.2734, 0.549]]
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"A": list("aabb"), "Y": ["hired", "rejected"] * 2, "P": ["hired"] * 3 + ["rejected"]})
    >>> group_rates(rows, pos_label="hired").by_group["tpr"].tolist()
    [1.0, 1.0]
    """
    if isinstance(data, pd.DataFrame):
        if "prob" in data.columns:
            table = ObservedTable.from_probabilities(data.rename(columns={A: "A", Y: "Y", P: "P"}))
        else:
            missing = [c for c in (A, Y, P) if c not in data.columns]
            if missing:
                raise DataError(f"Column(s) {missing} are not in the data; name the attribute, label and prediction "
                                f"columns with A=, Y=, P= (the data have {list(data.columns)}).")
            table = ObservedTable.from_frame(data, A=A, Y=Y, P=P)
    elif isinstance(data, ObservedTable):
        table = data
    else:
        raise DataError(f"data must be an ObservedTable or a pandas DataFrame; got {type(data).__name__}.")
    missing = [v for v in ("A", "Y", "P") if v not in table.nodes]
    if missing:
        raise DataError(f"The table has no node(s) {missing}; group_rates() reads the attribute A, the label Y and the "
                        f"prediction P (the table has {table.nodes}).")
    # the rule of ObservedTable.from_frame, by the same code: one label applies to the columns whose labels
    # leave open which one means 1 (a 0/1 column keeps its meaning); a dict may also reverse a 0/1 column
    table = table.with_pos_label(pos_label)
    _check_labels_say_which_is_1(table)
    cells = table.cells
    for node in ("Y", "P"):
        bad = sorted(int(v) for v in set(cells[node].unique()) - {0, 1})
        if bad:
            column = table.source_columns.get(node, node)
            named = repr(column) if column == node else f"{column!r} (node {node})"
            raise DataError(f"Column {named} must be coded 0/1 for observed rates; it has the code(s) {bad}.")
    labels = list(table.categories.get("A", [])) or sorted(int(v) for v in cells["A"].unique())
    n = table.n or None
    few: dict[str, int] = {}
    rows = {}
    for code, label in enumerate(labels) if table.categories.get("A") else ((v, v) for v in labels):
        rows[label] = _row(cells[cells["A"] == code], n, str(label), few)
    by_group = pd.DataFrame.from_dict(rows, orient="index")
    by_group.index.name = "A"
    if n is not None:
        by_group["units"] = by_group["units"].astype("Int64")  # counts, not floats
    overall = pd.Series(_row(cells, n, "overall", {}), name="overall")
    return GroupRates(by_group, overall, "A", few)

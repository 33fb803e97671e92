"""What the data show without any bias model: every group's rates and sizes from one table.

:func:`group_rates` is the plain group-metric table an auditor reads first (like fairlearn's
``MetricFrame``), from the same :class:`~fairprobe.core.table.ObservedTable` the causal bounds use,
with no solver call. A rate whose conditioning event has no unit is NaN, never 0; rates behind too
few units are listed in ``few_units`` (:mod:`fairprobe.core.small_groups`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.results import RATES, GroupRates
from fairprobe.core.small_groups import too_few
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import DataError

__all__ = ["RATES", "GroupRates", "group_rates"]


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
        raise DataError(f"Column {named} holds the labels {shown}, and {node} is {what}, a 0/1 value: fairprobe "
                        f"cannot tell which one means 1 (sorted order is not a meaning). Say which: {say} (command "
                        f"line: {flag}; app: choose the positive label on the Data page), or recode the column to 0/1 "
                        f"first, e.g. df[{column!r}] = (df[{column!r}] == {shown[-1]!r}).astype(int).")


def group_rates(data: Any, *, A: str = "A", Y: str = "Y", P: str = "P", pos_label: Any = None) -> GroupRates:
    """Every group's observed rates and sizes, from one table, with no bias model and no solver.

    Parameters
    ----------
    data : ObservedTable or pandas.DataFrame
        The table the causal bounds use, unit-level rows, or cells with a ``prob`` column.
    A, Y, P : str
        Columns (of a frame of rows) holding the attribute, the label and the binary prediction.
    pos_label : label or dict, optional
        The label that means 1, as in :meth:`ObservedTable.from_frame`; needed when the label or
        prediction is not coded 0/1, False/True or '0'/'1' (``'hired'``/``'rejected'``, ``1``/``2``).

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
    table = table.with_pos_label(pos_label)  # the rule of ObservedTable.from_frame, by the same code
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

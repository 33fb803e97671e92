"""What the risk-score audit, its plots and its demo step share.

This module sits below :mod:`~fairprobe.plugins.riskscore.audit`,
:mod:`~fairprobe.plugins.riskscore.plots` and :mod:`~fairprobe.plugins.riskscore.demo`, so that
none of those three has to import another one back (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fairprobe.core.small_groups import cannot_tell_apart_text, stands_apart, too_few, too_few_text

if TYPE_CHECKING:
    from fairprobe.reporting.report import Section

__all__ = ["BADNESS", "add_text", "rankable", "ranking_text"]

#: Distance of a metric's value from its ideal, per metric (smaller is better): ranks the groups.
BADNESS: dict[str, Callable[[float], float]] = {
    "drmsce": lambda v: v, "ece": lambda v: v, "auroc": lambda v: -v, "auprg": lambda v: -v, "eur": lambda v: -v,
    "calibration_intercept": abs, "calibration_slope": lambda v: abs(v - 1)}


def add_text(sec: Section, text: str) -> None:
    """Append a paragraph to a report section's text.

    Parameters
    ----------
    sec : fairprobe.reporting.report.Section
        The section.
    text : str
        The paragraph (separated from the text before it by a blank line).

    Returns
    -------
    None

    Examples
    --------
    >>> from fairprobe.reporting.report import Report
    >>> sec = Report("t").section("calibration", "First.")
    >>> add_text(sec, "Second.")
    >>> sec.text
    'First.\\n\\nSecond.'
    """
    sec.text = f"{sec.text}\n\n{text}" if sec.text else text


def ranking_text(order: pd.DataFrame, shown: Callable[[pd.Series], str]) -> str:
    """The summary's best and worst group, named only when core's rule tells them apart.

    ``order`` holds the ranked groups' results rows, best first. A group is best (worst) only when
    its interval overlaps no other group's and it rests on enough rows
    (:func:`fairprobe.core.small_groups.stands_apart`); otherwise the ends are shown by point
    estimate and said to be indistinguishable.

    Parameters
    ----------
    order : DataFrame
        Results rows (``group``, ``n``, ``lower``, ``upper``), best first.
    shown : callable
        How a row is named in the text.

    Returns
    -------
    str
        Starts with ``"; "`` (it follows the metric's line).

    Examples
    --------
    >>> order = pd.DataFrame({"group": ["a"], "n": [500], "lower": [0.1], "upper": [0.2]})
    >>> ranking_text(order, lambda row: row.group)
    '; the one ranked group a'
    """
    best, worst = order.iloc[0], order.iloc[-1]
    if len(order) == 1:
        rows = int(best["n"])
        caveat = f" ({too_few_text(f'{rows} rows')})" if too_few(rows) else ""
        return f"; the one ranked group {shown(best)}{caveat}"
    intervals = {g: (lo, hi) for g, lo, hi in zip(order.group, order.lower, order.upper, strict=True)}
    best_apart = stands_apart(intervals, best.group, int(best["n"]))
    worst_apart = stands_apart(intervals, worst.group, int(worst["n"]))
    others = f"the other {len(order) - 1} group{'s' if len(order) > 2 else ''}"
    if best_apart and worst_apart:
        return f"; best {shown(best)}; worst {shown(worst)}"
    if best_apart:
        return f"; best {shown(best)}; {cannot_tell_apart_text(f'{others} (last {shown(worst)})')}"
    if worst_apart:
        return f"; worst {shown(worst)}; {cannot_tell_apart_text(f'{others} (first {shown(best)})')}"
    return f"; from {shown(best)} to {shown(worst)}: {cannot_tell_apart_text(f'the {len(order)} groups')}"


def rankable(row: pd.Series) -> bool:
    """A results row with a defined point estimate and interval (only those are ranked or flagged).

    Parameters
    ----------
    row : Series
        A row of ``results_`` (``point``, ``lower``, ``upper``).

    Returns
    -------
    bool

    Examples
    --------
    >>> rankable(pd.Series({"point": 0.5, "lower": 0.4, "upper": float("nan")}))
    False
    """
    return bool(np.isfinite(row["point"]) and np.isfinite(row["lower"]) and np.isfinite(row["upper"]))

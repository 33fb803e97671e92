"""Text output shared by ``fairprobe multiplicity`` and ``fairprobe multiplicity-trees``.

It sits below both command modules, so that neither imports the other for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairprobe.core.small_groups import too_few, too_few_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["group_table", "set_headline"]


def group_table(by_group: pd.DataFrame, label: str) -> str:
    """The per-group conflict as aligned columns: group label, rows, mean conflict, flagged share.

    A group of fewer rows than :data:`~fairprobe.core.small_groups.FEW_UNITS` says so after its
    flagged share: its figures rest on too few rows to say anything.

    Parameters
    ----------
    by_group : DataFrame
        ``by_group_`` of a fitted Rashomon analysis (``rows``, ``mean_conflict``, ``flagged_share``).
    label : str
        Heading of the group column (``"group"`` when empty).

    Returns
    -------
    str
        One header line and one line per group, each indented by two spaces.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"rows": [120, 80, 2], "mean_conflict": [0.05, 0.125, 0.25],
    ...                       "flagged_share": [0.1, 0.25, 0.5]}, index=["f", "m", "x"])
    >>> print(group_table(table, "sex"))
      sex  rows  mean conflict  flagged
      f     120         0.0500    10.0%
      m      80         0.1250    25.0%
      x       2         0.2500    50.0%  (rests on 2 rows, fewer than 30: too few to say)
    """
    header = [label or "group", "rows", "mean conflict", "flagged"]
    body = [[str(g), f"{int(r['rows']):,}", f"{float(r['mean_conflict']):.4f}",
             f"{100 * float(r['flagged_share']):.1f}%"] for g, r in by_group.iterrows()]
    notes = [""] + [_caveat(int(r["rows"])) for _, r in by_group.iterrows()]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: list[str], note: str) -> str:
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return ("  " + "  ".join(padded)).rstrip() + note

    return "\n".join(line(cells, note) for cells, note in zip([header, *body], notes, strict=True))


def _caveat(rows: int) -> str:
    """What follows a group's line when its rows are too few to say anything (core's rule)."""
    return f"  ({too_few_text(f'{rows:,} rows')})" if too_few(rows) else ""


def set_headline(rs: Any) -> str:
    """The first line of a fitted Rashomon set's summary: its size and scores against the reference.

    Parameters
    ----------
    rs : RashomonSet
        Fitted (trained, or given ``models=``).

    Returns
    -------
    str

    Examples
    --------
    >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
    >>> set_headline(RashomonSet.example().fit())[:43]
    '4 of 12 models within 0.02 of the reference'
    """
    import numpy as np

    metric = rs.metric if isinstance(rs.metric, str) else "score"
    if rs.models is None:
        return (f"{len(rs.scores_)} of {rs.n_models} models within {rs.epsilon:g} of the reference {metric} "
                f"{rs.reference_score_:.4f} (majority-class baseline {rs.baseline_score_:.4f})")
    if np.isfinite(rs.scores_).all():
        return (f"{len(rs.scores_)} given models (fitted by the user, not filtered): {metric} "
                f"{np.min(rs.scores_):.4f} to {np.max(rs.scores_):.4f} on the audit set (majority-class "
                f"baseline {rs.baseline_score_:.4f})")
    return f"{len(rs.scores_)} given models (fitted by the user, not filtered; no labels, so no scores)"

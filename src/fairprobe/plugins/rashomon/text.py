"""Text output shared by ``fairprobe multiplicity`` and ``fairprobe multiplicity-trees``.

It sits below both command modules, so that neither imports the other for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["group_table"]


def group_table(by_group: pd.DataFrame, label: str) -> str:
    """The per-group conflict as aligned columns: group label, rows, mean conflict, flagged share.

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
    >>> table = pd.DataFrame({"rows": [120, 80], "mean_conflict": [0.05, 0.125], "flagged_share": [0.1, 0.25]},
    ...                      index=["f", "m"])
    >>> print(group_table(table, "sex"))
      sex  rows  mean conflict  flagged
      f     120         0.0500    10.0%
      m      80         0.1250    25.0%
    """
    header = [label or "group", "rows", "mean conflict", "flagged"]
    body = [[str(g), f"{int(r['rows']):,}", f"{float(r['mean_conflict']):.4f}",
             f"{100 * float(r['flagged_share']):.1f}%"] for g, r in by_group.iterrows()]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  " + "  ".join(padded).rstrip()

    return "\n".join(line(cells) for cells in [header, *body])

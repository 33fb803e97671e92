"""Derived observed tables for tests and benchmarks."""

from __future__ import annotations

import pandas as pd

__all__ = ["selective_labels_table"]


def selective_labels_table(cells: pd.DataFrame, release: tuple[float, float] = (0.9, 0.3)) -> pd.DataFrame:
    """Cells over (A, P, S, O) from cells over (A, Y, P): the decision ``S`` follows the prediction.

    A person is released (``S = 1``) with probability ``release[P]``; the outcome ``O = Y * S`` is
    recorded only for released people (the ``selective_labels`` bias's table).

    Parameters
    ----------
    cells : pandas.DataFrame
        Columns ``A``, ``Y``, ``P`` and ``prob``.
    release : (float, float)
        Release probabilities for ``P = 0`` and ``P = 1``.

    Returns
    -------
    pandas.DataFrame
        Columns ``A``, ``P``, ``S``, ``O`` and ``prob`` (summing to the input's total).

    Examples
    --------
    >>> cells = pd.DataFrame({"A": [0, 0], "Y": [0, 1], "P": [1, 1], "prob": [0.5, 0.5]})
    >>> selective_labels_table(cells).prob.round(2).tolist()
    [0.7, 0.15, 0.15]
    """
    rows = []
    for r in cells.itertuples():
        p = release[int(r.P)]
        rows.append({"A": r.A, "P": r.P, "S": 1, "O": r.Y, "prob": r.prob * p})
        rows.append({"A": r.A, "P": r.P, "S": 0, "O": 0, "prob": r.prob * (1 - p)})
    return pd.DataFrame(rows).groupby(["A", "P", "S", "O"], as_index=False).prob.sum()

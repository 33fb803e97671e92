"""Derived observed tables for tests and benchmarks."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["CLASS_CONDITIONAL_DAG", "class_conditional_proxy", "covariate_table", "selective_labels_table"]


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


#: Proxy labels with an observed covariate X that drives A, Z and P but not the proxy's law (Y reads A, Z).
CLASS_CONDITIONAL_DAG = "X -> A, X -> Z, X -> P, A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y"


def class_conditional_proxy(relaxed: bool = False) -> Any:
    """Proxy labels with a covariate X and class-conditional label noise (no ``X -> Y``).

    ``relaxed=True`` adds ``X -> Y``: every member then reads X (the only way in before glue rows;
    wider). The covariate-glue test and benchmark share it.

    Parameters
    ----------
    relaxed : bool
        Add the edge ``X -> Y``.

    Returns
    -------
    BiasConfig

    Examples
    --------
    >>> class_conditional_proxy().observed_nodes, ("X", "Y") in class_conditional_proxy(relaxed=True).dag.edges
    (['X', 'A', 'Y', 'P'], True)
    """
    from fairprobe.core.config import BiasConfig
    from fairprobe.core.inputs import resolve_bias

    spec = resolve_bias("proxy_label").to_dict()
    spec.update(dag_str=CLASS_CONDITIONAL_DAG + (", X -> Y" if relaxed else ""), observed_nodes=["X", "A", "Y", "P"],
                name="covariate_proxy" + ("_relaxed" if relaxed else ""))
    return BiasConfig.from_dict(spec)


def covariate_table(levels: int, seed: int) -> Any:
    """A random table over (X with ``levels`` values, binary A, Y, P): Dirichlet(1) cell probabilities.

    Parameters
    ----------
    levels : int
        Values of the covariate X.
    seed : int
        Seed of the draw.

    Returns
    -------
    ObservedTable

    Examples
    --------
    >>> t = covariate_table(3, 0)
    >>> t.nodes, len(t.cells)
    (['X', 'A', 'Y', 'P'], 24)
    """
    import itertools

    import numpy as np

    from fairprobe.core.table import ObservedTable

    rows = list(itertools.product(range(levels), range(2), range(2), range(2)))
    p = np.random.default_rng(seed).dirichlet(np.ones(len(rows)))
    return ObservedTable.from_probabilities(pd.DataFrame(rows, columns=["X", "A", "Y", "P"]).assign(prob=p))

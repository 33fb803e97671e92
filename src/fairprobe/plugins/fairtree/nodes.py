"""The nodes of a fitted FairTree and the merged rule of a path (``22 < age <= 30``).

:class:`Node` holds a node's statistics, split and path; :func:`merge_conditions` writes a path's
conditions once per covariate. Both are re-exported by :mod:`fairprobe.plugins.fairtree.tree`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.plugins.fairtree.covariates import Covariate

__all__ = ["Condition", "Node", "merge_conditions"]


#: One condition on the path to a node: (covariate index, "le" | "gt" | "in", threshold or category codes).
Condition = tuple[int, str, Any]


@dataclass
class Node:
    """A node of the fitted tree (statistics of its rows; split when it has children).

    ``rule`` lists the conditions on the path from the root as written at each split;
    ``subgroup`` is the same rule merged per covariate (``22 < age <= 30``, ``topic in {a}``).

    Parameters
    ----------
    id : int
        Position in ``FairTree.nodes_`` (0 is the root).
    depth : int
        Depth (0 at the root).
    n : int
        Number of rows in the node.
    bias, variance, mse : float
        Mean residual, residual variance and mean squared error of the node's rows.
    mean_loss : float
        Mean per-row loss.
    rule : list of str
        The conditions on the path from the root, as written at each split.
    tests : DataFrame
        The split tests of the node, one row per covariate.
    split : dict, optional
        The chosen split (covariate, classification, adjusted p-value, ...); ``None`` for a leaf.
    children : list of int
        Ids of the two children (empty for a leaf).
    conditions : list of (int, str, object)
        The path's conditions in machine form (covariate index, operator, value).
    subgroup : str
        The rule merged per covariate.
    tied : list of str
        When the split was chosen among covariates tied at the smallest adjusted p-value: all of
        them, the chosen one first, then by decreasing ``z`` (see :class:`FairTree`); empty when
        the smallest p-value was unique (and for a leaf).

    Examples
    --------
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> tree = FairTree.example().fit()
    >>> root = tree.nodes_[0]
    >>> root.id, root.depth, root.n, root.children
    (0, 0, 2638, [1, 2])
    >>> tree.nodes_[3].subgroup
    'education > none and age <= 25'
    """

    id: int
    depth: int
    n: int
    bias: float
    variance: float
    mse: float
    mean_loss: float
    rule: list[str]
    tests: pd.DataFrame
    split: dict[str, Any] | None = None
    children: list[int] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    subgroup: str = "(all rows)"
    tied: list[str] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        """No significant split.

        Returns
        -------
        bool
            ``True`` when the node has no children.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> tree = FairTree.example().fit()
        >>> tree.nodes_[0].is_leaf, tree.nodes_[3].is_leaf
        (False, True)
        """
        return not self.children


def merge_conditions(conditions: list[Condition], covariates: list[Covariate]) -> str:
    """A path's conditions merged per covariate: intervals for ordered covariates, set intersections for nominal.

    Parameters
    ----------
    conditions : list of (covariate index, op, value)
        ``op`` is ``"le"`` or ``"gt"`` (value: a threshold) or ``"in"`` (value: category codes).
    covariates : list of Covariate
        The fitted covariates (``FairTree.covariates_``).

    Returns
    -------
    str
        The conditions joined by ``" and "`` in order of first appearance; ``"(all rows)"`` if none.

    Examples
    --------
    >>> import numpy as np
    >>> from fairprobe.plugins.fairtree.covariates import Covariate
    >>> age = Covariate("age", "continuous", np.array([20.0, 40.0]))
    >>> merge_conditions([(0, "le", 30.0), (0, "le", 24.0), (0, "gt", 22.0)], [age])
    '22 < age <= 24'
    >>> topic = Covariate("topic", "nominal", np.array([0.0, 1.0, 2.0]), ["a", "b", "c"])
    >>> merge_conditions([(0, "in", {0, 1}), (0, "in", {1, 2})], [topic])
    'topic in {b}'
    """
    lower: dict[int, float] = {}
    upper: dict[int, float] = {}
    levels: dict[int, set[int]] = {}
    order: list[int] = []
    for j, op, value in conditions:
        if j not in order:
            order.append(j)
        if op == "le":
            upper[j] = min(upper.get(j, np.inf), float(value))
        elif op == "gt":
            lower[j] = max(lower.get(j, -np.inf), float(value))
        else:
            levels[j] = levels[j] & set(value) if j in levels else set(value)
    parts = []
    for j in order:
        cov = covariates[j]
        if j in levels:
            parts.append(f"{cov.name} in {cov.levels_text(levels[j])}")
        elif j in lower and j in upper:
            parts.append(f"{cov.value_text(lower[j])} < {cov.name} <= {cov.value_text(upper[j])}")
        elif j in upper:
            parts.append(f"{cov.name} <= {cov.value_text(upper[j])}")
        else:
            parts.append(f"{cov.name} > {cov.value_text(lower[j])}")
    return " and ".join(parts) or "(all rows)"

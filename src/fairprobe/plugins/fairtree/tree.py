"""FairTree: a subgroup performance audit by recursive partitioning.

At each node every covariate is tested for a change of model performance along it (fluctuation
or permutation test, see :mod:`fairprobe.plugins.fairtree.tests`); with Bonferroni over the
covariates (and over the bias and variance processes for the fluctuation test) the most
significant covariate is split at its largest change, snapped to a boundary between distinct
values (or category groups) that leaves at least ``min_node_size`` rows in each child, and the
children are audited in turn. Each split is classified as a *bias* (the mean residual differs),
*variance* (the spread differs) or *both*.

When several covariates tie at the smallest adjusted p-value (strong effects all reach the
permutation test's floor ``1 / (B + 1)``), the split goes to the largest standardised statistic
``z`` (permutation: the observed maximum standardised by the mean and sd of its permutation
distribution; fluctuation: the Kolmogorov statistic of the process behind the p-value), then to
the covariate name: never to the column position. The node records the tied covariates (``tied``).

:class:`FairTree` implements the analysis contract of :mod:`fairprobe.plugins.base`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.base import Analysis, Example, Summary, columns_by_role, positional_roles
from fairprobe.plugins.fairtree.covariates import Covariate, prepare_covariates
from fairprobe.plugins.fairtree.tests import PermutationSpec, fluctuation_test, permutation_node_test

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report, Section

__all__ = ["FairTree", "Node", "merge_conditions"]

LOSSES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "squared": lambda y, p: (p - y) ** 2,
    "absolute": lambda y, p: np.abs(p - y),
    "zero_one": lambda y, p: (np.round(p) != y).astype(float),
    "log": lambda y, p: -(y * np.log(np.clip(p, 1e-15, 1)) + (1 - y) * np.log(np.clip(1 - p, 1e-15, 1))),
}


def _check_int(name: str, value: Any, lowest: int, hint: str) -> int:
    """``value`` as an int >= ``lowest`` (whole floats accepted), else a ConfigError."""
    ok = isinstance(value, int | np.integer | float | np.floating) and not isinstance(value, bool)
    if ok and isinstance(value, float | np.floating):
        ok = bool(np.isfinite(value)) and float(value).is_integer()
    if not ok or int(value) < lowest:
        raise ConfigError(f"{name} must be an integer >= {lowest} ({hint}); got {value!r}.")
    return int(value)


def _numeric(name: str, values: Any, n: int) -> np.ndarray:
    """One finite number per row, or a DataError naming ``name`` and what to do."""
    arr = np.asarray(values.to_numpy() if isinstance(values, pd.Series | pd.DataFrame) else values)
    if arr.ndim > 1 and sum(d > 1 for d in arr.shape) > 1:
        raise DataError(f"{name} must be one value per row; got shape {arr.shape}. Pass a single column.")
    arr = arr.ravel()
    text = [v for v in arr[:10_000].tolist() if isinstance(v, str | bytes)] if arr.dtype.kind in "OUS" else []
    if text:
        examples = list(dict.fromkeys(text))[:3]
        raise DataError(f"{name} holds text values such as {examples}; FairTree needs numbers. Recode labels to 0/1 "
                        "with the event (positive) label as 1, e.g. (y == '<positive label>').astype(int) "
                        "(the sign of the residuals follows this choice), or convert the column with pd.to_numeric.")
    if arr.dtype.kind in "mMc":
        raise DataError(f"{name} has dtype {arr.dtype}; FairTree needs real numbers. Convert it first.")
    try:
        arr = arr.astype(float)
    except (TypeError, ValueError):
        raise DataError(f"{name} holds values that are not numbers; convert the column with pd.to_numeric.") from None
    if arr.size != n:
        raise DataError(f"The covariates have {n} rows but {name} has {arr.size}; pass one value per covariate row.")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise DataError(f"{name} has {bad.size} NaN or infinite value(s) (rows {bad[:5].tolist()}"
                        f"{', ...' if bad.size > 5 else ''}); drop those rows (FairTree cannot audit them).")
    return arr


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


class FairTree(Analysis):
    """Subgroup performance audit with bias-variance classification of every split.

    Parameters
    ----------
    test : {"fluctuation", "permutation"}
        Split test. The fluctuation test (default) tests bias and variance separately and is
        fast; the permutation test uses the loss and a max-statistic reference distribution.
    alpha : float
        Significance level per node (Bonferroni-adjusted over covariates).
    min_node_size : int, optional
        Smallest child a split may create; ``None`` (default) scales it with the rows:
        ``max(10, ceil(0.01 * n))`` (10 up to 1,000 rows), so large data do not split off
        subgroups too small to matter. The value used is ``min_node_size_``.
    min_level_size : int
        Rarest level of an unordered covariate that is ordered on its own in a node: levels with
        fewer rows there are pooled into one level. A level too rare to order by its mean
        (an identifier, a timestamp read as text) would make the split search pick sets of rows
        by their residuals, and the children would then test that selection rather than the
        model; a covariate whose every level is rarer (identifier-like) is not tested.
    max_depth : int, optional
        Deepest split level (``None``: until nothing is significant).
    n_permutations : int
        Permutations of the permutation test.
    loss : {"squared", "absolute", "zero_one", "log"} or callable
        Per-row loss ``loss(y_true, y_pred)`` for the permutation test and node statistics.
    decision : {"min_of_two", "bias_only"}
        Fluctuation node rule: split if ``2m * min(p_bias, p_var) < alpha`` (default) or if
        ``m * p_bias < alpha``.
    random_state : int, Generator or None
        Seeds the category-ordering halves and the permutations (a Generator is drawn from, so
        refitting with the same Generator gives a new draw; ``None``: fresh entropy).
    n_jobs : int, optional
        Processes for the permutations of each node (``2`` halves the permutation test's time
        on two cores; the p-values use independent random streams, so they differ slightly from
        the one-process run at the same seed).

    Notes
    -----
    **Ties.** A node splits on the covariate with the smallest adjusted p-value. Several can tie
    exactly: a permutation p-value cannot go below ``1 / (n_permutations + 1)``, which strong
    effects all reach, and a Kolmogorov p-value underflows to 0. The tie goes to the largest
    standardised statistic, the ``z`` column of ``nodes_[i].tests``: for the permutation test
    ``(statistic - mean) / sd`` of the covariate's permuted maxima (the raw statistic is not
    comparable: a covariate with more candidate splits has a larger maximum under the null), for
    the fluctuation test the Kolmogorov statistic behind the p-value (the process is already
    standardised); a remaining tie goes to the covariate name. The choice never depends on the
    column order. The tied covariates are listed in ``Node.tied``, the ``tied`` columns of
    ``splits_`` and ``to_frame()``, and the summary.

    **Loss values only.** ``fit(X, loss_values=L)`` audits a per-row loss without residuals.
    Residuals are what tells bias from variance, so without them the tree tests the *mean loss*
    along each covariate (permutation test: as always; fluctuation test: the CUSUM process of the
    loss itself, with Bonferroni over the covariates only, so ``decision`` does not apply), every
    split is classified ``"loss"``, the nodes' ``bias``, ``variance`` and ``mse`` are ``nan`` and
    ``residuals_`` is ``None``.

    Attributes
    ----------
    nodes_, tree_ : list of Node
        All nodes, root first (depth-first order); ``tree_`` is the same list.
    splits_ : DataFrame
        One row per significant split, depth-first; empty when nothing is significant. ``z`` is
        the split's standardised statistic and ``tied`` names the covariates it was chosen among
        (comma-separated, ``""`` when its adjusted p-value was the unique smallest).
    leaves_ : DataFrame
        Terminal subgroups with merged rules (``22 < age <= 30``) and their performance.
    covariates_ : list of Covariate
        The covariates as prepared for the tests.
    residuals_ : ndarray or None
        Signed residuals ``prediction - observed`` (``None`` when only ``loss_values`` was given).
    loss_values_ : ndarray
        The per-row loss.
    min_node_size_ : int
        The smallest child size used (``min_node_size`` or its default for ``n`` rows).
    binary_target_ : bool
        Whether the target (or the given residuals or loss) only takes the values 0 and 1.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"g": rng.integers(0, 2, 600), "noise": rng.random(600)})
    >>> residual = rng.normal(0.4 * X.g, 0.5)
    >>> tree = FairTree(random_state=0).fit(X, residuals=residual)
    >>> tree.splits_[["covariate", "classification"]].values.tolist()
    [['g', 'bias']]
    >>> tree.leaves_.rule.tolist()
    ['g <= 0', 'g > 0']
    """

    name: ClassVar[str] = "fairtree"
    description: ClassVar[str] = "subgroup performance audit by recursive partitioning (bias vs variance)"
    demo_title: ClassVar[str] = "FairTree on the income model"
    demo_order: ClassVar[int] = 20

    def __init__(self, *, test: str = "fluctuation", alpha: float = 0.05, min_node_size: int | None = None,
                 max_depth: int | None = None, n_permutations: int = 5000, loss: str | Callable = "squared",
                 decision: str = "min_of_two", random_state: int | np.random.Generator | None = None,
                 n_jobs: int | None = None, min_level_size: int = 10) -> None:
        # stored unchanged (scikit-learn's convention); fit() validates them
        self.test = test
        self.alpha = alpha
        self.min_node_size = min_node_size
        self.min_level_size = min_level_size
        self.max_depth = max_depth
        self.n_permutations = n_permutations
        self.loss = loss
        self.decision = decision
        self.random_state = random_state
        self.n_jobs = n_jobs

    # -- fitting ------------------------------------------------------------------------------
    def _check_params(self) -> None:
        if not isinstance(self.test, str) or self.test not in ("fluctuation", "permutation"):
            raise ConfigError(f"test must be 'fluctuation' (default) or 'permutation'; got {self.test!r}. "
                              "Pick one of them.")
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating) \
                or not 0 < float(alpha) < 1:
            raise ConfigError(f"alpha (--alpha) must be a number in (0, 1), e.g. alpha=0.05; got {alpha!r}.")
        if self.min_node_size is not None:
            _check_int("min_node_size (--min-node-size)", self.min_node_size, 1,
                       "e.g. min_node_size=10, or None to scale it with the rows")
        _check_int("min_level_size", self.min_level_size, 1, "e.g. min_level_size=10")
        _check_int("n_permutations (--permutations)", self.n_permutations, 1, "e.g. n_permutations=999")
        if self.max_depth is not None:
            _check_int("max_depth (--max-depth)", self.max_depth, 0, "or None for no limit")
        if self.n_jobs is not None and (_check_int("n_jobs (--jobs)", self.n_jobs, -1, "e.g. n_jobs=2") == 0):
            raise ConfigError("n_jobs=0 runs no worker; use n_jobs=1 (one process), 2, or -1 (two processes).")
        if not isinstance(self.decision, str) or self.decision not in ("min_of_two", "bias_only"):
            raise ConfigError(f"decision must be 'min_of_two' or 'bias_only'; got {self.decision!r}.")
        if not callable(self.loss) and (not isinstance(self.loss, str) or self.loss not in LOSSES):
            raise ConfigError(f"Unknown loss {self.loss!r}; choose from {sorted(LOSSES)} or pass a callable.")
        rs = self.random_state
        if rs is not None and not isinstance(rs, np.random.Generator):
            try:
                if isinstance(rs, bool | float | str):
                    raise TypeError
                np.random.default_rng(rs)
            except (TypeError, ValueError):
                raise ConfigError(f"random_state (--seed) must be None, a non-negative integer or a numpy Generator; "
                                  f"got {rs!r}. Pass e.g. random_state=0.") from None

    @positional_roles("y_true", "y_pred")
    def fit(self, data: pd.DataFrame | np.ndarray, *, y_true: Any = None, y_pred: Any = None,
            residuals: Any = None, loss_values: Any = None) -> FairTree:
        """Grow the audit tree.

        Parameters
        ----------
        data : DataFrame or 2-D array
            The covariates to audit along (any types). Columns named by a role below are taken
            out of the covariates. (``fit(X, y_true, y_pred)`` with positional roles still works,
            with a ``DeprecationWarning``.)
        y_true, y_pred : array-like or str
            Observed values and predictions (labels or probabilities for classifiers), or the
            names of columns of ``X`` holding them.
        residuals : array-like or str, optional
            Signed residuals ``prediction - observed`` instead of ``y_true``/``y_pred``.
        loss_values : array-like or str, optional
            A per-row loss of your own (used by the permutation test and node statistics). Enough
            on its own: without ``y_true``/``y_pred`` or ``residuals`` the tree audits the mean loss
            and classifies every split ``"loss"`` (see the Notes of :class:`FairTree`).

        Returns
        -------
        self
            Fitted: ``nodes_``, ``splits_``, ``leaves_`` and the other attributes ending in ``_``.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(1)
        >>> df = pd.DataFrame({"age": rng.integers(18, 70, 800), "y": rng.normal(size=800)})
        >>> df["yhat"] = df.y + rng.normal(0.5 * (df.age < 30), 0.5)
        >>> tree = FairTree(random_state=0, max_depth=1).fit(df, y_true="y", y_pred="yhat")
        >>> [c.name for c in tree.covariates_], tree.splits_.covariate.tolist()
        (['age'], ['age'])

        A per-row loss alone (here the absolute error) is audited as a loss:

        >>> loss = (df.yhat - df.y).abs()
        >>> only_loss = FairTree(random_state=0, max_depth=1).fit(df[["age"]], loss_values=loss)
        >>> only_loss.splits_[["covariate", "classification"]].values.tolist(), only_loss.residuals_ is None
        ([['age', 'loss']], True)
        """
        self._check_params()
        for attr in self._fitted_attributes():  # a failed refit must not leave half of the old results
            delattr(self, attr)
        roles = {"y_true": y_true, "y_pred": y_pred, "residuals": residuals, "loss_values": loss_values}
        X, roles = columns_by_role(data, roles)
        y_true, y_pred, residuals, loss_values = roles.values()
        covariates = prepare_covariates(X)
        n = len(covariates[0].key)
        if residuals is not None and (y_true is not None or y_pred is not None):
            raise DataError("Give either residuals= or y_true and y_pred, not both (residuals would silently win).")
        r: np.ndarray | None
        y = p = None
        if residuals is not None:
            r = _numeric("residuals", residuals, n)
        elif y_true is None and y_pred is None and loss_values is not None:
            r = None  # a loss alone: the tests run on it, and nothing tells bias from variance
        else:
            if y_true is None or y_pred is None:
                raise DataError("Give y_true and y_pred, residuals=, or loss_values=; FairTree audits "
                                "prediction - observed (or a per-row loss).")
            y = _numeric("y_true", y_true, n)
            p = _numeric("y_pred", y_pred, n)
            r = p - y
        min_node_size = (max(10, math.ceil(0.01 * n)) if self.min_node_size is None else int(self.min_node_size))
        min_rows = 2 * min_node_size
        if n < min_rows:
            raise DataError(f"FairTree got {n} row(s), but one split needs at least 2 x min_node_size = {min_rows} "
                            "rows, so nothing could be tested; supply more rows or lower min_node_size "
                            f"(--min-node-size, now {min_node_size}).")
        L = self._loss(y, p, r, loss_values, n)
        # the tests read these while the tree grows; the fluctuation test's input is the residual,
        # or the loss itself when only losses were given
        self._covariates, self._r, self._L, self._min_node = covariates, r, L, min_node_size
        self._x = r if r is not None else L
        self._rng = np.random.default_rng(self.random_state)
        self._fixed_halves: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._nodes: list[Node] = []
        self._processes: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self._grow(np.arange(n), depth=0, conditions=[], rule=[])
        # fitted state, computed once
        self.covariates_, self.residuals_, self.loss_values_ = covariates, r, L
        self.min_node_size_ = min_node_size
        binary = y if y is not None else (L if loss_values is not None else r)
        self.binary_target_ = bool(np.isin(binary, (0.0, 1.0)).all())
        self.nodes_ = self._nodes
        self.tree_ = self.nodes_
        self.splits_ = self._splits_frame()
        self.leaves_ = self._leaves_frame()
        return self

    def _loss(self, y: np.ndarray | None, p: np.ndarray | None, r: np.ndarray | None, loss_values: Any,
              n: int) -> np.ndarray:
        """The per-row loss: given, from the callable or named loss, or the squared residual."""
        if loss_values is not None:
            L = _numeric("loss_values", loss_values, n)
        elif callable(self.loss):
            if y is None:
                raise DataError("A callable loss needs y_true and y_pred, not residuals=; pass them instead.")
            try:
                L = np.asarray(self.loss(y, p), dtype=float).ravel()
            except (TypeError, ValueError) as exc:
                raise DataError(f"The loss callable failed or returned non-numbers ({exc}); it must map "
                                "(y_true, y_pred) arrays to one finite number per row.") from None
        elif self.loss == "squared" or y is None:
            if y is None and self.loss != "squared":
                raise DataError(f"loss={self.loss!r} needs y_true and y_pred, not residuals=; pass them instead.")
            L = r**2
        else:
            if self.loss == "log":
                for label, v in (("y_true", y), ("y_pred", p)):
                    if v.min() < 0 or v.max() > 1:
                        raise DataError(f"loss='log' needs {label} in [0, 1] (labels 0/1 and probabilities); "
                                        f"got values in [{v.min():g}, {v.max():g}]. Rescale it or use "
                                        "loss='squared'.")
            L = LOSSES[self.loss](y, p)
        if L.size != n or not np.all(np.isfinite(L)):
            raise DataError(f"The per-row loss must be finite with one value per row ({n}); got {L.size} value(s), "
                            f"{int((~np.isfinite(L)).sum()) if L.size == n else 'some'} not finite. Fix the loss.")
        return L

    def _node_stats(self, idx: np.ndarray) -> tuple[float, float, float, float]:
        if self._r is None:  # losses only: no residual to summarise
            return np.nan, np.nan, np.nan, float(self._L[idx].mean())
        r = self._r[idx]
        var = float(r.var(ddof=1)) if r.size > 1 else 0.0
        return float(r.mean()), var, float((r**2).mean()), float(self._L[idx].mean())

    def _grow(self, idx: np.ndarray, depth: int, conditions: list[Condition], rule: list[str]) -> int:
        node_id = len(self._nodes)
        bias, var, mse, mean_loss = self._node_stats(idx)
        node = Node(node_id, depth, int(idx.size), bias, var, mse, mean_loss, list(rule), pd.DataFrame(),
                    conditions=list(conditions), subgroup=merge_conditions(conditions, self._covariates))
        self._nodes.append(node)
        can_split = idx.size >= 2 * self._min_node and (self.max_depth is None or depth < self.max_depth)
        if not can_split:
            return node_id
        tests = self._test_node(idx)
        node.tests = tests
        ok = tests[tests.splittable]
        if ok.empty or ok.adjusted_p_value.min() >= self.alpha:
            return node_id
        # ties at the smallest p-value (the permutation floor 1/(B+1), a Kolmogorov p-value of 0):
        # the largest standardised statistic, then the name; never the column position
        tied = ok[ok.adjusted_p_value == ok.adjusted_p_value.min()]
        tied = tied.assign(_name=tied.covariate.astype(str)).sort_values(["z", "_name"], ascending=[False, True],
                                                                          na_position="last")
        best = tied.iloc[0]
        node.tied = tied.covariate.astype(str).tolist() if len(tied) > 1 else []
        cov = self._covariates[int(best.covariate_index)]
        key = cov.key[idx]
        present = None
        if best.left_codes is not None:
            left_mask = np.isin(key, best.left_codes)
            present = np.unique(key).astype(int).tolist()  # the right side names only this node's categories
        else:
            left_mask = key <= best.threshold
        left_rule, right_rule = cov.describe_left(None if best.left_codes is not None else best.threshold,
                                                  best.left_codes, present)
        left, right = idx[left_mask], idx[~left_mask]
        classification = self._classify(best, left, right)
        node.split = {
            "covariate": cov.name, "kind": cov.kind, "threshold": best.threshold, "left_codes": best.left_codes,
            "left_rule": left_rule, "right_rule": right_rule, "n_left": int(left.size), "n_right": int(right.size),
            "statistic": float(best.statistic), "p_value": float(best.p_value),
            "adjusted_p_value": float(best.adjusted_p_value), "p_bias": best.p_bias, "p_var": best.p_var,
            "z": float(best.z), "classification": classification, "tied": list(node.tied),
        }
        j = int(best.covariate_index)
        if best.left_codes is not None:  # nominal: the right child holds the node's other categories
            left_cond: Condition = (j, "in", set(best.left_codes))
            right_cond: Condition = (j, "in", set(present or []) - set(best.left_codes))
        else:
            left_cond, right_cond = (j, "le", float(best.threshold)), (j, "gt", float(best.threshold))
        node.children = [self._grow(left, depth + 1, [*conditions, left_cond], [*rule, left_rule]),
                         self._grow(right, depth + 1, [*conditions, right_cond], [*rule, right_rule])]
        return node_id

    def _classify(self, best: pd.Series, left: np.ndarray, right: np.ndarray) -> str:
        if self._r is None:  # losses only: a difference in mean loss, of unknown kind
            return "loss"
        half = self.alpha / 2
        if self.test == "fluctuation":
            b, v = best.p_bias < half, best.p_var < half
            return "both" if b and v else ("bias" if b else ("variance" if v else "both"))
        rl, rr = self._r[left], self._r[right]
        db = abs(rl.mean() - rr.mean())
        dv = abs(rl.var(ddof=1) - rr.var(ddof=1)) if min(rl.size, rr.size) > 1 else 0.0
        if db > 1.5 * dv:
            return "bias"
        if dv > 1.5 * db:
            return "variance"
        return "both"

    # -- tests ---------------------------------------------------------------------------------
    def _levels(self, cov: Covariate, idx: np.ndarray) -> tuple[np.ndarray, list[list[int]], str]:
        """Level codes of a nominal covariate in a node, with levels rarer than ``min_level_size`` pooled.

        Returns (code per row, original category codes of each level, note). A level seen in a
        handful of rows cannot be placed in an order by its mean, and one seen once can only be
        placed by its own residual: the split would select rows by their residuals and the
        children would test that selection. Pooled, such levels are one level (and an
        identifier-like covariate, all of whose levels are rare, one constant level).
        """
        cats, codes, counts = np.unique(cov.key[idx], return_inverse=True, return_counts=True)
        rare = counts < int(self.min_level_size)
        if rare.sum() < 2:
            return codes, [[int(c)] for c in cats], ""
        keep = np.flatnonzero(~rare)
        new = np.empty(cats.size, dtype=np.int64)
        new[keep] = np.arange(keep.size)
        new[rare] = keep.size
        groups = [[int(cats[k])] for k in keep] + [[int(c) for c in cats[rare]]]
        if keep.size == 0:
            note = (f"identifier-like: all {cats.size} levels have fewer than {self.min_level_size} rows here; "
                    "pooled into one, nothing to test")
        else:
            note = f"{int(rare.sum())} levels with fewer than {self.min_level_size} rows pooled into one"
        return new[codes], groups, note

    def _test_node(self, idx: np.ndarray) -> pd.DataFrame:
        levels = {j: self._levels(c, idx) for j, c in enumerate(self._covariates) if c.kind == "nominal"}
        testable = [j for j, c in enumerate(self._covariates)
                    if (len(levels[j][1]) if j in levels else np.unique(c.key[idx]).size) > 1]
        self._node_levels = levels
        m = max(len(testable), 1)
        rows = []
        if self.test == "permutation":
            for res in self._permutation_node(idx, testable):
                res["adjusted_p_value"] = min(1.0, m * res["p_value"])
                rows.append(res)
        else:
            # by name: the random ordering halves of nominal covariates are drawn in this order, and
            # the column order must not change which half a covariate gets
            for j in sorted(testable, key=lambda j: (self._covariates[j].name, j)):
                res = self._fluctuation_one(j, idx, self.alpha / (2 * m))
                # z: the Kolmogorov statistic behind the adjusted p-value (it breaks exact ties)
                if self._r is None:  # losses only: one process (the loss), Bonferroni over covariates
                    res["adjusted_p_value"] = min(1.0, m * res["p_value"])
                    res["z"] = res["statistic"]
                elif self.decision == "bias_only":
                    res["adjusted_p_value"] = min(1.0, m * res["p_bias"])
                    res["z"] = res.pop("statistic_bias")
                else:
                    res["adjusted_p_value"] = min(1.0, 2 * m * res["p_value"])
                    res["z"] = res["statistic"]
                res.pop("statistic_bias", None)
                self._processes[(len(self._nodes) - 1, res["covariate"])] = (res.pop("process_bias"),
                                                                              res.pop("process_var"))
                rows.append(res)
        for j, c in enumerate(self._covariates):
            if j not in testable:
                note = levels[j][2] if j in levels and levels[j][2] else "constant in this node"
                rows.append({"covariate": c.name, "covariate_index": j, "statistic": 0.0, "p_value": 1.0,
                             "adjusted_p_value": 1.0, "p_bias": 1.0, "p_var": 1.0, "z": np.nan, "splittable": False,
                             "threshold": np.nan, "left_codes": None, "note": note})
        cols = ["covariate", "covariate_index", "statistic", "p_value", "adjusted_p_value", "p_bias", "p_var", "z",
                "splittable", "threshold", "left_codes", "note"]
        return pd.DataFrame(rows)[cols].sort_values("covariate_index").reset_index(drop=True)

    def _boundaries(self, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distinct values u (left = key <= u) that leave min_node_size rows on each side."""
        values, counts = np.unique(key, return_counts=True)
        left = np.cumsum(counts)[:-1]
        ok = (left >= self._min_node) & (key.size - left >= self._min_node)
        return values[:-1][ok], left[ok]

    def _halves(self, j: int, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A random order of all rows and its ordering half for nominal covariate ``j``, drawn once per tree.

        Drawn when first needed, covariates in name order within a node (see ``_test_node``), so
        the halves do not depend on the column order.

        Returns (position of each row in the random order, whether the row orders the levels).
        The halves are fixed for the whole tree rather than redrawn per node: a child of a split
        along ``j`` holds the rows whose levels the parent's ordering half ranked low, so redrawn
        halves would test that selection again (cascades of false splits under pure noise); with
        fixed halves the child re-tests a prefix of the parent's tested rows in the parent's level
        order, exactly as a continuous covariate re-tests the rows left of its split.
        """
        if j not in self._fixed_halves:
            n_all = self._L.size
            perm = self._rng.permutation(idx.size)  # at the root, the same draw as one half-split per node
            pos = np.empty(n_all)
            pos[idx[perm]] = np.arange(idx.size)
            ordering = np.zeros(n_all, dtype=bool)
            ordering[idx[perm[: idx.size // 2]]] = True
            if idx.size < n_all:  # first needed below the root: the other rows get their own random halves
                rest = np.setdiff1d(np.arange(n_all), idx)
                rest_perm = self._rng.permutation(rest.size)
                pos[rest[rest_perm]] = idx.size + np.arange(rest.size)
                ordering[rest[rest_perm[: rest.size // 2]]] = True
            self._fixed_halves[j] = (pos, ordering)
        return self._fixed_halves[j]

    def _fluctuation_one(self, j: int, idx: np.ndarray, bias_level: float) -> dict[str, Any]:
        cov: Covariate = self._covariates[j]
        r = self._x[idx]  # the signed residual (or, with losses only, the loss)
        note, groups = "", None
        if cov.kind == "nominal":
            key, groups, note = self._node_levels[j]  # level codes 0..g-1, rare levels pooled
            key = key.astype(float)
        else:
            key = cov.key[idx]
        if groups is not None and len(groups) > 2:
            # order categories by mean residual on a random half, test on the other half
            pos, ordering = self._halves(j, idx)
            perm = np.argsort(pos[idx], kind="stable")  # this node's rows in the covariate's random order
            order_half, test_half = perm[ordering[idx[perm]]], perm[~ordering[idx[perm]]]
            g = len(groups)
            codes = key.astype(np.int64)
            base = r[order_half].mean() if order_half.size else 0.0
            sums = np.bincount(codes[order_half], weights=r[order_half], minlength=g)
            counts = np.bincount(codes[order_half], minlength=g)
            means = np.where(counts > 0, sums / np.maximum(counts, 1), base)  # unseen categories: the mean
            if (counts == 0).any():  # break their ties at random (first row in the random order), not by name
                first = np.full(g, np.inf)
                np.minimum.at(first, codes, pos[idx])
                ranked = np.lexsort((first, means))
            else:
                ranked = np.argsort(means, kind="stable")
            rank = np.empty(g)
            rank[ranked] = np.arange(g)
            node_key = rank[codes]
            test_rows = test_half
            what = "residual" if self._r is not None else "loss"
            note = "; ".join(filter(None, [note, f"categories ordered by mean {what} on a random half, "
                                                 "tested on the other half"]))
        else:
            node_key, test_rows, rank = key, np.arange(idx.size), None
        test_key = node_key[test_rows]
        order = np.argsort(test_key, kind="stable")
        res = fluctuation_test(r[test_rows][order], bias_level)
        values, _ = self._boundaries(node_key)
        if self._r is None:  # losses only: the level process of the loss is the test; no bias/variance
            out: dict[str, Any] = {"covariate": cov.name, "covariate_index": j, "p_bias": np.nan, "p_var": np.nan,
                                   "p_value": res.p_bias, "statistic": res.statistic_bias, "note": note,
                                   "process_bias": res.process_bias, "process_var": None}
        else:
            out = {"covariate": cov.name, "covariate_index": j, "p_bias": res.p_bias,
                   "p_var": res.p_var, "p_value": min(res.p_bias, res.p_var),
                   "statistic": max(res.statistic_bias, res.statistic_var), "statistic_bias": res.statistic_bias,
                   "note": note, "process_bias": res.process_bias, "process_var": res.process_var}
        if values.size == 0:
            return {**out, "splittable": False, "threshold": np.nan, "left_codes": None,
                    "note": (note + "; " if note else "") + f"no split leaves {self._min_node} rows per child"}
        sorted_test = test_key[order]
        pos = np.searchsorted(sorted_test, values, side="right")  # tested rows left of each boundary
        if self._r is None:
            proc = res.process_bias
            brk = int(np.abs(proc).argmax()) + 1 if proc.size else 0
        else:
            use_bias = res.bias_significant or res.p_bias <= res.p_var
            proc, brk = (res.process_bias if use_bias else res.process_var), res.break_position
        height = np.abs(proc[np.clip(pos - 1, 0, proc.size - 1)]) if proc.size else np.zeros(pos.size)
        choice = int(np.lexsort((-height, np.abs(pos - brk)))[0])
        u = float(values[choice])
        if groups is not None:  # nominal: the levels left of the boundary, as original category codes
            on_left = rank <= u if rank is not None else np.arange(len(groups)) <= u
            left_codes = sorted(c for grp, left in zip(groups, on_left, strict=True) if left for c in grp)
            return {**out, "splittable": True, "threshold": np.nan, "left_codes": left_codes}
        return {**out, "splittable": True, "threshold": u, "left_codes": None}

    def _permutation_node(self, idx: np.ndarray, testable: list[int]) -> list[dict[str, Any]]:
        """Permutation tests of every testable covariate, sharing one set of permutations."""
        L = self._L[idx]
        specs, meta = [], []
        for j in testable:
            cov: Covariate = self._covariates[j]
            if cov.kind == "nominal":
                codes, groups, note = self._node_levels[j]  # rare levels pooled
                n_levels = len(groups)
            else:
                values, codes = np.unique(cov.key[idx], return_inverse=True)
                groups, note, n_levels = None, "", values.size
            nominal = groups is not None and n_levels > 2
            specs.append(PermutationSpec(codes, n_levels, nominal, self._min_node))
            meta.append((j, cov, values if groups is None else None, codes, groups, nominal, note))
        results = permutation_node_test(L, specs, self.n_permutations, self._rng, n_jobs=self.n_jobs)
        out = []
        for (j, cov, values, codes, groups, nominal, note), (stat, best, p, z) in zip(meta, results, strict=True):
            row: dict[str, Any] = {"covariate": cov.name, "covariate_index": j, "statistic": stat, "p_value": p,
                                   "p_bias": np.nan, "p_var": np.nan, "z": z, "note": note, "threshold": np.nan,
                                   "left_codes": None, "splittable": best >= 0}
            extra = ""
            if best < 0:
                extra = f"no split leaves {self._min_node} rows per child"
            elif nominal:
                sums = np.bincount(codes, weights=L, minlength=len(groups))
                order = np.argsort(sums / np.bincount(codes, minlength=len(groups)), kind="stable")
                row["left_codes"] = sorted(c for g in order[: best + 1] for c in groups[g])
                extra = "categories in CART order (by mean loss), re-ordered per permutation"
            elif groups is not None:  # two levels
                row["left_codes"] = sorted(groups[best])
            else:
                row["threshold"] = float(values[best])
            row["note"] = "; ".join(filter(None, [note, extra]))
            out.append(row)
        return out

    # -- results -------------------------------------------------------------------------------
    _FITTED: ClassVar[frozenset[str]] = frozenset({
        "nodes_", "tree_", "splits_", "leaves_", "covariates_", "residuals_", "loss_values_", "min_node_size_",
        "binary_target_"})

    def __getattr__(self, name: str) -> Any:
        # only reached when the attribute is missing: a fitted result before fit() says so
        # (NotFittedError is an AttributeError, so hasattr() stays False)
        if name in FairTree._FITTED:
            self.check_is_fitted()
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _splits_frame(self) -> pd.DataFrame:
        cols = ["node", "depth", "covariate", "threshold", "left", "right", "n_left", "n_right", "statistic",
                "p_value", "adjusted_p_value", "p_bias", "p_var", "z", "classification", "tied"]
        rows = [{"node": nd.id, "depth": nd.depth, "covariate": nd.split["covariate"],
                 "threshold": nd.split["threshold"], "left": nd.split["left_rule"], "right": nd.split["right_rule"],
                 **{k: nd.split[k] for k in cols[6:-1]}, "tied": ", ".join(nd.tied)}
                for nd in self._nodes if nd.split]
        return pd.DataFrame(rows, columns=cols)

    def _leaves_frame(self) -> pd.DataFrame:
        # the merged rule: the path's conditions repeated per covariate (age <= 30 and age <= 24) read badly
        return pd.DataFrame([{"node": nd.id, "rule": nd.subgroup, "n": nd.n,
                              "bias": nd.bias, "variance": nd.variance, "mse": nd.mse, "mean_loss": nd.mean_loss}
                             for nd in self._nodes if nd.is_leaf])

    def to_frame(self) -> pd.DataFrame:
        """Every node: id, depth, merged rule, n, bias, variance, MSE, and its split (if any).

        Returns
        -------
        DataFrame
            One row per node, root first. ``tied`` names the covariates the split was chosen among
            when several tied at the smallest adjusted p-value (``""`` otherwise).

        Examples
        --------
        >>> ex = FairTree.example()
        >>> ex.fit().to_frame().columns[:4].tolist()
        ['node', 'depth', 'rule', 'n']
        """
        self.check_is_fitted()
        return pd.DataFrame([{"node": nd.id, "depth": nd.depth, "rule": nd.subgroup,
                              "n": nd.n, "bias": nd.bias, "variance": nd.variance, "mse": nd.mse,
                              "mean_loss": nd.mean_loss, "split_on": nd.split["covariate"] if nd.split else None,
                              "classification": nd.split["classification"] if nd.split else None,
                              "adjusted_p_value": nd.split["adjusted_p_value"] if nd.split else None,
                              "tied": ", ".join(nd.tied)}
                             for nd in self.nodes_])

    def covariate_ranking(self) -> pd.DataFrame:
        """Covariates ranked by their root-node adjusted p-value (the "priority" view).

        Returns
        -------
        DataFrame
            ``covariate``, ``p_value``, ``adjusted_p_value``, ``p_bias``, ``p_var``, ``z``, most
            significant first (ties of the p-value by decreasing ``z``, then by name, as the splits).

        Examples
        --------
        >>> FairTree.example().fit().covariate_ranking().covariate.tolist()[:2]
        ['education', 'age']
        """
        self.check_is_fitted()
        tests = self.nodes_[0].tests
        cols = ["covariate", "p_value", "adjusted_p_value", "p_bias", "p_var", "z"]
        if tests.empty:
            return pd.DataFrame(columns=cols)
        ranked = tests[cols].assign(_neg_z=-tests.z.fillna(-np.inf), _name=tests.covariate.astype(str))
        return (ranked.sort_values(["adjusted_p_value", "p_value", "_neg_z", "_name"])
                .drop(columns=["_neg_z", "_name"]).reset_index(drop=True))

    def summary(self) -> Summary:
        """The splits and the leaves as text (and HTML, with the tables).

        Returns
        -------
        Summary
            A ``str``; its ``tables`` are the splits, the subgroups and the covariate ranking.

        Examples
        --------
        >>> s = FairTree.example().fit().summary()
        >>> s.splitlines()[0].startswith("FairTree (fluctuation test")
        True
        >>> sorted(s.tables)
        ['covariate ranking', 'splits', 'subgroups']
        """
        self.check_is_fitted()
        root = self.nodes_[0]
        size = "" if self.min_node_size is not None else " (default for n)"
        losses_only = self.residuals_ is None
        stats = (f"mean loss {root.mean_loss:.4f}" if losses_only
                 else f"bias {root.bias:+.4f}, variance {root.variance:.4f}, MSE {root.mse:.4f}")
        lines = [f"FairTree ({self.test} test, alpha={self.alpha}, min_node_size={self.min_node_size_}{size}): "
                 f"{root.n} rows, {stats}"]
        if losses_only:
            lines.append("note: only per-row losses were given, so the splits test the mean loss and are not "
                         "classified as bias or variance (give y_true and y_pred, or residuals=, for that)")
        if not root.tests.empty:  # say which covariates could not be tested at all (e.g. identifiers)
            for t in root.tests.itertuples():
                if not t.splittable and str(t.note).startswith("identifier-like"):
                    lines.append(f"not tested: {t.covariate!r} ({t.note}); group its values or drop it")
        if self.binary_target_ and not losses_only:  # a 0/1 target's residual variance is mostly p(1 - p)
            lines.append("note: the target is binary (0/1), so the residual variance tracks p(1 - p) of the "
                         "outcome rate: a 'variance' split may mark a different base rate, not noisier predictions")
        splits = self.splits_
        tables = {"splits": splits, "subgroups": self.leaves_, "covariate ranking": self.covariate_ranking()}
        title = "FairTree subgroup audit"
        if splits.empty:
            lines.append("no significant performance differences along any covariate")
            return Summary("\n".join(lines), title=title, tables=tables)
        lines.append(f"{len(splits)} significant split(s):")
        for s in splits.itertuples():
            lines.append(f"  {'  ' * s.depth}node {s.node}: {s.left} | {s.right}  "
                         f"(n {s.n_left}/{s.n_right}, adj. p {s.adjusted_p_value:.2e}, {s.classification})")
            if s.tied:  # say that the p-value alone did not decide, and what did
                node = self.nodes_[s.node]
                z = dict(zip(node.tests.covariate, node.tests.z, strict=True))
                zs = ", ".join(f"{c} {z[c]:.1f}" for c in node.tied)
                lines.append(f"  {'  ' * s.depth}  chosen among covariates tied at adj. p {s.adjusted_p_value:.2e} "
                             f"by the largest standardised statistic z ({zs})")
        lines.append("leaves:")
        for leaf in self.leaves_.itertuples():
            stats = (f"mean loss {leaf.mean_loss:.4f}" if losses_only
                     else f"bias {leaf.bias:+.4f}  var {leaf.variance:.4f}  MSE {leaf.mse:.4f}")
            lines.append(f"  n={leaf.n:<6d} {stats}  {leaf.rule}")
        return Summary("\n".join(lines), title=title, tables=tables)

    def figures(self) -> dict[str, Callable[..., Any]]:
        """The tree and the fluctuation processes at the root.

        Returns
        -------
        dict of str to callable
            ``"tree"`` and, for the fluctuation test, ``"process <covariate>"`` for the covariate
            split at the root (or, with no split, the top-ranked covariate); each value is
            ``plot(*, ax=None) -> Axes``.

        Examples
        --------
        >>> sorted(FairTree.example().fit().figures())
        ['process education', 'tree']
        """
        self.check_is_fitted()
        out: dict[str, Callable[..., Any]] = {"tree": self.plot_tree}
        root = self.nodes_[0]
        if root.split:
            shown = [root.split["covariate"]]
        else:
            shown = [c for c in self.covariate_ranking().covariate if (0, c) in self._processes][:1]
        for cov in shown:
            if (0, cov) in self._processes:
                out[f"process {cov}"] = partial(self.plot_process, cov, 0)
        return out

    def report_section(self, report: Report, title: str | None = None) -> Section:
        """The base section (parameters, summary, figures, node table, summary tables).

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The report to add the section to.
        title : str, optional
            Section heading.

        Returns
        -------
        fairprobe.reporting.report.Section
            The new section.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from fairprobe.reporting.report import Report
        >>> sec = FairTree.example().fit().report_section(Report("audit"))
        >>> sec.title
        'FairTree: subgroup performance audit (bias vs variance)'
        >>> plt.close("all")
        """
        return super().report_section(report, title=title or "FairTree: subgroup performance audit (bias vs variance)")

    def plot_tree(self, *, ax: Any = None) -> Any:
        """The tree: nodes show n, bias, variance and MSE, coloured by MSE.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> ax = FairTree.example().fit().plot_tree()
        >>> len(ax.texts) >= 3
        True
        >>> plt.close("all")
        """
        from fairprobe.plugins.fairtree.plots import plot_tree

        self.check_is_fitted()
        return plot_tree(self, ax=ax)

    def plot_process(self, covariate: str, node: int = 0, *, ax: Any = None) -> Any:
        """The fluctuation processes of ``covariate`` at ``node`` with the critical boundary.

        Parameters
        ----------
        covariate : str
            A covariate tested at ``node``.
        node : int
            Node id (0: the root).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> ax = FairTree.example().fit().plot_process("age")
        >>> len(ax.lines) >= 2
        True
        >>> plt.close("all")
        """
        from fairprobe.plugins.fairtree.plots import plot_process

        self.check_is_fitted()
        return plot_process(self, covariate, node=node, ax=ax)

    # -- examples and the demo ---------------------------------------------------------------
    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        """The income model of a small lending scenario: extra variance without education, bias for age < 25.

        Parameters
        ----------
        seed : int
            Seed of the data and of the tree.

        Returns
        -------
        Example
            ``FairTree(max_depth=2)`` on :func:`fairprobe.datasets.make_lending_scenario` (3,000
            applicants), with log income as ``y_true`` and the log estimate as ``y_pred``.

        Examples
        --------
        >>> tree = FairTree.example().fit()
        >>> tree.leaves_.rule.tolist()
        ['education <= none', 'education > none and age <= 25', 'education > none and age > 25']
        """
        from fairprobe.datasets import make_lending_scenario

        audit = make_lending_scenario(3000, seed=seed).audit_frame
        data = audit[["age", "education", "region", "employed", "group"]].assign(
            log_income=np.log(audit.income.to_numpy()), log_estimate=np.log(audit.income_estimate.to_numpy()))
        return Example(cls(max_depth=2, random_state=seed), data, {"y_true": "log_income", "y_pred": "log_estimate"})

    @classmethod
    def demo(cls, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
             progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
        """FairTree's step of ``fairprobe demo`` (see :func:`fairprobe.plugins.fairtree.demo.demo_step`).

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The demo's report; the step adds its section.
        scenario : fairprobe.datasets.Scenario
            The demo's lending scenario.
        facts : dict
            Findings for ``summary.json`` (``facts["fairtree"]`` is set).
        quick : bool
            Fewer permutations and resamples.
        seed : int
            Random seed.
        n_jobs : int
            Parallel workers.
        progress : bool
            Show progress bars.

        Returns
        -------
        found : dict of str to bool
            ``biased_residuals`` and ``extra_variance``.
        table : DataFrame
            The splits.
        lines : list of str
            One finding line.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from fairprobe.datasets import make_lending_scenario
        >>> from fairprobe.reporting.report import Report
        >>> found, table, lines = FairTree.demo(Report("demo"), make_lending_scenario(3000, seed=0), {}, quick=True,
        ...                                     seed=0, n_jobs=1, progress=False)
        >>> found
        {'biased_residuals': True, 'extra_variance': True}
        >>> plt.close("all")
        """
        from fairprobe.plugins.fairtree.demo import demo_step  # the step module does not import this one

        return demo_step(cls, report, scenario, facts, quick=quick, seed=seed, n_jobs=n_jobs, progress=progress)


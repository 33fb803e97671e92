"""The exact Rashomon set of sparse decision trees (TreeFARMS), with set-level multiplicity.

TreeFARMS (Xin et al., NeurIPS 2022) enumerates every binary-feature decision tree whose training
objective ``loss + regularization * leaves`` is within a bound of the optimum, and stores the set
as an AND/OR graph: a node is a subproblem (the training rows a path captures); it is a leaf
(``terminal``) and/or, per feature, a list of (true-subtree node, false-subtree node) pairs. The
trees of a node are its leaf plus, for each pair, every combination of one tree of each side, in
that order (so tree ``i`` of a pair is ``(i // n_false, i % n_false)``).

fairprobe never lists the trees to get set-level measures:

* **counts**: the number of trees predicting 1 at a point is a sum of products over the graph
  (``ones(node) = leaf + sum over pairs of where(x_f, ones(T) * count(F), count(T) * ones(F))``),
  evaluated once per node, vectorised over the *distinct* feature rows of the points. Conflict
  ratios, delta-ambiguity, per-group conflict and the individual report follow exactly;
* **streaming**: per-tree quantities (discrepancy, a prediction matrix for a sample of trees) walk
  the trees in chunks of indices; each graph node's subtree predictions are a bitset over the
  distinct rows, cached for nodes with few trees (subtrees shared by many trees are evaluated once).

The measures have the definitions of :mod:`fairprobe.plugins.rashomon.measures` (each tree counts
once, as TreeFARMS counts them), so exact and ad-hoc sets (:class:`RashomonSet`) compare directly.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import numbers
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.results import Conclusion
from fairprobe.core.small_groups import MIN_MODELS, no_multiplicity_text
from fairprobe.exceptions import BackendUnavailableError, ConfigError, DataError
from fairprobe.plugins.base import Analysis, Example, Summary, first_finding, positional_roles
from fairprobe.plugins.rashomon.binarise import QuantileBinariser, is_binary_frame
from fairprobe.plugins.rashomon.measures import conflict_by_group
from fairprobe.plugins.rashomon.measures import conflict_ratio as _conflict_ratio_matrix

__all__ = ["PIP_INSTALL", "TreeRashomonSet", "require_treefarms"]

#: Largest per-leaf penalty accepted (exclusive): see ``TreeRashomonSet._check_params``.
MAX_REGULARIZATION = 0.5

#: The install line printed when the enumerator is missing.
PIP_INSTALL = 'pip install "treefarms>=0.2.4"   (or: pip install "fairprobe[trees]")'


def require_treefarms() -> Any:
    """The ``treefarms.TREEFARMS`` class, or a clear error naming the ``pip install`` line.

    Returns
    -------
    type
        ``treefarms.TREEFARMS``.

    Raises
    ------
    BackendUnavailableError
        ``treefarms`` is not installed.

    Examples
    --------
    >>> require_treefarms().__name__
    'TREEFARMS'
    """
    try:
        from treefarms import TREEFARMS
    except ImportError as err:
        raise BackendUnavailableError(
            f"TreeRashomonSet enumerates trees with the optional package treefarms, which is not installed "
            f"({err}). Install it with: {PIP_INSTALL}") from None
    return TREEFARMS


class _Graph:
    """TreeFARMS' AND/OR graph evaluated over the distinct rows ``Xu`` (bool, rows x features)."""

    def __init__(self, storage: list[dict[str, Any]], pointers: list[int], Xu: np.ndarray,
                 cache_trees: int = 4096) -> None:
        self.storage, self.pointers, self.Xu = storage, list(pointers), Xu
        self.count = np.array([int(node["count"]) for node in storage], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.count[self.pointers])]).astype(np.int64)
        self.cache_trees = cache_trees
        self._ones: dict[int, np.ndarray] = {}
        self._full: dict[int, np.ndarray] = {}
        self._pairs = [[(int(f), int(t), int(e)) for f, pairs in node["mapping"].items() for t, e in pairs]
                       for node in storage]

    @property
    def n_trees(self) -> int:
        return int(self.offsets[-1])

    def ones(self, i: int) -> np.ndarray:
        """Trees of node ``i`` predicting 1, per distinct row (int64)."""
        if i in self._ones:
            return self._ones[i]
        node = self.storage[i]
        v = np.zeros(self.Xu.shape[0], dtype=np.int64)
        if node["terminal"] and int(node["prediction"]) == 1:
            v += 1
        for f, t, e in self._pairs[i]:
            v += np.where(self.Xu[:, f], self.ones(t) * self.count[e], self.count[t] * self.ones(e))
        self._ones[i] = v
        return v

    def total_ones(self) -> np.ndarray:
        out = np.zeros(self.Xu.shape[0], dtype=np.int64)
        for p in self.pointers:
            out += self.ones(p)
        return out

    def preds(self, i: int, idx: np.ndarray) -> np.ndarray:
        """Predictions (bool, len(idx) x distinct rows) of node ``i``'s trees ``idx``."""
        if self.count[i] <= self.cache_trees:
            full = self._full.get(i)
            if full is None:
                full = self._full[i] = self._preds(i, np.arange(self.count[i], dtype=np.int64))
            return full[idx]
        return self._preds(i, idx)

    def _preds(self, i: int, idx: np.ndarray) -> np.ndarray:
        node = self.storage[i]
        out = np.empty((idx.size, self.Xu.shape[0]), dtype=bool)
        off = 0
        if node["terminal"]:
            out[idx == 0] = bool(int(node["prediction"]))
            off = 1
        for f, t, e in self._pairs[i]:
            n_t, n_e = self.count[t], self.count[e]
            sel = (idx >= off) & (idx < off + n_t * n_e)
            if sel.any():
                loc = idx[sel] - off
                out[sel] = np.where(self.Xu[None, :, f], self.preds(t, loc // n_e), self.preds(e, loc % n_e))
            off += n_t * n_e
        return out

    def tree_preds(self, idx: np.ndarray) -> np.ndarray:
        """Predictions (bool, len(idx) x distinct rows) of the set's trees ``idx`` (global indices)."""
        out = np.empty((idx.size, self.Xu.shape[0]), dtype=bool)
        which = np.searchsorted(self.offsets, idx, side="right") - 1
        for j in np.unique(which):
            sel = which == j
            out[sel] = self.preds(self.pointers[j], idx[sel] - self.offsets[j])
        return out


def _range_ones(graph: _Graph, start: int, stop: int, size: int) -> np.ndarray:
    """Trees ``start..stop`` predicting 1, per distinct row, streamed ``size`` trees at a time."""
    total = np.zeros(graph.Xu.shape[0], dtype=np.int64)
    for a in range(start, stop, size):
        total += graph.tree_preds(np.arange(a, min(a + size, stop))).sum(axis=0, dtype=np.int64)
    return total


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence stdout, including the enumerator's C++ prints (file descriptor 1)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(io.StringIO()):
            os.dup2(null.fileno(), 1)
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _as_real(value: Any, name: str, *, low: float = 0.0, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < low:
        raise ConfigError(f"{name} must be a number >= {low}; got {value!r}.")


class TreeRashomonSet(Analysis):
    """The exact Rashomon set of sparse decision trees (TreeFARMS) and its predictive multiplicity.

    Every tree on binary features whose training objective ``misclassification + regularization *
    leaves`` is at most ``optimum + rashomon_bound_adder`` (or ``optimum * (1 +
    rashomon_bound_multiplier)``) is a member, each counted once. Conflict ratios, delta-ambiguity,
    the per-group table and the individual report are exact and computed without listing the
    trees (see the module docstring); they are evaluated on ``X_eval`` (default the training rows).

    Parameters
    ----------
    regularization : float
        TreeFARMS' ``regularization`` (lambda): the objective's penalty per leaf, e.g. 0.01.
    depth_budget : int
        TreeFARMS' ``depth_budget``: the maximum depth counting the leaves (``3`` allows two levels
        of splits, at most 4 leaves); ``0`` means no limit (the set can be very large).
    rashomon_bound_adder : float, optional
        Additive bound on the objective (epsilon), e.g. 0.05. Give this or ``rashomon_bound_multiplier``.
    rashomon_bound_multiplier : float, optional
        Multiplicative bound: members have objective at most ``(1 + multiplier) * optimum``.
    time_limit : float
        TreeFARMS' ``time_limit`` in seconds (0: none). A set cut short is incomplete: a warning says so
        and ``complete_`` is False.
    binariser : {None, "quantile"} or object
        How non-binary features become 0/1: ``None`` requires 0/1 features, ``"quantile"`` uses
        :class:`~fairprobe.plugins.rashomon.binarise.QuantileBinariser` (thresholds at quantiles,
        one-hot for text), or any object with ``fit_transform`` and ``transform``.
    n_thresholds : int
        Thresholds per numeric column for ``binariser="quantile"``.
    threshold : float
        Rows with a conflict ratio above it are flagged in the individual report.
    memory_limit_gb : float, optional
        Refuse (with :class:`~fairprobe.exceptions.ConfigError`) sets whose evaluation would need more
        memory than this; the estimate is ``8 bytes x graph nodes x distinct rows``.
    chunk_size : int
        Trees per chunk when streaming over the set (discrepancy, prediction matrices).
    worker_limit : int
        TreeFARMS' ``worker_limit`` (threads of the enumeration).

    Attributes
    ----------
    n_trees_ : int
        Trees in the Rashomon set (TreeFARMS' ``get_tree_count()``).
    ones_ : ndarray of int64
        Per evaluation row, trees predicting 1.
    conflict_ratio_ : ndarray
        Per evaluation row, ``min(n1, n0) / n_trees_``.
    individual_ : DataFrame
        The individual report (``majority``, ``conflict_ratio``, ``flagged``, ``share_0``, ``share_1``).
    by_group_ : DataFrame or None
        Per group of ``sensitive_features``: ``rows``, ``mean_conflict``, ``flagged_share`` and
        ``too_few`` (fewer rows than :data:`~fairprobe.core.small_groups.FEW_UNITS`).
    objectives_ : DataFrame
        Per distinct objective value of the set: objective, training loss, leaves, trees.
    model_ : treefarms.TREEFARMS
        The fitted enumerator (its ``model_[i].predict`` is the per-tree reference).

    Examples
    --------
    >>> ex = TreeRashomonSet.example()
    >>> trs = ex.fit()
    >>> trs.n_trees_ > 1
    True
    """

    name = "tree_rashomon"
    description = "exact Rashomon set of sparse decision trees (TreeFARMS) and its predictive multiplicity"
    demo_order = 95
    # the enumerator is an optional package: availability() finds it without importing it
    requires = ("treefarms",)
    extra = "trees"

    def __init__(self, *, regularization: float = 0.01, depth_budget: int = 5,
                 rashomon_bound_adder: float | None = 0.05, rashomon_bound_multiplier: float | None = None,
                 time_limit: float = 0,
                 binariser: Any = None, n_thresholds: int = 3, threshold: float = 0.1,
                 memory_limit_gb: float | None = None, chunk_size: int = 100_000, worker_limit: int = 1) -> None:
        self.regularization = regularization
        self.depth_budget = depth_budget
        self.rashomon_bound_adder = rashomon_bound_adder
        self.rashomon_bound_multiplier = rashomon_bound_multiplier
        self.time_limit = time_limit
        self.binariser = binariser
        self.n_thresholds = n_thresholds
        self.threshold = threshold
        self.memory_limit_gb = memory_limit_gb
        self.chunk_size = chunk_size
        self.worker_limit = worker_limit

    # -- parameters --------------------------------------------------------------------------------
    def _check_params(self) -> None:
        _as_real(self.regularization, "regularization")
        if self.regularization >= MAX_REGULARIZATION:
            # a leaf misclassifies at most half its rows, so at lambda >= 0.5 no split ever pays; past an
            # objective of 1 (lambda + minority share) TreeFARMS crashes the interpreter (segfault)
            raise ConfigError(
                f"regularization (lambda) = {self.regularization} is too large: at lambda >= {MAX_REGULARIZATION} "
                "no split can lower the objective (a leaf misclassifies at most half of its rows), so the "
                "optimum is the single leaf and the set holds only trees within epsilon of it, and TreeFARMS "
                "crashes (a segmentation fault) on such objectives. "
                "Use a penalty per leaf below 0.5, typically 0.005 to 0.05.")
        if isinstance(self.depth_budget, bool) or not isinstance(self.depth_budget, (int, np.integer)) \
                or self.depth_budget < 0:
            raise ConfigError(f"depth_budget must be an integer >= 0 (0: no limit), e.g. 5; got {self.depth_budget!r}.")
        if (self.rashomon_bound_adder is None) == (self.rashomon_bound_multiplier is None):
            raise ConfigError("Give exactly one of rashomon_bound_adder (e.g. 0.05) and rashomon_bound_multiplier "
                              f"(e.g. 0.05); got {self.rashomon_bound_adder!r} and {self.rashomon_bound_multiplier!r}.")
        _as_real(self.rashomon_bound_adder, "rashomon_bound_adder", allow_none=True)
        _as_real(self.rashomon_bound_multiplier, "rashomon_bound_multiplier", allow_none=True)
        _as_real(self.time_limit, "time_limit")
        _as_real(self.threshold, "threshold")
        _as_real(self.memory_limit_gb, "memory_limit_gb", allow_none=True)
        if isinstance(self.chunk_size, bool) or not isinstance(self.chunk_size, (int, np.integer)) \
                or self.chunk_size < 1:
            raise ConfigError(f"chunk_size must be a positive integer; got {self.chunk_size!r}.")
        if not (self.binariser is None or self.binariser == "quantile" or hasattr(self.binariser, "fit_transform")):
            raise ConfigError(f"binariser must be None, 'quantile' or an object with fit_transform/transform; "
                              f"got {self.binariser!r}.")

    def _config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {"regularization": float(self.regularization), "rashomon": True,
                               "depth_budget": int(self.depth_budget), "time_limit": float(self.time_limit),
                               "worker_limit": int(self.worker_limit), "verbose": False}
        if self.rashomon_bound_adder is not None:
            cfg["rashomon_bound_adder"] = float(self.rashomon_bound_adder)
        else:
            cfg["rashomon_bound_multiplier"] = float(self.rashomon_bound_multiplier)
        return cfg

    # -- fitting -----------------------------------------------------------------------------------
    def _binary(self, X: pd.DataFrame, fit: bool) -> pd.DataFrame:
        if self.binariser is None:
            bad = is_binary_frame(X)
            if bad:
                more = " ..." if len(bad) > 5 else ""
                raise DataError(f"TreeRashomonSet needs 0/1 features; columns {bad[:5]}{more} "
                                "are not binary. Pass binariser='quantile' (thresholds at quantiles, one column "
                                "per category) or binarise them yourself.")
            return X.astype(np.uint8)
        if fit:
            self.binariser_ = (QuantileBinariser(self.n_thresholds) if self.binariser == "quantile"
                               else self.binariser)
            return pd.DataFrame(self.binariser_.fit_transform(X)).astype(np.uint8)
        return pd.DataFrame(self.binariser_.transform(X)).astype(np.uint8)

    @positional_roles("y_true")
    def fit(self, data: Any, *, y_true: Any = None, sensitive_features: Any = None,
            X_eval: Any = None) -> TreeRashomonSet:
        """Enumerate the Rashomon set on ``data`` and compute its multiplicity on ``X_eval``.

        Parameters
        ----------
        data : DataFrame
            Training features (and the label and sensitive columns when those are given by name).
        y_true : str or array-like
            The 0/1 label, as a column of ``data`` or an array.
        sensitive_features : str or array-like, optional
            Groups of the evaluation rows: a column name (of ``X_eval``, or of ``data`` without
            ``X_eval``) or an array of their length. Not used as a feature when given by name.
        X_eval : DataFrame, optional
            Rows to measure multiplicity on (e.g. a test split; default the training rows).

        Returns
        -------
        TreeRashomonSet
            ``self``.

        Raises
        ------
        DataError
            Non-binary features without a binariser, a non-binary label, mismatched lengths.
        ConfigError
            Bad parameters, or a set above ``memory_limit_gb``.
        BackendUnavailableError
            treefarms is not installed (the message gives the ``pip install`` line).

        Examples
        --------
        >>> ex = TreeRashomonSet.example()
        >>> ex.analysis.fit(ex.data, **ex.roles).n_trees_ > 0
        True
        """
        self._check_params()
        y, X, Xb, eval_frame, Xe = self._prepare(data, y_true, sensitive_features, X_eval)

        TREEFARMS = require_treefarms()
        t0 = time.perf_counter()
        model = TREEFARMS(self._config())
        with _quiet():
            model.fit(Xb.reset_index(drop=True), pd.Series(y.astype(int), name="y"))
        self.fit_seconds_ = time.perf_counter() - t0
        self.complete_ = not bool(model.timeout)
        if not self.complete_:
            import warnings
            warnings.warn(f"TreeFARMS stopped at time_limit={self.time_limit} s: the Rashomon set is incomplete.",
                          stacklevel=2)
        ms = model.model_set
        storage, pointers = ms.storage, ms.available_metrics["metric_pointers"]

        Xe_arr = Xe.to_numpy(dtype=bool)
        Xu, inverse = np.unique(Xe_arr, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        need_gb = 8.0 * len(storage) * Xu.shape[0] / 2**30
        if self.memory_limit_gb is not None and need_gb > self.memory_limit_gb:
            raise ConfigError(
                f"The Rashomon set ({ms.get_tree_count():,} trees, {len(storage):,} graph nodes over "
                f"{Xu.shape[0]:,} distinct rows) needs about {need_gb:.2f} GiB to evaluate, above "
                f"memory_limit_gb={self.memory_limit_gb}. Lower rashomon_bound_adder or depth_budget, evaluate "
                "rows with fewer distinct feature vectors, or raise memory_limit_gb.")

        t1 = time.perf_counter()
        graph = _Graph(storage, pointers, Xu)
        ones_u = graph.total_ones()
        self.eval_seconds_ = time.perf_counter() - t1
        self.model_ = model
        self._graph = graph
        self._inverse = inverse
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.binary_features_ = list(Xb.columns)
        self.n_trees_ = int(ms.get_tree_count())
        if self.n_trees_ != graph.n_trees:
            raise DataError(f"TreeFARMS reports {self.n_trees_} trees but its graph holds {graph.n_trees}.")
        self.n_distinct_rows_ = int(Xu.shape[0])
        self.n_graph_nodes_ = len(storage)
        self.ones_ = ones_u[inverse]
        m = self.n_trees_
        self.conflict_ratio_ = np.minimum(self.ones_, m - self.ones_) / m
        metrics = np.asarray(ms.available_metrics["metric_values"], dtype=float)
        self.objectives_ = pd.DataFrame({"objective": metrics[:, 0], "loss": metrics[:, 1] / ms.dataset_size,
                                         "leaves": metrics[:, 2].astype(int),
                                         "trees": graph.count[pointers]}).sort_values("objective",
                                                                                     ignore_index=True)
        best = int(np.argmin(metrics[:, 0]))
        self.reference_index_ = int(graph.offsets[best])  # the first tree of the best objective
        self.reference_objective_ = float(metrics[best, 0])
        self.eval_index_ = eval_frame.index
        self.individual_, self.by_group_ = self._per_person(eval_frame, sensitive_features)
        return self


    def _prepare(self, data: Any, y_true: Any, sensitive_features: Any,
                 X_eval: Any) -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """Checked label, features, binary features and evaluation rows (kept apart from the enumeration)."""
        if not isinstance(data, pd.DataFrame):
            raise DataError(f"TreeRashomonSet.fit takes a DataFrame of features; got {type(data).__name__}.")
        drop = [c for c in (y_true, sensitive_features) if isinstance(c, str) and c in data.columns]
        if isinstance(y_true, str):
            if y_true not in data.columns:
                raise DataError(f"y_true column {y_true!r} is not in the data; columns: {list(data.columns)}.")
            y = data[y_true].to_numpy()
        elif y_true is None:
            raise DataError("TreeRashomonSet.fit needs y_true (the label column's name or an array).")
        else:
            y = np.asarray(y_true).ravel()
        if y.shape[0] != len(data):
            raise DataError(f"y_true has {y.shape[0]} values for {len(data)} rows.")
        if not np.isin(pd.unique(y), [0, 1]).all():
            raise DataError(f"y_true must be 0/1; got values {sorted(map(str, pd.unique(y)))[:5]}.")
        X = data.drop(columns=drop)
        if X.shape[1] == 0:
            raise DataError("No feature columns are left after removing the label and sensitive columns.")
        Xb = self._binary(X, fit=True)
        eval_frame = data if X_eval is None else X_eval
        if not isinstance(eval_frame, pd.DataFrame):
            raise DataError(f"X_eval must be a DataFrame with the training columns; got {type(X_eval).__name__}.")
        missing = [c for c in X.columns if c not in eval_frame.columns]
        if missing:
            raise DataError(f"X_eval lacks the feature columns {missing}.")
        Xe = Xb if X_eval is None else self._binary(eval_frame[X.columns], fit=False)
        return y, X, Xb, eval_frame, Xe

    def _per_person(self, eval_frame: pd.DataFrame, sensitive_features: Any) -> tuple[pd.DataFrame, Any]:
        """The individual report over the evaluation rows and, with groups, the per-group conflict table."""
        m = self.n_trees_
        individual = pd.DataFrame({"majority": (self.ones_ * 2 > m).astype(int), "conflict_ratio": self.conflict_ratio_,
                                   "flagged": self.conflict_ratio_ > self.threshold, "share_0": 1 - self.ones_ / m,
                                   "share_1": self.ones_ / m}, index=eval_frame.index)
        by_group = None
        if sensitive_features is not None:
            groups = (eval_frame[sensitive_features].to_numpy() if isinstance(sensitive_features, str)
                      else np.asarray(sensitive_features).ravel())
            if groups.shape[0] != len(eval_frame):
                raise DataError(f"sensitive_features has {groups.shape[0]} values for {len(eval_frame)} "
                                "evaluation rows.")
            name = sensitive_features if isinstance(sensitive_features, str) else "group"
            individual[name] = groups
            by_group = conflict_by_group(individual, name)
        return individual, by_group

    # -- set-level measures --------------------------------------------------------------------------
    def delta_ambiguity(self, delta: float = 0.0) -> float:
        """Share of evaluation rows whose conflict ratio exceeds ``delta`` (exact, over every tree).

        Parameters
        ----------
        delta : float
            Threshold in [0, 0.5].

        Returns
        -------
        float
            ``A_delta``.

        Raises
        ------
        DataError
            ``delta`` outside [0, 1].

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> 0 <= trs.delta_ambiguity(0.1) <= trs.delta_ambiguity(0.0) <= 1
        True
        """
        self.check_is_fitted()
        if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0.0 <= delta <= 1.0:
            raise DataError(f"delta must be a number in [0, 0.5]; got {delta!r}.")
        return float(np.mean(self.conflict_ratio_ > delta))

    def ambiguity_curve(self, deltas: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``(deltas, A_delta)`` over a grid (default 51 points in [0, 0.5]), as ``measures.ambiguity_curve``.

        Parameters
        ----------
        deltas : array-like of float, optional
            Thresholds in [0, 1].

        Returns
        -------
        deltas, ambiguity : ndarray
            The grid and the delta-ambiguity at each threshold.

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> float(trs.ambiguity_curve([0.0, 0.5])[1][-1])
        0.0
        """
        self.check_is_fitted()
        grid = np.linspace(0, 0.5, 51) if deltas is None else np.asarray(deltas, dtype=float).ravel()
        if grid.size == 0 or not np.all((grid >= 0) & (grid <= 1)):
            raise DataError(f"deltas must be a non-empty list of numbers in [0, 0.5]; got {deltas!r}.")
        return grid, (self.conflict_ratio_[None, :] > grid[:, None]).mean(axis=1)

    def iter_predictions(self, chunk_size: int | None = None, trees: Any = None) -> Iterator[tuple[np.ndarray,
                                                                                                     np.ndarray]]:
        """Stream the trees' 0/1 predictions on the evaluation rows, a chunk of trees at a time.

        Parameters
        ----------
        chunk_size : int, optional
            Trees per chunk (default the ``chunk_size`` parameter).
        trees : array-like of int, optional
            Indices of the trees (default all, in TreeFARMS' order: tree ``i`` is ``model_[i]``).

        Yields
        ------
        indices : ndarray of int64
            The chunk's tree indices.
        predictions : ndarray of uint8, shape (len(indices), n_eval_rows)
            Their predictions.

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> sum(len(i) for i, _ in trs.iter_predictions(50)) == trs.n_trees_
        True
        """
        self.check_is_fitted()
        size = int(chunk_size or self.chunk_size)
        idx_all = (np.arange(self.n_trees_, dtype=np.int64) if trees is None
                   else np.asarray(trees, dtype=np.int64).ravel())
        if idx_all.size and (idx_all.min() < 0 or idx_all.max() >= self.n_trees_):
            raise DataError(f"Tree indices must be in [0, {self.n_trees_}).")
        for start in range(0, idx_all.size, size):
            idx = idx_all[start:start + size]
            yield idx, self._graph.tree_preds(idx)[:, self._inverse].astype(np.uint8)

    def streamed_ones(self, n_jobs: int | None = 1, chunk_size: int | None = None) -> np.ndarray:
        """How many trees predict 1 at each evaluation row, by evaluating every tree: the graph's counts, recomputed.

        The trees are split into ``n_jobs`` contiguous ranges, each streamed in chunks of
        ``chunk_size`` trees (leaves as bitsets over the distinct rows, shared subtrees cached) on a
        joblib worker; inside ``joblib.parallel_config(backend="dask")`` the workers are a Dask
        cluster's. :attr:`ones_` gives the same counts from the graph without visiting each tree.

        Parameters
        ----------
        n_jobs : int or None
            Workers (None or 1: this process; -1: every core).
        chunk_size : int, optional
            Trees per chunk (default the ``chunk_size`` parameter).

        Returns
        -------
        ndarray of int64
            Trees predicting 1, per evaluation row.

        Examples
        --------
        >>> ex = TreeRashomonSet.example()
        >>> trs = ex.fit()
        >>> bool((trs.streamed_ones(n_jobs=2, chunk_size=5) == trs.ones_).all())
        True
        """
        self.check_is_fitted()
        size = int(chunk_size or self.chunk_size)
        n = self.n_trees_
        workers = 1 if n_jobs in (None, 1) else ((os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs))
        workers = max(1, min(workers, -(-n // size)))
        edges = np.linspace(0, n, workers + 1).astype(np.int64)
        if workers == 1:
            parts = [_range_ones(self._graph, 0, n, size)]
        else:
            from joblib import Parallel, delayed

            # one task per worker: the graph is sent once to each, not once per chunk
            parts = Parallel(n_jobs=workers)(delayed(_range_ones)(self._graph, int(a), int(b), size)
                                             for a, b in itertools.pairwise(edges))
        return np.sum(parts, axis=0)[self._inverse]

    def predict_matrix(self, trees: Any = None) -> np.ndarray:
        """Predictions (trees x evaluation rows, uint8) of some or all trees.

        Parameters
        ----------
        trees : array-like of int, optional
            Tree indices (default all: refused above ``memory_limit_gb``).

        Returns
        -------
        ndarray of uint8

        Raises
        ------
        ConfigError
            The matrix would exceed ``memory_limit_gb``.

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> trs.predict_matrix([0, 1]).shape[0]
        2
        """
        self.check_is_fitted()
        k = self.n_trees_ if trees is None else len(np.asarray(trees).ravel())
        need = k * len(self._inverse) / 2**30
        if self.memory_limit_gb is not None and need > self.memory_limit_gb:
            raise ConfigError(f"A {k:,} x {len(self._inverse):,} prediction matrix needs {need:.2f} GiB, above "
                              f"memory_limit_gb={self.memory_limit_gb}; pass a sample of trees or use "
                              "iter_predictions().")
        parts = [p for _, p in self.iter_predictions(trees=trees)]
        return np.concatenate(parts) if parts else np.empty((0, len(self._inverse)), dtype=np.uint8)

    def discrepancy(self, chunk_size: int | None = None) -> float:
        """The largest share of evaluation rows on which one tree of the set disagrees with the best one.

        Streams over every tree (Marx et al.'s discrepancy with the best-objective tree as ``h0``).

        Parameters
        ----------
        chunk_size : int, optional
            Trees per chunk.

        Returns
        -------
        float
            In [0, 1].

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> 0 <= trs.discrepancy() <= 1
        True
        """
        self.check_is_fitted()
        weights = np.bincount(self._inverse, minlength=self._graph.Xu.shape[0]).astype(np.int64)
        ref = self._graph.tree_preds(np.array([self.reference_index_]))[0]
        size = int(chunk_size or self.chunk_size)
        worst = 0
        for start in range(0, self.n_trees_, size):
            P = self._graph.tree_preds(np.arange(start, min(start + size, self.n_trees_), dtype=np.int64))
            worst = max(worst, int(((P != ref) @ weights).max()))
        return worst / len(self._inverse)

    def rashomon_distance(self, other: Any, X_eval: Any = None) -> float:
        """Mean absolute difference of conflict ratios with another set, on the evaluation rows.

        Parameters
        ----------
        other : RashomonSet, TreeRashomonSet or array-like
            A fitted ad-hoc set (evaluated on ``X_eval``), another exact set on the same rows, a
            prediction matrix (models x rows) or a vector of conflict ratios.
        X_eval : array-like or DataFrame, optional
            The evaluation rows in the form ``other`` takes (needed for a :class:`RashomonSet`).

        Returns
        -------
        float
            In [0, 0.5] (1/6 for independent uniform conflict ratios).

        Raises
        ------
        DataError
            Different numbers of rows.

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> trs.rashomon_distance(trs.conflict_ratio_)
        0.0
        """
        self.check_is_fitted()
        if isinstance(other, TreeRashomonSet):
            c = other.conflict_ratio_
        elif hasattr(other, "conflict_ratio") and callable(other.conflict_ratio):
            c = other.conflict_ratio(X_eval)
        else:
            arr = np.asarray(other)
            c = _conflict_ratio_matrix(arr) if arr.ndim == 2 else arr.astype(float)
        if c.shape != self.conflict_ratio_.shape:
            raise DataError(f"The two sets are evaluated on different numbers of rows ({self.conflict_ratio_.size} "
                            f"and {c.size}).")
        return float(np.mean(np.abs(self.conflict_ratio_ - c)))

    def individual_report(self) -> pd.DataFrame:
        """Per evaluation row: majority, conflict ratio, flag above ``threshold``, share per class.

        Returns
        -------
        DataFrame
            The columns of :meth:`RashomonSet.individual_report` (plus the group column).

        Examples
        --------
        >>> trs = TreeRashomonSet.example().fit()
        >>> list(trs.individual_report().columns)[:3]
        ['majority', 'conflict_ratio', 'flagged']
        """
        self.check_is_fitted()
        return self.individual_.copy()

    # -- results -----------------------------------------------------------------------------------
    def summary(self) -> Summary:
        """Trees, best objective, ambiguity and mean conflict ratio of the exact set.

        Returns
        -------
        Summary
            Text and tables (objectives, per-group conflict).

        Examples
        --------
        >>> print(TreeRashomonSet.example().fit().summary())  # doctest: +ELLIPSIS
        Exact tree Rashomon set: ...
        """
        self.check_is_fitted()
        bound = (f"objective <= optimum + {self.rashomon_bound_adder}" if self.rashomon_bound_adder is not None
                 else f"objective <= optimum x (1 + {self.rashomon_bound_multiplier})")
        trees = f"{self.n_trees_:,} tree{'' if self.n_trees_ == 1 else 's'}"
        # a set of one tree has nothing to disagree with: said on the first line, the demo's and the headline's
        single = f"; {no_multiplicity_text(self.n_trees_, 'tree')}" if self.n_trees_ < MIN_MODELS else ""
        text = (f"Exact tree Rashomon set: {trees} (lambda = {self.regularization}, depth budget "
                f"{self.depth_budget}, {bound}){'' if self.complete_ else ' - INCOMPLETE (time limit)'}{single}.\n"
                f"Best objective {self.reference_objective_:.4f}; {self.n_graph_nodes_:,} graph nodes; "
                f"enumerated in {self.fit_seconds_:.2f} s, measured in {self.eval_seconds_:.3f} s.\n"
                f"On {self.conflict_ratio_.size:,} rows ({self.n_distinct_rows_:,} distinct): ambiguity A_0 = "
                f"{self.delta_ambiguity(0.0):.4f}, A_0.1 = {self.delta_ambiguity(0.1):.4f}, mean conflict ratio "
                f"{self.conflict_ratio_.mean():.4f}; {int(self.individual_['flagged'].sum()):,} rows flagged above "
                f"{self.threshold}.")
        tables = {"objectives": self.objectives_.head(20)}
        if self.by_group_ is not None:
            tables["by_group"] = self.by_group_
        return Summary(text, title=self.description, tables=tables)

    def conclusion(self) -> Conclusion:
        """The headline: the summary's first line; ``"too_few_models"`` (no finding) for a set of one tree.

        Returns
        -------
        Conclusion

        Examples
        --------
        >>> TreeRashomonSet.example().fit().conclusion().verdict
        'finding'
        """
        found = super().conclusion()
        if self.n_trees_ < MIN_MODELS:
            return Conclusion("too_few_models", found.text, (no_multiplicity_text(self.n_trees_, "tree"),))
        return found

    def to_frame(self) -> pd.DataFrame:
        """The individual report (one row per evaluation row).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> TreeRashomonSet.example().fit().to_frame().shape[1] >= 5
        True
        """
        self.check_is_fitted()
        return self.individual_report()

    def figures(self) -> dict[str, Callable[..., Any]]:
        """The conflict-ratio histogram, the delta-ambiguity curve and, with groups, the per-group conflict.

        Returns
        -------
        dict of str to callable
            Each takes ``ax=``.

        Examples
        --------
        >>> sorted(TreeRashomonSet.example().fit().figures())
        ['ambiguity_curve', 'conflict_by_group', 'conflict_histogram']
        """
        self.check_is_fitted()
        from fairprobe.plugins.rashomon.plots import plot_ambiguity, plot_conflict_ratios, plot_group_conflict

        def hist(*, ax: Any = None) -> Any:
            return plot_conflict_ratios(self.conflict_ratio_, ax=ax)

        def curve(*, ax: Any = None) -> Any:
            return plot_ambiguity({f"exact trees ({self.n_trees_:,})": self.ambiguity_curve()}, ax=ax)

        figs: dict[str, Callable[..., Any]] = {"conflict_histogram": hist, "ambiguity_curve": curve}
        if self.by_group_ is not None:
            figs["conflict_by_group"] = lambda *, ax=None: plot_group_conflict(self.by_group_, ax=ax)
        return figs

    @classmethod
    def demo(cls, report: Any, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
             progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
        """The demo's step on the lending scenario itself: 400 applicants, 5 binary features.

        The features are yes/no facts about an applicant (employed, under 25, a degree or more,
        from the east, income above the median) so that the exact set stays small; the label is
        the recorded default and the groups are the scenario's.

        Parameters
        ----------
        report, scenario, facts, quick, seed, n_jobs, progress
            As for :meth:`fairprobe.plugins.base.Analysis.demo`.

        Returns
        -------
        found, table, lines
            No injected problem is claimed; the individual report; one finding line.

        Examples
        --------
        >>> from fairprobe.datasets import make_lending_scenario
        >>> from fairprobe.reporting.report import Report
        >>> _, table, lines = TreeRashomonSet.demo(Report("demo"), make_lending_scenario(3000, seed=0), {},
        ...                                        quick=True, seed=0, n_jobs=1, progress=False)
        >>> lines[0].startswith("- exact tree Rashomon set (400 applicants of the lending data): ")
        True
        """
        audit = scenario.audit_frame
        rows = audit.sample(n=min(400, len(audit)), random_state=seed)
        X = pd.DataFrame({"employed": rows.employed.astype(int), "young": (rows.age < 25).astype(int),
                          "degree": (rows.education.cat.codes >= 2).astype(int),
                          "east": (rows.region.astype(str) == "east").astype(int),
                          "high_income": (rows.income > audit.income.median()).astype(int)})
        data = X.assign(default=rows.default.to_numpy(), group=rows.group.to_numpy()).reset_index(drop=True)
        fitted = cls(regularization=0.01, depth_budget=3, rashomon_bound_adder=0.05).fit(
            data, y_true="default", sensitive_features="group")
        sec = fitted.report_section(report, "Exact Rashomon set of sparse decision trees (lending data)")
        sec.add_note(f"{len(data)} applicants of the demo's lending data, 5 yes/no features (employed, under 25, "
                     "degree or more, east, income above the median), the recorded default as label.")
        return {}, fitted.to_frame(), [f"- exact tree Rashomon set ({len(data)} applicants of the lending data): "
                                       f"{first_finding(sec.notes)}"]

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        """400 rows of 5 binary features, a noisy label and a group; depth budget 3.

        Parameters
        ----------
        seed : int
            Seed of the data.

        Returns
        -------
        Example

        Examples
        --------
        >>> ex = TreeRashomonSet.example()
        >>> ex.data.shape, sorted(ex.roles)
        ((400, 7), ['sensitive_features', 'y_true'])
        """
        rng = np.random.default_rng(seed)
        X = pd.DataFrame(rng.integers(0, 2, size=(400, 5)), columns=[f"x{j}" for j in range(5)])
        y = ((X["x0"] + X["x1"] + 0.5 * X["x2"] + rng.normal(0, 0.8, 400)) > 1.2).astype(int)
        data = X.assign(y=y, group=np.where(rng.random(400) < 0.4, "a", "b"))
        return Example(cls(regularization=0.01, depth_budget=3, rashomon_bound_adder=0.05), data,
                       {"y_true": "y", "sensitive_features": "group"})

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
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.exceptions import DataError
from fairprobe.plugins.base import Analysis, Example, Summary, columns_by_role, positional_roles
from fairprobe.plugins.fairtree.covariates import prepare_covariates
from fairprobe.plugins.fairtree.inputs import check_params, numeric_values, per_row_loss
from fairprobe.plugins.fairtree.nodes import Condition, Node, merge_conditions
from fairprobe.plugins.fairtree.splits import NodeTests

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report, Section

__all__ = ["FairTree", "Node", "merge_conditions"]

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
        check_params(self)

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
            r = numeric_values("residuals", residuals, n)
        elif y_true is None and y_pred is None and loss_values is not None:
            r = None  # a loss alone: the tests run on it, and nothing tells bias from variance
        else:
            if y_true is None or y_pred is None:
                raise DataError("Give y_true and y_pred, residuals=, or loss_values=; FairTree audits "
                                "prediction - observed (or a per-row loss).")
            y = numeric_values("y_true", y_true, n)
            p = numeric_values("y_pred", y_pred, n)
            r = p - y
        min_node_size = (max(10, math.ceil(0.01 * n)) if self.min_node_size is None else int(self.min_node_size))
        min_rows = 2 * min_node_size
        if n < min_rows:
            raise DataError(f"FairTree got {n} row(s), but one split needs at least 2 x min_node_size = {min_rows} "
                            "rows, so nothing could be tested; supply more rows or lower min_node_size "
                            f"(--min-node-size, now {min_node_size}).")
        L = per_row_loss(self.loss, y, p, r, loss_values, n)
        # the tests read these while the tree grows; the fluctuation test's input is the residual,
        # or the loss itself when only losses were given
        self._covariates, self._r, self._L, self._min_node = covariates, r, L, min_node_size
        self._tests = NodeTests(covariates, r, L, min_node_size, np.random.default_rng(self.random_state),
                                test=self.test, alpha=self.alpha, decision=self.decision,
                                min_level_size=self.min_level_size, n_permutations=self.n_permutations,
                                n_jobs=self.n_jobs)
        self._nodes: list[Node] = []
        self._processes = self._tests.processes  # the plots read the root's processes
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
        tests = self._tests.test_node(idx, node_id)
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


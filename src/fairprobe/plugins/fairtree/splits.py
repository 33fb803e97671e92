"""The split tests of one FairTree fit: every covariate of a node tested, and the split it would make.

:class:`NodeTests` holds what the tests of one fit share: the covariates, the residuals (or
losses), the smallest child, the random stream, the fixed ordering halves of the nominal
covariates and the fluctuation processes kept for the plots. The statistics themselves are in
:mod:`fairprobe.plugins.fairtree.tests`; growing the tree is :class:`~fairprobe.plugins.fairtree.tree.FairTree`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairprobe.plugins.fairtree.covariates import Covariate
from fairprobe.plugins.fairtree.tests import PermutationSpec, fluctuation_test, permutation_node_test

__all__ = ["NodeTests"]


class NodeTests:
    """The split tests of the nodes of one tree.

    Parameters
    ----------
    covariates : list of Covariate
        The prepared covariates.
    r : ndarray or None
        Signed residuals (``None`` when only losses were given).
    L : ndarray
        The per-row loss.
    min_node : int
        Smallest child a split may create.
    rng : numpy Generator
        The fit's random stream (ordering halves, permutations).
    test, alpha, decision, min_level_size, n_permutations, n_jobs
        FairTree's parameters of the same names.

    Attributes
    ----------
    x : ndarray
        What the fluctuation test reads: the residual, or the loss itself with losses only.
    processes : dict of (int, str) to (ndarray, ndarray)
        The bias and variance processes of each fluctuation test, by (node id, covariate name).
    fixed_halves : dict of int to (ndarray, ndarray)
        The ordering half of each nominal covariate, drawn once per tree.
    node_levels : dict of int to tuple
        The pooled levels of the nominal covariates in the node tested last.

    Examples
    --------
    See :meth:`test_node`.
    """

    def __init__(self, covariates: list[Covariate], r: np.ndarray | None, L: np.ndarray, min_node: int,
                 rng: np.random.Generator, *, test: str, alpha: float, decision: str, min_level_size: int,
                 n_permutations: int, n_jobs: int | None) -> None:
        self.covariates, self.r, self.L, self.min_node, self.rng = covariates, r, L, min_node, rng
        self.x = r if r is not None else L
        self.test, self.alpha, self.decision = test, alpha, decision
        self.min_level_size, self.n_permutations, self.n_jobs = min_level_size, n_permutations, n_jobs
        self.fixed_halves: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.node_levels: dict[int, tuple[np.ndarray, list[list[int]], str]] = {}
        self.processes: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}

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

    def test_node(self, idx: np.ndarray, node_id: int) -> pd.DataFrame:
        """The split test of every covariate in a node.

        Parameters
        ----------
        idx : ndarray
            The node's rows.
        node_id : int
            The node's id (it keys the fluctuation processes kept in ``processes``).

        Returns
        -------
        DataFrame
            One row per covariate, in column order: the statistic, p-values, ``z``, whether it can be
            split, the split found (``threshold`` or ``left_codes``) and a note.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from fairprobe.plugins.fairtree.covariates import prepare_covariates
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame({"g": np.repeat([0, 1], 50)})
        >>> r = rng.normal(np.repeat([0.0, 1.0], 50), 0.3)
        >>> tests = NodeTests(prepare_covariates(X), r, r**2, 10, rng, test="fluctuation", alpha=0.05,
        ...                   decision="min_of_two", min_level_size=10, n_permutations=99, n_jobs=None)
        >>> t = tests.test_node(np.arange(100), 0)
        >>> t.covariate.tolist(), bool(t.adjusted_p_value[0] < 0.05), float(t.threshold[0])
        (['g'], True, 0.0)
        """
        levels = {j: self._levels(c, idx) for j, c in enumerate(self.covariates) if c.kind == "nominal"}
        testable = [j for j, c in enumerate(self.covariates)
                    if (len(levels[j][1]) if j in levels else np.unique(c.key[idx]).size) > 1]
        self.node_levels = levels
        m = max(len(testable), 1)
        rows = []
        if self.test == "permutation":
            for res in self._permutation_node(idx, testable):
                res["adjusted_p_value"] = min(1.0, m * res["p_value"])
                rows.append(res)
        else:
            # by name: the random ordering halves of nominal covariates are drawn in this order, and
            # the column order must not change which half a covariate gets
            for j in sorted(testable, key=lambda j: (self.covariates[j].name, j)):
                res = self._fluctuation_one(j, idx, self.alpha / (2 * m))
                # z: the Kolmogorov statistic behind the adjusted p-value (it breaks exact ties)
                if self.r is None:  # losses only: one process (the loss), Bonferroni over covariates
                    res["adjusted_p_value"] = min(1.0, m * res["p_value"])
                    res["z"] = res["statistic"]
                elif self.decision == "bias_only":
                    res["adjusted_p_value"] = min(1.0, m * res["p_bias"])
                    res["z"] = res.pop("statistic_bias")
                else:
                    res["adjusted_p_value"] = min(1.0, 2 * m * res["p_value"])
                    res["z"] = res["statistic"]
                res.pop("statistic_bias", None)
                self.processes[(node_id, res["covariate"])] = (res.pop("process_bias"), res.pop("process_var"))
                rows.append(res)
        for j, c in enumerate(self.covariates):
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
        ok = (left >= self.min_node) & (key.size - left >= self.min_node)
        return values[:-1][ok], left[ok]

    def _halves(self, j: int, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A random order of all rows and its ordering half for nominal covariate ``j``, drawn once per tree.

        Drawn when first needed, covariates in name order within a node (see ``test_node``), so
        the halves do not depend on the column order.

        Returns (position of each row in the random order, whether the row orders the levels).
        The halves are fixed for the whole tree rather than redrawn per node: a child of a split
        along ``j`` holds the rows whose levels the parent's ordering half ranked low, so redrawn
        halves would test that selection again (cascades of false splits under pure noise); with
        fixed halves the child re-tests a prefix of the parent's tested rows in the parent's level
        order, exactly as a continuous covariate re-tests the rows left of its split.
        """
        if j not in self.fixed_halves:
            n_all = self.L.size
            perm = self.rng.permutation(idx.size)  # at the root, the same draw as one half-split per node
            pos = np.empty(n_all)
            pos[idx[perm]] = np.arange(idx.size)
            ordering = np.zeros(n_all, dtype=bool)
            ordering[idx[perm[: idx.size // 2]]] = True
            if idx.size < n_all:  # first needed below the root: the other rows get their own random halves
                rest = np.setdiff1d(np.arange(n_all), idx)
                rest_perm = self.rng.permutation(rest.size)
                pos[rest[rest_perm]] = idx.size + np.arange(rest.size)
                ordering[rest[rest_perm[: rest.size // 2]]] = True
            self.fixed_halves[j] = (pos, ordering)
        return self.fixed_halves[j]

    def _fluctuation_one(self, j: int, idx: np.ndarray, bias_level: float) -> dict[str, Any]:
        cov: Covariate = self.covariates[j]
        r = self.x[idx]  # the signed residual (or, with losses only, the loss)
        note, groups = "", None
        if cov.kind == "nominal":
            key, groups, note = self.node_levels[j]  # level codes 0..g-1, rare levels pooled
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
            what = "residual" if self.r is not None else "loss"
            note = "; ".join(filter(None, [note, f"categories ordered by mean {what} on a random half, "
                                                 "tested on the other half"]))
        else:
            node_key, test_rows, rank = key, np.arange(idx.size), None
        test_key = node_key[test_rows]
        order = np.argsort(test_key, kind="stable")
        res = fluctuation_test(r[test_rows][order], bias_level)
        values, _ = self._boundaries(node_key)
        if self.r is None:  # losses only: the level process of the loss is the test; no bias/variance
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
                    "note": (note + "; " if note else "") + f"no split leaves {self.min_node} rows per child"}
        sorted_test = test_key[order]
        pos = np.searchsorted(sorted_test, values, side="right")  # tested rows left of each boundary
        if self.r is None:
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
        L = self.L[idx]
        specs, meta = [], []
        for j in testable:
            cov: Covariate = self.covariates[j]
            if cov.kind == "nominal":
                codes, groups, note = self.node_levels[j]  # rare levels pooled
                n_levels = len(groups)
            else:
                values, codes = np.unique(cov.key[idx], return_inverse=True)
                groups, note, n_levels = None, "", values.size
            nominal = groups is not None and n_levels > 2
            specs.append(PermutationSpec(codes, n_levels, nominal, self.min_node))
            meta.append((j, cov, values if groups is None else None, codes, groups, nominal, note))
        results = permutation_node_test(L, specs, self.n_permutations, self.rng, n_jobs=self.n_jobs)
        out = []
        for (j, cov, values, codes, groups, nominal, note), (stat, best, p, z) in zip(meta, results, strict=True):
            row: dict[str, Any] = {"covariate": cov.name, "covariate_index": j, "statistic": stat, "p_value": p,
                                   "p_bias": np.nan, "p_var": np.nan, "z": z, "note": note, "threshold": np.nan,
                                   "left_codes": None, "splittable": best >= 0}
            extra = ""
            if best < 0:
                extra = f"no split leaves {self.min_node} rows per child"
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

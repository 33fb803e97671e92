"""Split tests of FairTree: the fluctuation (CUSUM) test and the max-statistic permutation test.

Fluctuation test (Zeileis & Hornik's efp "OLS-CUSUM" for an intercept-only model): with the
node's observations ordered by a covariate (stable sort, ties kept in data order),

    W(i/n) = sum_{j <= i} (x_(j) - mean x) / (sd(x) * sqrt(n)),   i = 1..n,

evaluated at *every* observation; ``S = max |W|`` and ``p = kstwobign.sf(S)`` (the Kolmogorov
distribution of the sup of a Brownian bridge; critical value 1.3581 at 0.05). The bias process
uses the signed residual ``x = R``; the variance process uses ``x = (R*)^2`` with ``R*`` centred
within the two segments of the bias break when the bias test is significant, globally otherwise.

Permutation test: statistic ``max over admissible splits |mean L_left - mean L_right|`` on the
per-row loss ``L``; its reference distribution is the same maximum under ``B`` permutations of
``L`` (computed as a permutation matrix times prefix sums, in chunks), so the p-value accounts for
the choice among many split points. Unordered categoricals are ordered by mean loss (CART order)
*inside each permutation*, which keeps the test valid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import kstwobign

__all__ = ["FluctuationResult", "cusum_process", "fluctuation_test", "kolmogorov_pvalue", "permutation_max_test"]


def kolmogorov_pvalue(statistic: float | np.ndarray) -> float | np.ndarray:
    """P-value of ``sup |Brownian bridge| >= statistic`` (``scipy.stats.kstwobign.sf``).

    Examples
    --------
    >>> [round(float(kolmogorov_pvalue(s)), 4) for s in (1.0, 1.358)]
    [0.27, 0.05]
    """
    return kstwobign.sf(statistic)


def cusum_process(x: np.ndarray) -> np.ndarray:
    """Empirical fluctuation process of ``x`` in the given order: ``W(i/n)``, i = 1..n.

    Zero when ``x`` has no variation (nothing can fluctuate).
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    if n < 2:
        return np.zeros(n)
    sd = x.std(ddof=1)
    if not np.isfinite(sd) or sd <= 1e-12 * max(1.0, float(np.abs(x).max())):
        return np.zeros(n)
    return np.cumsum(x - x.mean()) / (sd * np.sqrt(n))


@dataclass
class FluctuationResult:
    """Fluctuation test of one covariate in one node (positions refer to the tested rows' order)."""

    statistic_bias: float
    p_bias: float
    statistic_var: float
    p_var: float
    break_position: int  # number of tested rows left of the largest bias (or variance) change
    process_bias: np.ndarray
    process_var: np.ndarray
    bias_significant: bool


def fluctuation_test(r_sorted: np.ndarray, bias_level: float) -> FluctuationResult:
    """Bias and variance fluctuation tests on residuals already sorted by the covariate.

    Parameters
    ----------
    r_sorted : array
        Signed residuals in covariate order (stable).
    bias_level : float
        Level at which the bias break counts as significant for conditional centring of the
        variance process (the node's Bonferroni level, alpha / (2m)).
    """
    r = np.asarray(r_sorted, dtype=float)
    n = r.size
    wb = cusum_process(r)
    sb = float(np.abs(wb).max()) if n else 0.0
    pb = float(kolmogorov_pvalue(sb)) if sb > 0 else 1.0
    kb = int(np.abs(wb).argmax()) + 1 if n else 0  # rows left of the break
    significant = pb < bias_level and 0 < kb < n
    if significant:  # conditional centring within the two bias segments
        centred = np.concatenate([r[:kb] - r[:kb].mean(), r[kb:] - r[kb:].mean()])
    else:
        centred = r - r.mean() if n else r
    wv = cusum_process(centred**2)
    sv = float(np.abs(wv).max()) if n else 0.0
    pv = float(kolmogorov_pvalue(sv)) if sv > 0 else 1.0
    pos = kb if significant or pb <= pv else int(np.abs(wv).argmax()) + 1
    return FluctuationResult(sb, pb, sv, pv, pos, wb, wv, significant)


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - i) for i in range(0, total, size)]


def permutation_max_test(loss_sorted: np.ndarray, candidates: np.ndarray, n_permutations: int,
                         rng: np.random.Generator, group_codes: np.ndarray | None = None,
                         n_groups: int | None = None, chunk: int = 256) -> tuple[float, int, float]:
    """Max-statistic permutation test over split points.

    Parameters
    ----------
    loss_sorted : array
        Per-row loss in covariate order (ordered covariates) or in any order (categorical).
    candidates : array of int
        Ordered covariates: admissible left sizes (rows left of a boundary). Categorical: unused.
    group_codes, n_groups : optional
        For an unordered categorical: category code per row; splits are the CART-ordered
        prefixes of categories, recomputed in each permutation. ``candidates`` then holds the
        admissible numbers of categories on the left (by rank), re-checked per ordering through
        the minimum size implied by the caller.

    Returns
    -------
    statistic, best_candidate, p_value
    """
    L = np.asarray(loss_sorted, dtype=float)
    n = L.size
    if group_codes is None:
        cand = np.asarray(candidates, dtype=int)
        if cand.size == 0:
            return 0.0, -1, 1.0
        total = L.sum()

        def stat(cs: np.ndarray) -> np.ndarray:
            left = cs[..., cand - 1]
            return np.abs(left / cand - (total - left) / (n - cand))

        obs = stat(np.cumsum(L))
        best = int(cand[int(obs.argmax())])
        s_obs = float(obs.max())
        exceed = 0
        for b in _chunks(n_permutations, chunk):
            perm = rng.permuted(np.broadcast_to(L, (b, n)), axis=1)
            exceed += int((stat(np.cumsum(perm, axis=1)).max(axis=1) >= s_obs - 1e-12).sum())
        return s_obs, best, (1 + exceed) / (n_permutations + 1)
    codes = np.asarray(group_codes, dtype=int)
    k = int(n_groups if n_groups is not None else codes.max() + 1)
    counts = np.bincount(codes, minlength=k).astype(float)
    present = counts > 0
    min_left = int(candidates[0]) if len(candidates) else 1  # minimum child size

    def cat_stat(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # sums: (B, k) category sums; CART order by mean loss, prefix splits, both children >= min size
        means = np.where(present, sums / np.maximum(counts, 1), np.inf)
        order = np.argsort(means, axis=-1, kind="stable")
        cs = np.cumsum(np.take_along_axis(sums, order, axis=-1), axis=-1)[..., :-1]
        cn = np.cumsum(counts[order], axis=-1)[..., :-1]
        total = sums.sum(axis=-1, keepdims=True)
        ok = (cn >= min_left) & (n - cn >= min_left)
        diff = np.abs(cs / np.maximum(cn, 1) - (total - cs) / np.maximum(n - cn, 1))
        return np.where(ok, diff, -np.inf), order

    onehot = np.zeros((n, k))
    onehot[np.arange(n), codes] = 1.0
    obs, _ = cat_stat((L @ onehot)[None, :])
    s_obs = float(obs.max())
    if not np.isfinite(s_obs):
        return 0.0, -1, 1.0
    best = int(obs.argmax())  # number of categories (in CART order) on the left, minus one
    exceed = 0
    for b in _chunks(n_permutations, chunk):
        perm = rng.permuted(np.broadcast_to(L, (b, n)), axis=1)
        exceed += int((cat_stat(perm @ onehot)[0].max(axis=1) >= s_obs - 1e-12).sum())
    return s_obs, best, (1 + exceed) / (n_permutations + 1)

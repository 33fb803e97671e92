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
*inside each permutation*, which keeps the test valid. The same permutations also give each
covariate's standardised statistic ``z = (T_obs - mean T_perm) / sd T_perm``: p-values of strong
effects all sit at the floor ``1 / (B + 1)``, and ``z``, unlike the raw statistic, is comparable
across covariates with different numbers of candidate splits, so FairTree breaks such ties by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.stats import kstwobign

__all__ = [
    "FluctuationResult",
    "PermutationResult",
    "PermutationSpec",
    "cusum_process",
    "fluctuation_test",
    "kolmogorov_pvalue",
    "permutation_max_test",
    "permutation_node_test",
]


def kolmogorov_pvalue(statistic: float | np.ndarray) -> float | np.ndarray:
    """P-value of ``sup |Brownian bridge| >= statistic`` (``scipy.stats.kstwobign.sf``).

    Parameters
    ----------
    statistic : float or ndarray
        Observed maximum absolute value of a fluctuation process.

    Returns
    -------
    float or ndarray
        The p-value(s), of the shape of ``statistic``.

    Examples
    --------
    >>> [round(float(kolmogorov_pvalue(s)), 4) for s in (1.0, 1.358)]
    [0.27, 0.05]
    """
    return kstwobign.sf(statistic)


def cusum_process(x: np.ndarray) -> np.ndarray:
    """Empirical fluctuation process of ``x`` in the given order: ``W(i/n)``, i = 1..n.

    Zero when ``x`` has no variation (nothing can fluctuate).

    Parameters
    ----------
    x : array-like of float
        Values (residuals or squared residuals) in the order of the covariate.

    Returns
    -------
    ndarray of float
        The process at every observation, of the length of ``x``.

    Examples
    --------
    >>> cusum_process(np.array([1.0, 1.0, -1.0, -1.0])).round(3)
    array([0.433, 0.866, 0.433, 0.   ])
    >>> cusum_process(np.ones(3))
    array([0., 0., 0.])
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
    """Fluctuation test of one covariate in one node (positions refer to the tested rows' order).

    Parameters
    ----------
    statistic_bias, p_bias : float
        ``max |W|`` of the bias (residual) process and its p-value.
    statistic_var, p_var : float
        The same for the variance (squared centred residual) process.
    break_position : int
        Number of tested rows left of the largest bias (or variance) change.
    process_bias, process_var : ndarray
        The two processes, one value per tested row.
    bias_significant : bool
        Whether the bias break was significant (then the variance process is centred within its segments).

    Examples
    --------
    >>> res = fluctuation_test(np.array([-1.0, -1.2, -0.8, 0.9, 1.1, 1.0]), bias_level=0.05)
    >>> isinstance(res, FluctuationResult), res.break_position
    (True, 3)
    """

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

    Returns
    -------
    FluctuationResult
        Both statistics and p-values, the break position and the processes.

    Examples
    --------
    A residual that jumps half-way along the covariate:

    >>> rng = np.random.default_rng(0)
    >>> r = np.r_[np.full(50, -0.5), np.full(50, 0.5)] + rng.normal(0, 0.3, 100)
    >>> res = fluctuation_test(r, bias_level=0.025)
    >>> res.break_position, res.bias_significant, res.p_bias < 0.001
    (50, True, True)
    >>> round(res.statistic_bias, 3)
    4.278
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


@dataclass
class PermutationSpec:
    """One covariate of a permutation node test.

    ``codes`` are integer level codes per row: ranks of the distinct values for an ordered
    covariate (left child = codes <= boundary), category codes for an unordered one.

    Parameters
    ----------
    codes : ndarray of int
        Level code of every row, from 0 to ``n_levels - 1``.
    n_levels : int
        Number of levels.
    nominal : bool
        Unordered categories (any subset may go left) rather than ordered levels.
    min_size : int
        Smallest admissible child.

    Examples
    --------
    An ordered covariate with ten levels of four rows each:

    >>> spec = PermutationSpec(np.arange(40) // 4, 10, nominal=False, min_size=5)
    >>> spec.n_levels, int(spec.codes.max())
    (10, 9)
    """

    codes: np.ndarray
    n_levels: int
    nominal: bool
    min_size: int


class _Prepared:
    """A covariate laid out in its own sorted order: levels are contiguous segments.

    A uniformly random permutation of the loss, read in any fixed order, is again a uniformly
    random permutation; so one permuted block serves every covariate as "the loss permuted, in
    this covariate's order", and per-level sums are differences of one shared prefix-sum matrix.
    """

    def __init__(self, spec: PermutationSpec, n: int) -> None:
        self.spec = spec
        self.n = n
        self.counts = np.bincount(spec.codes, minlength=spec.n_levels).astype(float)
        self.ends = np.cumsum(self.counts).astype(int)  # prefix length at the end of each level
        self.order = np.argsort(spec.codes, kind="stable")
        if not spec.nominal:
            self.k = self.ends[:-1].astype(float)  # left sizes at each level boundary
            self.ok = (self.k >= spec.min_size) & (n - self.k >= spec.min_size)
            self.scale = np.where(self.ok, n / np.maximum(self.k * (n - self.k), 1.0), 0.0)
            # the admissible boundaries only, for the permutation loop (no masking pass per block)
            self.ok_ends = self.ends[:-1][self.ok]
            self.ok_k = self.k[self.ok]
            self.ok_scale = self.scale[self.ok]

    def level_sums(self, prefix: np.ndarray) -> np.ndarray:
        """Per-level sums from prefix sums (b x n+1) of loss rows in this covariate's order."""
        at = prefix[:, self.ends]
        return np.diff(np.concatenate([prefix[:, :1], at], axis=1), axis=1)

    def stat(self, prefix: np.ndarray, total: float) -> tuple[np.ndarray, np.ndarray]:
        """Max statistic per row and its argmax (ordered: level boundary; nominal: prefix length - 1)."""
        n = self.n
        if not self.spec.nominal:
            left = prefix[:, self.ends[:-1]]
            # |mean_left - mean_right| = |left - total k / n| * n / (k (n - k))
            val = np.where(self.ok, np.abs(left - total * self.k / n) * self.scale, -np.inf)
            return val.max(axis=1), val.argmax(axis=1)
        sums = self.level_sums(prefix)
        present = self.counts > 0
        means = np.where(present, sums / np.maximum(self.counts, 1), np.inf)
        order = np.argsort(means, axis=1, kind="stable")
        cs = np.cumsum(np.take_along_axis(sums, order, axis=1), axis=1)[:, :-1]
        cn = np.cumsum(self.counts[order], axis=1)[:, :-1]
        ok = (cn >= self.spec.min_size) & (n - cn >= self.spec.min_size)
        val = np.where(ok, np.abs(cs - total * cn / n) * n / np.maximum(cn * (n - cn), 1.0), -np.inf)
        return val.max(axis=1), val.argmax(axis=1)


def _max_stat(pr: _Prepared, prefix: np.ndarray, total: float) -> np.ndarray:
    """The per-row maximum of :meth:`_Prepared.stat` without its argmax (all the permutation loop needs)."""
    if pr.spec.nominal:
        return pr.stat(prefix, total)[0]
    if pr.ok_ends.size == 0:
        return np.full(prefix.shape[0], -np.inf)
    d = prefix[:, pr.ok_ends]  # a fresh array: the in-place steps below do not touch prefix
    d -= total * pr.ok_k / pr.n  # the same arithmetic as stat(), so the same values to the last bit
    np.abs(d, out=d)
    d *= pr.ok_scale
    return d.max(axis=1)


def _prefix(block: np.ndarray) -> np.ndarray:
    out = np.zeros((block.shape[0], block.shape[1] + 1))
    np.cumsum(block, axis=1, out=out[:, 1:])
    return out


def _count_exceedances(L: np.ndarray, prepared: list[_Prepared], thresholds: np.ndarray, sizes: list[int],
                       seed: np.random.SeedSequence, total: float) -> np.ndarray:
    """Per covariate: exceedances of the threshold, and the count, sum and sum of squares of the permuted maxima.

    Returns an array of shape (4, covariates); the moments give the standardised statistic. A
    permutation can leave a nominal covariate no admissible split (its CART order changes the
    children's sizes): its maximum is ``-inf``, never an exceedance, and left out of the moments.
    """
    rng = np.random.default_rng(seed)
    out = np.zeros((4, len(prepared)))
    for b in sizes:
        prefix = _prefix(rng.permuted(np.broadcast_to(L, (b, L.size)), axis=1))
        for i, pr in enumerate(prepared):
            if np.isfinite(thresholds[i]):
                stats = _max_stat(pr, prefix, total)
                out[0, i] += int((stats >= thresholds[i]).sum())
                finite = stats[np.isfinite(stats)]
                out[1, i] += finite.size
                out[2, i] += float(finite.sum())
                out[3, i] += float(finite @ finite)
    return out


class PermutationResult(NamedTuple):
    """The permutation test of one covariate in one node.

    Parameters
    ----------
    statistic : float
        ``max |mean L_left - mean L_right|`` over the admissible splits (0 without any).
    best : int
        The level index of the best boundary (ordered) or the number of categories on the left
        minus one (nominal); ``-1`` when no admissible split exists.
    p_value : float
        ``(1 + #{permuted maxima >= statistic}) / (B + 1)``.
    z : float
        Standardised statistic ``(statistic - mean) / sd`` of the permuted maxima (``nan`` without
        an admissible split); comparable across covariates, it breaks ties of ``p_value``.

    Examples
    --------
    >>> res = PermutationResult(1.0, 3, 0.01, 12.5)
    >>> res.p_value, res.z
    (0.01, 12.5)
    """

    statistic: float
    best: int
    p_value: float
    z: float


def _standardised(value: float, b: float, s1: float, s2: float) -> float:
    """``(value - mean) / sd`` from the count ``b``, sum and sum of squares of the permuted maxima."""
    if b < 1:  # no permutation had an admissible split: every permuted maximum is below the observed one
        return np.inf
    mean = s1 / b
    var = max(s2 - s1 * mean, 0.0) / max(b - 1, 1)
    sd = float(np.sqrt(var))
    if sd <= 1e-12 * max(1.0, abs(mean)):  # a degenerate reference: only the direction is known
        return np.inf if value > mean * (1 + 1e-9) + 1e-12 else 0.0
    return (value - mean) / sd


def permutation_node_test(loss: np.ndarray, specs: list[PermutationSpec], n_permutations: int,
                          rng: np.random.Generator, chunk: int = 256,
                          n_jobs: int | None = None) -> list[PermutationResult]:
    """Max-statistic permutation tests of several covariates on one node, sharing the permutations.

    For every covariate the statistic is ``max |mean L_left - mean L_right|`` over admissible
    splits (both children >= ``min_size``; unordered categories in CART order by mean loss,
    re-ordered inside every permutation), and its p-value is the share of permutations of ``L``
    whose maximum is at least as large (plus one, over ``B + 1``); ``z`` standardises the
    statistic by the mean and sd of those permuted maxima. One permuted block and one prefix-sum
    matrix per chunk serve every covariate, and each covariate's result depends only on its own
    codes (not on the other covariates or their order). ``n_jobs=2`` splits the permutations over
    two processes with independent random streams.

    Parameters
    ----------
    loss : ndarray of float
        Per-row loss of the node's rows.
    specs : list of PermutationSpec
        The covariates to test.
    n_permutations : int
        Number of permutations ``B``.
    rng : numpy.random.Generator
        Source of the permutations' seed.
    chunk : int
        Permutations per block (bounds memory: ``chunk x n`` floats).
    n_jobs : int, optional
        Processes (``None`` or 1: one; -1: two).

    Returns
    -------
    list of PermutationResult
        ``(statistic, best, p_value, z)`` per covariate, in the order of ``specs``.

    Examples
    --------
    The loss jumps after row 20, that is after the fifth level of the ordered covariate; the
    nominal covariate is unrelated to it:

    >>> rng = np.random.default_rng(0)
    >>> loss = np.r_[np.zeros(20), np.ones(20)] + rng.normal(0, 0.1, 40)
    >>> ordered = PermutationSpec(np.arange(40) // 4, 10, nominal=False, min_size=5)
    >>> nominal = PermutationSpec(np.arange(40) % 3, 3, nominal=True, min_size=5)
    >>> out = permutation_node_test(loss, [ordered, nominal], 99, np.random.default_rng(0))
    >>> [(round(stat, 3), best, round(p, 2)) for stat, best, p, _ in out]
    [(1.025, 4, 0.01), (0.062, 0, 0.96)]
    >>> out[0].z > 5 > out[1].z
    True
    """
    L = np.asarray(loss, dtype=np.float64)
    n = L.size
    total = float(L.sum())
    prepared = [_Prepared(sp, n) for sp in specs]
    observed = []
    for pr in prepared:
        value, arg = pr.stat(_prefix(L[pr.order][None, :]), total)
        observed.append((float(value[0]), int(arg[0])))
    # near-ties count as exceedances (conservative against rounding in the prefix sums)
    thresholds = np.array([v * (1 - 1e-9) - 1e-12 if np.isfinite(v) else np.inf for v, _ in observed])
    sizes = _chunks(n_permutations, chunk)
    workers = 1 if n_jobs in (None, 1) or len(sizes) < 2 else (2 if n_jobs == -1 else int(n_jobs))
    seeds = np.random.SeedSequence(int(rng.integers(0, 2**63 - 1))).spawn(workers)
    if np.isfinite(thresholds).any():
        if workers == 1:
            moments = _count_exceedances(L, prepared, thresholds, sizes, seeds[0], total)
        else:
            from joblib import Parallel, delayed

            parts = [sizes[w::workers] for w in range(workers)]
            moments = sum(Parallel(n_jobs=workers)(
                delayed(_count_exceedances)(L, prepared, thresholds, part, seed, total)
                for part, seed in zip(parts, seeds, strict=True)))
    else:
        moments = np.zeros((4, len(specs)))
    out = []
    for i, (value, arg) in enumerate(observed):
        if not np.isfinite(value):
            out.append(PermutationResult(0.0, -1, 1.0, np.nan))
        else:
            z = _standardised(value, *(float(v) for v in moments[1:, i]))
            out.append(PermutationResult(value, arg, (1 + int(moments[0, i])) / (n_permutations + 1), z))
    return out


def permutation_max_test(loss_sorted: np.ndarray, candidates: np.ndarray, n_permutations: int,
                         rng: np.random.Generator) -> tuple[float, int, float]:
    """Max-statistic permutation test of one ordered covariate given in sorted order.

    ``candidates`` are the admissible left sizes. Returns (statistic, best left size, p-value).

    Parameters
    ----------
    loss_sorted : ndarray of float
        Per-row loss in the covariate's order.
    candidates : ndarray of int
        Admissible sizes of the left child, increasing.
    n_permutations : int
        Number of permutations.
    rng : numpy.random.Generator
        Source of the permutations' seed.

    Returns
    -------
    statistic : float
        ``max |mean L_left - mean L_right|`` over the candidates.
    best : int
        The left size attaining it (``-1`` without candidates).
    p_value : float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> loss = np.r_[np.zeros(20), np.ones(20)] + rng.normal(0, 0.1, 40)
    >>> stat, best, p = permutation_max_test(loss, np.arange(5, 36), 99, np.random.default_rng(0))
    >>> round(stat, 3), best, p
    (1.025, 20, 0.01)
    """
    L = np.asarray(loss_sorted, dtype=float)
    cand = np.asarray(candidates, dtype=int)
    if cand.size == 0:
        return 0.0, -1, 1.0
    # one level per candidate segment: rows between consecutive candidates share a level
    codes = np.searchsorted(cand, np.arange(L.size), side="right")
    spec = PermutationSpec(codes, cand.size + 1, nominal=False, min_size=1)
    stat, best, p, _ = permutation_node_test(L, [spec], n_permutations, rng)[0]
    return stat, int(cand[best]) if best >= 0 else -1, p

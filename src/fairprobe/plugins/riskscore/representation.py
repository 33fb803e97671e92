"""Expected under-representation (EUR) of a group among those flagged by a risk score.

With ``Yhat_tau = 1[R >= tau]``, the representation ratio of group ``G`` at threshold ``tau`` is
``p(G | Yhat_tau = 1) / p(G | Y = 1)`` (1 = the group is flagged as often as it has positive
outcomes). The paper's EUR (eq. 3) averages ``min(ratio, 1)`` over thresholds drawn from the
empirical distribution of all scores: 1 means never under-represented. ``variant="code"``
reproduces the paper's released code instead: ``1 - E[min(ratio, 1)]`` over thresholds in the
upper half of the score distribution (0 = fair).

Comparing groups: EUR is capped at 1 and EUR of everyone is 1 by definition, so "group minus all"
is below 0 for almost every group, fair or not, and the noise of a small group pulls its EUR
down further. :func:`eur_permutation_test` compares a group instead with random groups of the
same size (the group labels permuted over the rows): under exchangeable labels its p-value is
valid at any sample size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.riskscore.calibration import check_scores

__all__ = ["EURKernel", "EURTest", "eur_permutation_test", "expected_underrepresentation", "permutation_p_values",
           "representation_curve"]



def _ratios(r: np.ndarray, mask: np.ndarray, target: float) -> tuple[np.ndarray, np.ndarray]:
    """Thresholds (each score, descending) and p(G | R >= tau) / target at each."""
    order = np.argsort(-r, kind="stable")
    rs, gs = r[order], mask[order]
    flagged = np.arange(1, r.size + 1)
    in_group = np.cumsum(gs)
    # R >= tau includes every tie of tau: use the last index of each tie block
    last = np.r_[np.nonzero(np.diff(rs))[0], rs.size - 1]
    block_end = np.repeat(last, np.diff(np.r_[-1, last]))
    return rs, (in_group[block_end] / flagged[block_end]) / target


def _threshold_weights(n: int, tau_range: tuple[float, float], variant: str) -> np.ndarray:
    """Weight of each descending-sorted row's score as a threshold: 1 inside the quantile range, else 0."""
    lo, hi = (0.5, 1.0) if variant == "code" else tau_range
    q = 1.0 - (np.arange(n) + 0.5) / n  # empirical quantile of each threshold (descending)
    sel = (q >= lo) & (q < hi) if hi < 1.0 or variant == "code" else (q >= lo)
    if not sel.any():
        raise DataError(f"No thresholds in the quantile range {tau_range}.")
    return sel.astype(float)


def boolean_mask(mask: object, name: str = "mask") -> np.ndarray:
    """A group-membership mask as a boolean array; refuses labels and codes.

    Parameters
    ----------
    mask : array-like of bool, or (array-like, value)
        Booleans, or a pair ``(column, value)`` read as ``column == value``.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    DataError
        A mask of labels, codes or missing values.

    Examples
    --------
    >>> boolean_mask([True, False]).tolist(), boolean_mask((["f", "m"], "f")).tolist()
    ([True, False], [True, False])
    """
    if isinstance(mask, tuple) and len(mask) == 2:
        column, value = mask
        return (np.asarray(column, dtype=object).ravel() == value).astype(bool)
    arr = np.asarray(mask)
    if arr.dtype != bool:
        if arr.dtype == object and all(isinstance(v, (bool, np.bool_)) for v in arr.ravel()):
            return arr.astype(bool).ravel()
        sample = list(dict.fromkeys(arr.ravel().tolist()))[:4]
        raise DataError(
            f"{name} must be boolean (True = in the group); got values of type {arr.dtype} such as {sample}. "
            f"Pass a comparison such as column == value, or the pair (column, value).")
    return arr.ravel()


def expected_underrepresentation(r: object, y: object, group_mask: object, *, target: float | None = None,
                                 tau_range: tuple[float, float] = (0.0, 1.0), variant: str = "paper") -> float:
    """Expected under-representation of a group.

    Parameters
    ----------
    r, y : array-like
        Real-valued scores (only their order matters) and binary outcomes.
    group_mask : array-like of bool, or (array-like, value)
        Membership of the group: booleans, or a pair ``(column, value)`` meaning
        ``column == value`` (e.g. ``(df["sex"], "f")``). Labels or codes are refused, since
        casting them to bool would make everyone a member.
    target : float, optional
        ``p(G | Y = 1)`` (default: from ``y`` and ``group_mask``).
    tau_range : (float, float)
        Quantile range of the score distribution the thresholds are drawn from.
    variant : {"paper", "code"}
        ``"paper"``: mean of ``min(ratio, 1)`` (1 = never under-represented);
        ``"code"``: ``1 - mean min(ratio, 1)`` over thresholds in the upper half (0 = fair).

    Returns
    -------
    float

    Raises
    ------
    DataError
        ``group_mask`` that is not boolean or of another length, no positives (without ``target``), a group without
        positive outcomes, or no thresholds in ``tau_range``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> g = rng.random(400) < 0.3; y = (rng.random(400) < 0.3).astype(float)
    >>> r = rng.random(400) + 0.5 * y - 0.2 * g  # the group gets lower scores at the same outcome
    >>> round(expected_underrepresentation(r, y, g), 3), round(expected_underrepresentation(r, y, ~g), 3)
    (0.699, 0.999)
    >>> round(expected_underrepresentation(r, y, g, variant="code"), 3)
    0.503
    """
    y, r = check_scores(y, r, bounded=False)  # thresholds only rank the scores
    mask = boolean_mask(group_mask, "group_mask")
    if mask.size != r.size:
        raise DataError(f"group_mask has {mask.size} rows but the scores have {r.size}.")
    if target is None:
        if y.sum() == 0:
            raise DataError("p(G | Y = 1) is undefined without positives; pass target=.")
        target = float(mask[y == 1].mean())
    if target <= 0:
        raise DataError("The group has no positive outcomes (p(G | Y = 1) = 0); EUR is undefined.")
    _, ratio = _ratios(r, mask, target)
    sel = _threshold_weights(r.size, tau_range, variant) > 0
    value = float(np.minimum(ratio, 1.0)[sel].mean())
    return 1.0 - value if variant == "code" else value


@dataclass(frozen=True)
class EURTest:
    """A group's EUR against random groups of the same size (:func:`eur_permutation_test`).

    Attributes
    ----------
    eur : float
        The group's EUR (paper formula).
    chance : float
        Mean EUR of the random groups: what a group of this size gets by noise alone (below 1,
        since every random group is under-represented at some thresholds and the cap keeps the
        others at 1).
    p_value : float
        Permutation p-value (:func:`permutation_p_values`); with ``alternative="less"``,
        ``(1 + #{random EUR <= eur}) / (1 + permutations)``: small when the group is more
        under-represented than random groups of its size.
    n_permutations : int
        Random groups drawn.
    """

    eur: float
    chance: float
    p_value: float
    n_permutations: int


def permutation_p_values(null: np.ndarray, observed: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Permutation p-values of ``observed`` (one per column of ``null``), with the +1 of an exact test.

    Parameters
    ----------
    null : ndarray of shape (permutations, k)
        The statistic under permuted labels; NaN where undefined (left out).
    observed : ndarray of shape (k,)
        The statistic on the data.
    alternative : {"two-sided", "less", "greater"}
        ``"less"``: small when ``observed`` is low among the permutations.

    Returns
    -------
    ndarray of shape (k,)
        ``(1 + #{null <= observed}) / (1 + permutations)`` for ``"less"`` (``>=`` for
        ``"greater"``); twice the smaller of the two, capped at 1, for ``"two-sided"``. NaN where
        ``observed`` or every permutation is undefined.

    Examples
    --------
    >>> permutation_p_values(np.arange(9.0)[:, None], np.array([0.0]), "less").tolist()
    [0.2]
    """
    if alternative not in ("two-sided", "less", "greater"):
        raise ConfigError(f"alternative must be 'two-sided', 'less' or 'greater'; got {alternative!r}.")
    null = np.asarray(null, dtype=float)
    observed = np.asarray(observed, dtype=float)
    finite = np.isfinite(null)
    count = finite.sum(axis=0)
    tol = 1e-12 * np.maximum(1.0, np.abs(observed))  # a permutation equal to the data counts as at least as extreme
    with np.errstate(invalid="ignore"):
        le = (1.0 + np.sum(finite & (null <= observed + tol), axis=0)) / (1.0 + count)
        ge = (1.0 + np.sum(finite & (null >= observed - tol), axis=0)) / (1.0 + count)
    p = le if alternative == "less" else ge if alternative == "greater" else np.minimum(1.0, 2 * np.minimum(le, ge))
    return np.where(np.isfinite(observed) & (count > 0), p, np.nan)


class EURKernel:
    """EUR of any set of rows, in O(m log n) for a group of m rows (the permutation tests' inner loop).

    The rows are sorted by descending score once. Between two consecutive member blocks the
    count of members above the threshold is constant, and ``min(count / (flagged * target), 1)``
    is 1 up to the block where ``flagged`` passes ``count / target`` and ``count / target /
    flagged`` beyond it, so each stretch is a difference of prefix sums.

    Parameters
    ----------
    r, y : ndarray
        Scores and 0/1 outcomes.
    weights : ndarray, optional
        Threshold weight of each row in descending score order (default 1: every row's score is a
        threshold, as :func:`expected_underrepresentation`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(500); y = (rng.random(500) < r).astype(int); g = rng.random(500) < 0.3
    >>> kernel = EURKernel(r, y)
    >>> bool(abs(kernel.eur(kernel.positions(np.flatnonzero(g))) - expected_underrepresentation(r, y, g)) < 1e-12)
    True
    """

    def __init__(self, r: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        self.order = np.argsort(-r, kind="stable")
        rs = r[self.order]
        self.positive = np.asarray(y)[self.order] == 1
        self.n_pos = int(self.positive.sum())
        last = np.r_[np.nonzero(np.diff(rs))[0], rs.size - 1]  # last position of each tied block
        self.block = np.repeat(np.arange(last.size), np.diff(np.r_[-1, last]))
        w = np.ones(rs.size) if weights is None else np.asarray(weights, dtype=float)
        block_weight = np.bincount(self.block, weights=w, minlength=last.size)
        self.flagged = last + 1.0  # rows with a score >= the block's score
        self.total = float(block_weight.sum())
        self.s1 = np.r_[0.0, np.cumsum(block_weight)]
        self.s2 = np.r_[0.0, np.cumsum(block_weight / self.flagged)]
        self.rank = np.empty(rs.size, dtype=np.int64)
        self.rank[self.order] = np.arange(rs.size)

    def positions(self, rows: np.ndarray) -> np.ndarray:
        """Positions (in descending score order) of the given row indices."""
        return self.rank[rows]

    def eur(self, positions: np.ndarray, *, ascending: bool = False) -> float:
        """EUR of the group at ``positions`` (descending score order); NaN without a positive.

        ``ascending=True`` promises that the positions are already sorted (skips a sort).
        """
        members = int(self.positive[positions].sum())
        if members == 0:
            return float("nan")
        scale = self.n_pos / members  # 1 / p(G | Y = 1)
        blocks = self.block[positions] if ascending else np.sort(self.block[positions])
        starts = np.r_[0, np.nonzero(np.diff(blocks))[0] + 1]
        first = blocks[starts]  # blocks holding members, ascending
        count = np.r_[starts[1:], blocks.size]  # members in blocks <= first[i]
        end = np.r_[first[1:], self.flagged.size]  # each stretch of constant count
        reach = count * scale  # the ratio is capped at 1 while flagged <= reach
        cut = np.clip(np.searchsorted(self.flagged, reach, side="right"), first, end)
        value = (self.s1[cut] - self.s1[first]) + reach * (self.s2[end] - self.s2[cut])
        return float(value.sum() / self.total)


def _permuted_eur(kernel: EURKernel, size: int, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """EUR of ``n_permutations`` random groups of ``size`` rows."""
    n = kernel.order.size
    return np.array([kernel.eur(rng.choice(n, size, replace=False)) for _ in range(n_permutations)])


def eur_permutation_test(r: object, y: object, group_mask: object, *, n_permutations: int = 1000,
                         tau_range: tuple[float, float] = (0.0, 1.0), alternative: str = "two-sided",
                         random_state: int | np.random.Generator | None = None) -> EURTest:
    """Is a group more under-represented than random groups of the same size?

    EUR cannot be compared with "everyone" (whose EUR is 1 by definition) and is biased downward
    in small groups. The permutation test draws random groups of the group's size from the same
    rows (same scores and outcomes, labels permuted) and reports where the group's EUR falls among
    theirs; under exchangeable group labels (no relation between membership and scores or
    outcomes) the p-value is valid at any sample size.

    Parameters
    ----------
    r, y : array-like
        Real-valued scores and binary outcomes.
    group_mask : array-like of bool, or (array-like, value)
        Membership of the group (see :func:`expected_underrepresentation`).
    n_permutations : int
        Random groups to draw (at least 1).
    tau_range : (float, float)
        Quantile range of the thresholds (see :func:`expected_underrepresentation`).
    alternative : {"two-sided", "less", "greater"}
        ``"less"`` asks whether the group is *more* under-represented than random groups;
        ``"two-sided"`` (default, as :class:`RiskScoreAudit`) whether it differs from them in either
        direction (a group flagged more often than its outcomes warrant has EUR above chance).
    random_state : int, numpy.random.Generator or None
        Seed of the permutations.

    Returns
    -------
    EURTest

    Raises
    ------
    DataError
        As :func:`expected_underrepresentation`; also a group of every row (nothing to compare).
    ConfigError
        ``n_permutations`` below 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(3000); y = (rng.random(3000) < r).astype(int)
    >>> fair = rng.random(3000) < 0.2  # membership unrelated to score and outcome
    >>> bool(eur_permutation_test(r, y, fair, n_permutations=200, random_state=0).p_value > 0.05)
    True
    >>> low = fair & (rng.random(3000) < 0.5) | (y == 1) & (r < 0.5)  # positives the score ranks low
    >>> test = eur_permutation_test(r, y, low, n_permutations=200, alternative="less", random_state=0)
    >>> test.p_value < 0.01, test.eur < test.chance
    (True, True)
    """
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, int | np.integer) or n_permutations < 1:
        raise ConfigError(f"n_permutations must be a whole number of at least 1; got {n_permutations!r}.")
    eur = expected_underrepresentation(r, y, group_mask, tau_range=tau_range)  # checks the input
    y, r = check_scores(y, r, bounded=False)
    mask = boolean_mask(group_mask, "group_mask")
    if mask.all():
        raise DataError("The group holds every row: there is no random group of its size to compare it with.")
    kernel = EURKernel(r, y, _threshold_weights(r.size, tau_range, "paper"))
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
    null = _permuted_eur(kernel, int(mask.sum()), int(n_permutations), rng)
    null = null[np.isfinite(null)]  # a random group without positives has no EUR
    if not null.size:
        raise DataError("No random group of this size has a positive outcome; the test is undefined.")
    p_value = permutation_p_values(null[:, None], np.array([eur]), alternative)[0]
    return EURTest(eur=eur, chance=float(null.mean()), p_value=float(p_value), n_permutations=int(null.size))


def representation_curve(r: object, y: object, group_mask: object, *, target: float | None = None,
                         grid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Representation ratio against the threshold's quantile (ECDF of the scores).

    Returns ``(quantiles, ratio)`` on ``grid`` (default 100 points in [0.5, 1)).

    Parameters
    ----------
    r, y : array-like
        Real-valued scores (only their order matters) and binary outcomes.
    group_mask : array-like of bool, or (array-like, value)
        Membership of the group: booleans, or a pair ``(column, value)`` meaning
        ``column == value`` (e.g. ``(df["sex"], "f")``). Labels or codes are refused, since
        casting them to bool would make everyone a member.
    target : float, optional
        ``p(G | Y = 1)`` (default: from ``y`` and ``group_mask``).
    grid : ndarray, optional
        Quantiles of the score distribution at which to read the ratio.

    Returns
    -------
    quantiles : ndarray
        The grid.
    ratio : ndarray
        ``p(G | R >= tau) / p(G | Y = 1)`` at each quantile (interpolated).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> g = rng.random(400) < 0.3; y = (rng.random(400) < 0.3).astype(float)
    >>> r = rng.random(400) + 0.5 * y - 0.2 * g  # the group gets lower scores at the same outcome
    >>> quantiles, ratio = representation_curve(r, y, g, grid=np.array([0.5, 0.75, 0.9]))
    >>> ratio.round(3).tolist()
    [0.722, 0.559, 0.534]
    """
    y, r = check_scores(y, r, bounded=False)  # thresholds only rank the scores
    mask = np.asarray(group_mask, dtype=bool).ravel()
    if target is None:
        target = float(mask[y == 1].mean())
    _, ratio = _ratios(r, mask, target)
    q = 1.0 - (np.arange(r.size) + 0.5) / r.size
    grid = np.linspace(0.5, 0.99, 100) if grid is None else np.asarray(grid)
    return grid, np.interp(grid, q[::-1], ratio[::-1])

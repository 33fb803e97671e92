"""Expected under-representation (EUR) of a group among those flagged by a risk score.

With ``Yhat_tau = 1[R >= tau]``, the representation ratio of group ``G`` at threshold ``tau`` is
``p(G | Yhat_tau = 1) / p(G | Y = 1)`` (1 = the group is flagged as often as it has positive
outcomes). The paper's EUR (eq. 3) averages ``min(ratio, 1)`` over thresholds drawn from the
empirical distribution of all scores: 1 means never under-represented. ``variant="code"``
reproduces the paper's released code instead: ``1 - E[min(ratio, 1)]`` over thresholds in the
upper half of the score distribution (0 = fair).
"""

from __future__ import annotations

import numpy as np

from fairprobe.exceptions import DataError
from fairprobe.plugins.riskscore.calibration import check_scores

__all__ = ["expected_underrepresentation", "representation_curve"]


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
    capped = np.minimum(ratio, 1.0)
    lo, hi = (0.5, 1.0) if variant == "code" else tau_range
    q = 1.0 - (np.arange(r.size) + 0.5) / r.size  # empirical quantile of each threshold (descending)
    sel = (q >= lo) & (q < hi) if hi < 1.0 or variant == "code" else (q >= lo)
    if not sel.any():
        raise DataError(f"No thresholds in the quantile range {tau_range}.")
    value = float(capped[sel].mean())
    return 1.0 - value if variant == "code" else value


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

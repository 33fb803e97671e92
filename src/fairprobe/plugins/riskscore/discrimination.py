"""Discrimination: AUROC and the area under the precision-recall-gain curve (Flach & Kull 2015).

With ``pi`` the proportion of positives, precision gain ``precG = (prec - pi) / ((1 - pi) prec)``
and recall gain ``recG = (rec - pi) / ((1 - pi) rec)``; both are 1 at the perfect value and 0 at
the always-positive baseline, and linear interpolation between operating points is valid in PRG
space. The curve is restricted to ``recG`` in [0, 1]; negative precision gain contributes negative
area. Tied scores form one segment of the curve.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logit

from fairprobe.plugins.riskscore.calibration import check_scores

__all__ = ["area_under_prg", "auprg", "auroc", "calibration_intercept_slope", "prg_curve", "prg_from_counts"]


def auroc(y: object, r: object) -> float:
    """Area under the ROC curve (ties count one half); NaN with a warning if a class is missing.

    ``r`` may be any real-valued score (a probability, a decision function, a decile): only the
    ranking matters, as for scikit-learn's ``roc_auc_score``.

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like of float
        Scores (higher: more likely positive).

    Returns
    -------
    float

    Examples
    --------
    >>> auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    y, r = check_scores(y, r, bounded=False)  # ranking: any real-valued score
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        warnings.warn("AUROC needs both outcomes in the sample: returning NaN.", RuntimeWarning, stacklevel=2)
        return float("nan")
    from scipy.stats import rankdata

    ranks = rankdata(r)  # average ranks: ties count one half (Mann-Whitney)
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _contingency(y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative TP and FP at each segment of tied scores (descending), from (0, 0)."""
    order = np.argsort(-r, kind="stable")
    ys, rs = y[order], r[order]
    ends = np.r_[np.nonzero(np.diff(rs))[0], rs.size - 1]
    tp = np.cumsum(ys)[ends]
    fp = (ends + 1) - tp
    return np.r_[0.0, tp], np.r_[0.0, fp]


def prg_curve(y: object, r: object) -> tuple[np.ndarray, np.ndarray]:
    """Points (recall gain, precision gain) of the PRG curve with recG >= 0, crossings inserted.

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like of float
        Scores (only the ranking matters).

    Returns
    -------
    recall_gain, precision_gain : ndarray
        The curve's points, recall gain ascending (empty when a class is missing: precision and
        recall gain are undefined without positives or without negatives).

    Examples
    --------
    >>> x, p = prg_curve([1, 1, 0, 0, 1, 0], [.8, .8, .6, .4, .4, .2])
    >>> x.round(3).tolist(), p.round(3).tolist()
    ([0.0, 0.5, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.333, 0.0])
    """
    y, r = check_scores(y, r, bounded=False)  # ranking: any real-valued score
    tp, fp = _contingency(y, r)
    return prg_from_counts(tp, fp)


def prg_from_counts(tp: np.ndarray, fp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PRG points from cumulative (weighted) TP and FP per score segment, starting at (0, 0).

    Parameters
    ----------
    tp, fp : ndarray of float
        Cumulative true and false positives at each score segment, descending scores, starting at 0.

    Returns
    -------
    recall_gain, precision_gain : ndarray
        The curve's points (empty without positives or without negatives: the base rate ``pi``
        is then 0 or 1 and the gains divide by ``pi`` or ``1 - pi``).

    Examples
    --------
    Two positives ranked above two negatives:

    >>> x, p = prg_from_counts(np.array([0.0, 1, 2, 2]), np.array([0.0, 0, 0, 2]))
    >>> x.tolist(), p.tolist()
    ([0.0, 1.0, 1.0], [1.0, 1.0, 0.0])
    """
    n_pos = float(tp[-1])
    n = float(tp[-1] + fp[-1])
    if n_pos == 0 or n_pos == n:
        return np.array([]), np.array([])
    pi = n_pos / n
    # insert the point where recall = pi (recG = 0), interpolated in contingency space
    target = pi * n_pos
    k = int(np.searchsorted(tp, target, side="left"))
    if 0 < k < tp.size and tp[k] != target:
        t = (target - tp[k - 1]) / (tp[k] - tp[k - 1])
        tp = np.r_[tp[:k], target, tp[k:]]
        fp = np.r_[fp[:k], fp[k - 1] + t * (fp[k] - fp[k - 1]), fp[k:]]
    keep = tp >= target - 1e-12
    tp, fp = tp[keep], fp[keep]
    odds = pi / (1 - pi)
    prec_g = 1 - odds * fp / tp
    rec_g = np.clip(1 - odds * (n_pos - tp) / tp, None, 1.0)
    rec_g[np.abs(rec_g) < 1e-12] = 0.0
    # insert crossings of precG = 0 between consecutive points (interpolated in contingency space)
    cross = np.nonzero(prec_g[:-1] * prec_g[1:] < 0)[0]
    if cross.size:
        t0, f0, t1, f1 = tp[cross], fp[cross], tp[cross + 1], fp[cross + 1]
        a = ((1 - pi) * t0 - pi * f0) / (pi * (f1 - f0) - (1 - pi) * (t1 - t0))
        tpx = t0 + a * (t1 - t0)
        rec_g = np.insert(rec_g, cross + 1, 1 - odds * (n_pos - tpx) / tpx)
        prec_g = np.insert(prec_g, cross + 1, 0.0)
    return rec_g, prec_g


def auprg(y: object, r: object) -> float:
    """Area under the precision-recall-gain curve over recall gain in [0, 1].

    1 for a perfect ranking, 0 when precision equals the base rate throughout, negative for
    rankings worse than that. Undefined (NaN with a warning naming the missing class) without
    positives or without negatives, as AUROC: precision gain divides by ``1 - pi``.
    ``r`` may be any real-valued score: only the ranking matters.

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like of float
        Scores.

    Returns
    -------
    float

    Examples
    --------
    >>> auprg([0, 0, 1, 1], [.1, .2, .8, .9]), auprg([1, 1, 0, 0], [.1, .2, .8, .9])
    (1.0, -0.5)
    >>> round(auprg([1, 1, 0, 0, 1, 0], [.8, .8, .6, .4, .4, .2]), 7)
    0.7083333
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = auprg([1, 1, 1], [.2, .5, .7])
    >>> value, str(caught[0].message)
    (nan, 'AUPRG is undefined without negatives (every outcome is 1; it needs both outcomes): returning NaN.')
    """
    y, r = check_scores(y, r, bounded=False)  # ranking: any real-valued score
    if y.sum() == 0:
        warnings.warn("AUPRG is undefined without positives: returning NaN.", RuntimeWarning, stacklevel=2)
        return float("nan")
    if y.sum() == y.size:
        warnings.warn("AUPRG is undefined without negatives (every outcome is 1; it needs both outcomes): "
                      "returning NaN.", RuntimeWarning, stacklevel=2)
        return float("nan")
    return area_under_prg(*prg_curve(y, r))


def area_under_prg(x: np.ndarray, p: np.ndarray) -> float:
    """Trapezoid area of PRG points (recall gain ``x`` ascending, precision gain ``p``).

    Parameters
    ----------
    x : ndarray of float
        Recall gains, ascending.
    p : ndarray of float
        Precision gains at those points.

    Returns
    -------
    float
        NaN with fewer than two points (no curve: a class is missing).

    Examples
    --------
    >>> area_under_prg(*prg_curve([1, 1, 0, 0, 1, 0], [.8, .8, .6, .4, .4, .2])) == auprg(
    ...     [1, 1, 0, 0, 1, 0], [.8, .8, .6, .4, .4, .2])
    True
    >>> area_under_prg(np.array([0.0, 0.5, 1.0]), np.array([1.0, 1.0, 0.0]))
    0.75
    >>> area_under_prg(*prg_curve([1, 1, 1], [.2, .5, .7]))  # no curve without negatives
    nan
    """
    if x.size < 2:
        return float("nan")
    return float(np.sum(np.diff(x) * (p[:-1] + p[1:]) / 2))


def calibration_intercept_slope(y: object, r: object) -> tuple[float, float]:
    """Calibration in the large (intercept with the logit-score offset) and calibration slope.

    ``intercept`` solves ``sum(y - expit(a + logit(r))) = 0`` (0 = calibrated in the large);
    ``slope`` is the coefficient of ``logit(r)`` in an unpenalised logistic regression (1 = ideal).
    Scores must be probabilities in [0, 1] (a calibration measure).

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like in [0, 1]
        Predicted probabilities.

    Returns
    -------
    intercept : float
        Calibration in the large (0 when calibrated; NaN with a warning if a class is missing).
    slope : float
        Calibration slope (1 is ideal).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(200); y = (rng.random(200) < r).astype(float)
    >>> intercept, slope = calibration_intercept_slope(y, r)
    >>> round(intercept, 3), round(slope, 3)
    (-0.219, 1.068)
    """
    y, r = check_scores(y, r)
    if y.min() == y.max():
        warnings.warn("Calibration intercept/slope need both outcomes: returning NaN.", RuntimeWarning, stacklevel=2)
        return float("nan"), float("nan")
    z = logit(np.clip(r, 1e-12, 1 - 1e-12))
    intercept = brentq(lambda a: float(np.sum(y - expit(a + z))), -50, 50)
    from sklearn.linear_model import LogisticRegression

    slope = float(LogisticRegression(C=np.inf, max_iter=1000).fit(z[:, None], y).coef_[0, 0])
    return float(intercept), slope

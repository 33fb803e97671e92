"""Calibration error estimators for binary risk scores.

Notation: scores ``r`` in [0, 1], outcomes ``y`` in {0, 1}; a binning gives bin ``b`` with
``n_b`` samples, mean score ``p_b`` and label mean ``y_b``; ``w_b = n_b / n``.

* :func:`drmsce` -- debiased root-mean-square calibration error (the risk-score paper's
  estimator): ``sqrt(max(0, sum_b w_b [(p_b - y_b)^2 - y_b (1 - y_b) / (n_b - 1)]))`` on equal-mass
  bins, with the bin count chosen by an interval search for the largest count that keeps the bin
  label means monotone and every bin at least 10 samples.
* :func:`ece` -- the plug-in L1 (``p=1``) or L2 (``p=2``, RMSCE) calibration error on
  ``n_bins`` equal-width bins (``binning="width"``), equal-mass bins (``"mass"``), or with the
  bin count chosen by Roelofs et al.'s monotonic sweep (``"sweep"``).
* :func:`ace` -- "adaptive calibration error": here the plug-in L1 error on **equal-mass** bins
  (Nixon et al. 2019's name for equal-mass ECE; some libraries use "ACE" for a class-wise
  variant, which this is not).
* :func:`rmsce` -- plug-in L2 error on equal-mass bins (the biased estimator DRMSCE corrects).
* :func:`reliability_curve` -- observed against predicted rate per bin, binned exactly as
  scikit-learn's ``calibration_curve``.

Equal-width bins are right-closed, ``(k/B, (k+1)/B]`` with 0 in the first, exactly as
``sklearn.calibration.calibration_curve`` bins: a decile score 0.9 and a score 1.0 fall in
different bins (netcal's left-closed bins put them together; the two differ only for scores
exactly on an edge).

``convention="paper"`` reproduces the risk-score paper's baselines: "ECE, 15 bins" uses the 15
edges ``linspace(0, 1, 15)`` with right-closed bins (effectively 14 equal-width bins) and "ACE,
15 bins" the 15 quantile edges (a singleton bin plus 14 equal-mass bins).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError

__all__ = ["ECE_BINS", "ace", "as_outcomes", "check_scores", "drmsce", "drmsce_sorted", "drmsce_weighted", "ece",
           "reliability_curve", "rmsce", "width_bins"]

#: Default number of equal-width bins of the ECE and the reliability curve (as netcal).
ECE_BINS = 10


def _label(values: object, default: str) -> str:
    name = getattr(values, "name", None)
    return f"column {name!r}" if isinstance(name, str) and name else default


def _shown(values: np.ndarray) -> list:
    uniq = pd.unique(pd.Series(values, dtype=object).dropna())
    try:
        uniq = sorted(uniq)
    except TypeError:  # mixed types
        uniq = sorted(uniq, key=str)
    return [v.item() if isinstance(v, np.generic) else v for v in uniq[:6]]


def as_outcomes(y: object, positive_label: object = None) -> np.ndarray:
    """Outcomes as a float 0/1 array; ``positive_label`` maps that value to 1 and every other to 0.

    Parameters
    ----------
    y : array-like
        The outcomes: 0/1 numbers, or any labels with ``positive_label``.
    positive_label : object, optional
        The label of the outcome of interest (mapped to 1).

    Returns
    -------
    ndarray of float
        Zeros and ones, flattened.

    Raises
    ------
    DataError
        Missing values; non-numeric labels without ``positive_label``; values other than 0/1;
        a ``positive_label`` that is not among the values.

    Examples
    --------
    >>> as_outcomes([0, 1, 1]).tolist()
    [0.0, 1.0, 1.0]
    >>> as_outcomes(["no", "yes", "yes"], positive_label="yes").tolist()
    [0.0, 1.0, 1.0]
    """
    label = _label(y, "The outcomes")
    arr = np.asarray(y)
    if positive_label is None and arr.dtype.kind in "biuf":  # numeric: the fast path (bootstrap loops)
        out = arr.astype(float).ravel()
        if np.isnan(out).any():
            raise DataError(f"{label} has {int(np.isnan(out).sum())} missing value(s) (NaN); drop those rows or "
                            "fill them with 0/1 first.")
        if not np.isin(out, (0.0, 1.0)).all():
            raise DataError(f"Outcomes must be binary 0/1; {label.lower()} holds {_shown(np.unique(out))}. Recode "
                            "it to 0/1 (1 = the outcome of interest), or pass positive_label=<value>.")
        return out
    raw = np.asarray(y, dtype=object).ravel()
    if raw.size and pd.isna(raw).any():
        raise DataError(f"{label} has {int(pd.isna(raw).sum())} missing value(s); drop those rows or fill them "
                        "with 0/1 first.")
    if positive_label is not None:
        values = _shown(raw)
        if raw.size and not (raw == positive_label).any():
            raise DataError(f"positive_label={positive_label!r} is not a value of {label.lower()} (values: "
                            f"{values}); pass one of them.")
        return (raw == positive_label).astype(float)
    try:
        out = np.asarray(raw.tolist(), dtype=float).ravel() if raw.size else np.zeros(0)
    except (TypeError, ValueError):
        raise DataError(f"{label} holds non-numeric values {_shown(raw)}; the outcome must be binary 0/1. Recode "
                        "it (1 = the outcome of interest), or pass positive_label=<value> (--positive-label on the "
                        "command line) to name the value that means 1.") from None
    if not np.isin(out, (0.0, 1.0)).all():
        raise DataError(f"Outcomes must be binary 0/1; {label.lower()} holds {_shown(out)}. Recode it to 0/1 "
                        "(1 = the outcome of interest), or pass positive_label=<value>.")
    return out


def check_scores(y: object, r: object, *, what: str = "This metric",
                 bounded: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validated float arrays: ``y`` binary, ``r`` real (in [0, 1] if ``bounded``), same non-zero length, no NaN.

    Parameters
    ----------
    y, r : array-like
        Outcomes and scores.
    what : str
        Names the caller in the message about empty input.
    bounded : bool
        Require scores in [0, 1] (the calibration measures); ranking measures pass ``False`` and
        accept any real-valued score (a decision function, a decile), as scikit-learn's do.

    Returns
    -------
    (ndarray, ndarray)

    Raises
    ------
    DataError
        Empty input, lengths that differ, NaN or infinite scores, outcomes that are not 0/1, or
        (``bounded``) scores outside [0, 1].

    Examples
    --------
    >>> y, r = check_scores([0, 1], [-2.5, 7.0], bounded=False)
    >>> r.tolist()
    [-2.5, 7.0]
    """
    r_label = _label(r, "The scores")
    y = as_outcomes(y)
    try:
        r = np.asarray(r, dtype=float).ravel()
    except (TypeError, ValueError):
        raw = np.asarray(r, dtype=object).ravel()
        raise DataError(f"{r_label} holds non-numeric values {_shown(raw)}; risk scores must be real numbers "
                        "(probabilities, i.e. numbers in [0, 1], for the calibration measures).") from None
    if y.shape != r.shape:
        raise DataError(f"Outcomes ({y.size}) and scores ({r.size}) differ in length; pass one score per outcome.")
    if y.size == 0:
        # an empty sample has no calibration error (not 0 = "perfectly calibrated")
        raise DataError(f"{what} is undefined for an empty sample: the outcomes and scores have no rows. Pass at "
                        "least one row (check the filter or group that selected them).")
    if np.isnan(r).any():
        raise DataError(f"{r_label} has {int(np.isnan(r).sum())} NaN value(s); drop those rows first.")
    if np.isinf(r).any():
        raise DataError(f"{r_label} has {int(np.isinf(r).sum())} infinite value(s); drop or clip those rows first.")
    if bounded and ((r < 0).any() or (r > 1).any()):
        raise DataError(f"Risk scores must lie in [0, 1]; found [{r.min():.4g}, {r.max():.4g}]. Rescale them "
                        "(e.g. with a calibrated model's predict_proba) first.")
    return y, r


def _check_bins(n_bins: object, name: str = "n_bins") -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise ConfigError(f"{name} must be a whole number of at least 1; got {n_bins!r}.")
    return int(n_bins)


def _binned(y: np.ndarray, r: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_b = np.bincount(idx, minlength=k).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_b = np.bincount(idx, weights=r, minlength=k) / n_b
        y_b = np.bincount(idx, weights=y, minlength=k) / n_b
    return n_b, p_b, y_b


def _debiased(n_b: np.ndarray, p_b: np.ndarray, y_b: np.ndarray, n: int) -> float:
    keep = n_b > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.where(n_b > 1, y_b * (1 - y_b) / (n_b - 1), 0.0)
    sq = np.sum((n_b[keep] / n) * ((p_b[keep] - y_b[keep]) ** 2 - corr[keep]))
    return float(np.sqrt(max(0.0, sq)))


def _mass_grid(n_bins: int) -> np.ndarray:
    """The reference code's quantile grid ``arange(1/B, 1 + 1e-7, 1/B)``, kept inside [0, 1].

    The float grid decides which order statistic an edge lands on, so it is kept; but at some
    counts (93 bins) its last point is 1.0000000000000002, which ``np.quantile`` refuses.
    """
    return np.minimum(np.arange(1 / n_bins, 1 + 1e-7, 1 / n_bins)[:n_bins], 1.0)


def width_bins(r: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-width bin of each score: ``(k/B, (k+1)/B]``, 0 in bin 0 (scikit-learn's binning).

    Parameters
    ----------
    r : ndarray
        Scores in [0, 1].
    n_bins : int
        Number of bins.

    Returns
    -------
    ndarray of int
        Bin indices in ``0 .. n_bins - 1``.

    Examples
    --------
    >>> width_bins(np.array([0.0, 0.1, 0.15, 0.9, 1.0]), 10).tolist()
    [0, 0, 1, 8, 9]
    """
    return np.searchsorted(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], r, side="left")


def _equal_mass_edges(r: np.ndarray, n_bins: int) -> np.ndarray:
    q = _mass_grid(n_bins)
    edges = np.quantile(r, q, method="median_unbiased")
    edges[-1] = r.max()
    return edges


def _repair(r_sorted: np.ndarray, counts: list[int], n_bins: int, min_size: int) -> list[int] | None:
    """Split/merge contiguous bins (given by sizes over sorted scores) to n_bins bins >= min_size."""
    sizes = [c for c in counts if c > 0]
    for _ in range(8 * n_bins + 8):
        if len(sizes) == n_bins and min(sizes) >= min_size:
            return sizes
        if len(sizes) > n_bins or (sizes and min(sizes) < min_size and len(sizes) > 1):
            i = int(np.argmin(sizes))  # merge the smallest bin into its smaller neighbour
            j = i - 1 if i == len(sizes) - 1 or (i > 0 and sizes[i - 1] <= sizes[i + 1]) else i + 1
            sizes[min(i, j)] = sizes[i] + sizes[j]
            del sizes[max(i, j)]
            continue
        # split the largest bin with >= 2 distinct values and >= 2 min_size samples
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        best = None
        for b in sorted(range(len(sizes)), key=lambda b: -sizes[b]):
            seg = r_sorted[starts[b]: starts[b] + sizes[b]]
            if sizes[b] < 2 * min_size or seg[0] == seg[-1]:
                continue
            cuts = np.nonzero(np.diff(seg))[0] + 1
            cut = int(cuts[np.argmin(np.abs(cuts - sizes[b] / 2))])
            best = (b, cut)
            break
        if best is None:
            return None
        b, cut = best
        sizes[b: b + 1] = [cut, sizes[b] - cut]
    return None


def _try_bins(y: np.ndarray, r: np.ndarray, order: np.ndarray, n_bins: int, min_size: int,
              check: bool = True) -> float | None:
    n = r.size
    edges = _equal_mass_edges(r, n_bins)
    idx = np.searchsorted(edges, r, side="left")
    idx = np.minimum(idx, n_bins - 1)
    counts = np.bincount(idx, minlength=n_bins)
    if check and (np.unique(edges).size < n_bins or counts.min() < min_size):
        r_sorted = r[order]
        sizes = _repair(r_sorted, counts.tolist(), n_bins, min_size)
        if sizes is None:
            return None
        idx = np.empty(n, dtype=int)
        idx[order] = np.repeat(np.arange(len(sizes)), sizes)
    n_b, p_b, y_b = _binned(y, r, idx, n_bins)
    if check:
        means = y_b[n_b > 0]
        if np.any(np.diff(np.concatenate([[0.0], means])) < 0):
            return None
    return _debiased(n_b, p_b, y_b, n)


def drmsce(y: object, r: object, *, min_bin_size: int = 10, return_bins: bool = False) -> float | tuple[float, int]:
    """Debiased root-mean-square calibration error with an adaptive equal-mass bin count.

    The bin count is the largest (found by interval search from ``min(10, U)``, with
    ``U = min(round(n / 10), distinct scores, 100)``) for which every bin has at least
    ``min_bin_size`` samples and the bin label means are non-decreasing.

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like in [0, 1]
        Predicted probabilities.
    min_bin_size : int
        Smallest admissible bin.
    return_bins : bool
        Also return the chosen number of bins.

    Returns
    -------
    float, or (float, int)
        NaN (with a warning) when ``0 < n < 10``.

    Raises
    ------
    DataError
        Empty input, NaN, scores outside [0, 1] or outcomes that are not 0/1.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(100_000)
    >>> round(drmsce(rng.random(r.size) < r ** 2, r), 2)   # population value sqrt(1/30) = 0.183
    0.18
    """
    _check_bins(min_bin_size, "min_bin_size")
    y, r = check_scores(y, r, what="DRMSCE")
    n = r.size
    if n < 10:
        warnings.warn(f"DRMSCE needs at least 10 samples; got {n}: returning NaN.", RuntimeWarning, stacklevel=2)
        return (float("nan"), 0) if return_bins else float("nan")
    value, c = drmsce_sorted(y, r, np.argsort(r, kind="stable"), min_bin_size)
    return (value, c) if return_bins else value


def _bin_search(try_bins: Any, n: int, distinct: int) -> tuple[float, int]:
    """The reference interval search for the bin count (see :func:`drmsce`)."""
    upper = min(round(n / 10), distinct, 100)
    c, lower, value = min(10, upper), 1, None
    while not (lower == upper == c):
        result = try_bins(c, True)
        if result is not None:
            lower, value = c, result
            c = min(2 * c, round(lower + (upper - lower) / 2))
        else:
            upper = c - 1
            c = round(lower + (upper - lower) / 2)
        c = min(upper, max(lower + 1, c))
    if c == 1 or value is None:
        c = 1
        value = try_bins(1, False)
    return float(value), int(c)


def drmsce_sorted(y: np.ndarray, r: np.ndarray, order: np.ndarray | None = None,
                  min_bin_size: int = 10) -> tuple[float, int]:
    """DRMSCE core on validated arrays; ``order`` sorts ``r`` (``None``: ``r`` is already sorted).

    Parameters
    ----------
    y : ndarray of float
        Outcomes, 0/1 (already validated).
    r : ndarray of float
        Scores in [0, 1].
    order : ndarray of int, optional
        Indices sorting ``r`` ascending (``None``: ``r`` is sorted).
    min_bin_size : int
        Smallest admissible bin.

    Returns
    -------
    value : float
        The DRMSCE (NaN below 10 rows).
    n_bins : int
        The chosen bin count (0 below 10 rows).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(200); y = (rng.random(200) < r).astype(float)
    >>> value, n_bins = drmsce_sorted(y, r, order=np.argsort(r, kind="stable"))
    >>> value == drmsce(y, r), n_bins
    (True, 6)
    """
    n = r.size
    if n < 10:
        return float("nan"), 0
    if order is None:
        order = np.arange(n)
    distinct = 1 + int(np.count_nonzero(np.diff(r[order])))
    return _bin_search(lambda c, check: _try_bins(y, r, order, c, min_bin_size, check), n, distinct)


def drmsce_weighted(ys: np.ndarray, rs: np.ndarray, w: np.ndarray, min_bin_size: int = 10) -> tuple[float, int]:
    """DRMSCE of the data with row ``i`` repeated ``w[i]`` times, ``rs`` sorted ascending.

    Equal to ``drmsce`` on ``np.repeat(ys, w), np.repeat(rs, w)`` without building that array:
    quantiles are read from cumulative counts and bin sums from prefix sums, so each bin count
    tried costs O(B log n). Bootstrap resamples are exactly such weightings. When bins need tie
    repair, the repeated array is built and the general path is used.

    Parameters
    ----------
    ys : ndarray of float
        Outcomes, 0/1, in the order of ``rs``.
    rs : ndarray of float
        Scores in [0, 1], sorted ascending.
    w : ndarray of int
        Repetitions of each row (zeros allowed).
    min_bin_size : int
        Smallest admissible bin.

    Returns
    -------
    value : float
        The DRMSCE (NaN below 10 rows in all).
    n_bins : int
        The chosen bin count.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(200); y = (rng.random(200) < r).astype(float)
    >>> order = np.argsort(r, kind="stable")
    >>> w = np.r_[np.full(100, 2), np.zeros(100, dtype=int)]  # the lower half, twice
    >>> value, n_bins = drmsce_weighted(y[order], r[order], w)
    >>> round(value, 6) == round(drmsce(np.repeat(y[order], w), np.repeat(r[order], w)), 6), n_bins
    (True, 4)
    """
    keep = w > 0
    ys, rs, w = ys[keep], rs[keep], w[keep].astype(np.int64)
    n = int(w.sum())
    if n < 10:
        return float("nan"), 0
    cw = np.concatenate([[0], np.cumsum(w)])
    cr = np.concatenate([[0.0], np.cumsum(w * rs)])
    cy = np.concatenate([[0.0], np.cumsum(w * ys)])
    distinct = 1 + int(np.count_nonzero(np.diff(rs)))

    def at(k: np.ndarray) -> np.ndarray:  # value at 0-based position k of the repeated sorted array
        return rs[np.searchsorted(cw, k, side="right") - 1]

    def try_bins(n_bins: int, check: bool) -> float | None:
        q = _mass_grid(n_bins)
        # numpy's "median_unbiased" (Hyndman-Fan 8), mirrored operation by operation so that
        # edges land on exactly the same floats (ties at an edge decide bin membership)
        alpha = beta = 1 / 3
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
        lo = np.floor(virtual)
        gamma = virtual - lo
        lo = lo.astype(np.int64)
        hi = lo + 1
        above, below = virtual >= n - 1, virtual < 0
        lo[above], hi[above] = n - 1, n - 1
        lo[below], hi[below] = 0, 0
        a, b = at(lo), at(hi)
        diff = b - a
        edges = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        edges[-1] = rs[-1]
        rows = np.searchsorted(rs, edges, side="right")  # rows with r <= edge
        rows[-1] = rs.size
        ends = cw[rows]
        counts = np.diff(np.concatenate([[0], ends]))
        if check and (np.unique(edges).size < n_bins or counts.min() < min_bin_size):
            return _try_bins(np.repeat(ys, w), np.repeat(rs, w), np.arange(n), n_bins, min_bin_size, True)
        bounds = np.concatenate([[0], rows])
        n_b = counts.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_b = np.diff(cr[bounds]) / n_b
            y_b = np.diff(cy[bounds]) / n_b
        if check and np.any(np.diff(np.concatenate([[0.0], y_b[n_b > 0]])) < 0):
            return None
        return _debiased(n_b, p_b, y_b, n)

    return _bin_search(try_bins, n, distinct)


def _paper_edges(r: np.ndarray, n_bins: int, binning: str) -> np.ndarray:
    if binning == "width":
        return np.linspace(0, 1, n_bins)
    return np.unique(np.quantile(r, np.linspace(0, 1, n_bins)))


def _plugin(y: np.ndarray, r: np.ndarray, idx: np.ndarray, k: int, p: int) -> float:
    n_b, p_b, y_b = _binned(y, r, idx, k)
    keep = n_b > 0
    gaps = np.abs(p_b[keep] - y_b[keep]) ** p
    return float(np.sum(n_b[keep] / r.size * gaps) ** (1 / p))


def _sweep_bins(y: np.ndarray, r: np.ndarray, binning: str) -> int:
    """Roelofs et al.'s sweep: the largest bin count before the label means stop being monotone."""
    n = r.size
    ranks = np.empty(n, dtype=int)
    ranks[np.argsort(r, kind="stable")] = np.arange(n)
    best = 1
    for b in range(2, n):
        idx = np.minimum(b - 1, (ranks * b) // n) if binning == "mass" else np.minimum(b - 1, (r * b).astype(int))
        n_b, _, y_b = _binned(y, r, idx, b)
        means = y_b[n_b > 0]
        if np.any(np.diff(means) < 0):
            break
        best = b
    return best


def ece(y: object, r: object, *, n_bins: int = ECE_BINS, binning: str = "width", p: int = 1,
        convention: str = "standard") -> float:
    """Plug-in calibration error ``(sum_b w_b |p_b - y_b|^p)^(1/p)``.

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like in [0, 1]
        Predicted probabilities.
    n_bins : int
        Number of bins (ignored for ``binning="sweep"``); 10 by default, as netcal.
    binning : {"width", "mass", "sweep", "mass_sweep"}
        Equal-width bins (right-closed, as :func:`reliability_curve`), equal-mass bins, or the bin
        count chosen by the monotonic sweep with
        equal-width (``"sweep"``) or equal-mass (``"mass_sweep"``) bins.
    p : {1, 2}
        1 = ECE, 2 = RMSCE.
    convention : {"standard", "paper"}
        ``"paper"`` uses the risk-score paper's edges (see the module docstring).

    Returns
    -------
    float
        The calibration error (0 = calibrated within every bin).

    Raises
    ------
    DataError
        Empty input (the error is undefined, not 0), NaN, scores outside [0, 1], outcomes not 0/1.
    ConfigError
        An unknown ``binning``, ``p`` or ``convention``, or ``n_bins`` below 1.

    Examples
    --------
    >>> round(ece([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], n_bins=2), 6)
    0.15
    """
    if binning not in ("width", "mass", "sweep", "mass_sweep"):
        raise ConfigError(f"binning must be 'width', 'mass', 'sweep' or 'mass_sweep'; got {binning!r}.")
    if p not in (1, 2) or isinstance(p, bool):
        raise ConfigError(f"p must be 1 (ECE) or 2 (RMSCE); got {p!r}.")
    if convention not in ("standard", "paper"):
        raise ConfigError(f"convention must be 'standard' or 'paper'; got {convention!r}.")
    if binning not in ("sweep", "mass_sweep"):
        n_bins = _check_bins(n_bins)
    y, r = check_scores(y, r, what="ACE" if binning == "mass" and p == 1 else "ECE" if p == 1 else "RMSCE")
    if binning in ("sweep", "mass_sweep"):
        kind = "mass" if binning == "mass_sweep" else "width"
        k = _sweep_bins(y, r, kind)
        if kind == "mass":
            ranks = np.empty(r.size, dtype=int)
            ranks[np.argsort(r, kind="stable")] = np.arange(r.size)
            idx = np.minimum(k - 1, (ranks * k) // r.size)
        else:
            idx = np.minimum(k - 1, (r * k).astype(int))
        return _plugin(y, r, idx, k, p)
    if convention == "paper":
        edges = _paper_edges(r, n_bins, binning)
        idx = np.digitize(r, edges, right=True)
        return _plugin(y, r, idx, edges.size + 1, p)
    if binning == "width":
        idx = width_bins(r, n_bins)
    else:
        ranks = np.empty(r.size, dtype=int)
        ranks[np.argsort(r, kind="stable")] = np.arange(r.size)
        idx = np.minimum(n_bins - 1, (ranks * n_bins) // r.size)
    return _plugin(y, r, idx, n_bins, p)


def ace(y: object, r: object, *, n_bins: int = 15, convention: str = "standard") -> float:
    """Adaptive calibration error: the plug-in L1 error on equal-mass bins (see the module docstring).

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like in [0, 1]
        Scores.
    n_bins : int
        Number of equal-mass bins.
    convention : {"standard", "paper"}
        ``"paper"`` uses the risk-score paper's edges.

    Returns
    -------
    float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(200); y = (rng.random(200) < r).astype(float)
    >>> round(ace(y, r, n_bins=5), 4)
    0.049
    """
    return ece(y, r, n_bins=n_bins, binning="mass", p=1, convention=convention)


def rmsce(y: object, r: object, *, n_bins: int = 15) -> float:
    """Plug-in root-mean-square calibration error on equal-mass bins (biased upward at small n).

    Parameters
    ----------
    y : array-like of {0, 1}
        Outcomes.
    r : array-like in [0, 1]
        Scores.
    n_bins : int
        Number of equal-mass bins.

    Returns
    -------
    float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(200); y = (rng.random(200) < r).astype(float)
    >>> round(rmsce(y, r, n_bins=5), 4)
    0.0546
    """
    return ece(y, r, n_bins=n_bins, binning="mass", p=2)


def reliability_curve(y_true: object, y_prob: object, *, n_bins: int = ECE_BINS, strategy: str = "uniform",
                      return_counts: bool = False) -> tuple[np.ndarray, ...]:
    """Observed rate against mean predicted probability per bin (a binned reliability diagram).

    The binning is exactly that of ``sklearn.calibration.calibration_curve``: ``"uniform"`` gives
    right-closed equal-width bins (:func:`width_bins`), ``"quantile"`` bins at the score
    percentiles; empty bins are left out.

    Parameters
    ----------
    y_true : array-like of {0, 1}
        Outcomes.
    y_prob : array-like in [0, 1]
        Predicted probabilities.
    n_bins : int
        Number of bins (scikit-learn's default is 5, fairprobe's 10, as its ECE).
    strategy : {"uniform", "quantile"}
        Equal-width or equal-mass bins.
    return_counts : bool
        Also return the number of rows in each (non-empty) bin.

    Returns
    -------
    prob_true, prob_pred : ndarray
        Outcome rate and mean score of each non-empty bin, in bin order.
    counts : ndarray of int
        Rows per bin (with ``return_counts=True``).

    Raises
    ------
    DataError
        Empty input, NaN, scores outside [0, 1], outcomes not 0/1.
    ConfigError
        ``n_bins`` below 1 or an unknown ``strategy``.

    Examples
    --------
    >>> prob_true, prob_pred = reliability_curve([0, 0, 1, 1, 1], [0.1, 0.3, 0.6, 0.9, 1.0], n_bins=2)
    >>> prob_true.tolist(), prob_pred.round(4).tolist()
    ([0.0, 1.0], [0.2, 0.8333])
    """
    n_bins = _check_bins(n_bins)
    if strategy not in ("uniform", "quantile"):
        raise ConfigError(f"strategy must be 'uniform' or 'quantile'; got {strategy!r}.")
    y, r = check_scores(y_true, y_prob, what="A reliability curve")
    if strategy == "uniform":
        idx = width_bins(r, n_bins)
    else:
        edges = np.percentile(r, np.linspace(0, 1, n_bins + 1) * 100)
        idx = np.searchsorted(edges[1:-1], r, side="left")
    total = np.bincount(idx, minlength=n_bins)
    keep = total > 0
    prob_true = np.bincount(idx, weights=y, minlength=n_bins)[keep] / total[keep]
    prob_pred = np.bincount(idx, weights=r, minlength=n_bins)[keep] / total[keep]
    return (prob_true, prob_pred, total[keep]) if return_counts else (prob_true, prob_pred)

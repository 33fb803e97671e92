"""Vectorised bootstrap of the per-group metrics.

A bootstrap resample of ``n`` rows is a vector of multinomial counts over the rows. With the
group sorted by score once, every resample is already in score order: AUROC and AUPRG follow
from per-segment (tied-score) sums of the counts, and DRMSCE reads quantiles and bin sums from
cumulative counts (:func:`drmsce_weighted`). The resampling distribution is exactly that of drawing row indices with
replacement.

:func:`bootstrap_counts` evaluates the metrics for given counts, so the audit can resample the
whole data set once and read every group's metrics (and the whole population's) off the same
resamples; :func:`bootstrap_group` draws resamples within one group.
"""

from __future__ import annotations

import numpy as np

from fairprobe.plugins.riskscore.calibration import ECE_BINS, drmsce_weighted, width_bins
from fairprobe.plugins.riskscore.discrimination import area_under_prg, prg_from_counts

__all__ = ["bootstrap_counts", "bootstrap_group", "resample_counts"]


def resample_counts(n: int, b: int, rng: np.random.Generator) -> np.ndarray:
    """``b`` bootstrap resamples of ``n`` rows as a ``(b, n)`` array of multinomial counts.

    Parameters
    ----------
    n : int
        Rows of the data.
    b : int
        Number of resamples.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    ndarray of int, shape (b, n)
        How often each row is drawn in each resample (each row sums to ``n``).

    Examples
    --------
    >>> import numpy as np
    >>> resample_counts(5, 3, np.random.default_rng(0)).sum(axis=1).tolist()
    [5, 5, 5]
    """
    draws = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)


def bootstrap_counts(ys: np.ndarray, rs: np.ndarray, counts: np.ndarray, metrics: list[str]) -> dict[str, np.ndarray]:
    """Metrics (drmsce, ece, auroc, auprg) of the resamples given by ``counts``; NaN where undefined.

    AUROC and AUPRG are undefined in a resample with a single outcome class, DRMSCE in one of
    fewer than 10 rows.

    Parameters
    ----------
    ys, rs : ndarray
        Outcomes and scores, sorted by score ascending.
    counts : ndarray of shape (b, n)
        How often each row appears in each resample (zeros allowed).
    metrics : list of str
        Any of ``"drmsce"``, ``"ece"`` (10 equal-width bins), ``"auroc"`` and ``"auprg"``.

    Returns
    -------
    dict of str to ndarray of shape (b,)
        Each metric's value in each resample.

    Examples
    --------
    >>> import numpy as np
    >>> ys, rs = np.array([0., 0., 1., 1.]), np.array([.1, .2, .8, .9])
    >>> bootstrap_counts(ys, rs, np.ones((1, 4), dtype=int), ["auroc"])["auroc"].tolist()
    [1.0]
    """
    b = counts.shape[0]
    out = {m: np.full(b, np.nan) for m in metrics}
    if b == 0 or ys.size == 0:
        return out
    W = counts.astype(float)
    if "auroc" in metrics or "auprg" in metrics:
        starts = np.r_[0, np.nonzero(np.diff(rs))[0] + 1]  # tied-score segments, ascending
        bp = np.add.reduceat(W * ys, starts, axis=1)
        bn = np.add.reduceat(W * (1 - ys), starts, axis=1)
        P, N = bp.sum(axis=1), bn.sum(axis=1)
        if "auroc" in metrics:
            below = np.cumsum(bn, axis=1) - bn
            with np.errstate(invalid="ignore", divide="ignore"):
                auc = (bp * (below + 0.5 * bn)).sum(axis=1) / (P * N)
            out["auroc"] = np.where((P > 0) & (N > 0), auc, np.nan)
        if "auprg" in metrics:
            tp = np.concatenate([np.zeros((b, 1)), np.cumsum(bp[:, ::-1], axis=1)], axis=1)
            fp = np.concatenate([np.zeros((b, 1)), np.cumsum(bn[:, ::-1], axis=1)], axis=1)
            for i in range(b):
                if P[i] > 0 and N[i] > 0:  # undefined with a single class, as AUROC
                    out["auprg"][i] = area_under_prg(*prg_from_counts(tp[i], fp[i]))
    if "ece" in metrics:
        # ECE = sum over bins of |sum of w (r - y)| / sum of w; the rows are in score order, so
        # each bin is one contiguous segment
        idx = width_bins(rs, ECE_BINS)
        starts = np.r_[0, np.nonzero(np.diff(idx))[0] + 1]
        gaps = np.add.reduceat(W * (rs - ys), starts, axis=1)
        total = W.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["ece"] = np.where(total > 0, np.abs(gaps).sum(axis=1) / total, np.nan)
    if "drmsce" in metrics:
        ints = counts.astype(np.int64)
        for i in range(b):
            out["drmsce"][i] = drmsce_weighted(ys, rs, ints[i])[0]
    return out


def bootstrap_group(y: np.ndarray, r: np.ndarray, metrics: list[str], n_boot: int, rng: np.random.Generator,
                    chunk: int = 50) -> dict[str, np.ndarray]:
    """Bootstrap values of ``metrics`` (drmsce, auroc, auprg) for one group; NaN where undefined.

    Resamples ``y.size`` rows with replacement within the group, ``chunk`` resamples at a time.

    Parameters
    ----------
    y : ndarray of float
        Outcomes of the group, 0/1.
    r : ndarray of float
        Scores of the group.
    metrics : list of str
        Any of ``"drmsce"``, ``"auroc"`` and ``"auprg"``.
    n_boot : int
        Number of resamples.
    rng : numpy.random.Generator
        Source of the resamples.
    chunk : int
        Resamples drawn at a time (bounds memory).

    Returns
    -------
    dict of str to ndarray of shape (n_boot,)
        Each metric's value in each resample.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(200); y = (rng.random(200) < r).astype(float)
    >>> bootstrap_group(y, r, ["auroc"], 5, rng)["auroc"].shape
    (5,)
    """
    order = np.argsort(r, kind="stable")
    ys, rs = y[order], r[order]
    out = {m: np.full(n_boot, np.nan) for m in metrics}
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        part = bootstrap_counts(ys, rs, resample_counts(ys.size, b, rng), metrics)
        for m in metrics:
            out[m][done: done + b] = part[m]
        done += b
    return out

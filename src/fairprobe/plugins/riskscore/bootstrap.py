"""Vectorised bootstrap of the per-group metrics.

A bootstrap resample of ``n`` rows is a vector of multinomial counts over the rows. With the
group sorted by score once, every resample is already in score order: AUROC and AUPRG follow
from per-segment (tied-score) sums of the counts, and DRMSCE reads quantiles and bin sums from
cumulative counts (:func:`drmsce_weighted`). The resampling distribution is exactly that of drawing row indices with
replacement.
"""

from __future__ import annotations

import numpy as np

from fairprobe.plugins.riskscore.calibration import drmsce_weighted
from fairprobe.plugins.riskscore.discrimination import area_under_prg, prg_from_counts

__all__ = ["bootstrap_group"]


def _counts(n: int, b: int, rng: np.random.Generator) -> np.ndarray:
    draws = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)


def bootstrap_group(y: np.ndarray, r: np.ndarray, metrics: list[str], n_boot: int, rng: np.random.Generator,
                    chunk: int = 50) -> dict[str, np.ndarray]:
    """Bootstrap values of ``metrics`` (drmsce, auroc, auprg) for one group; NaN where undefined."""
    order = np.argsort(r, kind="stable")
    ys, rs = y[order], r[order]
    n = ys.size
    starts = np.r_[0, np.nonzero(np.diff(rs))[0] + 1]  # tied-score segments, ascending
    out = {m: np.full(n_boot, np.nan) for m in metrics}
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        W = _counts(n, b, rng).astype(float)
        if "auroc" in metrics or "auprg" in metrics:
            bp = np.add.reduceat(W * ys, starts, axis=1)
            bn = np.add.reduceat(W * (1 - ys), starts, axis=1)
            P, N = bp.sum(axis=1), bn.sum(axis=1)
            if "auroc" in metrics:
                below = np.cumsum(bn, axis=1) - bn
                with np.errstate(invalid="ignore", divide="ignore"):
                    auc = (bp * (below + 0.5 * bn)).sum(axis=1) / (P * N)
                out["auroc"][done: done + b] = np.where((P > 0) & (N > 0), auc, np.nan)
            if "auprg" in metrics:
                tp = np.concatenate([np.zeros((b, 1)), np.cumsum(bp[:, ::-1], axis=1)], axis=1)
                fp = np.concatenate([np.zeros((b, 1)), np.cumsum(bn[:, ::-1], axis=1)], axis=1)
                for i in range(b):
                    if P[i] > 0:
                        out["auprg"][done + i] = area_under_prg(*prg_from_counts(tp[i], fp[i]))
        if "drmsce" in metrics:
            counts = W.astype(np.int64)
            for i in range(b):
                out["drmsce"][done + i] = drmsce_weighted(ys, rs, counts[i])[0]
        done += b
    return out

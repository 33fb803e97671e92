"""The resampling of the risk-score audit: per-group metrics on bootstrap resamples and permutations.

:class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit` fits and reports; this module holds
the work it hands to processes (:func:`bootstrap_chunk`, :func:`permutation_chunk`), the
Westfall-Young adjustment of the permutation p-values, the percentile intervals with undefined
resamples beyond both ends, and the notes that say why a value or an interval is undefined.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from fairprobe.exceptions import DataError
from fairprobe.plugins.riskscore.bootstrap import bootstrap_counts, resample_counts
from fairprobe.plugins.riskscore.calibration import ECE_BINS, drmsce, ece, width_bins
from fairprobe.plugins.riskscore.discrimination import auprg, auroc, calibration_intercept_slope
from fairprobe.plugins.riskscore.representation import EURKernel

__all__ = ["CALIBRATION_METRICS", "CHUNK", "GROUP_METRICS", "KNOWN_METRICS", "NEEDS_BOTH", "OPTIONAL_METRICS",
           "PERMUTED", "RESAMPLE_WHY", "VECTORISED", "bootstrap_chunk", "eur_setup", "eur_values",
           "percentile_interval", "permutation_chunk", "point_reason", "quiet_metric", "resample_note",
           "westfall_young"]

#: Each group metric as ``fn(y, r)`` (EUR is computed for all groups at once: :func:`eur_values`).
GROUP_METRICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "drmsce": drmsce, "ece": ece, "auroc": auroc, "auprg": auprg,
    "calibration_intercept": lambda y, r: calibration_intercept_slope(y, r)[0],
    "calibration_slope": lambda y, r: calibration_intercept_slope(y, r)[1],
}
#: Metrics the vectorised bootstrap evaluates from resample counts.
VECTORISED = ("drmsce", "ece", "auroc", "auprg")
KNOWN_METRICS = ("drmsce", "ece", "auroc", "auprg", "eur")
OPTIONAL_METRICS = ("calibration_intercept", "calibration_slope")
#: Metrics whose value depends on the group's size even when groups do not differ (EUR(all) is 1
#: by definition and noise pulls a group's EUR down; the plug-in ECE grows as groups shrink): a
#: group is compared with random groups of its size (permutation test), not with all.
PERMUTED = ("ece", "eur")
#: Metrics that need probabilities (scores in [0, 1]); NaN otherwise.
CALIBRATION_METRICS = ("drmsce", "ece", "calibration_intercept", "calibration_slope")
#: Metrics that need both outcome classes in the group (and in a resample of it).
NEEDS_BOTH = ("auroc", "auprg", "calibration_intercept", "calibration_slope")
#: Why a metric is undefined in a resample of a group.
RESAMPLE_WHY = {**dict.fromkeys(NEEDS_BOTH, "the group's resample had a single outcome class"),
                 "drmsce": "fewer than 10 of the group's rows drawn", "ece": "none of the group's rows drawn",
                 "eur": "none of the group's positives drawn"}
#: Resamples per bootstrap task (the unit of parallel work and of the progress bar).
CHUNK = 25

def quiet_metric(fn: Callable[[np.ndarray, np.ndarray], float], y: np.ndarray, r: np.ndarray,
           why: dict[str, str] | None = None, key: str = "") -> float:
    """``fn(y, r)``, NaN where it is undefined; the reason of a failure goes to ``why[key]``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return float(fn(y, r))
        except (ValueError, DataError, ArithmeticError) as exc:
            if why is not None:
                why[key] = f"{type(exc).__name__}: {exc}"
            return float("nan")


def eur_setup(r: np.ndarray, groups: dict[str, np.ndarray]) -> tuple[Any, np.ndarray, int]:
    """Group membership (sparse, groups x rows) and each row's threshold (the index of its score)."""
    from scipy import sparse

    rows = np.concatenate([np.full(idx.size, i) for i, idx in enumerate(groups.values())])
    cols = np.concatenate(list(groups.values()))
    member = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(len(groups), r.size))
    taus, level = np.unique(r, return_inverse=True)
    return member, level.ravel(), int(taus.size)


def eur_values(member: Any, y: np.ndarray, level: np.ndarray, n_levels: int, weights: np.ndarray) -> np.ndarray:
    """EUR (paper formula) of every group for rows weighted by ``weights``; NaN without the group's positives.

    Every row's score is a threshold, counted once per (drawn) row: tied scores weigh by their
    share of the rows, exactly as :func:`expected_underrepresentation`. The target
    ``p(G | Y = 1)`` is read off the same weighted rows, so a resample re-estimates it too.
    """
    from scipy import sparse

    n = level.size
    at = sparse.csr_matrix((weights, (np.arange(n), level)), shape=(n, n_levels))
    counts = np.asarray((member @ at).todense())  # groups x thresholds: members at each score
    above = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # members with a score >= the threshold
    rows_at = np.bincount(level, weights=weights, minlength=n_levels)
    flagged = np.cumsum(rows_at[::-1])[::-1]
    positives = weights * y
    target = np.asarray(member @ positives).ravel() / max(positives.sum(), 1e-300)
    with np.errstate(invalid="ignore", divide="ignore"):
        capped = np.minimum((above / np.maximum(flagged, 1e-300)) / target[:, None], 1.0)
        capped[:, rows_at == 0] = 0.0  # thresholds no row was drawn at carry no weight
        values = capped @ rows_at / rows_at.sum()
    return np.where(target > 0, values, np.nan)


def bootstrap_chunk(y: np.ndarray, r: np.ndarray, groups: dict[str, np.ndarray], metrics: list[str], b: int,
                seed: np.random.SeedSequence) -> dict[str, dict[str, np.ndarray]]:
    """``b`` resamples of the whole data set and every group's metrics on each of them."""
    rng = np.random.default_rng(seed)
    W = resample_counts(y.size, b, rng)
    fast = [m for m in metrics if m in VECTORISED]
    slow = [m for m in metrics if m in GROUP_METRICS and m not in VECTORISED]
    out: dict[str, dict[str, np.ndarray]] = {}
    for g, idx in groups.items():  # idx sorted by score: bootstrap_counts needs score order
        Wg = W[:, idx]
        res = bootstrap_counts(y[idx], r[idx], Wg, fast) if fast else {}
        for m in slow:  # calibration intercept/slope: refit per resample
            res[m] = np.array([quiet_metric(GROUP_METRICS[m], np.repeat(y[idx], Wg[i]), np.repeat(r[idx], Wg[i]))
                               for i in range(b)])
        out[g] = res
    if "eur" in metrics:
        member, level, n_levels = eur_setup(r, groups)
        values = np.array([eur_values(member, y, level, n_levels, W[i].astype(float)) for i in range(b)])
        for j, g in enumerate(groups):
            out[g]["eur"] = values[:, j]
    return out


def permutation_chunk(y: np.ndarray, r: np.ndarray, groups: dict[str, np.ndarray], metrics: list[str], b: int,
                      seed: np.random.SeedSequence) -> dict[str, np.ndarray]:
    """``metrics`` (of :data:`PERMUTED`) of every group after ``b`` random relabellings of the rows.

    One permutation sends every row to a random position of the score order, jointly for all
    groups: each permuted group is a random group of the same size (the null of
    :func:`eur_permutation_test`), and the groups keep their overlaps, which the Westfall-Young
    adjustment needs.
    """
    rng = np.random.default_rng(seed)
    kernel = EURKernel(r, y)
    order = kernel.order
    bins, gap = width_bins(r[order], ECE_BINS), (r - y)[order]  # ECE: bin and r - y per position
    member = np.zeros((len(groups), r.size), dtype=bool)
    for j, idx in enumerate(groups.values()):
        member[j, idx] = True
    out = {m: np.full((b, len(groups)), np.nan) for m in metrics}
    tested = [j for j, g in enumerate(groups) if g != "all"]  # everyone: nothing to test
    for i in range(b):
        row_at = rng.permutation(r.size)  # the row sent to each position of the score order
        for j in tested:
            # a gather and a scan (O(n)) give the sorted positions faster than sorting them
            pos = np.flatnonzero(member[j, row_at])
            if "eur" in out:
                out["eur"][i, j] = kernel.eur(pos, ascending=True)
            if "ece" in out:
                out["ece"][i, j] = np.abs(np.bincount(bins[pos], weights=gap[pos], minlength=ECE_BINS)).sum() / pos.size
    return out


def westfall_young(null: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided permutation p-values of several statistics and their Westfall-Young adjustment.

    The data's vector and the ``B`` permuted ones are exchangeable under the null, so all
    ``B + 1`` get their p-values against the same ``B + 1`` values, and a group's adjusted
    p-value is the share of the ``B + 1`` vectors whose smallest p-value is at most its own
    (single-step min-p). Ties count against the data, so the familywise error is at most alpha
    at any ``B``, and the groups' dependence (overlaps, complements) is used, not bounded.

    Parameters
    ----------
    null : ndarray of shape (B, k)
        The statistics under ``B`` joint permutations; NaN where undefined.
    observed : ndarray of shape (k,)
        The statistics on the data.

    Returns
    -------
    p_value, p_adjusted : ndarray of shape (k,)
        NaN where the observed statistic or every permuted one is undefined.

    Examples
    --------
    >>> null = np.random.default_rng(0).standard_normal((999, 2))
    >>> p, adj = westfall_young(null, np.array([5.0, 0.0]))
    >>> float(p[0]), float(adj[0]), bool(adj[1] > 0.5)
    (0.002, 0.004, True)
    """
    values = np.vstack([observed[None, :], null])  # row 0: the data
    finite = np.isfinite(values)
    p_all = np.ones_like(values)
    for k in range(values.shape[1]):
        ok = values[finite[:, k], k]
        if not ok.size:
            continue
        ranked = np.sort(ok)
        tol = 1e-12 * np.maximum(1.0, np.abs(ok))  # equal up to rounding counts as a tie
        le = np.searchsorted(ranked, ok + tol, side="right") / ok.size
        ge = (ok.size - np.searchsorted(ranked, ok - tol, side="left")) / ok.size
        p_all[finite[:, k], k] = np.minimum(1.0, 2 * np.minimum(le, ge))
    defined = finite[0] & (finite[1:].sum(axis=0) > 0)
    p_value = np.where(defined, p_all[0], np.nan)
    smallest = np.sort(p_all.min(axis=1))
    at_most = np.searchsorted(smallest, np.where(defined, p_all[0], 2.0) + 1e-12, side="right")
    p_adjusted = np.where(defined, np.minimum(1.0, at_most / values.shape[0]), np.nan)
    return p_value, np.maximum(p_adjusted, p_value)


def _order_stat(v: np.ndarray, q: float) -> float:
    """The ``q`` quantile of sorted ``v`` (linear interpolation, as numpy's default); NaN if it touches +-inf."""
    h = (v.size - 1) * q
    i = min(int(np.floor(h)), v.size - 1)
    f = h - i
    lo = v[i]
    if f <= 0 or i + 1 >= v.size:
        return float(lo) if np.isfinite(lo) else np.nan
    hi = v[i + 1]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return np.nan
    return float(lo + f * (hi - lo))


def percentile_interval(values: np.ndarray, ci: float) -> tuple[float, float, float, int]:
    """Median, percentile interval and number of undefined (NaN) resamples.

    Undefined resamples lie beyond both ends: below the lower end, above the upper end. Without
    them this is the ordinary percentile interval (numpy's linear quantiles); with them it widens,
    and it is undefined (NaN, as is the median) once a tail reaches into them.
    """
    ok = np.sort(values[np.isfinite(values)])
    undefined = int(values.size - ok.size)
    if not ok.size:
        return np.nan, np.nan, np.nan, undefined
    tail = (1 - ci) / 2
    lower = _order_stat(np.r_[np.full(undefined, -np.inf), ok], tail)
    upper = _order_stat(np.r_[ok, np.full(undefined, np.inf)], 1 - tail)
    if not (np.isfinite(lower) and np.isfinite(upper)):
        return np.nan, np.nan, np.nan, undefined
    return float(np.median(ok)), lower, upper, undefined


def point_reason(metric: str, n: int, n_pos: int, bounded: bool, failure: str = "") -> str:
    """Why ``metric`` is undefined on a group of ``n`` rows with ``n_pos`` positives."""
    rows = f"{n} row{'s' if n != 1 else ''}"
    if metric in CALIBRATION_METRICS and not bounded:
        return f"undefined, the scores are not probabilities and {metric} needs scores in [0, 1]"
    if metric in NEEDS_BOTH and n_pos in (0, n):
        return f"undefined, {rows} and every outcome is {int(n_pos > 0)}: {metric} needs both outcomes"
    if metric == "eur" and n_pos == 0:
        return f"undefined, {rows} and no positive outcomes: eur divides by p(G | Y = 1) = 0"
    if metric == "drmsce" and n < 10:
        return f"undefined, fewer than 10 rows ({n}): drmsce needs at least 10"
    if failure:
        return f"undefined, {metric} failed on the group's {rows} ({failure})"
    return f"undefined, {metric} could not be computed on the group's {rows}"


def resample_note(metric: str, undefined: int, b: int, ci: float, defined: bool) -> str:
    """The note on undefined resamples ("" without any)."""
    if not undefined:
        return ""
    what = f"{undefined} of {b} resamples undefined ({RESAMPLE_WHY.get(metric, 'the metric was NaN')})"
    if defined:
        return f"{what}; counted beyond both ends of the interval"
    return f"no {ci * 100:g}% interval, {what}"

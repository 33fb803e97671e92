"""Sampling uncertainty of causal bounds: intervals certified against the solver *and* the sample.

A bound is a function of the population cell probabilities ``p``; an audit only has their estimate
from ``n`` units. Three constructions cover the metric's true value (when the bias is at most ``D``)
with probability at least the level:

``"bootstrap"`` (default)
    Units resampled (within the levels of ``stratify=`` when the design fixes its counts), both ends
    re-solved per resample, the standard errors combined by Imbens & Manski (2004) with Stoye's (2009)
    correction for short identified sets (Andrews & Soares's ``sqrt(ln n)`` threshold).
``"bayes"``
    Dirichlet(counts + ``prior``) draws, the same critical value on the posterior quantiles: a credible interval.
``"projection"``
    Finite-sample valid: the bound over every table in simultaneous Clopper-Pearson boxes for the cells
    (Bonferroni), solved as one certified program. Conservative.

A maximum of absolute gaps is not differentiable at ties, at 0 and where clipped, so the bootstrap of
the value is inconsistent there: both draw methods build a sup-t band over its smooth pieces
(:func:`bound_pieces`) and take the maximum of the band's ends. Every interval contains the bias-only
interval. Draws come from ``seed`` in the calling process and are solved on joblib workers (``n_jobs``),
so the interval does not depend on the number of workers. Notes, caveats and the coverage study:
``docs/causal.md`` ("Sampling uncertainty").
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairprobe.core.rebind import Resampler
from fairprobe.core.results import SamplingInterval
from fairprobe.exceptions import ConfigError, FairprobeError, InfeasibleError, UndefinedMetricError

if TYPE_CHECKING:
    from fairprobe.core.engine import BoundProblem
    from fairprobe.core.results import BoundResult
    from fairprobe.core.table import ObservedTable

__all__ = ["METHODS", "BoundPieces", "IntervalOptions", "band_critical_value", "bound_pieces", "critical_value",
           "interval_options", "projection_region", "resampled_probabilities", "sampling_interval"]

#: The interval constructions, by ``method=`` name.
METHODS = ("bootstrap", "projection", "bayes")
#: Fewest resamples accepted (the standard errors of fewer are themselves too noisy).
MIN_RESAMPLES = 20
#: Most resamples accepted (each is a solve; beyond this the draws alone fill the memory).
MAX_RESAMPLES = 100_000
#: Lowest coverage level accepted (below it the interval covers the metric less often than it misses it).
MIN_LEVEL = 0.5
#: Share of resamples that may leave the metric undefined before the interval is refused.
MAX_FAILED_SHARE = 0.05


@dataclass(frozen=True)
class IntervalOptions:
    """How a sampling interval is computed (validated on construction).

    Parameters
    ----------
    level : float
        Coverage probability, from 0.5 up to (not including) 1 (default 0.95).
    method : {"bootstrap", "projection", "bayes"}
        The construction (see the module notes).
    resamples : int
        Resamples (bootstrap) or posterior draws (bayes); 20 to 100,000 (default 1,000).
    seed : int
        Seed of the resampling; the interval is a function of it. Numpy scalars are taken as the
        Python numbers they hold.
    stratify : str or None
        A table node whose counts the design fixes (e.g. ``"A"`` when groups were sampled to
        fixed sizes): units are resampled within its levels.
    prior : float
        Dirichlet prior count per cell for ``"bayes"`` (default 0.5, Jeffreys).

    Examples
    --------
    >>> IntervalOptions(level=0.9, resamples=200).method
    'bootstrap'
    >>> IntervalOptions(method="jackknife")
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: ci_method='jackknife' is not a method; use one of bootstrap, projection, bayes.
    """

    level: float = 0.95
    method: str = "bootstrap"
    resamples: int = 1000
    seed: int = 0
    stratify: str | None = None
    prior: float = 0.5

    def __post_init__(self) -> None:
        def plain(value: Any) -> Any:
            # numpy scalars become Python numbers, so the options and every result built from them go to JSON
            # as they are; a float32 keeps the decimal it was written as (np.float32(0.9) is 0.9)
            if isinstance(value, np.bool_):
                return bool(value)
            if isinstance(value, np.integer):
                return int(value)
            if isinstance(value, np.floating):
                return float(str(value)) if value.dtype.itemsize < 8 else float(value)
            return value

        for name in ("level", "resamples", "seed", "prior"):
            object.__setattr__(self, name, plain(getattr(self, name)))
        if isinstance(self.level, bool) or not isinstance(self.level, (int, float)) or not 0 < self.level < 1:
            raise ConfigError(f"ci={self.level!r} must be a coverage level strictly between 0 and 1, e.g. ci=0.95.")
        if self.level < MIN_LEVEL:
            raise ConfigError(f"ci={self.level!r} is below {MIN_LEVEL:g}: an interval that misses the metric more "
                              f"often than it covers it is no audit finding; give a level from {MIN_LEVEL:g} up to "
                              "(not including) 1, e.g. ci=0.95 (command line: --ci 0.95).")
        if self.method not in METHODS:
            raise ConfigError(f"ci_method={self.method!r} is not a method; use one of {', '.join(METHODS)}.")
        if isinstance(self.resamples, bool) or not isinstance(self.resamples, int) \
                or self.resamples < MIN_RESAMPLES:
            raise ConfigError(f"resamples={self.resamples!r} must be a whole number >= {MIN_RESAMPLES} "
                              "(1,000 is the default; 200 gives a quick look).")
        if self.resamples > MAX_RESAMPLES:
            raise ConfigError(f"resamples={self.resamples!r} is too many: at most {MAX_RESAMPLES:,} (each is a solve "
                              "of the bound; 1,000 is the default, 10,000 gives steady tails).")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed={self.seed!r} must be a whole number >= 0.")
        if not isinstance(self.prior, (int, float)) or isinstance(self.prior, bool) or not self.prior > 0:
            raise ConfigError(f"prior={self.prior!r} must be a positive Dirichlet count per cell (0.5: Jeffreys).")
        if self.stratify is not None and self.method == "projection":
            raise ConfigError("stratify= applies to the bootstrap and bayes methods; the projection region is over "
                              "the whole table's cells (drop stratify, or use ci_method='bootstrap').")


def interval_options(ci: Any, *, ci_method: str = "bootstrap", resamples: int = 1000, seed: int = 0,
                     stratify: str | None = None) -> IntervalOptions | None:
    """The interval options of a driver's keywords (``ci=None`` or ``False``: no interval).

    Parameters
    ----------
    ci : float, bool or None
        Coverage level (``True`` means 0.95); None or False for no interval.
    ci_method, resamples, seed, stratify :
        As for :class:`IntervalOptions`.

    Returns
    -------
    IntervalOptions or None

    Examples
    --------
    >>> interval_options(None) is None, interval_options(True).level
    (True, 0.95)
    """
    if isinstance(ci, np.bool_):
        ci = bool(ci)
    if ci is None or ci is False:
        ignored = [f"{name}={value!r}" for name, value, default in
                   (("ci_method", ci_method, "bootstrap"), ("resamples", resamples, 1000), ("stratify", stratify, None),
                    ("seed", seed, 0))
                   if value != default]
        if ignored:
            raise ConfigError(f"{', '.join(ignored)} only apply to a sampling interval, and none was asked for: add "
                              "ci=0.95 (command line: --ci 0.95), or drop them.")
        return None
    level = 0.95 if ci is True else ci
    return IntervalOptions(level=level, method=ci_method, resamples=resamples, seed=seed, stratify=stratify)


# -- draws --------------------------------------------------------------------------------------
def _strata(table: ObservedTable, node: str | None) -> list[np.ndarray]:
    """Row indices of each level of ``node`` (one stratum of every row when None)."""
    if node is None:
        return [np.arange(len(table.cells))]
    if node not in table.nodes:
        raise ConfigError(f"stratify={node!r} is not a node of the table {table.nodes}: name the node a column was "
                          "mapped to (e.g. stratify='A' when the groups' column was read as A), not the source column.")
    codes = table.cells[node].to_numpy()
    return [np.flatnonzero(codes == v) for v in np.unique(codes)]


def resampled_probabilities(table: ObservedTable, options: IntervalOptions) -> np.ndarray:
    """Cell probabilities of every resample (bootstrap) or posterior draw (bayes), one row each.

    Parameters
    ----------
    table : ObservedTable
        A table with a sample size (counts).
    options : IntervalOptions
        Method, number of draws, seed and strata.

    Returns
    -------
    numpy.ndarray, shape (resamples, cells)
        Rows sum to 1; a stratum keeps its observed share.

    Raises
    ------
    DataError
        The table has no sample size.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.table import ObservedTable
    >>> t = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "n": [5, 5, 40, 50]}))
    >>> draws = resampled_probabilities(t, IntervalOptions(resamples=50, stratify="A"))
    >>> draws.shape, bool(np.allclose(draws[:, :2].sum(axis=1), 0.1))
    ((50, 4), True)
    """
    counts = table.counts()
    n = int(counts.sum())
    rng = np.random.default_rng(options.seed)
    out = np.zeros((options.resamples, len(counts)))
    for rows in _strata(table, options.stratify):
        stratum = counts[rows]
        size = int(stratum.sum())
        if size == 0:
            continue
        if options.method == "bayes":
            # the cells the table lists are the support; the prior spreads mass over each of them
            share = rng.dirichlet(stratum + options.prior, size=options.resamples)
            out[:, rows] = share * (size / n)
        else:
            out[:, rows] = rng.multinomial(size, stratum / size, size=options.resamples) / n
    return out


def projection_region(table: ObservedTable, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous Clopper-Pearson boxes for the cell probabilities (Bonferroni over the cells; any ``n``).

    Parameters
    ----------
    table : ObservedTable
        A table with counts.
    level : float
        Joint coverage of the boxes.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper bounds per cell, aligned with ``table.cells``.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.table import ObservedTable
    >>> t = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [10, 90]}))
    >>> lo, hi = projection_region(t, 0.95)
    >>> [round(float(x), 4) for x in lo], [round(float(x), 4) for x in hi]
    ([0.0438, 0.8122], [0.1878, 0.9562])
    """
    from scipy.stats import beta

    counts = table.counts()
    n = int(counts.sum())
    alpha = (1.0 - level) / len(counts)
    lo = np.where(counts > 0, beta.ppf(alpha / 2, np.maximum(counts, 1), n - counts + 1), 0.0)
    hi = np.where(counts < n, beta.ppf(1 - alpha / 2, counts + 1, np.maximum(n - counts, 1)), 1.0)
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def _row(result: BoundResult) -> np.ndarray:
    """A bound's values as one row: ``(lower, upper)``, then its pieces (:func:`bound_pieces`) if any."""
    pieces = bound_pieces(result)
    if pieces is None:
        return np.array([result.lower, result.upper], dtype=float)
    return np.concatenate([[result.lower, result.upper], pieces.lower, pieces.upper, [pieces.joint]])


def _endpoints(resampler: Resampler, params: Mapping[str, float], draws: np.ndarray,
               solve_kwargs: Mapping[str, Any], width: int = 2) -> np.ndarray:
    """The bound's row (:func:`_row`) on each drawn table; NaN where the metric is undefined there."""
    out = np.full((len(draws), width), np.nan)
    table = resampler.table
    for i, probs in enumerate(draws):
        try:
            moved = resampler.at(table.with_probabilities(probs), fixed=params)
            outcome = moved.solve_point(params, **solve_kwargs)
        except (UndefinedMetricError, InfeasibleError):
            continue  # e.g. a resample without any negative of a group: no FPR to bound
        if outcome.result is not None:
            row = _row(outcome.result)
            if len(row) == width:  # (a resample whose bound has other pieces cannot be read as this one's)
                out[i] = row
    return out


def _solve_draws(resampler: Resampler, params: Mapping[str, float], draws: np.ndarray,
                 solve_kwargs: Mapping[str, Any], n_jobs: int | None, progress: bool, label: str,
                 width: int = 2) -> np.ndarray:
    from fairprobe.core.progress import progress_bar
    from fairprobe.core.workers import distributed_backend_active, effective_jobs

    workers = 1 if n_jobs in (None, 1) else n_jobs
    if workers != 1 and not distributed_backend_active():  # local processes: no more than draws or cores
        workers = n_jobs = effective_jobs(n_jobs, len(draws))
    if workers != 1 and len(draws):
        # check once here which programs move between tables (core.rebind), so each chunk sent to a worker
        # carries the resampler's checked rebinders instead of redoing them
        with contextlib.suppress(FairprobeError):
            resampler.at(resampler.table.with_probabilities(draws[0]), fixed=params)
    size = max(1, min(50, math.ceil(len(draws) / (8 * (abs(workers) if workers > 0 else 2)))))
    chunks = [draws[i:i + size] for i in range(0, len(draws), size)]
    bar = progress_bar(total=len(draws), desc=label, disable=not progress, leave=False)
    parts = []
    try:
        if workers == 1:
            for chunk in chunks:
                parts.append(_endpoints(resampler, params, chunk, solve_kwargs, width))
                bar.update(len(chunk))
        else:
            from joblib import Parallel, delayed

            # no backend named here: a joblib.parallel_config(backend="dask") block around the call applies
            gen = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_endpoints)(resampler, params, chunk, solve_kwargs, width) for chunk in chunks)
            for chunk, part in zip(chunks, gen, strict=True):
                parts.append(part)
                bar.update(len(chunk))
    finally:
        bar.close()
    return np.concatenate(parts) if parts else np.empty((0, width))


# -- combination --------------------------------------------------------------------------------
def critical_value(length: float, sigma: float, level: float, n: int) -> float:
    """Imbens-Manski critical value ``c``: ``Phi(c + L / sigma) - Phi(-c) = level``, ``L`` 0 below ``sqrt(ln n)`` s.e.

    Parameters
    ----------
    length : float
        Estimated length of the identified set (``upper - lower``).
    sigma : float
        The larger standard error of the two endpoints.
    level : float
        Coverage level.
    n : int
        Number of units (sets the threshold).

    Returns
    -------
    float

    Examples
    --------
    >>> round(critical_value(0.0, 0.01, 0.95, 1000), 3), round(critical_value(1.0, 0.01, 0.95, 1000), 3)
    (1.96, 1.645)
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    if not MIN_LEVEL <= level < 1:
        # Phi(c + r) - Phi(-c) = level has a root c >= 0 for every r only from 0.5 on (its value at c = 0 is
        # Phi(r) - 1/2, up to 1/2)
        raise ConfigError(f"level={level!r} is below {MIN_LEVEL:g} or not below 1: the critical value is for a "
                          f"coverage level from {MIN_LEVEL:g} up to (not including) 1, e.g. 0.95.")
    if not sigma > 0:
        return float(norm.ppf(0.5 + level / 2))
    ratio = length / sigma
    if ratio < math.sqrt(math.log(max(n, 3))):
        ratio = 0.0  # Stoye (2009): a set this short cannot be told from a point
    return float(brentq(lambda c: norm.cdf(c + ratio) - norm.cdf(-c) - level, 0.0, 10.0, xtol=1e-12))


def _clip(value: float, low: float, high: float) -> float:
    return float(min(max(value, low), high))


def _from_draws(population: BoundResult, draws: np.ndarray, options: IntervalOptions, n: int,
                natural: tuple[float, float]) -> dict[str, Any]:
    from scipy.stats import norm

    ok = np.all(np.isfinite(draws), axis=1)
    failed = int((~ok).sum())
    good = draws[ok]
    if len(good) < MIN_RESAMPLES or failed > MAX_FAILED_SHARE * len(draws):
        unit = "resamples" if options.method == "bootstrap" else "draws"
        raise UndefinedMetricError(
            f"The metric is undefined in {failed} of {len(draws)} {unit} "
            "(a group without the units a rate conditions on): the sample is too small to measure it, so no "
            "sampling interval is given. Pool small groups, or report the group without a claim.")
    lo_hat, hi_hat = population.lower, population.upper
    se_lo, se_hi = float(np.std(good[:, 0], ddof=1)), float(np.std(good[:, 1], ddof=1))
    c = critical_value(max(hi_hat - lo_hat, 0.0), max(se_lo, se_hi), options.level, n)
    z = float(norm.ppf(0.5 + options.level / 2))
    low, high = natural
    pieces = bound_pieces(population)
    extra: dict[str, int] = {}
    if pieces is not None:
        # a max of absolute gaps: a simultaneous band over its smooth pieces, then the max (monotone), so the
        # interval holds at ties, zeros and corners too; each end one-sided at the Imbens-Manski level
        sigma = max(se_lo, se_hi)
        length = max(hi_hat - lo_hat, 0.0) / sigma if sigma > 0 else math.inf
        shift = 0.0 if length < selection_threshold(n) else length  # Stoye: a short set is read as a point
        lower, upper, c, extra["band_pieces"] = _pieces_interval(pieces, good, options.level, shift, n)
        set_lower, set_upper, _, _ = _pieces_interval(pieces, good, options.level, 0.0, n)
    elif options.method == "bootstrap":
        lower, upper = lo_hat - c * se_lo, hi_hat + c * se_hi
        set_lower, set_upper = lo_hat - z * se_lo, hi_hat + z * se_hi
    else:  # posterior quantiles at the same levels
        lower = float(np.quantile(good[:, 0], norm.cdf(-c)))
        upper = float(np.quantile(good[:, 1], norm.cdf(c)))
        set_lower = float(np.quantile(good[:, 0], (1 - options.level) / 2))
        set_upper = float(np.quantile(good[:, 1], 1 - (1 - options.level) / 2))
    # the interval for the metric contains the bias-only interval by construction (a draw's quantile may not)
    return {"lower": _clip(min(lower, lo_hat), low, high), "upper": _clip(max(upper, hi_hat), low, high),
            "set_lower": _clip(min(set_lower, lo_hat), low, high),
            "set_upper": _clip(max(set_upper, hi_hat), low, high),
            "se_lower": se_lo, "se_upper": se_hi, "critical_value": c, "failed": failed, **extra}


# -- kinks: a band over the bound's smooth pieces ------------------------------------------------
@dataclass(frozen=True)
class BoundPieces:
    """The smooth components whose maximum is each end of a bound (an absolute gap, a max over pairs or families).

    The lower end is at least ``max(floor, max(lower))`` and at least ``joint`` (the sharp joint program's
    value); the upper end is ``max(floor, max(upper))``.
    """

    lower: np.ndarray
    upper: np.ndarray
    joint: float
    floor: float


def bound_pieces(result: BoundResult) -> BoundPieces | None:
    """The pieces a bound recorded in its details (None for a bound without kinks: a rate or a signed gap).

    Parameters
    ----------
    result : BoundResult

    Returns
    -------
    BoundPieces or None
    """
    pieces = result.details.get("pieces") if isinstance(result.details, dict) else None
    if not pieces:
        return None
    return BoundPieces(lower=np.asarray(pieces["lower"], dtype=float), upper=np.asarray(pieces["upper"], dtype=float),
                       joint=float(pieces["joint"]), floor=float(pieces["floor"]))


def selection_threshold(n: int) -> float:
    """Andrews & Soares's (2010) ``kappa_n = sqrt(ln n)``: a piece more than this many standard errors
    below the largest cannot be the active one, and is left out of the critical value."""
    return math.sqrt(math.log(max(n, 3)))


def band_critical_value(lower_dev: np.ndarray, upper_dev: np.ndarray, level: float, shift: float = 0.0) -> float:
    """Critical value of a simultaneous (sup-t) band over a bound's pieces, both ends at once.

    The band ``x_hat -/+ c * se`` holds where ``P(lower_dev <= c and upper_dev <= c + shift)`` and its
    mirror image both reach ``level`` (Montiel Olea & Plagborg-Moller 2019; ``shift`` as Imbens & Manski 2004).

    Parameters
    ----------
    lower_dev, upper_dev : numpy.ndarray, shape (draws,)
        Draws of the largest standardised error among an end's pieces, in the direction that end guards
        (``(x* - x_hat) / se`` for the lower); ``-inf`` where an end has no random piece.
    level : float
        Coverage of the band.
    shift : float
        The identified set's length over the larger end's standard error (0: a point).

    Returns
    -------
    float

    Examples
    --------
    An absolute gap at a point is ``max(g, -g)`` at both ends: the band is the two-sided 1.96 at 95 %,
    and two tied independent gaps (equalised odds of a fair model) need the quantile of ``max |Z|``:

    >>> rng = np.random.default_rng(0)
    >>> z, w = rng.standard_normal((2, 40000))
    >>> round(band_critical_value(np.abs(z), np.abs(z), 0.95), 2)
    1.96
    >>> c = band_critical_value(np.maximum(abs(z), abs(w)), np.maximum(abs(z), abs(w)), 0.95)
    >>> abs(c - 2.236) < 0.03  # (2 Phi(c) - 1) ** 2 = 0.95
    True
    """
    def held(c: float) -> int:
        return min(int(np.count_nonzero((lower_dev <= c) & (upper_dev <= c + shift))),
                   int(np.count_nonzero((lower_dev <= c + shift) & (upper_dev <= c))))

    # the ceil(level (B + 1))-th of B draws, not the ceil(level B)-th: a new draw from the same law falls
    # below it with probability >= level (the empirical quantile holds 48/51 = 0.941 at B = 50)
    draws = len(lower_dev)
    needed = min(draws, math.ceil(level * (draws + 1) - 1e-9))
    low, high = 0.0, 1.0
    while held(high) < needed and high < 1e3:
        low, high = high, 2 * high
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if held(mid) >= needed else (mid, high)
    return high


def _end_deviations(estimates: np.ndarray, draws: np.ndarray, kappa: float,
                    sign: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(pieces of one end that can be active, standard errors, largest standardised error per draw, count)."""
    # a piece more than kappa standard errors below the largest cannot be active (Andrews & Soares 2010)
    se = draws.std(axis=0, ddof=1)
    top = int(np.argmax(estimates))
    near = estimates >= estimates[top] - kappa * (se + se[top]) - 1e-12
    moving = near & (se > 0)
    if not moving.any():
        return near, se, np.full(len(draws), -np.inf), 0
    dev = -sign * (draws[:, moving] - estimates[moving]) / se[moving]
    return near, se, dev.max(axis=1), int(moving.sum())


def _pieces_interval(pieces: BoundPieces, good: np.ndarray, level: float, shift: float,
                     n: int) -> tuple[float, float, float, int]:
    """The ends of a band over the pieces, then the max: ``(lower, upper, critical value, pieces in it)``."""
    nl, nu = len(pieces.lower), len(pieces.upper)
    lower_draws, upper_draws = good[:, 2:2 + nl], good[:, 2 + nl:2 + nl + nu]
    kappa = selection_threshold(n)
    lower_est, lower_dr = pieces.lower, lower_draws
    separate = max(pieces.floor, float(np.max(pieces.lower)))
    joint_draws = good[:, -1]
    lift = pieces.joint - separate
    if lift > 1e-9 and lift > kappa * float(np.std(joint_draws - np.maximum(pieces.floor, lower_draws.max(axis=1)),
                                                  ddof=1)):
        # the joint program is clearly above every separate piece: it is the active end, and smooth there
        lower_est = np.append(lower_est, pieces.joint)
        lower_dr = np.column_stack([lower_dr, joint_draws])
    near_lo, se_lo, dev_lo, k_lo = _end_deviations(lower_est, lower_dr, kappa, -1.0)
    _, se_hi, dev_hi, k_hi = _end_deviations(pieces.upper, upper_draws, kappa, +1.0)
    c = band_critical_value(dev_lo, dev_hi, level, shift)
    # the lower limit is the largest lower band end among the pieces that can be active; every piece
    # enters the upper limit (one left out of c still has its own band)
    low = float(np.max((lower_est - c * se_lo)[near_lo]))
    high = float(np.max(pieces.upper + c * se_hi))
    return max(pieces.floor, low), max(pieces.floor, high), c, k_lo + k_hi


#: Standard deviation over the normal-equivalent interquartile spread above which an endpoint's draws are
#: called heavy-tailed (1 for a normal distribution).
HEAVY_TAILS = 2.0


def _skew_notes(draws: np.ndarray, method: str) -> list[str]:
    """A note per endpoint whose draws are heavy-tailed (a small group's bound jumps between resamples)."""
    good = draws[np.all(np.isfinite(draws), axis=1)]
    out = []
    for k, end in enumerate(("lower", "upper")):
        if len(good) < MIN_RESAMPLES:
            break
        q1, q3 = np.quantile(good[:, k], [0.25, 0.75])
        sd = float(np.std(good[:, k], ddof=1))
        spread = (q3 - q1) / 1.349
        if spread > 0 and sd > HEAVY_TAILS * spread:  # (spread 0: draws piled at one value, e.g. the metric's end)
            far = int(np.sum(np.abs(good[:, k] - np.median(good[:, k])) > 3 * spread))
            out.append(f"the {end} end's {method} draws are heavy-tailed ({far} of {len(good)} far from the rest: "
                       f"standard deviation {sd:.3g} against {spread:.3g} from the quartiles), so the interval leans "
                       "on a few draws; a small group makes the bound jump between resamples. Compare "
                       "ci_method='projection' (valid at any n).")
    return out


def sampling_interval(problem: BoundProblem, params: Mapping[str, float], population: BoundResult,
                      options: IntervalOptions, *, n_jobs: int | None = 1, progress: bool = True,
                      solve_kwargs: Mapping[str, Any] | None = None,
                      resampler: Resampler | None = None) -> SamplingInterval:
    """The sampling interval of a bound (see the module notes for the methods).

    Parameters
    ----------
    problem : BoundProblem
        The compiled problem (its table must have counts).
    params : mapping of str to float
        The sensitivity values of the bound.
    population : BoundResult
        The bound on the table itself (the estimate of the identified set).
    options : IntervalOptions
        Level, method, resamples, seed, strata.
    n_jobs : int or None
        Worker processes for the resamples (``None`` or ``-1``: every core).
    progress : bool
        A progress bar on a terminal.
    solve_kwargs : mapping, optional
        Options of :meth:`~fairprobe.core.bound.BoundProblem.solve` per resample.
    resampler : Resampler, optional
        Moves ``problem`` to each resample; a sweep passes one to every call (default: a new one).


    Returns
    -------
    SamplingInterval

    Raises
    ------
    DataError
        The table has no sample size.
    UndefinedMetricError
        The metric is undefined in too many resamples (a group too small to measure).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.bound import BoundProblem
    >>> from fairprobe.core.table import ObservedTable
    >>> counts = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
    ...                        "n": [400, 100, 100, 400, 300, 200, 100, 400]})
    >>> problem = BoundProblem("proxy_label", "fpr", ObservedTable.from_counts(counts), fixed={"D": 0.02})
    >>> population = problem.solve({"D": 0.02})
    >>> ci = sampling_interval(problem, {"D": 0.02}, population, IntervalOptions(resamples=100), progress=False)
    >>> ci.lower < population.lower < population.upper < ci.upper
    True
    """
    start = time.perf_counter()
    table = problem.table
    counts = table.counts()
    n = int(counts.sum())
    kwargs = {"progress": False, **dict(solve_kwargs or {})}
    natural = problem.natural_range
    notes: list[str] = []
    if options.method == "projection":
        lo, hi = projection_region(table, options.level)
        region = problem.with_table(table.with_region(lo, hi), fixed=params)
        res = region.solve(params, **kwargs)
        values = {"lower": _clip(res.lower, *natural), "upper": _clip(res.upper, *natural),
                  "se_lower": math.nan, "se_upper": math.nan, "critical_value": math.nan, "failed": 0}
        values["set_lower"], values["set_upper"] = values["lower"], values["upper"]
        notes.append(f"the bound over every table in simultaneous Clopper-Pearson boxes for the {len(counts)} cells "
                     f"(Bonferroni, joint level {options.level:g}); valid at any n, conservative")
        if res.status != "optimal":
            notes.append(f"the region's program stopped with status {res.status!r}: certified, possibly wider")
        draws_used = 0
    else:
        draws = resampled_probabilities(table, options)
        label = "bootstrap resamples" if options.method == "bootstrap" else "posterior draws"
        width = len(_row(population))
        if resampler is None:
            resampler = Resampler(problem)
        elif resampler.problem is not problem:
            raise ConfigError("sampling_interval: the resampler moves another problem than the one given")
        solved = _solve_draws(resampler, dict(params), draws, kwargs, n_jobs, progress, label, width)
        values = _from_draws(population, solved, options, n, natural)
        if "band_pieces" in values:
            notes.append(f"the metric is a maximum of absolute gaps: a simultaneous band over its smooth pieces "
                         f"({values['band_pieces']} that can be active set its critical value, "
                         f"{values['critical_value']:.3g}), then the maximum; "
                         f"valid at ties and at a gap of 0")
        draws_used = len(draws)
        if values["failed"]:
            notes.append(f"{values['failed']} of {len(draws)} draws left the metric undefined and were dropped")
        if options.stratify:
            notes.append(f"units resampled within the levels of {options.stratify} (their counts fixed by design)")
        notes += _skew_notes(solved[:, :2], options.method)
    return SamplingInterval(
        level=options.level, method=options.method, lower=values["lower"], upper=values["upper"],
        set_lower=values["set_lower"], set_upper=values["set_upper"],
        estimate=(population.lower, population.upper), se_lower=values["se_lower"], se_upper=values["se_upper"],
        critical_value=values["critical_value"], resamples=draws_used, failed=values["failed"], n=n,
        seed=options.seed, notes=notes, wall_time=time.perf_counter() - start)


def require_counts(data: Sequence[Any] | Any, options: IntervalOptions | None = None) -> None:
    """Raise the counts error early (before any solve) for a table without a sample size.

    Parameters
    ----------
    data : ObservedTable
        The table to check.
    options : IntervalOptions, optional
        Its ``stratify`` node is checked against the table too.

    Raises
    ------
    DataError
        Without ``n``: a table of probabilities, or counts read as weights (not whole numbers, or
        adding up to more than 2**53; the message names which, from ``weights_reason``).
    ConfigError
        ``stratify`` names no node of the table.
    """
    data.counts()  # raises the message without a sample size
    if options is not None and options.stratify is not None:
        _strata(data, options.stratify)  # raises for a node the table does not have

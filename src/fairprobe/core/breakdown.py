"""Breakdown points: how much bias a fairness conclusion survives.

The conclusion is read off the certified bounds with no bias: "the metric is above (below)
``threshold``", or with ``tolerance=eps`` "parity holds within eps" (or is violated by more).
The breakdown point is the smallest ``D`` at which the certified bounds admit a model where the
conclusion fails. A larger ``D`` only relaxes the bias's constraints, so the bounds widen
monotonically and bisection finds it within ``xtol`` (``inf`` when it survives up to ``D_max``).

With ``ci=0.95`` the same search runs on the confidence interval (bias and sampling error, the
same resamples at every ``D``): ``ci_value <= value``, and 0 when the noise alone leaves the
conclusion open.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.engine import BoundProblem
from fairprobe.core.options import DEFAULT_GAP, CompileOptions, RunOptions, merge_fixed, run_options
from fairprobe.core.results import BoundResult, BreakdownResult, ObservedValue, threshold_test
from fairprobe.core.results.wording import held_parameters
from fairprobe.core.validate import check_breakdown_target, check_sweep_target
from fairprobe.exceptions import ConfigError

__all__ = ["BreakdownResult", "breakdown", "held_parameters"]


def _metric_name(metric: Any) -> str:
    return metric if isinstance(metric, str) else getattr(metric, "name", type(metric).__name__)


def _search_target(problem: BoundProblem, metric: Any, parameter: str | None, fixed: Mapping[str, float],
                   D_max: float | None, threshold: float | None, tolerance: float | None) -> tuple[str, float]:
    """The parameter the breakdown moves and the largest value searched, checked before any solve."""
    names = problem.config.parameters
    if parameter is not None and parameter not in names:
        raise ConfigError(f"Unknown parameter {parameter!r}; this bias has {names}: pass one of them as parameter=.")
    moved = parameter if parameter is not None else names[0] if len(names) == 1 else None
    if moved in fixed:  # e.g. D=0.1: the search range is D_max, not a value of the moved parameter
        raise ConfigError(f"{moved} = {fixed[moved]} fixes the parameter the breakdown moves; give the largest value "
                          f"searched as D_max={fixed[moved]}.")
    if parameter is None:
        if len([p for p in names if p not in fixed]) != 1:
            first, *rest = names
            raise ConfigError(f"The bias has parameters {names}; choose one with parameter={first!r} and fix the "
                              f"others by keyword (command line: --parameter {first} "
                              f"{' '.join('--param ' + p + '=0.05' for p in rest)}).")
    (parameter,), _ = problem.points([0.0], parameter=parameter)
    bounded = problem.config.probability_parameters
    if D_max is None:
        if bounded is not None and parameter not in bounded:
            raise ConfigError(f"{parameter} is not a probability bound; give D_max.")
        D_max = 1.0
    if threshold is None and tolerance is None and problem.metric.kind == "rate":
        raise ConfigError(f"{_metric_name(metric)} is the rate of one group (between 0 and 1), so the default "
                          "conclusion 'metric > 0' says nothing; say which conclusion to test: threshold=0.2 "
                          "(--threshold 0.2: the rate is above or below 0.2).")
    return parameter, D_max


def breakdown(
    bias: Any, metric: Any, data: Any, *, threshold: float | None = None, tolerance: float | None = None,
    parameter: str | None = None, D_max: float | None = None, xtol: float = 1e-4, options: RunOptions | None = None,
    backend: str = "scip", time_limit: float | None = DEFAULT_TIME_LIMIT, gap: float = DEFAULT_GAP,
    reduce: bool = True, n_jobs: int | None = 1, solver_options: Mapping[str, Any] | None = None,
    unmeasured: Any = None, progress: bool = True, compile_options: CompileOptions | None = None,
    fixed: Mapping[str, float] | None = None, ci: float | bool | None = None,
    ci_method: str = "bootstrap", resamples: int = 1000, seed: int = 0, stratify: str | None = None,
    **parameters: float,
) -> BreakdownResult:
    """Smallest sensitivity value at which a fairness conclusion can flip.

    Parameters
    ----------
    bias, metric, data : Any
        The bias, the metric and the observed data, as for :func:`fairprobe.bound`.
    threshold : float, optional
        Conclusion "metric above/below threshold" (default 0 when ``tolerance`` is not given).
    tolerance : float, optional
        Conclusion "``|metric| <= tolerance``" (parity holds) or its negation (parity violated).
    parameter : str, optional
        Parameter to move when the bias has several (fix the others by keyword).
    D_max : float, optional
        Largest value searched: ``[0, D_max]`` (default 1, the maximum of a probability bound).
    xtol : float
        Width of the final bisection bracket (as in :func:`scipy.optimize.bisect`).
    options : RunOptions, optional
        How every step is solved, as for :func:`fairprobe.sensitivity`.
    backend, time_limit, gap, reduce, n_jobs, solver_options, unmeasured, progress, compile_options
        As for :func:`fairprobe.bound`; ``time_limit`` is per bisection step and ``n_jobs`` the
        worker processes of each step.
    fixed : dict, optional
        Values of the parameters that are not moved (the same as keywords).
    ci, ci_method, resamples, seed, stratify
        As for :func:`fairprobe.bound`: with ``ci``, also the breakdown point of the confidence
        interval (``ci_value``), at one interval per bisection step.
    **parameters : float
        Values of the parameters that are not moved, by name.

    Returns
    -------
    BreakdownResult
        The breakdown point and the certified bounds on both sides of it.

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> res = fp.breakdown("proxy_label", "fpr_parity", cells)
    >>> res.claim, round(res.value, 3)
    ('metric < 0', 0.062)
    """
    opts = run_options(backend=backend, time_limit=time_limit, gap=gap, solver_options=solver_options, n_jobs=n_jobs,
                       progress=progress, reduce=reduce, compile_options=compile_options, options=options)
    fixed = merge_fixed(fixed, parameters)
    check_sweep_target(parameter=parameter, fixed=fixed)
    check_breakdown_target(threshold=threshold, tolerance=tolerance, D_max=D_max, xtol=xtol)
    start = time.perf_counter()
    problem = BoundProblem(bias, metric, data, fixed=fixed, unmeasured=unmeasured, compile_options=opts.compile)
    parameter, D_max = _search_target(problem, metric, parameter, fixed, D_max, threshold, tolerance)
    from fairprobe.core.uncertainty import interval_options, require_counts, sampling_interval

    interval = interval_options(ci, ci_method=ci_method, resamples=resamples, seed=seed, stratify=stratify)
    if interval is not None:
        require_counts(problem.table, interval)  # before any solve
    n = 0
    solve_kwargs = opts.solve_kwargs()

    def solve(d: float) -> BoundResult:
        nonlocal n
        n += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = problem.solve({**fixed, parameter: d}, progress=False, **solve_kwargs)  # one line per step: noise
        if no_bias is not None:
            res.set_observed(ObservedValue(no_bias.lower, no_bias.upper))
        return res

    no_bias: BoundResult | None = None
    no_bias = solve(0.0)
    found = threshold_test(no_bias, threshold, tolerance)
    label = problem.metric.label
    if found is None:
        held = held_parameters(fixed, parameter)
        where = f"at {parameter} = 0 with {held}" if held else "without bias"
        return BreakdownResult(0.0, parameter, f"undetermined {where}: the certified interval "
                               f"[{no_bias.lower:.6f}, {no_bias.upper:.6f}] straddles the threshold",
                               None, no_bias, no_bias, label, xtol, n, time.perf_counter() - start)
    text, holds = found
    top = solve(D_max)
    if holds(top):
        return BreakdownResult(math.inf, parameter, text, top, None, no_bias, label, xtol, n,
                               time.perf_counter() - start)
    hi, lo_res, hi_res = _bisect(solve, holds, float(D_max), no_bias, top, xtol)
    result = BreakdownResult(hi, parameter, text, lo_res, hi_res, no_bias, label, xtol, n,
                             time.perf_counter() - start)
    if interval is not None:
        def solve_ci(d: float) -> BoundResult:
            res = solve(d)
            res.interval = sampling_interval(problem, {**fixed, parameter: d}, res, interval, n_jobs=opts.n_jobs,
                                             progress=False, solve_kwargs=solve_kwargs)
            return res

        _ci_breakdown(result, solve_ci, holds, D_max, xtol)
        result.n_solves, result.wall_time = n, time.perf_counter() - start
    return result


def _ci_breakdown(result: BreakdownResult, solve_ci: Any, holds: Any, D_max: float, xtol: float) -> None:
    """Fill ``result.ci_*``: the bisection of :func:`breakdown` on the confidence interval."""
    def ci_holds(res: BoundResult) -> bool:
        return bool(holds(_Bounds(res.interval.lower, res.interval.upper)))

    zero = solve_ci(0.0)
    if not ci_holds(zero):
        result.ci_value, result.ci_above = 0.0, zero
        return
    # the interval contains the bounds: where the bounds fail, so does the interval
    hi = result.value if math.isfinite(result.value) else float(D_max)
    top = solve_ci(hi)
    if ci_holds(top):  # only when the bounds survive every D searched
        result.ci_value, result.ci_below = math.inf, top
        return
    result.ci_value, result.ci_below, result.ci_above = _bisect(solve_ci, ci_holds, hi, zero, top, xtol)


def _bisect(solve: Any, holds: Any, hi: float, lo_res: BoundResult, hi_res: BoundResult,
            xtol: float) -> tuple[float, BoundResult, BoundResult]:
    """Bisect ``[0, hi]`` (the claim holds at 0, fails at ``hi``) down to ``xtol``: the end where it fails, and
    the results at both ends."""
    lo = 0.0
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        res = solve(mid)
        if holds(res):
            lo, lo_res = mid, res
        else:
            hi, hi_res = mid, res
    return hi, lo_res, hi_res


@dataclass(frozen=True)
class _Bounds:
    """An interval read as bounds by a claim's test (``lower``, ``upper``)."""

    lower: float
    upper: float

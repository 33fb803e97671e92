"""Breakdown points: how much bias a fairness conclusion survives.

The conclusion is read off the certified bounds with no bias (all sensitivity parameters 0):

* ``threshold=t`` (default 0): "the metric is above t" (or below). It holds at ``D`` while the
  certified interval stays on that side of ``t``; with ``t = 0`` and a parity metric this is
  "the disparity favours this group and cannot flip sign".
* ``tolerance=eps``: "the model satisfies parity within eps" (``|metric| <= eps`` for every
  model) or "the model violates parity by more than eps".

The breakdown point is the smallest ``D`` at which the certified bounds admit a model where the
conclusion fails. The bias models are nested (a larger ``D`` only relaxes the constraints), so
the bounds widen monotonically and bisection on certified bounds finds it: the conclusion is
*certified* to hold for every ``D <= below`` and can fail at ``above``; ``value`` is ``above``,
within ``xtol`` of the exact point (``inf`` when it survives every ``D`` up to ``D_max``).

With ``ci=0.95`` the same search runs on the **confidence interval** (bias and sampling error):
``ci_value`` is the smallest ``D`` at which the interval reaches the threshold, the conclusion
that survives both the bias and the noise of the sample. The interval contains the bounds, so
``ci_value <= value``; it is 0 when the noise alone leaves the conclusion open. The resamples are
the same at every ``D`` (one seed), so the interval moves with ``D`` only; the search assumes it
widens with ``D``, as the bounds do.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.engine import BoundProblem
from fairprobe.core.interpret import breakdown_conclusion, held_parameters, threshold_test
from fairprobe.core.jsonsafe import json_number
from fairprobe.core.options import DEFAULT_GAP, CompileOptions, RunOptions, merge_fixed, run_options
from fairprobe.core.results import (
    BoundResult,
    Conclusion,
    Explained,
    ObservedValue,
    Summary,
    few_units_line,
    interval_columns,
)
from fairprobe.core.validate import check_breakdown_target, check_sweep_target
from fairprobe.exceptions import ConfigError

__all__ = ["BreakdownResult", "breakdown", "held_parameters"]


@dataclass
class BreakdownResult(Explained):
    """Result of :func:`breakdown`.

    Attributes
    ----------
    value : float
        Breakdown sensitivity (``inf`` if the conclusion survives every value up to ``D_max``;
        ``0`` if it does not even hold without bias).
    parameter : str
        The sensitivity parameter moved.
    claim : str
        The conclusion tested, in words (``"metric < 0"``); :meth:`conclusion` says what the
        breakdown point means for it.
    below, above : BoundResult or None
        Certified bounds just below (conclusion holds) and at ``value`` (it can fail).
    no_bias : BoundResult
        Certified bounds with no bias (the moved parameter at 0); their ``observed`` value is the
        data's own.
    n_solves : int
        Bound computations used.
    metric : str
        Label of the metric.
    xtol : float
        Width of the final bracket.
    wall_time : float
        Seconds spent.
    ci_value : float or None
        With ``ci=``: the smallest value at which the confidence interval (bias and sampling
        error) reaches the threshold (``0``: the noise alone leaves the conclusion open; ``inf``:
        it holds up to ``D_max``); None without ``ci``.
    ci_below, ci_above : BoundResult or None
        The bounds with their :attr:`~BoundResult.interval` just below and at ``ci_value``.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, xtol=0.01, D_max=0.1)
    >>> res.claim, res.value, res.n_solves
    ('metric > 0.2', 0.0125, 6)
    >>> round(res.above.lower, 6)
    0.196491
    """

    value: float
    parameter: str
    claim: str
    below: BoundResult | None
    above: BoundResult | None
    no_bias: BoundResult
    metric: str
    xtol: float
    n_solves: int
    wall_time: float
    ci_value: float | None = None
    ci_below: BoundResult | None = None
    ci_above: BoundResult | None = None

    def conclusion(self) -> Conclusion:
        """What the breakdown point means for the audit (see :func:`fairprobe.core.interpret.breakdown_conclusion`).

        Returns
        -------
        Conclusion

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, xtol=0.01, D_max=0.1)
        >>> res.conclusion().verdict
        'can_flip'
        """
        return breakdown_conclusion(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per bound the result keeps: without bias, just below and at the breakdown point.

        Returns
        -------
        pandas.DataFrame
            Columns ``point`` (``no_bias``, ``below``, ``above``, and with a sampling interval
            ``ci_below``, ``ci_above`` around :attr:`ci_value`), the moved parameter, ``lower``,
            ``upper``, ``status``, and the ``ci_*`` columns of the points that have an interval.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, xtol=0.01, D_max=0.1)
        >>> res.to_frame()["point"].tolist()
        ['no_bias', 'below', 'above']
        """
        points = (("no_bias", self.no_bias), ("below", self.below), ("above", self.above),
                  ("ci_below", self.ci_below), ("ci_above", self.ci_above))
        rows = [{"point": name, self.parameter: r.parameters.get(self.parameter, math.nan), "lower": r.lower,
                 "upper": r.upper, "status": r.status, **interval_columns(r.interval)}
                for name, r in points if r is not None]
        return pd.DataFrame(rows)

    def summary(self) -> Summary:
        """A short readable report for an audit.

        Returns
        -------
        Summary
            The conclusion tested, the breakdown point, the certified bounds on both sides of it and
            what it means; renders as HTML too.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, xtol=0.01, D_max=0.1)
        >>> print(res.summary())
        metric: fpr (A = 0)
        conclusion without bias: metric > 0.2
        breakdown point: D = 0.0125 (within 0.01)
          certified bounds at D = 0.00625: [0.214056, 0.246978]
          certified bounds at D = 0.0125: [0.196491, 0.262426]
        conclusion: Without bias the data give fpr (A = 0) = 0.2309, so 'metric > 0.2'. It holds while D < 0.0125 ...
        """
        held = held_parameters(self.no_bias.parameters, self.parameter)
        start = f"at {self.parameter} = 0 with {held}" if held else "without bias"
        lines = [f"metric: {self.metric}", f"conclusion {start}: {self.claim}"]
        if self.value == 0.0:
            lines.append(f"the conclusion does not hold even {start} (breakdown point 0)")
        elif math.isinf(self.value):
            lines.append(f"the conclusion survives every {self.parameter} up to the maximum tested")
        else:
            lines.append(f"breakdown point: {self.parameter} = {self.value:.4g} (within {self.xtol:g})")
        if self.below is not None:
            lines.append(f"  certified bounds at {self.parameter} = {self.below.parameters[self.parameter]:.4g}: "
                         f"[{self.below.lower:.6f}, {self.below.upper:.6f}]")
        if self.above is not None and not math.isinf(self.value):
            lines.append(f"  certified bounds at {self.parameter} = {self.above.parameters[self.parameter]:.4g}: "
                         f"[{self.above.lower:.6f}, {self.above.upper:.6f}]")
        if self.ci_value is not None:
            lines.append(self._ci_line())
        if self.no_bias.few_units:
            lines.append(few_units_line(self.no_bias.few_units))
        lines.append(f"conclusion: {self.conclusion().text}")
        return Summary("\n".join(lines), title=f"Breakdown point: {self.metric}", tables={"bounds": self.to_frame()})

    def _ci_line(self) -> str:
        """The summary's line on the breakdown point with sampling error."""
        ref = self.ci_above if self.ci_above is not None else self.ci_below
        what = ref.interval.text().split(";")[0] if ref is not None and ref.interval is not None else "interval"
        if self.ci_value == 0.0:
            return f"with sampling error ({what}): the interval reaches the threshold already at {self.parameter} = 0"
        if math.isinf(self.ci_value):
            return f"with sampling error ({what}): the conclusion survives every {self.parameter} tested"
        return f"with sampling error ({what}): breakdown point {self.parameter} = {self.ci_value:.4g}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form.

        Returns
        -------
        dict
            Every field, the bound results as dicts and an infinite ``value`` as ``"inf"``.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, xtol=0.01, D_max=0.1)
        >>> d = res.to_dict()
        >>> d["value"], d["parameter"], sorted(d["below"])[:3]
        (0.0125, 'D', ['backend', 'conclusion', 'details'])
        """
        return {"metric": self.metric, "parameter": self.parameter, "claim": self.claim,
                "value": json_number(self.value), "xtol": self.xtol,
                "below": self.below.to_dict() if self.below else None,
                "above": self.above.to_dict() if self.above else None,
                "no_bias": self.no_bias.to_dict(), "n_solves": self.n_solves, "wall_time": self.wall_time,
                "ci_value": None if self.ci_value is None else json_number(self.ci_value),
                "ci_below": self.ci_below.to_dict() if self.ci_below else None,
                "ci_above": self.ci_above.to_dict() if self.ci_above else None,
                "conclusion": self.conclusion().text, "verdict": self.conclusion().verdict}


def _metric_name(metric: Any) -> str:
    return metric if isinstance(metric, str) else getattr(metric, "name", type(metric).__name__)


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
        How every step is solved, in one object (:func:`~fairprobe.core.options.run_options`);
        the keywords ``backend`` to ``compile_options`` below are a shortcut for it, so with
        ``options`` leave them at their defaults.
    backend, time_limit, gap, reduce, n_jobs, solver_options, unmeasured, progress, compile_options
        As for :func:`fairprobe.bound`; ``time_limit`` is per bisection step and ``n_jobs`` the
        worker processes of each step.
    fixed : dict, optional
        Values of the parameters that are not moved (the same as keywords).
    ci, ci_method, resamples, seed, stratify
        As for :func:`fairprobe.bound`: with ``ci``, also the breakdown point of the confidence
        interval (``ci_value``). Each bisection step then computes an interval: ``"projection"``
        costs one solve per step, ``"bootstrap"`` and ``"bayes"`` one per resample.
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
    lo, hi, lo_res, hi_res = 0.0, float(D_max), no_bias, top
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        res = solve(mid)
        if holds(res):
            lo, lo_res = mid, res
        else:
            hi, hi_res = mid, res
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
    lo, lo_res, hi_res = 0.0, zero, top
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        res = solve_ci(mid)
        if ci_holds(res):
            lo, lo_res = mid, res
        else:
            hi, hi_res = mid, res
    result.ci_value, result.ci_below, result.ci_above = hi, lo_res, hi_res


@dataclass(frozen=True)
class _Bounds:
    """An interval read as bounds by a claim's test (``lower``, ``upper``)."""

    lower: float
    upper: float

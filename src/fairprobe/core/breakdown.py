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
within ``tol`` of the exact point (``inf`` when it survives every ``D`` up to ``D_max``).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fairprobe.core.bound import BoundProblem, BoundResult, few_units_line
from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.jsonsafe import json_number
from fairprobe.core.validate import check_breakdown_options
from fairprobe.exceptions import ConfigError

__all__ = ["BreakdownResult", "breakdown", "held_parameters"]


@dataclass
class BreakdownResult:
    """Result of :func:`breakdown`.

    Attributes
    ----------
    value : float
        Breakdown sensitivity (``inf`` if the conclusion survives every value up to ``D_max``;
        ``0`` if it does not even hold without bias).
    parameter : str
        The sensitivity parameter moved.
    conclusion : str
        The conclusion tested, in words.
    below, above : BoundResult or None
        Certified bounds just below (conclusion holds) and at ``value`` (it can fail).
    observed : BoundResult
        Bounds with no bias.
    n_solves : int
        Bound computations used.
    metric : str
        Label of the metric.
    tol : float
        Width of the final bracket.
    wall_time : float
        Seconds spent.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, tol=0.01, D_max=0.1)
    >>> res.conclusion, res.value, res.n_solves
    ('metric > 0.2', 0.0125, 6)
    >>> round(res.above.lower, 6)
    0.196491
    """

    value: float
    parameter: str
    conclusion: str
    below: BoundResult | None
    above: BoundResult | None
    observed: BoundResult
    metric: str
    tol: float
    n_solves: int
    wall_time: float

    def summary(self) -> str:
        """A short readable report for an audit.

        Returns
        -------
        str
            The conclusion, the breakdown point and the certified bounds on both sides of it.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, tol=0.01, D_max=0.1)
        >>> print(res.summary())
        metric: fpr (A = 0)
        conclusion without bias: metric > 0.2
        breakdown point: D = 0.0125 (within 0.01)
          certified bounds at D = 0.00625: [0.214056, 0.246978]
          certified bounds at D = 0.0125: [0.196491, 0.262426]
        """
        held = held_parameters(self.observed.parameters, self.parameter)
        start = f"at {self.parameter} = 0 with {held}" if held else "without bias"
        lines = [f"metric: {self.metric}", f"conclusion {start}: {self.conclusion}"]
        if self.value == 0.0:
            lines.append(f"the conclusion does not hold even {start} (breakdown point 0)")
        elif math.isinf(self.value):
            lines.append(f"the conclusion survives every {self.parameter} up to the maximum tested")
        else:
            lines.append(f"breakdown point: {self.parameter} = {self.value:.4g} (within {self.tol:g})")
        if self.below is not None:
            lines.append(f"  certified bounds at {self.parameter} = {self.below.parameters[self.parameter]:.4g}: "
                         f"[{self.below.lower:.6f}, {self.below.upper:.6f}]")
        if self.above is not None and not math.isinf(self.value):
            lines.append(f"  certified bounds at {self.parameter} = {self.above.parameters[self.parameter]:.4g}: "
                         f"[{self.above.lower:.6f}, {self.above.upper:.6f}]")
        if self.observed.few_units:
            lines.append(few_units_line(self.observed.few_units))
        return "\n".join(lines)

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
        >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, tol=0.01, D_max=0.1)
        >>> d = res.to_dict()
        >>> d["value"], d["parameter"], sorted(d["below"])[:3]
        (0.0125, 'D', ['backend', 'details', 'excluded_events'])
        """
        return {"metric": self.metric, "parameter": self.parameter, "conclusion": self.conclusion,
                "value": json_number(self.value), "tol": self.tol,
                "below": self.below.to_dict() if self.below else None,
                "above": self.above.to_dict() if self.above else None,
                "observed": self.observed.to_dict(), "n_solves": self.n_solves, "wall_time": self.wall_time}


def held_parameters(parameters: Mapping[str, float], moved: str | None = None) -> str:
    """The sensitivity parameters other than ``moved`` held at non-zero values, as text ("" when none).

    Parameters
    ----------
    parameters : mapping of str to float
        Parameter values (e.g. a result's ``parameters``).
    moved : str, optional
        The parameter the breakdown moves.

    Returns
    -------
    str

    Examples
    --------
    >>> held_parameters({"D_proxy_label": 0.01, "D_selection": 0.0}, "D_selection")
    'D_proxy_label = 0.01'
    """
    return ", ".join(f"{k} = {v:g}" for k, v in parameters.items() if k != moved and v)


def _metric_name(metric: Any) -> str:
    return metric if isinstance(metric, str) else getattr(metric, "name", type(metric).__name__)


def _is_one_group_rate(metric: Any) -> bool:
    """A registered one-group rate (``fpr``, ``ppv``, ...), given by name or as an instance."""
    if isinstance(metric, str):
        from fairprobe.core.registry import get_registry

        metric = get_registry().metrics.get(metric)
    return bool(getattr(metric, "compares_one_group", False))


def _conclusion(res: BoundResult, threshold: float | None,
                tolerance: float | None) -> tuple[str, Callable[[BoundResult], bool]] | None:
    """The conclusion the no-bias bounds support, and a test of whether bounds still support it."""
    if tolerance is not None:
        eps = float(tolerance)
        if res.lower >= -eps and res.upper <= eps:
            return f"|metric| <= {eps:g} (parity holds within tolerance)", lambda r: r.lower >= -eps and r.upper <= eps
        if res.lower > eps:
            return f"metric > {eps:g} (parity violated)", lambda r: r.lower > eps
        if res.upper < -eps:
            return f"metric < {-eps:g} (parity violated)", lambda r: r.upper < -eps
        return None
    t = float(threshold if threshold is not None else 0.0)
    if res.lower > t:
        return f"metric > {t:g}", lambda r: r.lower > t
    if res.upper < t:
        return f"metric < {t:g}", lambda r: r.upper < t
    return None


def breakdown(
    bias: Any, metric: Any, data: Any, *, threshold: float | None = None, tolerance: float | None = None,
    parameter: str | None = None, D_max: float | None = None, tol: float = 1e-4, backend: str = "scip",
    time_limit: float | None = DEFAULT_TIME_LIMIT, gap: float = 1e-6, unmeasured: Any = None, **fixed: float,
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
        Largest value searched (default 1, the maximum of a probability bound).
    tol : float
        Width of the final bracket.
    backend : str
        Backend name (see :func:`fairprobe.bound`).
    time_limit : float or None, optional
        Seconds per point, shared by all the solves of that point (default 60; None: no limit).
    gap : float
        Target optimality gap per side.
    unmeasured : list of str, optional
        DAG nodes without a column in the table, on purpose (see :func:`fairprobe.bound`).
    **fixed : float
        Values of the parameters that are not moved.

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
    >>> res.conclusion, round(res.value, 3)
    ('metric < 0', 0.062)
    """
    check_breakdown_options(threshold=threshold, tolerance=tolerance, parameter=parameter, D_max=D_max, tol=tol,
                            backend=backend, time_limit=time_limit, gap=gap, fixed=fixed)
    if threshold is not None and tolerance is not None:
        raise ConfigError("Give either threshold= or tolerance=, not both.")
    if tolerance is not None and tolerance < 0:
        raise ConfigError(f"tolerance must be >= 0; got {tolerance}. It is the largest |metric| that counts as "
                          "parity, e.g. tolerance=0.05.")
    start = time.perf_counter()
    problem = BoundProblem(bias, metric, data, fixed=fixed, unmeasured=unmeasured)
    free = [p for p in problem.config.parameters if p not in fixed]
    if parameter is None:
        if len(free) != 1:
            first, *rest = problem.config.parameters
            raise ConfigError(f"The bias has parameters {problem.config.parameters}; choose one with "
                              f"parameter={first!r} and fix the others by keyword (command line: --parameter "
                              f"{first} {' '.join('--param ' + p + '=0.05' for p in rest)}).")
        parameter = free[0]
    elif parameter not in problem.config.parameters:
        raise ConfigError(f"Unknown parameter {parameter!r}; this bias has {problem.config.parameters}: pass one of "
                          "them as parameter=.")
    bounded = problem.config.probability_parameters
    if D_max is None:
        if bounded is not None and parameter not in bounded:
            raise ConfigError(f"{parameter} is not a probability bound; give D_max.")
        D_max = 1.0
    if threshold is None and tolerance is None and _is_one_group_rate(metric):
        raise ConfigError(f"{_metric_name(metric)} is the rate of one group (between 0 and 1), so the default "
                          "conclusion 'metric > 0' says nothing; say which conclusion to test: threshold=0.2 "
                          "(--threshold 0.2: the rate is above or below 0.2).")
    n = 0

    def solve(d: float) -> BoundResult:
        nonlocal n
        n += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return problem.solve({**fixed, parameter: d}, backend=backend, time_limit=time_limit, gap=gap,
                                 progress=False)  # one status line per bisection step would be noise

    observed = solve(0.0)
    found = _conclusion(observed, threshold, tolerance)
    label = problem.metric.label
    if found is None:
        held = held_parameters(fixed, parameter)
        where = f"at {parameter} = 0 with {held}" if held else "without bias"
        return BreakdownResult(0.0, parameter, f"undetermined {where}: the certified interval "
                               f"[{observed.lower:.6f}, {observed.upper:.6f}] straddles the threshold",
                               None, observed, observed, label, tol, n, time.perf_counter() - start)
    text, holds = found
    top = solve(D_max)
    if holds(top):
        return BreakdownResult(math.inf, parameter, text, top, None, observed, label, tol, n,
                               time.perf_counter() - start)
    lo, hi, lo_res, hi_res = 0.0, float(D_max), observed, top
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        res = solve(mid)
        if holds(res):
            lo, lo_res = mid, res
        else:
            hi, hi_res = mid, res
    return BreakdownResult(hi, parameter, text, lo_res, hi_res, observed, label, tol, n,
                           time.perf_counter() - start)

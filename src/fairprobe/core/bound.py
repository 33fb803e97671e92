"""The bound driver: :func:`bound` (``fairprobe.bound``), one certified bound with its :class:`BoundResult`.

It resolves the inputs, makes the engine's problem (:class:`~fairprobe.core.engine.BoundProblem`),
solves it at one sensitivity value and, when asked, adds a sampling interval
(:mod:`fairprobe.core.uncertainty`). The engine's names a caller imported from here before the engine
had its own module (``BoundProblem``, ``resolve_bias``, ...) stay importable from here.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.config import BiasConfig
from fairprobe.core.engine import BoundProblem
from fairprobe.core.inputs import (
    MetricSpec,
    as_table,
    declare_unmeasured,
    resolve_bias,
    resolve_metric,
    resolve_parameters,
)
from fairprobe.core.options import DEFAULT_GAP, CompileOptions, RunOptions, merge_fixed, run_options
from fairprobe.core.results import BoundResult, ObservedValue, few_units_line
from fairprobe.core.validate import sensitivity_values
from fairprobe.exceptions import ConfigError

__all__ = ["BoundProblem", "BoundResult", "MetricSpec", "as_table", "bound", "declare_unmeasured",
           "few_units_line", "resolve_bias", "resolve_metric", "resolve_parameters"]


def bound(
    bias: Any,
    metric: Any,
    data: Any,
    D: float | Mapping[str, float] | None = None,
    *,
    options: RunOptions | None = None,
    backend: str = "scip",
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    gap: float = DEFAULT_GAP,
    reduce: bool = True,
    n_jobs: int = 1,
    solver_options: Mapping[str, Any] | None = None,
    unmeasured: Any = None,
    progress: bool = True,
    compile_options: CompileOptions | None = None,
    fixed: Mapping[str, float] | None = None,
    ci: float | bool | None = None,
    ci_method: str = "bootstrap",
    resamples: int = 1000,
    seed: int = 0,
    stratify: str | None = None,
    **parameters: float,
) -> BoundResult:
    """Certified bounds on ``metric`` under ``bias`` given ``data`` at sensitivity ``D``.

    Parameters
    ----------
    bias : str, BiasConfig, dict or path
        Registered bias name, config object, config dict, or JSON file.
    metric : str or Metric
        Registered metric name, configured metric, or a query string in the constraint grammar
        such as ``"P(P = 1 | Y = 0 & A = 0)"``.
    data : ObservedTable or pandas.DataFrame
        The observed table, a frame of cell probabilities (``prob`` column) or a frame of rows.
    D : float or dict
        The sensitivity parameter (a dict for named parameters).
    options : RunOptions, optional
        How the bound is solved, in one object (:func:`~fairprobe.core.options.run_options`); the
        keywords ``backend`` to ``compile_options`` below are a shortcut for it, so with ``options``
        leave them at their defaults.
    backend : str
        Backend name ("scip", "highs", "gurobi", "ortools", "cvxpy", "auto").
    time_limit : float or None, optional
        Seconds for the whole call, shared by all its solves (default 60, see
        :data:`~fairprobe.core.budget.DEFAULT_TIME_LIMIT`; ``None``: no limit). A call that reaches
        it still returns certified bounds, possibly wider than the sharp ones (status ``"limit"``),
        and prints a status line every few seconds where progress is shown.
    gap : float
        Target optimality gap per side.
    reduce : bool
        Apply the exact program reductions (default); ``False`` solves the naive
        response-function program, for benchmarks.
    n_jobs : int
        ``2`` solves the lower- and upper-bound programs of polynomial problems in two worker
        processes (worth it when one solve takes more than a few tenths of a second).
    solver_options : dict, optional
        Backend-specific parameters, e.g. ``{"numerics/feastol": 1e-8}`` for SCIP: a tighter
        feasibility tolerance moves the bounds of polynomial programs closer to the sharp values
        (they are certified either way, up to the tolerance).
    unmeasured : list of str, optional
        DAG nodes that have no column in the table, on purpose (e.g. ``["Z"]`` for a true outcome
        never recorded). Every other node of the DAG that is not latent (``unob``) or conditioned
        on must be a column: a forgotten column is an error, not an unmeasured variable. The
        config's ``observed_nodes`` declares the same thing from the other side (the built-in
        biases list their measured nodes there).
    progress : bool
        Status lines past a few seconds (where progress is shown).
    compile_options : CompileOptions, optional
        Every compile switch (see :class:`~fairprobe.core.options.CompileOptions`).
    fixed : dict, optional
        Values of the other sensitivity parameters of a combined bias (the same as keywords).
    ci : float or bool, optional
        A sampling interval at this coverage level (``True``: 0.95) in
        :attr:`~BoundResult.interval`: it covers the metric's true value when the bias is at most
        ``D``, accounting for the units the table was estimated from (needs counts).
    ci_method : {"bootstrap", "projection", "bayes"}
        How (:mod:`fairprobe.core.uncertainty`): resampled units with Imbens-Manski/Stoye
        (default), a finite-sample confidence region, or Dirichlet posterior draws.
    resamples : int
        Resamples or posterior draws (default 1,000); ``n_jobs`` workers solve them.
    seed : int
        Seed of the draws (the interval is the same for any number of workers).
    stratify : str, optional
        A node whose counts the design fixes (e.g. ``"A"``): units are resampled within its levels.
    **parameters : float
        Sensitivity values by name, e.g. ``D_selection=0.05``.

    Returns
    -------
    BoundResult
        Its :attr:`~BoundResult.observed` value (the same metric with no bias) is computed on first
        use, e.g. by :meth:`~BoundResult.conclusion` or :meth:`~BoundResult.summary`.

    Raises
    ------
    InfeasibleError
        The data contradict the assumptions at this ``D``.
    UndefinedMetricError
        A conditioning event of the metric (e.g. ``Y = 1 & A = 1`` for FNR of group 1) has
        probability 0 in every model the bias admits at this ``D``.
    DataError
        The table lacks a node of the bias that is not declared unmeasured, or ``ci`` is asked of
        a table without a sample size.

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cfg = {"dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"],
    ...        "cond_nodes": ["S"], "attribute_node": "A", "outcome_node": "Y",
    ...        "prediction_node": "P", "constraints": ["P(S = 1) >= 1 - D"]}
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> table = fp.ObservedTable.from_probabilities(cells, given={"S": 1})
    >>> res = fp.bound(cfg, "P(P = 1 | Y = 0 & A = 0)", table, D=0.0)
    >>> round(res.lower, 6), round(res.upper, 6)
    (0.2, 0.2)
    >>> counted = fp.ObservedTable.from_probabilities(cells, given={"S": 1}, n=400)
    >>> res = fp.bound(cfg, "P(P = 1 | Y = 0 & A = 0)", counted, D=0.0, ci=0.95, resamples=200, progress=False)
    >>> res.interval.lower < 0.2 < res.interval.upper
    True
    """
    from fairprobe.core.uncertainty import interval_options, require_counts, sampling_interval

    interval = interval_options(ci, ci_method=ci_method, resamples=resamples, seed=seed, stratify=stratify)
    opts = run_options(backend=backend, time_limit=time_limit, gap=gap, solver_options=solver_options, n_jobs=n_jobs,
                       progress=progress, reduce=reduce, compile_options=compile_options, options=options)
    parameters = merge_fixed(fixed, parameters)
    sensitivity_values(D, parameters)
    config = resolve_bias(bias)  # resolved once (a JSON file is read once); BoundProblem declares unmeasured
    try:
        at = resolve_parameters(config, D, parameters)  # the parameters do not depend on the declaration
    except ConfigError:
        at = None  # reported below, after the data and the metric are checked, as before
    # One value of D: compile each program once at it (a sweep compiles twice and moves the rows).
    problem = BoundProblem(config, metric, data, unmeasured=unmeasured, fixed=at, compile_options=opts.compile)
    params = problem.parameter_values(D, **parameters)
    if interval is not None:
        require_counts(problem.table, interval)  # before any solve: the interval cannot be had without counts
    result = problem.solve(params, progress=opts.progress, **opts.solve_kwargs())
    if interval is not None:
        result.interval = sampling_interval(problem, params, result, interval, n_jobs=opts.n_jobs,
                                            progress=opts.progress, solve_kwargs=opts.point_kwargs())
    if result.observed is None:
        result.set_observed(functools.partial(_observed_of, config, metric, data, unmeasured, opts))
    return result


def _observed_of(config: BiasConfig, metric: Any, data: Any, unmeasured: Any, opts: RunOptions) -> ObservedValue:
    """The metric with no bias for :func:`bound` (compiled at 0, solved with the same options)."""
    zero = {p: 0.0 for p in config.parameters}
    problem = BoundProblem(config, metric, data, unmeasured=unmeasured, fixed=zero, compile_options=opts.compile)
    return problem.observed(**opts.point_kwargs())

"""Sensitivity sweeps: certified bounds over a grid of sensitivity values.

The problem is compiled once (:class:`~fairprobe.core.bound.BoundProblem`; the sensitivity
parameters only move program coefficients) and re-solved per grid point, in parallel with
joblib (``n_jobs``; ``parallel_backend="dask"`` runs on the active ``dask.distributed`` client).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from itertools import product
from typing import Any

import pandas as pd

from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.engine import BoundProblem
from fairprobe.core.options import DEFAULT_GAP, CompileOptions, RunOptions, merge_fixed, run_options
from fairprobe.core.rebind import Resampler
from fairprobe.core.results import PointOutcome, SensitivityResult, bias_label, interval_columns
from fairprobe.core.validate import check_sweep_target, sweep_grid
from fairprobe.exceptions import ConfigError, UndefinedMetricError

__all__ = ["PointOutcome", "SensitivityResult", "bias_label", "run_tasks", "sensitivity", "sensitivity_grid"]


def _solve_task(problem: BoundProblem, params: Mapping[str, float], solve_kwargs: Mapping[str, Any]) -> PointOutcome:
    return problem.solve_point(params, **solve_kwargs)  # a module function: joblib pickles it by name


def run_tasks(tasks: Sequence[tuple[BoundProblem, Mapping[str, float]]], *, n_jobs: int | None = 1,
              parallel_backend: str | None = None, progress: bool = True, desc: str = "bounds",
              **solve_kwargs: Any) -> list[PointOutcome]:
    """Solve ``(problem, params)`` tasks, in parallel when ``n_jobs != 1``, with a progress bar.

    Parameters
    ----------
    tasks : sequence of (BoundProblem, mapping of str to float)
        The problems and the sensitivity values to solve them at.
    n_jobs : int or None
        Tasks solved in parallel (joblib processes; ``None`` or ``-1`` = all cores, at most one per task).
    parallel_backend : str, optional
        joblib backend, e.g. ``"dask"``.
    progress : bool
        Show a progress bar.
    desc : str
        Label of the progress bar.
    **solve_kwargs : Any
        Keyword arguments of :meth:`~fairprobe.core.bound.BoundProblem.solve` (``backend``, ``gap``, ...).

    Returns
    -------
    list of PointOutcome
        One outcome per task, in order; a failed task has its error instead of a result.

    Examples
    --------
    >>> from fairprobe.datasets import load_paper_table
    >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table())
    >>> out = run_tasks([(problem, {"D": 0.0}), (problem, {"D": 0.05})], progress=False)
    >>> [(o.status, round(o.result.upper, 4)) for o in out]
    [('optimal', 0.2309), ('optimal', 0.3433)]
    """
    from fairprobe.core.progress import progress_bar as tqdm  # only on a terminal; off under --quiet
    from fairprobe.core.workers import distributed_backend_active, effective_jobs

    if parallel_backend is None and not distributed_backend_active():  # local processes: as many as can work
        n_jobs = effective_jobs(n_jobs, len(tasks))
    bar = tqdm(total=len(tasks), desc=desc, disable=not progress, leave=False)
    try:
        if (n_jobs in (None, 1)) and parallel_backend is None:
            return _counted((problem.solve_point(params, **solve_kwargs) for problem, params in tasks), bar)
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend=parallel_backend or "loky", n_jobs=n_jobs if n_jobs is not None else -1):
            # Processes, not threads: concurrent SCIP instances in one process are unsafe.
            return _counted(Parallel(return_as="generator")(
                delayed(_solve_task)(problem, params, solve_kwargs) for problem, params in tasks), bar)
    finally:
        bar.close()


def _counted(outcomes: Iterable[PointOutcome], bar: Any) -> list[PointOutcome]:
    """``outcomes`` as a list, the bar moved on for each."""
    out = []
    for item in outcomes:
        out.append(item)
        bar.update()
    return out


def _add_intervals(problem: BoundProblem, outcomes: Sequence[PointOutcome], interval: Any, opts: Any,
                   solve_kwargs: Mapping[str, Any]) -> None:
    """The sampling interval of every solved point (a progress bar over the points on a terminal)."""
    from fairprobe.core.progress import progress_bar
    from fairprobe.core.uncertainty import sampling_interval

    solved = [o for o in outcomes if o.result is not None]
    resampler = Resampler(problem)  # one for every point: the first table's programs are read once
    for outcome in progress_bar(solved, desc=f"{interval.method} intervals", disable=not opts.progress):
        outcome.result.interval = sampling_interval(problem, outcome.params, outcome.result, interval,
                                                    n_jobs=opts.n_jobs, progress=False, solve_kwargs=solve_kwargs,
                                                    resampler=resampler)


def sensitivity(
    bias: Any, metric: Any, data: Any, D: Iterable[float] | Mapping[str, Iterable[float]], *,
    parameter: str | None = None, options: RunOptions | None = None, backend: str = "scip",
    time_limit: float | None = DEFAULT_TIME_LIMIT, gap: float = DEFAULT_GAP, reduce: bool = True,
    n_jobs: int | None = 1, parallel_backend: str | None = None,
    solver_options: Mapping[str, Any] | None = None, unmeasured: Any = None, progress: bool = True,
    compile_options: CompileOptions | None = None, fixed: Mapping[str, float] | None = None,
    ci: float | bool | None = None, ci_method: str = "bootstrap", resamples: int = 1000, seed: int = 0,
    stratify: str | None = None, **parameters: float,
) -> SensitivityResult:
    """Certified bounds of ``metric`` under ``bias`` for every sensitivity value in ``D``.

    Parameters
    ----------
    bias, metric, data : Any
        As for :func:`fairprobe.bound`.
    D : list of float or dict of lists
        Values of the (single) sensitivity parameter, or ``{"D_a": [...], "D_b": [...]}`` for a
        2-D grid over two parameters of a combined bias.
    parameter : str, optional
        Which parameter a list ``D`` sweeps when the bias has several (fix the others by keyword).
    options : RunOptions, optional
        How every point is solved, in one object (:func:`~fairprobe.core.options.run_options`); the
        keywords ``backend`` to ``compile_options`` are a shortcut for it (leave them at their defaults).
    backend, gap, reduce, solver_options, unmeasured, compile_options
        As for :func:`fairprobe.bound`.
    time_limit : float or None, optional
        Seconds per point, shared by all the solves of that point (None: no limit).
    n_jobs : int
        Worker processes: grid points solved in parallel (joblib; ``-1`` = all cores).
    parallel_backend : str, optional
        joblib backend, e.g. ``"dask"`` to run on the active ``dask.distributed`` client.
    progress : bool
        Show a progress bar.
    fixed : dict, optional
        Values of parameters that are not swept (the same as keywords).
    ci, ci_method, resamples, seed, stratify
        As for :func:`fairprobe.bound`: a sampling interval at every point (``ci_*`` columns of
        :meth:`~SensitivityResult.to_frame`), from the same resamples at every point.
    **parameters : float
        Values of parameters that are not swept, by name.

    Returns
    -------
    SensitivityResult

    Raises
    ------
    UndefinedMetricError
        The metric is undefined at every point. Points that are infeasible or undefined are rows
        with their reason; every other error (a bad solver option, say) is raised.

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> res = fp.sensitivity("proxy_label", "fpr", cells, D=[0.0, 0.05, 0.1], progress=False)
    >>> res.to_frame()[["D", "lower", "upper"]].round(4).values.tolist()
    [[0.0, 0.2, 0.2], [0.05, 0.0, 0.3333], [0.1, 0.0, 0.4286]]
    """
    from fairprobe.core.uncertainty import interval_options, require_counts

    start = time.perf_counter()
    D = sweep_grid(D)
    opts = run_options(backend=backend, time_limit=time_limit, gap=gap, solver_options=solver_options, n_jobs=n_jobs,
                       parallel_backend=parallel_backend, progress=progress, reduce=reduce,
                       compile_options=compile_options, options=options)
    fixed = merge_fixed(fixed, parameters)
    check_sweep_target(parameter=parameter, fixed=fixed)
    interval = interval_options(ci, ci_method=ci_method, resamples=resamples, seed=seed, stratify=stratify)
    problem = BoundProblem(bias, metric, data, fixed=fixed, unmeasured=unmeasured, compile_options=opts.compile)
    if interval is not None:
        require_counts(problem.table, interval)  # before any solve
    swept, points = problem.points(D, parameter=parameter)
    solve_kwargs = opts.point_kwargs()
    outcomes = run_tasks([(problem, pt) for pt in points], n_jobs=opts.n_jobs, parallel_backend=opts.parallel_backend,
                         progress=opts.progress, desc=f"{problem.metric.label}", **solve_kwargs)
    if all(o.status == "undefined" for o in outcomes):
        # no grid point has a value: an error, not a table of NaN
        raise UndefinedMetricError(outcomes[0].error or f"The metric {problem.metric.label!r} is undefined.")
    if interval is not None:
        _add_intervals(problem, outcomes, interval, opts, solve_kwargs)
    observed = problem.observed(outcomes, **solve_kwargs)
    return SensitivityResult.from_points(problem, bias, swept, outcomes, observed, time.perf_counter() - start)


def sensitivity_grid(
    biases: Sequence[Any], metrics: Sequence[Any], datasets: Mapping[str, Any], D: Iterable[float], *,
    options: RunOptions | None = None, backend: str = "scip", time_limit: float | None = DEFAULT_TIME_LIMIT,
    gap: float = DEFAULT_GAP, reduce: bool = True, n_jobs: int | None = 1, parallel_backend: str | None = None,
    solver_options: Mapping[str, Any] | None = None, unmeasured: Any = None, progress: bool = True,
    compile_options: CompileOptions | None = None, fixed: Mapping[str, float] | None = None,
    ci: float | bool | None = None, ci_method: str = "bootstrap", resamples: int = 1000, seed: int = 0,
    stratify: str | None = None, **parameters: float,
) -> pd.DataFrame:
    """Sweep every (dataset, bias, metric) combination over ``D`` in one parallel run.

    Parameters
    ----------
    biases : sequence
        Biases as for :func:`fairprobe.bound`, each with one free sensitivity parameter once ``fixed`` is held.
    metrics : sequence
        Metrics (names, configured metrics or query strings).
    datasets : mapping of str to table or data frame
        The data, by the name used in the ``dataset`` column.
    D : list of float
        Sensitivity values of every sweep.
    options, backend, time_limit, gap, reduce, n_jobs, parallel_backend, solver_options, unmeasured, progress
        As for :func:`sensitivity`.
    compile_options : CompileOptions, optional
        As for :func:`sensitivity`.
    fixed : dict, optional
        Values of parameters held fixed in every sweep that has them (the same as keywords).
    ci, ci_method, resamples, seed, stratify
        The sampling interval of every point, as for :func:`sensitivity` (every dataset needs counts).
    **parameters : float
        Held values by name.

    Returns
    -------
    pandas.DataFrame
        A long frame: dataset, bias, metric, D, lower, upper, status, error, conclusion; with ``ci``
        also ``ci_lower``, ``ci_upper``, ``ci_set_lower``, ``ci_set_upper``, ``ci_level`` and
        ``ci_method``.

    Raises
    ------
    ConfigError
        ``D`` is empty or a dict, or a bias has several free sensitivity parameters.

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> out = fp.sensitivity_grid(["proxy_label", "selection"], ["demographic_parity"], {"toy": cells},
    ...                           D=[0.0, 0.1], progress=False)
    >>> out.groupby("bias")["upper"].max().round(4).to_dict()
    {'proxy_label': -0.1, 'selection': 0.012}
    """
    from fairprobe.core.uncertainty import interval_options, require_counts

    D = sweep_grid(D)
    if isinstance(D, dict):
        raise ConfigError("sensitivity_grid sweeps one parameter: give D as a list of values, e.g. D=[0, 0.05].")
    if not D:
        raise ConfigError("The list of sensitivity values D is empty; give at least one value, e.g. D=[0, 0.05].")
    opts = run_options(backend=backend, time_limit=time_limit, gap=gap, solver_options=solver_options, n_jobs=n_jobs,
                       parallel_backend=parallel_backend, progress=progress, reduce=reduce,
                       compile_options=compile_options, options=options)
    fixed = merge_fixed(fixed, parameters)
    check_sweep_target(parameter=None, fixed=fixed)
    interval = interval_options(ci, ci_method=ci_method, resamples=resamples, seed=seed, stratify=stratify)
    tasks, keys, problems = [], [], []
    for (name, data), bias, metric in product(datasets.items(), biases, metrics):
        probe = BoundProblem(bias, metric, data, unmeasured=unmeasured, compile_options=opts.compile)
        held = {k: v for k, v in fixed.items() if k in probe.config.parameters}
        free = [p for p in probe.config.parameters if p not in held]
        if len(free) != 1:
            raise ConfigError(f"sensitivity_grid sweeps one parameter; {bias_label(bias)} has free parameters "
                              f"{free}: hold the others (fixed={{{free[-1]!r}: 0.02}}) or sweep it with "
                              "fp.sensitivity(..., D={name: values}).")
        problem = BoundProblem(bias, metric, data, unmeasured=unmeasured, fixed=held,
                               compile_options=opts.compile) if held else probe
        if interval is not None:
            require_counts(problem.table, interval)  # before any solve
        _, grid = problem.points(list(D))
        problems.append((problem, len(tasks), len(grid)))
        for pt in grid:
            tasks.append((problem, pt))
            keys.append({"dataset": name, "bias": bias_label(bias), "metric": problem.metric.label,
                         "D": pt[free[0]], **{k: v for k, v in held.items()}})
    solve_kwargs = opts.point_kwargs()
    outcomes = run_tasks(tasks, n_jobs=opts.n_jobs, parallel_backend=opts.parallel_backend, progress=opts.progress,
                         desc="sensitivity grid", **solve_kwargs)
    for problem, first, count in problems:  # one no-bias value per sweep, for the conclusions
        mine = outcomes[first:first + count]
        if interval is not None:
            _add_intervals(problem, mine, interval, opts, solve_kwargs)
        observed = problem.observed(mine, **solve_kwargs)
        for out in mine:
            if out.result is not None:
                out.result.set_observed(observed)
    rows = []
    for key, out in zip(keys, outcomes, strict=True):
        r = out.result
        row = {**key, "lower": r.lower if r else math.nan, "upper": r.upper if r else math.nan,
               "status": out.status, "error": out.error, "conclusion": r.conclusion().text if r else out.error}
        if interval is not None:
            row.update(interval_columns(r.interval if r else None) or dict.fromkeys(INTERVAL_COLUMNS, math.nan))
        rows.append(row)
    return pd.DataFrame(rows)


#: The columns :func:`sensitivity_grid` adds with ``ci``.
INTERVAL_COLUMNS = ("ci_lower", "ci_upper", "ci_set_lower", "ci_set_upper", "ci_level", "ci_method")

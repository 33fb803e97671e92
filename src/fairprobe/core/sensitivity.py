"""Sensitivity sweeps: certified bounds over a grid of sensitivity values.

The problem is compiled once (:class:`~fairprobe.core.bound.BoundProblem`; the sensitivity
parameters only move program coefficients) and re-solved per grid point, in parallel with
joblib (``n_jobs``; ``parallel_backend="dask"`` runs on the active ``dask.distributed`` client).
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.bound import BoundProblem, BoundResult, few_units_line
from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.validate import check_sweep_options, sweep_grid
from fairprobe.exceptions import ConfigError, FairprobeError, UndefinedMetricError
from fairprobe.reporting.plotting import new_axes

__all__ = ["SensitivityResult", "run_tasks", "sensitivity", "sensitivity_grid"]


@dataclass
class PointOutcome:
    """One grid point: its parameters and either a result or the error that stopped it.

    Parameters
    ----------
    params : dict of str to float
        Sensitivity values of the point.
    result : BoundResult or None
        The certified bounds, or None when the point failed.
    error : str, optional
        The error message of a failed point.
    status : str, optional
        "optimal", "limit", "infeasible", "undefined" or "error".

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
    >>> point = res.points[1]
    >>> point.params, point.status, point.error, round(point.result.upper, 6)
    ({'D': 0.05}, 'optimal', None, 0.343264)
    """

    params: dict[str, float]
    result: BoundResult | None
    error: str | None = None
    status: str = "optimal"


def _solve_point(problem: BoundProblem, params: Mapping[str, float], solve_kwargs: Mapping[str, Any]) -> PointOutcome:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # limits are reported per point instead
        try:
            res = problem.solve(params, **solve_kwargs, progress=False)  # the sweep's bar shows progress
        except FairprobeError as exc:
            status = {"InfeasibleError": "infeasible", "UndefinedMetricError": "undefined"}.get(type(exc).__name__,
                                                                                                  "error")
            return PointOutcome(dict(params), None, str(exc), status)
    return PointOutcome(dict(params), res, None, res.status)


def run_tasks(tasks: Sequence[tuple[BoundProblem, Mapping[str, float]]], *, n_jobs: int | None = 1,
              parallel_backend: str | None = None, progress: bool = True, desc: str = "bounds",
              **solve_kwargs: Any) -> list[PointOutcome]:
    """Solve ``(problem, params)`` tasks, in parallel when ``n_jobs != 1``, with a progress bar.

    Parameters
    ----------
    tasks : sequence of (BoundProblem, mapping of str to float)
        The problems and the sensitivity values to solve them at.
    n_jobs : int or None
        Tasks solved in parallel (joblib processes; ``None`` or ``-1`` = all cores).
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
    >>> from fairprobe.core.bound import BoundProblem
    >>> from fairprobe.datasets import load_paper_table
    >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table())
    >>> out = run_tasks([(problem, {"D": 0.0}), (problem, {"D": 0.05})], progress=False)
    >>> [(o.status, round(o.result.upper, 4)) for o in out]
    [('optimal', 0.2309), ('optimal', 0.3433)]
    """
    from fairprobe.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

    bar = tqdm(total=len(tasks), desc=desc, disable=not progress, leave=False)
    try:
        if (n_jobs in (None, 1)) and parallel_backend is None:
            out = []
            for problem, params in tasks:
                out.append(_solve_point(problem, params, solve_kwargs))
                bar.update()
            return out
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend=parallel_backend or "loky", n_jobs=n_jobs if n_jobs is not None else -1):
            # Processes, not threads: concurrent SCIP instances in one process are unsafe.
            gen = Parallel(return_as="generator")(
                delayed(_solve_point)(problem, params, solve_kwargs) for problem, params in tasks)
            out = []
            for item in gen:
                out.append(item)
                bar.update()
            return out
    finally:
        bar.close()


@dataclass
class SensitivityResult:
    """Certified bounds of one metric under one bias over a grid of sensitivity values.

    Attributes
    ----------
    metric, bias : str
    parameters : list of str
        The swept parameters (one for a 1-D sweep, two for a 2-D sweep).
    points : list of PointOutcome
    observed : float or None
        The metric's value with no bias (all parameters 0), when point-identified there.
    fixed : dict of str to float
        Values of the parameters that were not swept.
    wall_time : float
        Seconds spent.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
    >>> res.metric, res.bias, res.parameters, round(res.observed, 6)
    ('fpr (A = 0)', 'proxy_label', ['D'], 0.230869)
    """

    metric: str
    bias: str
    parameters: list[str]
    points: list[PointOutcome]
    observed: float | None = None
    fixed: dict[str, float] = field(default_factory=dict)
    wall_time: float = 0.0

    def to_frame(self) -> pd.DataFrame:
        """One row per grid point: parameters, lower, upper, achieved values, status, time.

        Returns
        -------
        pandas.DataFrame
            One column per swept parameter, then ``lower``, ``upper``, ``lower_achieved``,
            ``upper_achieved``, ``status``, ``gap``, ``time``, ``error`` and ``excluded_events``.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> res.to_frame()[["D", "lower", "upper", "status"]].round(4).values.tolist()
        [[0.0, 0.2309, 0.2309, 'optimal'], [0.05, 0.0721, 0.3433, 'optimal']]
        """
        rows = []
        for pt in self.points:
            r = pt.result
            rows.append({
                **pt.params,
                "lower": r.lower if r else math.nan, "upper": r.upper if r else math.nan,
                "lower_achieved": r.lower_achieved if r and r.lower_achieved is not None else math.nan,
                "upper_achieved": r.upper_achieved if r and r.upper_achieved is not None else math.nan,
                "status": pt.status, "gap": r.gap if r else math.nan, "time": r.wall_time if r else math.nan,
                "error": pt.error,
                "excluded_events": ", ".join(r.excluded_events) if r else "",
            })
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form.

        Returns
        -------
        dict
            The sweep's fields and one record per grid point (NaN as None).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> d = res.to_dict()
        >>> sorted(d)
        ['bias', 'fixed', 'metric', 'observed', 'parameters', 'points', 'wall_time']
        >>> d["points"][1]["D"], round(d["points"][1]["upper"], 4)
        (0.05, 0.3433)
        """
        frame = self.to_frame().replace({np.nan: None})
        return {"metric": self.metric, "bias": self.bias, "parameters": self.parameters, "fixed": self.fixed,
                "observed": self.observed, "wall_time": self.wall_time, "points": frame.to_dict(orient="records")}

    def to_json(self, path: str | None = None) -> str:
        """Serialise (and write to ``path`` when given).

        Parameters
        ----------
        path : str, optional
            File to write the JSON text to.

        Returns
        -------
        str
            The JSON text of :meth:`to_dict`.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> import json, os, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     text = res.to_json(os.path.join(tmp, "sweep.json"))
        ...     with open(os.path.join(tmp, "sweep.json")) as fh:
        ...         same = fh.read() == text
        >>> same, json.loads(text)["parameters"]
        (True, ['D'])
        """
        text = json.dumps(self.to_dict(), indent=2, default=str)
        if path is not None:
            with open(path, "w") as fh:
                fh.write(text)
        return text

    def plot(self, ax: Any = None, *, label: str | None = None, color: str | None = None) -> Any:
        """Certified band against the sensitivity parameter, with the observed value (1-D sweeps).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (default: a new figure).
        label : str, optional
            Legend label of the band (default: ``"certified bounds (<bias>)"``).
        color : str, optional
            Colour of the band.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ConfigError
            The sweep is not 1-D.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> import matplotlib.pyplot as plt
        >>> ax = res.plot(color="C1")
        >>> ax.get_xlabel(), ax.get_ylabel()
        ('sensitivity D', 'fpr (A = 0)')
        >>> plt.close("all")
        """

        if len(self.parameters) != 1:
            raise ConfigError("plot() draws 1-D sweeps; use plot_heatmap() for a 2-D sweep.")
        ax = new_axes(ax, (5, 3.5))
        frame = self.to_frame().sort_values(self.parameters[0])
        x = frame[self.parameters[0]].to_numpy()
        band = ax.fill_between(x, frame["lower"], frame["upper"], alpha=0.3, color=color,
                               label=label or f"certified bounds ({self.bias})")
        edge = band.get_facecolor()[0][:3]
        ax.plot(x, frame["lower"], color=edge, lw=1.5)
        ax.plot(x, frame["upper"], color=edge, lw=1.5)
        if self.observed is not None:
            ax.axhline(self.observed, color="k", ls=":", lw=1, label="observed (no bias)")
        ax.axhline(0.0, color="grey", lw=0.6)
        ax.set_xlabel(f"sensitivity {self.parameters[0]}")
        ax.set_ylabel(self.metric)
        ax.legend(frameon=False, fontsize=8)
        return ax

    def plot_heatmap(self, ax: Any = None, *, value: str = "upper", annotate: bool = True) -> Any:
        """Heat map of ``value`` ("upper", "lower" or "width") over a 2-D sweep.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (default: a new figure).
        value : {"upper", "lower", "width"}
            The quantity shown.
        annotate : bool
            Write each cell's value in it (grids of at most 64 cells).

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ConfigError
            The sweep is not 2-D.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity(["proxy_label", "selection"], "fpr", load_paper_table(),
        ...                      D={"D_proxy_label": [0.0, 0.05], "D_selection": [0.0, 0.05]}, progress=False)
        >>> import matplotlib.pyplot as plt
        >>> ax = res.plot_heatmap(value="width")
        >>> ax.get_xlabel(), ax.get_ylabel(), len(ax.texts)
        ('D_proxy_label', 'D_selection', 4)
        >>> plt.close("all")
        """

        if len(self.parameters) != 2:
            raise ConfigError("plot_heatmap() needs a 2-D sweep: pass D={'D_a': [...], 'D_b': [...]}.")
        frame = self.to_frame()
        frame["width"] = frame["upper"] - frame["lower"]
        px, py = self.parameters
        grid = frame.pivot_table(index=py, columns=px, values=value)
        ax = new_axes(ax, (5, 4))
        im = ax.imshow(grid.to_numpy(), origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(grid.shape[1]), [f"{v:g}" for v in grid.columns], rotation=45)
        ax.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index])
        ax.set_xlabel(px)
        ax.set_ylabel(py)
        ax.figure.colorbar(im, ax=ax, label=f"{value} bound of {self.metric}")
        if annotate and grid.size <= 64:
            for (i, j), v in np.ndenumerate(grid.to_numpy()):
                r, g, b, _ = im.cmap(im.norm(v))
                dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5  # white on dark cells, black on light
                ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=7, color="w" if dark else "k")
        return ax

    def summary(self) -> str:
        """A short readable report.

        Returns
        -------
        str
            Grid size and time, the observed value, the bounds at the last point and any failed points.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> print(res.summary())  # doctest: +ELLIPSIS
        sensitivity of fpr (A = 0) under proxy_label: 2 points over ['D'], ...s
        observed value (no bias): 0.230869
        at D=0.05: [0.072060, 0.343264]
        """
        frame = self.to_frame()
        bad = int((frame["status"] != "optimal").sum())
        lines = [f"sensitivity of {self.metric} under {self.bias}: {len(frame)} points over {self.parameters}, "
                 f"{self.wall_time:.1f}s"]
        if self.observed is not None:
            lines.append(f"observed value (no bias): {self.observed:.6f}")
        last = frame.iloc[-1]
        lines.append(f"at {', '.join(f'{p}={last[p]:g}' for p in self.parameters)}: "
                     f"[{last['lower']:.6f}, {last['upper']:.6f}]")
        if bad:
            lines.append(f"{bad} point(s) not solved to optimality (see status column)")
        undefined = int((frame["status"] == "undefined").sum())
        if undefined:
            lines.append(f"{undefined} point(s) where the metric is undefined (see error column)")
        partly = int((frame["excluded_events"] != "").sum())
        if partly:
            lines.append(f"{partly} point(s) where the metric is undefined in some admitted models; their bounds "
                         "are over the others (see excluded_events)")
        few = {e: n for pt in self.points if pt.result is not None for e, n in pt.result.few_units.items()}
        if few:  # the same data at every point: one line for the sweep
            lines.append(few_units_line(few))
        return "\n".join(lines)


def _grid(problem: BoundProblem, D: Any, parameter: str | None,
          fixed: Mapping[str, float]) -> tuple[list[str], list[dict[str, float]]]:
    names = problem.config.parameters
    if isinstance(D, Mapping):
        axes = {str(k): [float(v) for v in vals] for k, vals in D.items()}
    else:
        if D is None or isinstance(D, (int, float)):
            raise ConfigError("Give D as a list of sensitivity values, e.g. D=np.linspace(0, 0.1, 21).")
        free = [p for p in names if p not in fixed]
        if parameter is None:
            if len(free) != 1:
                first, *rest = names
                raise ConfigError(
                    f"The bias has parameters {names}; say which to sweep (parameter={first!r}) and fix the "
                    "others by keyword, or pass D as a dict of value lists for a 2-D sweep (command line: "
                    f"--parameter {first} {' '.join('--param ' + p + '=0.05' for p in rest)}).")
            parameter = free[0]
        axes = {parameter: [float(v) for v in D]}
    unknown = [p for p in axes if p not in names]
    if unknown:
        raise ConfigError(f"Unknown sensitivity parameter(s) {unknown}; this bias has {names}.")
    for p, vals in axes.items():
        if not vals:
            raise ConfigError(f"The list of values for {p} is empty; give at least one sensitivity value.")
    missing = [p for p in names if p not in axes and p not in fixed and p in problem.parameters]
    if missing:
        raise ConfigError(f"Give fixed values for {missing} (e.g. {missing[0]}=0.02) or sweep them too.")
    swept = list(axes)
    points = [{**fixed, **dict(zip(swept, combo, strict=True))} for combo in product(*axes.values())]
    for pt in points:
        problem.parameter_values(pt)  # validate every value before any solve
    return swept, points


def _observed(problem: BoundProblem, outcomes: Sequence[PointOutcome],
              solve_kwargs: Mapping[str, Any]) -> float | None:
    """The metric with no bias: from the grid when it has the all-zero point, else one more solve."""
    zero = {p: 0.0 for p in problem.config.parameters}
    out = next((o for o in outcomes if all(o.params.get(p, 0.0) == 0.0 for p in zero)), None)
    if out is None:
        out = _solve_point(problem, zero, solve_kwargs)
    if out.result is None or out.result.width > 1e-6:
        return None
    return 0.5 * (out.result.lower + out.result.upper)


def _bias_label(bias: Any) -> str:
    if isinstance(bias, (list, tuple)):
        return "+".join(_bias_label(b) for b in bias)
    if isinstance(bias, str) and not bias.lstrip().startswith("{"):
        return bias
    return getattr(bias, "name", None) or "custom"


def sensitivity(
    bias: Any, metric: Any, data: Any, D: Iterable[float] | Mapping[str, Iterable[float]], *,
    parameter: str | None = None, backend: str = "scip", time_limit: float | None = DEFAULT_TIME_LIMIT,
    gap: float = 1e-6, n_jobs: int | None = 1, parallel_backend: str | None = None, progress: bool = True,
    reduce: bool = True,
    solver_options: Mapping[str, Any] | None = None, unmeasured: Any = None, **fixed: float,
) -> SensitivityResult:
    """Certified bounds of ``metric`` under ``bias`` for every sensitivity value in ``D``.

    Parameters
    ----------
    bias, metric, data : Any
        The bias, the metric and the observed data, as for :func:`fairprobe.bound`; ``bias`` may be
        a list (combined biases).
    D : list of float or dict of lists
        Values of the (single) sensitivity parameter, or ``{"D_a": [...], "D_b": [...]}`` for a
        2-D grid over two parameters of a combined bias.
    parameter : str, optional
        Which parameter a list ``D`` sweeps when the bias has several (fix the others by keyword).
    backend : str
        Backend name (see :func:`fairprobe.bound`).
    time_limit : float or None, optional
        Seconds per point, shared by all the solves of that point (default 60; None: no limit).
    gap : float
        Target optimality gap per side.
    n_jobs : int
        Grid points solved in parallel (joblib processes; ``-1`` = all cores).
    parallel_backend : str, optional
        joblib backend, e.g. ``"dask"`` to run on the active ``dask.distributed`` client.
    progress : bool
        Show a progress bar.
    reduce : bool
        Apply the exact program reductions (see :func:`fairprobe.bound`).
    solver_options : dict, optional
        Backend-specific parameters (see :func:`fairprobe.bound`).
    unmeasured : list of str, optional
        DAG nodes without a column in the table, on purpose (see :func:`fairprobe.bound`).
    **fixed
        Values of parameters that are not swept.

    Returns
    -------
    SensitivityResult

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> res = fp.sensitivity("proxy_label", "fpr", cells, D=[0.0, 0.05, 0.1], progress=False)
    >>> res.to_frame()[["D", "lower", "upper"]].round(4).values.tolist()
    [[0.0, 0.2, 0.2], [0.05, 0.0, 0.3333], [0.1, 0.0, 0.4286]]
    """
    start = time.perf_counter()
    D = sweep_grid(D)
    check_sweep_options(parameter=parameter, fixed=fixed, backend=backend, time_limit=time_limit, gap=gap,
                        n_jobs=n_jobs, parallel_backend=parallel_backend, progress=progress, reduce=reduce,
                        solver_options=solver_options)
    problem = BoundProblem(bias, metric, data, reduce=reduce, fixed=fixed, unmeasured=unmeasured)
    swept, points = _grid(problem, D, parameter, fixed)
    solve_kwargs = {"backend": backend, "time_limit": time_limit, "gap": gap, "solver_options": solver_options}
    outcomes = run_tasks([(problem, pt) for pt in points], n_jobs=n_jobs, parallel_backend=parallel_backend,
                         progress=progress, desc=f"{problem.metric.label}", **solve_kwargs)
    if all(o.status == "undefined" for o in outcomes):
        # no grid point has a value: an error, not a table of NaN
        raise UndefinedMetricError(outcomes[0].error or f"The metric {problem.metric.label!r} is undefined.")
    observed = _observed(problem, outcomes, solve_kwargs)
    return SensitivityResult(problem.metric.label, _bias_label(bias), swept, outcomes, observed, dict(fixed),
                             time.perf_counter() - start)


def sensitivity_grid(
    biases: Sequence[Any], metrics: Sequence[Any], datasets: Mapping[str, Any], D: Iterable[float], *,
    backend: str = "scip", time_limit: float | None = DEFAULT_TIME_LIMIT, gap: float = 1e-6, n_jobs: int | None = 1,
    parallel_backend: str | None = None, progress: bool = True, unmeasured: Any = None,
) -> pd.DataFrame:
    """Sweep every (dataset, bias, metric) combination over ``D`` in one parallel run.

    Parameters
    ----------
    biases : sequence
        Biases with one sensitivity parameter each (names, configs, ...; see :func:`fairprobe.bound`).
    metrics : sequence
        Metrics (names, configured metrics or query strings).
    datasets : mapping of str to table or data frame
        The data, by the name used in the ``dataset`` column.
    D : list of float
        Sensitivity values of every sweep.
    backend : str
        Backend name (see :func:`fairprobe.bound`).
    time_limit : float or None, optional
        Seconds per point, shared by all the solves of that point (default 60; None: no limit).
    gap : float
        Target optimality gap per side.
    n_jobs : int or None
        Grid points solved in parallel (joblib processes; ``-1`` = all cores).
    parallel_backend : str, optional
        joblib backend, e.g. ``"dask"``.
    progress : bool
        Show a progress bar.
    unmeasured : list of str, optional
        DAG nodes that no dataset has as a column (see :func:`fairprobe.bound`).

    Returns
    -------
    pandas.DataFrame
        A long frame: dataset, bias, metric, D, lower, upper, status, error.

    Raises
    ------
    ConfigError
        ``D`` is empty or a dict, or a bias has several sensitivity parameters.

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> out = fp.sensitivity_grid(["proxy_label", "selection"], ["demographic_parity"], {"toy": cells},
    ...                           D=[0.0, 0.1], progress=False)
    >>> out.groupby("bias")["upper"].max().round(4).to_dict()
    {'proxy_label': -0.1, 'selection': 0.0121}
    """
    D = sweep_grid(D)
    if isinstance(D, dict):
        raise ConfigError("sensitivity_grid sweeps one parameter: give D as a list of values, e.g. D=[0, 0.05].")
    if not D:
        raise ConfigError("The list of sensitivity values D is empty; give at least one value, e.g. D=[0, 0.05].")
    tasks, keys = [], []
    for (name, data), bias, metric in product(datasets.items(), biases, metrics):
        problem = BoundProblem(bias, metric, data, unmeasured=unmeasured)
        if len(problem.config.parameters) != 1:
            raise ConfigError(f"sensitivity_grid sweeps one parameter; {_bias_label(bias)} has "
                              f"{problem.config.parameters}: sweep it with fp.sensitivity(..., D={{name: values}}).")
        p = problem.config.parameters[0]
        for d in D:
            tasks.append((problem, {p: d}))
            keys.append({"dataset": name, "bias": _bias_label(bias), "metric": problem.metric.label, "D": d})
    outcomes = run_tasks(tasks, n_jobs=n_jobs, parallel_backend=parallel_backend, progress=progress,
                         desc="sensitivity grid", backend=backend, time_limit=time_limit, gap=gap)
    rows = []
    for key, out in zip(keys, outcomes, strict=True):
        r = out.result
        rows.append({**key, "lower": r.lower if r else math.nan, "upper": r.upper if r else math.nan,
                     "status": out.status, "error": out.error})
    return pd.DataFrame(rows)

"""The sweep page's logic, without Streamlit: metrics, D grids, a sweep solved point by point, reports.
"""

from __future__ import annotations

import inspect
import io
import tempfile
import time
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.core.uncertainty import interval_options, sampling_interval
from fairprobe.exceptions import ConfigError, UndefinedMetricError

__all__ = ["DEFAULT_TIME_LIMIT", "GROUP_MODES", "MAX_TIME_LIMIT", "SweepJob", "analysis_report_zip", "conclusion",
           "d_grid", "make_metric", "results_frame", "results_json", "sweep_report_zip", "zip_folder"]

#: Solver time limit per solve (seconds) unless the user picks another; never unlimited.
DEFAULT_TIME_LIMIT = 10.0
#: Largest time limit the app accepts per solve (seconds).
MAX_TIME_LIMIT = 600.0

#: How the Data page compares more than two groups: two chosen groups, or the API's multi-group forms.
GROUP_MODES: dict[str, str | None] = {"two groups": None, "all pairs (largest gap)": "all",
                                      "each group against the rest": "each_vs_rest"}


def make_metric(name: str, groups: tuple[Any, Any] | str | None = None) -> Any:
    """A registered metric comparing ``groups`` (or the metric's default groups).

    Parameters
    ----------
    name : str
        Registered metric name.
    groups : tuple or str, optional
        The two groups, by label, or ``"all"`` / ``"each_vs_rest"``. None leaves the choice to the
        metric's own rule, which refuses to pick two of more than two groups.

    Returns
    -------
    Metric

    Raises
    ------
    ConfigError
        No metric is registered under ``name`` (the message lists the registered names).

    Examples
    --------
    >>> make_metric("fpr_parity", ("b", "a")).groups
    ('b', 'a')
    """
    metrics = fp.get_registry().metrics
    if not isinstance(name, str) or name not in metrics:
        raise ConfigError(f"Unknown metric {name!r}; choose one of the registered metrics: {sorted(metrics)}.")
    cls = metrics[name]
    params = inspect.signature(cls.__init__).parameters
    if groups is None:
        return cls()
    if isinstance(groups, str):
        if getattr(cls, "compares_one_group", False):
            raise ConfigError(f"{name} is the rate of one group; choose two groups on the Data page (the first is "
                              "the group whose rate is bounded), not all pairs.")
        return cls(groups=groups) if "groups" in params else cls()
    if getattr(cls, "compares_one_group", False) and "group" in params:
        return cls(group=groups[0])
    if "groups" in params:
        return cls(groups=tuple(groups))
    return cls()


def d_grid(start: float, stop: float, n: int) -> list[float]:
    """``n`` evenly spaced sensitivity values from ``start`` to ``stop`` (rounded to 12 digits).

    Parameters
    ----------
    start, stop : float
        Ends of the range, in [0, 1].
    n : int
        Number of points (>= 1).

    Returns
    -------
    list of float

    Raises
    ------
    ConfigError
        Values outside [0, 1], ``stop < start`` or ``n < 1``.

    Examples
    --------
    >>> d_grid(0, 0.1, 5)
    [0.0, 0.025, 0.05, 0.075, 0.1]
    """
    if not (0.0 <= start <= 1.0 and 0.0 <= stop <= 1.0):
        raise ConfigError(f"The D range [{start}, {stop}] must lie in [0, 1].")
    if stop < start:
        raise ConfigError(f"The D range ends ({stop}) before it starts ({start}); swap them.")
    if int(n) < 1:
        raise ConfigError("Give at least one point.")
    return [round(float(v), 12) for v in np.linspace(start, stop, int(n))]


# -- sweeps --------------------------------------------------------------------------------------------
@dataclass
class SweepJob:
    """A sensitivity sweep solved one point at a time (for a progress bar and a cancel button).

    It runs the problem API that :func:`fairprobe.sensitivity` runs: compile once
    (:class:`~fairprobe.core.bound.BoundProblem`), take the grid from
    :meth:`~fairprobe.core.bound.BoundProblem.points`, solve each point with
    :meth:`~fairprobe.core.bound.BoundProblem.solve_point` and assemble the result with
    :meth:`fairprobe.SensitivityResult.from_points`; so its numbers, observed value and conclusion
    are those of ``fp.sensitivity``.

    Parameters
    ----------
    bias, metric, data
        As for :func:`fairprobe.sensitivity`.
    grid : list of float or dict of str to list of float
        The swept values (a dict of two lists for a 2-D sweep).
    parameter : str, optional
        The swept parameter of a 1-D sweep (default: the bias's only parameter).
    fixed : dict, optional
        Values of parameters not swept.
    backend : str
        Backend name.
    time_limit : float
        Seconds per solve (always set).
    ci : float, optional
        A sampling interval at this level at every point (as ``fp.sensitivity(..., ci=)``); each
        step then solves the point and its interval, so cancel stops between points.
    ci_method, resamples, seed : optional
        The interval's method, resamples and seed (see :func:`fairprobe.bound`).

    Examples
    --------
    >>> from fairprobe.app.data import load_bundled
    >>> frame, kind = load_bundled("paper")
    >>> job = SweepJob("proxy_label", "fpr", frame, [0.0, 0.05])
    >>> while not job.done:
    ...     _ = job.step()
    >>> [round(v, 4) for v in job.result().to_frame()["upper"]]
    [0.2309, 0.3433]
    """

    bias: Any
    metric: Any
    data: Any
    grid: Any
    parameter: str | None = None
    fixed: dict[str, float] = field(default_factory=dict)
    backend: str = "scip"
    time_limit: float = DEFAULT_TIME_LIMIT
    ci: float | None = None
    ci_method: str = "bootstrap"
    resamples: int = 200
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.time_limit or not (0 < float(self.time_limit) <= MAX_TIME_LIMIT):
            raise ConfigError(f"The time limit must lie in (0, {MAX_TIME_LIMIT:g}] seconds.")
        self.started = time.perf_counter()
        # the page keeps its resamples setting while the box is unticked: no interval then
        self.interval = interval_options(self.ci, ci_method=self.ci_method, resamples=self.resamples,
                                         seed=self.seed) if self.ci else None
        self.problem = BoundProblem(self.bias, self.metric, self.data, fixed=self.fixed)
        if self.interval is not None:
            self.problem.table.counts()  # a table without a sample size: the error names the fix
        grid = self.grid if isinstance(self.grid, Mapping) else list(self.grid)
        self.swept, self.points = self.problem.points(grid, parameter=self.parameter)
        self.outcomes: list[Any] = []
        self.first_point_time: float | None = None
        self.compile_time = time.perf_counter() - self.started
        self.solve_time = 0.0

    @property
    def solve_kwargs(self) -> dict[str, Any]:
        """Options of every solve (as :func:`fairprobe.sensitivity` passes them).

        Examples
        --------
        >>> from fairprobe.app.data import load_bundled
        >>> frame, _ = load_bundled("paper")
        >>> SweepJob("proxy_label", "fpr", frame, [0.0], time_limit=5).solve_kwargs["time_limit"]
        5.0
        """
        return fp.RunOptions(backend=self.backend, time_limit=float(self.time_limit)).point_kwargs()

    @property
    def done(self) -> bool:
        """Whether every point is solved.

        Examples
        --------
        >>> from fairprobe.app.data import load_bundled
        >>> frame, _ = load_bundled("paper")
        >>> job = SweepJob("proxy_label", "fpr", frame, [0.0])
        >>> job.done, (job.step(), job.done)[1]
        (False, True)
        """
        return len(self.outcomes) >= len(self.points)

    def step(self) -> Any:
        """Solve the next grid point; returns its outcome.

        Examples
        --------
        >>> from fairprobe.app.data import load_bundled
        >>> frame, _ = load_bundled("paper")
        >>> out = SweepJob("proxy_label", "fpr", frame, [0.05]).step()
        >>> round(out.result.upper, 4)
        0.3433
        """
        pt = self.points[len(self.outcomes)]
        start = time.perf_counter()
        out = self.problem.solve_point(pt, **self.solve_kwargs)
        if self.interval is not None and out.result is not None:
            out.result.interval = sampling_interval(self.problem, out.params, out.result, self.interval, n_jobs=1,
                                                progress=False, solve_kwargs=self.solve_kwargs)
        self.solve_time += time.perf_counter() - start
        self.outcomes.append(out)
        if self.first_point_time is None:
            self.first_point_time = time.perf_counter() - self.started
        return out

    def partial_frame(self) -> pd.DataFrame:
        """The points solved so far, as :meth:`fairprobe.SensitivityResult.to_frame` gives them.

        Examples
        --------
        >>> from fairprobe.app.data import load_bundled
        >>> frame, _ = load_bundled("paper")
        >>> job = SweepJob("proxy_label", "fpr", frame, [0.0, 0.05])
        >>> _ = job.step()
        >>> job.partial_frame()["D"].tolist()
        [0.0]
        """
        return fp.SensitivityResult.from_points(self.problem, self.bias, self.swept, self.outcomes, None).to_frame()

    def result(self) -> fp.SensitivityResult:
        """The sweep's result over the points solved (all of them unless cancelled).

        Examples
        --------
        >>> from fairprobe.app.data import load_bundled
        >>> frame, _ = load_bundled("paper")
        >>> job = SweepJob("proxy_label", "fpr", frame, [0.0, 0.05])
        >>> _ = job.step()  # cancelled after one point
        >>> len(job.result().to_frame())
        1
        """
        if self.outcomes and all(o.status == "undefined" for o in self.outcomes):
            raise UndefinedMetricError(self.outcomes[0].error or "The metric is undefined.")
        observed = self.problem.observed(self.outcomes, **self.solve_kwargs)
        return fp.SensitivityResult.from_points(self.problem, self.bias, self.swept, self.outcomes, observed,
                                                time.perf_counter() - self.started)


def results_frame(result: fp.SensitivityResult, digits: int = 8) -> pd.DataFrame:
    """The sweep's table with numbers as text of ``digits`` decimals (what the page shows).

    Parameters
    ----------
    result : SensitivityResult
    digits : int
        Decimals shown.

    Returns
    -------
    DataFrame
        Parameters, lower, upper, achieved bounds and status; numbers formatted.

    Examples
    --------
    >>> from fairprobe.app.data import load_bundled
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr", frame, D=[0.0], progress=False)
    >>> results_frame(res, 4)["upper"].tolist()
    ['0.2309']
    """
    frame = result.to_frame()
    cols = [*result.parameters, "lower", "upper", "lower_achieved", "upper_achieved", "status"]
    out = frame[cols].copy()
    for c in cols[:-1]:
        out[c] = [("nan" if pd.isna(v) else f"{float(v):.{digits}f}") for v in out[c]]
    return out


def conclusion(result: fp.SensitivityResult, breakdown_value: float | None = None) -> str:
    """The sweep's own conclusion (:meth:`fairprobe.SensitivityResult.conclusion`), as the page prints it.

    Parameters
    ----------
    result : SensitivityResult
        A sweep.
    breakdown_value : float, optional
        The breakdown point (:func:`fairprobe.breakdown`), when computed.

    Returns
    -------
    str

    Examples
    --------
    >>> from fairprobe.app.data import load_bundled
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr_parity", frame, D=[0.0, 0.01, 0.05], progress=False)
    >>> conclusion(res) == res.conclusion().text
    True
    """
    return result.conclusion(breakdown_value).text


def zip_folder(folder: str | Path) -> bytes:
    """The files under ``folder`` as a zip archive in memory (paths relative to ``folder``).

    Parameters
    ----------
    folder : path

    Returns
    -------
    bytes

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "index.html").write_text("<html></html>")
    ...     data = zip_folder(tmp)
    >>> zipfile.ZipFile(io.BytesIO(data)).namelist()
    ['index.html']
    """
    folder = Path(folder)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(folder).as_posix())
    return buf.getvalue()


def sweep_report_zip(results: fp.SensitivityResult | Sequence[fp.SensitivityResult], *,
                     breakdowns: Mapping[str, Any] | None = None, config: fp.BiasConfig | None = None,
                     title: str = "fairprobe app: sensitivity analysis") -> bytes:
    """The HTML report folder of sweeps (:class:`fairprobe.reporting.report.Report`), zipped in memory.

    Parameters
    ----------
    results : SensitivityResult or list of them
        One section each.
    breakdowns : mapping of str to BreakdownResult, optional
        Breakdown points by metric label.
    config : BiasConfig, optional
        The edited bias, listed in the report.
    title : str
        Title of the page.

    Returns
    -------
    bytes
        A zip with ``index.html``, ``figures/``, ``tables/`` and ``report.json``.

    Examples
    --------
    >>> from fairprobe.app.data import load_bundled
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr", frame, D=[0.0, 0.05], progress=False)
    >>> "index.html" in zipfile.ZipFile(io.BytesIO(sweep_report_zip(res))).namelist()
    True
    """
    import matplotlib.pyplot as plt

    from fairprobe.reporting.report import Report

    results = [results] if isinstance(results, fp.SensitivityResult) else list(results)
    breakdowns = dict(breakdowns or {})
    report = Report(title, command="fairprobe app")
    report.summary = "\n\n".join(r.summary() for r in results)
    for result in results:
        bp = breakdowns.get(result.metric)
        sec = report.section(f"{result.metric} under {result.bias}")
        sec.add_parameters({"metric": result.metric, "bias": result.bias,
                            "parameters": ", ".join(result.parameters), **dict(result.fixed)})
        sec.add_note(result.summary())
        if len(result.parameters) == 1:
            sec.add_note(conclusion(result, None if bp is None else bp.value))
            sec.add_figure("sweep", result.plot().figure)
        else:
            sec.add_figure("heatmap", result.plot_heatmap().figure)
        sec.add_table("results", result.to_frame())
        if bp is not None:
            sec.add_note(bp.summary())
        plt.close("all")
    if config is not None:
        report.section("bias config").add_note(config.to_json())
    with tempfile.TemporaryDirectory(prefix="fairprobe-app-") as tmp:
        report.write(Path(tmp) / "report")
        return zip_folder(Path(tmp) / "report")


def analysis_report_zip(analysis: Any) -> bytes:
    """A fitted analysis's report folder (``to_report``), zipped in memory.

    Parameters
    ----------
    analysis : Analysis
        A fitted analysis.

    Returns
    -------
    bytes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> data = analysis_report_zip(FairTree.example().fit())
    >>> "index.html" in zipfile.ZipFile(io.BytesIO(data)).namelist()
    True
    >>> plt.close("all")
    """
    with tempfile.TemporaryDirectory(prefix="fairprobe-app-") as tmp:
        analysis.to_report(Path(tmp) / "report")
        return zip_folder(Path(tmp) / "report")


def results_json(result: fp.SensitivityResult) -> str:
    """The sweep as JSON text (:meth:`fairprobe.SensitivityResult.to_json`).

    Parameters
    ----------
    result : SensitivityResult

    Returns
    -------
    str

    Examples
    --------
    >>> from fairprobe.app.data import load_bundled
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr", frame, D=[0.0], progress=False)
    >>> import json
    >>> json.loads(results_json(res))["metric"]
    'fpr (A = 0)'
    """
    return result.to_json()

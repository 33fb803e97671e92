"""A sensitivity sweep's result (:class:`SensitivityResult`) and what a 1-D sweep settles (:func:`sweep_conclusion`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.jsonsafe import dumps
from fairprobe.core.plotting import new_axes
from fairprobe.core.results.bound_result import PointOutcome
from fairprobe.core.results.explained import Explained, Summary, few_units_line
from fairprobe.core.results.interval import interval_columns
from fairprobe.core.results.wording import (
    SIGN_TOLERANCE,
    Conclusion,
    ObservedValue,
    keeps_sign,
    percent,
    too_few_units_text,
)
from fairprobe.exceptions import ConfigError

__all__ = ["SensitivityResult", "bias_label", "sweep_conclusion"]


@dataclass
class SensitivityResult(Explained):
    """Certified bounds of one metric under one bias over a grid of sensitivity values.

    Attributes
    ----------
    metric, bias : str
    parameters : list of str
        The swept parameters (one for a 1-D sweep, two for a 2-D sweep).
    points : list of PointOutcome
    observed : ObservedValue or None
        The metric with no bias (all parameters 0).
    fixed : dict of str to float
        Values of the parameters that were not swept.
    wall_time : float
        Seconds spent.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
    >>> res.metric, res.bias, res.parameters, round(res.observed.point, 6)
    ('fpr (A = 0)', 'proxy_label', ['D'], 0.230869)
    """

    metric: str
    bias: str
    parameters: list[str]
    points: list[PointOutcome]
    observed: ObservedValue | None = None
    fixed: dict[str, float] = field(default_factory=dict)
    wall_time: float = 0.0

    def __post_init__(self) -> None:
        for pt in self.points:  # every point's conclusion reads the same no-bias value
            if pt.result is not None and self.observed is not None and pt.result.observed is None:
                pt.result.set_observed(self.observed)

    @classmethod
    def from_points(cls, problem: Any, bias: Any, swept: list[str], outcomes: Sequence[PointOutcome],
                    observed: ObservedValue | None, wall_time: float = 0.0) -> SensitivityResult:
        """Assemble a sweep's result from its solved points (what :func:`sensitivity` returns).

        Parameters
        ----------
        problem : BoundProblem
            The compiled problem (its ``metric.label`` and ``fixed`` values are read).
        bias : Any
            The bias as the caller gave it (for its label).
        swept : list of str
        outcomes : sequence of PointOutcome
            The points solved so far (all of them unless cancelled).
        observed : ObservedValue or None
            The metric with no bias (:meth:`BoundProblem.observed`).
        wall_time : float

        Returns
        -------
        SensitivityResult

        Examples
        --------
        >>> from fairprobe.core.engine import BoundProblem
        >>> from fairprobe.core.sensitivity import run_tasks
        >>> from fairprobe.datasets import load_paper_table
        >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table())
        >>> swept, grid = problem.points([0.0, 0.05])
        >>> outs = run_tasks([(problem, pt) for pt in grid], progress=False)
        >>> res = SensitivityResult.from_points(problem, "proxy_label", swept, outs, problem.observed())
        >>> round(res.observed.point, 6)
        0.230869
        """
        return cls(problem.metric.label, bias_label(bias), list(swept), list(outcomes), observed, dict(problem.fixed),
                   wall_time)

    def conclusion(self, breakdown_value: float | None = None) -> Conclusion:
        """Up to which sensitivity value the conclusion the data show without bias holds (1-D sweeps).

        Parameters
        ----------
        breakdown_value : float, optional
            The breakdown point (:func:`fairprobe.breakdown`) of the same question, replacing the grid's resolution.

        Returns
        -------
        Conclusion

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr_parity", load_paper_table(), D=[0.0, 0.01, 0.05], progress=False)
        >>> print(res.conclusion())  # doctest: +NORMALIZE_WHITESPACE
        Without bias fpr_parity (A: 0 vs 1) is -0.0426 (negative). It keeps its sign for every D up to 1 % under
        proxy_label bias (D is the sensitivity parameter); at D = 5 % the certified bounds [-0.2014, 0.1421]
        include 0, so the sign can flip.
        """
        return sweep_conclusion(self, breakdown_value)

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
                **interval_columns(r.interval if r else None),
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
        >>> res.to_dict()["points"][1]["D"]
        0.05
        """
        frame = self.to_frame().replace({np.nan: None})
        observed = None if self.observed is None else self.observed.to_dict()
        return {"metric": self.metric, "bias": self.bias, "parameters": self.parameters, "fixed": self.fixed,
                "observed": observed, "wall_time": self.wall_time, "points": frame.to_dict(orient="records"),
                "conclusion": self.conclusion().text, "verdict": self.conclusion().verdict}

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
        >>> import json
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> json.loads(res.to_json())["parameters"]
        ['D']
        """
        text = dumps(self.to_dict(), indent=2)
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
        ax = new_axes(ax, (5.5, 4.2))
        frame = self.to_frame().sort_values(self.parameters[0])
        x = frame[self.parameters[0]].to_numpy()
        if "ci_lower" in frame.columns:  # the sampling interval around the bounds, lighter
            level = frame["ci_level"].dropna()
            what = f"{level.iloc[0] * 100:g} % CI, {frame['ci_method'].dropna().iloc[0]}" if len(level) else "CI"
            ci_band = ax.fill_between(x, frame["ci_lower"], frame["ci_upper"], alpha=0.12, color=color,
                                      label=f"{what} (bias and sampling error)")
            ci_edge = ci_band.get_facecolor()[0][:3]
            ax.plot(x, frame["ci_lower"], color=ci_edge, lw=1, ls="--")
            ax.plot(x, frame["ci_upper"], color=ci_edge, lw=1, ls="--")
            color = color or ci_edge  # the bounds' band in the same colour, darker
        band = ax.fill_between(x, frame["lower"], frame["upper"], alpha=0.3, color=color,
                               label=label or f"certified bounds ({self.bias})")
        edge = band.get_facecolor()[0][:3]
        ax.plot(x, frame["lower"], color=edge, lw=1.5)
        ax.plot(x, frame["upper"], color=edge, lw=1.5)
        if self.observed is not None and self.observed.point is not None:
            ax.axhline(self.observed.point, color="k", ls=":", lw=1, label="observed (no bias)")
        ax.axhline(0.0, color="grey", lw=0.6)
        ax.set_xlabel(f"sensitivity {self.parameters[0]}")
        ax.set_ylabel(self.metric)
        # below the axes: inside, the legend covered the bands it explains
        ax.legend(frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
        return ax

    def plot_heatmap(self, ax: Any = None, *, value: str = "upper", annotate: bool = True) -> Any:
        """Heat map of ``value`` ("upper", "lower" or "width") over a 2-D sweep.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            As for :meth:`plot`, which returns it too.
        value : {"upper", "lower", "width"}
        annotate : bool
            Write each cell's value in it (grids of at most 64 cells).

        Returns
        -------
        matplotlib.axes.Axes

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

    def summary(self) -> Summary:
        """A short readable report.

        Returns
        -------
        Summary
            Grid size and time, the observed value, the bounds at the last point, any failed points and
            the conclusion, with the table of bounds.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.sensitivity("proxy_label", "fpr", load_paper_table(), D=[0.0, 0.05], progress=False)
        >>> print(res.summary())  # doctest: +ELLIPSIS
        sensitivity of fpr (A = 0) under proxy_label: 2 points over ['D'], ...s
        observed value (no bias): 0.230869
        at D=0.05: [0.072060, 0.343264]
        conclusion: Without bias fpr (A = 0) is 0.2309. At D = 5 % under proxy_label bias ...
        """
        frame = self.to_frame()
        bad = int((frame["status"] != "optimal").sum())
        lines = [f"sensitivity of {self.metric} under {self.bias}: {len(frame)} points over {self.parameters}, "
                 f"{self.wall_time:.1f}s"]
        if self.observed is not None and self.observed.point is not None:
            lines.append(f"observed value (no bias): {self.observed.point:.6f}")
        last = frame.iloc[-1]
        lines.append(f"at {', '.join(f'{p}={last[p]:g}' for p in self.parameters)}: "
                     f"[{last['lower']:.6f}, {last['upper']:.6f}]")
        last_result = next((pt.result for pt in reversed(self.points) if pt.result is not None), None)
        if last_result is not None and last_result.interval is not None:
            lines.append(f"  with sampling error: {last_result.interval.text()} (every point: the ci_* columns)")
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
        lines.append(f"conclusion: {self.conclusion().text}")
        return Summary("\n".join(lines), title=f"Sensitivity of {self.metric} under {self.bias}",
                       tables={"bounds": frame})


def bias_label(bias: Any) -> str:
    """The name a bias is shown under: a registered name, ``a+b`` for combined biases, else its ``name``.

    Parameters
    ----------
    bias : Any
        A bias as the causal drivers accept it.

    Returns
    -------
    str

    Examples
    --------
    >>> bias_label(["proxy_label", "selection"]), bias_label('{"dag_str": "A->Y"}')
    ('proxy_label+selection', 'custom')
    """
    if isinstance(bias, (list, tuple)):
        return "+".join(bias_label(b) for b in bias)
    if isinstance(bias, str) and not bias.lstrip().startswith("{"):
        return bias
    return getattr(bias, "name", None) or "custom"


def sweep_conclusion(sweep: SensitivityResult, breakdown_value: float | None = None) -> Conclusion:
    """:meth:`SensitivityResult.conclusion` of ``sweep`` (``breakdown_value`` as there)."""
    if len(sweep.parameters) != 1:
        return Conclusion("undetermined", "A two-parameter sweep: read the heat map (one conclusion per cell: "
                          "fp.bound at that point).")
    p = sweep.parameters[0]
    solved = sorted((pt for pt in sweep.points if pt.result is not None), key=lambda pt: pt.params[p])
    notes = _limit_notes(solved)
    tail = f" {notes[0]}" if notes else ""
    where = f"under {sweep.bias} bias ({p} is the sensitivity parameter)"
    obs = sweep.observed
    if not solved:
        return Conclusion("undetermined", f"No point of the sweep could be bounded ({sweep.points[0].error}).")
    if obs is None or obs.point is None:
        return _without_point(sweep, p, solved, tail, notes)
    few = solved[0].result.few_units
    if few:
        return Conclusion("too_few_units", f"Without bias {sweep.metric} is {obs.point:.4f}. "
                          f"{too_few_units_text(few)}: the sweep shows the bounds, not a conclusion that holds or "
                          f"breaks.{tail}", (*notes, "too few units"))
    value = obs.point
    if solved[0].result.metric_kind == "rate":
        last = solved[-1]
        return Conclusion("range", f"Without bias {sweep.metric} is {value:.4f}. At {p} = {percent(last.params[p])} "
                          f"{where} its certified range is [{last.result.lower:.4f}, {last.result.upper:.4f}]; a "
                          f"rate has no sign to keep.{tail}", notes)
    question = _SweepQuestion.of(sweep.metric, value, solved)
    if question is None:
        return Conclusion("undetermined", f"Without bias {sweep.metric} is 0: there is no sign to keep.{tail}",
                          notes)
    noise, noisy = _sweep_noise(solved, p, question.sign)
    return _sweep_reach(question, solved, p, where, noise + tail, notes, noisy, breakdown_value)


def _limit_notes(solved: list) -> tuple[str, ...]:
    """The note on the points where the solver stopped at its limit (none when every point is optimal)."""
    limited = sum(1 for pt in solved if pt.result.status != "optimal")
    return ((f"At {limited} point(s) the solver stopped at its limit: their bounds are certified but may be wider "
             "than the true range (raise the time limit)."),) if limited else ()


def _without_point(sweep: SensitivityResult, p: str, solved: list, tail: str, notes: tuple[str, ...]) -> Conclusion:
    """A sweep whose metric has no single value without bias: nothing to hold or flip."""
    obs = sweep.observed
    first = solved[0].result
    if obs is not None and obs.defined:
        why = f"is only bounded, [{obs.lower:.4f}, {obs.upper:.4f}], without bias"
    else:
        why = "has no value without bias" + (f" ({obs.error})" if obs is not None and obs.error else "")
    return Conclusion("undetermined", f"{sweep.metric} {why}; at {p} = {solved[0].params[p]:g} it lies in "
                      f"[{first.lower:.4f}, {first.upper:.4f}], so there is no observed conclusion to hold or "
                      f"flip.{tail}", notes)


@dataclass(frozen=True)
class _SweepQuestion:
    """What a sweep of a gap or a signed disparity tests, and at which points it holds."""

    head: str  # the no-bias value, as the conclusion's first sentence
    keeps: list[bool]  # per solved point: the conclusion holds there
    what: str  # the conclusion that holds ("A gap remains", "It keeps its sign")
    lost_text: str  # what the bounds of the first point that loses it include
    verdict_lost: str
    sign: str  # a never-negative gap "keeps" exactly as a positive sign does: its lower end stays above 0

    @classmethod
    def of(cls, metric: str, value: float, solved: list) -> _SweepQuestion | None:
        """The question of a never-negative gap or of a signed disparity; None when its no-bias value is 0."""
        first = solved[0].result
        if first.nonnegative or first.metric_kind == "nonnegative":
            return cls(f"Without bias {metric} is {value:.4f}. ", [pt.result.lower > SIGN_TOLERANCE for pt in solved],
                       "A gap remains", "include 0, so the disparity could be 0", "could_be_zero", "positive")
        sign = "positive" if value > SIGN_TOLERANCE else "negative" if value < -SIGN_TOLERANCE else None
        if sign is None:
            return None
        return cls(f"Without bias {metric} is {value:.4f} ({sign}). ",
                   [keeps_sign(sign, pt.result.lower, pt.result.upper) for pt in solved],
                   "It keeps its sign", "include 0, so the sign can flip", "can_flip", sign)


def _sweep_reach(q: _SweepQuestion, solved: list, p: str, where: str, tail: str, notes: tuple[str, ...],
                 noisy: bool, breakdown_value: float | None) -> Conclusion:
    """How far the conclusion holds: up to the breakdown point when given, else over the grid."""
    head, what = q.head, q.what
    if breakdown_value is not None:
        if math.isinf(breakdown_value):
            return Conclusion("survives_bias_only" if noisy else "survives",
                              head + f"{what} for every {p} searched {where}.{tail}", notes)
        return Conclusion(q.verdict_lost, head + f"{what} for any {p} below {percent(breakdown_value)} {where} "
                          f"(breakdown point).{tail}", notes)
    if all(q.keeps):
        return Conclusion("survives_bias_only" if noisy else "survives", head + f"{what} for every {p} up to "
                          f"{percent(solved[-1].params[p])} {where}.{tail}", notes)
    first_lost = next(pt for pt, k in zip(solved, q.keeps, strict=True) if not k)
    kept = [pt.params[p] for pt, k in zip(solved, q.keeps, strict=True) if k and pt.params[p] < first_lost.params[p]]
    if not kept or max(kept) <= 0:
        keep = f"On this grid {what[0].lower() + what[1:]} only without bias {where}"
    else:
        keep = f"{what} for every {p} up to {percent(max(kept))} {where}"
    bounds = f"[{first_lost.result.lower:.4f}, {first_lost.result.upper:.4f}]"
    return Conclusion(q.verdict_lost, head + f"{keep}; at {p} = {percent(first_lost.params[p])} the certified bounds "
                      f"{bounds} {q.lost_text}.{tail}", notes)


def _sweep_noise(solved: list, p: str, sign: str) -> tuple[str, bool]:
    """The sentence on the sweep's sampling intervals and whether they lose the conclusion (``("", False)`` without)."""
    intervals = [pt.result.interval for pt in solved]
    if not intervals or any(ci is None for ci in intervals):
        return "", False
    keeps = [keeps_sign(sign, ci.lower, ci.upper) for ci in intervals]
    if all(keeps):
        return f" With sampling error too ({intervals[0].level_text()}) it holds at every point.", False
    last = None
    for pt, k in zip(solved, keeps, strict=True):
        if not k:
            break
        last = pt.params[p]
    kind = intervals[0].level_text()
    if last is None:
        return (f" With sampling error ({kind}) it is not settled even at {p} = {solved[0].params[p]:g}: the sample "
                "is too noisy for this conclusion.", True)
    return f" With sampling error ({kind}) it holds only up to {p} = {percent(last)}.", True


"""Results that explain themselves: one base for every causal result and every analysis.

* :class:`Summary`: a printable summary (a ``str``) that also renders as HTML with its tables.
* :class:`Explained`: the result interface (``summary()``, ``to_dict()``, ``to_frame()``,
  ``conclusion()``, ``_repr_html_``) shared by :class:`BoundResult`,
  :class:`~fairprobe.core.sensitivity.SensitivityResult`,
  :class:`~fairprobe.core.breakdown.BreakdownResult` and the analyses
  (:class:`~fairprobe.plugins.base.Analysis`).
* :class:`ObservedValue`: the metric with no bias (every sensitivity parameter 0), or why it has none.
* :class:`Conclusion`: what a result settles, decided in one place
  (:mod:`fairprobe.core.interpret`); the command line and the app only print its ``text``.
"""

from __future__ import annotations

import abc
import html
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from fairprobe.backends.base import SolveResult
from fairprobe.core.interpret import Conclusion, ObservedValue, bound_conclusion
from fairprobe.core.jsonsafe import json_number as fix
from fairprobe.core.jsonsafe import jsonable
from fairprobe.core.small_groups import FEW_UNITS  # the one rule, re-exported

__all__ = ["FEW_UNITS", "BoundResult", "Conclusion", "Explained", "ObservedValue", "PointOutcome", "SamplingInterval",
           "Summary", "few_units_line"]



@dataclass
class SamplingInterval:
    """A bound's sampling interval: the metric's confidence interval beside the bias-only bounds.

    Built by :func:`~fairprobe.core.uncertainty.sampling_interval` (``fp.bound(..., ci=0.95)``).

    Attributes
    ----------
    level : float
        Coverage probability.
    method : str
        ``"bootstrap"``, ``"projection"`` or ``"bayes"``.
    lower, upper : float
        Interval for the metric: covers its true value with probability ``level`` when the bias
        is at most the sensitivity value (Imbens-Manski with Stoye's correction; for projection
        the region's bound).
    set_lower, set_upper : float
        Interval for the whole identified set (each end two-sided): wider.
    estimate : (float, float)
        The certified bounds on the table itself (the bias-only interval).
    se_lower, se_upper : float
        Standard errors of the two bound endpoints (NaN for projection).
    critical_value : float
        The Imbens-Manski critical value used (NaN for projection).
    resamples : int
        Resamples or posterior draws solved (0 for projection).
    failed : int
        Draws in which the metric was undefined (dropped).
    n : int
        Units behind the table.
    seed : int
        Seed of the draws.
    notes : list of str
        How the interval was obtained.
    wall_time : float
        Seconds spent.

    Examples
    --------
    >>> ci = SamplingInterval(0.95, "bootstrap", 0.1, 0.5, 0.09, 0.52, (0.2, 0.4), 0.03, 0.04, 1.7, 1000, 0, 500, 0)
    >>> ci.text()
    '95 % CI [0.1000, 0.5000], bootstrap, 1,000 resamples; bias-only interval [0.2000, 0.4000]'
    """

    level: float
    method: str
    lower: float
    upper: float
    set_lower: float
    set_upper: float
    estimate: tuple[float, float]
    se_lower: float
    se_upper: float
    critical_value: float
    resamples: int
    failed: int
    n: int
    seed: int
    notes: list[str] = field(default_factory=list)
    wall_time: float = 0.0

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval for the metric.

        Parameters
        ----------
        value : float

        Returns
        -------
        bool

        Examples
        --------
        >>> SamplingInterval(0.95, "projection", 0.1, 0.5, 0.1, 0.5, (0.2, 0.4), 0, 0, 0, 0, 0, 50, 0).contains(0.6)
        False
        """
        return self.lower <= value <= self.upper

    def text(self) -> str:
        """One line: the interval, its method and size, and the bias-only interval.

        Returns
        -------
        str

        Examples
        --------
        >>> SamplingInterval(0.9, "projection", 0.1, 0.5, 0.1, 0.5, (0.2, 0.4), 0, 0, 0, 0, 0, 50, 0).text()
        '90 % CI [0.1000, 0.5000], projection (Clopper-Pearson region, n = 50); bias-only interval [0.2000, 0.4000]'
        """
        if self.method == "projection":
            how = f"projection (Clopper-Pearson region, n = {self.n:,})"
        else:
            unit = "resamples" if self.method == "bootstrap" else "posterior draws"
            how = f"{self.method}, {self.resamples:,} {unit}"
        return (f"{self._name()} [{_four(self.lower)}, {_four(self.upper)}], {how}; bias-only interval "
                f"[{_four(self.estimate[0])}, {_four(self.estimate[1])}]")

    def _name(self) -> str:
        # a Dirichlet-posterior interval is a credible interval, not a confidence interval
        return f"{100 * self.level:g} % " + ("credible interval" if self.method == "bayes" else "CI")

    def level_text(self) -> str:
        """The kind of interval in a few words (``"95 % CI, bootstrap"``).

        Returns
        -------
        str

        Examples
        --------
        >>> SamplingInterval(0.95, "bayes", 0.1, 0.5, 0.1, 0.5, (0.2, 0.4), 0, 0, 0, 0, 0, 50, 0).level_text()
        '95 % credible interval, bayes'
        """
        return f"{self._name()}, {self.method}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly fields.

        Returns
        -------
        dict

        Examples
        --------
        >>> ci = SamplingInterval(0.95, "bayes", 0.1, 0.5, 0.09, 0.52, (0.2, 0.4), 0.03, 0.04, 1.7, 1000, 0, 500, 0)
        >>> ci.to_dict()["set_upper"]
        0.52
        >>> import json, numpy as np  # numpy scalars (a seed given as np.int64) become Python numbers
        >>> json.dumps(SamplingInterval(0.9, "projection", 0.1, 0.5, 0.1, 0.5, (0.2, 0.4), 0, 0, 0, 0, 0, 50,
        ...                             np.int64(3)).to_dict()["seed"])
        '3'
        """
        return jsonable({"level": self.level, "method": self.method, "lower": self.lower, "upper": self.upper,
                         "set_lower": self.set_lower, "set_upper": self.set_upper, "estimate": list(self.estimate),
                         "se_lower": self.se_lower, "se_upper": self.se_upper, "critical_value": self.critical_value,
                         "resamples": self.resamples, "failed": self.failed, "n": self.n, "seed": self.seed,
                         "notes": list(self.notes), "wall_time": self.wall_time, "text": self.text()})


def few_units_line(few: Mapping[str, int]) -> str:
    """The summary line of :attr:`BoundResult.few_units` (bound, sweep and breakdown summaries).

    Parameters
    ----------
    few : mapping of str to int
        Events and their numbers of units.

    Returns
    -------
    str

    Examples
    --------
    >>> few_units_line({"A = c": 10})[:35]
    'few units: A = c: 10 (units in the '
    """
    shown = ", ".join(f"{e}: {n}" for e, n in few.items())
    return (f"few units: {shown} (units in the data); the bounds take the observed shares as exact, and rates "
            "from so few units carry sampling error that can exceed the bias considered (compare a group with "
            "the rest, or merge small groups)")


class Summary(str):
    """A printable summary that also renders as HTML (statsmodels' ``Summary`` is the model).

    It *is* the text (a ``str``), so ``print(s)`` and ``"bias" in s`` work; :meth:`as_html` and
    ``_repr_html_`` (notebooks) render the title, the text and the tables.

    Parameters
    ----------
    text : str
        The plain-text summary.
    title : str
        Heading of the HTML rendering.
    tables : dict of str to DataFrame, optional
        Tables shown below the text in HTML (and in reports).

    Examples
    --------
    >>> import pandas as pd
    >>> s = Summary("2 groups, gap 0.1", title="Rates", tables={"rates": pd.DataFrame({"rate": [0.2, 0.3]})})
    >>> print(s)
    2 groups, gap 0.1
    >>> "<table" in s.as_html()
    True
    """

    title: str
    tables: dict[str, pd.DataFrame]

    def __new__(cls, text: str, title: str = "", tables: Mapping[str, pd.DataFrame] | None = None) -> Summary:
        obj = super().__new__(cls, text)
        obj.title = title
        obj.tables = dict(tables or {})
        return obj

    def as_text(self) -> str:
        """The summary as plain text.

        Returns
        -------
        str
            The text without the title and tables.

        Examples
        --------
        >>> Summary("gap 0.1", title="Rates").as_text()
        'gap 0.1'
        """
        return str.__str__(self)

    def as_html(self) -> str:
        """The summary as an HTML fragment (title, pre-formatted text, tables).

        Returns
        -------
        str
            HTML with the escaped title (``<h4>``), the text (``<pre>``) and each table.

        Examples
        --------
        >>> print(Summary("a < b", title="Rates").as_html())
        <h4>Rates</h4>
        <pre style="white-space:pre-wrap;overflow-wrap:anywhere">a &lt; b</pre>
        """
        parts = [f"<h4>{html.escape(self.title)}</h4>"] if self.title else []
        # long lines wrap instead of running off the page (the app, notebooks, reports)
        parts.append(f'<pre style="white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(self.as_text())}</pre>')
        for name, frame in self.tables.items():
            parts.append(f"<p><b>{html.escape(name)}</b></p>{frame.to_html(border=0)}")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.as_html()


class Explained(abc.ABC):
    """The interface every result has: it explains itself.

    Subclasses implement :meth:`summary`, :meth:`to_frame` and :meth:`conclusion`;
    :meth:`to_dict` defaults to the summary text and tables, ``_repr_html_`` renders the summary.
    :class:`BoundResult`, :class:`~fairprobe.core.sensitivity.SensitivityResult`,
    :class:`~fairprobe.core.breakdown.BreakdownResult`, :class:`~fairprobe.core.group_rates.GroupRates`
    and every :class:`~fairprobe.plugins.base.Analysis` are ``Explained``.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> isinstance(fp.group_rates(load_paper_table()), Explained)
    True
    """

    @abc.abstractmethod
    def summary(self) -> Summary:
        """A :class:`Summary` (text, HTML, tables).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> fp.group_rates(load_paper_table()).summary().title
        'Observed group rates'
        """

    @abc.abstractmethod
    def to_frame(self) -> pd.DataFrame:
        """The main result table.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> len(fp.group_rates(load_paper_table()).to_frame())
        3
        """

    @abc.abstractmethod
    def conclusion(self) -> Conclusion:
        """What the result settles (see :class:`Conclusion`).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> fp.group_rates(load_paper_table()).conclusion().verdict
        'finding'
        """

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form: the summary text, its tables as records and the conclusion.

        Returns
        -------
        dict

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> sorted(fp.group_rates(load_paper_table()).to_dict())
        ['conclusion', 'summary', 'tables', 'verdict']
        """
        summary = self.summary()
        conclusion = self.conclusion()
        return jsonable({"summary": summary.as_text(), "conclusion": conclusion.text, "verdict": conclusion.verdict,
                         "tables": {k: v.to_dict(orient="records") for k, v in summary.tables.items()}})

    def _repr_html_(self) -> str:
        return self.summary().as_html()


@dataclass(repr=False)
class BoundResult(Explained):
    """Certified bounds on a fairness metric under a bias.

    Attributes
    ----------
    lower, upper : float
        Certified outer bounds.
    lower_achieved, upper_achieved : float or None
        Metric values attained by feasible models (inner bounds).
    status : str
        "optimal" when both sides were proved optimal and no achieved value lies more than 1e-5
        inside its bound, "limit" when a solver stopped early (the bounds stay certified, only
        wider), "gap" when an achieved value lies more than 1e-5 inside its bound (certified, not
        shown to be sharp: a loosened ``gap`` was met, or a solver's optimum was not a model; a
        note says which). Achieved values are repaired to rows held to 1e-9 where the repair
        applies (ratio and window programs), else the solver's point within 1e-5;
        ``min_result.extra["achieved_violation"]`` records which. A side without an achieved
        value (``gap`` infinite) leaves the status to the solvers.
    gap : float
        Largest distance between a certified bound and the achieved value on its side.
    min_result, max_result : SolveResult
        The backend's results of the minimisation and the maximisation.
    kind : str
        Program structure ("linear", "linear_fractional", "polynomial").
    stats_before, stats_after : dict
        Program size before and after reduction.
    excluded_events : list of str
        Conditioning events of the metric that have probability 0 (below ``1e-9``) in some of the
        models the bias admits. The metric is undefined in those models; the bounds are over the
        others, in which each of these events has probability at least ``1e-9``. Empty when the
        metric is defined in every admitted model.
    nonnegative : bool
        The metric is a largest absolute gap (equalised odds, the maximum over pairs), so it is
        at least 0 and the sign of a disparity is not what it reports.
    few_units : dict of str to int
        The units behind each rate of the metric (its denominator, per group, on the data's nodes:
        ``"Y = 0 & A = c"`` for c's FPR, ``"P = 1 & A = c"`` for its PPV, ``"A = c"`` for its
        selection rate) that are fewer than ``FEW_UNITS`` in a unit-level table, with their counts
        (the rule: :mod:`fairprobe.core.small_groups`). The bounds take the observed shares as exact;
        a rate estimated from so few units can be off by more than the bias considered.
    metric : str
        Label of the metric bounded.
    parameters : dict of str to float
        The sensitivity values.
    backend : str
        Name of the backend that solved the programs.
    wall_time : float
        Seconds spent.
    notes : list of str
        Remarks on the reductions and on how the bounds were obtained.
    details : dict
        Extra information of max-abs metrics.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
    >>> res
    BoundResult(lower=0.0720601, upper=0.343264, status='optimal', metric='fpr (A = 0)')
    >>> round(res.lower_achieved, 6), round(res.upper_achieved, 6), res.kind
    (0.07206, 0.343264, 'linear_fractional')
    """

    lower: float
    upper: float
    lower_achieved: float | None
    upper_achieved: float | None
    status: str
    gap: float
    min_result: SolveResult
    max_result: SolveResult
    kind: str
    stats_before: dict[str, int]
    stats_after: dict[str, Any]
    metric: str
    parameters: dict[str, float]
    backend: str
    wall_time: float
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    excluded_events: list[str] = field(default_factory=list)
    nonnegative: bool = False
    few_units: dict[str, int] = field(default_factory=dict)
    #: Seconds the whole call was allowed (None: no limit).
    time_limit: float | None = None
    #: "rate" (one group's rate: no sign to keep), "nonnegative" (a largest gap) or "disparity".
    metric_kind: str = "disparity"
    #: The sampling interval, when asked for (``ci=``).
    interval: SamplingInterval | None = None
    _observed: ObservedValue | None = field(default=None, init=False, repr=False, compare=False)
    _observe: Callable[[], ObservedValue] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def observed(self) -> ObservedValue | None:
        """The metric with no bias (every sensitivity parameter 0), computed on first use.

        Returns
        -------
        ObservedValue or None
            None only for a result built by hand without it.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
        >>> round(res.observed.point, 6)
        0.230869
        """
        if self._observed is None and self._observe is not None:
            self._observed, self._observe = self._observe(), None
        return self._observed

    def set_observed(self, observed: ObservedValue | Callable[[], ObservedValue] | None) -> None:
        """Record the metric with no bias, or a function that computes it when first asked.

        Parameters
        ----------
        observed : ObservedValue or callable or None

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
        >>> res.set_observed(ObservedValue(0.5, 0.5)); res.observed.point
        0.5
        """
        if callable(observed):
            self._observed, self._observe = None, observed
        else:
            self._observed, self._observe = observed, None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_observe"] = None  # a pending computation holds the problem; it does not travel
        return state

    def conclusion(self) -> Conclusion:
        """What these bounds settle about the conclusion the data show without bias.

        Returns
        -------
        Conclusion
            ``"range"`` for a rate; for a never-negative gap ``"survives"`` (a gap remains) or
            ``"could_be_zero"``; ``"survives_bias_only"`` when it survives the bias but its sampling
            interval does not; ``"too_few_units"`` for a rate over too few units (no claim); for a
            signed disparity ``"survives"``, ``"can_flip"`` or
            ``"undetermined"`` (the data alone do not settle the sign, or the metric has no value
            without bias).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr_parity", load_paper_table(), D=0.05)
        >>> res.conclusion().verdict
        'can_flip'
        """
        return bound_conclusion(self)

    def to_frame(self) -> pd.DataFrame:
        """One row: the parameters, the certified and achieved bounds, the observed value and status.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05).to_frame()[["D", "upper"]].round(4)
              D   upper
        0  0.05  0.3433
        """
        obs = self.observed
        return pd.DataFrame([{"metric": self.metric, **self.parameters, "lower": self.lower, "upper": self.upper,
                              "lower_achieved": math.nan if self.lower_achieved is None else self.lower_achieved,
                              "upper_achieved": math.nan if self.upper_achieved is None else self.upper_achieved,
                              "observed_lower": math.nan if obs is None or obs.lower is None else obs.lower,
                              "observed_upper": math.nan if obs is None or obs.upper is None else obs.upper,
                              "status": self.status, "gap": self.gap, "backend": self.backend,
                              "time": self.wall_time, **interval_columns(self.interval)}])

    @property
    def width(self) -> float:
        """``upper - lower``.

        Returns
        -------
        float
            Width of the certified interval (``inf`` when a side is unbounded).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
        >>> round(res.width, 4)
        0.2712
        """
        return self.upper - self.lower

    def contains(self, value: float, tol: float = 0.0) -> bool:
        """Whether ``value`` lies in the certified interval (with tolerance).

        Parameters
        ----------
        value : float
            A value of the metric, e.g. a hypothesised true rate.
        tol : float, optional
            Slack added on both sides of the interval (default 0).

        Returns
        -------
        bool
            ``lower - tol <= value <= upper + tol``.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
        >>> res.contains(0.3), res.contains(0.35), res.contains(0.35, tol=0.01)
        (True, False, True)
        """
        return self.lower - tol <= value <= self.upper + tol

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary.

        Returns
        -------
        dict
            Every field, with infinite bounds as ``"inf"``/``"-inf"`` and the solver results as dicts.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
        >>> d = res.to_dict()
        >>> d["metric"], d["parameters"], round(d["upper"], 6)
        ('fpr (A = 0)', {'D': 0.05}, 0.343264)
        """
        return {
            "metric": self.metric, "parameters": self.parameters, "backend": self.backend,
            "lower": fix(self.lower), "upper": fix(self.upper),
            "lower_achieved": fix(self.lower_achieved), "upper_achieved": fix(self.upper_achieved),
            "status": self.status, "gap": fix(self.gap), "kind": self.kind,
            "stats_before": self.stats_before, "stats_after": self.stats_after,
            "wall_time": self.wall_time, "notes": self.notes, "details": self.details,
            "excluded_events": self.excluded_events, "few_units": self.few_units, "time_limit": self.time_limit,
            "metric_kind": self.metric_kind,
            "observed": None if self.observed is None else self.observed.to_dict(),
            "conclusion": self.conclusion().text, "verdict": self.conclusion().verdict,
            "min_result": jsonable(self.min_result.to_dict()), "max_result": jsonable(self.max_result.to_dict()),
            "interval": None if self.interval is None else self.interval.to_dict(),
        }

    def summary(self) -> Summary:
        """A short readable report.

        Returns
        -------
        Summary
            Metric, sensitivity, certified and achieved bounds, program size and timing, one per line,
            then the conclusion; renders as HTML too.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> res = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05)
        >>> print(res.summary())  # doctest: +ELLIPSIS
        metric: fpr (A = 0)
        sensitivity: D=0.05
        certified bounds: [0.072060, 0.343264]  (status optimal, gap ...)
        achieved by feasible models: [0.072060, 0.343264]
        program: linear_fractional; ... degree 1; backend scip (answered by highs (Charnes-Cooper LP, verified)), ...s
        observed without bias: 0.2309
        conclusion: Without bias the data give fpr (A = 0) = 0.2309. If the data are biased as far as D = 0.05 ...
        """
        params = ", ".join(f"{k}={v:g}" for k, v in self.parameters.items())
        lines = [
            f"metric: {self.metric}",
            f"sensitivity: {params}",
            f"certified bounds: [{self.lower:.6f}, {self.upper:.6f}]  (status {self.status}, gap {self.gap:.1e})",
        ]
        if self.lower_achieved is not None and self.upper_achieved is not None:
            lines.append(f"achieved by feasible models: [{self.lower_achieved:.6f}, {self.upper_achieved:.6f}]")
        if self.status == "limit":
            allowed = "no time limit" if self.time_limit is None else f"the time limit of {self.time_limit:g} s"
            lines.append(f"stopped early ({allowed} for the whole call): certified, possibly wider than the sharp "
                         "interval; raise time_limit (--time-limit) to tighten it")
        if self.excluded_events:
            from fairprobe.core.compiler import RATIO_EPSILON

            events = ", ".join(f"P({e})" for e in self.excluded_events)
            lines.append(f"partly undefined: {events} can be 0 in some admitted models; the bounds are over "
                         f"the models in which each is at least {RATIO_EPSILON:g}")
        if self.interval is not None:
            lines.append(f"sampling: {self.interval.text()}")
            lines += [f"  note: {note}" for note in self.interval.notes if "heavy-tailed" in note]
        if self.few_units:
            lines.append(few_units_line(self.few_units))
        sb, sa = self.stats_before, self.stats_after
        answered = self.details.get("answered_by") or {}  # who solved each side (the router's exact routes)
        low, high = answered.get("min", ""), answered.get("max", "")
        by = "" if not (low or high) else f" (answered by {low})" if low == high else f" (min by {low}, max by {high})"
        lines.append(
            f"program: {self.kind}; {sb['n_variables']} response types -> {sa['n_variables']} variables, "
            f"{sa['n_constraints']} constraints, degree {sa['max_degree']}; backend {self.backend}{by}, "
            f"{self.wall_time:.3f}s"
        )
        if self.observed is not None:
            lines.append(f"observed without bias: {self.observed.text()}")
            lines.append(f"conclusion: {self.conclusion().text}")
        return Summary("\n".join(lines), title=f"Certified bounds: {self.metric}", tables={"bounds": self.to_frame()})

    def __repr__(self) -> str:
        return (f"BoundResult(lower={self.lower:.6g}, upper={self.upper:.6g}, status={self.status!r}, "
                f"metric={self.metric!r})")


def _four(value: float) -> str:
    """Four decimals, without the "-0.0000" of a value a rounding below 0."""
    text = f"{value:.4f}"
    return text[1:] if text == "-0.0000" else text


def interval_columns(interval: SamplingInterval | None) -> dict[str, Any]:
    """The ``to_frame`` columns of a sampling interval (none without one)."""
    if interval is None:
        return {}
    return {"ci_lower": interval.lower, "ci_upper": interval.upper, "ci_set_lower": interval.set_lower,
            "ci_set_upper": interval.set_upper, "ci_level": interval.level, "ci_method": interval.method}


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

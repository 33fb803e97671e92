"""One certified bound (:class:`BoundResult`), one sweep point (:class:`PointOutcome`) and what a bound settles.

:func:`bound_conclusion` reads a bound against its value with no bias; :func:`threshold_test` states the
claim the no-bias bounds support (the breakdown search tests it). The rules: :mod:`fairprobe.core.interpret`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from fairprobe.backends.base import SolveResult
from fairprobe.core.jsonsafe import json_number as fix
from fairprobe.core.jsonsafe import jsonable
from fairprobe.core.results.explained import Explained, Summary, few_units_line
from fairprobe.core.results.interval import SamplingInterval, interval_columns
from fairprobe.core.results.wording import (
    LIMIT_NOTE,
    SIGN_TOLERANCE,
    Conclusion,
    ObservedValue,
    keeps_sign,
    observed_sign,
    setting_text,
    too_few_units_text,
)

__all__ = ["BoundResult", "PointOutcome", "bound_conclusion", "threshold_test"]


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
        shown to be sharp; a note says why). Achieved values are models whose rows hold to 1e-9
        where a repair applies, else to 1e-5 (``min_result.extra["achieved_violation"]``).
    gap : float
        Largest distance between a certified bound and the achieved value on its side.
    min_result, max_result : SolveResult
        The backend's results of the minimisation and the maximisation.
    kind : str
        Program structure ("linear", "linear_fractional", "polynomial").
    stats_before, stats_after : dict
        Program size before and after reduction.
    excluded_events : list of str
        Conditioning events of the metric that can have probability 0 (below ``1e-9``) in models
        the bias admits; the metric is undefined there, and the bounds are over the other models.
    nonnegative : bool
        The metric is a largest absolute gap (equalised odds, the maximum over pairs), at least 0.
    few_units : dict of str to int
        The events behind the metric's rates (``"Y = 0 & A = c"`` for c's FPR) with fewer than
        ``FEW_UNITS`` units, and their counts (:mod:`fairprobe.core.small_groups`).
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
    time_limit : float or None
        Seconds the whole call was allowed (None: no limit).
    metric_kind : str
        "rate" (no sign to keep), "nonnegative" (a largest gap) or "disparity".
    interval : SamplingInterval or None
        The sampling interval, when asked for (``ci=``).

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
    time_limit: float | None = None
    metric_kind: str = "disparity"
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
        >>> round(fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05).observed.point, 6)
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
        >>> res.set_observed(ObservedValue(0.5, 0.5))
        >>> res.observed.point
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
            ``"could_be_zero"``; for a signed disparity ``"survives"``, ``"can_flip"`` or
            ``"undetermined"`` (no sign, or no value without bias); ``"survives_bias_only"`` when it
            survives the bias but not its sampling interval; ``"too_few_units"`` (no claim).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> c = fp.bound("proxy_label", "fpr_parity", load_paper_table(), D=0.01).conclusion()
        >>> c.verdict, c.text.split(". ")[0]
        ('survives', 'Without bias the data give fpr_parity (A: 0 vs 1) = -0.0426')
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
            ``inf`` when a side is unbounded.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> round(fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05).width, 4)
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
            Slack added on both sides of the interval.

        Returns
        -------
        bool

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
        >>> d = fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05).to_dict()
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
        lines = [f"metric: {self.metric}", f"sensitivity: {params}",
                 f"certified bounds: [{self.lower:.6f}, {self.upper:.6f}]  (status {self.status}, gap {self.gap:.1e})"]
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
        lines.append(f"program: {self.kind}; {sb['n_variables']} response types -> {sa['n_variables']} variables, "
                     f"{sa['n_constraints']} constraints, degree {sa['max_degree']}; backend {self.backend}{by}, "
                     f"{self.wall_time:.3f}s")
        if self.observed is not None:
            lines.append(f"observed without bias: {self.observed.text()}")
            lines.append(f"conclusion: {self.conclusion().text}")
        return Summary("\n".join(lines), title=f"Certified bounds: {self.metric}", tables={"bounds": self.to_frame()})

    def __repr__(self) -> str:
        return (f"BoundResult(lower={self.lower:.6g}, upper={self.upper:.6g}, status={self.status!r}, "
                f"metric={self.metric!r})")


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


def _too_few(res: BoundResult, head: str, notes: tuple[str, ...]) -> Conclusion:
    """A bound on a rate of too few units: the bounds, the sampling interval if any, and no claim."""
    text = f"{head} {too_few_units_text(res.few_units)}."
    if res.interval is not None:
        text += _interval_text(res)
    else:
        text += " Compute the interval with sampling error (ci=0.95, --ci 0.95) to see how little they pin down."
    return Conclusion("too_few_units", text, (*notes, "too few units for a claim"))


def bound_conclusion(res: BoundResult) -> Conclusion:
    """:meth:`BoundResult.conclusion` of ``res`` (its :attr:`~BoundResult.observed` value is computed if needed)."""
    head = (f"If the data are biased as far as {setting_text(res.parameters)} allows, the true {res.metric} lies in "
            f"[{res.lower:.4f}, {res.upper:.4f}] (certified).")
    notes: tuple[str, ...] = ()
    obs = res.observed
    if obs is None or not obs.defined:
        why = f" {obs.error}" if obs is not None and obs.error else ""
        return Conclusion("undetermined", f"Without bias {res.metric} has no value:{why} {head} Those values come "
                          "only from biased models, so there is no observed conclusion to hold or flip.")
    head = f"Without bias the data give {res.metric} = {obs.text()}. {head}"
    if res.status != "optimal":
        head += f" {LIMIT_NOTE}"
        notes = (LIMIT_NOTE,)
    if res.few_units:
        return _too_few(res, head, notes)
    if res.metric_kind == "rate":
        return Conclusion("range", head + _interval_text(res), notes)
    if res.nonnegative or res.metric_kind == "nonnegative":
        if res.lower > SIGN_TOLERANCE:
            return Conclusion(_survives(res, "positive"), head + f" A disparity of at least {res.lower:.4f} remains."
                              + _with_noise(res, "positive", "a gap remains"), notes)
        return Conclusion("could_be_zero", head + " The disparity could be 0 at this much bias."
                          + _interval_text(res), notes)
    sign = observed_sign(obs)
    if sign is None:
        return Conclusion("undetermined", head + " The data alone do not settle the sign of the disparity, so there "
                          "is no observed conclusion to hold or flip." + _interval_text(res), notes)
    if keeps_sign(sign, res.lower, res.upper):
        return Conclusion(_survives(res, sign), head + f" The disparity stays {sign}: the observed conclusion holds "
                          "at this much bias." + _with_noise(res, sign, f"it stays {sign}"), notes)
    return Conclusion("can_flip", head + f" The data show a {sign} disparity, but at this much bias it could be 0 "
                      "or reversed: the conclusion could flip." + _interval_text(res), notes)


def _survives(res: BoundResult, sign: str) -> str:
    """``"survives"``, or ``"survives_bias_only"`` when the sampling interval does not keep the sign."""
    ci = res.interval
    return "survives" if ci is None or keeps_sign(sign, ci.lower, ci.upper) else "survives_bias_only"


def _interval_text(res: BoundResult) -> str:
    return f" With sampling error: {res.interval.text()}." if res.interval is not None else ""


def _with_noise(res: BoundResult, sign: str, kept: str) -> str:
    """The sentence on the sampling interval of a conclusion that survives the bias ("" without one)."""
    ci = res.interval
    if ci is None:
        return ""
    if keeps_sign(sign, ci.lower, ci.upper):
        return f" With sampling error too ({ci.text()}) {kept}."
    return (f" With sampling error ({ci.text()}) it is not settled: the conclusion survives this bias in the "
            "population the table describes, not the noise of this sample.")


def threshold_test(res: BoundResult, threshold: float | None,
                   tolerance: float | None) -> tuple[str, Callable[[BoundResult], bool]] | None:
    """The claim the no-bias bounds support, and a test of whether other bounds still support it.

    Parameters
    ----------
    res : BoundResult
        The bounds with no bias.
    threshold : float or None
        Claim "metric above/below threshold" (default 0).
    tolerance : float or None
        Claim "``|metric| <= tolerance``" (parity holds) or its negation.

    Returns
    -------
    (str, callable) or None
        The claim in words and its test; None when the bounds straddle the threshold (no claim).

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.bound("proxy_label", "fpr_parity", load_paper_table(), D=0.0)
    >>> threshold_test(res, None, None)[0], threshold_test(res, None, 0.05)[0]
    ('metric < 0', '|metric| <= 0.05 (parity holds within tolerance)')
    """
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

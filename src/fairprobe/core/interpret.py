"""What a causal result settles, decided in one place.

Every front end (the command line, the app, reports) prints the :class:`~fairprobe.core.results.Conclusion`
these functions return and never decides itself. The rules:

* A **rate** (one group's rate, or a query with one probability) gets its range: it has no sign to
  keep or flip (verdict ``"range"``).
* A **never-negative gap** (equalised odds, the largest gap over pairs) has no sign: the question
  is whether a gap remains (``"survives"``) or it could be 0 (``"could_be_zero"``).
* A **signed disparity** is compared with the sign the data show without bias: it keeps it
  (``"survives"``) or it can flip (``"can_flip"``); when the data alone do not settle the sign, or
  the metric has no value without bias, there is nothing to hold or flip (``"undetermined"``).
* A bound within :data:`SIGN_TOLERANCE` of 0 does not settle a sign (solver tolerances).
* A solver stopped at its limit keeps its bounds certified but maybe loose: what they settle
  holds, what they leave open may only be loose; the text says so.
* With a sampling interval, a conclusion that survives the bias but not the noise of the sample
  (the interval reaches 0 where the bounds do not) reads ``"survives_bias_only"``: it holds in the
  population the table describes, not in this sample's.
* A rate measured on fewer than :data:`~fairprobe.core.small_groups.FEW_UNITS` units (the units
  behind it: its denominator, e.g. a group's negatives for its FPR; :mod:`fairprobe.core.small_groups`
  states the rule) gets its bounds and, when computed, its sampling interval, and **no claim** (verdict
  ``"too_few_units"``): a sign or a breakdown point read off so few units is noise, not a finding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairprobe.core.jsonsafe import json_number as fix
from fairprobe.core.small_groups import FEW_UNITS  # the one rule (re-exported here and by core.results)

if TYPE_CHECKING:  # the results import this module, never the other way round
    from fairprobe.core.breakdown import BreakdownResult
    from fairprobe.core.results import BoundResult
    from fairprobe.core.sensitivity import SensitivityResult

__all__ = [
    "FEW_UNITS",
    "SIGN_TOLERANCE",
    "Conclusion",
    "ObservedValue",
    "bound_conclusion",
    "breakdown_conclusion",
    "held_parameters",
    "sweep_conclusion",
    "threshold_test",
    "too_few_units_text",
]

#: A bound within this of 0 does not settle a sign (solver tolerances).
SIGN_TOLERANCE = 1e-6

#: Width below which the bounds with no bias are read as one value (solver tolerances).
POINT_WIDTH = 1e-6


@dataclass(frozen=True)
class Conclusion:
    """What a result settles, in words, with a machine-readable verdict.

    Attributes
    ----------
    verdict : str
        ``"survives"`` (the conclusion the data show without bias still holds), ``"could_be_zero"``
        (a never-negative gap: at this bias it could vanish), ``"can_flip"`` (a signed disparity
        whose sign can flip), ``"undetermined"`` (the data alone do not settle it, or the metric has
        no value without bias), ``"range"`` (a rate: its range is the answer, there is no sign to
        keep) or ``"finding"`` (an analysis' headline).
    text : str
        The conclusion in plain words; every front end prints exactly this.
    notes : tuple of str
        Caveats that qualify it (a solver stopped at its limit, few units, ...), already in ``text``.

    Examples
    --------
    >>> c = Conclusion("survives", "The disparity stays negative.")
    >>> str(c), c.to_dict()["verdict"]
    ('The disparity stays negative.', 'survives')
    """

    verdict: str
    text: str
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        """``{"verdict", "text", "notes"}``.

        Returns
        -------
        dict

        Examples
        --------
        >>> Conclusion("range", "fpr lies in [0.1, 0.2].").to_dict()
        {'verdict': 'range', 'text': 'fpr lies in [0.1, 0.2].', 'notes': []}
        """
        return {"verdict": self.verdict, "text": self.text, "notes": list(self.notes)}


@dataclass(frozen=True)
class ObservedValue:
    """The metric with no bias (every sensitivity parameter 0): certified bounds, or why it has none.

    Attributes
    ----------
    lower, upper : float or None
        Certified bounds with no bias (equal up to solver tolerances when the data identify it).
    error : str or None
        Why the metric has no value without bias (e.g. it is undefined there).

    Examples
    --------
    >>> ObservedValue(0.25, 0.25).point, ObservedValue(0.1, 0.3).point, ObservedValue(None, None, "undefined").defined
    (0.25, None, False)
    """

    lower: float | None
    upper: float | None
    error: str | None = None

    @property
    def defined(self) -> bool:
        """Whether the metric has bounds without bias.

        Returns
        -------
        bool

        Examples
        --------
        >>> ObservedValue(0.0, 0.1).defined
        True
        """
        return self.error is None and self.lower is not None and self.upper is not None

    @property
    def point(self) -> float | None:
        """The value when the bounds with no bias are one point (within 1e-6), else None.

        Returns
        -------
        float or None

        Examples
        --------
        >>> round(ObservedValue(0.2, 0.2 + 1e-9).point, 6)
        0.2
        """
        if not self.defined or not (self.upper - self.lower <= POINT_WIDTH):
            return None
        return 0.5 * (self.lower + self.upper) if self.upper != self.lower else self.lower

    def text(self) -> str:
        """``0.2309`` for a point, ``[0.1, 0.3]`` for an interval (4 decimals), ``undefined`` without value.

        Returns
        -------
        str

        Examples
        --------
        >>> ObservedValue(0.23087, 0.23087).text(), ObservedValue(0.1, 0.3).text(), ObservedValue(-1e-9, 0.0).text()
        ('0.2309', '[0.1000, 0.3000]', '0.0000')
        """
        if not self.defined:
            return "undefined"

        def shown(x: float) -> str:
            return f"{0.0 if abs(x) < 5e-5 else x:.4f}"  # never "-0.0000" for solver noise around 0

        if abs(self.upper - self.lower) <= 5e-5:
            return shown(self.lower)
        return f"[{shown(self.lower)}, {shown(self.upper)}]"

    def to_dict(self) -> dict[str, Any]:
        """``{"lower", "upper", "error"}`` (JSON-safe).

        Returns
        -------
        dict

        Examples
        --------
        >>> ObservedValue(0.2, 0.2).to_dict()
        {'lower': 0.2, 'upper': 0.2, 'error': None}
        """
        return {"lower": fix(self.lower), "upper": fix(self.upper), "error": self.error}



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


_LIMIT_NOTE = ("The solver stopped at its limit, so the range may be wider than the true one: what it settles "
               "holds, what it leaves open may only be loose (raise the time limit).")


def _setting(parameters: dict[str, float]) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in parameters.items())


def _observed_sign(obs: ObservedValue) -> str | None:
    """``"positive"``/``"negative"`` when the bounds with no bias settle the sign, else None."""
    if not obs.defined:
        return None
    if obs.lower > SIGN_TOLERANCE:
        return "positive"
    if obs.upper < -SIGN_TOLERANCE:
        return "negative"
    return None


def _keeps(sign: str, lower: float, upper: float) -> bool:
    return lower > SIGN_TOLERANCE if sign == "positive" else upper < -SIGN_TOLERANCE


def too_few_units_text(few: Mapping[str, int]) -> str:
    """The sentence that withholds a claim for events with too few units.

    Parameters
    ----------
    few : mapping of str to int
        The events (``BoundResult.few_units``) and their numbers of units.

    Returns
    -------
    str

    Examples
    --------
    >>> too_few_units_text({"A = Native American": 11})[:46]
    'A = Native American has 11 units, fewer than 3'
    """
    shown = ", ".join(f"{event} has {units} units" if len(few) == 1 else f"{event}: {units}"
                      for event, units in few.items())
    if len(few) > 1:
        shown = f"{shown} units"
    return (f"{shown}, fewer than {FEW_UNITS}: too few to measure a rate, so no conclusion is drawn "
            "(the bounds take the observed shares as exact)")


def _too_few(res: BoundResult, head: str, notes: tuple[str, ...]) -> Conclusion:
    """A bound on a rate of too few units: the bounds, the sampling interval if any, and no claim."""
    text = f"{head} {too_few_units_text(res.few_units)}."
    if res.interval is not None:
        text += _interval_text(res)
    else:
        text += " Compute the interval with sampling error (ci=0.95, --ci 0.95) to see how little they pin down."
    return Conclusion("too_few_units", text, (*notes, "too few units for a claim"))


def bound_conclusion(res: BoundResult) -> Conclusion:
    """The conclusion of one certified bound, read against its value with no bias.

    Parameters
    ----------
    res : BoundResult
        The bounds (their :attr:`~BoundResult.observed` value is computed if needed).

    Returns
    -------
    Conclusion

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.bound("proxy_label", "fpr_parity", load_paper_table(), D=0.01)
    >>> c = bound_conclusion(res)
    >>> c.verdict, c.text.split(". ")[0]
    ('survives', 'Without bias the data give fpr_parity (A: 0 vs 1) = -0.0426')
    """
    head = (f"If the data are biased as far as {_setting(res.parameters)} allows, the true {res.metric} lies in "
            f"[{res.lower:.4f}, {res.upper:.4f}] (certified).")
    notes: tuple[str, ...] = ()
    obs = res.observed
    if obs is None or not obs.defined:
        why = f" {obs.error}" if obs is not None and obs.error else ""
        return Conclusion("undetermined", f"Without bias {res.metric} has no value:{why} {head} Those values come "
                          "only from biased models, so there is no observed conclusion to hold or flip.")
    head = f"Without bias the data give {res.metric} = {obs.text()}. {head}"
    if res.status != "optimal":
        head += f" {_LIMIT_NOTE}"
        notes = (_LIMIT_NOTE,)
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
    sign = _observed_sign(obs)
    if sign is None:
        return Conclusion("undetermined", head + " The data alone do not settle the sign of the disparity, so there "
                          "is no observed conclusion to hold or flip." + _interval_text(res), notes)
    if _keeps(sign, res.lower, res.upper):
        return Conclusion(_survives(res, sign), head + f" The disparity stays {sign}: the observed conclusion holds "
                          "at this much bias." + _with_noise(res, sign, f"it stays {sign}"), notes)
    return Conclusion("can_flip", head + f" The data show a {sign} disparity, but at this much bias it could be 0 "
                      "or reversed: the conclusion could flip." + _interval_text(res), notes)


def _survives(res: BoundResult, sign: str) -> str:
    """``"survives"``, or ``"survives_bias_only"`` when the sampling interval does not keep the sign."""
    ci = res.interval
    return "survives" if ci is None or _keeps(sign, ci.lower, ci.upper) else "survives_bias_only"


def _interval_text(res: BoundResult) -> str:
    return f" With sampling error: {res.interval.text()}." if res.interval is not None else ""


def _with_noise(res: BoundResult, sign: str, kept: str) -> str:
    """The sentence on the sampling interval of a conclusion that survives the bias ("" without one)."""
    ci = res.interval
    if ci is None:
        return ""
    if _keeps(sign, ci.lower, ci.upper):
        return f" With sampling error too ({ci.text()}) {kept}."
    return (f" With sampling error ({ci.text()}) it is not settled: the conclusion survives this bias in the "
            "population the table describes, not the noise of this sample.")


def _pct(value: float) -> str:
    return f"{100 * value:.3g} %"


def sweep_conclusion(sweep: SensitivityResult, breakdown_value: float | None = None) -> Conclusion:
    """The conclusion of a 1-D sweep: up to which sensitivity value the observed conclusion holds.

    Parameters
    ----------
    sweep : SensitivityResult
        The sweep.
    breakdown_value : float, optional
        The breakdown point (:func:`fairprobe.breakdown`) of the same question, when computed: it
        replaces the grid's resolution.

    Returns
    -------
    Conclusion

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.sensitivity("proxy_label", "fpr_parity", load_paper_table(), D=[0.0, 0.01, 0.05], progress=False)
    >>> print(sweep_conclusion(res))  # doctest: +NORMALIZE_WHITESPACE
    Without bias fpr_parity (A: 0 vs 1) is -0.0426 (negative). It keeps its sign for every D up to 1 % under
    proxy_label bias (D is the sensitivity parameter); at D = 5 % the certified bounds [-0.2014, 0.1421]
    include 0, so the sign can flip.
    """
    if len(sweep.parameters) != 1:
        return Conclusion("undetermined", "A two-parameter sweep: read the heat map (one conclusion per cell: "
                          "fp.bound at that point).")
    p = sweep.parameters[0]
    solved = sorted((pt for pt in sweep.points if pt.result is not None), key=lambda pt: pt.params[p])
    limited = sum(1 for pt in solved if pt.result.status != "optimal")
    notes = ((f"At {limited} point(s) the solver stopped at its limit: their bounds are certified but may be wider "
              "than the true range (raise the time limit)."),) if limited else ()
    tail = f" {notes[0]}" if notes else ""
    where = f"under {sweep.bias} bias ({p} is the sensitivity parameter)"
    obs = sweep.observed
    if not solved:
        return Conclusion("undetermined", f"No point of the sweep could be bounded ({sweep.points[0].error}).")
    if obs is None or obs.point is None:
        first = solved[0].result
        if obs is not None and obs.defined:
            why = f"is only bounded, [{obs.lower:.4f}, {obs.upper:.4f}], without bias"
        else:
            why = "has no value without bias" + (f" ({obs.error})" if obs is not None and obs.error else "")
        return Conclusion("undetermined", f"{sweep.metric} {why}; at {p} = {solved[0].params[p]:g} it lies in "
                          f"[{first.lower:.4f}, {first.upper:.4f}], so there is no observed conclusion to hold or "
                          f"flip.{tail}", notes)
    few = solved[0].result.few_units
    if few:
        return Conclusion("too_few_units", f"Without bias {sweep.metric} is {obs.point:.4f}. "
                          f"{too_few_units_text(few)}: the sweep shows the bounds, not a conclusion that holds or "
                          f"breaks.{tail}", (*notes, "too few units"))
    value = obs.point
    kind = solved[0].result.metric_kind
    nonnegative = solved[0].result.nonnegative or kind == "nonnegative"
    if kind == "rate":
        last = solved[-1]
        return Conclusion("range", f"Without bias {sweep.metric} is {value:.4f}. At {p} = {_pct(last.params[p])} "
                          f"{where} its certified range is [{last.result.lower:.4f}, {last.result.upper:.4f}]; a "
                          f"rate has no sign to keep.{tail}", notes)
    if nonnegative:
        head = f"Without bias {sweep.metric} is {value:.4f}. "
        keeps = [pt.result.lower > SIGN_TOLERANCE for pt in solved]
        what, lost_text = "A gap remains", "include 0, so the disparity could be 0"
        verdict_lost = "could_be_zero"
    else:
        sign = "positive" if value > SIGN_TOLERANCE else "negative" if value < -SIGN_TOLERANCE else None
        if sign is None:
            return Conclusion("undetermined", f"Without bias {sweep.metric} is 0: there is no sign to keep.{tail}",
                              notes)
        head = f"Without bias {sweep.metric} is {value:.4f} ({sign}). "
        keeps = [_keeps(sign, pt.result.lower, pt.result.upper) for pt in solved]
        what, lost_text = "It keeps its sign", "include 0, so the sign can flip"
        verdict_lost = "can_flip"
    # a never-negative gap "keeps" exactly as a positive sign does: its lower end stays above 0; the sentence on
    # the sampling error goes with the conclusion however its reach is given (the grid or a breakdown point)
    noise, noisy = _sweep_noise(solved, p, "positive" if nonnegative else sign)
    tail = noise + tail
    if breakdown_value is not None:
        if math.isinf(breakdown_value):
            return Conclusion("survives_bias_only" if noisy else "survives",
                              head + f"{what} for every {p} searched {where}.{tail}", notes)
        return Conclusion(verdict_lost, head + f"{what} for any {p} below {_pct(breakdown_value)} {where} "
                          f"(breakdown point).{tail}", notes)
    if all(keeps):
        return Conclusion("survives_bias_only" if noisy else "survives", head + f"{what} for every {p} up to "
                          f"{_pct(solved[-1].params[p])} {where}.{tail}", notes)
    first_lost = next(pt for pt, k in zip(solved, keeps, strict=True) if not k)
    kept = [pt.params[p] for pt, k in zip(solved, keeps, strict=True) if k and pt.params[p] < first_lost.params[p]]
    if not kept or max(kept) <= 0:
        keep = f"On this grid {what[0].lower() + what[1:]} only without bias {where}"
    else:
        keep = f"{what} for every {p} up to {_pct(max(kept))} {where}"
    bounds = f"[{first_lost.result.lower:.4f}, {first_lost.result.upper:.4f}]"
    return Conclusion(verdict_lost, head + f"{keep}; at {p} = {_pct(first_lost.params[p])} the certified bounds "
                      f"{bounds} {lost_text}.{tail}", notes)


def _sweep_noise(solved: list, p: str, sign: str) -> tuple[str, bool]:
    """The sentence on the sweep's sampling intervals, and whether they lose the conclusion somewhere.

    ``("", False)`` unless every solved point has an interval.
    """
    intervals = [pt.result.interval for pt in solved]
    if not intervals or any(ci is None for ci in intervals):
        return "", False
    keeps = [_keeps(sign, ci.lower, ci.upper) for ci in intervals]
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
    return f" With sampling error ({kind}) it holds only up to {p} = {_pct(last)}.", True


def breakdown_conclusion(res: BreakdownResult) -> Conclusion:
    """What a breakdown point means for the audit.

    Parameters
    ----------
    res : BreakdownResult

    Returns
    -------
    Conclusion
        ``"undetermined"`` when there is no conclusion to break, ``"survives"`` when it holds over
        the whole range searched, ``"can_flip"`` with the breakdown point otherwise.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.breakdown("proxy_label", "fpr_parity", load_paper_table(), xtol=0.01)
    >>> breakdown_conclusion(res).verdict
    'can_flip'
    """
    observed = ObservedValue(res.no_bias.lower, res.no_bias.upper).text()
    others = held_parameters(res.no_bias.parameters, res.parameter)
    start = f"With {others} and {res.parameter} = 0 the bounds give" if others else "Without bias the data give"
    limited = [r for r in (res.below, res.above, res.no_bias) if r is not None and r.status != "optimal"]
    notes = (_LIMIT_NOTE,) if limited else ()
    tail = f" {_LIMIT_NOTE}" if limited else ""
    if res.no_bias.few_units:
        few = too_few_units_text(res.no_bias.few_units)
        return Conclusion("too_few_units", f"{start} {res.metric} = {observed}. {few}; a breakdown point of so few "
                          f"units is not a finding.{tail}", (*notes, "too few units"))
    if res.value == 0.0:
        return Conclusion("undetermined", f"{start} {res.metric} = {observed}, which does not settle the conclusion; "
                          f"there is no conclusion to break.{tail}", notes)
    noise = _breakdown_noise(res)
    if math.isinf(res.value):
        return Conclusion("survives", f"{start} {res.metric} = {observed}, so '{res.claim}'. The conclusion "
                          f"holds for every {res.parameter} tested: it is robust to this bias.{noise}{tail}", notes)
    return Conclusion("can_flip", f"{start} {res.metric} = {observed}, so '{res.claim}'. It holds while "
                      f"{res.parameter} < {res.value:.4g} and can flip from {res.parameter} = {res.value:.4g} on: "
                      f"the conclusion survives a bias of that size, not more.{noise}{tail}", notes)


def _breakdown_noise(res: BreakdownResult) -> str:
    """The sentence on the breakdown point of the confidence interval ("" without one)."""
    if res.ci_value is None:
        return ""
    ref = res.ci_above if res.ci_above is not None else res.ci_below
    level = f"{ref.interval.level * 100:g} %" if ref is not None and ref.interval is not None else ""
    if res.ci_value == 0.0:
        return (f" With sampling error it does not hold even without bias: the {level} confidence interval already "
                "reaches the threshold, so the sample's noise alone leaves the conclusion open.")
    if math.isinf(res.ci_value):
        return f" With sampling error too (the {level} confidence interval) it holds for every {res.parameter} tested."
    return (f" With sampling error (the {level} confidence interval) it holds while {res.parameter} < "
            f"{res.ci_value:.4g}: the conclusion that survives both the bias and the noise.")


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

"""A breakdown point's result (:class:`BreakdownResult`) and what it means for the audit
(:func:`breakdown_conclusion`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from fairprobe.core.jsonsafe import json_number
from fairprobe.core.results.bound_result import BoundResult
from fairprobe.core.results.explained import Explained, Summary, few_units_line
from fairprobe.core.results.interval import interval_columns
from fairprobe.core.results.wording import (
    LIMIT_NOTE,
    Conclusion,
    ObservedValue,
    held_parameters,
    too_few_units_text,
)

__all__ = ["BreakdownResult", "breakdown_conclusion"]


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
        The conclusion tested, in words (``"metric < 0"``).
    below, above : BoundResult or None
        Certified bounds just below (conclusion holds) and at ``value`` (it can fail).
    no_bias : BoundResult
        Certified bounds with the moved parameter at 0.
    n_solves : int
        Bound computations used.
    metric : str
        Label of the metric.
    xtol : float
        Width of the final bracket.
    wall_time : float
        Seconds spent.
    ci_value : float or None
        With ``ci=``: the breakdown point of the confidence interval (bias and sampling error);
        ``0`` when the noise alone leaves the conclusion open; None without ``ci``.
    ci_below, ci_above : BoundResult or None
        The bounds with their :attr:`~BoundResult.interval` just below and at ``ci_value``.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> res = fp.breakdown("proxy_label", "fpr", load_paper_table(), threshold=0.2, xtol=0.01, D_max=0.1)
    >>> res.claim, res.value, res.n_solves, round(res.above.lower, 6)
    ('metric > 0.2', 0.0125, 6, 0.196491)
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
        """What the breakdown point means for the audit.

        Returns
        -------
        Conclusion
            ``"undetermined"`` when there is no conclusion to break, ``"survives"`` when it holds over
            the whole range searched, ``"can_flip"`` with the breakdown point otherwise.

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
            Columns ``point`` (``no_bias``, ``below``, ``above``, ``ci_below``, ``ci_above``), the moved
            parameter, ``lower``, ``upper``, ``status``, and the ``ci_*`` columns of points with an interval.

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
        >>> res.to_dict()["value"]
        0.0125
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


def breakdown_conclusion(res: BreakdownResult) -> Conclusion:
    """:meth:`BreakdownResult.conclusion` of ``res``."""
    observed = ObservedValue(res.no_bias.lower, res.no_bias.upper).text()
    others = held_parameters(res.no_bias.parameters, res.parameter)
    start = f"With {others} and {res.parameter} = 0 the bounds give" if others else "Without bias the data give"
    limited = [r for r in (res.below, res.above, res.no_bias) if r is not None and r.status != "optimal"]
    notes = (LIMIT_NOTE,) if limited else ()
    tail = f" {LIMIT_NOTE}" if limited else ""
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

"""A bound's sampling interval (:class:`SamplingInterval`) and its table columns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fairprobe.core.jsonsafe import jsonable

__all__ = ["SamplingInterval", "interval_columns"]


@dataclass
class SamplingInterval:
    """A bound's sampling interval (``fp.bound(..., ci=0.95)``): the confidence interval beside the bias-only bounds.

    Attributes
    ----------
    level : float
        Coverage probability.
    method : str
        ``"bootstrap"``, ``"projection"`` or ``"bayes"``.
    lower, upper : float
        Covers the metric's true value with probability ``level`` when the bias is at most the
        sensitivity value (Imbens-Manski with Stoye's correction; for projection the region's bound).
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
        """
        return jsonable({"level": self.level, "method": self.method, "lower": self.lower, "upper": self.upper,
                         "set_lower": self.set_lower, "set_upper": self.set_upper, "estimate": list(self.estimate),
                         "se_lower": self.se_lower, "se_upper": self.se_upper, "critical_value": self.critical_value,
                         "resamples": self.resamples, "failed": self.failed, "n": self.n, "seed": self.seed,
                         "notes": list(self.notes), "wall_time": self.wall_time, "text": self.text()})


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

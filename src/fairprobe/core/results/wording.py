"""The words every result's conclusion shares: :class:`Conclusion`, :class:`ObservedValue` and the rules for signs.

The rules are listed in :mod:`fairprobe.core.interpret`. This module imports no result class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fairprobe.core.jsonsafe import json_number as fix
from fairprobe.core.small_groups import FEW_UNITS  # the one rule (re-exported here and by core.results)

__all__ = ["FEW_UNITS", "LIMIT_NOTE", "POINT_WIDTH", "SIGN_TOLERANCE", "Conclusion", "ObservedValue", "held_parameters",
           "keeps_sign", "observed_sign", "percent", "setting_text", "too_few_units_text"]

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
        ``"survives"``, ``"survives_bias_only"``, ``"could_be_zero"``, ``"can_flip"``,
        ``"undetermined"``, ``"range"``, ``"too_few_units"`` (the rules: :mod:`fairprobe.core.interpret`)
        or ``"finding"`` (an analysis' headline).
    text : str
        The conclusion in plain words; every front end prints exactly this.
    notes : tuple of str
        Caveats that qualify it (a solver stopped at its limit, few units, ...), already in ``text``.

    Examples
    --------
    >>> str(Conclusion("survives", "The disparity stays negative."))
    'The disparity stays negative.'
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


#: The caveat of a solver stopped at its limit (a bound's, a sweep point's or a breakdown step's).
LIMIT_NOTE = ("The solver stopped at its limit, so the range may be wider than the true one: what it settles "
              "holds, what it leaves open may only be loose (raise the time limit).")


def setting_text(parameters: Mapping[str, float]) -> str:
    """The sensitivity values of a result, as text.

    Parameters
    ----------
    parameters : mapping of str to float

    Returns
    -------
    str

    Examples
    --------
    >>> setting_text({"D": 0.05, "D_selection": 0.0})
    'D = 0.05, D_selection = 0'
    """
    return ", ".join(f"{k} = {v:g}" for k, v in parameters.items())


def observed_sign(obs: ObservedValue) -> str | None:
    """``"positive"``/``"negative"`` when the bounds with no bias settle the sign, else None.

    Parameters
    ----------
    obs : ObservedValue

    Returns
    -------
    str or None

    Examples
    --------
    >>> observed_sign(ObservedValue(-0.05, -0.04)), observed_sign(ObservedValue(-0.01, 0.02))
    ('negative', None)
    """
    if not obs.defined:
        return None
    if obs.lower > SIGN_TOLERANCE:
        return "positive"
    if obs.upper < -SIGN_TOLERANCE:
        return "negative"
    return None


def keeps_sign(sign: str, lower: float, upper: float) -> bool:
    """Whether the interval ``[lower, upper]`` keeps ``sign`` (beyond :data:`SIGN_TOLERANCE`).

    Parameters
    ----------
    sign : {"positive", "negative"}
    lower, upper : float

    Returns
    -------
    bool

    Examples
    --------
    >>> keeps_sign("negative", -0.2, -0.01), keeps_sign("positive", 0.0, 0.3)
    (True, False)
    """
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


def percent(value: float) -> str:
    """A share as a percentage with three significant digits.

    Parameters
    ----------
    value : float

    Returns
    -------
    str

    Examples
    --------
    >>> percent(0.0125)
    '1.25 %'
    """
    return f"{100 * value:.3g} %"

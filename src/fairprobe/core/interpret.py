"""What a causal result settles, decided in one place: the rules, and every conclusion function by name.

Every front end prints the :class:`~fairprobe.core.results.Conclusion` these functions return and
never decides itself. Each function sits beside the result it reads (:mod:`fairprobe.core.results`)
and is re-exported here. The rules:

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
  reads ``"survives_bias_only"``.
* A rate measured on fewer than :data:`~fairprobe.core.small_groups.FEW_UNITS` units
  (:mod:`fairprobe.core.small_groups`) gets its bounds and **no claim** (``"too_few_units"``).
"""

from __future__ import annotations

from fairprobe.core.results.bound_result import bound_conclusion, threshold_test
from fairprobe.core.results.breakdown_result import breakdown_conclusion
from fairprobe.core.results.sweep_result import sweep_conclusion
from fairprobe.core.results.wording import (
    FEW_UNITS,
    POINT_WIDTH,
    SIGN_TOLERANCE,
    Conclusion,
    ObservedValue,
    held_parameters,
    too_few_units_text,
)

__all__ = ["FEW_UNITS", "POINT_WIDTH", "SIGN_TOLERANCE", "Conclusion", "ObservedValue", "bound_conclusion",
           "breakdown_conclusion", "held_parameters", "sweep_conclusion", "threshold_test", "too_few_units_text"]

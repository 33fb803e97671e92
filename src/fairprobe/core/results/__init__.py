"""Results that explain themselves: every result class of the causal drivers, and what each settles.

The results layer sits above the causal model and below the engine and the drivers that make its
results (:func:`fairprobe.bound`, :func:`fairprobe.sensitivity`, :func:`fairprobe.breakdown`,
:func:`fairprobe.group_rates`); it imports neither. Its modules, bottom to top:

* :mod:`~fairprobe.core.results.wording`: :class:`Conclusion` (what a result settles, with a verdict),
  :class:`ObservedValue` (the metric with no bias, or why it has none) and the shared rules for signs.
* :mod:`~fairprobe.core.results.interval`: :class:`SamplingInterval`, a bound's sampling interval.
* :mod:`~fairprobe.core.results.explained`: :class:`Explained`, the interface of every causal result and
  analysis (:class:`~fairprobe.plugins.base.Analysis`), and :class:`Summary`, text that renders as HTML.
* :mod:`~fairprobe.core.results.bound_result`: :class:`BoundResult`, :class:`PointOutcome`,
  :func:`~fairprobe.core.results.bound_result.bound_conclusion` and
  :func:`~fairprobe.core.results.bound_result.threshold_test`.
* :mod:`~fairprobe.core.results.sweep_result`: :class:`SensitivityResult` and
  :func:`~fairprobe.core.results.sweep_result.sweep_conclusion`.
* :mod:`~fairprobe.core.results.breakdown_result`: :class:`BreakdownResult` and
  :func:`~fairprobe.core.results.breakdown_result.breakdown_conclusion`.
* :mod:`~fairprobe.core.results.group_rates_result`: :class:`GroupRates`.

Each conclusion is decided here, by the rules listed in :mod:`fairprobe.core.interpret`; the command
line and the app only print its ``text``.
"""

from __future__ import annotations

from fairprobe.core.results.bound_result import BoundResult, PointOutcome, bound_conclusion, threshold_test
from fairprobe.core.results.breakdown_result import BreakdownResult, breakdown_conclusion
from fairprobe.core.results.explained import Explained, Summary, few_units_line
from fairprobe.core.results.group_rates_result import RATES, GroupRates
from fairprobe.core.results.interval import SamplingInterval, interval_columns
from fairprobe.core.results.sweep_result import SensitivityResult, bias_label, sweep_conclusion
from fairprobe.core.results.wording import FEW_UNITS, Conclusion, ObservedValue

__all__ = ["FEW_UNITS", "RATES", "BoundResult", "BreakdownResult", "Conclusion", "Explained", "GroupRates",
           "ObservedValue", "PointOutcome", "SamplingInterval", "SensitivityResult", "Summary", "bias_label",
           "bound_conclusion", "breakdown_conclusion", "few_units_line", "interval_columns", "sweep_conclusion",
           "threshold_test"]

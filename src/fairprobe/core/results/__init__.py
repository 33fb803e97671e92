"""Results that explain themselves: every result class of the causal drivers, and what each settles.

The results layer sits below the engine and the drivers that make its results, and imports neither.
Its modules, bottom to top: ``wording`` (:class:`Conclusion`, :class:`ObservedValue`, the rules for
signs), ``interval`` (:class:`SamplingInterval`), ``explained`` (:class:`Explained`, :class:`Summary`),
``bound_result``, ``sweep_result``, ``breakdown_result`` and ``group_rates_result``, each with its
result class and conclusion function (the rules: :mod:`fairprobe.core.interpret`).
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

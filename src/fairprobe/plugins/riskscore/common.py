"""What the risk-score audit, its plots and its demo step share.

This module sits below :mod:`~fairprobe.plugins.riskscore.audit`,
:mod:`~fairprobe.plugins.riskscore.plots` and :mod:`~fairprobe.plugins.riskscore.demo`, so that
none of those three has to import another one back (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairprobe.reporting.report import Section

__all__ = ["BADNESS", "add_text"]

#: Distance of a metric's value from its ideal, per metric (smaller is better): ranks the groups.
BADNESS: dict[str, Callable[[float], float]] = {
    "drmsce": lambda v: v, "ece": lambda v: v, "auroc": lambda v: -v, "auprg": lambda v: -v, "eur": lambda v: -v,
    "calibration_intercept": abs, "calibration_slope": lambda v: abs(v - 1)}


def add_text(sec: Section, text: str) -> None:
    """Append a paragraph to a report section's text.

    Parameters
    ----------
    sec : fairprobe.reporting.report.Section
        The section.
    text : str
        The paragraph (separated from the text before it by a blank line).

    Returns
    -------
    None

    Examples
    --------
    >>> from fairprobe.reporting.report import Report
    >>> sec = Report("t").section("calibration", "First.")
    >>> add_text(sec, "Second.")
    >>> sec.text
    'First.\\n\\nSecond.'
    """
    sec.text = f"{sec.text}\n\n{text}" if sec.text else text

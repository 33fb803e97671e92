"""Reports and plots shared by every analysis: one HTML report folder format, one plotting helper.

* :mod:`fairprobe.reporting.report`: :class:`Report` (sections of text, parameters, tables and
  figures, written as ``index.html``, ``figures/``, ``tables/`` and ``report.json``), the folder
  rules and :func:`combine_reports`;
* :mod:`fairprobe.reporting.plotting`: :func:`new_axes`.

Library code never switches matplotlib's backend; the command line runs it headless.
"""

from fairprobe.reporting.plotting import new_axes
from fairprobe.reporting.report import (
    Report,
    Section,
    check_output_folder,
    combine_reports,
    load_report,
    write_report,
)

__all__ = ["Report", "Section", "check_output_folder", "combine_reports", "load_report", "new_axes", "write_report"]

"""Reports and plots shared by every analysis: one HTML report folder format, one plotting helper.

* :mod:`fairprobe.reporting.report`: :class:`Report` (sections of text, parameters, tables and
  figures, written as ``index.html``, ``figures/``, ``tables/`` and ``report.json``), the folder
  rules and :func:`combine_reports`;
* :mod:`fairprobe.reporting.plotting`: :func:`new_axes`.

Library code never switches matplotlib's backend; the command line runs it headless.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "new_axes": "fairprobe.reporting.plotting",
    "Report": "fairprobe.reporting.report",
    "Section": "fairprobe.reporting.report",
    "check_output_folder": "fairprobe.reporting.report",
    "combine_reports": "fairprobe.reporting.report",
    "load_report": "fairprobe.reporting.report",
    "write_report": "fairprobe.reporting.report",
}

__all__ = ["Report", "Section", "check_output_folder", "combine_reports", "load_report", "new_axes", "write_report"]


def __getattr__(name: str) -> Any:
    # imported on first use: the command line's help must not import pandas
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

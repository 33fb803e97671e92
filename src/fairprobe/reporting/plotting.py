"""Small plotting helper shared by every analysis (matplotlib is imported lazily).

The helper lives in :mod:`fairprobe.core.plotting` (core results plot themselves, and core never
imports reporting); it is re-exported here for the analyses and reports.
"""

from __future__ import annotations

from fairprobe.core.plotting import new_axes

__all__ = ["new_axes"]

"""Moved to :mod:`fairprobe.program.polynomial` (the solver-neutral program layer); this old path keeps working."""

from fairprobe.program.polynomial import *  # noqa: F403
from fairprobe.program.polynomial import __all__  # noqa: F401

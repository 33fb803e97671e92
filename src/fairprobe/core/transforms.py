"""Moved to :mod:`fairprobe.program.transforms` (the solver-neutral program layer); this old path keeps working."""

from fairprobe.program.transforms import *  # noqa: F403
from fairprobe.program.transforms import __all__  # noqa: F401

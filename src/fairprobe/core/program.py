"""Moved to :mod:`fairprobe.program.model` (the solver-neutral program layer); this old path keeps working."""

from fairprobe.program.model import *  # noqa: F403
from fairprobe.program.model import __all__  # noqa: F401

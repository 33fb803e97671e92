"""Moved to :mod:`fairprobe.cli.options` (this alias is removed once every caller imports the new path)."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("fairprobe.cli.options")

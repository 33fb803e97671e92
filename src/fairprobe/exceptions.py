"""Exceptions raised by fairprobe.

Every error a user can cause derives from :class:`FairprobeError`, so a caller can catch one
class. Messages name the problem and the fix.
"""

from __future__ import annotations

__all__ = [
    "BackendCapabilityError",
    "BackendLicenseError",
    "BackendUnavailableError",
    "ConfigError",
    "DataError",
    "DuplicatePluginError",
    "FairprobeError",
    "InfeasibleError",
    "NotFittedError",
    "PluginInterfaceError",
    "ProgramError",
    "SolverError",
    "UndefinedMetricError",
    "UnknownPluginError",
]


class FairprobeError(Exception):
    """Root of every error fairprobe raises on purpose."""


class ConfigError(FairprobeError, ValueError):
    """A bias configuration, DAG, query or option is malformed."""


class DataError(FairprobeError, ValueError):
    """An observed table or data set is malformed or inconsistent."""


class ProgramError(FairprobeError, ValueError):
    """A :class:`~fairprobe.core.program.PolynomialProgram` is malformed."""


class InfeasibleError(FairprobeError):
    """The assumptions are inconsistent with the data (the program has no feasible point)."""


class UndefinedMetricError(FairprobeError, ValueError):
    """A metric conditions on an event that has probability 0 in every model the bias admits.

    For example FNR parity between two groups when one group has no positives: the false-negative
    rate of that group is a ratio ``0 / 0`` in every model, so no bound on the metric means anything.
    """


class SolverError(FairprobeError, RuntimeError):
    """A solver failed in a way fairprobe could not turn into a result."""


class BackendUnavailableError(FairprobeError, LookupError):
    """A backend is unknown, not installed or not licensed."""


class BackendCapabilityError(FairprobeError, ValueError):
    """A backend was asked to solve a program beyond its declared capabilities."""


class BackendLicenseError(BackendCapabilityError):
    """The solver's licence does not cover this program (e.g. a size-limited licence)."""


class UnknownPluginError(FairprobeError, LookupError):
    """No registered plugin has the requested name."""


class DuplicatePluginError(FairprobeError):
    """Two plugins registered classes under the same name."""


class PluginInterfaceError(FairprobeError, TypeError):
    """A registered plugin class does not implement the interface of its kind."""


class NotFittedError(ConfigError, AttributeError):
    """An analysis's results were asked for before ``fit`` (as scikit-learn's ``NotFittedError``)."""

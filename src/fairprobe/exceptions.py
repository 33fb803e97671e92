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
    "OutputError",
    "PluginInterfaceError",
    "ProgramError",
    "SolverError",
    "UndefinedMetricError",
    "UnknownPluginError",
]


class FairprobeError(Exception):
    """Root of every error fairprobe raises on purpose.

    Examples
    --------
    Catch every deliberate fairprobe error with one class:

    >>> from fairprobe.exceptions import ConfigError, FairprobeError
    >>> try:
    ...     raise ConfigError("unknown variable 'Q' in the DAG")
    ... except FairprobeError as err:
    ...     print(type(err).__name__, "-", err)
    ConfigError - unknown variable 'Q' in the DAG
    """


class ConfigError(FairprobeError, ValueError):
    """A bias configuration, DAG, query or option is malformed.

    Examples
    --------
    >>> from fairprobe.exceptions import ConfigError
    >>> try:
    ...     raise ConfigError("constraint has no comparison operator")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", err)
    ConfigError - constraint has no comparison operator
    """


class OutputError(ConfigError, OSError):
    """A result could not be written: no space left, a read-only disk, no permission.

    The message names the path, the system's reason and the fix; ``errno`` is the system's. It is
    an ``OSError`` too, so code that caught the system's error still catches it.

    Examples
    --------
    >>> import errno
    >>> from fairprobe.exceptions import OutputError
    >>> err = OutputError("Cannot write --out report: No space left on device; free space or choose another --out.")
    >>> err.errno = errno.ENOSPC
    >>> isinstance(err, OSError), isinstance(err, ConfigError), str(err).split(":")[0]
    (True, True, 'Cannot write --out report')
    """


class DataError(FairprobeError, ValueError):
    """An observed table or data set is malformed or inconsistent.

    Examples
    --------
    >>> from fairprobe.exceptions import DataError
    >>> try:
    ...     raise DataError("probabilities do not sum to 1")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", err)
    DataError - probabilities do not sum to 1
    """


class ProgramError(FairprobeError, ValueError):
    """A :class:`~fairprobe.program.model.PolynomialProgram` is malformed.

    Examples
    --------
    >>> from fairprobe.exceptions import ProgramError
    >>> try:
    ...     raise ProgramError("variable x has no bounds")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", err)
    ProgramError - variable x has no bounds
    """


class InfeasibleError(FairprobeError):
    """The assumptions are inconsistent with the data (the program has no feasible point).

    Examples
    --------
    >>> from fairprobe.exceptions import InfeasibleError, FairprobeError
    >>> try:
    ...     raise InfeasibleError("the assumptions contradict the data")
    ... except FairprobeError as err:
    ...     print(type(err).__name__, "-", err)
    InfeasibleError - the assumptions contradict the data
    """


class UndefinedMetricError(FairprobeError, ValueError):
    """A metric conditions on an event that has probability 0 in every model the bias admits.

    For example FNR parity between two groups when one group has no positives: the false-negative
    rate of that group is a ratio ``0 / 0`` in every model, so no bound on the metric means anything.

    Examples
    --------
    >>> from fairprobe.exceptions import UndefinedMetricError
    >>> try:
    ...     raise UndefinedMetricError("P(Y=1 | A=1) = 0 in every model")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", err)
    UndefinedMetricError - P(Y=1 | A=1) = 0 in every model
    """


class SolverError(FairprobeError, RuntimeError):
    """A solver failed in a way fairprobe could not turn into a result.

    Examples
    --------
    >>> from fairprobe.exceptions import SolverError
    >>> try:
    ...     raise SolverError("the solver crashed")
    ... except RuntimeError as err:
    ...     print(type(err).__name__, "-", err)
    SolverError - the solver crashed
    """


class BackendUnavailableError(FairprobeError, LookupError):
    """A backend is unknown, not installed or not licensed.

    Examples
    --------
    >>> from fairprobe.exceptions import BackendUnavailableError
    >>> try:
    ...     raise BackendUnavailableError("gurobi is not installed")
    ... except LookupError as err:
    ...     print(type(err).__name__, "-", err)
    BackendUnavailableError - gurobi is not installed
    """


class BackendCapabilityError(FairprobeError, ValueError):
    """A backend was asked to solve a program beyond its declared capabilities.

    Examples
    --------
    >>> from fairprobe.exceptions import BackendCapabilityError
    >>> try:
    ...     raise BackendCapabilityError("ortools solves linear programs only")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", err)
    BackendCapabilityError - ortools solves linear programs only
    """


class BackendLicenseError(BackendCapabilityError):
    """The solver's licence does not cover this program (e.g. a size-limited licence).

    Examples
    --------
    >>> from fairprobe.exceptions import BackendLicenseError, BackendCapabilityError
    >>> try:
    ...     raise BackendLicenseError("the program exceeds the size-limited licence")
    ... except BackendCapabilityError as err:
    ...     print(type(err).__name__, "-", err)
    BackendLicenseError - the program exceeds the size-limited licence
    """


class UnknownPluginError(FairprobeError, LookupError):
    """No registered plugin has the requested name.

    Examples
    --------
    >>> from fairprobe.exceptions import UnknownPluginError
    >>> try:
    ...     raise UnknownPluginError("no bias named 'selectoin'")
    ... except LookupError as err:
    ...     print(type(err).__name__, "-", err)
    UnknownPluginError - no bias named 'selectoin'
    """


class DuplicatePluginError(FairprobeError):
    """Two plugins registered classes under the same name.

    Examples
    --------
    >>> from fairprobe.exceptions import DuplicatePluginError, FairprobeError
    >>> try:
    ...     raise DuplicatePluginError("two biases are named 'selection'")
    ... except FairprobeError as err:
    ...     print(type(err).__name__, "-", err)
    DuplicatePluginError - two biases are named 'selection'
    """


class PluginInterfaceError(FairprobeError, TypeError):
    """A registered plugin class does not implement the interface of its kind.

    Examples
    --------
    >>> from fairprobe.exceptions import PluginInterfaceError
    >>> try:
    ...     raise PluginInterfaceError("MyBias has no 'config' method")
    ... except TypeError as err:
    ...     print(type(err).__name__, "-", err)
    PluginInterfaceError - MyBias has no 'config' method
    """


class NotFittedError(ConfigError, AttributeError):
    """An analysis's results were asked for before ``fit`` (as scikit-learn's ``NotFittedError``).

    Examples
    --------
    >>> from fairprobe.exceptions import NotFittedError
    >>> try:
    ...     raise NotFittedError("call fit before summary")
    ... except AttributeError as err:
    ...     print(type(err).__name__, "-", err)
    NotFittedError - call fit before summary
    """

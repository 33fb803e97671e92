"""fairprobe: how far can you trust a fairness assessment?

Public API (see ``DESIGN.md``)::

    import fairprobe as fp
    prog = fp.PolynomialProgram.from_text(text)
    fp.get_backend("scip").solve(prog, fp.SolveOptions(time_limit=10))
    fp.list_plugins()

Heavy modules are imported lazily so that ``import fairprobe`` stays fast and never imports a
solver library.
"""

from __future__ import annotations

import importlib
from typing import Any

from fairprobe.exceptions import (
    BackendCapabilityError,
    BackendLicenseError,
    BackendUnavailableError,
    ConfigError,
    DataError,
    DuplicatePluginError,
    FairprobeError,
    InfeasibleError,
    NotFittedError,
    PluginInterfaceError,
    ProgramError,
    SolverError,
    UndefinedMetricError,
    UnknownPluginError,
)
from fairprobe.hookspecs import hookimpl

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "PolynomialProgram": "fairprobe.program.model",
    "BiasConfig": "fairprobe.core.config",
    "bound": "fairprobe.core.bound",
    "BoundResult": "fairprobe.core.results",
    "Conclusion": "fairprobe.core.results",
    "ObservedValue": "fairprobe.core.results",
    "PointOutcome": "fairprobe.core.results",
    "Explained": "fairprobe.core.results",
    "CompileOptions": "fairprobe.core.options",
    "RunOptions": "fairprobe.core.options",
    "observed": "fairprobe.core.observed",
    "GroupRates": "fairprobe.core.observed",
    "resolve_bias": "fairprobe.core.inputs",
    "bias_label": "fairprobe.core.sensitivity",
    "BoundProblem": "fairprobe.core.bound",
    "sensitivity": "fairprobe.core.sensitivity",
    "sensitivity_grid": "fairprobe.core.sensitivity",
    "SensitivityResult": "fairprobe.core.sensitivity",
    "breakdown": "fairprobe.core.breakdown",
    "BreakdownResult": "fairprobe.core.breakdown",
    "combine_biases": "fairprobe.core.combine",
    "compile_program": "fairprobe.core.compiler",
    "ObservedTable": "fairprobe.core.table",
    "DAG": "fairprobe.core.dag",
    "parse_constraint": "fairprobe.core.query",
    "parse_expression": "fairprobe.core.query",
    "expand_constraint": "fairprobe.core.templates",
    "ProgramStats": "fairprobe.program.model",
    "get_plugin_manager": "fairprobe.core.registry",
    "create_plugin_manager": "fairprobe.core.registry",
    "get_registry": "fairprobe.core.registry",
    "get_backend": "fairprobe.core.registry",
    "list_plugins": "fairprobe.core.registry",
    "metric": "fairprobe.core.registry",
    "Backend": "fairprobe.backends.base",
    "SolveOptions": "fairprobe.backends.base",
    "SolveResult": "fairprobe.backends.base",
    "Termination": "fairprobe.backends.base",
    "Limit": "fairprobe.backends.base",
    "Availability": "fairprobe.backends.base",
    "Capabilities": "fairprobe.backends.base",
    "Analysis": "fairprobe.plugins.base",
    "Summary": "fairprobe.core.results",
    "SamplingInterval": "fairprobe.core.results",
    "IntervalOptions": "fairprobe.core.uncertainty",
    "interval_options": "fairprobe.core.uncertainty",
    "sampling_interval": "fairprobe.core.uncertainty",
    "study": "fairprobe.studies",
    "StudyResult": "fairprobe.studies",
    "StudySpec": "fairprobe.studies.spec",
}

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
    "__version__",
    "hookimpl",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairprobe' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

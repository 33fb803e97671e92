"""fairprobe: how far can you trust a fairness assessment?

The public entry points (each documented in ``docs/api.md``)::

    import fairprobe as fp
    res = fp.bound("proxy_label", "fpr_parity", table, D=0.05)
    fp.sensitivity(...), fp.breakdown(...), fp.group_rates(table), fp.study(spec, out)

Everything else stays importable from its module (``fairprobe.core.bound.BoundProblem``,
``fairprobe.exceptions.ProgramError``, ...) but is not part of ``fp``. Heavy modules are imported
lazily so that ``import fairprobe`` stays fast and never imports a solver library.
"""

from fairprobe.exceptions import ConfigError, DataError, FairprobeError, InfeasibleError, SolverError
from fairprobe.hookspecs import hookimpl

__version__ = "0.1.0"

# Public name -> module that defines it (imported on first access).
_LAZY: dict[str, str] = {
    # drivers
    "bound": "fairprobe.core.bound",
    "sensitivity": "fairprobe.core.sensitivity",
    "sensitivity_grid": "fairprobe.core.sensitivity",
    "breakdown": "fairprobe.core.breakdown",
    "group_rates": "fairprobe.core.group_rates",
    "study": "fairprobe.studies",
    # results
    "BoundResult": "fairprobe.core.results",
    "SensitivityResult": "fairprobe.core.sensitivity",
    "BreakdownResult": "fairprobe.core.breakdown",
    "StudyResult": "fairprobe.studies",
    "GroupRates": "fairprobe.core.group_rates",
    "ObservedValue": "fairprobe.core.results",
    "SamplingInterval": "fairprobe.core.results",
    "Conclusion": "fairprobe.core.results",
    "Explained": "fairprobe.core.results",
    # inputs and options
    "ObservedTable": "fairprobe.core.table",
    "BiasConfig": "fairprobe.core.config",
    "combine_biases": "fairprobe.core.combine",
    "metric": "fairprobe.core.registry",
    "RunOptions": "fairprobe.core.options",
    "CompileOptions": "fairprobe.core.options",
    "StudySpec": "fairprobe.studies.spec",
    # programs, backends and plugins
    "PolynomialProgram": "fairprobe.program.model",
    "Backend": "fairprobe.backends.base",
    "SolveOptions": "fairprobe.backends.base",
    "SolveResult": "fairprobe.backends.base",
    "Termination": "fairprobe.backends.base",
    "get_backend": "fairprobe.core.registry",
    "get_registry": "fairprobe.core.registry",
    "list_plugins": "fairprobe.core.registry",
}

__all__ = [
    "ConfigError",
    "DataError",
    "FairprobeError",
    "InfeasibleError",
    "SolverError",
    "__version__",
    "hookimpl",
    *_LAZY,
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairprobe' has no attribute {name!r}")
    import importlib  # here, not at the top, so that it is no attribute of the package

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # Only the public names: submodules (fairprobe.core, ...) are attributes once imported, not entry points.
    return sorted(__all__)

"""FairTree: subgroup performance audit with bias-variance decomposition (analysis plugin)."""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "cusum_process": "fairprobe.plugins.fairtree.tests",
    "fluctuation_test": "fairprobe.plugins.fairtree.tests",
    "kolmogorov_pvalue": "fairprobe.plugins.fairtree.tests",
    "permutation_max_test": "fairprobe.plugins.fairtree.tests",
    "FairTree": "fairprobe.plugins.fairtree.tree",
    "Node": "fairprobe.plugins.fairtree.tree",
}

__all__ = ["FairTree", "Node", "cusum_process", "fluctuation_test", "kolmogorov_pvalue", "permutation_max_test"]


def __getattr__(name: str) -> Any:
    # imported on first use: registering the plugin (its hooks module) must not import numpy, scipy
    # or pandas, so ``fairprobe --help`` stays fast
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

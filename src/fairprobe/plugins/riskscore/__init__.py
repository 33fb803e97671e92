"""Risk-score fairness audit: calibration, discrimination and representation per group (analysis plugin)."""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "RiskScoreAudit": "fairprobe.plugins.riskscore.audit",
    "ace": "fairprobe.plugins.riskscore.calibration",
    "drmsce": "fairprobe.plugins.riskscore.calibration",
    "ece": "fairprobe.plugins.riskscore.calibration",
    "rmsce": "fairprobe.plugins.riskscore.calibration",
    "reliability_curve": "fairprobe.plugins.riskscore.calibration",
    "EURTest": "fairprobe.plugins.riskscore.representation",
    "eur_permutation_test": "fairprobe.plugins.riskscore.representation",
    "auprg": "fairprobe.plugins.riskscore.discrimination",
    "auroc": "fairprobe.plugins.riskscore.discrimination",
    "calibration_intercept_slope": "fairprobe.plugins.riskscore.discrimination",
    "prg_curve": "fairprobe.plugins.riskscore.discrimination",
    "expected_underrepresentation": "fairprobe.plugins.riskscore.representation",
    "representation_curve": "fairprobe.plugins.riskscore.representation",
}

__all__ = [
    "EURTest",
    "RiskScoreAudit",
    "ace",
    "auprg",
    "auroc",
    "calibration_intercept_slope",
    "drmsce",
    "ece",
    "eur_permutation_test",
    "expected_underrepresentation",
    "prg_curve",
    "reliability_curve",
    "representation_curve",
    "rmsce",
]


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

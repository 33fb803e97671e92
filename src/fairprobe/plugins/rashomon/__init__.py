"""Predictive multiplicity (Rashomon analysis).

* :mod:`~fairprobe.plugins.rashomon.measures`: conflict ratio, delta-ambiguity, distances;
* :class:`RashomonSet`: ad-hoc Rashomon sets of any scikit-learn classifier;
* :class:`ExactLinearMultiplicity`: the exact epsilon-Rashomon set of linear classifiers by
  mixed-integer programs through fairprobe's backends (Marx, Calmon & Ustun, 2020);
* :class:`TreeRashomonSet`: the exact Rashomon set of sparse decision trees (TreeFARMS, optional
  extra ``trees``) with exact set-level conflict ratios computed without listing the trees.

Both are analyses (:class:`fairprobe.plugins.base.Analysis`): ``fit(X, y_true, ...)`` returns
the fitted analysis, and ``summary()``, ``to_frame()``, ``figures()`` and ``to_report(out)`` read
its fitted state.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "ExactLinearMultiplicity": "fairprobe.plugins.rashomon.linear_exact",
    "LinearMultiplicityResult": "fairprobe.plugins.rashomon.linear_exact",
    "ambiguity_curve": "fairprobe.plugins.rashomon.measures",
    "conflict_ratio": "fairprobe.plugins.rashomon.measures",
    "delta_ambiguity": "fairprobe.plugins.rashomon.measures",
    "rashomon_distance": "fairprobe.plugins.rashomon.measures",
    "RashomonSet": "fairprobe.plugins.rashomon.rashomon_set",
    "TreeRashomonSet": "fairprobe.plugins.rashomon.tree_exact",
}

__all__ = ["ExactLinearMultiplicity", "LinearMultiplicityResult", "RashomonSet", "TreeRashomonSet", "ambiguity_curve",
           "conflict_ratio", "delta_ambiguity", "rashomon_distance"]


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

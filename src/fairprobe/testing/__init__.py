"""Helpers for plugin authors and for fairprobe's own tests.

* :func:`fresh_plugin_manager` (:mod:`~fairprobe.testing.plugins`) builds an isolated plugin
  manager (no entry points unless asked), optionally with extra plugins registered.
* :data:`CONTRACT_PROBLEMS` (:mod:`~fairprobe.testing.backends`) is a library of small programs
  with known optima; a backend must solve every one its
  :class:`~fairprobe.backends.base.Capabilities` declare it can. :func:`check_backend_class` and
  :func:`check_backend_contract` check a backend against the interface and those problems,
  raising ``AssertionError`` with a readable message; :func:`check_time_limit` checks that it
  stops at a time limit, counted by :class:`Stopwatch` so that a busy machine does not fail it.
* :func:`check_analysis` (:mod:`~fairprobe.testing.analyses`) checks an analysis class against the
  analysis contract (:class:`fairprobe.plugins.base.Analysis`) on its own ``example()``: every
  built-in analysis and the example plugin pass it, and a plugin author runs it in their own tests.
* :func:`null_covariate` (:mod:`~fairprobe.testing.covariates`) draws a pure-noise covariate of
  each type FairTree handles (the null benchmark ``benchmarks/fairtree_null.py`` and its reduced
  test share it).
* :class:`RandomSCM` (:mod:`~fairprobe.testing.scm`) is a random discrete structural causal model
  whose probabilities are computed exactly: ground truth for the causal engine.

Every name is importable from ``fairprobe.testing`` itself.

Examples
--------
>>> from fairprobe.testing import check_backend_contract
>>> from fairprobe.backends.scip import ScipBackend
>>> report = check_backend_contract(ScipBackend())
>>> sorted(report)[:2]
['bilinear_simplex', 'convex_qp']
"""

from __future__ import annotations

from fairprobe.testing.analyses import check_analysis
from fairprobe.testing.backends import (
    CONTRACT_PROBLEMS,
    KnownProblem,
    Stopwatch,
    check_backend_class,
    check_backend_contract,
    check_exact_routes,
    check_time_limit,
    declares_capable,
    dense_lp,
    hard_standard_quadratic,
)
from fairprobe.testing.covariates import NULL_COVARIATE_TYPES, null_covariate
from fairprobe.testing.plugins import fresh_plugin_manager
from fairprobe.testing.scm import RandomSCM
from fairprobe.testing.tables import class_conditional_proxy, covariate_table, selective_labels_table

__all__ = [
    "CONTRACT_PROBLEMS",
    "NULL_COVARIATE_TYPES",
    "KnownProblem",
    "RandomSCM",
    "Stopwatch",
    "check_analysis",
    "check_backend_class",
    "check_backend_contract",
    "check_exact_routes",
    "check_time_limit",
    "class_conditional_proxy",
    "covariate_table",
    "declares_capable",
    "dense_lp",
    "fresh_plugin_manager",
    "hard_standard_quadratic",
    "null_covariate",
    "selective_labels_table",
]

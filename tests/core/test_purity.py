"""State you can see: ``fp.bound`` is a pure function of its arguments, and the engine keeps no
module-level mutable cache (core, backends, program)."""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
import subprocess
import sys
import threading
import types
import weakref
from collections import deque
from typing import Any

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem

#: The bound every check repeats, and a script printing it in a process of its own.
CELLS = {"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
         "n": [300, 50, 40, 200, 150, 100, 50, 200]}
CALLS = [("proxy_label", "fpr_parity", 0.05), ("selection", "equalized_odds", 0.02), ("ecp", "ppv_parity", 0.05)]
FRESH = """
import json, sys
import pandas as pd
import fairprobe as fp
from tests.core.test_purity import CELLS, CALLS, fingerprint
table = fp.ObservedTable.from_counts(pd.DataFrame(CELLS))
bias, metric, D = CALLS[int(sys.argv[1])]
print(json.dumps(fingerprint(fp.bound(bias, metric, table, D=D))))
"""


def fingerprint(res: Any) -> dict:
    """What must not depend on earlier calls: bounds, achieved values, status, kind and the solvers' details
    (floats by their exact bits)."""
    def exact(v: Any) -> Any:
        return float(v).hex() if isinstance(v, float) else v

    sides = [r for r in (res.min_result, res.max_result) if r is not None]
    return {
        "lower": exact(res.lower), "upper": exact(res.upper),
        "lower_achieved": exact(res.lower_achieved), "upper_achieved": exact(res.upper_achieved),
        "status": res.status, "kind": res.kind, "gap": exact(res.gap), "metric": res.metric,
        "excluded": list(res.excluded_events),
        "details": {k: exact(v) for k, v in sorted(res.details.items()) if isinstance(v, (int, float, str))},
        "sides": [(r.termination.value, exact(r.objective_bound), exact(r.incumbent_objective)) for r in sides],
    }


def _table() -> fp.ObservedTable:
    return fp.ObservedTable.from_counts(pd.DataFrame(CELLS))


def _other_calls() -> None:
    """Bounds of other tables, other D and other biases, a sweep and a bootstrap: whatever a process did before."""
    rng = np.random.default_rng(5)
    for seed in range(3):
        counts = rng.integers(20, 400, size=8)
        other = fp.ObservedTable.from_counts(pd.DataFrame({**CELLS, "n": counts}))
        fp.bound("proxy_label", "fpr_parity", other, D=0.05)  # the same shape, other probabilities
        fp.bound("proxy_label", "fpr_parity", _table(), D=0.01 * (seed + 1))  # the same table, other D
    fp.bound("selection", "fpr_parity", _table(), D=0.05, ci=0.9, resamples=20)
    fp.bound("ecp", "equalized_odds", _table(), D=0.03)
    BoundProblem("proxy_label", "fpr_parity", _table()).solve({"D": 0.02})


@pytest.mark.parametrize("k", range(len(CALLS)))
def test_a_bound_is_the_same_in_a_fresh_process_and_after_other_calls(k: int) -> None:
    bias, metric, D = CALLS[k]
    out = subprocess.run([sys.executable, "-c", FRESH, str(k)], capture_output=True, text=True, check=True,
                         cwd=str(importlib.import_module("tests").__path__[0] + "/.."))
    fresh = json.loads(out.stdout.strip().splitlines()[-1])
    first = json.loads(json.dumps(fingerprint(fp.bound(bias, metric, _table(), D=D))))
    _other_calls()
    again = json.loads(json.dumps(fingerprint(fp.bound(bias, metric, _table(), D=D))))
    assert first == fresh
    assert again == fresh


def test_a_problem_is_cheap_to_make_and_compiles_when_asked() -> None:
    problem = BoundProblem("proxy_label", "fpr_parity", _table(), fixed={"D": 0.05})
    assert not problem.compiled and "term_programs" not in vars(problem)
    assert problem.compile() is problem and problem.compiled
    programs = problem.term_programs
    assert problem.compile().term_programs is programs  # once


# -- no module-level mutable cache ------------------------------------------------------------------------

#: Containers that make a module global mutable state (a constant table is a MappingProxyType, a
#: frozenset or a tuple instead).
MUTABLE = (dict, list, set, bytearray, deque, weakref.WeakKeyDictionary, weakref.WeakValueDictionary,
           weakref.WeakSet, threading.local)

#: Module globals that may hold state, each with why no result depends on it.
ALLOWED = {
    # memos of pure functions of immutable arguments: the same value whatever was asked before
    "fairprobe.core.metric_range.metric_range": "interval arithmetic of metric expressions (strings, frozenset)",
    "fairprobe.core.parametric._affine": "whether immutable sympy expressions are affine",
    "fairprobe.core.query._parsed_expression": "parses an expression string",
    "fairprobe.core.response._shared": "response models keyed by the whole DAG structure and cardinalities "
                                       "(tuples); a model is only read by the compiler",
    "fairprobe.backends.highs._version": "the installed highspy's version",
    "fairprobe.backends.highs_lp._status_names": "highspy's status names",
    "fairprobe.backends.highs_lp._ok": "highspy's kOk constant",
    "fairprobe.backends.highs_lp._local": "idle HiGHS instances per thread; each run clears the model and "
                                          "resets every option first",
    "fairprobe.backends.gurobi._probe": "whether a Gurobi licence is present (the environment, not data)",
    "fairprobe.backends.base._FOUND_MODULES": "solver modules found installed (the environment, not data)",
    # the plugin registry is process-wide by design (pluggy); keyed by its registered plugins
    "fairprobe.core.registry.get_plugin_manager": "the process's plugin manager",
    "fairprobe.core.registry._REGISTRY_CACHE": "the classes each plugin manager's plugins register, keyed by "
                                               "the plugins: registering another is another key",
}

def engine_modules() -> list[types.ModuleType]:
    """Every module of fairprobe.core, fairprobe.backends and fairprobe.program."""
    out = []
    for name in ("fairprobe.core", "fairprobe.backends", "fairprobe.program"):
        package = importlib.import_module(name)
        out.append(package)
        out += [importlib.import_module(m.name) for m in pkgutil.walk_packages(package.__path__, name + ".")]
    return out


def mutable_globals(module: types.ModuleType) -> list[str]:
    """The module's globals that can keep state between calls: mutable containers, memoised functions
    (``functools.lru_cache``/``cache``) and objects with a ``clear`` method; dunders (``__all__``) aside."""
    found = []
    for name, value in vars(module).items():
        if name.startswith("__") or isinstance(value, (types.ModuleType, type, types.GenericAlias)):
            continue
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, functools.partial)):
            continue
        memo = callable(value) and hasattr(value, "cache_info")
        if memo and value.__module__ != module.__name__:
            continue  # (imported: reported where it is defined)
        if isinstance(value, MUTABLE) or memo or callable(getattr(value, "clear", None)):
            found.append(f"{module.__name__}.{name}")
    return found


def test_the_rule_catches_a_cache() -> None:
    module = types.ModuleType("fairprobe.core.example")
    exec("import functools, types, collections\n"
         "_seen = {}\nKNOWN = collections.OrderedDict()\nTABLE = types.MappingProxyType({'a': 1})\n"
         "NAMES = frozenset({'a'})\nORDER = ('a', 'b')\n"
         "class Kept:\n    def clear(self): pass\n_kept = Kept()\n"
         "@functools.lru_cache\ndef parse(text):\n    return text\n"
         "def plain(x):\n    return x\n", module.__dict__)
    assert sorted(mutable_globals(module)) == ["fairprobe.core.example.KNOWN", "fairprobe.core.example._kept",
                                               "fairprobe.core.example._seen", "fairprobe.core.example.parse"]


def test_no_module_level_mutable_cache_in_the_engine() -> None:
    found = {name for module in engine_modules() for name in mutable_globals(module)}
    assert sorted(found - set(ALLOWED)) == []

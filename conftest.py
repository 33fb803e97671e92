"""Doctests of modules that need an optional extra are skipped, with the reason, when it is not installed.

The package's own doctests run from ``src/fairprobe`` (``--doctest-modules``); a module whose
examples need an optional solver or tool (TreeFARMS for exact tree Rashomon sets, Streamlit for
the app) is collected everywhere but only run where that extra is installed.
"""

from __future__ import annotations

import importlib.util

import pytest

#: module path prefix -> (import name, the extra that installs it)
OPTIONAL = {
    "fairprobe.plugins.rashomon.tree_exact": ("treefarms", "trees"),
    "fairprobe.app": ("streamlit", "app"),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not isinstance(item, pytest.DoctestItem):
            continue
        for prefix, (package, extra) in OPTIONAL.items():
            if item.name.startswith(prefix) and importlib.util.find_spec(package) is None:
                item.add_marker(pytest.mark.skip(reason=f"needs {package}: pip install \"fairprobe[{extra}]\""))
                break


# Hypothesis budgets: the default run gives each generated-input test a small budget; the fuzz
# suite's long profile (python -m pytest -m fuzz --hypothesis-profile=long) runs thousands of cases.
# Tests with their own @settings(max_examples=...) keep it.
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # a bare install without the test extra: no generated-input tests to configure
    settings = None
if settings is not None:
    _QUIET_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large]
    settings.register_profile("default", max_examples=20, deadline=None, suppress_health_check=_QUIET_CHECKS)
    settings.register_profile("long", max_examples=500, deadline=None, suppress_health_check=_QUIET_CHECKS)
    settings.load_profile("default")

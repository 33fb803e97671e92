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

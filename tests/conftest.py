"""Shared fixtures: isolate tests from entry-point plugins installed on the machine."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_entrypoint_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD", "1")
    from fairprobe.core.registry import reset_plugin_manager

    reset_plugin_manager()
    yield
    reset_plugin_manager()

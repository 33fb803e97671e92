"""Shared fixtures: isolate tests from entry-point plugins installed on the machine; the demo, run once."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class DemoRun:
    """One ``fairprobe demo --out <folder>`` (the README's main job) and what it printed."""

    out: Path
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The full demo, run once per test session by whichever test needs it first (the README's quick
    start in ``tests/test_docs.py`` and the demo's own checks in ``tests/cli/test_main.py``)."""
    out = tmp_path_factory.mktemp("demo") / "fairprobe-report"
    env = dict(os.environ, MPLBACKEND="Agg", FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD="1")
    proc = subprocess.run([sys.executable, "-m", "fairprobe.cli", "demo", "--out", str(out)], capture_output=True,
                          text=True, timeout=1200, env=env)
    return DemoRun(out, proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(autouse=True)
def _no_entrypoint_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD", "1")
    from fairprobe.core.registry import reset_plugin_manager

    reset_plugin_manager()
    yield
    reset_plugin_manager()


@pytest.fixture
def one_worker_spy(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """``joblib.Parallel`` replaced by a spy that refuses a pool of more than one worker (a one-task run):
    the worker counts asked for, in order."""
    import joblib
    import sklearn.utils.parallel  # noqa: F401  (subclasses joblib.Parallel when imported: not the spy below)

    asked: list[int | None] = []
    real = joblib.Parallel

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, n_jobs: int | None = None, **kwargs: object) -> None:
            asked.append(n_jobs)
            if n_jobs is None or not 0 < n_jobs <= 1:  # one task: never start a pool of workers
                raise AssertionError(f"a pool of {n_jobs} workers for one task")
            super().__init__(*args, n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", Spy)
    return asked

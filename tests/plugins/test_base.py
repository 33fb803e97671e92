"""Every analysis (built-in and the example plugin) passes the analysis contract; the registry enforces it."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.registry import reset_plugin_manager
from fairprobe.plugins.base import Analysis, Example, Summary
from fairprobe.testing import check_analysis, fresh_plugin_manager

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = {"fairtree": "fairprobe.plugins.fairtree.hooks", "rashomon": "fairprobe.plugins.rashomon.hooks",
           "riskscore": "fairprobe.plugins.riskscore.hooks"}


def example_plugin_module():
    """The example plugin's module, loaded from its source (no installation needed)."""
    path = ROOT / "examples" / "plugin_example" / "src" / "fairprobe_example_plugin" / "plugin.py"
    spec = importlib.util.spec_from_file_location("fairprobe_example_plugin_source", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(fp.get_registry().analyses))
def test_builtin_analysis_passes_the_contract(name: str, tmp_path: Path) -> None:
    cls = fp.get_registry().analyses[name]
    out = check_analysis(cls, tmp_path)
    assert Path(out["report"]).read_text().count("<img") >= len(out["figures"])


def test_example_plugin_analysis_passes_the_contract(tmp_path: Path) -> None:
    module = example_plugin_module()
    out = check_analysis(module.BaseRateAudit, tmp_path)
    assert out["fitted"].results_.index.tolist() == ["a", "b"]
    pm = fresh_plugin_manager(module)
    assert fp.get_registry(pm).analyses["base_rates"] is module.BaseRateAudit


class _NoSummary:
    name = "no_summary"
    description = "forgets summary, to_frame and example"

    def __init__(self, *, alpha: float = 0.05) -> None:
        self.alpha = alpha

    def fit(self, data, **roles):
        return self


class _Positional(Analysis):
    name = "positional"
    description = "takes a positional parameter"

    def __init__(self, alpha: float = 0.05) -> None:
        self.alpha = alpha

    def fit(self, data, **roles):
        self.done_ = True
        return self

    def summary(self) -> Summary:
        return Summary("done")

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"x": [1]})

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        return Example(cls(), None)


def _plugin_with(cls: type):
    class Plugin:
        @fp.hookimpl
        def fairprobe_register_analyses(self):
            return [cls]

    return Plugin()


def test_registry_rejects_an_analysis_missing_methods_and_names_them() -> None:
    pm = fresh_plugin_manager(_plugin_with(_NoSummary))
    with pytest.raises(fp.PluginInterfaceError, match=r"_NoSummary.*does not implement get_params, set_params, "
                                                       r"check_is_fitted, summary, to_frame, figures, to_report, "
                                                       r"example.*subclass fairprobe\.plugins\.base\.Analysis"):
        fp.get_registry(pm)


def test_registry_rejects_positional_parameters() -> None:
    pm = fresh_plugin_manager(_plugin_with(_Positional))
    with pytest.raises(fp.PluginInterfaceError, match=r"keyword-only; make \['alpha'\] keyword-only"):
        fp.get_registry(pm)


def test_registry_rejects_a_bias_that_is_not_a_bias() -> None:
    class NotABias:
        name = "not_a_bias"

    class Plugin:
        @fp.hookimpl
        def fairprobe_register_biases(self):
            return [NotABias]

    with pytest.raises(fp.PluginInterfaceError, match=r"NotABias.*does not implement config"):
        fp.get_registry(fresh_plugin_manager(Plugin()))


def test_results_before_fit_raise_not_fitted() -> None:
    for cls in fp.get_registry().analyses.values():
        unfitted = cls.example().analysis
        with pytest.raises(fp.NotFittedError, match=r"not fitted yet; call .*\.fit\("):
            unfitted.summary()


@pytest.mark.parametrize("plugin", sorted(BUILTIN))
def test_blocking_an_analysis_plugin_removes_it_everywhere(plugin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.cli.demo import _analysis_steps

    module = BUILTIN[plugin]
    names_before = {name for name, cls in fp.get_registry().analyses.items() if cls.__module__.startswith(
        module.rsplit(".", 1)[0])}
    assert names_before
    monkeypatch.setenv("FAIRPROBE_BLOCK_PLUGINS", module)
    reset_plugin_manager()
    try:
        assert not names_before & set(fp.get_registry().analyses)
        assert not names_before & {step[0] for step in _analysis_steps()}  # the demo's steps
        assert not names_before & set(fp.list_plugins().name)
    finally:
        monkeypatch.delenv("FAIRPROBE_BLOCK_PLUGINS")
        reset_plugin_manager()
    env = {**os.environ, "FAIRPROBE_BLOCK_PLUGINS": module}
    out = subprocess.run([sys.executable, "-m", "fairprobe.cli", "plugins", "--kind", "analyses", "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert not names_before & {row["name"] for row in json.loads(out.stdout)}
    helped = subprocess.run([sys.executable, "-m", "fairprobe.cli", "--help"], capture_output=True, text=True,
                            env=env, timeout=120)
    commands = {"fairtree": "fairtree", "rashomon": "multiplicity", "riskscore": "riskscore"}
    assert f"  {commands[plugin]} " not in helped.stdout
    plain = subprocess.run([sys.executable, "-m", "fairprobe.cli", "--help"], capture_output=True, text=True,
                           timeout=120)
    assert f"  {commands[plugin]} " in plain.stdout

"""Every analysis (built-in and the example plugin) passes the analysis contract; the registry enforces it.

Also the contract's parts the suite checks beyond the interface (refits, untouched inputs, pickling,
keyword-only roles, nested parameters) on deliberately broken analyses, and the optional parts an
analysis declares (``availability()``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.registry import reset_plugin_manager
from fairprobe.exceptions import NotFittedError, PluginInterfaceError
from fairprobe.plugins.base import Analysis, Example, Summary
from fairprobe.testing import check_analysis, fresh_plugin_manager

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = {"fairtree": "fairprobe.plugins.fairtree.hooks", "rashomon": "fairprobe.plugins.rashomon.hooks",
           "riskscore": "fairprobe.plugins.riskscore.hooks"}


def example_plugin_module():
    """The example plugin's module, loaded from its source (no installation needed)."""
    name = "fairprobe_example_plugin_source"
    if name in sys.modules:
        return sys.modules[name]
    path = ROOT / "examples" / "plugin_example" / "src" / "fairprobe_example_plugin" / "plugin.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pickle finds its classes by module name (the contract pickles results)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(fp.get_registry().analyses))
def test_builtin_analysis_passes_the_contract(name: str, tmp_path: Path) -> None:
    cls = fp.get_registry().analyses[name]
    if not cls.availability():  # e.g. TreeRashomonSet without treefarms: a bare install skips it
        pytest.skip(f"{name} is unavailable here: {cls.availability_reason()}")
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
    with pytest.raises(PluginInterfaceError, match=r"_NoSummary.*does not implement get_params, set_params, "
                                                       r"check_is_fitted, summary, to_frame, figures, to_report, "
                                                       r"example.*subclass fairprobe\.plugins\.base\.Analysis"):
        fp.get_registry(pm)


def test_registry_rejects_positional_parameters() -> None:
    pm = fresh_plugin_manager(_plugin_with(_Positional))
    with pytest.raises(PluginInterfaceError, match=r"keyword-only; make \['alpha'\] keyword-only"):
        fp.get_registry(pm)


def test_registry_rejects_a_bias_that_is_not_a_bias() -> None:
    class NotABias:
        name = "not_a_bias"

    class Plugin:
        @fp.hookimpl
        def fairprobe_register_biases(self):
            return [NotABias]

    with pytest.raises(PluginInterfaceError, match=r"NotABias.*does not implement config"):
        fp.get_registry(fresh_plugin_manager(Plugin()))


def test_results_before_fit_raise_not_fitted() -> None:
    for cls in fp.get_registry().analyses.values():
        unfitted = cls.example().analysis
        with pytest.raises(NotFittedError, match=r"not fitted yet; call .*\.fit\("):
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


# -- what check_analysis checks beyond the interface: each broken analysis fails on its rule --------
class _Rates(Analysis):
    """A correct little analysis (the mean outcome per group); the broken ones below change one thing."""

    name = "rates_ok"
    description = "mean outcome per group"

    def __init__(self, *, digits: int = 3, random_state: int | None = 0) -> None:
        self.digits = digits
        self.random_state = random_state

    def fit(self, data, *, y_true, sensitive_features):
        self.rates_ = data.groupby(sensitive_features)[y_true].mean().round(self.digits)
        return self

    def summary(self) -> Summary:
        self.check_is_fitted()
        return Summary(f"{len(self.rates_)} groups", title="rates")

    def to_frame(self) -> pd.DataFrame:
        self.check_is_fitted()
        return self.rates_.to_frame("rate")

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        data = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "g": ["a", "a", "a", "b", "b", "b"]})
        return Example(cls(random_state=seed), data, {"y_true": "y", "sensitive_features": "g"})


class _ChangesItsInput(_Rates):
    name = "changes_input"

    def fit(self, data, *, y_true, sensitive_features):
        data[y_true] = data[y_true] * 1.0  # a silent dtype change of the caller's frame
        return super().fit(data, y_true=y_true, sensitive_features=sensitive_features)


class _Unseeded(_Rates):
    name = "unseeded"

    def fit(self, data, *, y_true, sensitive_features):
        super().fit(data, y_true=y_true, sensitive_features=sensitive_features)
        self.rates_ = self.rates_ + np.random.default_rng().normal(0, 1e-3, len(self.rates_))  # ignores random_state
        return self


class _Unpicklable(_Rates):
    name = "unpicklable"

    def fit(self, data, *, y_true, sensitive_features):
        self.scale_ = lambda v: v  # a lambda cannot be pickled
        return super().fit(data, y_true=y_true, sensitive_features=sensitive_features)


class _PositionalRoles(_Rates):
    name = "positional_roles"

    def fit(self, data, y_true, sensitive_features):  # roles by position: not the contract
        return super().fit(data, y_true=y_true, sensitive_features=sensitive_features)


class _ReplacesAParameter(_Rates):
    name = "replaces_parameter"

    def fit(self, data, *, y_true, sensitive_features):
        self.random_state = np.random.default_rng(self.random_state)  # a fitted value stored in the parameter
        return super().fit(data, y_true=y_true, sensitive_features=sensitive_features)


class _NeedsAMissingPackage(_Rates):
    name = "needs_missing"
    requires = ("fairprobe_no_such_package_xyz",)
    extra = "nothere"


def test_the_correct_little_analysis_passes() -> None:
    out = check_analysis(_Rates)
    assert out["fitted"].rates_.tolist() == [pytest.approx(0.667), pytest.approx(0.333)]


@pytest.mark.parametrize(("cls", "rule"), [
    (_ChangesItsInput, "must not modify the data it is given"),
    (_Unseeded, "same parameters .random_state. must give the same to_frame"),
    (_Unpicklable, "the fitted analysis must pickle"),
    (_PositionalRoles, r"fit's roles \['y_true', 'sensitive_features'\] must be keyword-only"),
    (_ReplacesAParameter, "fit must not replace parameter 'random_state'"),
    (_NeedsAMissingPackage, r'unavailable here .*pip install "fairprobe\[nothere\]"'),
])
def test_check_analysis_names_the_broken_rule(cls: type, rule: str) -> None:
    with pytest.raises(AssertionError, match=rule):
        check_analysis(cls)


def test_a_missing_optional_package_makes_the_analysis_unavailable_without_importing_it() -> None:
    state = _NeedsAMissingPackage.availability()
    assert not state and state.label == "not installed"
    assert _NeedsAMissingPackage.missing_requirements() == ["fairprobe_no_such_package_xyz"]
    assert _NeedsAMissingPackage.availability_reason() == (
        'not installed (needs fairprobe_no_such_package_xyz); install with: pip install "fairprobe[nothere]"')
    assert _Rates.availability() and _Rates.availability_reason() == "available" and _Rates.install_hint == ""
    assert "fairprobe_no_such_package_xyz" not in sys.modules


def test_tree_rashomon_declares_treefarms_and_its_extra() -> None:
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    assert TreeRashomonSet.requires == ("treefarms",)
    assert TreeRashomonSet.install_hint == 'pip install "fairprobe[trees]"'
    assert bool(TreeRashomonSet.availability()) == (importlib.util.find_spec("treefarms") is not None)
    # every other built-in needs only fairprobe's own dependencies
    others = {name for name, cls in fp.get_registry().analyses.items() if cls.requires}
    assert others == {"tree_rashomon"}


def test_list_plugins_reports_an_unavailable_analysis_with_its_extra() -> None:
    pm = fresh_plugin_manager(_plugin_with(_NeedsAMissingPackage))
    table = fp.list_plugins(pm).set_index("name")
    row = table.loc["needs_missing"]
    assert row.kind == "analyses" and not row.available
    assert 'pip install "fairprobe[nothere]"' in row.status
    assert table.loc["fairtree", "available"] and table.loc["fairtree", "status"] == "available"
    trees = table.loc["tree_rashomon"]
    assert bool(trees.available) == bool(importlib.util.find_spec("treefarms")), trees.status


def test_every_builtin_fit_takes_the_data_then_keyword_roles() -> None:
    import inspect

    for name, cls in fp.get_registry().analyses.items():
        params = list(inspect.signature(cls.fit).parameters.values())[1:]
        assert params[0].name == "data", name
        assert all(p.kind is p.KEYWORD_ONLY for p in params[1:]), (name, [p.name for p in params])

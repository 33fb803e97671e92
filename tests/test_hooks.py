"""Every hook in ``fairprobe.hookspecs`` is documented and has a ``test_hook_<name>`` test."""

from __future__ import annotations

import inspect
import re
import sys
import types
from pathlib import Path

import click
import pytest

import fairprobe
from fairprobe import hookimpl, hookspecs
from fairprobe.backends.base import Availability, Backend, Capabilities, SolveResult, Termination
from fairprobe.core.registry import get_plugin_manager, get_registry
from fairprobe.exceptions import DuplicatePluginError
from fairprobe.program.model import PolynomialProgram
from fairprobe.testing import fresh_plugin_manager

HOOKS = sorted(n for n, f in vars(hookspecs).items() if n.startswith("fairprobe_") and callable(f))


def test_every_hook_has_a_test_and_a_documented_signature() -> None:
    tests_text = "\n".join(p.read_text() for p in Path(__file__).parent.rglob("test_*.py"))
    assert len(HOOKS) == 6
    for name in HOOKS:
        short = name.removeprefix("fairprobe_")
        assert re.search(rf"def test_hook_{short}\b", tests_text), f"hook {name} has no test_hook_{short}"
        func = getattr(hookspecs, name)
        doc = inspect.getdoc(func) or ""
        assert "Returns" in doc, f"hook {name}: docstring lacks a Returns section"
        params = [p for p in inspect.signature(func).parameters]
        if params:
            assert "Parameters" in doc, f"hook {name}: docstring lacks a Parameters section"
            for p in params:
                assert p in doc, f"hook {name}: parameter {p!r} is undocumented"
        assert inspect.signature(func).return_annotation is not inspect.Signature.empty


def _toys(kind: str) -> tuple[type, type]:
    """Two minimal classes named "toy" that implement the interface of ``kind`` (the registry checks it)."""
    from fairprobe.biases.base import Bias
    from fairprobe.metrics.base import Metric
    from fairprobe.plugins.base import Analysis, Example, Summary

    class _AnalysisToy(Analysis):
        def fit(self, data, **roles):
            self.done_ = True
            return self

        def summary(self) -> Summary:
            return Summary("toy")

        def to_frame(self):
            import pandas as pd

            return pd.DataFrame({"x": [1]})

        @classmethod
        def example(cls, *, seed: int = 0) -> Example:
            return Example(cls(), None)

    class _BiasToy(Bias):
        def config(self):
            raise NotImplementedError

    base = {"biases": _BiasToy, "metrics": Metric, "analyses": _AnalysisToy}[kind]
    return (type("_Toy", (base,), {"name": "toy", "description": "toy"}),
            type("_OtherToy", (base,), {"name": "toy", "description": "toy"}))


def _plugin(hook: str, classes: list[type]) -> types.SimpleNamespace:
    def impl() -> list[type]:
        return classes

    impl.__name__ = hook
    return types.SimpleNamespace(**{hook: hookimpl(impl)})




def _check_registration(kind: str, hook: str) -> None:
    toy, other_toy = _toys(kind)
    pm = fresh_plugin_manager(_plugin(hook, [toy]))
    assert get_registry(pm).kind(kind) == {"toy": toy} | (
        get_registry(fresh_plugin_manager()).kind(kind)
    )
    pm = fresh_plugin_manager(_plugin(hook, [toy]), _plugin(hook, [other_toy]))
    with pytest.raises(DuplicatePluginError, match=r"_Toy and .*_OtherToy|_OtherToy and .*_Toy"):
        get_registry(pm)


def test_hook_register_biases() -> None:
    _check_registration("biases", "fairprobe_register_biases")


def test_hook_register_metrics() -> None:
    _check_registration("metrics", "fairprobe_register_metrics")


def test_hook_register_analyses() -> None:
    _check_registration("analyses", "fairprobe_register_analyses")


class _EchoBackend(Backend):
    """Returns the objective's constant term: enough to prove the plugin path works."""

    name = "echo"
    capabilities = Capabilities(max_degree=0)
    install_hint = "nothing to install"

    @classmethod
    def availability(cls) -> Availability:
        return Availability.AVAILABLE

    def _solve(self, program, options):
        value = program.objective.get((), 0.0)
        return SolveResult(Termination.OPTIMAL, value, value, {}, sense=program.sense)


def test_hook_register_backends() -> None:
    pm = fresh_plugin_manager(_plugin("fairprobe_register_backends", [_EchoBackend]))
    assert set(get_registry(pm).backends) == {"scip", "highs", "gurobi", "ortools", "cvxpy", "echo"}
    backend = fairprobe.get_backend("echo", pm=pm)
    prog = PolynomialProgram.from_text("minimize\n  4.5\n")
    assert backend.solve(prog).objective_bound == 4.5
    # a backend with the name of a built-in is rejected, naming both classes
    clash = type("ScipClash", (_EchoBackend,), {"name": "scip"})
    pm = fresh_plugin_manager(_plugin("fairprobe_register_backends", [clash]))
    with pytest.raises(DuplicatePluginError, match=r"ScipClash and .*ScipBackend|ScipBackend and .*ScipClash"):
        get_registry(pm)


def test_hook_select_backend() -> None:
    pm = fresh_plugin_manager()
    assert pm.hook.fairprobe_select_backend(program=None, available=["cvxpy", "scip"]) == "scip"
    assert pm.hook.fairprobe_select_backend(program=None, available=["ortools"]) == "ortools"

    class Prefer:
        @hookimpl
        def fairprobe_select_backend(self, program, available):
            return "ortools" if "ortools" in available else None

    pm = fresh_plugin_manager(Prefer())
    assert pm.hook.fairprobe_select_backend(program=None, available=["ortools", "scip"]) == "ortools"
    # get_backend asks the plugin with the backends usable here: it fixes OR-Tools only where OR-Tools is
    # installed; on a bare install it declines and "auto" chooses program by program
    chosen = fairprobe.get_backend("auto", pm=pm)
    if get_registry(pm).backends["ortools"].availability():
        assert chosen.name == "ortools"
    else:
        assert chosen.name == "auto" and chosen.choices == {}  # an AutoBackend that has solved nothing yet


def test_hook_add_cli_commands() -> None:
    @click.command("hello")
    def hello() -> None:
        click.echo("hello from a plugin")

    class AddsCommand:
        @hookimpl
        def fairprobe_add_cli_commands(self, cli):
            cli.add_command(hello)

    group = click.Group("fairprobe")
    fresh_plugin_manager(AddsCommand()).hook.fairprobe_add_cli_commands(cli=group)
    from click.testing import CliRunner

    result = CliRunner().invoke(group, ["hello"])
    assert result.exit_code == 0 and result.output == "hello from a plugin\n"


def test_entry_point_autoload_can_be_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    import pluggy

    monkeypatch.setattr(pluggy.PluginManager, "load_setuptools_entrypoints",
                        lambda self, group, name=None: calls.append(group) or 0)
    from fairprobe.core.registry import create_plugin_manager

    monkeypatch.setenv("FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD", "1")
    create_plugin_manager()
    assert calls == []
    monkeypatch.delenv("FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD")
    create_plugin_manager()
    assert calls == ["fairprobe"]


def test_blocked_builtin_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.core.registry import create_plugin_manager

    monkeypatch.setenv("FAIRPROBE_BLOCK_PLUGINS", "fairprobe.backends.hooks")
    assert get_registry(create_plugin_manager()).backends == {}


def test_plugin_manager_is_cached_and_not_built_at_import() -> None:
    import subprocess

    code = ("import fairprobe, sys; from fairprobe.core import registry; "
            "print(registry.get_plugin_manager.cache_info().currsize, 'pyscipopt' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
    assert get_plugin_manager() is get_plugin_manager()

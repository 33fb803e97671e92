"""The layers of DESIGN.md hold: no wrong-way import, no import cycle (inside functions included), no
private name borrowed from another module. The checker itself is tested on a fake package."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.import_graph import (
    LEGACY_PROGRAM_LAYER,
    RULES,
    cycle_edges,
    cycles,
    private_imports,
    program_layer,
    read_graph,
    violations,
)

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def graph():
    return read_graph(SRC)


def test_the_whole_package_is_read(graph) -> None:
    assert set(graph.modules.values()) == set((SRC / "fairprobe").rglob("*.py"))  # every file parsed by ast
    assert len(graph.modules) > 100 and "fairprobe.core.bound" in graph.modules and "fairprobe.program" in graph.modules
    assert program_layer(graph) == ("fairprobe.program",)
    assert any(e.in_function for e in graph.edges) and any(e.type_checking for e in graph.edges)


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_dependency_rule(graph, rule) -> None:
    broken = [str(e) for r, e in violations(graph, [rule])]
    assert not broken, f"{rule.reason}:\n  " + "\n  ".join(broken)


def test_no_import_cycles(graph) -> None:
    found = cycles(graph)
    shown = "\n".join(f"{c}:\n    " + "\n    ".join(map(str, cycle_edges(graph, c))) for c in found)
    assert not found, f"import cycles (function-level imports included):\n{shown}"


def test_no_import_cycles_with_type_only_imports(graph) -> None:
    """An ``if TYPE_CHECKING:`` import never runs, but a cycle through one still ties two layers together."""
    found = cycles(graph, include_type_checking=True)
    shown = "\n".join(f"{c}:\n    " + "\n    ".join(map(str, cycle_edges(graph, c, include_type_checking=True)))
                      for c in found)
    assert not found, f"import cycles with the type-only imports:\n{shown}"


def test_no_private_names_from_other_modules(graph) -> None:
    found = [f"{e} takes {', '.join(e.names)}" for e in private_imports(graph)]
    assert not found, "make the name public in its owner, or use the public API:\n  " + "\n  ".join(found)


def _fake_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "fairprobe" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for folder in {p.parent for p in (root / "fairprobe").rglob("*.py")} | {root / "fairprobe"}:
        (folder / "__init__.py").touch()
    return root


def test_the_checker_flags_a_wrong_way_import_a_cycle_and_a_private_name(tmp_path: Path) -> None:
    src = _fake_package(tmp_path, {
        "core/bound.py": "from fairprobe.cli import main\nfrom fairprobe.core.a import _helper\n",
        "core/a.py": "def f():\n    from fairprobe.core import b\n",
        "core/b.py": "from . import a\n",
        "backends/scip.py": "import sympy\n\ndef solve():\n    import pyscipopt\n",
        "program/model.py": "from fairprobe.core import bound\n",
        "app/pages.py": "import fairprobe\nfrom fairprobe.core.table import ObservedTable\n",
        "cli/main.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fairprobe.core import bound\n",
        "plugins/x.py": "import gurobipy\n",
        "core/table.py": "class ObservedTable:\n    pass\n",
        "core/sensitivity.py": "from fairprobe.biases.base import Bias\n\n"
                               "def f():\n    from fairprobe.metrics import rates\n",
        "core/registry.py": "import importlib\n\ndef load():\n    importlib.import_module('fairprobe.backends.scip')\n",
        "core/budget.py": "import importlib\nimportlib.import_module('highspy')\n",
        "biases/base.py": "class Bias:\n    pass\n",
        "metrics/rates.py": "",
    })
    graph = read_graph(src)
    broken = {(rule.name, e.importer, e.imported) for rule, e in violations(graph)}
    assert ("core-front-ends", "fairprobe.core.bound", "fairprobe.cli.main") in broken
    assert ("backends", "fairprobe.backends.scip", "sympy") in broken
    assert ("program", "fairprobe.program.model", "fairprobe.core.bound") in broken
    assert ("app", "fairprobe.app.pages", "fairprobe.core.table") in broken
    assert ("solver-imports", "fairprobe.plugins.x", "gurobipy") in broken
    assert ("solver-imports", "fairprobe.core.budget", "highspy") in broken  # importlib literal at import time
    assert ("core-concrete", "fairprobe.core.sensitivity", "fairprobe.metrics.rates") in broken  # inside a function
    assert not any(imported == "fairprobe.biases.base" for _, _, imported in broken)  # an interface: allowed
    assert not any(importer == "fairprobe.core.registry" for _, importer, _ in broken)  # the registry loads concretes
    assert not any(imported == "pyscipopt" for _, _, imported in broken)  # inside solve(): allowed
    assert not any(importer == "fairprobe.app.pages" and imported == "fairprobe" for _, importer, imported in broken)
    assert cycles(graph) == [["fairprobe.core.a", "fairprobe.core.b"]]  # a -> b inside a function, b -> a
    assert [(e.importer, e.names) for e in private_imports(graph)] == [("fairprobe.core.bound", ("_helper",))]
    tc = [e for e in graph.edges if e.importer == "fairprobe.cli.main" and e.imported == "fairprobe.core.bound"]
    assert tc and tc[0].type_checking and not cycles(graph)[0].count("fairprobe.cli.main")
    # counted, the type-only import closes a cycle: core.bound imports cli.main, which imports it back to type it
    assert ["fairprobe.cli.main", "fairprobe.core.bound"] in cycles(graph, include_type_checking=True)


def test_the_layers_inside_core_and_of_the_other_packages(tmp_path: Path) -> None:
    """A driver below the engine, an engine below the results, a report importing the CLI: each rule flags its own."""
    src = _fake_package(tmp_path, {
        "core/compiler.py": "from fairprobe.core.results import BoundResult\n",
        "core/results/__init__.py": "def f():\n    from fairprobe.core import engine\n",
        "core/results/wording.py": "from fairprobe.core.results.bound_result import BoundResult\n",
        "core/results/bound_result.py": "from fairprobe.core.interpret import threshold_test\n",
        "core/interpret.py": "from fairprobe.core.results.wording import Conclusion\n",
        "core/engine.py": "from fairprobe.core.bound import bound\n",
        "core/bound.py": "from fairprobe.core.engine import BoundProblem\n",
        "reporting/report.py": "from fairprobe.studies import runner\n",
        "plugins/x/cli.py": "from fairprobe.cli.options import common\nfrom fairprobe.cli import main\n",
        "testing/kit.py": "from fairprobe.app import logic\n",
        "studies/runner.py": "from fairprobe.cli import main\nfrom fairprobe.reporting import report\n",
        "cli/options.py": "", "cli/main.py": "", "app/logic.py": "",
    })
    broken = {(rule.name, e.importer, e.imported) for rule, e in violations(read_graph(src))}
    assert broken == {
        ("core-model", "fairprobe.core.compiler", "fairprobe.core.results"),
        ("core-results", "fairprobe.core.results", "fairprobe.core.engine"),
        ("core-results-base", "fairprobe.core.results.wording", "fairprobe.core.results.bound_result"),
        ("core-results-interpret", "fairprobe.core.results.bound_result", "fairprobe.core.interpret"),
        ("core-engine", "fairprobe.core.engine", "fairprobe.core.bound"),
        ("reporting", "fairprobe.reporting.report", "fairprobe.studies.runner"),
        ("plugins", "fairprobe.plugins.x.cli", "fairprobe.cli.main"),  # its options module is the plugin kit
        ("testing", "fairprobe.testing.kit", "fairprobe.app.logic"),
        ("studies", "fairprobe.studies.runner", "fairprobe.cli.main"),
    }


def test_the_program_layer_of_a_checkout_without_its_package(tmp_path: Path) -> None:
    """Before ``fairprobe.program`` existed the layer was core's polynomial, program and transforms modules."""
    src = _fake_package(tmp_path, {
        "core/polynomial.py": "",
        "core/program.py": "from fairprobe.core.polynomial import Poly\nfrom fairprobe.exceptions import Error\n",
        "core/transforms.py": "from fairprobe.core import dag\n",
        "core/dag.py": "",
        "exceptions.py": "",
        "backends/scip.py": "from fairprobe.core.program import PolynomialProgram\nfrom fairprobe.core import dag\n",
    })
    graph = read_graph(src)
    assert program_layer(graph) == LEGACY_PROGRAM_LAYER
    broken = {(rule.name, e.importer, e.imported) for rule, e in violations(graph)}
    assert broken == {("program", "fairprobe.core.transforms", "fairprobe.core.dag"),
                      ("backends", "fairprobe.backends.scip", "fairprobe.core.dag")}

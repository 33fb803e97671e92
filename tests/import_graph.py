"""The import graph of the package, read with ``ast`` (nothing is imported), and the layer rules.

Every ``import`` of a fairprobe module is an edge: at module level and inside functions (an import
in a function still ties the two modules together, it only runs later), relative imports resolved,
``from package import module`` resolved to the module, ``importlib.import_module("...")`` string
literals included (fairprobe modules and libraries alike). Imports under ``if TYPE_CHECKING:`` are
recorded but never run, so they do not count for cycles or rules.

:data:`RULES` are the dependency rules of DESIGN.md as data: who may not import what, and why. The
program layer is the package ``fairprobe.program``, or, in a checkout that predates it, the core
modules it was made of (:func:`program_layer`).
``tests/test_layers.py`` asserts there are no violations, cycles or private cross-module imports;
``benchmarks/code_health.py`` prints the same figures for any checkout (``--src``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

__all__ = ["CORE_DRIVERS", "CORE_ENGINE", "CORE_MODEL", "CORE_RESULTS", "LEGACY_PROGRAM_LAYER", "PROGRAM",
           "PROGRAM_PACKAGE", "RESULTS_BASE", "RULES", "Edge", "Graph", "Rule", "cycle_edges",
           "cycles", "private_imports", "program_layer", "read_graph", "violations"]

SOLVER_LIBRARIES = ("pyscipopt", "gurobipy", "ortools", "cvxpy", "highspy", "treefarms")


@dataclass(frozen=True)
class Edge:
    """One import statement: ``importer`` imports ``imported`` (a module, or a third-party top name)."""

    importer: str
    imported: str
    line: int
    names: tuple[str, ...]  # names taken with ``from ... import``
    in_function: bool
    type_checking: bool

    def __str__(self) -> str:
        where = "in a function" if self.in_function else "at module level"
        return f"{self.importer}:{self.line} imports {self.imported} ({where})"


#: Stands, in :data:`RULES`, for the modules of the solver-neutral program layer (see :func:`program_layer`).
PROGRAM = "<program>"
#: The program layer's package, and where the layer lived before it had one (polynomials, ``PolynomialProgram``
#: with its text form and parser, solver-neutral rewrites), used when the package is absent (older checkouts).
PROGRAM_PACKAGE = "fairprobe.program"
LEGACY_PROGRAM_LAYER = ("fairprobe.core.polynomial", "fairprobe.core.program", "fairprobe.core.transforms")


@dataclass(frozen=True)
class Rule:
    """Modules under ``importer`` (but not under ``exempt``) may not import modules under ``forbidden``,
    except those under ``allowed`` ("x=" in ``allowed`` allows exactly the module x, not its children).
    :data:`PROGRAM` in any field stands for the modules of the program layer."""

    name: str
    importer: tuple[str, ...]
    forbidden: tuple[str, ...]
    allowed: tuple[str, ...]
    reason: str
    module_level_only: bool = False  # e.g. solver libraries may be imported inside ``solve``
    exempt: tuple[str, ...] = ()  # importers the rule does not bind (e.g. the registry, which loads concretes)

    def expanded(self, program: tuple[str, ...]) -> Rule:
        """The rule with :data:`PROGRAM` replaced by the modules of the program layer."""

        def expand(prefixes: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(q for p in prefixes for q in (program if p == PROGRAM else (p,)))

        return replace(self, importer=expand(self.importer), forbidden=expand(self.forbidden),
                       allowed=expand(self.allowed), exempt=expand(self.exempt))

    def breaks(self, edge: Edge) -> bool:
        """Whether ``edge`` breaks the rule (call it on an :meth:`expanded` rule)."""
        if edge.type_checking or not any(_under(edge.importer, p) for p in self.importer):
            return False
        if any(_under(edge.importer, p) for p in self.exempt):
            return False
        if self.module_level_only and edge.in_function:
            return False
        if any(_under(edge.imported, a) if not a.endswith("=") else edge.imported == a[:-1] for a in self.allowed):
            return False
        return any(_under(edge.imported, f) for f in self.forbidden)


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


_CORE = "fairprobe.core."
#: The layers inside core, bottom to top (after the program layer and the backends): the causal model, the
#: results with their interpretation, the engine, the drivers. Each imports only those below (core's
#: utilities, the registry, options and progress, are under all of them).
CORE_MODEL = tuple(_CORE + m for m in (
    "dag", "query", "templates", "response", "config", "identify", "compiler", "compiled", "presolve", "data_rows",
    "reparametrise", "decompose", "repair", "combine", "parametric", "table", "table_fit", "coding", "validate",
    "reading", "small_groups", "inputs"))
CORE_RESULTS = (_CORE + "interpret", _CORE + "results")
#: The bottom of the results layer: the shared wording (``Conclusion``, ``ObservedValue``, the sign rules), the
#: sampling interval and the result interface (``Explained``, ``Summary``); every result class stands on them.
RESULTS_BASE = tuple(_CORE + "results." + m for m in ("wording", "interval", "explained"))
CORE_ENGINE = tuple(_CORE + m for m in ("engine", "solving", "families", "metric_range", "routing", "rebind"))
CORE_DRIVERS = tuple(_CORE + m for m in ("bound", "sensitivity", "breakdown", "uncertainty", "group_rates"))


#: The dependency rules of DESIGN.md: (name, importers, forbidden, allowed, reason[, options]).
RULES: tuple[Rule, ...] = (
    Rule("program", (PROGRAM,), ("fairprobe",), (PROGRAM, "fairprobe.exceptions"),
         "the solver-neutral program layer imports nothing of fairprobe but exceptions"),
    Rule("core-front-ends", ("fairprobe.core",), ("fairprobe.cli", "fairprobe.app", "fairprobe.reporting"), (),
         "core never imports the front ends or the report layer (they render core's results)"),
    Rule("core-concrete", ("fairprobe.core",),
         ("fairprobe.biases", "fairprobe.metrics", "fairprobe.backends", "fairprobe.plugins"),
         ("fairprobe.biases.base", "fairprobe.metrics.base", "fairprobe.backends.base", "fairprobe.plugins.base"),
         "core reaches concrete biases, metrics, backends and analyses only through the registry "
         "(the interfaces, the ``base`` modules, it may import)", exempt=("fairprobe.core.registry",)),
    Rule("backends", ("fairprobe.backends",), ("fairprobe", "sympy"),
         ("fairprobe.backends", PROGRAM, "fairprobe.exceptions", "fairprobe.hookspecs"),
         "backends see only the program layer, exceptions and the hook markers (never DAGs, queries, the "
         "registry or sympy)"),
    Rule("app", ("fairprobe.app",), ("fairprobe",),
         ("fairprobe=", "fairprobe.app", "fairprobe.core.registry", "fairprobe.plugins.base", "fairprobe.reporting",
          "fairprobe.exceptions", "fairprobe.hookspecs", "fairprobe.datasets=", "fairprobe.core.bound",
          "fairprobe.core.query", "fairprobe.core.templates", "fairprobe.core.uncertainty", "fairprobe.core.inputs",
          "fairprobe.core.reading"),
         "the app uses the public API (``import fairprobe``), the registry, the report layer and the few engine "
         "entry points a front end needs (the problem object, the constraint parser, the table reader)"),
    Rule("core-model", CORE_MODEL, CORE_RESULTS + CORE_ENGINE + CORE_DRIVERS, (),
         "the causal model (DAGs, configs, queries, tables, the compiler) knows nothing of results, the engine or "
         "the drivers"),
    Rule("core-results", CORE_RESULTS, CORE_ENGINE + CORE_DRIVERS, (),
         "the results and their interpretation never import the engine or the drivers that make them"),
    Rule("core-results-interpret", (_CORE + "results",), (_CORE + "interpret",), (),
         "the result modules import the shared wording (core.results.wording), never core.interpret, which "
         "re-exports their conclusion functions"),
    Rule("core-results-base", RESULTS_BASE, (_CORE + "results",), (_CORE + "results.wording=",),
         "the shared wording, the sampling interval and the result interface import no result class (each result "
         "module imports them, so a result class below them would close a cycle)"),
    Rule("core-engine", CORE_ENGINE, CORE_DRIVERS, (),
         "the engine (BoundProblem and its solving steps) never imports a driver (bound, sweeps, breakdown, "
         "intervals)"),
    Rule("reporting", ("fairprobe.reporting",), ("fairprobe.cli", "fairprobe.app", "fairprobe.studies",
                                                 "fairprobe.plugins"), (),
         "the report layer renders core's results; the front ends, studies and analyses use it, not the other way"),
    Rule("plugins", ("fairprobe.plugins",), ("fairprobe.cli", "fairprobe.app", "fairprobe.studies"),
         ("fairprobe.cli.options", "fairprobe.cli.hooks"),
         "analyses use core's public drivers and the command line's plugin kit (its options and hooks), never the "
         "front ends or the studies"),
    Rule("testing", ("fairprobe.testing",), ("fairprobe.cli", "fairprobe.app"), (),
         "the test kits check plugins against core, below the front ends"),
    Rule("studies", ("fairprobe.studies",), ("fairprobe.cli", "fairprobe.app"), (),
         "studies run on core and the report layer; the command line runs studies, not the other way"),
    Rule("solver-imports", ("fairprobe",), SOLVER_LIBRARIES, (),
         "no module imports a solver library at import time (availability is checked with find_spec)",
         module_level_only=True),
)


@dataclass
class Graph:
    """Modules found (name -> path) and every import edge."""

    modules: dict[str, Path]
    edges: list[Edge]

    def fairprobe_edges(self, *, include_type_checking: bool = False) -> list[Edge]:
        return [e for e in self.edges if e.imported in self.modules and e.imported != e.importer
                and (include_type_checking or not e.type_checking)]


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, modules: dict[str, Path]) -> None:
        self.module, self.is_package, self.modules = module, is_package, modules
        self.function_depth = 0
        self.type_checking = 0
        self.edges: list[Edge] = []

    def _add(self, imported: str, line: int, names: tuple[str, ...] = ()) -> None:
        self.edges.append(Edge(self.module, imported, line, names, self.function_depth > 0, self.type_checking > 0))

    def _function(self, node: ast.AST) -> None:
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self.type_checking += 1
            for child in node.body:
                self.visit(child)
            self.type_checking -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(self._known(alias.name), node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = self._resolve(node.module or "", node.level)
        names = tuple(a.name for a in node.names)
        submodules = [f"{base}.{n}" for n in names if f"{base}.{n}" in self.modules]
        for sub in submodules:
            self._add(sub, node.lineno, (sub.rsplit(".", 1)[1],))
        rest = tuple(n for n in names if f"{base}.{n}" not in self.modules)
        if rest or not submodules:
            self._add(self._known(base), node.lineno, rest)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "import_module" and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and not node.args[0].value.startswith("."):
            self._add(self._known(node.args[0].value), node.lineno)
        self.generic_visit(node)

    def _resolve(self, module: str, level: int) -> str:
        if level == 0:
            return module
        package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
        package = package[:len(package) - (level - 1)]
        return ".".join([*package, module] if module else package)

    def _known(self, name: str) -> str:
        """The longest prefix of ``name`` that is a fairprobe module, or the top name of a library."""
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in self.modules:
                return ".".join(parts[:k])
        return name if name.startswith("fairprobe") else parts[0]


def read_graph(src: Path) -> Graph:
    """Parse every module under ``src/fairprobe`` (``src`` is the folder holding the package).

    Parameters
    ----------
    src : Path
        The ``src`` folder of a checkout.

    Returns
    -------
    Graph
    """
    src = Path(src)
    paths = sorted((src / "fairprobe").rglob("*.py"))
    modules = {_module_name(p, src): p for p in paths}
    edges: list[Edge] = []
    for name, path in modules.items():
        visitor = _Visitor(name, path.name == "__init__.py", modules)
        visitor.visit(ast.parse(path.read_text(), filename=str(path)))
        edges.extend(visitor.edges)
    return Graph(modules, edges)


def cycles(graph: Graph, *, include_type_checking: bool = False) -> list[list[str]]:
    """Strongly connected components with more than one module (function-level imports included).

    Parameters
    ----------
    graph : Graph
    include_type_checking : bool
        Count the imports under ``if TYPE_CHECKING:`` too (they never run, but a type-only cycle still
        ties the modules' meanings together).

    Returns
    -------
    list of list of str
        Each cycle's modules, sorted; the list sorted too.
    """
    adjacency: dict[str, set[str]] = {m: set() for m in graph.modules}
    for e in graph.fairprobe_edges(include_type_checking=include_type_checking):
        adjacency[e.importer].add(e.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(adjacency):  # iterative Tarjan (deep graphs would exceed the recursion limit)
        if root in index:
            continue
        work = [(root, iter(sorted(adjacency[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adjacency[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def cycle_edges(graph: Graph, component: Iterable[str], *, include_type_checking: bool = False) -> list[Edge]:
    """The import statements inside one cycle (what to cut)."""
    members = set(component)
    return [e for e in graph.fairprobe_edges(include_type_checking=include_type_checking)
            if e.importer in members and e.imported in members]


def private_imports(graph: Graph) -> list[Edge]:
    """``from fairprobe.x import _name`` in another module: any underscore name but a dunder (``__all__``).

    Parameters
    ----------
    graph : Graph

    Returns
    -------
    list of Edge
    """
    out = []
    for e in graph.edges:
        if not e.imported.startswith("fairprobe") or e.imported == e.importer:
            continue
        private = [n for n in e.names if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))]
        if private:
            out.append(Edge(e.importer, e.imported, e.line, tuple(private), e.in_function, e.type_checking))
    return out


def program_layer(graph: Graph) -> tuple[str, ...]:
    """The modules of the solver-neutral program layer: the package ``fairprobe.program`` when the checkout has it,
    else the modules it was made of (:data:`LEGACY_PROGRAM_LAYER`).

    Parameters
    ----------
    graph : Graph

    Returns
    -------
    tuple of str
        Module names (prefixes: a package stands for its modules).
    """
    if PROGRAM_PACKAGE in graph.modules:
        return (PROGRAM_PACKAGE,)
    return tuple(m for m in LEGACY_PROGRAM_LAYER if m in graph.modules)


def violations(graph: Graph, rules: Iterable[Rule] = RULES,
               program: tuple[str, ...] | None = None) -> list[tuple[Rule, Edge]]:
    """Every import that breaks a rule.

    Parameters
    ----------
    graph : Graph
    rules : iterable of Rule
    program : tuple of str, optional
        The modules of the program layer; by default :func:`program_layer` of the graph.

    Returns
    -------
    list of (Rule, Edge)
        The rule as given (not expanded) and the offending import.
    """
    layer = program_layer(graph) if program is None else tuple(program)
    out = []
    for rule in rules:
        concrete = rule.expanded(layer)
        out.extend((rule, e) for e in graph.edges if concrete.breaks(e))
    return out

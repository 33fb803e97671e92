"""The import graph of the package, read with ``ast`` (nothing is imported), and the layer rules.

Every ``import`` of a fairprobe module is an edge: at module level and inside functions (an import
in a function still ties the two modules together, it only runs later), relative imports resolved,
``from package import module`` resolved to the module, ``importlib.import_module("fairprobe....")``
literals included. Imports under ``if TYPE_CHECKING:`` are recorded but never run, so they do not
count for cycles or rules.

:data:`RULES` are the dependency rules of DESIGN.md as data: who may not import what, and why.
``tests/test_layers.py`` asserts there are no violations, cycles or private cross-module imports;
``benchmarks/code_health.py`` prints the same figures for any checkout (``--src``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RULES", "Edge", "Graph", "Rule", "cycle_edges", "cycles", "private_imports", "read_graph", "violations"]

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


@dataclass(frozen=True)
class Rule:
    """Modules under ``importer`` may not import modules under any of ``forbidden``, except ``allowed``."""

    name: str
    importer: str
    forbidden: tuple[str, ...]
    allowed: tuple[str, ...]
    reason: str
    module_level_only: bool = False  # e.g. solver libraries may be imported inside ``solve``

    def breaks(self, edge: Edge) -> bool:
        if edge.type_checking or not _under(edge.importer, self.importer):
            return False
        if self.module_level_only and edge.in_function:
            return False
        if any(_under(edge.imported, a) if not a.endswith("=") else edge.imported == a[:-1] for a in self.allowed):
            return False
        return any(_under(edge.imported, f) for f in self.forbidden)


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


#: The dependency rules of DESIGN.md ("x=" in ``allowed`` allows exactly the module x, not its children).
RULES: tuple[Rule, ...] = (
    Rule("program", "fairprobe.program", ("fairprobe",), ("fairprobe.program", "fairprobe.exceptions"),
         "the solver-neutral program layer imports nothing of fairprobe but exceptions"),
    Rule("core-front-ends", "fairprobe.core", ("fairprobe.cli", "fairprobe.app", "fairprobe.reporting"), (),
         "core never imports the front ends or the report layer (they render core's results)"),
    Rule("core-concrete", "fairprobe.core",
         ("fairprobe.biases.builtin", "fairprobe.biases.hooks", "fairprobe.metrics.rates", "fairprobe.metrics.causal",
          "fairprobe.metrics.hooks", "fairprobe.backends.scip", "fairprobe.backends.gurobi",
          "fairprobe.backends.ortools", "fairprobe.backends.cvxpy", "fairprobe.backends.highs",
          "fairprobe.backends.hooks", "fairprobe.plugins.fairtree", "fairprobe.plugins.rashomon",
          "fairprobe.plugins.riskscore"), (),
         "core reaches concrete biases, metrics, backends and analyses only through the registry"),
    Rule("backends", "fairprobe.backends", ("fairprobe", "sympy"),
         ("fairprobe.backends", "fairprobe.program", "fairprobe.exceptions", "fairprobe.hookspecs"),
         "backends see only the program layer (never DAGs, queries, the registry or sympy)"),
    Rule("app", "fairprobe.app", ("fairprobe",),
         ("fairprobe=", "fairprobe.app", "fairprobe.core.registry", "fairprobe.plugins.base", "fairprobe.reporting",
          "fairprobe.exceptions", "fairprobe.hookspecs", "fairprobe.datasets="),
         "the app uses only the public API (``import fairprobe``), the registry and the report layer"),
    Rule("solver-imports", "fairprobe", SOLVER_LIBRARIES, (),
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
                and isinstance(node.args[0].value, str) and node.args[0].value.startswith("fairprobe"):
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


def cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components with more than one module (function-level imports included).

    Parameters
    ----------
    graph : Graph

    Returns
    -------
    list of list of str
        Each cycle's modules, sorted; the list sorted too.
    """
    adjacency: dict[str, set[str]] = {m: set() for m in graph.modules}
    for e in graph.fairprobe_edges():
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


def cycle_edges(graph: Graph, component: Iterable[str]) -> list[Edge]:
    """The import statements inside one cycle (what to cut)."""
    members = set(component)
    return [e for e in graph.fairprobe_edges() if e.importer in members and e.imported in members]


def private_imports(graph: Graph) -> list[Edge]:
    """``from fairprobe.x import _name`` in another module (dunders and private modules' own package excepted).

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


def violations(graph: Graph, rules: Iterable[Rule] = RULES) -> list[tuple[Rule, Edge]]:
    """Every import that breaks a rule.

    Parameters
    ----------
    graph : Graph
    rules : iterable of Rule

    Returns
    -------
    list of (Rule, Edge)
    """
    return [(rule, e) for rule in rules for e in graph.edges if rule.breaks(e)]

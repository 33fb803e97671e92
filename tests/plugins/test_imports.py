"""The plugins' import graph: no cycle (imports inside functions included) and no private names from
other packages.

Built from the source with :mod:`ast`, so an import inside a function (the usual way to hide a cycle)
counts like one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PLUGINS = SRC / "fairprobe" / "plugins"


def _module(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, str]]:
    """``(module imported, name)`` of every import statement in ``path`` (name "" for ``import m``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.module, alias.name) for alias in node.names]
    return found


def _graph() -> dict[str, set[str]]:
    """Plugin module -> the plugin modules it imports (``from pkg import mod`` counts as importing ``pkg.mod``)."""
    modules = {_module(p): p for p in PLUGINS.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for module, imported in _imports(path):
            for candidate in (f"{module}.{imported}", module):
                if candidate in modules and candidate != name:
                    targets.add(candidate)
                    break
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_among_the_plugins_modules() -> None:
    graph = _graph()
    assert "fairprobe.plugins.fairtree.demo" in graph and graph["fairprobe.plugins.fairtree.tree"]  # it parsed
    # a package's __init__ re-exports its modules: importing the package is not a cycle with them
    graph = {m: {t for t in targets if not (t.count(".") < m.count(".") and m.startswith(t + "."))}
             for m, targets in graph.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function() -> None:
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    tree = ast.parse("def f():\n    from fairprobe.plugins.x import y\n")
    assert any(isinstance(n, ast.ImportFrom) for n in ast.walk(tree))  # ast.walk enters functions


def test_no_private_name_is_imported_from_another_package() -> None:
    bad = []
    for path in PLUGINS.rglob("*.py"):
        package = _module(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module(path)
        for module, name in _imports(path):
            private = name.startswith("_") or any(part.startswith("_") for part in module.split("."))
            if module.startswith("fairprobe") and private and not module.startswith(package):
                bad.append(f"{path.relative_to(SRC)}: from {module} import {name}")
    assert bad == []

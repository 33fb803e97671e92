"""Code-health figures of the package: long functions and classes, import cycles, private
cross-module imports, dependency-rule violations and numpydoc coverage of the public API.

Prints, for ``src/fairprobe`` (or ``--src`` of another checkout):

* every function or method longer than ``--max-lines`` (80) lines of code (its signature and
  body without the docstring, blank and comment-only lines), with its length and location
  (a function may stay long with a reason in a comment on its ``def`` line, ``# long: <why>``: it is
  then listed apart, as excused, and not counted);
* the share of public callables (functions, methods, classes not starting with ``_``, in modules
  not starting with ``_``; click commands and hook implementations are documented by their
  options and by the hook specification, and are not counted) whose docstring has a numpydoc
  ``Parameters`` section (among those that take arguments) and an ``Examples`` section.

* classes longer than ``--max-class-lines`` (500) lines;
* import cycles (function-level imports included), imports of another module's private names and
  imports that break the dependency rules of DESIGN.md, read with ``ast`` by
  ``tests/import_graph.py`` (the module ``tests/test_layers.py`` asserts the same on).

* the engine's solver knowledge in ``core``: calls to ``hasattr``/``getattr`` that probe a backend for a
  method (an attribute named like one of :data:`BACKEND_ATTRS`, or any attribute of a receiver named like
  a backend) and ``inspect.signature`` of anything but a constructor; and backend names used as
  conditions (compared with ``==``/``in``, or a tuple of them) or looked up by name, and solver parameter
  strings (``'numerics/feastol'``), docstrings left out. Both are 0: the engine reaches backends
  through the declared protocol (:class:`fairprobe.backends.base.ExactBackend`) and the
  ``fairprobe_select_backend`` hook, and solver settings through named profiles;

* modules over ``--max-module-lines`` (1,000) lines; functions whose cyclomatic complexity (radon's
  measure) is over ``--max-complexity`` (25), when radon is installed (``pip install radon``, or the
  ``dev`` extra: it is a tool of this script, never a dependency of the package); import cycles once
  more with the ``if TYPE_CHECKING:`` imports counted (the cycle count above leaves them out).

Run: ``python benchmarks/code_health.py [--src path/to/checkout/src] [--max-lines 80] [--json]``.
Compare two revisions by pointing ``--src`` at a checkout of each
(``git worktree add /tmp/old <rev>``). It is a static analysis; the CPU and wall time it took are
printed for the record.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests/import_graph.py: the one import-graph reader, shared with the tests

from tests.import_graph import cycles, private_imports, read_graph, violations  # noqa: E402

#: Backend attributes whose probing by name in core means the engine guesses at a backend's interface.
BACKEND_ATTRS = frozenset({
    "solve", "solve_global", "solve_parity", "solve_parity_pair", "verified_minima", "solve_fractional_pair",
    "solve_two_ratio", "solve_two_ratio_pair", "is_two_ratio", "solves_exactly", "check_program"})
# (availability and capabilities are not counted: every kind of plugin may have them, and the registry's
# listing reads them for all kinds alike)

#: Receivers that hold a backend in the engine's code (any attribute probed on them counts).
BACKEND_RECEIVER = re.compile(r"^(self\.)?(be|backend|main|lp|inner|routed|chosen|highs|solver)$")

#: The built-in backend names: a condition on one in core is solver knowledge outside the backends.
BACKEND_NAMES = frozenset({"scip", "highs", "gurobi", "ortools", "cvxpy", "auto"})

#: A solver parameter string (SCIP's ``section/name``).
SOLVER_PARAMETER = re.compile(r"^[a-z_]+(/[a-z_]+)+$")


def _docstring_nodes(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (or bare string statements)."""
    return {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)}


def _is_backend_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in BACKEND_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_backend_name(e) for e in node.elts)
    return False


def solver_knowledge(core: Path) -> dict:
    """Backend probes and backend names / solver parameter strings in the modules under ``core``.

    Parameters
    ----------
    core : Path
        The ``fairprobe/core`` folder.

    Returns
    -------
    dict
        ``probes`` and ``names``: lists of ``"path:line what"``.
    """
    probes: list[str] = []
    names: list[str] = []
    for path in sorted(core.rglob("*.py")):
        tree = ast.parse(path.read_text())
        where = path.relative_to(core.parent.parent)
        docs = _docstring_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id in ("hasattr", "getattr") and len(node.args) >= 2:
                    receiver, attr = ast.unparse(node.args[0]), node.args[1]
                    named = isinstance(attr, ast.Constant) and attr.value in BACKEND_ATTRS
                    if named or BACKEND_RECEIVER.match(receiver):
                        probes.append(f"{where}:{node.lineno} {ast.unparse(node)[:70]}")
                elif (isinstance(func, ast.Attribute) and func.attr == "signature"
                      and ast.unparse(func.value) == "inspect"
                      and not (node.args and ast.unparse(node.args[0]).endswith(".__init__"))):
                    probes.append(f"{where}:{node.lineno} {ast.unparse(node)[:70]}")
                elif ((isinstance(func, ast.Attribute) and func.attr in ("get", "get_backend"))
                      or (isinstance(func, ast.Name) and func.id == "get_backend")):
                    if any(_is_backend_name(a) for a in node.args):
                        names.append(f"{where}:{node.lineno} {ast.unparse(node)[:70]}")
            elif isinstance(node, ast.Compare):
                if any(_is_backend_name(n) for n in [node.left, *node.comparators]):
                    names.append(f"{where}:{node.lineno} {ast.unparse(node)[:70]}")
            elif isinstance(node, ast.Assign) and _is_backend_name(node.value) and isinstance(node.value, ast.Tuple):
                names.append(f"{where}:{node.lineno} {ast.unparse(node)[:70]}")
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                  and SOLVER_PARAMETER.match(node.value)):
                names.append(f"{where}:{node.lineno} {node.value!r}")
    return {"backend_probes": probes, "backend_names": names}


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__") and name == "__init__")


def _takes_arguments(node: ast.AST) -> bool:
    if isinstance(node, ast.ClassDef):
        init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        return init is not None and _takes_arguments(init)
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names = [n for n in names if n not in ("self", "cls")]
    return bool(names or args.vararg or args.kwarg)


def _documented_elsewhere(node: ast.AST) -> bool:
    """Click commands (documented by their options and ``--help``) and hook implementations (by the hook spec)."""
    for dec in getattr(node, "decorator_list", []):
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("command", "group", "option", "argument", "hookimpl", "pass_context") or name.endswith("_option"):
            return True
    return False


def _code_lines(func: ast.AST, lines: list[str]) -> int:
    """Lines of a function without its docstring, blank lines and comment-only lines."""
    first = func.body[0]
    start = func.lineno
    if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) \
            and isinstance(first.value.value, str):
        start = first.end_lineno + 1
        head = lines[func.lineno - 1:func.body[0].lineno - 1]  # the signature
    else:
        head = []
    body = lines[start - 1:func.end_lineno]
    return sum(1 for line in head + body if line.strip() and not line.strip().startswith("#"))


class _Counts:
    def __init__(self) -> None:
        self.long: list[tuple[int, str]] = []
        self.excused: list[tuple[int, str]] = []  # long, with a reason on the def line (``# long: <why>``)
        self.long_classes: list[tuple[int, str]] = []
        self.max_class_lines = 500
        self.with_args = self.with_params = self.total = self.with_examples = 0


def _visit(node: ast.AST, public_scope: bool, in_function: bool, lines: list[str], where: Path, max_lines: int,
           counts: _Counts) -> None:
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = _code_lines(child, lines)
            if length > max_lines:
                excused = "# long:" in lines[child.lineno - 1]
                (counts.excused if excused else counts.long).append((length, f"{where}:{child.lineno} {child.name}"))
        elif child.end_lineno - child.lineno + 1 > counts.max_class_lines:
            counts.long_classes.append((child.end_lineno - child.lineno + 1, f"{where}:{child.lineno} {child.name}"))
        public = (public_scope and not in_function and _public(child.name) and child.name != "__init__"
                  and not _documented_elsewhere(child))
        if public:
            doc = ast.get_docstring(child) or ""
            counts.total += 1
            counts.with_examples += "Examples\n" in doc
            if _takes_arguments(child):
                counts.with_args += 1
                counts.with_params += "Parameters\n" in doc
        _visit(child, public and isinstance(child, ast.ClassDef), in_function or not isinstance(child, ast.ClassDef),
               lines, where, max_lines, counts)


def scan(root: Path, max_lines: int, max_class_lines: int = 500) -> dict:
    """Every figure for the package folder ``root`` (``.../src/fairprobe``)."""
    counts = _Counts()
    counts.max_class_lines = max_class_lines
    n_lines = 0
    paths = sorted(root.rglob("*.py"))
    for path in paths:
        source = path.read_text()
        n_lines += len(source.splitlines())
        module_public = not path.name.startswith("_") or path.name == "__init__.py"
        _visit(ast.parse(source), module_public, False, source.splitlines(), path.relative_to(root.parent),
               max_lines, counts)
    graph = read_graph(root.parent)
    return {
        "modules": len(paths), "lines": n_lines,
        "long_functions": sorted(counts.long, reverse=True),
        "excused_long_functions": sorted(counts.excused, reverse=True),
        "long_classes": sorted(counts.long_classes, reverse=True),
        "cycles": cycles(graph),
        "private_imports": [f"{e} takes {', '.join(e.names)}" for e in private_imports(graph)],
        "rule_violations": [f"[{r.name}] {e}" for r, e in violations(graph)],
        "public_with_arguments": counts.with_args, "with_parameters": counts.with_params,
        "public": counts.total, "with_examples": counts.with_examples,
    }


class _TypeOnlyToo:
    """A view of the import graph whose edges include the ``if TYPE_CHECKING:`` imports."""

    def __init__(self, graph) -> None:
        self.modules = graph.modules
        self._graph = graph

    def fairprobe_edges(self, *, include_type_checking: bool = True) -> list:
        return self._graph.fairprobe_edges(include_type_checking=True)


def size_and_complexity(root: Path, max_module_lines: int = 1000, max_complexity: int = 25) -> dict:
    """Long modules, complex functions and the import cycles with type-only imports, for ``root``."""
    long_modules = []
    complex_functions: list[tuple[int, str]] | None = []
    try:
        from radon.complexity import cc_visit
        from radon.visitors import Function
    except ImportError:  # a tool of this script only: the package never depends on radon
        complex_functions = None
    for path in sorted(root.rglob("*.py")):
        source = path.read_text()
        where = path.relative_to(root.parent)
        if len(source.splitlines()) > max_module_lines:
            long_modules.append((len(source.splitlines()), str(where)))
        if complex_functions is None:
            continue
        for block in cc_visit(source):  # functions and methods once each; classes left out
            if isinstance(block, Function) and block.complexity > max_complexity:
                name = f"{block.classname}.{block.name}" if block.classname else block.name
                complex_functions.append((block.complexity, f"{where}:{block.lineno} {name}"))
    return {
        "long_modules": sorted(long_modules, reverse=True),
        "complex_functions": None if complex_functions is None else sorted(complex_functions, reverse=True),
        "cycles_with_type_only": cycles(_TypeOnlyToo(read_graph(root.parent))),
    }


def print_size_and_complexity(figures: dict, max_module_lines: int = 1000, max_complexity: int = 25) -> None:
    """Print the figures of :func:`size_and_complexity`."""
    print(f"modules over {max_module_lines} lines: {len(figures['long_modules'])}")
    for length, where in figures["long_modules"]:
        print(f"  {length:4d}  {where}")
    if figures["complex_functions"] is None:
        print(f"functions with cyclomatic complexity over {max_complexity}: not measured, radon is not installed "
              "(pip install radon, or pip install -e '.[dev]')")
    else:
        print(f"functions with cyclomatic complexity over {max_complexity}: {len(figures['complex_functions'])}")
        for complexity, where in figures["complex_functions"]:
            print(f"  {complexity:4d}  {where}")
    print(f"import cycles with type-only (if TYPE_CHECKING:) imports: {len(figures['cycles_with_type_only'])}")
    for cycle in figures["cycles_with_type_only"]:
        print(f"  {len(cycle)} modules: {' <-> '.join(cycle)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=str(ROOT / "src"), help="The src folder of a checkout.")
    ap.add_argument("--max-lines", type=int, default=80)
    ap.add_argument("--max-class-lines", type=int, default=500)
    ap.add_argument("--max-module-lines", type=int, default=1000)
    ap.add_argument("--max-complexity", type=int, default=25)
    ap.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = ap.parse_args()
    cpu, wall = time.process_time(), time.perf_counter()
    figures = scan(Path(args.src) / "fairprobe", args.max_lines, args.max_class_lines)
    figures.update(size_and_complexity(Path(args.src) / "fairprobe", args.max_module_lines, args.max_complexity))
    figures.update(solver_knowledge(Path(args.src) / "fairprobe" / "core"))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if args.json:
        print(json.dumps({**figures, "cpu_s": cpu, "wall_s": wall}, indent=2))
        return
    print(f"{figures['modules']} modules, {figures['lines']} lines ({args.src})")
    print(f"functions over {args.max_lines} code lines: {len(figures['long_functions'])}")
    for length, where in figures["long_functions"]:
        print(f"  {length:4d}  {where}")
    if figures["excused_long_functions"]:
        print(f"  and {len(figures['excused_long_functions'])} excused by a '# long: <why>' comment:")
        for length, where in figures["excused_long_functions"]:
            print(f"  {length:4d}  {where}  (excused)")
    print(f"classes over {args.max_class_lines} lines: {len(figures['long_classes'])}")
    for length, where in figures["long_classes"]:
        print(f"  {length:4d}  {where}")
    print(f"import cycles (function-level imports included): {len(figures['cycles'])}")
    for cycle in figures["cycles"]:
        print(f"  {' <-> '.join(cycle)}")
    print_size_and_complexity(figures, args.max_module_lines, args.max_complexity)
    print(f"hasattr/getattr/inspect probes of backend methods in core: {len(figures['backend_probes'])}")
    for line in figures["backend_probes"]:
        print(f"  {line}")
    print(f"backend names as conditions or look-ups, and solver parameter strings, in core: "
          f"{len(figures['backend_names'])}")
    for line in figures["backend_names"]:
        print(f"  {line}")
    print(f"private cross-module imports: {len(figures['private_imports'])}")
    for line in figures["private_imports"]:
        print(f"  {line}")
    print(f"dependency-rule violations: {len(figures['rule_violations'])}")
    for line in figures["rule_violations"]:
        print(f"  {line}")
    with_args, with_params = figures["public_with_arguments"], figures["with_parameters"]
    total, with_examples = figures["public"], figures["with_examples"]
    print(f"public callables: {total}; with arguments: {with_args}")
    print(f"  Parameters section: {with_params}/{with_args} = {with_params / max(with_args, 1):.0%}")
    print(f"  Examples section:   {with_examples}/{total} = {with_examples / max(total, 1):.0%}")
    print(f"analysis took {cpu:.2f} s CPU, {wall:.2f} s wall")


if __name__ == "__main__":
    main()

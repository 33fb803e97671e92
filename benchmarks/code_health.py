"""Code-health figures of the package: long functions and numpydoc coverage of the public API.

Prints, for ``src/fairprobe`` (or ``--root``):

* every function or method longer than ``--max-lines`` (80) lines of code (its signature and
  body without the docstring, blank and comment-only lines), with its length and location
  (a function may stay long with a reason in a comment on its ``def`` line: ``# long: <why>``);
* the share of public callables (functions, methods, classes not starting with ``_``, in modules
  not starting with ``_``; click commands and hook implementations are documented by their
  options and by the hook specification, and are not counted) whose docstring has a numpydoc
  ``Parameters`` section (among those that take arguments) and an ``Examples`` section.

Run: ``python benchmarks/code_health.py [--root src/fairprobe] [--max-lines 80]``. Compare two
revisions by running it in a checkout of each (``git worktree add /tmp/old <rev>``).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path


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
        self.with_args = self.with_params = self.total = self.with_examples = 0


def _visit(node: ast.AST, public_scope: bool, in_function: bool, lines: list[str], where: Path, max_lines: int,
           counts: _Counts) -> None:
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = _code_lines(child, lines)
            if length > max_lines and "# long:" not in lines[child.lineno - 1]:
                counts.long.append((length, f"{where}:{child.lineno} {child.name}"))
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


def scan(root: Path, max_lines: int) -> tuple[list[tuple[int, str]], int, int, int, int]:
    """Long functions, and counts: public callables with arguments, with Parameters, all, with Examples."""
    counts = _Counts()
    for path in sorted(root.rglob("*.py")):
        source = path.read_text()
        module_public = not path.name.startswith("_") or path.name == "__init__.py"
        _visit(ast.parse(source), module_public, False, source.splitlines(), path.relative_to(root.parent),
               max_lines, counts)
    return sorted(counts.long, reverse=True), counts.with_args, counts.with_params, counts.total, counts.with_examples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1] / "src" / "fairprobe"))
    ap.add_argument("--max-lines", type=int, default=80)
    args = ap.parse_args()
    long, with_args, with_params, total, with_examples = scan(Path(args.root), args.max_lines)
    print(f"functions over {args.max_lines} lines: {len(long)}")
    for length, where in long:
        print(f"  {length:4d}  {where}")
    print(f"public callables: {total}; with arguments: {with_args}")
    print(f"  Parameters section: {with_params}/{with_args} = {with_params / max(with_args, 1):.0%}")
    print(f"  Examples section:   {with_examples}/{total} = {with_examples / max(total, 1):.0%}")


if __name__ == "__main__":
    main()

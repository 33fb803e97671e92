"""``fairprobe --help`` lists every command without importing numpy, pandas, scipy, sympy or a solver
(its speed is measured in ``benchmarks/cli_help.py``, not here)."""

from __future__ import annotations

import subprocess
import sys

import click

from fairprobe.cli.main import cli

HEAVY = ("numpy", "pandas", "scipy", "sympy", "sklearn", "matplotlib", "pyscipopt", "gurobipy", "ortools", "cvxpy")


def test_help_imports_no_heavy_library() -> None:
    code = ("import sys\nfrom fairprobe.cli import main\nsys.argv = ['fairprobe', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip().splitlines()[-1] == "[]", out.stderr
    for name in ("bound", "sweep", "breakdown", "demo", "fairtree", "multiplicity", "riskscore", "report"):
        assert f"  {name} " in out.stdout


def test_every_listed_short_help_is_the_commands_own() -> None:
    """The lazy list says what each command's docstring says (so the two cannot drift)."""
    import importlib

    from fairprobe.cli import hooks
    from fairprobe.plugins.fairtree import hooks as fairtree_hooks
    from fairprobe.plugins.rashomon import hooks as rashomon_hooks
    from fairprobe.plugins.riskscore import hooks as riskscore_hooks

    tables = [hooks.COMMANDS, fairtree_hooks.COMMANDS, rashomon_hooks.COMMANDS, riskscore_hooks.COMMANDS]
    checked = 0
    for table in tables:
        for name, (target, short) in table.items():
            module, _, attr = target.partition(":")
            command = getattr(importlib.import_module(module), attr)
            assert command.name == name and short == command.get_short_help_str(1000), name
            checked += 1
    assert checked == 12
    ctx = click.Context(cli)
    assert {name for t in tables for name in t} <= set(cli.list_commands(ctx))
    assert all(cli.get_command(ctx, name).name == name for t in tables for name in t)

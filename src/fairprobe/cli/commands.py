"""The built-in general commands: ``plugins``, ``solve``, ``demo`` and ``report``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from fairprobe.cli.options import force_option, jobs_option, json_option, out_option, seed_option
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError

__all__ = ["demo_command", "plugin_table_lines", "plugins_command", "report_command", "solve_command", "terminal_width"]


@click.command("plugins")
@click.option("--kind", type=click.Choice(["biases", "metrics", "backends", "analyses"]),
              help="Only this kind of plugin.")
@json_option("Print JSON instead of a table.")
def plugins_command(kind: str | None, as_json: bool) -> None:
    """List registered biases, metrics, backends and analyses with their availability.

    \b
    Example:
      fairprobe plugins --kind backends
    """
    from fairprobe.core.registry import KINDS, list_plugins

    table = list_plugins()
    if kind:
        table = table[table.kind == kind]
    if as_json:
        click.echo(dumps(table.to_dict(orient="records"), indent=2))
        return
    for line in plugin_table_lines(table, [kind] if kind else list(KINDS), terminal_width()):
        click.echo(line)


#: Narrowest description column worth keeping beside the name and status; below it the description
#: goes on its own lines under them.
MIN_DESCRIPTION_WIDTH = 30


def terminal_width(fallback: int = 100) -> int:
    """Columns of the terminal (``COLUMNS`` if set), ``fallback`` when output is not a terminal; at least 40.

    Parameters
    ----------
    fallback : int
        Columns when neither ``COLUMNS`` nor a terminal tells.

    Returns
    -------
    int

    Examples
    --------
    >>> import os
    >>> os.environ["COLUMNS"] = "72"
    >>> terminal_width()
    72
    >>> del os.environ["COLUMNS"]
    """
    import shutil

    return max(40, shutil.get_terminal_size((fallback, 24)).columns)


def plugin_table_lines(table: Any, kinds: list[str], width: int) -> list[str]:
    """The lines of ``fairprobe plugins``: per kind, a heading and one aligned row per plugin, within ``width``.

    Name, status and description columns are aligned over every kind. Descriptions wrap (at spaces)
    in their column; when the name and status leave it fewer than :data:`MIN_DESCRIPTION_WIDTH`
    columns, each description goes, wrapped, on the lines under its row.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~fairprobe.core.registry.list_plugins` (columns kind, name, available, status, description).
    kinds : list of str
        The kinds to list, in order.
    width : int
        Columns available.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"kind": ["biases"], "name": ["selection"], "available": [True],
    ...                       "status": ["available"], "description": ["data observed only for selected units"]})
    >>> print("\\n".join(plugin_table_lines(table, ["biases"], 58)))
    biases (1)
      + selection  available  data observed only for selected
                              units
    >>> print("\\n".join(plugin_table_lines(table, ["biases"], 50)))  # too narrow beside: under the row
    biases (1)
      + selection  available
          data observed only for selected units
    """
    import textwrap

    def wrap(text: str, columns: int) -> list[str]:
        return textwrap.wrap(text, max(columns, 10), break_on_hyphens=False) or [""]

    name_width = max([len(str(n)) for n in table.name] or [0])
    status_width = max([len(str(s)) for s in table.status] or [0])
    column = 4 + name_width + 2 + status_width + 2  # where descriptions start
    beside = width - column >= MIN_DESCRIPTION_WIDTH
    lines: list[str] = []
    for k in kinds:
        rows = table[table.kind == k]
        lines.append(f"{k} ({len(rows)})")
        if rows.empty:
            lines.append("  (none registered)")
        for row in rows.itertuples():
            mark = "+" if row.available else "-"
            head = f"  {mark} {row.name:<{name_width}}  {row.status:<{status_width}}  "
            text = str(row.description or "")
            if len(head.rstrip()) > width:  # a name or status too long for the terminal: wrapped on its own lines
                status = wrap(f"{row.name}  {row.status}", width - 4)
                lines.append(f"  {mark} {status[0]}")
                lines += ["    " + part for part in status[1:]]
                lines += ["      " + part for part in wrap(text, width - 6) if part]
                continue
            if beside and len(head) <= column:
                parts = wrap(text, width - column)
                lines.append((head + parts[0]).rstrip())
                lines += [" " * column + part for part in parts[1:]]
            else:
                lines.append(head.rstrip())
                lines += ["      " + part for part in wrap(text, width - 6) if part]
    return lines


def _seconds(value: float | None, option: str) -> float | None:
    """A time limit must be a positive, finite number of seconds (SCIP rejects the rest with a raw error)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ConfigError(f"{option} must be a positive number of seconds; got {value}. Leave it out for no limit.")
    return value


@click.command("solve")
@click.argument("program_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--backend", default="scip", show_default=True, help="Backend name, or 'auto'.")
@click.option("--time-limit", type=float, default=None, callback=lambda _c, _p, v: _seconds(v, "--time-limit"),
              help="Seconds per solve.")
@json_option("Print the SolveResult as JSON.")
def solve_command(program_file: Path, backend: str, time_limit: float | None, as_json: bool) -> None:
    """Solve a program written in fairprobe's LP-like text form.

    \b
    Example:
      fairprobe solve program.txt --backend ortools --time-limit 10
    """
    from fairprobe.backends.base import SolveOptions
    from fairprobe.core.registry import get_backend
    from fairprobe.program.model import PolynomialProgram

    prog = PolynomialProgram.from_text(program_file.read_text())
    res = get_backend(backend).solve(prog, SolveOptions(time_limit=time_limit))
    if as_json:
        out = res.to_dict()
        out["incumbent"] = dict(res.incumbent) if res.incumbent else None
        click.echo(dumps(out, indent=2))
    else:
        click.echo(f"{res.termination.value}: bound {res.objective_bound:.10g}, incumbent "
                   f"{res.incumbent_objective if res.incumbent_objective is not None else 'none'} "
                   f"({res.solver_version}, {res.wall_time:.3f}s)")


@click.command("demo")
@out_option(default="fairprobe-report", show_default=True, help="Report folder.")
@force_option
@click.option("--quick", is_flag=True, help="A smaller run (used in tests).")
@seed_option("Seed of the synthetic data and of every random choice.", minimum=0)
@jobs_option("Parallel workers (default 2; 1 with --quick).", default=None)
@json_option("Print what the demo found as JSON (detected problems, facts, report folder) instead of text.")
def demo_command(out_dir: Path, quick: bool, seed: int, jobs: int | None, as_json: bool) -> None:
    """Run the whole tour on built-in synthetic data and write a report folder.

    Certified bounds, sweeps and breakdown points under proxy, selection and ECP bias; FairTree;
    a Rashomon set; the risk-score audit. Prints which injected problems were found.

    \b
    Example:
      fairprobe demo --out report --seed 1
    """
    from fairprobe.cli.demo import run_demo
    from fairprobe.core.progress import is_quiet

    if not as_json:
        run_demo(out_dir, quick=quick, seed=seed, n_jobs=jobs, echo=click.echo, progress=not is_quiet())
        return
    res = run_demo(out_dir, quick=quick, seed=seed, n_jobs=jobs, echo=lambda _line: None, progress=False)
    click.echo(dumps({"report": str(res.page.resolve()), "detected": res.detected, "facts": res.facts,
                      "seconds": res.seconds, "seed": seed, "quick": quick}, indent=2))


@click.command("report")
@click.argument("folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@out_option(required=True, help="Folder of the combined report.")
@force_option
@click.option("--title", default="fairprobe audit report", show_default=True)
@json_option("Print the combined report's page and parts as JSON.")
def report_command(folders: tuple[Path, ...], out_dir: Path, title: str, as_json: bool) -> None:
    """Combine saved reports (folders written with --out) into one HTML report.

    \b
    Example:
      fairprobe sweep ... --out r1 && fairprobe riskscore ... --out r2
      fairprobe report r1 r2 --out audit --title "Credit model audit"
    """
    from fairprobe.reporting.report import combine_reports, command_line, load_report

    _check_not_an_input(out_dir, folders)
    reports = [load_report(f) for f in folders]
    page = combine_reports(reports, title, command=command_line()).write(out_dir)
    if as_json:  # the "report written to" line goes to stderr (see fairprobe.cli.options)
        click.echo(dumps({"report": str(page.resolve()), "parts": [str(f) for f in folders],
                               "sections": sum(len(r.sections) for r in reports)}, indent=2))


def _check_not_an_input(out_dir: Path, folders: tuple[Path, ...]) -> None:
    """The combined report must not replace (or be written inside) one of the reports it combines."""
    out = out_dir.expanduser().resolve()
    for folder in folders:
        src = folder.expanduser().resolve()
        if out == src or src in out.parents:
            where, effect = ("is", "replace") if out == src else ("lies inside", "change")
            raise ConfigError(f"--out {out_dir} {where} the input report {folder}: writing there would {effect} "
                              f"a report being combined. Choose another --out folder, e.g. --out "
                              f"{src.name}-combined.")

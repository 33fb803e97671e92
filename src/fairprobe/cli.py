"""The ``fairprobe`` command line.

Commands: ``plugins``, ``solve``, ``bound``, ``sweep``, ``breakdown``, ``fairtree``,
``multiplicity``, ``riskscore``, ``demo``, ``report``; plugins add more through
``fairprobe_add_cli_commands``.

Exit codes: 0 success; 2 bad input or configuration (one line on stderr naming the problem and
the fix); 3 a solver failed; 1 an internal error; 130 interrupted. ``--debug``
also prints the traceback and keeps the exit code; ``--quiet`` silences progress bars and notes.
"""

from __future__ import annotations

import json
import math
import os
import sys
import traceback
from pathlib import Path

import click

from fairprobe import __version__
from fairprobe.cli_io import force_option, out_option
from fairprobe.exceptions import ConfigError, FairprobeError, SolverError

# exit 3; an infeasible program or a missing solver is a configuration error (exit 2)
SOLVER_ERRORS = (SolverError,)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fairprobe")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bars or informational lines (results and errors are still printed).")
@click.pass_context
def cli(ctx: click.Context, debug: bool, quiet: bool) -> None:
    """fairprobe: how far can you trust a fairness assessment?

    \b
    Example:
      fairprobe demo --out report
      fairprobe --quiet sweep ... --out sweep-report   (for logs and scripts)

    \b
    Progress bars are drawn only on a terminal (FAIRPROBE_PROGRESS=1 forces them);
    --quiet (or FAIRPROBE_QUIET=1) also silences informational lines.

    \b
    Exit codes:
      0    success
      2    bad input or configuration (one line names the problem and the fix)
      3    a solver failed
      1    internal error (rerun with --debug for the traceback)
      130  interrupted
    """
    # The command line only writes figures to files: headless matplotlib, unless the user chose a
    # backend (library code never switches it).
    os.environ.setdefault("MPLBACKEND", "Agg")
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["quiet"] = quiet
    if quiet:
        from fairprobe.progress import quiet as quiet_mode

        ctx.with_resource(quiet_mode(True))  # left when the command ends: in-process callers get their mode back


@cli.command()
@click.option("--kind", type=click.Choice(["biases", "metrics", "backends", "analyses"]),
              help="Only this kind of plugin.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def plugins(kind: str | None, as_json: bool) -> None:
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
        click.echo(json.dumps(table.to_dict(orient="records"), indent=2))
        return
    for k in [kind] if kind else list(KINDS):
        rows = table[table.kind == k]
        click.echo(f"{k} ({len(rows)})")
        if rows.empty:
            click.echo("  (none registered)")
        for row in rows.itertuples():
            mark = "+" if row.available else "-"
            click.echo(f"  {mark} {row.name:<12} {row.status:<34} {row.description}")


def _seconds(value: float | None, option: str) -> float | None:
    """A time limit must be a positive, finite number of seconds (SCIP rejects the rest with a raw error)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ConfigError(f"{option} must be a positive number of seconds; got {value}. Leave it out for no limit.")
    return value


@cli.command()
@click.argument("program_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--backend", default="scip", show_default=True, help="Backend name, or 'auto'.")
@click.option("--time-limit", type=float, default=None, callback=lambda _c, _p, v: _seconds(v, "--time-limit"),
              help="Seconds per solve.")
@click.option("--json", "as_json", is_flag=True, help="Print the SolveResult as JSON.")
def solve(program_file: Path, backend: str, time_limit: float | None, as_json: bool) -> None:
    """Solve a program written in fairprobe's LP-like text form.

    \b
    Example:
      fairprobe solve program.txt --backend ortools --time-limit 10
    """
    from fairprobe.backends.base import SolveOptions
    from fairprobe.core.program import PolynomialProgram
    from fairprobe.core.registry import get_backend

    prog = PolynomialProgram.from_text(program_file.read_text())
    res = get_backend(backend).solve(prog, SolveOptions(time_limit=time_limit))
    if as_json:
        out = res.to_dict()
        out["incumbent"] = dict(res.incumbent) if res.incumbent else None
        click.echo(json.dumps(out, indent=2))
    else:
        click.echo(f"{res.termination.value}: bound {res.objective_bound:.10g}, incumbent "
                   f"{res.incumbent_objective if res.incumbent_objective is not None else 'none'} "
                   f"({res.solver_version}, {res.wall_time:.3f}s)")


@cli.command()
@out_option(default="fairprobe-report", show_default=True, help="Report folder.")
@force_option
@click.option("--quick", is_flag=True, help="A smaller run (used in tests).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the synthetic data.")
@click.option("--jobs", type=click.IntRange(1), default=None, help="Parallel workers (default 2; 1 with --quick).")
def demo(out_dir: Path, quick: bool, seed: int, jobs: int | None) -> None:
    """Run the whole tour on built-in synthetic data and write a report folder.

    Certified bounds, sweeps and breakdown points under proxy, selection and ECP bias; FairTree;
    a Rashomon set; the risk-score audit. Prints which injected problems were found.

    \b
    Example:
      fairprobe demo --out report --seed 1
    """
    from fairprobe.demo import run_demo
    from fairprobe.progress import is_quiet

    run_demo(out_dir, quick=quick, seed=seed, n_jobs=jobs, echo=click.echo, progress=not is_quiet())


@cli.command("report")
@click.argument("folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@out_option(required=True, help="Folder of the combined report.")
@force_option
@click.option("--title", default="fairprobe audit report", show_default=True)
def report_command(folders: tuple[Path, ...], out_dir: Path, title: str) -> None:
    """Combine saved reports (folders written with --out) into one HTML report.

    \b
    Example:
      fairprobe sweep ... --out r1 && fairprobe riskscore ... --out r2
      fairprobe report r1 r2 --out audit --title "Credit model audit"
    """
    from fairprobe.progress import info
    from fairprobe.report import combine_reports, load_report

    reports = [load_report(f) for f in folders]
    page = combine_reports(reports, title, command=" ".join(["fairprobe", *sys.argv[1:]])).write(out_dir)
    info(f"report of {len(reports)} parts written to {page.resolve()}")


def _add_builtin_commands() -> None:
    from fairprobe.cli_causal import register

    register(cli)


_add_builtin_commands()


def _add_plugin_commands() -> None:
    from fairprobe.core.registry import get_plugin_manager

    get_plugin_manager().hook.fairprobe_add_cli_commands(cli=cli)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``fairprobe`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        _add_plugin_commands()
        cli.main(args=argv, prog_name="fairprobe", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except FairprobeError as exc:
        if debug:  # the traceback as well, but the same exit code: --debug never changes it
            traceback.print_exc()
        click.echo(f"error: {exc}", err=True)
        sys.exit(3 if isinstance(exc, SOLVER_ERRORS) else 2)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # an unexpected failure: one line, the traceback only on request
        if debug:
            traceback.print_exc()
        click.echo(f"internal error: {type(exc).__name__}: {exc}"
                   + ("" if debug else " (rerun with --debug for the traceback)"), err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()

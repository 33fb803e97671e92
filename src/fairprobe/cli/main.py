"""The ``fairprobe`` root command group and the console entry point (exit codes, error lines).

Commands: ``plugins``, ``solve``, ``bound``, ``sweep``, ``breakdown``, ``study``, ``fairtree``,
``multiplicity``, ``riskscore``, ``demo``, ``report``; plugins add more through
``fairprobe_add_cli_commands``.

Exit codes: 0 success; 2 bad input or configuration (one line on stderr naming the problem and
the fix); 3 a solver failed; 1 an internal error; 130 interrupted. ``--debug``
also prints the traceback and keeps the exit code; ``--quiet`` silences progress bars and notes.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

import click

from fairprobe import __version__
from fairprobe.exceptions import FairprobeError, SolverError

# exit 3; an infeasible program or a missing solver is a configuration error (exit 2)
SOLVER_ERRORS = (SolverError,)


class PluginGroup(click.Group):
    """The root group: its commands are those plugins add through ``fairprobe_add_cli_commands``.

    They are loaded on first use (listing, help, dispatch), not at import: importing
    :mod:`fairprobe.cli` builds no plugin manager, yet the importable group has every command.

    Examples
    --------
    >>> import click
    >>> from fairprobe.cli.main import cli
    >>> ctx = click.Context(cli)
    >>> {"bound", "sweep", "breakdown", "demo", "report"} <= set(cli.list_commands(ctx))
    True
    """

    def _load_plugins(self) -> None:
        # Plugins registered since the last use (a notebook's get_plugin_manager().register(...)) add
        # their commands too; each plugin object is asked once.
        from fairprobe.core.registry import get_plugin_manager

        pm = get_plugin_manager()
        loaded: set[int] = self.__dict__.setdefault("_loaded_plugins", set())
        plugins = pm.get_plugins()
        new = [p for p in plugins if id(p) not in loaded]
        if not new:
            return
        old = [p for p in plugins if id(p) in loaded]
        pm.subset_hook_caller("fairprobe_add_cli_commands", remove_plugins=old)(cli=self)
        loaded.update(id(p) for p in new)

    def add_lazy_command(self, name: str, target: str, short_help: str) -> None:
        """Add a command whose module is imported only when the command is used.

        ``fairprobe --help`` lists it by ``short_help``; anything else (running it, its own
        ``--help``, walking the click tree) imports ``target`` first. A plugin's
        ``fairprobe_add_cli_commands`` may use it to keep the help fast, or ``add_command``.

        Parameters
        ----------
        name : str
            The command's name.
        target : str
            ``"module:attribute"`` of the click command.
        short_help : str
            Its one-line help in the command list (the first line of the command's docstring).

        Examples
        --------
        >>> import click
        >>> group = PluginGroup("demo")
        >>> group.add_lazy_command("hello", "fairprobe.cli.commands:plugins_command", "List registered plugins.")
        >>> "hello" in group.list_commands(click.Context(group)), "hello" in group.commands
        (True, False)
        """
        self.__dict__.setdefault("_lazy_commands", {})[name] = (target, short_help)

    def _lazy(self) -> dict[str, tuple[str, str]]:
        return self.__dict__.setdefault("_lazy_commands", {})

    def _resolve_lazy(self, name: str) -> click.Command | None:
        import importlib

        target, _ = self._lazy().pop(name)
        module, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module), attr)
        self.add_command(command, name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``: lazy commands by their short help, without importing them.

        Parameters
        ----------
        ctx : click.Context
        formatter : click.HelpFormatter

        Examples
        --------
        >>> import click
        >>> from fairprobe.cli.main import cli
        >>> "bound" in cli.get_help(click.Context(cli))
        True
        """
        self._load_plugins()
        rows = [(name, short) for name, (_, short) in self._lazy().items()]
        loaded = [self.commands[name] for name in super().list_commands(ctx) if not self.commands[name].hidden]
        rows += [(cmd.name or "", cmd.get_short_help_str(1000)) for cmd in loaded]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(sorted(rows))

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Names of the commands, after loading the plugins' commands on first use.

        Parameters
        ----------
        ctx : click.Context
            The context of the group.

        Returns
        -------
        list of str
            Sorted names of every command, plugin commands included.

        Examples
        --------
        >>> import click
        >>> from fairprobe.cli.main import cli
        >>> "plugins" in cli.list_commands(click.Context(cli))
        True
        """
        self._load_plugins()
        return sorted({*super().list_commands(ctx), *self._lazy()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command named ``cmd_name``, after loading the plugins' commands on first use.

        Parameters
        ----------
        ctx : click.Context
            The context of the group.
        cmd_name : str
            The command's name.

        Returns
        -------
        click.Command or None
            None when no command has that name.

        Examples
        --------
        >>> import click
        >>> from fairprobe.cli.main import cli
        >>> ctx = click.Context(cli)
        >>> cli.get_command(ctx, "bound").name, cli.get_command(ctx, "no-such-command")
        ('bound', None)
        """
        self._load_plugins()
        if cmd_name in self._lazy():
            return self._resolve_lazy(cmd_name)
        return super().get_command(ctx, cmd_name)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        """The root context, remembering the arguments given (reports record them as the command to re-run).

        Parameters
        ----------
        info_name : str or None
            The program name (``"fairprobe"``).
        args : list of str
            The arguments after the program name.
        parent : click.Context, optional
            The parent context (None for the root command).
        **extra
            Passed to :meth:`click.Group.make_context`.

        Returns
        -------
        click.Context
            The context; ``ctx.meta["fairprobe.argv"]`` holds a copy of ``args``.

        Examples
        --------
        >>> from fairprobe.cli.main import cli
        >>> ctx = cli.make_context("fairprobe", ["report", "r1", "--title", "COMPAS audit"], resilient_parsing=True)
        >>> ctx.meta["fairprobe.argv"]
        ['report', 'r1', '--title', 'COMPAS audit']
        """
        from fairprobe.reporting.folders import ARGV_KEY

        argv = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta[ARGV_KEY] = argv
        return ctx

    def reload_plugins(self) -> None:
        """Forget the loaded commands (after the plugin manager was reset, e.g. in tests).

        Returns
        -------
        None

        Examples
        --------
        >>> import click
        >>> from fairprobe.cli.main import cli
        >>> cli.reload_plugins()
        >>> len(cli.commands)
        0
        >>> "bound" in cli.list_commands(click.Context(cli))  # loaded again on first use
        True
        """
        self.commands.clear()
        self.__dict__.pop("_loaded_plugins", None)


@click.group(cls=PluginGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
        from fairprobe.core.progress import quiet as quiet_mode

        ctx.with_resource(quiet_mode(True))  # left when the command ends: in-process callers get their mode back


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``fairprobe`` console script.

    Parameters
    ----------
    argv : list of str, optional
        Arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    None
        Exits with code 2 (bad input), 3 (solver failure), 1 (internal error) or 130
        (interrupted) on failure, printing one line on standard error.

    Examples
    --------
    >>> from fairprobe.cli.main import main
    >>> main(["--version"])
    fairprobe, version 0.1.0
    >>> try:
    ...     main(["solve", "no-such-file.txt"])
    ... except SystemExit as exc:
    ...     print("exit code", exc.code)
    exit code 2
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
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

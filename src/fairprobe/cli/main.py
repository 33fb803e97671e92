"""The ``fairprobe`` root command group and the console entry point (exit codes, error lines).

Commands: ``plugins``, ``solve``, ``bound``, ``sweep``, ``breakdown``, ``study``, ``fairtree``,
``multiplicity``, ``riskscore``, ``demo``, ``report``; plugins add more through
``fairprobe_add_cli_commands``.

Exit codes: 0 success; 2 bad input or configuration (one line on stderr naming the problem and
the fix); 3 a solver failed; 1 an internal error; 130 interrupted (Ctrl-C); 143 and 129 stopped by
SIGTERM or SIGHUP. ``--debug`` also prints the traceback and keeps the exit code; ``--quiet``
silences progress bars and notes.

SIGTERM and SIGHUP take the path of Ctrl-C (:class:`Stopped` is a ``KeyboardInterrupt``): the
running step stops, partial results are saved where a command saves them on Ctrl-C, and the
worker processes are killed, so none outlives the command holding its output pipes open. A command
that does not stop within :data:`STOP_GRACE` seconds (a solve in this process that does not return
to Python), or a second signal, ends it at once, after killing its workers.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
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
      130  interrupted (Ctrl-C)
      143  stopped by SIGTERM, 129 by SIGHUP (worker processes are stopped too)
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


#: Signals that stop a command as Ctrl-C does (exit code 128 + the signal's number).
STOP_SIGNALS = tuple(sig for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
                     if sig is not None)

#: Seconds a stopped command has to end on its own before it is ended at once (its workers killed).
STOP_GRACE = 8.0

#: OSError numbers that mean a write the system refused for lack of room or a read-only disk.
DISK_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EROFS", "EFBIG") if hasattr(errno, name))


class Stopped(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM or SIGHUP arrives: the path of Ctrl-C, with its own exit code.

    Parameters
    ----------
    signum : int
        The signal's number.

    Examples
    --------
    >>> import signal
    >>> stop = Stopped(signal.SIGTERM)
    >>> isinstance(stop, KeyboardInterrupt), stop.exit_code, str(stop)
    (True, 143, 'stopped by SIGTERM')
    """

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(f"stopped by {signal.Signals(self.signum).name}")

    @property
    def exit_code(self) -> int:
        """``128 +`` the signal's number, as a shell reports a process a signal ended."""
        return 128 + self.signum


def _hard_stop(signum: int, why: str) -> None:
    """End the process now (from the watchdog thread): kill the workers, one line, exit 128 + signal."""
    from fairprobe.core.workers import kill_processes, stop_local_workers

    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None) if module is not None else None
    kill_processes(list(getattr(executor, "_processes", None) or {}))  # by process id: no lock to wait for
    with contextlib.suppress(Exception):
        stop_local_workers(wait=False)
    with contextlib.suppress(Exception):
        os.write(2, f"stopped by {signal.Signals(signum).name} ({why})\n".encode())
    os._exit(128 + signum)


@contextlib.contextmanager
def stop_on_signals(grace: float = STOP_GRACE) -> Iterator[None]:
    """Inside the block, SIGTERM and SIGHUP raise :class:`Stopped` in the main thread, as Ctrl-C raises
    ``KeyboardInterrupt``; the previous handlers come back when it ends.

    A signal ignored when the block starts (``nohup``) stays ignored. A watchdog thread, woken by
    the signal itself (``signal.set_wakeup_fd``), ends the process after ``grace`` seconds, or at
    a second signal, if the main thread has not finished by then: Python runs a handler only
    between bytecodes, so a long solve in this process would otherwise hold the stop back.

    Parameters
    ----------
    grace : float
        Seconds the command has to stop on its own.

    Yields
    ------
    None

    Examples
    --------
    >>> import os, signal
    >>> try:
    ...     with stop_on_signals():
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ...         for _ in range(1000):
    ...             pass
    ... except Stopped as stop:
    ...     print(stop.exit_code)
    143
    """
    if threading.current_thread() is not threading.main_thread() or not STOP_SIGNALS:
        yield  # handlers can only be set in the main thread
        return
    stopped: list[int] = []

    def handler(signum: int, _frame: Any) -> None:
        if stopped:  # being stopped already: the watchdog ends the process at a second signal
            return
        stopped.append(signum)
        raise Stopped(signum)

    previous = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, handler)
    watchdog = _start_watchdog(set(previous), grace)
    try:
        yield
    finally:
        if watchdog is not None:
            watchdog()
        for sig, old in previous.items():
            signal.signal(sig, old)


def _start_watchdog(signals: set[int], grace: float) -> Any:
    """A thread woken by each signal through ``signal.set_wakeup_fd``; returns the function that ends it."""
    import socket

    if not signals:
        return None
    try:
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except (OSError, ValueError):  # no socket pair here: handlers only
        return None
    if old_fd != -1:  # someone else (an event loop) listens: leave it theirs
        signal.set_wakeup_fd(old_fd)
        reader.close()
        writer.close()
        return None

    def watch() -> None:
        first: int | None = None
        deadline = None
        while True:
            reader.settimeout(None if deadline is None else max(0.0, deadline - time.monotonic()))
            try:
                data = reader.recv(64)
            except TimeoutError:
                _hard_stop(first or signal.SIGTERM, f"it did not stop within {grace:g} s")
                return
            except OSError:
                return
            if not data:  # the command ended: the block closed the socket
                return
            for signum in data:
                if signum not in signals:
                    continue  # Ctrl-C and other handled signals: not ours to time
                if first is not None:
                    _hard_stop(first, "second signal")
                    return
                first, deadline = signum, time.monotonic() + grace

    thread = threading.Thread(target=watch, name="fairprobe-stop-watchdog", daemon=True)
    thread.start()

    def finish() -> None:
        signal.set_wakeup_fd(-1)
        writer.close()
        thread.join(timeout=1.0)
        reader.close()

    return finish


def _ignore_late_signals() -> None:
    """After the command has ended (its result printed, its exit code set), the interpreter only shuts
    joblib's idle workers and resource tracker down, about half a second. A TERM, HUP or Ctrl-C then is
    ignored instead of cutting that clean-up short: the default action would leave loky's semaphores
    and shared-memory folders behind (TERM, HUP) or print a traceback (Ctrl-C)."""
    for sig in (*STOP_SIGNALS, signal.SIGINT):
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_IGN)


#: The warning filter the console script gives its child processes: joblib's resource tracker warns of the
#: semaphores and folders of workers that a stop (Ctrl-C, SIGTERM, SIGHUP) killed, after the command's last line.
TRACKER_FILTER = "ignore:resource_tracker:UserWarning"


def quiet_resource_tracker(environ: Any) -> None:
    """Add :data:`TRACKER_FILTER` to ``PYTHONWARNINGS`` in ``environ`` (read by child processes as they start).

    Parameters
    ----------
    environ : mutable mapping
        ``os.environ`` for the console script.

    Examples
    --------
    >>> env = {"PYTHONWARNINGS": "error::DeprecationWarning"}
    >>> quiet_resource_tracker(env); quiet_resource_tracker(env)
    >>> env["PYTHONWARNINGS"]
    'error::DeprecationWarning,ignore:resource_tracker:UserWarning'
    """
    filters = [f for f in environ.get("PYTHONWARNINGS", "").split(",") if f]
    if TRACKER_FILTER not in filters:
        environ["PYTHONWARNINGS"] = ",".join([*filters, TRACKER_FILTER])


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``fairprobe`` console script.

    Parameters
    ----------
    argv : list of str, optional
        Arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    None
        Exits with code 2 (bad input), 3 (solver failure), 1 (internal error), 130
        (interrupted) or 128 + the signal's number (SIGTERM, SIGHUP) on failure, printing one line
        on standard error.

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
    console = argv is None  # the console script, not a caller in this process (whose handlers stay theirs)
    if console:
        quiet_resource_tracker(os.environ)
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        _run(argv, debug)
    finally:
        if console and threading.current_thread() is threading.main_thread():
            _ignore_late_signals()


def _run(argv: list[str], debug: bool) -> None:
    """The command, with every way it can end turned into one line and an exit code (see :func:`main`)."""
    try:
        with stop_on_signals():
            try:
                cli.main(args=argv, prog_name="fairprobe", standalone_mode=False)
            except (KeyboardInterrupt, click.exceptions.Abort):
                from fairprobe.core.workers import stop_local_workers

                stop_local_workers()  # Ctrl-C, TERM or HUP: no worker outlives the command
                raise
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:  # a bad choice, a value of the wrong type, a missing option: one line
        click.echo(f"error: {usage_line(exc)}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        # click turns KeyboardInterrupt (and Stopped, a KeyboardInterrupt) into Abort, its cause
        cause = exc if isinstance(exc, KeyboardInterrupt) else exc.__cause__
        if isinstance(cause, Stopped):
            click.echo(str(cause), err=True)
            sys.exit(cause.exit_code)
        click.echo("interrupted" if isinstance(cause, KeyboardInterrupt) or isinstance(exc, KeyboardInterrupt)
                   else "aborted", err=True)
        sys.exit(130)
    except FairprobeError as exc:
        if debug:  # the traceback as well, but the same exit code: --debug never changes it
            traceback.print_exc()
        click.echo(f"error: {exc}", err=True)
        sys.exit(3 if isinstance(exc, SOLVER_ERRORS) else 2)
    except OSError as exc:
        if debug:
            traceback.print_exc()
        if exc.errno not in DISK_ERRNOS:
            _internal_error(exc, debug)
        from fairprobe.reporting.folders import write_fix

        # a writer without its own check (a plugin's): still one line naming the file and the fix
        where = f" {exc.filename}" if exc.filename else ""
        click.echo(f"error: Cannot write{where}: {exc.strerror or exc}; {write_fix(exc.errno)} or choose another "
                   "output path (--out, --plot, --csv).", err=True)
        sys.exit(2)
    except Exception as exc:  # an unexpected failure: one line, the traceback only on request
        if debug:
            traceback.print_exc()
        _internal_error(exc, debug)


def usage_line(exc: click.UsageError) -> str:
    """Click's usage error as one line: its message (a bad choice names the choices) and where the help is.

    Parameters
    ----------
    exc : click.UsageError

    Returns
    -------
    str

    Examples
    --------
    >>> import click
    >>> from fairprobe.cli.main import cli
    >>> ctx = click.Context(click.Command("bound"), info_name="bound", parent=click.Context(cli, info_name="fairprobe"))
    >>> choice = click.Choice(["bootstrap", "projection", "bayes"])
    >>> option = click.Option(["--ci-method"], type=choice)
    >>> try:
    ...     choice.convert("jackknife", option, ctx)
    ... except click.BadParameter as err:
    ...     err.ctx, err.param = ctx, option
    ...     print(usage_line(err))  # doctest: +NORMALIZE_WHITESPACE
    Invalid value for '--ci-method': 'jackknife' is not one of 'bootstrap', 'projection', 'bayes'.
    See 'fairprobe bound --help'.
    """
    message = " ".join(line.strip() for line in exc.format_message().splitlines() if line.strip())
    if exc.ctx is not None:
        message += f" See '{exc.ctx.command_path} --help'."
    return message


def _internal_error(exc: BaseException, debug: bool) -> None:
    click.echo(f"internal error: {type(exc).__name__}: {exc}"
               + ("" if debug else " (rerun with --debug for the traceback)"), err=True)
    sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()

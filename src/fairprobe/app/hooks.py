"""Registers the ``fairprobe app`` command (Streamlit is imported only by the started server)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
import time
import urllib.request
import webbrowser
from typing import Any

import click

from fairprobe.exceptions import ConfigError
from fairprobe.hookspecs import hookimpl

__all__ = ["app_command", "fairprobe_add_cli_commands", "run_server", "streamlit_available"]

INSTALL_HINT = 'pip install "fairprobe[app]"'


def streamlit_available() -> bool:
    """Whether Streamlit can be imported (checked without importing it).

    Returns
    -------
    bool
        True when the ``streamlit`` package is installed.

    Examples
    --------
    >>> isinstance(streamlit_available(), bool)
    True
    """
    return importlib.util.find_spec("streamlit") is not None


def _open_when_ready(url: str, timeout: float = 60.0) -> None:
    """Open ``url`` in the browser once the server's health endpoint answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as resp:
                if resp.status == 200:
                    webbrowser.open(url)
                    return
        except OSError:
            time.sleep(0.3)


@click.command("app")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind (the default serves this machine only).")
@click.option("--port", default=8501, show_default=True, type=click.IntRange(1, 65535), help="Port to serve on.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser tab.")
@click.option("--max-upload-mb", default=50, show_default=True, type=click.IntRange(1, 2000),
              help="Largest upload the server accepts, in MB.")
def app_command(host: str, port: int, no_browser: bool, max_upload_mb: int) -> None:
    """Start the fairprobe web app (Streamlit) on http://HOST:PORT.

    \b
    Example:
      fairprobe app                       # http://127.0.0.1:8501, opens the browser
      fairprobe app --port 8600 --no-browser
    """
    if not streamlit_available():
        raise ConfigError(f"fairprobe app needs Streamlit, which is not installed; {INSTALL_HINT}")
    from fairprobe.app.logic import streamlit_command

    cmd = streamlit_command(host=host, port=port, max_upload_mb=max_upload_mb)
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    click.echo(f"fairprobe app: serving on {url} (Ctrl+C stops it)", err=True)
    if not no_browser:
        threading.Thread(target=_open_when_ready, args=(url,), daemon=True).start()
    sys.exit(run_server(cmd))


def run_server(cmd: list[str]) -> int:
    """Run the Streamlit server ``cmd`` and stop it when this process is told to stop.

    ``kill -TERM``, ``kill -HUP`` or Ctrl+C on ``fairprobe app`` stop the server too (a plain
    ``subprocess.call`` left it running, orphaned, on its port): the signal is passed on, the
    server gets five seconds to exit, then it is killed.

    Parameters
    ----------
    cmd : list of str
        The server's command line (:func:`fairprobe.app.logic.streamlit_command`).

    Returns
    -------
    int
        The exit code: the server's own, or 128 + the signal's number when stopped by one.

    Examples
    --------
    >>> import sys
    >>> run_server([sys.executable, "-c", "raise SystemExit(3)"])
    3
    """
    import signal

    proc = subprocess.Popen(cmd)
    stopped: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        stopped.append(signum)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)

    handled = [getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)]
    previous = {sig: signal.signal(sig, stop) for sig in handled}
    try:
        while True:
            try:
                rc = proc.wait(timeout=5 if stopped else None)
                break
            except subprocess.TimeoutExpired:  # asked to stop and did not: no orphan on the port
                proc.kill()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 + stopped[0] if stopped else rc


@hookimpl
def fairprobe_add_cli_commands(cli: Any) -> None:
    """Add ``fairprobe app`` to the command line.

    Parameters
    ----------
    cli : click.Group
        The ``fairprobe`` root group.

    Examples
    --------
    >>> import click
    >>> group = click.Group("fairprobe")
    >>> fairprobe_add_cli_commands(group)
    >>> "app" in group.commands
    True
    """
    cli.add_command(app_command)

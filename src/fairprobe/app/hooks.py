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

__all__ = ["app_command", "fairprobe_add_cli_commands", "streamlit_available"]

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
    try:
        rc = subprocess.call(cmd)
    except KeyboardInterrupt:
        rc = 130
    sys.exit(rc)


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

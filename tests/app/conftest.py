"""Fixtures of the app tests: the Streamlit script, and a live server for the browser tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairprobe.app import SCRIPT

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "app"


def chromium_path() -> str | None:
    """The system Chromium, if any."""
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, timeout: float = 90.0) -> tuple[subprocess.Popen, float]:
    """Start ``streamlit run`` on ``port``; return the process and the seconds until /_stcore/health answered."""
    from fairprobe.app.logic import streamlit_command

    env = {**os.environ, "FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD": "1", "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    proc = subprocess.Popen(streamlit_command(port=port), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/_stcore/health"
    while time.perf_counter() - start < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return proc, time.perf_counter() - start
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("streamlit did not answer within the timeout")


@pytest.fixture(scope="module")
def app_server() -> Iterator[str]:
    """A Streamlit server of the app on a free port (killed after the module)."""
    port = free_port()
    proc, _ = start_server(port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def app_test():
    """A fresh AppTest of the script (no browser)."""
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(SCRIPT), default_timeout=180)


__all__ = ["SCREENSHOTS", "chromium_path", "free_port", "start_server", "sys"]

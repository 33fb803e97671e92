"""``fairprobe app`` stops its Streamlit server when it is told to stop (TERM, INT, HUP)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.app.conftest import free_port


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as resp:
            return resp.status == 200
    except OSError:
        return False


def _port_free(port: int) -> bool:
    """Nothing listens on the port (a connection is refused); TIME_WAIT of old connections does not count."""
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"])
def test_signal_stops_the_server(signum: int) -> None:
    pytest.importorskip("streamlit", reason='the app needs Streamlit (pip install "fairprobe[app]")')
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "fairprobe.cli", "app", "--port", str(port), "--no-browser"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not _answers(port):
            assert proc.poll() is None, "fairprobe app exited before serving"
            assert time.monotonic() < deadline, "the server did not answer within 90 s"
            time.sleep(0.3)
        os.kill(proc.pid, signum)  # only the fairprobe process, as `kill -TERM <pid>` does
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not _port_free(port):
            assert time.monotonic() < deadline, "the Streamlit server is still on the port 5 s after the signal"
            time.sleep(0.1)
        assert proc.returncode == 128 + signum
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the group, if the test failed
        except ProcessLookupError:
            pass

"""TERM and HUP stop a parallel command as Ctrl-C does: exit 128 + signal, no worker left holding the pipes.

The command runs in its own session; after the signal every process of that session (the loky
workers, their resource tracker) must be gone, and ``communicate()`` must return (an orphaned worker
holds the output pipes open, so ``| cat`` or a CI log would never end).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import default_signals, session_processes, write_compas_predictions

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")

SPEC = """\
name: signal study
datasets: [{name: german, subsample: 300}]
classifiers: [naive_bayes, decision_tree]
constraints: [none, ppv_parity]
metrics: [fpr_parity, ppv_parity, equalized_odds]
biases: [proxy_label, selection]
D: [0.01, 0.03, 0.05, 0.07, 0.09]
"""


@pytest.fixture(scope="module")
def preds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_compas_predictions(tmp_path_factory.mktemp("signals"))


def stop_while_working(args: list[str], signum: int, cwd: Path, workers: int = 2) -> tuple[int, str]:
    """Start ``fairprobe *args`` in a new session, send ``signum`` once its workers run; (exit code, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "fairprobe.cli", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=default_signals)
    try:
        deadline = time.monotonic() + 240
        while len(session_processes(proc.pid)) < 1 + workers:  # the command and its workers
            assert proc.poll() is None, f"the command ended before its workers started: {proc.communicate()}"
            assert time.monotonic() < deadline, "no worker processes within 240 s"
            time.sleep(0.1)
        time.sleep(1.0)  # the workers are busy
        assert proc.poll() is None, "the command ended before the signal"
        os.kill(proc.pid, signum)  # only the fairprobe process, as `kill -TERM <pid>` does
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"communicate() did not return 60 s after the signal; left: {session_processes(proc.pid)}")
        deadline = time.monotonic() + 10
        while (left := session_processes(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not left, f"processes of the command's session still alive 10 s after it ended: {left}"
        return proc.returncode, err
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the group, if the test failed
        except (ProcessLookupError, PermissionError):
            pass
        for pid in session_processes(proc.pid):  # a worker that left the group but not the session
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


SIGNALS = pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"])
def test_a_signal_stops_a_parallel_sweep_and_its_workers(preds: Path, tmp_path: Path, signum: int) -> None:
    rc, err = stop_while_working(["sweep", "--bias", "selection", "--metric", "equalized_odds", "--data", str(preds),
                                  "--columns", "A=race,Y=recid,P=pred", "--groups", "African-American,Caucasian",
                                  "--D", "0:0.1:4000", "--jobs", "2"], signum, tmp_path)
    assert rc == 128 + signum, err
    assert "Traceback" not in err
    last = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    assert err.strip().splitlines()[-1] == last


@SIGNALS
def test_a_signal_stops_a_parallel_confidence_interval(preds: Path, tmp_path: Path, signum: int) -> None:
    rc, err = stop_while_working(["bound", "--bias", "selection", "--metric", "equalized_odds", "--data", str(preds),
                                  "--columns", "A=race,Y=recid,P=pred", "--groups", "African-American,Caucasian",
                                  "--D", "0.05", "--ci", "0.95", "--resamples", "20000", "--jobs", "2"],
                                 signum, tmp_path)
    assert rc == 128 + signum, err
    assert "Traceback" not in err


@SIGNALS
def test_a_signal_stops_a_parallel_study(tmp_path: Path, signum: int) -> None:
    (tmp_path / "s.yaml").write_text(SPEC)
    rc, err = stop_while_working(["study", "s.yaml", "--out", "res", "--no-report", "--jobs", "2"], signum, tmp_path)
    assert rc == 128 + signum, err
    assert "Traceback" not in err and "run the same command again to resume" in err

"""Fuzz: TERM, HUP and INT at random moments of a parallel command (``sweep``/``bound --ci`` with two workers).

The command runs in a session of its own; the signal goes to the fairprobe process alone (as
``kill -TERM <pid>`` does) at a random moment: while the interpreter starts, once its workers run,
or once it has printed its result (it is ending, or has ended). The oracle:

* the exit code is 0 when the command finished first (no traceback), else the conventional 128 +
  signal (130 INT, 143 TERM, 129 HUP) with one last line naming the signal and no traceback; a
  signal sent in the first moments may also kill the interpreter as it starts, before fairprobe
  runs (the system's default: ``-signal`` here, 128 + signal in a shell);
* the output pipes close (no orphaned worker holds them);
* no process of the command's session is left, checked by PID in ``/proc`` (session ids).

Each case starts a command and its workers: the default run draws two; ``--hypothesis-profile=long`` more.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.fuzz.oracle import TALLY, confirmed, examples
from tests.processes import default_signals, session_processes, write_compas_predictions

pytestmark = [pytest.mark.fuzz,
              pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")]

COMMON = ["--data", "{data}", "--columns", "A=race,Y=recid,P=pred", "--groups", "African-American,Caucasian",
          "--jobs", "2"]
COMMANDS = {
    "sweep": ["sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--D", "0:0.1:8", *COMMON],
    "bound --ci": ["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--D", "0.05", "--ci", "0.95",
                   "--resamples", "40", *COMMON],
}
WORKERS = 2


@pytest.fixture(scope="module")
def preds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_compas_predictions(tmp_path_factory.mktemp("fuzz-signals"))


def _clean_up(sid: int) -> None:
    """Kill what is left of the session this test started (a failing case), by PID."""
    try:
        os.killpg(sid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in session_processes(sid):  # a worker that left the group but not the session
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _reader(stream, lines: list[str], first: threading.Event | None = None) -> threading.Thread:
    """A thread collecting ``stream``'s lines (and setting ``first`` at the first one) until it closes."""

    def read() -> None:
        for line in stream:
            lines.append(line)
            if first is not None:
                first.set()
        if first is not None:
            first.set()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@settings(max_examples=examples(2, 24))
# found by this test: a signal while the command exits, after its result is printed (TERM/HUP: killed by the signal
# itself, exit -15/-1, no line; INT: a KeyboardInterrupt traceback from threading._shutdown, exit 0)
@example(command="sweep", signum=signal.SIGTERM, moment="exiting", delay=0.3)
@given(command=st.sampled_from(sorted(COMMANDS)),
       signum=st.sampled_from([signal.SIGTERM, signal.SIGHUP, signal.SIGINT]),
       moment=st.sampled_from(["starting", "working", "working", "exiting"]),
       delay=st.floats(min_value=0.0, max_value=1.0))
def test_a_signal_at_a_random_moment(preds: Path, command: str, signum: int, moment: str, delay: float) -> None:
    argv = [a.replace("{data}", str(preds)) for a in COMMANDS[command]]
    proc = subprocess.Popen([sys.executable, "-m", "fairprobe.cli", *argv], cwd=preds.parent, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=default_signals)
    out: list[str] = []
    err: list[str] = []
    printed = threading.Event()
    readers = [_reader(proc.stdout, out, printed), _reader(proc.stderr, err)]
    sent = False
    try:
        deadline = time.monotonic() + 240
        if moment == "starting":  # while the interpreter starts and fairprobe reads its data
            time.sleep(delay * 1.5)
        elif moment == "working":  # once the command and its workers run, then a while longer
            while proc.poll() is None and len(session_processes(proc.pid)) < 1 + WORKERS:
                assert time.monotonic() < deadline, "no worker processes within 240 s"
                time.sleep(0.05)
            time.sleep(delay * 1.5)
        else:  # once the result is printed: the command is ending
            assert printed.wait(240), "no output within 240 s"
            time.sleep(delay * 0.3)
        if proc.poll() is None:
            os.kill(proc.pid, signum)  # only the fairprobe process, as `kill -TERM <pid>` does
            sent = True
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the command did not end 90 s after {signal.Signals(signum).name}; "
                        f"left: {session_processes(proc.pid)}")
        for thread in readers:  # an orphaned worker would hold the pipes open
            thread.join(timeout=30)
            assert not thread.is_alive(), f"the output pipes stay open; left: {session_processes(proc.pid)}"
        deadline = time.monotonic() + 10
        while (left := session_processes(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not left, f"processes of the command's session alive 10 s after it ended: {left}"
        rc, name, text = proc.returncode, signal.Signals(signum).name, "".join(err)
        context = f"{name} {moment} (+{delay:.2f}): exit {rc}; {text[-800:]}"
        if rc == 0:
            assert "".join(out).strip() and "Traceback" not in text, context
            confirmed()
            return
        assert sent, f"exit {rc} without a signal: {text[-800:]}"
        if rc == -signum and moment == "starting":  # killed while the interpreter started, before fairprobe ran
            TALLY["error"] += 1
            return
        assert rc == 128 + signum, context
        assert "Traceback" not in text, context
        last = text.strip().splitlines()[-1] if text.strip() else ""
        assert last == ("interrupted" if signum == signal.SIGINT else f"stopped by {name}"), context
        TALLY["error"] += 1
    finally:
        _clean_up(proc.pid)

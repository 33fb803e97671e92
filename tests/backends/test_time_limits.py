"""Time-limit checks that do not depend on how busy the machine is.

A test run on a loaded machine (or beside other test workers) gets a share of the cores: a solve
that stops at its 1 s limit may take 7 s of wall-clock time there, although it used well under
a second of CPU. :class:`fairprobe.testing.Stopwatch` counts the smaller of the two, so a limit
that is respected passes on any machine and a limit that is ignored (the solve runs on, using
the CPU) fails on every machine. The wall-clock figures of idle machines are in
``benchmarks/time_limits.py``.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from fairprobe.backends.base import SolveOptions
from fairprobe.testing import Stopwatch, check_time_limit


def busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_block_that_waits_counts_its_cpu_time() -> None:
    """Waiting for a core (here: sleeping) is not time the block used."""
    with Stopwatch() as watch:
        time.sleep(1.0)
    assert watch.wall >= 1.0 and watch.cpu < 0.5 and watch.seconds == watch.cpu


def test_a_block_that_computes_counts_its_time() -> None:
    with Stopwatch() as watch:
        busy(0.6)
    assert watch.cpu >= 0.6 and watch.seconds >= 0.6 - 1e-3


class StoppedOften:
    """The test process is paused 3/4 of the time (SIGSTOP/SIGCONT from a child), as on a loaded machine."""

    def __enter__(self) -> StoppedOften:
        import subprocess
        import sys

        script = ("import os, signal, sys, time\npid = int(sys.argv[1])\nwhile True:\n"
                  "    os.kill(pid, signal.SIGSTOP); time.sleep(0.3); os.kill(pid, signal.SIGCONT); time.sleep(0.1)\n")
        self.proc = subprocess.Popen([sys.executable, "-c", script, str(os.getpid())])
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()
        os.kill(os.getpid(), signal.SIGCONT)


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="pauses the process with SIGSTOP")
def test_a_respected_limit_passes_on_a_loaded_machine() -> None:
    """The solve of a backend that stops at its limit, with the process held back 3/4 of the time."""
    from fairprobe.backends.scip import ScipBackend
    from fairprobe.testing import hard_standard_quadratic

    backend = ScipBackend()
    if not backend.availability():
        pytest.skip("SCIP is not installed")
    with StoppedOften():
        check_time_limit(backend, hard_standard_quadratic(), time_limit=1.0, slack=3.0)


def test_an_ignored_limit_fails_on_any_machine() -> None:
    class Stubborn:
        name = "stubborn"

        def solve(self, program, options=None):
            from fairprobe.backends.base import SolveResult, Termination

            busy(2.0)  # a solve that does not look at its time limit
            return SolveResult(Termination.OPTIMAL, 0.0, solver="stubborn", sense="min")

    with pytest.raises(AssertionError, match=r"stubborn took .* at a 0\.5 s limit"):
        check_time_limit(Stubborn(), None, time_limit=0.5, slack=0.5)


def test_options_are_passed() -> None:
    seen = []

    class Quick:
        name = "quick"

        def solve(self, program, options=None):
            from fairprobe.backends.base import SolveResult, Termination

            seen.append(options)
            return SolveResult(Termination.OPTIMAL, 0.0, solver="quick", sense="min")

    check_time_limit(Quick(), None, time_limit=0.5, options=SolveOptions(rel_gap=1e-3))
    assert seen[0].time_limit == 0.5 and seen[0].rel_gap == 1e-3

"""The fuzz suite (every module sets ``pytestmark = pytest.mark.fuzz``): the run ends with the tally of
its cases."""

from __future__ import annotations

import pytest

from tests.fuzz.oracle import TALLY


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    total = TALLY["error"] + TALLY["confirmed"]
    if total:
        failed = [r for r in terminalreporter.stats.get("failed", []) if "tests/fuzz/" in r.nodeid]
        terminalreporter.write_line(
            f"fuzz: {total} generated cases: {TALLY['error']} fairprobe errors naming the problem, "
            f"{TALLY['confirmed']} numbers confirmed independently; {len(failed)} failing fuzz test(s) "
            "(a raw traceback or an unconfirmed number fails its test)")

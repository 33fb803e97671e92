"""The shared shape of the table-driven bad-input suites.

Each suite module lists :class:`Case` rows; :func:`check` runs one. A case passes when the call
raises the expected :class:`~fairprobe.exceptions.FairprobeError` subclass and the message names
the problem (``problem``) and a fix (``fix``), both regular expressions searched case-insensitively.
Messages seen are collected in :data:`MESSAGES` so a run can report how many are distinct.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from fairprobe.exceptions import FairprobeError

MESSAGES: dict[str, str] = {}


@dataclass(frozen=True)
class Case:
    """One bad input: ``call()`` must raise ``error`` with a message matching ``problem`` and ``fix``."""

    id: str
    call: Callable[[], object]
    error: type[FairprobeError]
    problem: str
    fix: str = ""


def check(case: Case) -> str:
    """Run ``case`` and return the message it raised (failing the test otherwise)."""
    assert issubclass(case.error, FairprobeError), f"{case.id}: expected error must be a FairprobeError"
    with pytest.raises(FairprobeError) as info:
        case.call()
    exc = info.value
    message = str(exc)
    assert isinstance(exc, case.error), f"{case.id}: raised {type(exc).__name__}: {message}"
    assert re.search(case.problem, message, flags=re.I), f"{case.id}: problem {case.problem!r} not in {message!r}"
    if case.fix:
        assert re.search(case.fix, message, flags=re.I), f"{case.id}: fix {case.fix!r} not in {message!r}"
    MESSAGES[case.id] = message
    return message


def params(cases: list[Case]) -> list:
    """``cases`` as pytest parameters with readable ids."""
    ids = [c.id for c in cases]
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes, f"duplicate case ids: {sorted(dupes)}"
    return [pytest.param(c, id=c.id) for c in cases]


@dataclass(frozen=True)
class CliCase:
    """One bad command line: exit code 2 and one stderr line matching ``problem`` and ``fix``."""

    id: str
    argv: tuple[str, ...]
    problem: str
    fix: str = ""


def run_cli(argv: list[str] | tuple[str, ...], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    """Run the ``fairprobe`` command line in this process: (exit code, stdout, stderr)."""
    from fairprobe.cli import main

    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out = capsys.readouterr()
    return code, out.out, out.err


def check_cli(case: CliCase, capsys: pytest.CaptureFixture, folder: object = None) -> str:
    """Run ``case`` in process; it must exit 2 with one line on stderr naming the problem and a fix.

    ``{d}`` in the arguments stands for ``folder``, the module's folder of fixture files.
    """
    argv = tuple(a.replace("{d}", str(folder)) for a in case.argv) if folder is not None else case.argv
    code, _, err = run_cli(argv, capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2, f"{case.id}: exit {code}, stderr {err!r}"
    assert "Traceback" not in err and "internal error" not in err, f"{case.id}: {err!r}"
    assert len(lines) == 1 or lines[0].startswith("Usage:"), f"{case.id}: more than one line: {err!r}"
    assert re.search(case.problem, err, flags=re.I), f"{case.id}: problem {case.problem!r} not in {err!r}"
    if case.fix:
        assert re.search(case.fix, err, flags=re.I), f"{case.id}: fix {case.fix!r} not in {err!r}"
    MESSAGES[case.id] = err.strip()
    return err

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

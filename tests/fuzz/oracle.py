"""The fuzz suite's oracle and its tally.

Every generated case ends in one of two ways, and :func:`outcome` tells which: a
:class:`~fairprobe.exceptions.FairprobeError` whose message names the problem, or a value the test
then confirms by an independent computation (pandas on the raw rows, interval arithmetic, a
direct topological sort). Any other exception propagates and fails the case: a raw traceback.
:data:`TALLY` counts the cases of a run; the suite's ``conftest.py`` prints it at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from fairprobe.exceptions import FairprobeError

#: cases by outcome: "error" (a fairprobe error), "confirmed" (a number checked independently)
TALLY: Counter[str] = Counter()


def outcome(call: Callable[[], Any]) -> tuple[Any, FairprobeError | None]:
    """``(value, None)`` when ``call`` returns, ``(None, error)`` for a fairprobe error.

    The message of an error must say something (at least a short sentence); any exception that is
    not a fairprobe error is re-raised: hypothesis reports it as a failing, shrunk case.
    """
    try:
        value = call()
    except FairprobeError as exc:
        message = str(exc).strip()
        assert len(message) >= 20, f"{type(exc).__name__} with an empty or cryptic message: {message!r}"
        assert "Traceback" not in message
        TALLY["error"] += 1
        return None, exc
    return value, None


def examples(default: int, long: int | None = None) -> int:
    """The number of cases of a test too slow for the profile's budget: at most ``default`` in the default
    run, ``long`` (else the profile's own budget) under ``--hypothesis-profile=long``."""
    from hypothesis import settings

    current = settings.default.max_examples
    if current <= settings.get_profile("default").max_examples:
        return min(default, current)
    return current if long is None else long


def confirmed() -> None:
    """Count a case whose number an independent computation confirmed."""
    TALLY["confirmed"] += 1

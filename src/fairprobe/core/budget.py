"""One time budget for a whole bound: every solve of a call shares it, and a long call says so.

A certified bound takes several solves (definedness checks, both senses, pairs of a max-of-ranges
metric); a limit per solve would multiply. :class:`TimeBudget` wraps a backend so that each solve
gets what is left of one budget (at least :data:`MIN_SOLVE_SECONDS`, so a late solve still returns
its certified, possibly wide, bound), and :func:`reporting_progress` prints a status line every
few seconds while a call runs long.

Examples
--------
>>> from fairprobe.core.registry import get_backend
>>> budget = TimeBudget(get_backend("scip"), 30.0)
>>> budget.name, 0 < budget.left() <= 30.0
('scip', True)
>>> TimeBudget(get_backend("scip"), None).left() is None
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

from fairprobe.backends.base import Limit, SolveOptions, SolveResult, Termination
from fairprobe.core.progress import progress_shown, status

__all__ = ["DEFAULT_TIME_LIMIT", "MIN_SOLVE_SECONDS", "TimeBudget", "reporting_progress"]

#: Seconds a bound may take in all (every solve of one ``fp.bound`` call, or of one point of a sweep)
#: unless the caller sets ``time_limit``; ``time_limit=None`` removes the limit.
DEFAULT_TIME_LIMIT = 60.0

#: Seconds a solve is given once the budget is spent: enough for a backend to return the certified
#: bound it has (an LP finishes; a global solve stops at its root bound).
MIN_SOLVE_SECONDS = 0.05

#: Programs with more variables than this are not handed to a backend once the budget is spent
#: (building one can take seconds); they get the trivial certified bound (-inf for a minimum, +inf
#: for a maximum), which the result clips to the metric's range.
SKIP_ABOVE_VARIABLES = 2_000

#: Seconds before the first status line of a long call, and between lines.
FIRST_STATUS_AFTER = 5.0
STATUS_EVERY = 15.0


class TimeBudget:
    """A backend whose solves share one deadline.

    Parameters
    ----------
    backend : Backend
        The backend that solves.
    seconds : float or None
        The budget, from now; None for no limit (each solve keeps the caller's own limit).
    routed : bool, optional
        ``backend`` is the engine's :class:`~fairprobe.core.routing.Router`: the exact routes go through it.
        Default False: a plain backend, whose exact-route calls return None.

    Attributes
    ----------
    solves : int
        Solves started so far.
    stopped_early : bool
        Whether a solve was cut short by the budget (its limit was what was left).
    """

    def __init__(self, backend: Any, seconds: float | None, *, routed: bool = False) -> None:
        self.backend = backend
        # the exact routes exist only behind the router (a plain backend has none: those calls return None)
        self.router = backend if routed else None
        self.name = backend.name if backend is not None else ""
        self.seconds = seconds
        self.start = time.perf_counter()
        self.deadline = None if seconds is None else self.start + float(seconds)
        self.solves = 0
        self.stopped_early = False

    # the router's questions, False without a router (parameters as :meth:`ExactBackend.solves_exactly`)
    def solves_exactly(self, program: Any) -> bool:
        """Whether an exact backend solves ``program`` whole behind the router (:meth:`Router.solves_exactly`)."""
        return self.router is not None and self.router.solves_exactly(program)

    def exact(self, program: Any) -> bool:
        """Whether the router sends ``program`` to a backend with exact routes (:meth:`Router.exact_backend`)."""
        return self.router is not None and self.router.exact_backend(program) is not None

    def left(self) -> float | None:
        """Seconds left of the budget (None without one).

        Returns
        -------
        float or None
            ``deadline - now``, at least 0.
        """
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    def limit(self, options: Any, share: float = 1.0) -> Any:
        """``options`` with its time limit cut to (a share of) what is left of the budget.

        Parameters
        ----------
        options : SolveOptions
            The caller's options.
        share : float, optional
            The fraction of what is left this solve may use (0.5 for the first side of a bound).

        Returns
        -------
        SolveOptions
            The same options; ``time_limit`` is the smaller of its own and the budget's remainder
            (at least :data:`MIN_SOLVE_SECONDS`, or the whole budget when that is smaller).
        """
        left = self.left()
        if left is None:
            return options
        left = max(min(MIN_SOLVE_SECONDS, self.seconds), left * share)  # a budget below the floor is the floor
        if options.time_limit is not None and options.time_limit <= left:
            return options
        return dataclasses.replace(options, time_limit=left)

    def solve(self, program: Any, options: Any = None, share: float = 1.0) -> Any:
        """Solve ``program`` within (a share of) what is left of the budget.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional
            The caller's options.
        share : float, optional
            See :meth:`limit`.

        Returns
        -------
        SolveResult
            The backend's result (certified: a solve stopped at the deadline still bounds).
        """
        return self._one(self.backend.solve, program, options, share)

    def solve_global(self, program: Any, options: Any = None) -> Any:
        """:meth:`solve` by the chosen backend itself, past any exact route."""
        return self._one(self.router.solve_global if self.router is not None else self.backend.solve, program, options)

    def _one(self, solve: Any, program: Any, options: Any, share: float = 1.0) -> Any:
        self.solves += 1
        if self.left() == 0.0 and program.n_variables > SKIP_ABOVE_VARIABLES:
            self.stopped_early = True
            return SolveResult(Termination.LIMIT, -math.inf if program.sense == "min" else math.inf,
                               limit=Limit.TIME, solver=self.name, sense=program.sense,
                               message="not solved: the call's time budget was spent (trivial certified bound)")
        limited = self.limit(options or SolveOptions(), share)
        result = solve(program, limited)
        if result is None:  # an exact route that does not take the program: nothing was solved
            self.solves -= 1
            return None
        if result.limit is Limit.INTERRUPTED:
            # Ctrl-C that the solver caught (SCIP does): stop the whole call, not return a looser bound
            raise KeyboardInterrupt(f"the {self.name or 'solver'} solve was interrupted")
        if result.termination is Termination.LIMIT and limited is not options:
            self.stopped_early = True
        return result

    # the router's exact routes within the budget, as :class:`ExactBackend`'s (None where no route takes the program)
    def solve_parity(self, program: Any, options: Any = None, den_floors: Any = None) -> Any:
        """:meth:`ExactBackend.solve_parity` behind the router, as one solve within the budget (:meth:`solve`)."""
        if self.router is None:
            return None
        return self._one(functools.partial(self.router.solve_parity, den_floors=den_floors or None), program, options)

    def solve_parity_pair(self, program: Any, options: Any = None, den_floors: Any = None) -> tuple[Any, Any] | None:
        """:meth:`ExactBackend.solve_parity_pair` behind the router, within the budget."""
        if self.router is None:
            return None
        return self._pair(functools.partial(self.router.solve_parity_pair, den_floors=den_floors or None), program,
                          options)

    def solve_fractional_pair(self, program: Any, options: Any = None) -> tuple[Any, Any] | None:
        """:meth:`ExactBackend.solve_fractional_pair` behind the router, within the budget."""
        return None if self.router is None else self._pair(self.router.solve_fractional_pair, program, options)

    def verified_minima(self, program: Any, objectives: list, options: Any = None) -> list | None:
        """:meth:`ExactBackend.verified_minima` behind the router, within the budget."""
        if self.router is None:
            return None
        found = self.router.verified_minima(program, objectives, self.limit(options or SolveOptions()))
        if found is not None:
            self.solves += len(objectives)
        return found

    def _pair(self, pair: Any, program: Any, options: Any) -> tuple[Any, Any] | None:
        limited = self.limit(options or SolveOptions())
        results = pair(program, limited)
        if results is not None:
            self.solves += 2
            if limited is not options and any(r.termination is Termination.LIMIT for r in results):
                self.stopped_early = True
        return results

    def note_stopped(self, results: Any) -> None:
        """Record solves made outside :meth:`solve` (worker processes) that stopped at the budget.

        Parameters
        ----------
        results : iterable of SolveResult
            Their results.
        """
        results = list(results)
        if any(r.limit is Limit.INTERRUPTED for r in results):
            raise KeyboardInterrupt("a solve in a worker process was interrupted")
        self.solves += len(results)
        if self.deadline is not None and any(r.termination is Termination.LIMIT for r in results):
            self.stopped_early = True


@contextlib.contextmanager
def reporting_progress(what: str, budget: TimeBudget, *, disable: bool = False) -> Iterator[None]:
    """Status lines on standard error while a call runs past a few seconds.

    Parameters
    ----------
    what : str
        What is computed, e.g. ``"bounding fpr_parity (A: 0 vs 1)"``.
    budget : TimeBudget
        The call's budget (its solves and deadline are reported).
    disable : bool
        The caller's own switch (``progress=False`` of a sweep).

    Yields
    ------
    None
        Lines appear only where progress is shown (:func:`fairprobe.core.progress.progress_shown`).

    Examples
    --------
    >>> from fairprobe.core.registry import get_backend
    >>> with reporting_progress("bounding", TimeBudget(get_backend("scip"), 1.0)):
    ...     pass  # a short call prints nothing
    """
    if not progress_shown(disable):
        yield
        return
    done = threading.Event()

    def tick() -> None:
        wait = FIRST_STATUS_AFTER
        while not done.wait(wait):
            spent = time.perf_counter() - budget.start
            limit = (f" of the {budget.seconds:g} s limit (the bounds stay certified)"
                     if budget.seconds is not None else " (no time limit)")
            status(f"fairprobe: {what}: {spent:.0f} s{limit}, {budget.solves} solve(s) so far ...")
            wait = STATUS_EVERY

    thread = threading.Thread(target=tick, name="fairprobe-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=1.0)

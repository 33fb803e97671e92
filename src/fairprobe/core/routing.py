"""The one router of a bound's programs: the ``fairprobe_select_backend`` hook chooses, exact routes first.

:class:`Router` asks the hook which backend takes each program of a bound (range and Charnes-Cooper LPs,
definedness checks, the main program); :func:`fairprobe.backends.auto.choose_backend` is the built-in
answer (continuous programs to HiGHS first, verified by :mod:`fairprobe.program.safe_bounds`). A backend
with exact routes (:class:`~fairprobe.backends.base.ExactBackend`) solves an LP and is offered a nonconvex
program's exact search; a program it declines goes to the global solver the hook names without it.
With ``solver_options`` (or ``lp_fast_path=False``) the named backend takes every program. The engine's
global solves use the named profile ``"engine"`` (``SolveOptions.profiles``), which each backend maps.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Mapping
from typing import Any

from fairprobe.backends.base import Backend, ExactBackend, SolveOptions, SolveResult
from fairprobe.exceptions import BackendCapabilityError

__all__ = ["Router", "exact_lp_backend", "route_label"]


def route_label(result: SolveResult | None) -> str:
    """Who answered a solve, for a result's summary: ``"highs (LP, verified)"``, ``"scip"``, ...

    Parameters
    ----------
    result : SolveResult or None

    Returns
    -------
    str
        The solver's name, with the exact route the router took (``extra["route"]``) and whether the
        bound is verified (``extra["verified"]``) in brackets; ``""`` for None.

    Examples
    --------
    >>> from fairprobe.backends.base import SolveResult, Termination
    >>> route_label(SolveResult(Termination.OPTIMAL, 1.0, solver="highs", extra={"route": "LP", "verified": True}))
    'highs (LP, verified)'
    >>> route_label(SolveResult(Termination.OPTIMAL, 1.0, solver="scip"))
    'scip'
    """
    if result is None:
        return ""
    extra = result.extra or {}
    how = [extra["route"]] if extra.get("route") else []
    if extra.get("verified") is True:
        how.append("verified")
    return f"{result.solver or '?'} ({', '.join(how)})" if how else (result.solver or "?")


def exact_lp_backend(pm: Any = None) -> ExactBackend | None:
    """A usable registered backend with exact routes, for the engine's own small LPs (repairing a model).

    Parameters
    ----------
    pm : pluggy.PluginManager, optional
        Default: the process-wide one.

    Returns
    -------
    ExactBackend or None
        An instance of the first such backend in registration order (HiGHS among the built-ins, or the
        plugin that replaced it); None when none is usable.

    Examples
    --------
    >>> exact_lp_backend().name
    'highs'
    """
    from fairprobe.core.registry import registered

    for cls in registered("backends", pm).values():
        if issubclass(cls, ExactBackend) and cls.availability():
            return cls()
    return None


class Router:
    """Sends each program of a bound to the backend the ``fairprobe_select_backend`` hook chooses.

    Parameters
    ----------
    requested : str
        The backend the caller named (``"scip"``, ``"auto"``, a plugin's): the hook's ``requested``,
        and the backend that takes what the hook leaves (and everything when ``exact`` is False).
    exact : bool, optional
        Ask the hook per program and take the exact routes of the backends it chooses (default True);
        False sends every program to ``requested`` (the caller's solver options name its parameters).
    pm : pluggy.PluginManager, optional
        The plugin manager whose hook chooses (default: the process-wide one).

    Attributes
    ----------
    name : str
        The requested backend's name (a plugin that fixes ``"auto"`` to one backend: that one's).
    main : Backend
        The requested backend.
    lp_solves, two_ratio_solves, main_solves : int
        Programs solved by an exact backend's LP routes, by its parity search, and by the global solver.
    answered : collections.Counter
        Solves by who answered (:func:`route_label` without the verification note).

    Examples
    --------
    >>> from fairprobe.program.model import PolynomialProgram
    >>> router = Router("scip")
    >>> lp = PolynomialProgram.from_text("maximize\\n  x + y\\nsubject to\\n  x + y <= 1\\n"
    ...                                  "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> router.solve(lp).solver, router.name, router.lp_solves
    ('highs', 'scip', 1)
    """

    def __init__(self, requested: str, *, exact: bool = True, pm: Any = None) -> None:
        from fairprobe.core.registry import get_backend, get_plugin_manager, registered

        self.pm = pm if pm is not None else get_plugin_manager()
        self.requested = requested
        self.main = get_backend(requested, self.pm)
        self.name = self.main.name
        self.exact = exact
        classes = registered("backends", self.pm) if exact else {}
        self._classes = {n: cls for n, cls in classes.items() if n != requested and cls.availability()}
        self._available = sorted([*self._classes, requested])
        self._instances: dict[str, Backend] = {requested: self.main}
        self.lp_solves = self.two_ratio_solves = self.main_solves = 0
        self.answered: collections.Counter[str] = collections.Counter()

    # -- choosing -------------------------------------------------------------------------------
    def select(self, program: Any, exclude: frozenset[str] = frozenset()) -> Backend:
        """The backend the hook chooses for ``program`` (the requested one where it chooses none).

        Parameters
        ----------
        program : PolynomialProgram
        exclude : frozenset of str, optional
            Backends left out of ``available`` (one that declined the program's exact routes).

        Returns
        -------
        Backend
        """
        if not self.exact:
            return self.main
        available = [n for n in self._available if n not in exclude]
        chosen = self.pm.hook.fairprobe_select_backend(program=program, available=available,
                                                       requested=self.requested)
        if chosen is None or chosen not in available or chosen == self.requested:
            return self.main
        if chosen not in self._instances:
            self._instances[chosen] = self._classes[chosen]()
        return self._instances[chosen]

    def exact_backend(self, program: Any) -> ExactBackend | None:
        """The backend whose exact routes take ``program``, when the hook chooses one that has them.

        Parameters
        ----------
        program : PolynomialProgram

        Returns
        -------
        ExactBackend or None
        """
        be = self.select(program)
        return be if isinstance(be, ExactBackend) else None

    def solves_exactly(self, program: Any) -> bool:
        """Whether an exact backend solves ``program`` whole here (an LP, or a parity it searches).

        Parameters
        ----------
        program : PolynomialProgram

        Returns
        -------
        bool
        """
        be = self.exact_backend(program)
        return be is not None and be.solves_exactly(program)

    @staticmethod
    def is_lp(program: Any) -> bool:
        """Whether ``program`` is a continuous linear or linear-fractional program (no integers).

        Parameters
        ----------
        program : PolynomialProgram

        Returns
        -------
        bool

        Examples
        --------
        >>> from fairprobe.program.model import PolynomialProgram
        >>> Router.is_lp(PolynomialProgram.from_text("maximize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1"))
        False
        """
        return program.max_degree <= 1 and not program.has_integers

    # -- solving --------------------------------------------------------------------------------
    def solve(self, program: Any, options: SolveOptions | None = None) -> SolveResult:
        """Solve ``program`` by the chosen backend: an exact backend's LP or parity search, else globally.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional

        Returns
        -------
        SolveResult
        """
        be = self.select(program)
        if isinstance(be, ExactBackend):
            if self.is_lp(program):
                return self._answered(be.solve(program, options), "Charnes-Cooper LP" if program.is_fractional
                                      else "LP")
            res = be.solve_parity(program, options)
            if res is not None:
                return self._answered(res, "parity search")
            return self.solve_global(program, options, exclude=frozenset({be.name}))
        if be is self.main:
            return self.solve_global(program, options)
        try:
            return self._answered(be.solve(program, options), "")
        except BackendCapabilityError:  # (a plugin's backend under a built-in name may take less): the global solver
            return self.solve_global(program, options, exclude=frozenset({be.name}))

    def solve_global(self, program: Any, options: SolveOptions | None = None,
                     exclude: frozenset[str] = frozenset()) -> SolveResult:
        """Solve ``program`` by a global solver, past every exact route, with the engine's profile.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional
        exclude : frozenset of str, optional
            Backends that declined it (left out of the hook's choice).

        Returns
        -------
        SolveResult
        """
        self.main_solves += 1
        be = self.select(program, exclude | self._exact_names())
        if self.exact:  # the engine's own global solve (never with a caller's solver options)
            options = options if options is not None else SolveOptions()
            options = dataclasses.replace(options, profiles=("engine", *options.profiles))
        return self._answered(be.solve(program, options), "")

    # the exact routes of :class:`~fairprobe.backends.base.ExactBackend`, by the exact backend the hook chooses for
    # the program (parameters and results as there); None when it chooses none, or its route does not take the program
    def solve_parity(self, program: Any, options: SolveOptions | None = None,
                     den_floors: Mapping | None = None) -> SolveResult | None:
        """:meth:`ExactBackend.solve_parity` by the chosen exact backend."""
        return self._exact(program, lambda be: be.solve_parity(program, options, den_floors), "parity search")

    def solve_parity_pair(self, program: Any, options: SolveOptions | None = None,
                          den_floors: Mapping | None = None) -> tuple[SolveResult, SolveResult] | None:
        """:meth:`ExactBackend.solve_parity_pair` by the chosen exact backend."""
        return self._exact(program, lambda be: be.solve_parity_pair(program, options, den_floors), "parity search")

    def solve_fractional_pair(self, program: Any,
                              options: SolveOptions | None = None) -> tuple[SolveResult, SolveResult] | None:
        """:meth:`ExactBackend.solve_fractional_pair` by the chosen exact backend."""
        return self._exact(program, lambda be: be.solve_fractional_pair(program, options), "Charnes-Cooper LP")

    def verified_minima(self, program: Any, objectives: list[dict],
                        options: SolveOptions | None = None) -> list[float | None] | None:
        """:meth:`ExactBackend.verified_minima` by the chosen exact backend."""
        be = self.exact_backend(program)
        found = None if be is None else be.verified_minima(program, objectives, options)
        if found is not None:
            self.lp_solves += len(objectives)
        return found

    # -- bookkeeping ----------------------------------------------------------------------------
    def _exact(self, program: Any, route: Any, name: str) -> Any:
        """``route(be)`` for the exact backend chosen for ``program``, answered by ``name``; None if none takes it."""

        be = self.exact_backend(program)
        found = None if be is None else route(be)
        if isinstance(found, SolveResult):
            return self._answered(found, name)
        return None if found is None else tuple(self._answered(res, name) for res in found)

    def _exact_names(self) -> frozenset[str]:
        """The usable backends that have exact routes (left out of a global solve's choice)."""
        return frozenset(n for n, cls in self._classes.items() if issubclass(cls, ExactBackend))

    def _answered(self, res: SolveResult, route: str) -> SolveResult:
        """``res`` with the exact route it came by (``extra["route"]``), counted."""
        self.answered[f"{res.solver} ({route})" if route else res.solver] += 1
        if not route:
            return res
        if route == "parity search":
            self.two_ratio_solves += 1
        else:
            self.lp_solves += 1
        res = res.with_updates(extra={**res.extra, "route": route})
        # the named backend may say so in the result (auto does, as for its own choices)
        return self.main.routed(res, route) if isinstance(self.main, Backend) else res

"""The exact LP fast path: the linear programs of a bound go to HiGHS, with verified bounds.

A certified bound solves several programs: single-ratio ranges and Charnes-Cooper programs
(linear), definedness checks (linear), and the main program, which is linear or a nonconvex
polynomial. SCIP, the global solver, takes about 4 ms per LP of this size through pyscipopt; HiGHS
takes a tenth of that, and its bounds are verified with outward rounding
(:mod:`fairprobe.program.safe_bounds`), which SCIP's are not. :class:`LinearFastPath` sends each
continuous linear or linear-fractional program (Charnes-Cooper, verified) to HiGHS and everything
else to the chosen backend.

It applies to the default global solvers (``backend="scip"`` and ``"auto"``) and only when no
``solver_options`` are given (those name one solver's parameters, and that solver must read them).
A user who names another backend (``"gurobi"``, ``"ortools"``, ``"cvxpy"``, ``"highs"``) gets
that backend for every program.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Mapping
from typing import Any

from fairprobe.backends.base import SolveOptions

__all__ = ["ENGINE_SCIP_PARAMS", "FAST_PATH_BACKENDS", "LinearFastPath", "with_lp_fast_path"]

#: Backends whose LPs take the fast path.
FAST_PATH_BACKENDS = ("scip", "auto")

#: SCIP parameters for the engine's own global solves (programs a user hands to the ``scip`` backend
#: keep SCIP's defaults). The sub-NLP heuristic, a local NLP solve from each new incumbent, took
#: about 40 % of the joint window program of equalised odds (median 57 -> 33 ms over 24 tables) and
#: the LP points at the nodes found the same optima; on a generic hard quadratic program it is what
#: finds good incumbents early, so it stays on there. The bound is SCIP's dual bound either way.
ENGINE_SCIP_PARAMS: dict[str, Any] = {"heuristics/subnlp/freq": -1}


class LinearFastPath:
    """A backend whose continuous linear programs are solved by HiGHS instead.

    Parameters
    ----------
    main : Backend
        Solves every program that is not a continuous LP.
    lp : Backend
        Solves the continuous LPs (HiGHS).
    engine : bool, optional
        Built by the bound engine (:func:`with_lp_fast_path`, only when the caller gave no solver
        options): the engine's SCIP parameters (:data:`ENGINE_SCIP_PARAMS`) go to the main solver, and
        solver options, which can then only be the engine's own for the global solver, never reach
        HiGHS. Default False: options pass unchanged to whichever backend solves.

    Attributes
    ----------
    lp_solves, two_ratio_solves, main_solves : int
        Programs each path solved so far (two-ratio: a parity of two rates over a polytope, by
        :mod:`fairprobe.backends.two_ratio`).

    Examples
    --------
    >>> from fairprobe.core.registry import get_backend
    >>> from fairprobe.program.model import PolynomialProgram
    >>> be = LinearFastPath(get_backend("scip"), get_backend("highs"))
    >>> lp = PolynomialProgram.from_text("maximize\\n  x + y\\nsubject to\\n  x + y <= 1\\n"
    ...                                  "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> be.solve(lp).solver, be.name, be.lp_solves
    ('highs', 'scip', 1)
    """

    def __init__(self, main: Any, lp: Any, engine: bool = False) -> None:
        self.main = main
        self.lp = lp
        self.engine = engine
        self.lp_solves = 0
        self.two_ratio_solves = 0
        self.main_solves = 0

    def __getattr__(self, name: str) -> Any:
        # the chosen backend's own attributes (name, capabilities, check_program); never dunders
        if name.startswith("__") or name in ("main", "lp", "engine"):
            raise AttributeError(name)
        return getattr(self.main, name)

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
        >>> LinearFastPath.is_lp(PolynomialProgram.from_text("maximize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n"
        ...                                                  "  0 <= y <= 1"))
        False
        """
        return program.max_degree <= 1 and not program.has_integers

    def solves_exactly(self, program: Any) -> bool:
        """Whether HiGHS solves ``program`` here (an LP, or a parity of two rates), in milliseconds.

        Parameters
        ----------
        program : PolynomialProgram

        Returns
        -------
        bool
        """
        if self.is_lp(program):
            return True
        check = getattr(self.lp, "is_two_ratio", None)
        return bool(check is not None and not program.has_integers and check(program))

    def _said_auto(self, res: Any) -> Any:
        """A parity search's result, saying so when ``auto`` was asked (as its own choices do)."""
        if getattr(self.main, "name", None) != "auto":
            return res
        return res.with_updates(extra={**res.extra, "auto_choice": "highs"},
                                message="auto chose highs (a parity of two rates over a polytope: exact parametric "
                                        "LP search, verified bound): " + res.message)

    def solve_parity_pair(self, program: Any, options: Any = None, den_floors: Any = None) -> tuple[Any, Any] | None:
        """Both sides of a parity of two rates by the exact search, sharing its form and denominators.

        Parameters
        ----------
        program : PolynomialProgram
            Any program; only a parity of two rates over a polytope is solved.
        options : SolveOptions, optional
        den_floors : mapping, optional
            Verified lower bounds of linear polynomials over the program's models, keyed by
            ``frozenset(poly.items())`` (a definedness check's minima): the search's denominators
            need no LP of their own where one is given.

        Returns
        -------
        (SolveResult, SolveResult) or None
            The min and max results, or None when the search does not take the program (nothing is
            sent to the main backend: the caller prepares it for the global solver first).
        """
        pair = getattr(self.lp, "solve_two_ratio_pair", None)
        if pair is None or program.has_integers:
            return None
        floors = {"den_floors": den_floors} if den_floors and _takes_floors(pair) else {}
        results = pair(program, self._for_lp(options), **floors)
        if results is None:
            return None
        self.two_ratio_solves += 2
        return tuple(self._said_auto(r) for r in results)

    def solve(self, program: Any, options: Any = None) -> Any:
        """Solve ``program`` with HiGHS when it is a continuous LP, else with the chosen backend.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional

        Returns
        -------
        SolveResult
        """
        if self.is_lp(program):
            self.lp_solves += 1
            return self.lp.solve(program, self._for_lp(options))
        res = self.solve_parity(program, options)
        if res is not None:
            return res
        return self.solve_global(program, options)

    def solve_global(self, program: Any, options: Any = None) -> Any:
        """Solve ``program`` with the chosen backend (a program the exact routes do not take).

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional

        Returns
        -------
        SolveResult
        """
        self.main_solves += 1
        if self.engine and getattr(self.main, "name", None) == "scip":
            options = options if options is not None else SolveOptions()
            options = dataclasses.replace(options, solver_options={**ENGINE_SCIP_PARAMS, **options.solver_options})
        return self.main.solve(program, options)

    def _for_lp(self, options: Any) -> Any:
        """``options`` for a HiGHS route: in the engine, without solver options.

        The engine builds the fast path only when the caller gave no solver options, so any there are
        its own parameters for the global solver (a tighter SCIP tolerance), not HiGHS's.
        """
        if self.engine and options is not None and options.solver_options:
            return dataclasses.replace(options, solver_options={})
        return options

    def verified_minima(self, program: Any, objectives: list[dict], options: Any = None) -> list[float | None] | None:
        """Verified lower bounds on the minima of linear objectives over an LP's rows, by HiGHS.

        Parameters
        ----------
        program : PolynomialProgram
            A continuous program with linear rows.
        objectives : list of dict
            Linear polynomials over its variables.
        options : SolveOptions, optional

        Returns
        -------
        list of float or None, or None
            Per objective a bound (None where HiGHS found no optimum); None when the program is not
            an LP or the LP backend has no such method.
        """
        minima = getattr(self.lp, "verified_minima", None)
        if minima is None or not self.is_lp(program):
            return None
        self.lp_solves += len(objectives)
        return minima(program, objectives, self._for_lp(options))

    def solve_fractional_pair(self, program: Any, options: Any = None) -> tuple[Any, Any] | None:
        """Both sides of a continuous linear-fractional program by HiGHS, its denominator checked once.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional

        Returns
        -------
        (SolveResult, SolveResult) or None
            The min and max results; None when the program is not a continuous linear-fractional
            program or the LP backend solves one side at a time.
        """
        pair = getattr(self.lp, "solve_fractional_pair", None)
        if pair is None or not program.is_fractional or not self.is_lp(program):
            return None
        self.lp_solves += 2
        return pair(program, self._for_lp(options))

    def solve_parity(self, program: Any, options: Any = None, den_floors: Any = None) -> Any:
        """One side of a parity of two rates by the exact search, or None when it does not take ``program``.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional
        den_floors : mapping, optional
            As for :meth:`solve_parity_pair`.

        Returns
        -------
        SolveResult or None
            None when the program is not a parity of two rates over a polytope, or the search could
            not close it (nothing is sent to the main backend).
        """
        parity = getattr(self.lp, "solve_two_ratio", None)
        if parity is None or program.has_integers:
            return None
        # a parametric LP search, exact and verified
        floors = {"den_floors": den_floors} if den_floors and _takes_floors(parity) else {}
        res = parity(program, self._for_lp(options), **floors)
        if res is None:
            return None
        self.two_ratio_solves += 1
        return self._said_auto(res)


def _takes_floors(method: Any) -> bool:
    """Whether an LP backend's search takes ``den_floors`` (a plugin's replacement of ``highs`` may not)."""
    return _has_floors_keyword(getattr(method, "__func__", method))


@functools.lru_cache(maxsize=64)
def _has_floors_keyword(fn: Any) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "den_floors" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def with_lp_fast_path(backend: Any, name: str, solver_options: Mapping[str, Any] | None) -> Any:
    """``backend`` with the LP fast path where it applies (see the module docstring), else ``backend``.

    Parameters
    ----------
    backend : Backend
        The chosen backend.
    name : str
        Its name as the caller gave it.
    solver_options : mapping or None
        The caller's solver options.

    Returns
    -------
    Backend or LinearFastPath

    Examples
    --------
    >>> from fairprobe.core.registry import get_backend
    >>> type(with_lp_fast_path(get_backend("scip"), "scip", None)).__name__
    'LinearFastPath'
    >>> type(with_lp_fast_path(get_backend("scip"), "scip", {"limits/nodes": 5})).__name__
    'ScipBackend'
    """
    if name not in FAST_PATH_BACKENDS or solver_options:
        return backend
    from fairprobe.core.registry import registered

    highs = registered("backends").get("highs")  # through the registry: a plugin may replace it
    if highs is None or not highs.availability():
        return backend
    return LinearFastPath(backend, highs(), engine=True)

"""HiGHS backend (``highspy``): LPs with *verified* bounds, linear-fractional programs exactly, MILPs.

* **LPs**: the bound is not HiGHS's objective but a dual bound verified with outward rounding
  (:func:`fairprobe.program.safe_bounds.verified_lower_bound`); the primal point is the incumbent, with
  its largest violation in ``extra["max_violation"]`` (HiGHS runs at feasibility tolerances of 1e-10).
* **Linear-fractional objectives**: one Charnes-Cooper LP gives ``lam``; its duals certify
  ``N - lam D >= beta`` and a verified floor of ``D`` turns that into a verified bound on ``N / D``.
* **MILPs**: HiGHS's MIP dual bound (certified by the solver, not re-verified).

Where an infinite box end leaves nothing to verify with, the result carries HiGHS's own bound and
``extra["verified"] = False``. Nonlinear programs are refused (use SCIP).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from fairprobe.backends.base import (
    Availability,
    Capabilities,
    ExactBackend,
    Limit,
    SolveOptions,
    SolveResult,
    Termination,
    stopped,
)
from fairprobe.backends.highs_lp import LPRun, WarmLP, run_lp
from fairprobe.backends.two_ratio import solve_two_ratio, two_ratio_form
from fairprobe.exceptions import BackendCapabilityError, ProgramError
from fairprobe.program.model import PolynomialProgram, point_from_values
from fairprobe.program.safe_bounds import (
    LinearArrays,
    charnes_cooper_arrays,
    fractional_lower_bound,
    linear_arrays,
    objective_vector,
    verified_lower_bound,
)
from fairprobe.program.transforms import charnes_cooper

__all__ = ["HighsBackend"]

_LIMITS = MappingProxyType({"time": Limit.TIME, "iteration": Limit.ITERATION, "solution": Limit.SOLUTION,
                            "interrupted": Limit.INTERRUPTED})


def _floors(form: Any, den_floors: Mapping | None) -> dict:
    """The search's shared results, seeded with the positive floors of denominators given exactly as polynomials."""
    shared: dict = {}
    for k, (vec, const) in enumerate(form.den):
        poly = {(form.keep[j],): float(vec[j]) for j in np.flatnonzero(vec)}
        if const:
            poly[()] = float(const)
        floor = (den_floors or {}).get(frozenset(poly.items()))
        if floor is not None and 0.0 < floor < math.inf:
            shared[("den_min", k)] = float(floor)
    return shared


class HighsBackend(ExactBackend):
    """HiGHS through highspy: verified LP bounds, exact linear-fractional programs, MILPs.

    Its exact routes (:class:`~fairprobe.backends.base.ExactBackend`) :meth:`solve_parity` and
    :meth:`solve_parity_pair` are the parametric search of :mod:`fairprobe.backends.two_ratio`.

    Examples
    --------
    >>> import fairprobe as fp
    >>> prog = fp.PolynomialProgram.from_text("maximize\\n  x + y\\nsubject to\\n  x + 2*y <= 1\\n"
    ...                                       "bounds\\n  0 <= x <= 0.5\\n  0 <= y <= 1")
    >>> res = fp.get_backend("highs").solve(prog)
    >>> res.termination.value, res.objective_bound >= 0.75, res.objective_bound - 0.75 < 1e-12
    ('optimal', True, True)
    >>> res.extra["verified"], res.extra["max_violation"] <= 1e-10
    (True, True)
    """

    name = "highs"
    capabilities = Capabilities(max_degree=1, global_bound=True, convex_only=True, fractional_objective=True,
                                integer_variables=True)
    install_hint = "pip install highspy"
    description = "HiGHS: LPs with verified dual bounds, Charnes-Cooper for ratios, MILPs"

    @classmethod
    def availability(cls) -> Availability:
        """Available when highspy can be found (it is not imported).

        Returns
        -------
        Availability

        Examples
        --------
        >>> from fairprobe.backends.highs import HighsBackend
        >>> bool(HighsBackend.availability())
        True
        """
        return Availability.AVAILABLE if cls._module_installed("highspy") else Availability.NOT_INSTALLED

    def check_program(self, program: PolynomialProgram) -> None:
        """Refuse nonlinear programs and fractional objectives with integer variables.

        Parameters
        ----------
        program : PolynomialProgram

        Raises
        ------
        BackendCapabilityError
            A nonlinear row or objective, or a fractional objective over integer variables.

        Examples
        --------
        >>> import fairprobe as fp
        >>> prog = fp.PolynomialProgram.from_text("maximize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> HighsBackend().check_program(prog)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.BackendCapabilityError: Backend 'highs' accepts polynomials of degree <= 1, but ...
        """
        super().check_program(program)
        if program.is_fractional and program.has_integers:
            raise BackendCapabilityError("The highs backend solves linear-fractional objectives over continuous "
                                         "variables only; use backend='scip' for integer ones.")

    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        start = time.perf_counter()
        deadline = None if options.time_limit is None else start + float(options.time_limit)
        if program.is_fractional:
            result = self._solve_fractional(program, options, deadline)
        else:
            result = self._solve_linear(program, options, deadline)
        return _named(result, wall_time=time.perf_counter() - start)

    def verified_minima(self, program: PolynomialProgram, objectives: list[dict],
                        options: SolveOptions | None = None) -> list[float | None] | None:
        """Verified lower bounds on the minimum of each linear objective over ``program``'s rows and box.

        The rows are read once for all objectives. Parameters as :meth:`ExactBackend.verified_minima`.

        Returns
        -------
        list of float or None, or None
            Per objective, a bound at most its true minimum (rounding included), or None when HiGHS
            found no optimum (infeasible rows, a limit): the caller then solves that one its usual way.
            None for a program with integer variables or nonlinear rows (not taken).
        """
        if program.has_integers or program.max_degree > 1:  # not an LP's rows: not taken
            return None
        options = options if options is not None else SolveOptions()
        deadline = None if options.time_limit is None else time.perf_counter() + float(options.time_limit)
        rows = linear_arrays(program, objective={})
        out: list[float | None] = []
        warm: WarmLP | None = None
        try:
            for poly in objectives:
                c, c0 = objective_vector(poly, program.n_variables)
                arr = dataclasses.replace(rows, c=c, c0=c0)
                if warm is None and rows.n_rows and rows.n_cols and len(objectives) > 1:
                    warm = WarmLP(arr, options)
                elif warm is not None:  # the same rows: the next objective starts from the last basis
                    warm.set_objective(c, c0)
                run = warm.run(deadline) if warm is not None else None
                if run is None or run.status != "optimal":  # (a warm run that stops oddly is run afresh)
                    run = run_lp(arr, None, options, deadline)
                ok = run.status in ("optimal", "empty") and run.y is not None
                out.append(verified_lower_bound(arr, run.y) if ok else None)
        finally:
            if warm is not None:
                warm.close()
        return out

    # -- the exact routes (ExactBackend) ----------------------------------------------------------
    def solves_exactly(self, program: PolynomialProgram) -> bool:
        """Whether HiGHS solves ``program`` whole: a continuous LP, or a parity of two rates (:meth:`is_two_ratio`).

        Returns
        -------
        bool

        Examples
        --------
        >>> import fairprobe as fp
        >>> lp = fp.PolynomialProgram.from_text("maximize\\n  x\\nbounds\\n  0 <= x <= 1")
        >>> fp.get_backend("highs").solves_exactly(lp), fp.get_backend("highs").is_two_ratio(lp)
        (True, False)
        """
        if program.has_integers:
            return False
        return program.max_degree <= 1 or self.is_two_ratio(program)

    def solve_parity(self, program: PolynomialProgram, options: SolveOptions | None = None,
                     den_floors: Mapping | None = None) -> SolveResult | None:
        """:meth:`solve_two_ratio` (the protocol's name); None for integer programs.

        Parameters as :meth:`ExactBackend.solve_parity`.

        Returns
        -------
        SolveResult or None

        Examples
        --------
        >>> import fairprobe as fp
        >>> bilinear = fp.PolynomialProgram.from_text("maximize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> fp.get_backend("highs").solve_parity(bilinear) is None
        True
        """
        return None if program.has_integers else self.solve_two_ratio(program, options, den_floors)

    def solve_parity_pair(self, program: PolynomialProgram, options: SolveOptions | None = None,
                          den_floors: Mapping | None = None) -> tuple[SolveResult, SolveResult] | None:
        """:meth:`solve_two_ratio_pair` (the protocol's name); None for integer programs.

        Parameters as :meth:`ExactBackend.solve_parity`.

        Returns
        -------
        (SolveResult, SolveResult) or None

        Examples
        --------
        >>> import fairprobe as fp
        >>> fp.get_backend("highs").solve_parity_pair(fp.PolynomialProgram.from_text("maximize\\n  x\\nbounds\\n"
        ...                                                                            "  0 <= x <= 1")) is None
        True
        """
        return None if program.has_integers else self.solve_two_ratio_pair(program, options, den_floors)

    @staticmethod
    def is_two_ratio(program: PolynomialProgram) -> bool:
        """Whether :meth:`solve_two_ratio` takes ``program``: a parity of two rates (example at :meth:`solves_exactly`).

        Returns
        -------
        bool
        """
        return two_ratio_form(program) is not None

    def solve_two_ratio(self, program: PolynomialProgram, options: SolveOptions | None = None,
                        den_floors: Mapping | None = None) -> SolveResult | None:
        """Solve a parity of two rates (``c_a r_a + c_b r_b`` over ratio definitions and linear rows) exactly.

        A parametric search over LPs with a verified bound (:mod:`fairprobe.backends.two_ratio`).
        Parameters as :meth:`ExactBackend.solve_parity`.

        Returns
        -------
        SolveResult or None
            None when the program has another shape (or the search could not close it).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.testing.backends import PARITY_TEXT  # ra - rb, two rates over a polytope
        >>> prog = fp.PolynomialProgram.from_text(PARITY_TEXT)
        >>> res = fp.get_backend("highs").solve_two_ratio(prog)
        >>> res.objective_bound <= -1.0, res.objective_bound > -1.0 - 1e-9, res.extra["verified"]
        (True, True, True)
        """
        form = two_ratio_form(program)
        if form is None:
            return None
        res = solve_two_ratio(program, form, options if options is not None else SolveOptions(),
                              _floors(form, den_floors))
        return None if res is None else _named(res)


    def solve_two_ratio_pair(self, program: PolynomialProgram, options: SolveOptions | None = None,
                             den_floors: Mapping | None = None) -> tuple[SolveResult, SolveResult] | None:
        """The min and the max of a parity of two rates (:meth:`solve_two_ratio`), sharing their work.

        A denominator given in ``den_floors`` takes its floor instead of an LP. Parameters as
        :meth:`ExactBackend.solve_parity`.

        Returns
        -------
        (SolveResult, SolveResult) or None
            None when the program has another shape or the search could not close either side.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.testing.backends import PARITY_TEXT  # ra - rb, two rates over a polytope
        >>> prog = fp.PolynomialProgram.from_text(PARITY_TEXT)
        >>> lo, hi = fp.get_backend("highs").solve_two_ratio_pair(prog)
        >>> lo.objective_bound <= -1.0 + 1e-9, hi.objective_bound >= 1.0 - 1e-9
        (True, True)
        """
        options = options if options is not None else SolveOptions()
        form, shared = two_ratio_form(program), {}
        if form is None:
            return None
        start = time.perf_counter()
        shared.update(_floors(form, den_floors))
        out = []
        for share, sense in ((0.5, "min"), (1.0, "max")):
            side = options
            if options.time_limit is not None:  # the pair shares the limit: the min side half of it
                left = float(options.time_limit) - (time.perf_counter() - start)
                side = dataclasses.replace(options, time_limit=max(left * share, 1e-3))
            view = copy.copy(program)  # the search reads the program only: a view in the other sense
            view.sense = sense
            res = solve_two_ratio(view, form, side, shared)
            if res is None:
                return None
            out.append(_named(res))
        return out[0], out[1]

    # -- linear -------------------------------------------------------------------------------
    def _solve_linear(self, program: PolynomialProgram, options: SolveOptions, deadline: float | None) -> SolveResult:
        sign = 1.0 if program.sense == "min" else -1.0
        arr = linear_arrays(program, sign=sign)
        if program.has_integers:
            integer = np.array([v.integer for v in program.variables])
            run = run_lp(arr, integer, options, deadline)
        else:
            integer, run = None, run_lp(arr, None, options, deadline)
        return self._result(program, arr, run, sign, integer is not None)

    def _result(self, program: PolynomialProgram, arr: LinearArrays, run: LPRun, sign: float,
                mip: bool) -> SolveResult:
        sense = program.sense
        if run.status == "infeasible":
            return stopped(Termination.INFEASIBLE, sense, message=run.message)
        if run.status in ("unbounded", "unbounded_or_infeasible"):
            return stopped(Termination.UNBOUNDED, sense, message=run.message)
        if run.status == "error":
            return stopped(Termination.ERROR, sense, message=run.message)
        incumbent = inc_obj = None
        extra: dict[str, Any] = {"status": run.status, "iterations": run.iterations}
        if (run.x is not None and run.status in ("optimal", "empty")) or (mip and run.x is not None):
            incumbent, inc_obj = _incumbent(program, run.x.tolist(), extra)
        if mip:
            bound_min = run.dual_bound if math.isfinite(run.dual_bound) else -math.inf
            extra["verified"] = False  # HiGHS's own MIP bound
        elif run.status in ("optimal", "empty"):
            y = run.y if run.y is not None else np.zeros(arr.n_rows)
            bound_min = verified_lower_bound(arr, y)
            extra["verified"] = math.isfinite(bound_min)
            if not extra["verified"]:  # an infinite box end: HiGHS's own bound is all there is
                bound_min = run.objective
        else:  # a limit in the simplex: its current duals are not optimal, but any dual vector bounds
            bound_min = verified_lower_bound(arr, run.y) if run.y is not None else -math.inf
            extra["verified"] = math.isfinite(bound_min)
        termination = Termination.OPTIMAL if run.status in ("optimal", "empty") else Termination.LIMIT
        if mip and termination is Termination.OPTIMAL and incumbent is None:
            termination = Termination.ERROR
        limit = None if termination is not Termination.LIMIT else _LIMITS.get(run.status, Limit.OTHER)
        extra["highs_objective"] = sign * run.objective
        return SolveResult(termination, sign * bound_min, incumbent_objective=inc_obj, incumbent=incumbent,
                           limit=limit, sense=sense, message=run.message, extra=extra)

    # -- linear-fractional ----------------------------------------------------------------------
    def solve_fractional_pair(self, program: PolynomialProgram,
                              options: SolveOptions | None = None) -> tuple[SolveResult, SolveResult] | None:
        """The min and the max of a linear-fractional program, its denominator checked once for both.

        Parameters as :meth:`ExactBackend.solve_fractional_pair`.

        Returns
        -------
        (SolveResult, SolveResult) or None
            As :meth:`solve` gives for ``program.with_sense("min")`` and ``("max")``; None when the
            program is not a continuous linear-fractional one.
        """
        if not program.is_fractional or program.has_integers or program.max_degree > 1:
            return None  # not a continuous linear-fractional program: not taken
        options = options if options is not None else SolveOptions()
        self.check_program(program)
        start = time.perf_counter()
        deadline = None if options.time_limit is None else start + float(options.time_limit)
        out = []
        try:
            check = self._denominator_check(program, options, deadline)
        except _Stopped as stop:
            check = stop
        for sense in ("min", "max"):
            side = program.with_sense(sense)
            res = _stop_result(check, sense) if isinstance(check, _Stopped) else \
                self._fractional_side(side, check, options, deadline)
            out.append(_named(res, wall_time=time.perf_counter() - start))
        return out[0], out[1]

    def _solve_fractional(self, program: PolynomialProgram, options: SolveOptions,
                          deadline: float | None) -> SolveResult:
        try:
            check = self._denominator_check(program, options, deadline)
        except _Stopped as stop:
            return _stop_result(stop, program.sense)
        return self._fractional_side(program, check, options, deadline)

    @staticmethod
    def _denominator_check(program: PolynomialProgram, options: SolveOptions,
                           deadline: float | None) -> tuple[LinearArrays, float]:
        """The rows as arrays (the denominator as objective) and the denominator's verified minimum.

        Raises :class:`_Stopped` (infeasible rows, a stop) or :class:`ProgramError` (a negative denominator,
        where Charnes-Cooper is not exact).
        """

        den = program.objective_denominator or {}
        den_arr = linear_arrays(program, objective=den)
        den_run = run_lp(den_arr, None, options, deadline)
        if den_run.status == "infeasible":
            raise _Stopped(Termination.INFEASIBLE, None, den_run.message)
        if den_run.status not in ("optimal", "empty"):
            raise _Stopped(Termination.LIMIT, _LIMITS.get(den_run.status, Limit.OTHER),
                           "stopped while checking the denominator: " + den_run.message)
        den_min = verified_lower_bound(den_arr, den_run.y if den_run.y is not None else np.zeros(den_arr.n_rows))
        if den_run.objective < -1e-9:
            raise ProgramError(
                "The objective denominator is not strictly positive on the feasible set (its minimum is "
                f"{den_run.objective:.3g}), so the ratio changes sign; a fractional objective needs a positive "
                "denominator. Add a row that keeps it positive.")
        return den_arr, den_min

    @staticmethod
    def _fractional_side(program: PolynomialProgram, check: tuple[LinearArrays, float], options: SolveOptions,
                         deadline: float | None) -> SolveResult:
        """One side of a linear-fractional program by its Charnes-Cooper LP, verified in the model's variables."""
        den_arr, den_min = check
        sense = program.sense
        sign = 1.0 if sense == "min" else -1.0
        m = den_arr.n_rows
        # a denominator that reaches 0 (a probability): Charnes-Cooper optimises over the points where it is
        # positive, where the ratio is defined; the bound is then verified only when beta >= 0 below
        num_vec, den_vec = objective_vector(program.objective, program.n_variables), (den_arr.c, den_arr.c0)
        cc_arr = charnes_cooper_arrays(den_arr, num_vec, den_vec, sign)
        if cc_arr is None:  # a ranged row: through the polynomial transform, which splits it
            cc_arr = linear_arrays(charnes_cooper(program), sign=sign)
        run = run_lp(cc_arr, None, options, deadline)
        if run.status not in ("optimal", "empty") or run.x is None:
            # no optimum of the Charnes-Cooper LP: the ratio is bounded only trivially (a limit) or not at all
            if run.status in ("infeasible", "unbounded", "unbounded_or_infeasible", "error"):
                term = {"infeasible": Termination.INFEASIBLE, "error": Termination.ERROR}.get(run.status,
                                                                                             Termination.UNBOUNDED)
                return stopped(term, sense, message=run.message + " (Charnes-Cooper LP)")
            return stopped(Termination.LIMIT, sense, limit=_LIMITS.get(run.status, Limit.OTHER),
                           message=run.message + " (Charnes-Cooper LP)")
        lam = run.objective  # min of sign * N / D
        mu = run.y[1:1 + m] if run.y is not None else np.zeros(m)
        # N - lam D >= beta on the feasible set, certified by the Charnes-Cooper duals of the original rows
        # the same rows as the denominator's program: only the objective differs (no second pass over the rows)
        c, c0 = sign * num_vec[0] - lam * den_vec[0], sign * num_vec[1] - lam * den_vec[1]
        beta = verified_lower_bound(dataclasses.replace(den_arr, c=c, c0=c0), mu)
        bound_min = fractional_lower_bound(lam, beta, den_min)
        verified = math.isfinite(bound_min)
        if not verified:
            bound_min = lam
        t = run.x[-1]
        extra: dict[str, Any] = {"status": run.status, "iterations": run.iterations, "verified": verified,
                                 "highs_objective": sign * lam, "charnes_cooper": True}
        incumbent, inc_obj = _incumbent(program, (run.x[:-1] / t).tolist(), extra) if t > 0 else (None, None)
        return SolveResult(Termination.OPTIMAL, sign * bound_min, incumbent_objective=inc_obj, incumbent=incumbent,
                           sense=sense, message=run.message + " (Charnes-Cooper LP)", extra=extra)


def _incumbent(program: PolynomialProgram, values: list[float], extra: dict) -> tuple[Any, Any]:
    """(point, objective) of HiGHS's values, its violation recorded in ``extra``; (None, None) beyond 1e-6."""
    point = point_from_values(program, values)
    extra["max_violation"] = program.max_violation(point)
    if extra["max_violation"] > 1e-6:  # a limit may leave HiGHS with an infeasible point: never an incumbent
        return None, None
    return point, program.objective_value(point)


class _Stopped(Exception):

    """The denominator's check of a linear-fractional program ended without an optimum."""

    def __init__(self, termination: Termination, limit: Limit | None, message: str) -> None:
        super().__init__(message)
        self.termination, self.limit, self.message = termination, limit, message


def _stop_result(stop: _Stopped, sense: str) -> SolveResult:
    return stopped(stop.termination, sense, limit=stop.limit, message=stop.message)


def _named(res: SolveResult, **updates: Any) -> SolveResult:
    """``res`` naming HiGHS as its solver."""
    return res.with_updates(solver="highs", solver_version=f"HiGHS (highspy {_version()})", **updates)


@functools.lru_cache(maxsize=1)
def _version() -> str:
    # importlib.metadata reads the installed distributions (a millisecond); every result names it
    import importlib.metadata

    try:
        return importlib.metadata.version("highspy")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - found by availability()
        return "unknown"

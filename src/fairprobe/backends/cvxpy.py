"""cvxpy backend: linear, linear-fractional (Charnes-Cooper) and convex quadratic programs.

Convex programs have no duality gap, so the optimal value cvxpy reports is also the bound.
Nonconvex programs are refused with :class:`~fairprobe.exceptions.BackendCapabilityError`, and an
"optimal inaccurate" answer is a numerical error with no bound. A time limit, less the time spent
building the problem, goes to the solvers that take one (Clarabel, HiGHS, SCS, OSQP); an
interior-point method stopped early has no valid bound, so the result is then ``LIMIT`` with an
infinite bound.
"""

from __future__ import annotations

import time
import warnings
from types import MappingProxyType
from typing import Any

import numpy as np

from fairprobe.backends.base import (
    COMPARE,
    Availability,
    Backend,
    Capabilities,
    Limit,
    SolveOptions,
    SolveResult,
    Termination,
    no_bound,
    stopped,
)
from fairprobe.exceptions import BackendCapabilityError, ProgramError
from fairprobe.program.model import PolynomialProgram, point_from_values
from fairprobe.program.polynomial import Poly
from fairprobe.program.transforms import charnes_cooper

__all__ = ["CvxpyBackend"]

# the time-limit option of each solver that has one, in seconds (cvxpy passes it through)
_TIME_LIMIT_OPTION = MappingProxyType({"CLARABEL": "time_limit", "HIGHS": "time_limit", "SCS": "time_limit_secs",
                                       "OSQP": "time_limit"})


def _split(poly: Poly, n: int) -> tuple[np.ndarray | None, np.ndarray, float]:
    """``(Q, q, c)`` with ``poly(x) = x'Qx + q'x + c``, ``Q`` symmetric, or None without a quadratic term."""
    Q = np.zeros((n, n)) if any(len(mono) == 2 for mono in poly) else None
    q = np.zeros(n)
    c = 0.0
    for mono, coef in poly.items():
        if not mono:
            c += coef
        elif len(mono) == 1:
            q[mono[0]] += coef
        else:
            i, j = mono
            if i == j:
                Q[i, i] += coef
            else:
                Q[i, j] += coef / 2
                Q[j, i] += coef / 2
    return Q, q, c


def _curvature(Q: np.ndarray | None) -> str:
    """``"affine"``, ``"convex"``, ``"concave"`` or ``"indefinite"``: the curvature of ``x'Qx``."""
    if Q is None or not np.any(Q):
        return "affine"
    eig = np.linalg.eigvalsh(Q)
    scale = max(1.0, float(np.max(np.abs(eig))))
    if eig.min() >= -1e-10 * scale:
        return "convex"
    if eig.max() <= 1e-10 * scale:
        return "concave"
    return "indefinite"


class CvxpyBackend(Backend):
    """cvxpy: linear and convex (quadratic) programs; refuses nonconvex ones.

    Examples
    --------
    Checking a program needs no solver; solving needs the optional ``cvxpy`` package, so that line
    is skipped where cvxpy may be absent:

    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> qp = CONTRACT_PROBLEMS[7].program  # convex QP, optimum 0.5
    >>> CvxpyBackend().check_program(qp) is None
    True
    >>> round(CvxpyBackend().solve(qp).objective_bound, 4)  # doctest: +SKIP
    0.5
    """

    name = "cvxpy"
    capabilities = Capabilities(max_degree=2, global_bound=True, convex_only=True,
                                fractional_objective=True, integer_variables=False)
    install_hint = 'pip install "fairprobe[cvxpy]"'
    description = "cvxpy (convex programs only)"

    @classmethod
    def availability(cls) -> Availability:
        """AVAILABLE when cvxpy can be found (it is not imported), else NOT_INSTALLED.

        Returns
        -------
        Availability
        """
        return Availability.AVAILABLE if cls._module_installed("cvxpy") else Availability.NOT_INSTALLED

    def check_program(self, program: PolynomialProgram) -> None:
        """Refuse nonconvex programs and fractional objectives that are not linear-fractional.

        Parameters
        ----------
        program : PolynomialProgram

        Raises
        ------
        BackendCapabilityError
            The objective has the wrong curvature for its sense, a constraint is nonconvex, or the
            program is beyond the generic capabilities (degree > 2, integers).

        Examples
        --------
        The check runs without cvxpy installed:

        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> bilinear = CONTRACT_PROBLEMS[4].program  # max x*y - 0.3*x + 0.1*y*z: not concave
        >>> try:
        ...     CvxpyBackend().check_program(bilinear)
        ... except BackendCapabilityError as err:
        ...     print(str(err)[:60])
        The cvxpy backend solves convex programs only, but the objec
        """
        super().check_program(program)
        n = program.n_variables
        if program.is_fractional and not program.is_linear():
            raise BackendCapabilityError(
                "The cvxpy backend accepts fractional objectives only when numerator, denominator "
                "and constraints are linear (Charnes-Cooper). Use backend='scip'."
            )
        need = "convex" if program.sense == "min" else "concave"
        curv = _curvature(_split(program.objective, n)[0])
        if curv not in ("affine", need):
            raise BackendCapabilityError(
                f"The cvxpy backend solves convex programs only, but the objective is {curv} "
                f"(a {program.sense}imisation needs a {need} objective). Use backend='scip', "
                "which certifies global bounds on nonconvex programs."
            )
        for k, c in enumerate(program.constraints):
            curv = _curvature(_split(c.poly, n)[0])
            ok = curv == "affine" or (c.sense == "<=" and curv == "convex") or (
                c.sense == ">=" and curv == "concave")
            if not ok:
                raise BackendCapabilityError(
                    f"The cvxpy backend solves convex programs only; constraint "
                    f"{c.name or k!r} ({c.sense} with a {curv} left-hand side) makes the feasible "
                    "set nonconvex. Use backend='scip'."
                )

    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        import cvxpy as cp

        start = time.perf_counter()
        deadline = None if options.time_limit is None else start + float(options.time_limit)
        if program.is_fractional:
            result = self._solve_fractional(program, options, deadline)
        else:
            result, _ = self._solve_convex(program, options, deadline=deadline)
        return result.with_updates(solver="cvxpy", solver_version=f"cvxpy {cp.__version__}",
                                   wall_time=time.perf_counter() - start)

    def _solve_convex(self, program: PolynomialProgram, options: SolveOptions, objective: Poly | None = None,
                      deadline: float | None = None) -> tuple[SolveResult, np.ndarray | None]:
        import cvxpy as cp

        n = program.n_variables
        x = cp.Variable(n)

        def expr(poly: Poly) -> Any:
            Q, q, c = _split(poly, n)
            e = q @ x + c
            if Q is not None and np.any(Q):
                curv = _curvature(Q)
                e = e + (cp.quad_form(x, cp.psd_wrap(Q)) if curv == "convex"
                         else -cp.quad_form(x, cp.psd_wrap(-Q)))
            return e

        cons = [COMPARE[c.sense](expr(c.poly), c.rhs) for c in program.constraints]
        lb = np.array([v.lb for v in program.variables])
        ub = np.array([v.ub for v in program.variables])
        if np.any(np.isfinite(lb)):
            idx = np.flatnonzero(np.isfinite(lb))
            cons.append(x[idx] >= lb[idx])
        if np.any(np.isfinite(ub)):
            idx = np.flatnonzero(np.isfinite(ub))
            cons.append(x[idx] <= ub[idx])
        obj = expr(program.objective if objective is None else objective)
        problem = cp.Problem(cp.Minimize(obj) if program.sense == "min" else cp.Maximize(obj), cons)
        kwargs: dict[str, Any] = dict(options.solver_options)
        if "solver" not in kwargs:
            # Prefer an open-source interior-point solver with reliable infeasibility
            # certificates; cvxpy would otherwise pick a commercial solver when one is installed.
            installed = cp.installed_solvers()
            for preferred in ("CLARABEL", "HIGHS", "ECOS", "SCS"):
                if preferred in installed:
                    kwargs["solver"] = preferred
                    break
        sense = program.sense
        if deadline is not None:
            remaining = deadline - time.perf_counter()  # building the problem counted against the limit
            if remaining <= 0:
                return SolveResult(Termination.LIMIT, no_bound(sense), limit=Limit.TIME, sense=sense,
                                   message="time limit reached before the solver was called"), None
            key = _TIME_LIMIT_OPTION.get(str(kwargs.get("solver", "")).upper())
            if key is not None and key not in kwargs:
                kwargs[key] = remaining
        try:
            with warnings.catch_warnings():
                # an inaccurate or early-stopped answer is reported below as having no bound
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                problem.solve(verbose=options.verbose, **kwargs)
        except cp.error.SolverError as exc:
            return stopped(Termination.ERROR, program.sense, message=f"cvxpy solver failed: {exc}"), None
        status = problem.status
        if status == cp.OPTIMAL:
            point = point_from_values(program, x.value)
            return SolveResult(Termination.OPTIMAL, float(problem.value),
                               program.objective_value(point) if objective is None else float(problem.value),
                               point, sense=sense, message=f"cvxpy status {status}"), np.asarray(x.value)
        if status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
            return stopped(Termination.INFEASIBLE, sense, message=f"cvxpy status {status}"), None
        if status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
            return stopped(Termination.UNBOUNDED, sense, message=f"cvxpy status {status}"), None
        if status == cp.USER_LIMIT:
            timed_out = deadline is not None and time.perf_counter() >= deadline - 1e-3
            return SolveResult(Termination.LIMIT, no_bound(sense), limit=Limit.TIME if timed_out else Limit.ITERATION,
                               sense=sense, message=f"cvxpy status {status}: stopped early, no certified bound"), None
        return SolveResult(Termination.NUMERICAL_ERROR, no_bound(sense), sense=sense,
                           message=f"cvxpy status {status}: no certified bound"), None

    def _solve_fractional(self, program: PolynomialProgram, options: SolveOptions,
                          deadline: float | None = None) -> SolveResult:
        den = program.objective_denominator or {}
        check, _ = self._solve_convex(program.with_sense("min"), options, objective=den, deadline=deadline)
        if check.termination is Termination.INFEASIBLE:
            return check.with_updates(sense=program.sense, objective_bound=-no_bound(program.sense))
        if check.termination is Termination.LIMIT:
            return check.with_updates(sense=program.sense, objective_bound=no_bound(program.sense),
                                      incumbent=None, incumbent_objective=None)
        if check.termination is not Termination.OPTIMAL or check.objective_bound <= 1e-12:
            raise ProgramError(
                "The objective denominator is not strictly positive on the feasible set; a "
                "fractional objective needs a positive denominator."
            )
        cc = charnes_cooper(program)
        res, y = self._solve_convex(cc, options, deadline=deadline)
        if res.termination is Termination.OPTIMAL and y is not None:
            t = y[-1]
            lb = np.array([v.lb for v in program.variables])
            ub = np.array([v.ub for v in program.variables])
            xval = np.clip(y[:-1] / t, lb, ub)
            point = point_from_values(program, xval)
            return res.with_updates(incumbent=point, incumbent_objective=program.objective_value(point),
                                    message="linear-fractional program solved by Charnes-Cooper")
        return res.with_updates(incumbent=None, incumbent_objective=None)


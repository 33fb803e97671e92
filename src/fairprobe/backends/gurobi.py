"""Gurobi backend (gurobipy): nonconvex quadratic programs with global bounds.

Monomials of degree > 2 are reduced exactly to quadratic ones with auxiliary variables
(:func:`~fairprobe.program.transforms.quadratize`); fractional objectives become an epigraph
constraint. ``objective_bound`` is Gurobi's ``ObjBound``. The licence that ships with the pip
wheel is size-limited (``availability()`` is ``LIMITED_LICENSE``; limits below): a program over
its limits raises :class:`~fairprobe.exceptions.BackendLicenseError` before Gurobi is called, and
:func:`fits_licence` lets ``backend="auto"`` send such programs to SCIP instead.
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

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
    stop_bound,
)
from fairprobe.exceptions import BackendLicenseError, SolverError
from fairprobe.program.model import PolynomialProgram, point_from_values
from fairprobe.program.transforms import fraction_to_epigraph, quadratize

__all__ = ["LICENCE_MAX_CONSTRAINTS", "LICENCE_MAX_QUADRATIC_VARIABLES", "LICENCE_MAX_VARIABLES", "GurobiBackend",
           "fits_licence", "reduce_for_gurobi"]

# Limits of the size-limited licence pip installs with gurobipy, measured (gurobipy 13.0.3) by bisection on
# the size at which ``optimize()`` raises error 10010. Nonzeros are not limited; a model with any quadratic
# term (convex or not) is refused above 200 variables, whatever its number of quadratic terms.
#: Most variables of a linear program under the size-limited licence.
LICENCE_MAX_VARIABLES = 2000
#: Most constraints (linear and quadratic together) under the size-limited licence.
LICENCE_MAX_CONSTRAINTS = 2000
#: Most variables of a program with any quadratic term (every nonconvex one) under that licence.
LICENCE_MAX_QUADRATIC_VARIABLES = 200

_SIZE_LIMIT_ERROR = 10010
_LICENSE_ERRORS = frozenset({10009, 10032})  # no licence, licence expired


@functools.lru_cache(maxsize=1)
def _probe() -> Availability:
    """Import gurobipy and classify the licence (cached; never raises)."""
    try:
        import gurobipy as gp
    except ImportError:
        return Availability.NOT_INSTALLED
    except Exception:
        return Availability.ERROR
    try:
        if gp.gurobi.version()[0] < 10:
            return Availability.BAD_VERSION
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)
        env.start()
        try:
            # The restricted pip licence refuses models above 2000 variables; probe with one.
            model = gp.Model(env=env)
            model.addVars(2001)
            model.optimize()
            state = Availability.AVAILABLE
        except gp.GurobiError as exc:
            state = Availability.LIMITED_LICENSE if exc.errno == _SIZE_LIMIT_ERROR else Availability.BAD_LICENSE
        finally:
            env.dispose()
        return state
    except Exception:
        return Availability.BAD_LICENSE


def reduce_for_gurobi(program: PolynomialProgram) -> PolynomialProgram:
    """The program Gurobi is given: fractional objective as an epigraph, degree reduced to 2.

    Parameters
    ----------
    program : PolynomialProgram
        The program as given to :meth:`GurobiBackend.solve`.

    Returns
    -------
    PolynomialProgram
        An equivalent program of degree at most 2 with a polynomial objective (no solver is needed).

    Examples
    --------
    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> cubic = CONTRACT_PROBLEMS[5].program  # max x*y*z
    >>> work = reduce_for_gurobi(cubic)
    >>> (cubic.max_degree, cubic.n_variables), (work.max_degree, work.n_variables)
    ((3, 3), (2, 4))
    """
    return quadratize(fraction_to_epigraph(program)).program


def _over_licence(work: PolynomialProgram) -> str | None:
    """Why the size-limited licence refuses the reduced program ``work``, or None when it fits."""
    n, m = work.n_variables, len(work.constraints)
    quadratic = work.max_degree >= 2
    max_vars = LICENCE_MAX_QUADRATIC_VARIABLES if quadratic else LICENCE_MAX_VARIABLES
    if n <= max_vars and m <= LICENCE_MAX_CONSTRAINTS:
        return None
    kind = "quadratic terms" if quadratic else "only linear terms"
    return f"after reduction to degree 2 it has {n} variables, {m} constraints and {kind}"


def _licence_message(work: PolynomialProgram) -> str:
    """Why the size-limited licence cannot solve ``work``, its limits, and what to do instead."""
    reason = _over_licence(work) or (
        f"Gurobi refused it as too large ({work.n_variables} variables, {len(work.constraints)} "
        "constraints after reduction to degree 2)")
    return (
        f"Gurobi's size-limited licence (the one pip installs with gurobipy) cannot solve this program: "
        f"{reason}. That licence solves linear programs of up to {LICENCE_MAX_VARIABLES} variables and "
        f"{LICENCE_MAX_CONSTRAINTS} constraints, but programs with any quadratic term (every nonconvex "
        f"one) of only up to {LICENCE_MAX_QUADRATIC_VARIABLES} variables (and {LICENCE_MAX_CONSTRAINTS} "
        "constraints). Use backend='auto' (it gives programs over these limits to SCIP) or "
        "backend='scip', or install a full Gurobi licence (free for academic use)."
    )


def fits_licence(program: PolynomialProgram) -> bool:
    """True when Gurobi's installed licence can solve ``program``.

    Parameters
    ----------
    program : PolynomialProgram
        The program as given to :meth:`GurobiBackend.solve`.

    Returns
    -------
    bool
        False when Gurobi is not usable, or when its licence is the size-limited one and the
        reduced program exceeds :data:`LICENCE_MAX_VARIABLES`, :data:`LICENCE_MAX_CONSTRAINTS` or,
        with a quadratic term, :data:`LICENCE_MAX_QUADRATIC_VARIABLES`.

    Examples
    --------
    A program this small fits every licence, so the answer is whether Gurobi is usable at all:

    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> fits_licence(CONTRACT_PROBLEMS[4].program) == bool(GurobiBackend.availability())
    True
    """
    state = GurobiBackend.availability()
    if state is Availability.AVAILABLE:
        return True
    if not state:
        return False
    # the reduction only adds variables and constraints: reject early without building it
    quadratic = program.max_degree >= 2 or program.is_fractional
    max_vars = LICENCE_MAX_QUADRATIC_VARIABLES if quadratic else LICENCE_MAX_VARIABLES
    if program.n_variables > max_vars or len(program.constraints) > LICENCE_MAX_CONSTRAINTS:
        return False
    return _over_licence(reduce_for_gurobi(program)) is None


class GurobiBackend(Backend):
    """Gurobi via gurobipy: global nonconvex MIQCP solver (degree reduced to 2).

    Examples
    --------
    Solving needs the optional ``gurobipy`` package, so that line is skipped where it may be absent:

    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> GurobiBackend.capabilities.describe()
    'any degree, nonconvex, integers, global bounds'
    >>> res = GurobiBackend().solve(CONTRACT_PROBLEMS[4].program)  # doctest: +SKIP
    >>> round(res.objective_bound, 4)  # doctest: +SKIP
    0.1225
    """

    name = "gurobi"
    capabilities = Capabilities(max_degree=None, global_bound=True, fractional_objective=True)
    install_hint = 'pip install "fairprobe[gurobi]"  (plus a Gurobi licence for large models)'
    description = "Gurobi nonconvex MIQCP via gurobipy"

    @classmethod
    def availability(cls) -> Availability:
        """Installed and licensed? The pip wheel's size-limited licence is LIMITED_LICENSE.

        Returns
        -------
        Availability
            NOT_INSTALLED, AVAILABLE, LIMITED_LICENSE, BAD_VERSION or BAD_LICENSE; never raises.
        """
        if not cls._module_installed("gurobipy"):
            return Availability.NOT_INSTALLED
        return _probe()

    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        import gurobipy as gp
        from gurobipy import GRB

        start = time.perf_counter()
        work = reduce_for_gurobi(program)
        if self.availability() is Availability.LIMITED_LICENSE and _over_licence(work):
            raise BackendLicenseError(_licence_message(work))
        sense = program.sense
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 1 if options.verbose else 0)
        env.start()
        try:
            model = gp.Model(env=env)
            xs = [
                model.addVar(lb=-GRB.INFINITY if math.isinf(v.lb) else v.lb,
                             ub=GRB.INFINITY if math.isinf(v.ub) else v.ub, name=v.name,
                             vtype=GRB.INTEGER if v.integer else GRB.CONTINUOUS)
                for v in work.variables
            ]

            def expr(poly: dict) -> Any:
                # A QuadExpr without quadratic terms would still make Gurobi treat the model as
                # a QCP (barrier only, no infeasible/unbounded distinction): use LinExpr then.
                e = gp.QuadExpr() if any(len(m) == 2 for m in poly) else gp.LinExpr()
                for mono, coef in poly.items():
                    if not mono:
                        e.addConstant(coef)
                    elif len(mono) == 1:
                        e.add(xs[mono[0]], coef)
                    else:
                        e.add(xs[mono[0]] * xs[mono[1]], coef)
                return e

            for k, c in enumerate(work.constraints):
                model.addConstr(COMPARE[c.sense](expr(c.poly), c.rhs), name=c.name or f"c{k}")
            model.setObjective(expr(work.objective), GRB.MINIMIZE if sense == "min" else GRB.MAXIMIZE)
            model.Params.NonConvex = 2
            # Tight barrier tolerances: convex QPs are otherwise stopped at ~1e-6 accuracy.
            model.Params.BarConvTol = 1e-10
            model.Params.BarQCPConvTol = 1e-10
            if options.time_limit is not None:
                # the limit covers the whole call: building the model counts against it
                model.Params.TimeLimit = max(0.0, float(options.time_limit) - (time.perf_counter() - start))
            if options.node_limit is not None:
                model.Params.NodeLimit = float(options.node_limit)
            model.Params.MIPGap = float(options.rel_gap)
            model.Params.MIPGapAbs = float(options.abs_gap)
            model.Params.Seed = int(options.seed) % 2_000_000_000
            if options.threads is not None:
                model.Params.Threads = int(options.threads)
            if options.objective_limit is not None:  # Gurobi's "the answer is known" stops
                model.Params.BestObjStop = float(options.objective_limit)
                model.Params.BestBdStop = float(options.objective_limit)
            for key, value in options.solver_options.items():
                model.setParam(key, value)
            try:
                model.optimize()
            except gp.GurobiError as exc:
                if exc.errno == _SIZE_LIMIT_ERROR:
                    raise BackendLicenseError(_licence_message(work)) from None
                if exc.errno in _LICENSE_ERRORS:
                    raise BackendLicenseError(f"Gurobi licence problem: {exc}") from None
                raise SolverError(f"Gurobi failed: {exc}") from exc
            return self._result(model, program, work, xs, start)
        finally:
            env.dispose()

    @staticmethod
    def _result(model: Any, program: PolynomialProgram, work: PolynomialProgram, xs: list,
                start: float) -> SolveResult:
        import gurobipy as gp
        from gurobipy import GRB

        sense = program.sense
        status = model.Status
        mapping = {
            GRB.OPTIMAL: (Termination.OPTIMAL, None),
            GRB.INFEASIBLE: (Termination.INFEASIBLE, None),
            GRB.UNBOUNDED: (Termination.UNBOUNDED, None),
            GRB.INF_OR_UNBD: (Termination.INFEASIBLE, None),
            GRB.TIME_LIMIT: (Termination.LIMIT, Limit.TIME),
            GRB.NODE_LIMIT: (Termination.LIMIT, Limit.NODE),
            GRB.ITERATION_LIMIT: (Termination.LIMIT, Limit.ITERATION),
            GRB.SOLUTION_LIMIT: (Termination.LIMIT, Limit.SOLUTION),
            GRB.INTERRUPTED: (Termination.LIMIT, Limit.INTERRUPTED),
            GRB.MEM_LIMIT: (Termination.LIMIT, Limit.MEMORY),
            GRB.NUMERIC: (Termination.NUMERICAL_ERROR, None),
            GRB.SUBOPTIMAL: (Termination.NUMERICAL_ERROR, None),
            GRB.USER_OBJ_LIMIT: (Termination.LIMIT, Limit.OTHER),  # objective_limit reached: the answer is known
        }
        termination, limit = mapping.get(status, (Termination.ERROR, None))
        if status == GRB.INF_OR_UNBD:
            # Re-solve without dual reductions to tell infeasible from unbounded.
            model.Params.DualReductions = 0
            model.Params.Presolve = 0
            if model.Params.TimeLimit < GRB.INFINITY:  # the re-solve gets what is left of the limit
                model.Params.TimeLimit = max(0.0, model.Params.TimeLimit - model.Runtime)
            model.optimize()
            status = model.Status
            termination, limit = mapping.get(status, (Termination.ERROR, None))
            if status == GRB.INF_OR_UNBD:
                termination = Termination.ERROR
        incumbent = inc_obj = None
        if model.SolCount > 0 and termination not in (Termination.INFEASIBLE, Termination.UNBOUNDED):
            incumbent = point_from_values(program, model.getAttr("X", xs[: program.n_variables]))
            inc_obj = program.objective_value(incumbent)
        if termination in (Termination.INFEASIBLE, Termination.UNBOUNDED):
            bound = stop_bound(termination, sense)
        else:
            try:
                # ObjBound exists for models Gurobi treats as MIP (nonconvex quadratic); an LP
                # or convex QP solved to optimality is bounded by its optimal value.
                bound = float(model.ObjBound)
            except (AttributeError, gp.GurobiError):
                bound = float(model.ObjVal) if termination is Termination.OPTIMAL else no_bound(sense)
            if abs(bound) >= GRB.INFINITY:
                bound = no_bound(sense)
        return SolveResult(
            termination=termination,
            limit=limit,
            objective_bound=bound,
            incumbent_objective=inc_obj,
            incumbent=incumbent,
            solver="gurobi",
            solver_version="Gurobi {}.{}.{}".format(*gp.gurobi.version()),
            wall_time=time.perf_counter() - start,
            sense=sense,
            message=f"Gurobi status {status}",
            extra={"status": status, "n_variables_reduced": work.n_variables},
        )

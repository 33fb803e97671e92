"""Gurobi backend (gurobipy): nonconvex quadratic programs with global bounds.

Monomials of degree > 2 are reduced exactly to quadratic ones with auxiliary variables
(:func:`~fairprobe.backends.transforms.quadratize`); fractional objectives become an epigraph
constraint. ``objective_bound`` is Gurobi's ``ObjBound``. The licence that ships with the pip
wheel is size-limited (2000 variables and constraints); ``availability()`` reports it as
``LIMITED_LICENSE`` and a model over the limit raises
:class:`~fairprobe.exceptions.BackendLicenseError` instead of crashing.
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

from fairprobe.backends.base import (
    Availability,
    Backend,
    Capabilities,
    Limit,
    SolveOptions,
    SolveResult,
    Termination,
    no_bound,
)
from fairprobe.backends.transforms import fraction_to_epigraph, quadratize
from fairprobe.core.program import PolynomialProgram
from fairprobe.exceptions import BackendLicenseError, SolverError

__all__ = ["GurobiBackend"]

_SIZE_LIMIT_ERROR = 10010
_LICENSE_ERRORS = {10009, 10032}  # no licence, licence expired


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


class GurobiBackend(Backend):
    """Gurobi via gurobipy: global nonconvex MIQCP solver (degree reduced to 2)."""

    name = "gurobi"
    capabilities = Capabilities(max_degree=None, global_bound=True, fractional_objective=True)
    install_hint = 'pip install "fairprobe[gurobi]"  (plus a Gurobi licence for large models)'
    description = "Gurobi nonconvex MIQCP via gurobipy"

    @classmethod
    def availability(cls) -> Availability:
        """Installed and licensed? The pip wheel's size-limited licence is LIMITED_LICENSE."""
        if not cls._module_installed("gurobipy"):
            return Availability.NOT_INSTALLED
        return _probe()

    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        import gurobipy as gp
        from gurobipy import GRB

        start = time.perf_counter()
        work = quadratize(fraction_to_epigraph(program)).program
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
                body = expr(c.poly)
                name = c.name or f"c{k}"
                if c.sense == "<=":
                    model.addConstr(body <= c.rhs, name=name)
                elif c.sense == ">=":
                    model.addConstr(body >= c.rhs, name=name)
                else:
                    model.addConstr(body == c.rhs, name=name)
            model.setObjective(expr(work.objective), GRB.MINIMIZE if sense == "min" else GRB.MAXIMIZE)
            model.Params.NonConvex = 2
            # Tight barrier tolerances: convex QPs are otherwise stopped at ~1e-6 accuracy.
            model.Params.BarConvTol = 1e-10
            model.Params.BarQCPConvTol = 1e-10
            if options.time_limit is not None:
                model.Params.TimeLimit = float(options.time_limit)
            if options.node_limit is not None:
                model.Params.NodeLimit = float(options.node_limit)
            model.Params.MIPGap = float(options.rel_gap)
            model.Params.MIPGapAbs = float(options.abs_gap)
            model.Params.Seed = int(options.seed) % 2_000_000_000
            if options.threads is not None:
                model.Params.Threads = int(options.threads)
            for key, value in options.solver_options.items():
                model.setParam(key, value)
            try:
                model.optimize()
            except gp.GurobiError as exc:
                if exc.errno == _SIZE_LIMIT_ERROR:
                    stats = work.stats()
                    raise BackendLicenseError(
                        f"Gurobi's size-limited licence cannot solve this program "
                        f"({stats.n_variables} variables, {stats.n_constraints} constraints after "
                        "reduction to degree 2; the limit is 2000 each). Use backend='scip', or "
                        "install a full Gurobi licence."
                    ) from None
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
        }
        termination, limit = mapping.get(status, (Termination.ERROR, None))
        if status == GRB.INF_OR_UNBD:
            # Re-solve without dual reductions to tell infeasible from unbounded.
            model.Params.DualReductions = 0
            model.Params.Presolve = 0
            model.optimize()
            status = model.Status
            termination, limit = mapping.get(status, (Termination.ERROR, None))
            if status == GRB.INF_OR_UNBD:
                termination = Termination.ERROR
        incumbent = None
        inc_obj = None
        if model.SolCount > 0 and termination not in (Termination.INFEASIBLE, Termination.UNBOUNDED):
            values = model.getAttr("X", xs[: program.n_variables])
            incumbent = {v.name: float(x) for v, x in zip(program.variables, values, strict=True)}
            inc_obj = program.objective_value(incumbent)
        if termination is Termination.INFEASIBLE:
            bound = -no_bound(sense)
        elif termination is Termination.UNBOUNDED:
            bound = no_bound(sense)
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

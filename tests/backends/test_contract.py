"""Backend contract suite: known-answer programs against every available backend."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairprobe as fp
from fairprobe.backends.base import Availability, Limit, SolveOptions, Termination
from fairprobe.core.registry import get_registry
from fairprobe.exceptions import BackendCapabilityError, BackendLicenseError, ProgramError
from fairprobe.testing import (
    CONTRACT_PROBLEMS,
    Stopwatch,
    check_backend_class,
    declares_capable,
    hard_standard_quadratic,
)

BACKENDS = ["scip", "highs", "gurobi", "ortools", "cvxpy"]


def backend_or_skip(name: str) -> fp.Backend:
    cls = get_registry().backends[name]
    state = cls.availability()
    if not state:
        pytest.skip(f"backend {name!r} unavailable here: {cls.availability_reason()}")
    return cls()


@pytest.mark.parametrize("name", BACKENDS)
def test_backend_class_interface(name: str) -> None:
    check_backend_class(get_registry().backends[name])


@pytest.mark.parametrize("problem", CONTRACT_PROBLEMS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", BACKENDS)
def test_known_problem(name: str, problem) -> None:
    backend = backend_or_skip(name)
    prog = problem.program
    if not declares_capable(backend.capabilities, problem):
        with pytest.raises(BackendCapabilityError, match=r"backend='scip'"):
            backend.solve(prog)
        return
    res = backend.solve(prog)
    assert res.termination is problem.termination, res.message
    assert res.solver == name and res.sense == prog.sense and res.wall_time >= 0
    if problem.optimum is not None:
        opt = problem.optimum
        assert prog.max_violation(res.incumbent) <= 1e-5
        assert res.incumbent_objective == pytest.approx(opt, abs=1e-6)
        # the certified bound is on the valid side of the optimum ...
        if prog.sense == "min":
            assert res.objective_bound <= opt + 1e-6
        else:
            assert res.objective_bound >= opt - 1e-6
        # ... and tight (within 1e-4; the requirement for the OR-Tools B&B)
        assert res.objective_bound == pytest.approx(opt, abs=1e-4)
        assert res.limit is None
    elif problem.termination is Termination.INFEASIBLE:
        assert res.objective_bound == (math.inf if prog.sense == "min" else -math.inf)
        assert res.incumbent is None
    elif problem.termination is Termination.UNBOUNDED:
        assert res.objective_bound == (-math.inf if prog.sense == "min" else math.inf)


@pytest.mark.parametrize("name", ["scip", "gurobi", "ortools"])
def test_time_limit_still_reports_a_valid_bound(name: str) -> None:
    backend = backend_or_skip(name)
    prog = hard_standard_quadratic()
    for limit in (1.0, 4.0, 16.0):  # 1 s of CPU is enough for a root bound; a busy machine may give it less
        with Stopwatch() as watch:
            res = backend.solve(prog, SolveOptions(time_limit=limit))
        if math.isfinite(res.objective_bound) or watch.cpu >= limit / 2:
            break
    assert res.termination in (Termination.LIMIT, Termination.OPTIMAL)
    if res.termination is Termination.LIMIT:
        assert res.limit is Limit.TIME
    # every vertex e_i is feasible with value Q_ii, so the optimum (and any valid lower bound)
    # is <= min_i Q_ii; the trivial bound -inf is valid but the backends must do better.
    vertex_best = min(prog.objective[(i, i)] for i in range(prog.n_variables))
    assert res.objective_bound <= vertex_best + 1e-9
    assert math.isfinite(res.objective_bound)
    # and the bound is a true lower bound: no feasible point beats it (random simplex points)
    rng = np.random.default_rng(0)
    pts = rng.dirichlet(np.full(prog.n_variables, 0.2), size=200)
    assert min(prog.objective_value(p) for p in pts) >= res.objective_bound - 1e-9
    if res.incumbent is not None:
        assert prog.max_violation(res.incumbent) <= 1e-5
        assert res.incumbent_objective >= res.objective_bound - 1e-6


@pytest.mark.parametrize("name", ["scip", "gurobi"])
def test_objective_limit_stops_once_the_answer_is_known(name: str) -> None:
    """A limit above every vertex value: the first incumbent answers "optimum <= limit?"; the bound stays valid."""
    backend = backend_or_skip(name)
    prog = hard_standard_quadratic(n=30 if name == "gurobi" else 60)
    vertex_best = min(prog.objective[(i, i)] for i in range(prog.n_variables))
    limit = vertex_best + 1.0
    with Stopwatch() as watch:
        res = backend.solve(prog, SolveOptions(objective_limit=limit, time_limit=20))
    assert res.termination in (Termination.LIMIT, Termination.OPTIMAL)
    assert res.incumbent_objective is not None and res.incumbent_objective <= limit + 1e-9
    assert prog.max_violation(res.incumbent) <= 1e-5
    assert res.objective_bound <= res.incumbent_objective + 1e-9  # still a certified lower bound
    # it did not run to the proof of optimality (not solvable in 0.3 s); counted so a busy machine does not fail it
    assert watch.seconds < 5.0, (watch.wall, watch.cpu)


def test_ortools_node_limit_reports_certified_gap() -> None:
    backend = backend_or_skip("ortools")
    prog = next(p for p in CONTRACT_PROBLEMS if p.name == "cubic_product").program
    res = backend.solve(prog, SolveOptions(node_limit=3))
    assert res.termination is Termination.LIMIT and res.limit is Limit.NODE
    assert res.objective_bound >= 1 / 27 - 1e-9  # still a valid upper bound on the max
    assert res.objective_bound < 1.0  # and better than the trivial box bound


def test_cvxpy_refuses_nonconvex_with_clear_message() -> None:
    backend = backend_or_skip("cvxpy")
    prog = next(p for p in CONTRACT_PROBLEMS if p.name == "bilinear_simplex").program
    with pytest.raises(BackendCapabilityError,
                       match=r"convex programs only, but the objective is indefinite.*backend='scip'"):
        backend.solve(prog)
    cubic = next(p for p in CONTRACT_PROBLEMS if p.name == "cubic_product").program
    with pytest.raises(BackendCapabilityError, match=r"degree <= 2.*degree 3"):
        backend.solve(cubic)


def test_gurobi_size_limited_licence_is_a_clear_error() -> None:
    backend = backend_or_skip("gurobi")
    if backend.availability() is not Availability.LIMITED_LICENSE:
        pytest.skip("a full Gurobi licence is installed; the size limit does not apply")
    prog = fp.PolynomialProgram(sense="min")
    idx = [prog.add_variable(f"x{i}", 0, 1) for i in range(2500)]
    prog.set_objective({(i,): 1.0 for i in idx})
    with pytest.raises(BackendLicenseError, match=r"size-limited licence.*2500 variables.*scip"):
        backend.solve(prog)


def test_ortools_needs_finite_bounds_on_nonlinear_variables() -> None:
    backend = backend_or_skip("ortools")
    prog = fp.PolynomialProgram.from_text("minimize\n  x*y\nbounds\n  0 <= x <= 1\n  0 <= y <= inf\n")
    with pytest.raises(BackendCapabilityError, match=r"finite bounds.*\['y'\].*backend='scip'"):
        backend.solve(prog)


def test_program_with_nan_is_refused_before_the_solver() -> None:
    prog = fp.PolynomialProgram.from_text("minimize\n  x\nbounds\n  0 <= x <= 1\n")
    prog.objective[(0,)] = float("nan")
    with pytest.raises(ProgramError, match="not finite"):
        fp.get_backend("scip").solve(prog)


def test_fractional_objective_with_nonpositive_denominator_is_refused() -> None:
    backend = backend_or_skip("ortools")
    prog = fp.PolynomialProgram.from_text(
        "maximize\n  (x) / (x - 0.5)\nbounds\n  0 <= x <= 1\n")
    with pytest.raises(ProgramError, match="denominator is not strictly positive"):
        backend.solve(prog)


@pytest.mark.parametrize("name", BACKENDS)
def test_backends_agree_on_random_linear_fractional(name: str) -> None:
    """Random LF programs: every backend matches a dense vertex enumeration."""
    backend = backend_or_skip(name)
    rng = np.random.default_rng(7)
    for _ in range(5):
        a, b = rng.uniform(0, 1, 2), rng.uniform(0.5, 1, 2)
        prog = fp.PolynomialProgram(sense="max")
        x = prog.add_variable("x", 0, 1)
        y = prog.add_variable("y", 0, 1)
        prog.add_constraint({(x,): 1.0, (y,): 1.0}, "<=", 1.0)
        prog.set_objective({(x,): a[0], (y,): a[1], (): 0.1}, denominator={(x,): b[0], (y,): b[1], (): 0.2})
        vertices = [(0, 0), (1, 0), (0, 1)]  # LF optima are attained at vertices
        best = max(prog.objective_value(v) for v in vertices)
        res = backend.solve(prog)
        assert res.objective_bound == pytest.approx(best, abs=1e-6)
        assert res.objective_bound >= best - 1e-7

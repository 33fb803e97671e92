"""backend="auto": the choice per program, the Gurobi licence limits, time limits of every backend."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe import hookimpl
from fairprobe.backends.auto import AutoBackend, choose_backend
from fairprobe.backends.base import Availability, SolveOptions
from fairprobe.backends.gurobi import (
    LICENCE_MAX_CONSTRAINTS,
    LICENCE_MAX_QUADRATIC_VARIABLES,
    LICENCE_MAX_VARIABLES,
    GurobiBackend,
    fits_licence,
)
from fairprobe.core.registry import get_registry
from fairprobe.exceptions import BackendLicenseError, BackendUnavailableError
from fairprobe.testing import check_time_limit, dense_lp, fresh_plugin_manager, hard_standard_quadratic

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})


def usable(name: str) -> bool:
    return bool(get_registry().backends[name].availability())


def skip_unless(name: str) -> None:
    cls = get_registry().backends[name]
    if not cls.availability():
        pytest.skip(f"backend {name!r} unavailable here: {cls.availability_reason()}")


def skip_unless_size_limited_gurobi() -> None:
    skip_unless("gurobi")
    if GurobiBackend.availability() is not Availability.LIMITED_LICENSE:
        pytest.skip("a full Gurobi licence is installed: no size limit to test")


def linear_program() -> fp.PolynomialProgram:
    return fp.PolynomialProgram.from_text(
        "maximize\n  x + 2*y\nsubject to\n  x + y <= 1\nbounds\n  0 <= x <= 1\n  0 <= y <= 1\n")


def linear_fractional_program() -> fp.PolynomialProgram:
    return fp.PolynomialProgram.from_text(
        "maximize\n  (x + 0.1) / (y + 0.5)\nsubject to\n  x + y <= 1\nbounds\n  0 <= x <= 1\n  0 <= y <= 1\n")


def bilinear_pairs(n_pairs: int, extra_cubics: int = 0, n_linear: int = 0) -> fp.PolynomialProgram:
    """max sum x_i*y_i s.t. x_i + y_i <= 1: optimum n_pairs/4, easy for every global solver.

    ``extra_cubics`` adds monomials x_k*x_(k+1)*y_k, each one auxiliary variable (for x_k*x_(k+1))
    after Gurobi's reduction to degree 2; ``n_linear`` adds linear variables.
    """
    prog = fp.PolynomialProgram(sense="max")
    xs = [prog.add_variable(f"x{i}", 0, 1) for i in range(n_pairs)]
    ys = [prog.add_variable(f"y{i}", 0, 1) for i in range(n_pairs)]
    zs = [prog.add_variable(f"z{i}", 0, 1) for i in range(n_linear)]
    objective = {(x, y): 1.0 for x, y in zip(xs, ys, strict=True)}
    for k in range(extra_cubics):
        objective[(xs[k], xs[k + 1], ys[k])] = 1e-3
    for z in zs:
        objective[(z,)] = -1.0
    prog.set_objective(objective)
    for x, y in zip(xs, ys, strict=True):
        prog.add_constraint({(x,): 1.0, (y,): 1.0}, "<=", 1.0)
    return prog


# -- the built-in choice ------------------------------------------------------------------------
def test_get_backend_auto_is_a_dispatcher() -> None:
    auto = fp.get_backend("auto")
    assert isinstance(auto, AutoBackend) and auto.name == "auto"


def test_without_a_program_the_builtin_choice_is_scip() -> None:
    assert choose_backend(None, ["gurobi", "ortools", "scip"]) == "scip"
    assert choose_backend(None, ["ortools"]) == "ortools"
    assert choose_backend(None, []) is None


@pytest.mark.parametrize("make", [linear_program, linear_fractional_program], ids=["lp", "lfp"])
def test_linear_programs_go_to_the_lp_solver(make) -> None:
    prog = make()
    # one rule for a bound's LPs and auto's: HiGHS (verified), else OR-Tools, else SCIP's LP (not Gurobi)
    assert choose_backend(prog, ["gurobi", "highs", "ortools", "scip"]) == "highs"
    assert choose_backend(prog, ["gurobi", "ortools", "scip"]) == "ortools"
    assert choose_backend(prog, ["gurobi", "scip"]) == "scip"
    assert choose_backend(prog, ["gurobi", "highs", "scip"], requested="scip") == "highs"
    assert choose_backend(prog, ["gurobi", "highs", "scip"], requested="gurobi") == "gurobi"
    skip_unless("highs")
    res = fp.get_backend("auto").solve(prog)
    assert res.extra["auto_choice"] == "highs" and res.solver == "highs" and res.extra["verified"]
    assert res.message.startswith("auto chose highs for a linear")
    expected = fp.get_backend("scip").solve(prog).objective_bound
    assert res.objective_bound == pytest.approx(expected, abs=1e-6)


def test_mixed_integer_programs_go_to_gurobi_or_scip() -> None:
    """Measured: HiGHS through MathOpt was the slowest on MILPs (exact multiplicity, 30 rows)."""
    prog = fp.PolynomialProgram(sense="max")
    x = prog.add_variable("x", 0, 3, integer=True)
    y = prog.add_variable("y", 0, 3, integer=True)
    prog.set_objective({(x,): 1.0, (y,): 1.0})
    prog.add_constraint({(x,): 2.0, (y,): 2.0}, "<=", 5.0)
    assert choose_backend(prog, ["ortools", "scip"]) == "scip"
    if GurobiBackend.availability():
        assert choose_backend(prog, ["gurobi", "ortools", "scip"]) == "gurobi"
    res = fp.get_backend("auto").solve(prog)
    assert res.extra["auto_choice"] in {"gurobi", "scip"}
    assert res.objective_bound == pytest.approx(2.0, abs=1e-6)


def test_small_nonconvex_program_goes_to_gurobi() -> None:
    prog = bilinear_pairs(3)
    skip_unless("gurobi")
    assert choose_backend(prog, ["gurobi", "ortools", "scip"]) == "gurobi"
    res = fp.get_backend("auto").solve(prog, SolveOptions(time_limit=30))
    assert res.extra["auto_choice"] == "gurobi" and res.solver == "gurobi"
    assert res.objective_bound == pytest.approx(0.75, abs=1e-6)


def test_nonconvex_program_goes_to_scip_without_gurobi() -> None:
    assert choose_backend(bilinear_pairs(3), ["ortools", "scip", "cvxpy"]) == "scip"


def test_licence_limit_is_measured_on_the_program_gurobi_receives() -> None:
    skip_unless_size_limited_gurobi()
    avail = ["gurobi", "ortools", "scip"]
    # 2*99 + 2 = 200 variables: within the limit for quadratic programs
    assert choose_backend(bilinear_pairs(99, n_linear=2), avail) == "gurobi"
    assert choose_backend(bilinear_pairs(99, n_linear=3), avail) == "scip"  # 201 variables
    # 198 variables + one auxiliary product per cubic monomial after the reduction to degree 2
    assert choose_backend(bilinear_pairs(99, extra_cubics=2), avail) == "gurobi"  # 200
    assert choose_backend(bilinear_pairs(99, extra_cubics=3), avail) == "scip"  # 201
    # linear programs have the larger limit, but go to the LP solver anyway
    lp = fp.PolynomialProgram(sense="min")
    for i in range(LICENCE_MAX_VARIABLES):
        lp.add_variable(f"v{i}", 0, 1)
    assert fits_licence(lp)
    lp.add_variable("one_more", 0, 1)
    assert not fits_licence(lp)


def test_measured_limits_match_the_installed_licence() -> None:
    """The constants are the limits of the licence installed here: one variable more is refused."""
    skip_unless_size_limited_gurobi()
    gurobi = GurobiBackend()
    at_limit = bilinear_pairs(LICENCE_MAX_QUADRATIC_VARIABLES // 2)
    res = gurobi.solve(at_limit, SolveOptions(time_limit=20))
    assert res.objective_bound == pytest.approx(LICENCE_MAX_QUADRATIC_VARIABLES / 8, rel=1e-5)
    over = bilinear_pairs(LICENCE_MAX_QUADRATIC_VARIABLES // 2, n_linear=1)
    with pytest.raises(BackendLicenseError):
        gurobi.solve(over)
    # Gurobi itself (not only fairprobe's pre-check) refuses one variable or constraint more
    import gurobipy as gp

    with gp.Env(params={"OutputFlag": 0}) as env:
        for n_vars, n_cons, quadratic in [(LICENCE_MAX_QUADRATIC_VARIABLES + 1, 1, True),
                                          (LICENCE_MAX_VARIABLES + 1, 1, False),
                                          (2, LICENCE_MAX_CONSTRAINTS + 1, False)]:
            with gp.Model(env=env) as model:
                x = model.addVars(n_vars, ub=1)
                for k in range(n_cons):
                    model.addConstr(x[0] + x[1] <= 1 + k)
                if quadratic:
                    model.setObjective(x[0] * x[1])
                    model.Params.NonConvex = 2
                with pytest.raises(gp.GurobiError) as info:
                    model.optimize()
                assert info.value.errno == 10010


def test_gurobi_licence_error_states_the_real_limits() -> None:
    skip_unless_size_limited_gurobi()
    prog = bilinear_pairs(101)  # 202 variables with quadratic terms
    with pytest.raises(BackendLicenseError) as info:
        GurobiBackend().solve(prog)
    message = str(info.value)
    assert "202 variables" in message and "quadratic terms" in message
    assert f"linear programs of up to {LICENCE_MAX_VARIABLES} variables and {LICENCE_MAX_CONSTRAINTS} constraints" \
        in message
    assert f"only up to {LICENCE_MAX_QUADRATIC_VARIABLES} variables" in message
    assert "backend='auto'" in message and "backend='scip'" in message and "full Gurobi licence" in message


def test_nonconvex_program_above_the_licence_goes_to_scip() -> None:
    prog = bilinear_pairs(3, n_linear=LICENCE_MAX_QUADRATIC_VARIABLES)  # 206 variables
    if usable("gurobi") and GurobiBackend.availability() is Availability.AVAILABLE:
        pytest.skip("a full Gurobi licence is installed: Gurobi takes programs of any size")
    res = fp.get_backend("auto").solve(prog, SolveOptions(time_limit=60))
    assert res.extra["auto_choice"] == "scip" and res.solver == "scip"
    assert res.objective_bound == pytest.approx(0.75, abs=1e-6)


# -- bounds ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("bias, metric, given", [
    ("proxy_label", "fpr_parity", None),
    ("selection", "equalized_odds", {"S": 1}),
])
def test_auto_bounds_equal_scip_bounds(bias: str, metric: str, given) -> None:
    data = CELLS if given is None else fp.ObservedTable.from_probabilities(CELLS, given=given)
    scip = fp.bound(bias, metric, data, D=0.05, backend="scip")
    auto = fp.bound(bias, metric, data, D=0.05, backend="auto")
    assert auto.lower == pytest.approx(scip.lower, abs=1e-6)
    assert auto.upper == pytest.approx(scip.upper, abs=1e-6)
    assert auto.status == "optimal" and auto.backend == "auto"
    for res in (auto.min_result, auto.max_result):
        assert res.extra["auto_choice"] in {"gurobi", "ortools", "scip", "highs"}
        assert res.message.startswith(f"auto chose {res.extra['auto_choice']}")


def test_auto_in_worker_processes() -> None:
    """n_jobs=2 re-creates the backend in each worker from its name: "auto" again."""
    scip = fp.bound("proxy_label", "fpr_parity", CELLS, D=0.05, backend="scip")
    auto = fp.bound("proxy_label", "fpr_parity", CELLS, D=0.05, backend="auto", n_jobs=2)
    assert (auto.lower, auto.upper) == pytest.approx((scip.lower, scip.upper), abs=1e-6)


# -- plugins ----------------------------------------------------------------------------------------
class ScipForEverything:
    """A third-party choice per program (None without a program: choose program by program)."""

    @hookimpl
    def fairprobe_select_backend(self, program, available):
        return None if program is None else "scip"


class OneBackendForAll:
    @hookimpl
    def fairprobe_select_backend(self, program, available):
        return "scip"


class ChoosesTheUnusable:
    @hookimpl
    def fairprobe_select_backend(self, program, available):
        return None if program is None else "no_such_backend"


def test_third_party_hook_overrides_the_choice() -> None:
    pm = fresh_plugin_manager(ScipForEverything())
    auto = fp.get_backend("auto", pm=pm)
    assert isinstance(auto, AutoBackend)
    res = auto.solve(linear_program())  # the built-in choice would be the LP solver
    assert res.extra["auto_choice"] == "scip" and res.solver == "scip"
    assert auto.choices["scip"] == 1


def test_a_choice_without_a_program_fixes_one_backend() -> None:
    backend = fp.get_backend("auto", pm=fresh_plugin_manager(OneBackendForAll()))
    assert not isinstance(backend, AutoBackend) and backend.name == "scip"


def test_an_unusable_choice_is_a_clear_error() -> None:
    auto = fp.get_backend("auto", pm=fresh_plugin_manager(ChoosesTheUnusable()))
    with pytest.raises(BackendUnavailableError, match=r"chose 'no_such_backend'.*usable"):
        auto.solve(linear_program())


def test_a_refused_program_falls_back_to_scip() -> None:
    skip_unless_size_limited_gurobi()

    class GurobiAlways:
        @hookimpl
        def fairprobe_select_backend(self, program, available):
            return None if program is None else "gurobi"

    auto = fp.get_backend("auto", pm=fresh_plugin_manager(GurobiAlways()))
    prog = bilinear_pairs(3, n_linear=LICENCE_MAX_QUADRATIC_VARIABLES)
    res = auto.solve(prog, SolveOptions(time_limit=60))
    assert res.extra["auto_choice"] == "scip" and "instead of gurobi" in res.message
    assert res.objective_bound == pytest.approx(0.75, abs=1e-6)


# -- time limits ------------------------------------------------------------------------------------
TIME_LIMIT = 1.0
SLACK = 3.0  # seconds over the limit still counted as "respected" (model building, reading the answer)


@pytest.mark.parametrize("name", ["scip", "highs", "gurobi", "ortools", "cvxpy", "auto"])
def test_every_backend_respects_the_time_limit(name: str) -> None:
    if name != "auto":
        skip_unless(name)
    backend = fp.get_backend(name)
    backend.solve(linear_program())  # warm-up: imports and licence checks are not the solve
    convex_only = name in ("cvxpy", "highs")  # they refuse the nonconvex program: a dense LP instead
    prog = dense_lp() if convex_only else hard_standard_quadratic()
    # the smaller of wall-clock and CPU time: a loaded machine (wall clock far past the limit, little CPU
    # used) does not fail it, a solve that ignores its limit does (wall-clock figures: benchmarks/time_limits.py)
    res, _ = check_time_limit(backend, prog, time_limit=TIME_LIMIT, slack=SLACK)
    if convex_only:
        # x = 1 is feasible (each row sums to its right-hand side): the upper bound is above its value
        assert res.objective_bound >= prog.objective_value([1.0] * prog.n_variables) - 1e-6
    else:
        # every vertex e_i is feasible with value Q_ii: a valid lower bound is below all of them,
        # and below the value of random feasible points
        rng = np.random.default_rng(0)
        points = rng.dirichlet(np.full(prog.n_variables, 0.2), size=100)
        best = min([prog.objective[(i, i)] for i in range(prog.n_variables)]
                   + [prog.objective_value(p) for p in points])
        assert res.objective_bound <= best + 1e-9
    if res.incumbent is not None:
        assert prog.max_violation(res.incumbent) <= 1e-5
        assert not math.isnan(res.incumbent_objective)

"""The HiGHS backend's verified bounds: never on the wrong side of the exact rational optimum."""

from __future__ import annotations

import itertools
import math
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairprobe as fp
from fairprobe.backends.base import Termination
from fairprobe.exceptions import ProgramError
from fairprobe.program.safe_bounds import linear_arrays, verified_lower_bound

pytest.importorskip("highspy", reason="needs highspy (a fairprobe dependency)")


def _solve_exact(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """Gaussian elimination in rationals; None when singular."""
    n = len(a)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for col in range(n):
        piv = next((r for r in range(col, n) if m[r][col] != 0), None)
        if piv is None:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col and m[r][col] != 0:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def exact_optimum(prog: fp.PolynomialProgram) -> Fraction | None:
    """min/max of a small bounded LP in exact rationals, by enumerating vertices (None: infeasible)."""
    n = prog.n_variables
    rows = []  # (coefficients, rhs, sense) with every float read exactly
    for c in prog.constraints:
        coef = [Fraction(c.poly.get((j,), 0.0)) for j in range(n)]
        rows.append((coef, Fraction(c.rhs), c.sense))
    for j, v in enumerate(prog.variables):
        unit = [Fraction(int(i == j)) for i in range(n)]
        rows.append((unit, Fraction(v.lb), ">="))
        rows.append((unit, Fraction(v.ub), "<="))
    obj = [Fraction(prog.objective.get((j,), 0.0)) for j in range(n)]
    best = None
    for active in itertools.combinations(range(len(rows)), n):
        x = _solve_exact([rows[i][0] for i in active], [rows[i][1] for i in active])
        if x is None:
            continue
        ok = all((s == "<=" and sum(a * xi for a, xi in zip(co, x, strict=True)) <= r)
                 or (s == ">=" and sum(a * xi for a, xi in zip(co, x, strict=True)) >= r)
                 or (s == "==" and sum(a * xi for a, xi in zip(co, x, strict=True)) == r)
                 for co, r, s in rows)
        if ok:
            val = sum(c * xi for c, xi in zip(obj, x, strict=True))
            if best is None or (val < best if prog.sense == "min" else val > best):
                best = val
    return best


#: coefficients from tiny to huge, signs mixed: where floating point is adversarial
_coef = st.one_of(st.floats(-1e3, 1e3, allow_nan=False), st.sampled_from([1e-9, -1e-9, 1e-7, 3e5, -7e5, 1 / 3]),
                  st.just(0.0))


@st.composite
def small_lps(draw):
    n = draw(st.integers(2, 3))
    m = draw(st.integers(1, 3))
    prog = fp.PolynomialProgram(sense=draw(st.sampled_from(["min", "max"])))
    for j in range(n):
        lb = draw(st.sampled_from([0.0, -1.0, 1e-8]))
        prog.add_variable(f"x{j}", lb, lb + draw(st.sampled_from([1.0, 1e-6, 1e4, 0.3])))
    for _ in range(m):
        coefs = {(j,): draw(_coef) for j in range(n)}
        coefs = {k: v for k, v in coefs.items() if v != 0.0} or {(0,): 1.0}
        prog.add_constraint(coefs, draw(st.sampled_from(["<=", ">=", "=="])), draw(_coef))
    prog.set_objective({(j,): draw(_coef) for j in range(n)})
    return prog


@pytest.mark.fuzz
@settings(max_examples=150, deadline=None)
@given(small_lps())
def test_verified_bound_never_excludes_the_exact_optimum(prog: fp.PolynomialProgram) -> None:
    exact = exact_optimum(prog)
    res = fp.get_backend("highs").solve(prog)
    if exact is None:
        # HiGHS may find a nearly infeasible program feasible within its tolerance; it never invents an optimum
        # on the wrong side, which is all that is asserted then
        return
    if res.termination is Termination.INFEASIBLE:
        return  # HiGHS called a barely feasible program infeasible (its tolerance): it claimed no bound
    assert res.termination is Termination.OPTIMAL, res.message
    if not res.extra["verified"]:
        return
    bound = Fraction(res.objective_bound)
    if prog.sense == "min":
        assert bound <= exact, (float(bound), float(exact))
    else:
        assert bound >= exact, (float(bound), float(exact))


def test_verified_bound_is_sharp_on_a_well_posed_lp() -> None:
    prog = fp.PolynomialProgram.from_text(
        "maximize\n  3*x + 2*y\nsubject to\n  x + y <= 4\n  x + 3*y <= 6\nbounds\n  0 <= x <= 3\n  0 <= y <= 10")
    res = fp.get_backend("highs").solve(prog)
    assert res.extra["verified"] and res.objective_bound >= 11.0
    assert res.objective_bound - 11.0 < 1e-12
    assert res.incumbent_objective == pytest.approx(11.0, abs=1e-12)


def test_a_wrong_dual_still_gives_a_valid_bound() -> None:
    """Weak duality: any multiplier vector bounds the LP, a poor one only loosely."""
    prog = fp.PolynomialProgram.from_text(
        "minimize\n  x + 2*y\nsubject to\n  x + y >= 1\n  x - y <= 0.5\nbounds\n  0 <= x <= 1\n  0 <= y <= 1")
    exact = float(exact_optimum(prog))
    arr = linear_arrays(prog)
    rng = np.random.default_rng(0)
    for _ in range(200):
        y = rng.normal(size=2) * rng.choice([1e-6, 1.0, 1e6])
        assert verified_lower_bound(arr, y) <= exact


def test_infinite_box_without_a_sign_certificate_is_flagged_unverified() -> None:
    prog = fp.PolynomialProgram.from_text("minimize\n  x - y\nsubject to\n  x - y >= -1\nbounds\n  0 <= x <= inf\n"
                                          "  0 <= y <= inf")
    res = fp.get_backend("highs").solve(prog)
    assert res.termination is Termination.OPTIMAL
    assert res.objective_bound == pytest.approx(-1.0)
    assert isinstance(res.extra["verified"], bool)


def test_fractional_bound_is_verified_and_checked_for_a_positive_denominator() -> None:
    prog = fp.PolynomialProgram.from_text(
        "maximize\n  (x + 0.1) / (y + 0.2)\nsubject to\n  x + y <= 1\nbounds\n  0 <= x <= 1\n  0 <= y <= 1")
    res = fp.get_backend("highs").solve(prog)
    assert res.extra["verified"] and res.objective_bound >= 1.1 / 0.2
    assert res.objective_bound - 1.1 / 0.2 < 1e-9
    bad = fp.PolynomialProgram.from_text("maximize\n  (x) / (x - 0.5)\nbounds\n  0 <= x <= 1\n")
    with pytest.raises(ProgramError, match="not strictly positive"):
        fp.get_backend("highs").solve(bad)


def test_unknown_solver_option_is_a_clear_error() -> None:
    prog = fp.PolynomialProgram.from_text("maximize\n  x\nbounds\n  0 <= x <= 1\n")
    with pytest.raises(fp.SolverError, match="HiGHS does not accept the option 'no_such_option'"):
        fp.get_backend("highs").solve(prog, fp.SolveOptions(solver_options={"no_such_option": 1}))


def test_milp_dual_bound() -> None:
    prog = fp.PolynomialProgram.from_text(
        "maximize\n  x + y\nsubject to\n  2*x + 2*y <= 3\nbounds\n  0 <= x <= 3 integer\n  0 <= y <= 3 integer")
    res = fp.get_backend("highs").solve(prog)
    assert res.termination is Termination.OPTIMAL and res.incumbent_objective == 1.0
    assert math.isclose(res.objective_bound, 1.0, abs_tol=1e-9)


def test_time_limit_is_per_solve_although_the_instance_is_reused() -> None:
    """HiGHS's run clock adds up over an instance's runs; a short limit after many solves is still a full solve."""
    from fairprobe.backends import highs_lp as highs

    prog = fp.PolynomialProgram.from_text(
        "maximize\n  x + y\nsubject to\n  x + y <= 1\nbounds\n  0 <= x <= 1\n  0 <= y <= 1")
    backend = fp.get_backend("highs")
    while highs._instance().getRunTime() < 0.1:  # the reused instance's clock past the limit below
        backend.solve(prog)
    res = backend.solve(prog, fp.SolveOptions(time_limit=0.05))
    assert res.termination is Termination.OPTIMAL and res.objective_bound == pytest.approx(1.0, abs=1e-12)


@pytest.mark.fuzz
@settings(max_examples=100, deadline=None)
@given(small_lps(), st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=3, max_size=3))
def test_exact_dual_evaluation_never_excludes_the_exact_optimum(prog: fp.PolynomialProgram, noise: list) -> None:
    """``exact_lower_bound`` is weak duality evaluated exactly: below the optimum for any dual vector."""
    from fairprobe.backends.highs_lp import run_lp
    from fairprobe.program.safe_bounds import exact_lower_bound

    exact = exact_optimum(prog)
    if exact is None:
        return
    sign = 1.0 if prog.sense == "min" else -1.0
    arr = linear_arrays(prog, sign=sign)
    run = run_lp(arr, None, fp.SolveOptions(), None)
    duals = [np.asarray(noise[: arr.n_rows])]
    if run.y is not None:
        duals.append(run.y)
    for y in duals:
        bound = exact_lower_bound(arr, y)
        if math.isfinite(bound):
            assert Fraction(bound) <= sign * exact, (bound, float(sign * exact))


def _vertices(rows: list, n: int) -> list[list[Fraction]]:
    """Every vertex of {x : rows} (coefficients, rhs, sense), in exact rationals."""
    out = []
    for active in itertools.combinations(range(len(rows)), n):
        x = _solve_exact([rows[i][0] for i in active], [rows[i][1] for i in active])
        if x is None:
            continue
        if all((s == "<=" and sum(a * xi for a, xi in zip(co, x, strict=True)) <= r)
               or (s == ">=" and sum(a * xi for a, xi in zip(co, x, strict=True)) >= r)
               or (s == "==" and sum(a * xi for a, xi in zip(co, x, strict=True)) == r) for co, r, s in rows):
            out.append(x)
    return out


_small = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 1e-7, 2.0, 0.1, 0.9]), st.floats(0, 3, allow_nan=False))


@pytest.mark.fuzz
@settings(max_examples=int(os.environ.get("FAIRPROBE_FUZZ_EXAMPLES", 60)), deadline=None)
@given(st.lists(_small, min_size=6, max_size=6), st.sampled_from(["min", "max"]),
       st.floats(0.05, 0.6), st.floats(0.05, 0.6))
def test_two_ratio_bound_never_excludes_a_models_value(c: list, sense: str, mass_a: float, cap: float) -> None:
    """A parity of two rates over a small polytope: the verified bound holds every exact model value.

    Models: the polytope's vertices and rational points on the segments between them (exact
    rationals); every such value of ``r_a - r_b`` lies on the right side of the reported bound, and
    the bound is within 1e-7 of the best of them (the optimum lies on an edge).
    """
    x, y, z, w = "x", "y", "z", "w"
    prog = fp.PolynomialProgram.from_text(f"""
{"maximize" if sense == "max" else "minimize"}
  ra - rb
subject to
  s: x + y + z + w == 1
  da: ra*x + ra*y - x == 0
  db: rb*z + rb*w - z == 0
  pa: x + y >= {mass_a!r}
  pb: z + w >= 0.05
  cap: {c[0]!r}*x + {c[1]!r}*y + {c[2]!r}*z + {c[3]!r}*w <= {cap!r}
  link: {c[4]!r}*x - {c[5]!r}*w <= 0.5
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1
  0 <= w <= 1
  0 <= ra <= 1
  0 <= rb <= 1
""")
    res = fp.get_backend("highs").solve_two_ratio(prog)
    q = [0, 1, 2, 3]  # x, y, z, w
    rows = []
    for con in prog.constraints:
        if con.name in ("da", "db"):
            continue
        rows.append(([Fraction(con.poly.get((prog.index(v),), 0.0)) for v in (x, y, z, w)], Fraction(con.rhs),
                     con.sense))
    for j in q:
        unit = [Fraction(int(i == j)) for i in q]
        rows += [(unit, Fraction(0), ">="), (unit, Fraction(1), "<=")]
    verts = _vertices(rows, 4)
    if not verts:
        return  # an empty polytope: nothing to bound
    assert res is not None and res.extra["verified"]  # both denominators are at least 0.05: the search applies
    values = []
    for a, b in itertools.combinations_with_replacement(verts, 2):
        for t in (Fraction(k, 16) for k in range(17)):
            p = [t * ai + (1 - t) * bi for ai, bi in zip(a, b, strict=True)]
            if p[0] + p[1] > 0 and p[2] + p[3] > 0:
                values.append(p[0] / (p[0] + p[1]) - p[2] / (p[2] + p[3]))
    assert values
    bound = Fraction(res.objective_bound)
    if sense == "max":
        assert all(v <= bound for v in values), (float(max(values)), res.objective_bound)
        assert res.objective_bound - float(max(values)) <= 1e-2  # sampled edges: close, not exact
    else:
        assert all(v >= bound for v in values), (float(min(values)), res.objective_bound)
        assert float(min(values)) - res.objective_bound <= 1e-2


def test_a_badly_scaled_row_is_solved_not_an_error() -> None:
    """HiGHS's simplex without presolve ended with status "Not Set" on ``1e-7 * x1 <= 0`` (found by the
    property test above); the run is repeated with presolve, and the verified optimum is the exact 0."""
    prog = fp.PolynomialProgram.from_text("maximize\n  118*x1\nsubject to\n  a: x0 <= 0\n  b: 1e-07*x1 <= 0\n"
                                          "bounds\n  0 <= x0 <= 1\n  0 <= x1 <= 1")
    res = fp.get_backend("highs").solve(prog)
    assert res.termination is Termination.OPTIMAL
    assert 0.0 <= res.objective_bound <= 1e-12 and res.incumbent_objective == 0.0


def test_a_row_the_simplex_cannot_meet_at_its_tolerance_is_solved_not_an_error() -> None:
    """``1e-7 x0 - 65 x2 <= 0`` with ``x2 <= 0`` forces ``x0 = 0``; the simplex at 1e-10 ended "Unknown" with
    and without presolve when the retry started from the failed basis (found by the property test). Each retry
    now starts afresh; the verified bound must not exceed the exact optimum 0."""
    prog = fp.PolynomialProgram.from_text("minimize\n  -x0 - 1e-161*x2\nsubject to\n  a: 1e-07*x0 - 65*x2 <= 0\n"
                                          "bounds\n  0 <= x0 <= 1\n  0 <= x1 <= 1\n  -1 <= x2 <= 0")
    res = fp.get_backend("highs").solve(prog)
    assert res.termination is Termination.OPTIMAL, res.message
    assert -1e-12 <= res.objective_bound <= 0.0


def test_a_callers_thread_count_is_never_replaced() -> None:
    """fairprobe names HiGHS's pool size on its own runs; a caller's own ``threads`` is passed as given,
    and a run HiGHS refuses for it is reported, not re-run quietly with another count."""
    import highspy

    from fairprobe.backends.highs_lp import _Pool

    lp = fp.PolynomialProgram.from_text("maximize\n  x + y\nsubject to\n  x + 2*y <= 1.5\n"
                                        "bounds\n  0 <= x <= 1\n  0 <= y <= 1")
    be = fp.get_backend("highs")
    assert be.solve(lp).termination is Termination.OPTIMAL
    pool = _Pool.value()
    if pool is None:
        pytest.skip("HiGHS's pool size could not be found here; runs use HiGHS's default")
    other = pool + 1
    probe = highspy.Highs()
    probe.setOptionValue("output_flag", False)
    probe.addVar(0.0, 1.0)
    probe.setOptionValue("threads", other)
    if probe.run() != highspy.HighsStatus.kError:
        pytest.skip("this HiGHS runs with any thread count")
    for options in (fp.SolveOptions(threads=other), fp.SolveOptions(solver_options={"threads": other})):
        assert be.solve(lp, options).termination is Termination.ERROR
    assert _Pool.value() == pool  # still known: the next default run names it
    assert be.solve(lp).termination is Termination.OPTIMAL


def test_a_model_passed_as_arrays_or_as_a_highs_lp_solves_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arrays go straight into HiGHS; a highspy without that signature gets a HighsLp instead."""
    import highspy

    from fairprobe.backends import highs_lp
    from fairprobe.backends.base import SolveOptions

    prog = fp.PolynomialProgram.from_text("minimize\n  x - 2*y + 0.5\nsubject to\n  c1: x + y >= 0.25\n"
                                          "  c2: x - y <= 0.5\n  c3: 2*x + y == 1\n"
                                          "bounds\n  0 <= x <= 1\n  -1 <= y <= 1")
    arr = linear_arrays(prog)
    direct = highs_lp.run_lp(arr, None, SolveOptions(), None)
    original = highspy.Highs.passModel

    refused = []

    def only_a_highs_lp(self, *args):  # the older signature set: one HighsLp (or HighsModel) argument
        if len(args) != 1:
            refused.append(len(args))
            raise TypeError("passModel(): incompatible function arguments")
        return original(self, *args)

    monkeypatch.setattr(highspy.Highs, "passModel", only_a_highs_lp)
    fallback = highs_lp.run_lp(arr, None, SolveOptions(), None)
    assert direct.status == fallback.status == "optimal"
    assert refused == [15]  # the arrays were offered, refused, and the HighsLp solved it
    assert direct.objective == fallback.objective == pytest.approx(-1.5, abs=1e-12)  # at x = 0, y = 1
    np.testing.assert_array_equal(direct.x, fallback.x)
    np.testing.assert_array_equal(direct.y, fallback.y)
    assert direct.iterations == fallback.iterations >= 0

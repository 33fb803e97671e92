"""Array forms of the linear programs the verified bounds read (fairprobe.program.safe_bounds)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fairprobe.program.model import Constraint, PolynomialProgram, Variable
from fairprobe.program.safe_bounds import (
    LinearArrays,
    TightBounder,
    charnes_cooper_arrays,
    exact_lower_bound,
    linear_arrays,
    verified_lower_bound,
)
from fairprobe.program.transforms import charnes_cooper

FIELDS = ("c", "c0", "indptr", "indices", "data", "row_lo", "row_hi", "lb", "ub")


def tight_lower_bound(arr: LinearArrays, y: np.ndarray) -> float:
    """The extended-precision bound of the duals ``y``, the rows read for this one bound."""
    return TightBounder(arr).bound(arr.c, arr.c0, y)


def random_fractional(seed: int) -> tuple[PolynomialProgram, tuple, tuple]:
    """A linear-fractional program with every kind of row and box the compiler writes (and a few it doesn't)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    prog = PolynomialProgram(sense="min")
    for j in range(n):
        lb = float(rng.choice([0.0, 0.0, -1.0, 0.25, -math.inf]))
        ub = float(rng.choice([1.0, 1.0, 2.0, math.inf, 0.0])) if lb != 0.25 else 1.0
        prog.variables.append(Variable(f"x{j}", lb, max(ub, lb)))
    for i in range(int(rng.integers(1, 6))):
        cols = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)
        poly = {(int(j),): float(rng.normal()) for j in cols}
        rhs = float(rng.choice([0.0, rng.uniform(-1, 1)]))
        prog.constraints.append(Constraint(poly, str(rng.choice(["<=", ">=", "=="])), rhs, f"r{i}"))
    num = (rng.normal(size=n) * (rng.random(n) < 0.7), float(rng.choice([0.0, 0.5])))
    den = (np.abs(rng.normal(size=n)) * (rng.random(n) < 0.7), float(rng.choice([0.0, 1.0])))

    def poly(vec: tuple) -> dict:
        out = {(k,): float(v) for k, v in enumerate(vec[0]) if v != 0.0}
        if vec[1]:
            out[()] = vec[1]
        return out

    prog.objective, prog.objective_denominator = poly(num), poly(den)
    return prog, num, den


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_charnes_cooper_arrays_equal_the_polynomial_round_trip(seed: int, sign: float) -> None:
    prog, num, den = random_fractional(seed)
    slow = linear_arrays(charnes_cooper(prog), sign=sign)
    fast = charnes_cooper_arrays(linear_arrays(prog), num, den, sign)
    for field in FIELDS:
        a, b = getattr(fast, field), getattr(slow, field)
        if field == "c0":
            assert a == b == 0.0
        else:
            # the same LP, row for row and entry for entry (positions inside a row may differ only
            # in the order the constant was written, never here)
            np.testing.assert_array_equal(a, b, err_msg=f"{field} differs (seed {seed})")


def test_a_ranged_row_is_left_to_the_polynomial_route() -> None:
    prog, num, den = random_fractional(0)
    arr = linear_arrays(prog)
    ranged = arr.__class__(arr.c, arr.c0, arr.indptr, arr.indices, arr.data, np.full(arr.n_rows, -1.0),
                           np.full(arr.n_rows, 1.0), arr.lb, arr.ub)
    assert charnes_cooper_arrays(ranged, num, den) is None


def random_arrays(seed: int) -> tuple[LinearArrays, np.ndarray]:
    """A small LP as arrays with badly scaled coefficients and a near-optimal-looking dual vector."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 12)), int(rng.integers(1, 10))
    scale = 10.0 ** rng.integers(-8, 9, size=(m, n))
    dense = rng.normal(size=(m, n)) * scale * (rng.random((m, n)) < 0.6)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int32)
    indices = np.concatenate([np.flatnonzero(row) for row in dense]).astype(np.int32)
    data = dense[dense != 0]
    y = rng.normal(size=m) * 10.0 ** rng.integers(-6, 7, size=m)
    # the objective: the dual's own combination of the rows plus tiny noise (reduced costs near 0,
    # where the sign of each is decided by the last bits)
    c = y @ dense + rng.normal(size=n) * 10.0 ** float(rng.integers(-18, -6)) * (rng.random(n) < 0.5)
    lo = np.where(rng.random(m) < 0.8, rng.uniform(-1, 1, m), -math.inf)
    hi = np.where(rng.random(m) < 0.5, lo, math.inf)
    lb = np.where(rng.random(n) < 0.9, 0.0, -1.0)
    ub = np.where(rng.random(n) < 0.9, 1.0, 3.0)
    return LinearArrays(c, float(rng.normal()), indptr, indices, data, lo, hi, lb, ub), y


def weak_duality_value(arr: LinearArrays, y: np.ndarray) -> tuple[Fraction, float]:
    """The weak-duality bound of ``y`` in exact rationals and the size of its terms, the reduced costs'
    products each counted (the box must be finite, as :func:`random_arrays` makes it)."""
    y = [0.0 if not math.isfinite(v) or (v > 0 and not math.isfinite(lo)) or (v < 0 and not math.isfinite(hi))
         else v for v, lo, hi in zip(y, arr.row_lo, arr.row_hi, strict=True)]
    total, size = Fraction(arr.c0), abs(arr.c0)
    for i, v in enumerate(y):
        if v:
            term = Fraction(v) * Fraction(arr.row_lo[i] if v > 0 else arr.row_hi[i])
            total, size = total + term, size + abs(float(term))
    for j in range(arr.n_cols):
        r, scale = Fraction(arr.c[j]), abs(arr.c[j])
        for i in range(arr.n_rows):
            for k in range(arr.indptr[i], arr.indptr[i + 1]):
                if arr.indices[k] == j:
                    r -= Fraction(arr.data[k]) * Fraction(y[i])
                    scale += abs(arr.data[k] * y[i])
        end = arr.lb[j] if r >= 0 else arr.ub[j]
        total += r * Fraction(end) if r else 0
        size += scale * max(abs(arr.lb[j]), abs(arr.ub[j]))
    return total, size


@pytest.mark.parametrize("seed", range(300))
def test_the_extended_precision_bound_never_exceeds_the_exact_one_and_loses_almost_nothing(seed: int) -> None:
    arr, y = random_arrays(seed)
    exact, size = weak_duality_value(arr, y)
    tight = tight_lower_bound(arr, y)
    assert Fraction(tight) <= exact, (seed, tight, float(exact))  # sound: rounding only ever lowers it
    # ... and close: one rounding to a double plus about 1e-18 of the terms' size (the a-priori error
    # bounds of the double-precision evaluation give away about 1e-15 of it)
    loss = float(exact - Fraction(tight))
    assert loss <= 2 * math.ulp(float(exact)) + 1e-17 * size, (seed, loss, size)
    assert Fraction(exact_lower_bound(arr, y)) <= exact and Fraction(verified_lower_bound(arr, y)) <= exact


def _without_last_row(arr: LinearArrays) -> tuple[LinearArrays, tuple]:
    """``arr`` without its last row, and that row as a bounder's extra row ``(cols, (vals, lo, hi))``."""
    a, b = arr.indptr[-2], arr.indptr[-1]
    rest = LinearArrays(arr.c, arr.c0, arr.indptr[:-1], arr.indices[:a], arr.data[:a], arr.row_lo[:-1],
                        arr.row_hi[:-1], arr.lb, arr.ub)
    return rest, (arr.indices[a:b], (arr.data[a:b], arr.row_lo[-1], arr.row_hi[-1]))


@pytest.mark.parametrize("seed", range(200))
def test_the_prepared_bounder_with_a_varying_row_is_the_extended_precision_bound(seed: int) -> None:
    """One bounder for many objectives, duals and values of its extra row (a parametric search's use):
    each bound is the one-off bound of the whole program, sound against exact rationals."""
    rng = np.random.default_rng(10_000 + seed)
    arr, y = random_arrays(seed)
    k = seed
    while arr.n_rows < 2:  # a fixed row besides the varying one
        k += 1000
        arr, y = random_arrays(k)
    rest, (cols, _) = _without_last_row(arr)
    bounder = TightBounder(rest, extra_cols=cols)
    for _ in range(3):  # the same bounder, a new last row, objective and dual each time
        vals = rng.normal(size=len(cols)) * 10.0 ** float(rng.integers(-4, 5))
        data = arr.data.copy()
        data[arr.indptr[-2]:] = vals
        moved = LinearArrays(arr.c + rng.normal(size=arr.n_cols) * 1e-3, float(rng.normal()), arr.indptr, arr.indices,
                             data, arr.row_lo, arr.row_hi, arr.lb, arr.ub)
        yy = y * np.exp(rng.normal(size=len(y)) * 0.1)
        got = bounder.bound(moved.c, moved.c0, yy, (vals, arr.row_lo[-1], arr.row_hi[-1]))
        assert got == tight_lower_bound(moved, yy)
        exact, size = weak_duality_value(moved, yy)
        assert Fraction(got) <= exact
        assert float(exact - Fraction(got)) <= 2 * math.ulp(float(exact)) + 1e-17 * size


def test_the_bounder_is_given_its_extra_row_exactly_when_it_has_one() -> None:
    arr, y = random_arrays(3)
    with pytest.raises(ValueError, match="extra row"):
        TightBounder(arr).bound(arr.c, arr.c0, y, (np.zeros(0), 0.0, 1.0))
    with pytest.raises(ValueError, match="extra row"):
        TightBounder(arr, extra_cols=np.array([0])).bound(arr.c, arr.c0, np.append(y, 0.0))


def test_the_extended_precision_bound_certifies_nothing_past_an_infinite_box_end() -> None:
    prog = PolynomialProgram.from_text("minimize\n  x - y\nsubject to\n  x + y >= 0.5\n"
                                       "bounds\n  0 <= x <= 1\n  0 <= y <= inf")
    arr = linear_arrays(prog)
    assert tight_lower_bound(arr, np.array([0.5])) == -math.inf  # y's reduced cost -1.5 < 0, no upper end
    assert exact_lower_bound(arr, np.array([0.5])) == -math.inf


def test_a_nan_coefficient_certifies_nothing() -> None:
    prog = PolynomialProgram.from_text("minimize\n  x + y\nsubject to\n  x + y >= 0.3\n"
                                       "bounds\n  0 <= x <= 1\n  0 <= y <= 1")
    arr = linear_arrays(prog)
    bad = LinearArrays(np.array([math.nan, 1.0]), 0.0, arr.indptr, arr.indices, arr.data, arr.row_lo, arr.row_hi,
                       arr.lb, arr.ub)
    for bound in (tight_lower_bound, verified_lower_bound, exact_lower_bound):
        assert bound(bad, np.array([1.0])) == -math.inf, bound.__name__


@pytest.mark.parametrize("seed", range(100))
def test_a_bounder_without_its_row_bounds_as_one_made_without_it(seed: int) -> None:
    """``without_row`` shares the row bounder's matrices; writing the extra row between its calls
    changes none of its bounds, which equal a bounder read from the rows alone, bit for bit (and
    are sound against exact rationals), for finite and non-finite duals alike."""
    rng = np.random.default_rng(20_000 + seed)
    arr, y = random_arrays(seed)
    k = seed
    while arr.n_rows < 2:
        k += 1000
        arr, y = random_arrays(k)
    rest, (cols, _) = _without_last_row(arr)
    with_row_bounder = TightBounder(rest, extra_cols=cols)
    plain, fresh = with_row_bounder.without_row(), TightBounder(rest)
    assert plain is not with_row_bounder and plain.extra_cols is None
    for step in range(4):
        # the row bounder's own use in between: a new extra row written into the shared matrix
        vals = rng.normal(size=len(cols)) * 10.0 ** float(rng.integers(-4, 5))
        with_row_bounder.bound(arr.c, arr.c0, np.append(y[:-1], 1.0), (vals, 0.0, math.inf))
        yy = y[:-1] * np.exp(rng.normal(size=rest.n_rows) * 0.1)
        if step == 3:  # a dual HiGHS could not give: it leans on nothing
            yy[0] = [math.inf, -math.inf, math.nan][seed % 3]
        got = plain.bound(rest.c, rest.c0, yy)
        assert got == fresh.bound(rest.c, rest.c0, yy), (seed, step)
        if math.isfinite(got):
            assert Fraction(got) <= weak_duality_value(rest, yy)[0]


def test_a_bounder_without_an_extra_row_is_its_own_row_less_view() -> None:
    arr, _ = random_arrays(5)
    bounder = TightBounder(arr)
    assert bounder.without_row() is bounder


@pytest.mark.parametrize("seed", range(50))
def test_the_non_negative_box_shortcut_gives_the_general_minimum(seed: int) -> None:
    """Over ``0 <= lb <= x <= ub < inf`` the least ``rho * x`` with ``rho`` in ``[r - err, r + err]`` is
    the general four-corner minimum, exactly."""
    from fairprobe.program.safe_bounds import _box_terms

    rng = np.random.default_rng(seed)
    n = 40
    r = rng.normal(size=n) * 10.0 ** rng.integers(-12, 3, size=n)
    r[rng.random(n) < 0.1] = 0.0
    err = np.abs(rng.normal(size=n)) * 10.0 ** rng.integers(-18, -10, size=n)
    lb = np.where(rng.random(n) < 0.6, 0.0, rng.random(n))
    ub = lb + np.where(rng.random(n) < 0.1, 0.0, rng.random(n) * 3)
    if seed % 5 == 0:  # infinite reduced costs (an infinite coefficient, a product that overflowed)
        r[:3], err[:3] = [math.inf, -math.inf, 1.0], [0.0, 0.0, math.inf]
        lb[:3] = 0.0
    fast, general = _box_terms(r, err, lb, ub, nonneg=True), _box_terms(r, err, lb, ub)
    np.testing.assert_array_equal(fast, general)
    assert LinearArrays(r, 0.0, np.zeros(1, np.int32), np.zeros(0, np.int32), np.zeros(0), np.zeros(0), np.zeros(0),
                        lb, ub).nonneg_box


def test_the_row_of_each_coefficient_is_read_once_and_read_only() -> None:
    arr, _ = random_arrays(7)
    rows = arr.row_of
    assert rows is arr.row_of
    np.testing.assert_array_equal(rows, np.repeat(np.arange(arr.n_rows), np.diff(arr.indptr)))
    with pytest.raises(ValueError):
        rows[0] = 1


def test_an_infinite_reduced_cost_on_a_column_at_zero_still_certifies() -> None:
    """``min 0 x`` with ``-1e200 x >= 0`` on [0, 1] and the dual 1e200: x's reduced cost overflows to
    infinity, but x sits at 0 in the bound's corner, so the bound is the optimum 0 (not -inf)."""
    arr = LinearArrays(np.array([0.0]), 0.0, np.array([0, 1], np.int32), np.array([0], np.int32),
                       np.array([-1e200]), np.array([0.0]), np.array([math.inf]), np.array([0.0]), np.array([1.0]))
    with np.errstate(over="ignore", invalid="ignore"):
        assert verified_lower_bound(arr, np.array([1e200])) == 0.0
        assert exact_lower_bound(arr, np.array([1e200])) == 0.0


def test_a_dual_vector_of_the_wrong_length_is_an_error() -> None:
    arr, y = random_arrays(11)
    with pytest.raises(ValueError, match="duals for"):
        TightBounder(arr).bound(arr.c, arr.c0, np.append(y, 1.0))
    with pytest.raises(ValueError, match="duals for"):
        TightBounder(arr, extra_cols=np.array([0])).bound(arr.c, arr.c0, y, (np.ones(1), 0.0, math.inf))

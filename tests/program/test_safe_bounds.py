"""Array forms of the linear programs the verified bounds read (fairprobe.program.safe_bounds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairprobe.program.model import Constraint, PolynomialProgram, Variable
from fairprobe.program.safe_bounds import charnes_cooper_arrays, linear_arrays
from fairprobe.program.transforms import charnes_cooper

FIELDS = ("c", "c0", "indptr", "indices", "data", "row_lo", "row_hi", "lb", "ub")


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

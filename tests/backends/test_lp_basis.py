"""Known optimal bases: the vertex of a remembered basis is taken only where HiGHS would stop there."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from fairprobe.backends.base import BasisMemory, SolveOptions
from fairprobe.backends.highs_lp import known_basis_run, run_lp
from fairprobe.backends.lp_basis import BASIC, LOWER, UPPER, Basis, basic_solution
from fairprobe.program.safe_bounds import LinearArrays, verified_lower_bound

pytest.importorskip("highspy", reason="HiGHS (highspy) is needed to find the bases")


def random_lp(rng: np.random.Generator, m: int, n: int) -> LinearArrays:
    """A feasible LP with >=, <=, ranged and equality rows, finite boxes, some of them fixed columns."""
    A = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.6)
    lb = np.where(rng.random(n) < 0.2, -1.0, 0.0)
    ub = np.where(rng.random(n) < 0.2, 2.0, 1.0)
    fixed = rng.random(n) < 0.1
    ub[fixed] = lb[fixed]
    x0 = lb + (ub - lb) * rng.random(n)  # a feasible point: every row's sides are set around it
    act = A @ x0
    kind = rng.integers(0, 4, size=m)
    lo = np.where(kind == 0, act - rng.random(m), np.where(kind == 2, -np.inf, act - rng.random(m)))
    hi = np.where(kind == 0, np.inf, np.where(kind == 1, act + rng.random(m), act + rng.random(m)))
    lo = np.where(kind == 3, act, lo)
    hi = np.where(kind == 3, act, hi)
    rows, cols = np.nonzero(A)
    indptr = np.searchsorted(rows, np.arange(m + 1)).astype(np.int32)
    return LinearArrays(c=rng.normal(size=n), c0=float(rng.normal()), indptr=indptr, indices=cols.astype(np.int32),
                        data=A[rows, cols], row_lo=lo, row_hi=hi, lb=lb, ub=ub)


def solve(arr: LinearArrays):
    return run_lp(arr, None, SolveOptions(), None, keep_basis=True)


def on_basis(arr: LinearArrays, basis: Basis):
    return basic_solution(arr.dense, arr.c, arr.c0, arr.lb, arr.ub, arr.row_lo, arr.row_hi, basis)


def test_the_vertex_of_highs_basis_is_highs_optimum() -> None:
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(150):
        arr = random_lp(rng, int(rng.integers(2, 12)), int(rng.integers(2, 10)))
        run = solve(arr)
        if run.status != "optimal" or run.basis is None:
            continue
        found = on_basis(arr, run.basis)
        assert found is not None  # HiGHS stopped there, to the same tolerances
        x, y, objective = found
        assert objective == pytest.approx(run.objective, abs=1e-9)
        assert np.abs(x - run.x).max() <= 1e-8
        assert np.abs(y - run.y).max() <= 1e-7  # (HiGHS's duals are exact only to its tolerance)
        # the duals certify the optimum: a verified bound from them is at most the optimum and close to it
        bound = verified_lower_bound(arr, y)
        assert bound <= objective + 1e-12 and bound >= objective - 1e-8
        checked += 1
    assert checked >= 100


def test_a_basis_is_taken_only_where_it_is_still_optimal() -> None:
    """Moved costs and sides: the old basis is refused, or its vertex is the new optimum."""
    rng = np.random.default_rng(2)
    taken = refused = 0
    for _ in range(200):
        arr = random_lp(rng, int(rng.integers(2, 10)), int(rng.integers(2, 8)))
        first = solve(arr)
        if first.status != "optimal" or first.basis is None:
            continue
        scale = 10.0 ** rng.uniform(-4, 0)
        finite = np.isfinite(arr.row_lo) & np.isfinite(arr.row_hi) & (arr.row_lo == arr.row_hi)
        shift = rng.normal(size=arr.n_rows) * scale
        moved = LinearArrays(c=arr.c + rng.normal(size=arr.n_cols) * scale, c0=arr.c0, indptr=arr.indptr,
                             indices=arr.indices, data=arr.data, row_lo=arr.row_lo + shift,
                             row_hi=np.where(finite, arr.row_lo + shift, arr.row_hi + shift), lb=arr.lb, ub=arr.ub)
        truth = solve(moved)
        found = on_basis(moved, first.basis)
        if found is None:
            refused += 1
            continue
        taken += 1
        assert truth.status == "optimal"  # a basis is never taken for an LP without an optimum
        assert found[2] == pytest.approx(truth.objective, abs=1e-8)
    assert taken >= 20 and refused >= 20  # both happen: the test exercises both ways


def test_bases_that_do_not_fit_are_refused() -> None:
    A = np.array([[1.0, 2.0], [2.0, 4.0]])  # the rows are parallel: a basis of both is singular
    c, lb, ub = np.ones(2), np.zeros(2), np.ones(2)
    lo, hi = np.array([1.0, 2.0]), np.array([np.inf, np.inf])
    singular = Basis(np.array([BASIC, BASIC], dtype=np.int8), np.array([LOWER, LOWER], dtype=np.int8))
    assert basic_solution(A, c, 0.0, lb, ub, lo, hi, singular) is None
    too_short = Basis(np.array([BASIC], dtype=np.int8), np.array([LOWER, BASIC], dtype=np.int8))
    assert basic_solution(A, c, 0.0, lb, ub, lo, hi, too_short) is None
    miscounted = Basis(np.array([BASIC, BASIC], dtype=np.int8), np.array([LOWER, BASIC], dtype=np.int8))
    assert basic_solution(A, c, 0.0, lb, ub, lo, hi, miscounted) is None
    # a nonbasic column at an infinite end has no vertex
    at_infinity = Basis(np.array([UPPER, BASIC], dtype=np.int8), np.array([LOWER, BASIC], dtype=np.int8))
    assert basic_solution(A, c, 0.0, lb, np.array([np.inf, 1.0]), lo, hi, at_infinity) is None


def test_a_basis_with_a_wrong_sign_dual_is_refused() -> None:
    # min -x over x + y >= 1 on [0, 1]^2: the row at its lower end with y basic is feasible (x = 0, y = 1)
    # but x's reduced cost is -1 at its lower end: not optimal
    A = np.array([[1.0, 1.0]])
    basis = Basis(np.array([LOWER, BASIC], dtype=np.int8), np.array([LOWER], dtype=np.int8))
    args = (A, np.array([-1.0, 0.0]), 0.0, np.zeros(2), np.ones(2), np.array([1.0]), np.array([np.inf]), basis)
    assert basic_solution(*args) is None
    # the same basis with a cost that makes it optimal: min 2 x + y (x's reduced cost 2 - 1 >= 0)
    x, y, objective = basic_solution(A, np.array([2.0, 1.0]), 0.0, *args[3:])
    assert x.tolist() == [0.0, 1.0] and objective == 1.0 and y.tolist() == [1.0]


def test_memory_orders_by_parameter_then_by_use() -> None:
    def basis(tag: int) -> Basis:
        return Basis(np.array([tag], dtype=np.int8), np.array([0], dtype=np.int8))

    memory = BasisMemory(recording=True)
    for key, tag in [(0.1, 1), (0.2, 1), (0.9, 2), (0.5, 3), (0.55, 3), (0.6, 3)]:
        memory.record("theta", basis(tag), key)
    memory.record("top", basis(2))
    memory.record("top", basis(1))
    memory.record("top", basis(1))
    assert memory.candidates("theta", 0.5) == []  # nobody reads while recording
    memory.recording, memory.ready = False, True
    assert [int(b.cols[0]) for b in memory.candidates("theta", 0.85)] == [2, 3]
    assert [int(b.cols[0]) for b in memory.candidates("theta", 0.0)] == [1, 3]
    assert [int(b.cols[0]) for b in memory.candidates("top")] == [1, 2]  # the one needed most often first
    assert memory.candidates("nowhere") == []
    memory.record("theta", basis(4), 0.85)  # ignored: no longer recording
    assert [int(b.cols[0]) for b in memory.candidates("theta", 0.85)] == [2, 3]
    again = pickle.loads(pickle.dumps(memory))  # (a joblib worker's copy)
    assert [int(b.cols[0]) for b in again.candidates("theta", 0.85)] == [2, 3]
    with again.lock:
        pass


def test_known_basis_run_needs_a_reading_memory() -> None:
    rng = np.random.default_rng(3)
    arr = random_lp(rng, 6, 5)
    while (run := solve(arr)).status != "optimal":
        arr = random_lp(rng, 6, 5)
    args = (arr.dense, arr.c, arr.c0, arr.lb, arr.ub, arr.row_lo, arr.row_hi)
    assert known_basis_run(SolveOptions(), "site", 0.0, *args) is None
    memory = BasisMemory(recording=True)
    memory.record("site", run.basis)
    assert known_basis_run(SolveOptions(bases=memory), "site", 0.0, *args) is None  # still recording
    memory.recording = False
    found = known_basis_run(SolveOptions(bases=memory), "site", 0.0, *args)
    assert found is not None and found.status == "optimal" and found.iterations == 0
    assert found.objective == pytest.approx(run.objective, abs=1e-9) and math.isnan(found.dual_bound)
    assert known_basis_run(SolveOptions(bases=memory), "another site", 0.0, *args) is None


def test_an_lp_without_rows_is_its_box() -> None:
    A, c = np.zeros((0, 2)), np.array([1.0, -1.0])
    lb, ub, none = np.zeros(2), np.ones(2), np.zeros(0)
    right = Basis(np.array([LOWER, UPPER], dtype=np.int8), np.zeros(0, dtype=np.int8))
    x, y, objective = basic_solution(A, c, 0.5, lb, ub, none, none, right)
    assert x.tolist() == [0.0, 1.0] and y.size == 0 and objective == -0.5
    wrong = Basis(np.array([UPPER, UPPER], dtype=np.int8), np.zeros(0, dtype=np.int8))
    assert basic_solution(A, c, 0.5, lb, ub, none, none, wrong) is None  # x would rather sit at 0


def test_a_free_column_at_zero_needs_a_zero_reduced_cost() -> None:
    # x free and nonbasic at 0 (HiGHS's "zero"), y basic, the row x + y >= 1 at its lower end
    from fairprobe.backends.lp_basis import ZERO

    A = np.array([[1.0, 1.0]])
    basis = Basis(np.array([ZERO, BASIC], dtype=np.int8), np.array([LOWER], dtype=np.int8))
    box = (np.array([-np.inf, 0.0]), np.array([np.inf, 5.0]), np.array([1.0]), np.array([np.inf]))
    x, y, objective = basic_solution(A, np.array([1.0, 1.0]), 0.0, *box, basis)  # d_x = 1 - 1 = 0
    assert x.tolist() == [0.0, 1.0] and objective == 1.0 and y.tolist() == [1.0]
    assert basic_solution(A, np.array([2.0, 1.0]), 0.0, *box, basis) is None  # d_x = 1: x should move


@pytest.mark.parametrize("eps", [1e-6, 1e-10, 1e-13, 1e-15])
def test_a_near_singular_basis_is_refused_or_exact(eps: float) -> None:
    """Two nearly parallel tight rows: the vertex (0, 1) is taken only where the solves stay accurate."""
    A = np.array([[1.0, 1.0], [1.0, 1.0 + eps]])
    basis = Basis(np.array([BASIC, BASIC], dtype=np.int8), np.array([LOWER, LOWER], dtype=np.int8))
    found = basic_solution(A, np.array([1.0, 1.0 + eps / 2]), 0.0, np.zeros(2), np.full(2, 10.0),
                           np.array([1.0, 1.0 + eps]), np.array([np.inf, np.inf]), basis)
    if found is not None:
        x, y, objective = found
        assert np.abs(x - [0.0, 1.0]).max() <= 1e-9 and objective == pytest.approx(1.0 + eps / 2, abs=1e-9)
        assert np.abs(np.array([1.0, 1.0 + eps / 2]) - y @ A).max() <= 1e-10  # the duals solve B^T y = c_B


def test_inaccurate_duals_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The duals' own solve is checked (the basic columns' reduced costs vanish): a perturbed dual solve,
    whose primal is exact, is refused."""
    import fairprobe.backends.lp_basis as lp_basis

    A = np.array([[1.0, 1.0]])
    basis = Basis(np.array([LOWER, BASIC], dtype=np.int8), np.array([LOWER], dtype=np.int8))
    args = (A, np.array([2.0, 1.0]), 0.0, np.zeros(2), np.ones(2), np.array([1.0]), np.array([np.inf]), basis)
    x, y, objective = basic_solution(*args)  # exact solves: x = (0, 1), y = c_y = 1, objective 1
    assert x.tolist() == [0.0, 1.0] and y.tolist() == [1.0] and objective == 1.0
    dgesv, dgetrs = lp_basis._lapack()

    def off(lu, piv, b, trans=0):
        y, info = dgetrs(lu, piv, b, trans=trans)
        return y * (1 + 1e-6), info

    monkeypatch.setattr(lp_basis, "_lapack", lambda: (dgesv, off))
    assert basic_solution(*args) is None

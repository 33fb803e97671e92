"""Dropping the blocks the objective does not read keeps the optimum (known answers and real biases)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.backends.base import SolveOptions
from fairprobe.core import families, solving
from fairprobe.core.decompose import drop_unread_blocks
from fairprobe.program.model import PolynomialProgram

OPTIONS = SolveOptions(rel_gap=1e-9, abs_gap=1e-9)


def budget_program(seed: int, sense: str) -> PolynomialProgram:
    """k blocks, each a simplex of 3 variables with a pinned first coordinate; one shared budget row.

    The objective is the bilinear x_0 * y_1 of blocks 0 and 1; blocks 2.. only spend budget.
    """
    rng = np.random.default_rng(seed)
    prog = PolynomialProgram(sense=sense)
    blocks = []
    for b in range(5):
        xs = [prog.add_variable(f"b{b}_{i}", 0.0, 1.0) for i in range(3)]
        prog.add_constraint({(x,): 1.0 for x in xs}, "==", 1.0, name=f"simplex{b}")
        prog.add_constraint({(xs[0],): 1.0}, ">=", float(rng.uniform(0.05, 0.3)), name=f"floor{b}")
        blocks.append(xs)
    spend = {(xs[i],): float(rng.uniform(0.1, 1.0)) for xs in blocks for i in (1, 2)}
    prog.add_constraint(spend, "<=", float(rng.uniform(0.8, 1.5)), name="budget")
    prog.set_objective({(blocks[0][1], blocks[1][2]): 1.0, (blocks[0][2],): -0.3})
    return prog


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("sense", ["min", "max"])
def test_same_optimum_as_the_full_program(seed: int, sense: str) -> None:
    be = fp.get_backend("scip")
    prog = budget_program(seed, sense)
    red = drop_unread_blocks(prog, be, OPTIONS)
    assert red is not None and red.dropped == 9  # blocks 2, 3 and 4
    full = be.solve(prog, OPTIONS)
    small = be.solve(red.program, OPTIONS)
    assert small.objective_bound == pytest.approx(full.objective_bound, abs=1e-7)
    point = red.complete(small.incumbent)
    assert prog.max_violation(point) <= 1e-7  # the completed incumbent is a point of the full program
    assert prog.objective_value(point) == pytest.approx(full.objective_bound, abs=1e-6)


def test_programs_without_a_budget_are_left_alone() -> None:
    prog = budget_program(0, "max")
    prog.constraints = [c for c in prog.constraints if c.name != "budget"]
    prog.add_constraint({(0,): 1.0, (3,): 1.0, (6,): 1.0}, "==", 0.5, name="coupling_equality")
    assert drop_unread_blocks(prog, fp.get_backend("scip"), OPTIONS) is None


def test_an_infeasible_dropped_block_leaves_the_program_whole() -> None:
    prog = budget_program(1, "max")
    prog.add_constraint({(12,): 1.0}, ">=", 2.0, name="impossible")  # block 4 cannot be feasible
    assert drop_unread_blocks(prog, fp.get_backend("scip"), OPTIONS) is None


def _cells(k: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = list(itertools.product(range(k), range(2), range(2)))
    return pd.DataFrame(rows, columns=["A", "Y", "P"]).assign(prob=rng.dirichlet(np.full(len(rows), 3.0)))


@pytest.mark.parametrize(("bias", "metric"), [("ecp", "fpr_parity"), ("ecp", "equalized_odds"),
                                              ("proxy_label", "equalized_odds")])
def test_same_bounds_with_and_without_dropping(bias: str, metric: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = _cells(5, 3)
    tight = {"numerics/feastol": 1e-9}
    new = fp.bound(bias, fp.metric(metric, groups=(0, 4)), cells, D=0.05, solver_options=tight)
    with monkeypatch.context() as m:
        for module in (solving, families):
            m.setattr(module, "reduction_of", lambda program, be, options: None)
        old = fp.bound(bias, fp.metric(metric, groups=(0, 4)), cells, D=0.05, solver_options=tight)
    assert any("left out" in n for n in new.notes) and not any("left out" in n for n in old.notes)
    assert new.status == old.status == "optimal"
    assert new.lower == pytest.approx(old.lower, abs=1e-6) and new.upper == pytest.approx(old.upper, abs=1e-6)


def _linear_budget_program(seed: int) -> PolynomialProgram:
    """The blocks of :func:`budget_program` with a random linear objective over one or two of them."""
    prog = budget_program(seed, "max")
    rng = np.random.default_rng(seed + 100)
    read = rng.choice(5, size=int(rng.integers(1, 3)), replace=False)
    prog.set_objective({(3 * int(b) + i,): float(rng.normal()) for b in read for i in range(3)})
    return prog


def _read_blocks(prog: PolynomialProgram) -> set[int]:
    """The blocks of :func:`budget_program` (three variables each) that the objective reads."""
    return {v // 3 for mono in prog.objective for v in mono}


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("sense", ["min", "max"])
def test_a_block_plan_keeps_the_optimum_of_every_objective_over_its_rows(seed: int, sense: str) -> None:
    """One plan (each block's least use solved once) reduces programs whose objectives read other blocks."""
    from fairprobe.core.decompose import BlockPlan
    from fairprobe.core.registry import get_backend

    highs = get_backend("highs")
    model = budget_program(seed, "min")
    plan = BlockPlan(model, highs, OPTIONS)
    for k in range(3):
        prog = _linear_budget_program(seed * 10 + k).with_sense(sense)
        prog.constraints = model.constraints  # the plan's own rows
        red = plan.reduce(prog)
        assert red is not None and red.dropped >= 6
        full, small = highs.solve(prog, OPTIONS), highs.solve(red.program, OPTIONS)
        assert small.objective_bound == pytest.approx(full.objective_bound, abs=1e-9)
        # a relaxation: the reduced bound never cuts off the full program's optimum
        assert (small.objective_bound >= full.objective_bound - 1e-12) if sense == "max" else \
            (small.objective_bound <= full.objective_bound + 1e-12)
        assert prog.max_violation(red.complete(small.incumbent)) <= 1e-9  # completed: a point of the full program
    assert 0 < len(plan.least) <= 5  # each block's least use solved once for all objectives


def test_a_block_plan_leaves_alone_a_program_over_other_rows() -> None:
    from fairprobe.core.decompose import BlockPlan
    from fairprobe.core.registry import get_backend

    plan = BlockPlan(budget_program(0, "min"), get_backend("highs"), OPTIONS)
    other = _linear_budget_program(1)
    other.constraints = other.constraints[:-1]
    assert plan.reduce(other) is None


def test_a_block_plan_leaves_alone_programs_over_other_rows_or_boxes() -> None:
    """Reordered rows, a changed row, a looser box: the plan's least uses were solved for other programs."""
    from fairprobe.core.decompose import BlockPlan
    from fairprobe.core.registry import get_backend

    highs = get_backend("highs")
    model = budget_program(0, "min")
    plan = BlockPlan(model, highs, OPTIONS)
    prog = _linear_budget_program(0)
    prog.constraints = list(model.constraints)
    red = plan.reduce(prog)  # the same rows and boxes: reduced, to the full program's optimum
    assert red.dropped == 15 - 3 * len(_read_blocks(prog))
    assert highs.solve(red.program, OPTIONS).objective_bound == pytest.approx(
        highs.solve(prog, OPTIONS).objective_bound, abs=1e-9)
    reordered = prog.copy()
    reordered.constraints = list(reversed(model.constraints))
    changed = prog.copy()
    changed.constraints[-1] = type(changed.constraints[-1])(changed.constraints[-1].poly, "<=", 9.0, "budget")
    looser = prog.copy()
    looser.variables[-1] = type(looser.variables[-1])(looser.variables[-1].name, 0.0, 2.0)
    assert plan.reduce(reordered) is None and plan.reduce(changed) is None and plan.reduce(looser) is None


@pytest.mark.parametrize("seed", range(6))
def test_a_block_plan_keeps_the_optimum_under_a_budget_of_the_other_sense(seed: int) -> None:
    """A ``>=`` budget (each block's most use counts) with a constant term: the reduced optimum is the full one."""
    from fairprobe.core.decompose import BlockPlan
    from fairprobe.core.registry import get_backend
    from fairprobe.program.model import Constraint

    highs = get_backend("highs")
    model = budget_program(seed, "min")
    budget = model.constraints[-1]
    spend = {mono: -c for mono, c in budget.poly.items()}
    spend[()] = 0.25  # a constant in the row
    model.constraints[-1] = Constraint(spend, ">=", -budget.rhs + 0.25, "budget")
    plan = BlockPlan(model, highs, OPTIONS)
    for k, sense in enumerate(("min", "max")):
        prog = _linear_budget_program(seed * 10 + k).with_sense(sense)
        prog.constraints = model.constraints
        red = plan.reduce(prog)
        assert red.dropped == 15 - 3 * len(_read_blocks(prog))  # every block the objective does not read
        full, small = highs.solve(prog, OPTIONS), highs.solve(red.program, OPTIONS)
        assert small.objective_bound == pytest.approx(full.objective_bound, abs=1e-9)

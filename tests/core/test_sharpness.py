"""Sharpness and honesty of certified bounds: equal to an independent sharp computation to 1e-7.

The oracle (``tests/core/sharp_oracle.py``) solves the compiled program by its own route: LPs and
Charnes-Cooper LPs written out for ``scipy.optimize.linprog``, and for a parity of two rates a dense
one-dimensional search over ``theta - min {rate_b : rate_a >= theta}`` refined by Brent steps. Its
values are attained by models, so a sound lower bound is at most the oracle's minimum and a sound
upper bound at least its maximum; sharp means within 1e-7 of them. It shares only the compiler
with the engine (the compiler has its own brute-force and simulation tests).

Checked on every bound: every achieved value inside the verified bound, ``gap >= 0`` the true
distance between them, and the achieved models' largest row violation at most 1e-9. The full grid
(every shipped bias x four parities x three D on the paper table; COMPAS's fifteen pairs of races)
is slow; the default run takes a spread of it, the 11- and 31-person groups included.
"""

from __future__ import annotations

import warnings

import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, resolve_bias
from fairprobe.core.registry import registered
from fairprobe.datasets import load_compas, load_paper_table
from fairprobe.testing import selective_labels_table
from tests.core.sharp_oracle import sharp_value

METRICS = ["fpr_parity", "fnr_parity", "ppv_parity", "demographic_parity"]
BIASES = sorted(fp.get_registry().biases)
RACES = ["African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other"]
SHARP = 1e-7


def paper_table(bias: str) -> fp.ObservedTable:
    cells = load_paper_table()
    if bias == "selective_labels":
        return fp.ObservedTable.from_probabilities(selective_labels_table(cells))
    given = {node: 1 for node in resolve_bias(bias).cond_nodes} or None
    return fp.ObservedTable.from_probabilities(cells, given=given)


@pytest.fixture(scope="module")
def compas() -> fp.ObservedTable:
    frame = load_compas().frame
    frame = frame.assign(pred=(frame.decile_score >= 5).astype(int))
    return fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")


def check_sharp_and_honest(problem: BoundProblem, D: float, backend: str = "scip") -> int:
    """Assert the bound's sharpness (where the oracle covers the program) and honesty; 1 if checked sharp."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = problem.solve({"D": D}, backend=backend)
    assert res.status == "optimal", res.summary()
    # honesty: achieved values are models' values inside the verified bound, at the true distance
    # (1e-15: a model's value is evaluated in floating point, e.g. a rate at exactly 1 as 1 + 2 ulp)
    assert res.lower - 1e-15 <= res.lower_achieved and res.upper_achieved <= res.upper + 1e-15
    assert res.lower_achieved <= res.upper_achieved + 1e-15
    assert res.gap == pytest.approx(max(res.lower_achieved - res.lower, res.upper - res.upper_achieved), abs=1e-15)
    assert res.gap >= -1e-15
    assert res.details["max_violation"] <= 1e-9
    if problem.joint_program is not None or problem.by_families:
        return 0
    program = problem.term_programs[0].at({"D": D}).program
    lo, hi = sharp_value(program.with_sense("min")), sharp_value(program.with_sense("max"))
    if lo is None or hi is None:
        return 0  # a shape the oracle does not cover (bilinear data rows)
    assert res.lower <= lo + 1e-12 and res.upper >= hi - 1e-12, "a bound cuts off a model's value"
    assert lo - res.lower <= SHARP and res.upper - hi <= SHARP, (res.lower, lo, res.upper, hi)
    return 1


FAST_PAPER = [(b, m, 0.05) for b in BIASES for m in ("fpr_parity", "ppv_parity")]


@pytest.mark.parametrize("bias, metric, D", FAST_PAPER, ids=[f"{b}-{m}" for b, m, _ in FAST_PAPER])
def test_paper_table_bounds_are_sharp(bias: str, metric: str, D: float) -> None:
    check_sharp_and_honest(BoundProblem(bias, metric, paper_table(bias)), D)


@pytest.mark.slow
@pytest.mark.parametrize("D", [0.01, 0.05, 0.1])
@pytest.mark.parametrize("bias", BIASES)
def test_paper_table_bounds_are_sharp_at_every_level(bias: str, D: float) -> None:
    for metric in METRICS:
        check_sharp_and_honest(BoundProblem(bias, metric, paper_table(bias)), D)


def compas_problem(compas: fp.ObservedTable, bias: str, metric: str, groups) -> BoundProblem:
    data = fp.ObservedTable(compas.cells, given={"S": 1}, categories=compas.categories) if bias == "selection" \
        else compas
    return BoundProblem(bias, fp.metric(metric, groups=groups), data)


FAST_PAIRS = [("proxy_label", "fpr_parity", ("Native American", "Caucasian")),
              ("selection", "ppv_parity", ("Asian", "Hispanic"))]


@pytest.mark.parametrize("bias, metric, pair", FAST_PAIRS, ids=[f"{b}-{m}" for b, m, _ in FAST_PAIRS])
def test_compas_small_groups_are_sharp(compas: fp.ObservedTable, bias: str, metric: str, pair) -> None:
    """The 11- and 31-person groups, where a solver's 1e-6 slack becomes 1e-4 in a rate."""
    checked = sum(check_sharp_and_honest(compas_problem(compas, bias, metric, pair), D) for D in (0.01, 0.05))
    assert checked == 2  # each of them is a shape the oracle covers


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["fpr_parity", "ppv_parity"])
@pytest.mark.parametrize("bias", ["proxy_label", "selection"])
def test_every_compas_pair_is_sharp(compas: fp.ObservedTable, bias: str, metric: str) -> None:
    pairs = [(a, b) for i, a in enumerate(RACES) for b in RACES[i + 1:]]
    for pair in pairs:
        for D in (0.01, 0.05, 0.1):
            assert check_sharp_and_honest(compas_problem(compas, bias, metric, pair), D) == 1


@pytest.mark.slow
@pytest.mark.parametrize("bias", ["proxy_label", "selection"])
def test_compas_all_pairs_upper_bound_is_the_sharp_pairwise_maximum(compas: fp.ObservedTable, bias: str) -> None:
    """All pairs: the upper bound is the largest pair's sharp sup (every ordered pair, by the oracle)."""
    D = 0.05
    problem = compas_problem(compas, bias, "fpr_parity", "all")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = problem.solve({"D": D})
    assert res.lower <= res.lower_achieved and res.upper_achieved <= res.upper and res.gap >= 0
    best = -1.0
    for i, a in enumerate(RACES):
        for b in RACES[i + 1:]:
            program = compas_problem(compas, bias, "fpr_parity", (a, b)).term_programs[0].at({"D": D}).program
            best = max(best, sharp_value(program.with_sense("max")), -sharp_value(program.with_sense("min")))
    assert best - 1e-12 <= res.upper <= best + SHARP


@pytest.mark.parametrize("backend", ["highs-route", "gurobi", "ortools"])
def test_other_backends_contain_the_sharp_values(compas: fp.ObservedTable, backend: str) -> None:
    """Each installed backend's bound contains the models' values (its own tolerance: 1e-5 of sharp)."""
    name = "scip" if backend == "highs-route" else backend
    if backend != "highs-route":
        cls = registered("backends")[name]
        if not cls.availability():
            pytest.skip(f"{name} is unavailable here: {cls.availability_reason()}")
    problem = compas_problem(compas, "proxy_label", "fpr_parity", ("Asian", "Caucasian"))
    program = problem.term_programs[0].at({"D": 0.05}).program
    lo, hi = sharp_value(program.with_sense("min")), sharp_value(program.with_sense("max"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = problem.solve({"D": 0.05}, backend=name)
    assert res.lower <= lo + 1e-9 and res.upper >= hi - 1e-9
    assert lo - res.lower <= (SHARP if backend == "highs-route" else 1e-5)
    assert res.upper - hi <= (SHARP if backend == "highs-route" else 1e-5)

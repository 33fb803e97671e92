"""Warm re-solves (``BoundProblem.with_table(..., warm=True)``): each LP of a moved program starts from the
optimal bases of the program's reference solves where those are still optimal (fairprobe.backends.lp_basis).

The promises: the bounds are a fresh problem's to the parity searches' closing gap, verified the same way;
a re-solve depends only on its own table and the reference (not on the order of the re-solves, the number
of workers or the options of the first call); and the remembered bases are actually used.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fairprobe as fp
import fairprobe.backends.highs_lp as highs_lp
import fairprobe.backends.two_ratio as two_ratio
from fairprobe.backends.base import BasisMemory, SolveOptions
from fairprobe.core.bound import BoundProblem, resolve_bias
from fairprobe.core.registry import get_backend
from tests.core.test_rebind import random_table, resampled

#: How far a warm re-solve's bounds may be from a fresh problem's: two parity searches' closing gaps
WARM_GAP = 2e-9


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every remembered basis checked, True where it was taken."""
    taken: list[bool] = []
    real = highs_lp.basic_solution

    def count(*args, **kwargs):
        found = real(*args, **kwargs)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(highs_lp, "basic_solution", count)
    return taken


@pytest.fixture(scope="module")
def compas() -> fp.ObservedTable:
    from fairprobe.datasets import load_compas

    frame = load_compas().frame
    frame = frame.assign(pred=(frame.decile_score >= 5).astype(int))
    return fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")


def _data(table: fp.ObservedTable, bias: str) -> fp.ObservedTable:
    if bias == "selection":
        return fp.ObservedTable(table.cells, given={"S": 1}, categories=table.categories, n=table.n)
    return table


def _draws(problem: BoundProblem, k: int, seed: int) -> list[fp.ObservedTable]:
    counts = problem.table.counts()
    draws = np.random.default_rng(seed).multinomial(counts.sum(), counts / counts.sum(), size=k) / counts.sum()
    return [problem.table.with_probabilities(d) for d in draws]


def _bounds(res: fp.BoundResult) -> tuple:
    return res.lower, res.upper, res.lower_achieved, res.upper_achieved, res.status


@pytest.mark.parametrize(("bias", "metric", "D"), [("proxy_label", "fpr_parity", 0.02),
                                                   ("selection", "fpr_parity", 0.02),
                                                   ("selection", "ppv_parity", 0.0)])
@pytest.mark.parametrize("groups", [("Hispanic", "Caucasian"), ("Native American", "Asian")])
def test_warm_resolves_on_compas_are_fresh_problems_bounds(compas: fp.ObservedTable, bias: str, metric: str,
                                                           D: float, groups: tuple[str, str],
                                                           counted: list[bool]) -> None:
    """The bundled COMPAS data, six races (groups of 11 and 31 people among them): resamples solved from
    remembered bases give a fresh problem's bounds, found by the same exact search (never SCIP where a fresh
    problem does not need it), and the bases are used."""
    metric_ = fp.metric(metric, groups=groups)
    problem = BoundProblem(bias, metric_, _data(compas, bias), fixed={"D": D}, reuse=False)
    for other in _draws(problem, 3, 7):
        warm = problem.with_table(other).solve({"D": D}, progress=False)
        fresh = BoundProblem(bias, metric_, other, fixed={"D": D}, reuse=False).solve({"D": D}, progress=False)
        assert warm.lower == pytest.approx(fresh.lower, abs=WARM_GAP)
        assert warm.upper == pytest.approx(fresh.upper, abs=WARM_GAP)
        assert warm.status == fresh.status == "optimal"
        assert [r.solver for r in (warm.min_result, warm.max_result)] == \
            [r.solver for r in (fresh.min_result, fresh.max_result)]
        assert warm.lower <= min(warm.lower_achieved, warm.upper_achieved)
        assert max(warm.lower_achieved, warm.upper_achieved) <= warm.upper
        assert warm.details.get("max_violation", 0.0) <= 1e-9
    assert sum(counted) >= 10  # the re-solves did read remembered bases


@pytest.mark.parametrize("bias", ["proxy_label", "selection", "ecp", "proxy_label_and_selection"])
@pytest.mark.parametrize("metric", ["fpr_parity", "ppv_parity", "demographic_parity"])
def test_warm_resolves_on_random_tables(bias: str, metric: str, counted: list[bool]) -> None:
    params = {p: 0.05 for p in resolve_bias(bias).parameters}
    problem = BoundProblem(bias, metric, random_table(2, bias), fixed=params, reuse=False)
    for seed in range(3):
        other = resampled(problem.table, seed)
        warm = problem.with_table(other, fixed=params).solve(params, progress=False)
        fresh = BoundProblem(bias, metric, other, fixed=params, reuse=False).solve(params, progress=False)
        assert warm.lower == pytest.approx(fresh.lower, abs=WARM_GAP)
        assert warm.upper == pytest.approx(fresh.upper, abs=WARM_GAP)
        assert warm.status == fresh.status
        assert warm.lower <= min(warm.lower_achieved, warm.upper_achieved)
        assert max(warm.lower_achieved, warm.upper_achieved) <= warm.upper
    assert sum(counted) >= 3  # every one of these programs runs LPs from remembered bases


@pytest.mark.parametrize(("bias", "metric"), [("selection", "fpr_parity"),  # moved by the rebinder
                                              ("proxy_label", "demographic_parity")])  # compiled per table
def test_a_resolve_does_not_depend_on_the_order_of_the_resolves(compas: fp.ObservedTable, bias: str,
                                                                metric: str) -> None:
    metric_ = fp.metric(metric, groups=("Native American", "Asian"))
    data = _data(compas, bias)
    forward = BoundProblem(bias, metric_, data, fixed={"D": 0.02}, reuse=False)
    draws = _draws(forward, 5, 3)
    ahead = [_bounds(forward.with_table(t).solve({"D": 0.02}, progress=False)) for t in draws]
    backward = BoundProblem(bias, metric_, data, fixed={"D": 0.02}, reuse=False)
    behind = [_bounds(backward.with_table(t).solve({"D": 0.02}, progress=False)) for t in reversed(draws)]
    assert ahead == behind[::-1]  # bit for bit


def test_the_first_calls_options_do_not_change_later_resolves(compas: fp.ObservedTable) -> None:
    """A first re-solve cut short by a tiny time limit fills no memory: later re-solves are what they are
    after an unlimited first one, bit for bit."""
    metric = fp.metric("fpr_parity", groups=("Hispanic", "Caucasian"))
    data = _data(compas, "selection")
    results = []
    for first_limit in (1e-4, None):
        problem = BoundProblem("selection", metric, data, fixed={"D": 0.02}, reuse=False)
        draws = _draws(problem, 3, 1)
        with warnings.catch_warnings():  # (cut short: "a solver stopped at a limit")
            warnings.simplefilter("ignore", RuntimeWarning)
            problem.with_table(draws[0]).solve({"D": 0.02}, progress=False, time_limit=first_limit)
        results.append([_bounds(problem.with_table(t).solve({"D": 0.02}, progress=False)) for t in draws[1:]])
    assert results[0] == results[1]


def test_a_warm_search_that_does_not_close_is_done_again_without_the_bases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any warm search whose certificate carries more than rounding (here: every one, by a negative share) is
    run again as a fresh problem runs it; the bounds are then a fresh problem's."""
    params = {"D": 0.05}
    problem = BoundProblem("selection", "fpr_parity", random_table(3, "selection"), fixed=params, reuse=False)
    other = resampled(problem.table, 1)
    problem.with_table(other).solve(params, progress=False)  # (the memory filled as usual)
    calls = []
    real = two_ratio._solve_two_ratio

    def spy(program, form, options, shared, start):
        calls.append(options.bases is not None)
        return real(program, form, options, shared, start)

    monkeypatch.setattr(two_ratio, "_solve_two_ratio", spy)
    monkeypatch.setattr(two_ratio, "SLACK_SHARE", -1.0)
    again = problem.with_table(other).solve(params, progress=False)
    assert calls == [True, False, True, False]  # each side: warm, then without the bases
    fresh = BoundProblem("selection", "fpr_parity", other, fixed=params, reuse=False).solve(params, progress=False)
    assert again.lower == pytest.approx(fresh.lower, abs=WARM_GAP) and again.upper == pytest.approx(fresh.upper,
                                                                                                   abs=WARM_GAP)


@pytest.mark.parametrize("bias", sorted(fp.get_registry().biases))
def test_a_patched_search_setup_is_a_fresh_build_bit_for_bit(bias: str) -> None:
    """The form, rows, bounders and Charnes-Cooper LPs of a moved program, patched from the last moved
    program's, are exactly what the search builds from scratch."""
    be = get_backend("highs")
    params = {p: 0.05 for p in resolve_bias(bias).parameters}
    patched = 0
    for metric in ("fpr_parity", "ppv_parity", "demographic_parity"):
        problem = BoundProblem(bias, metric, random_table(1, bias), fixed=params, reuse=False)
        problem.with_table(resampled(problem.table, 0), fixed=params)  # (the rebinders built)
        programs = [problem.with_table(resampled(problem.table, k), fixed=params).term_programs[0].at(params).program
                    for k in (1, 2)]
        if two_ratio.two_ratio_form(programs[0]) is None:
            continue
        kept, fresh = {}, {}
        be.solve_two_ratio_pair(programs[0], SolveOptions(bases=BasisMemory(scratch=kept)))
        be.solve_two_ratio_pair(programs[1], SolveOptions(bases=BasisMemory(scratch=fresh)))
        form, arrays = two_ratio.two_ratio_setup(programs[1], kept)
        if not arrays:
            continue  # (a program whose rows changed pattern: built afresh, nothing to compare)
        patched += 1
        built = fresh["two_ratio_setup"][2]
        expect = two_ratio.two_ratio_form(programs[1])
        assert [(c.name, c.sense, c.poly, c.rhs) for c in form.base.constraints] == \
            [(c.name, c.sense, c.poly, c.rhs) for c in expect.base.constraints]
        for key, value in arrays.items():
            if key == "q_arr" or key[0] == "cc":
                for field in ("c", "indptr", "indices", "data", "row_lo", "row_hi", "lb", "ub"):
                    assert np.array_equal(getattr(value, field), getattr(built[key], field)), (key, field)
            elif key == "bounder" or key[0] == "bounder":
                ref = built[key] if key != "bounder" else next(v for k, v in built.items()
                                                               if k[0] == "bounder").without_row()
                m = ref.m
                for field in ("a", "abs_a", "row_lo", "row_hi", "_y_min", "_y_max", "_lo_fin", "_hi_fin"):
                    assert np.array_equal(getattr(value, field)[:m], getattr(ref, field)[:m]), (key, field)
    if bias in ("proxy_label", "selection"):
        assert patched >= 1

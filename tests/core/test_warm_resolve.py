"""Warm re-solves (``BoundProblem.with_table(..., warm=True)``): each LP of a moved program starts from the
optimal bases of the program's reference solves where those are still optimal (fairprobe.backends.lp_basis).

The promises: the bounds are a fresh problem's to the parity searches' closing gap, verified the same way;
a re-solve depends only on its own table and the reference (not on the order of the re-solves, the number
of workers or the options of the first call); and the remembered bases are actually used.
"""

from __future__ import annotations

import dataclasses
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


def _in_order(bias: str, metric, data: fp.ObservedTable, D: float, draws: list, order: list[int]) -> dict:
    problem = BoundProblem(bias, metric, data, fixed={"D": D}, reuse=False)
    return {i: _bounds(problem.with_table(problem.table.with_probabilities(draws[i])).solve({"D": D}, progress=False))
            for i in order}


@pytest.mark.parametrize(("bias", "metric", "D"), [("selection", "fpr_parity", 0.02),  # moved by the rebinder
                                                   ("proxy_label", "demographic_parity", 0.0),  # compiled per table
                                                   ("proxy_label", "ppv_parity", 0.0)])
def test_a_resolve_does_not_depend_on_the_order_of_the_resolves(compas: fp.ObservedTable, bias: str, metric: str,
                                                                D: float) -> None:
    """COMPAS's two smallest groups: the first re-solve of a program the rebinder refuses used to run cold
    and later ones warm, so a draw's bounds depended on whether it came first."""
    metric_ = fp.metric(metric, groups=("Native American", "Asian"))
    data = _data(compas, bias)
    probe = BoundProblem(bias, metric_, data, fixed={"D": D}, reuse=False)
    counts = probe.table.counts()
    draws = np.random.default_rng(11).multinomial(counts.sum(), counts / counts.sum(), size=6) / counts.sum()
    assert _in_order(bias, metric_, data, D, draws, list(range(6))) == \
        _in_order(bias, metric_, data, D, draws, list(reversed(range(6))))  # bit for bit, draw by draw


def test_a_table_with_another_support_first_does_not_change_its_bounds() -> None:
    """A small table whose rare cell is 0 in some resamples: such a table is compiled per table (the rebinder
    refuses its support), and its bounds are the same whether it is re-solved first or after another."""
    import pandas as pd

    rows = [{"A": a, "Y": y, "P": p} for a in range(2) for y in (0, 1) for p in (0, 1)]
    table = fp.ObservedTable.from_counts(pd.DataFrame(rows).assign(n=[40, 30, 2, 25, 30, 35, 20, 1]), given={"S": 1})
    from fairprobe.core.bound import WARM_ANCHORS, WARM_SEED

    probe = BoundProblem("selection", "fpr_parity", table, fixed={"D": 0.02}, reuse=False)
    p = probe.table.column_arrays()["prob"]
    n = int(probe.table.n)
    # the table with a zero cell is one the compiled memory was filled on (so its bases fit one memory only)
    anchors = np.random.default_rng(WARM_SEED).multinomial(n, p / p.sum(), size=WARM_ANCHORS) / n
    zero = next(d for d in anchors if (d == 0).any())
    full = np.random.default_rng(1).multinomial(n, p / p.sum()) / n
    assert not (full == 0).any()
    first = _in_order("selection", "fpr_parity", table, 0.02, [zero, full], [0, 1])
    second = _in_order("selection", "fpr_parity", table, 0.02, [zero, full], [1, 0])
    assert first == second


def test_the_first_calls_options_do_not_change_later_resolves(compas: fp.ObservedTable) -> None:
    """A first re-solve with a tiny time limit (or a tighter gap) changes nothing later: the memory is filled
    outside the call's budget, with the options of each later call."""
    metric = fp.metric("fpr_parity", groups=("Native American", "Asian"))
    data = _data(compas, "selection")
    results = []
    for first in ({"time_limit": 1e-4}, {"gap": 1e-12}, {}):
        problem = BoundProblem("selection", metric, data, fixed={"D": 0.02}, reuse=False)
        draws = _draws(problem, 8, 1)
        with warnings.catch_warnings():  # (cut short: "a solver stopped at a limit")
            warnings.simplefilter("ignore", RuntimeWarning)
            problem.with_table(draws[0]).solve({"D": 0.02}, progress=False, **first)
        results.append([_bounds(problem.with_table(t).solve({"D": 0.02}, progress=False)) for t in draws[1:]])
    assert results[0] == results[2] and results[1] == results[2]


def test_a_tight_time_limit_fills_the_memory_once(compas: fp.ObservedTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """The filling is not charged to a call: re-solves under a tight limit fill once, then run warm."""
    import fairprobe.core.bound as bound_module

    fills = []
    real = bound_module.BoundProblem._record_bases
    monkeypatch.setattr(bound_module.BoundProblem, "_record_bases",
                        lambda self, *a, **k: fills.append(1) or real(self, *a, **k))
    metric = fp.metric("fpr_parity", groups=("Hispanic", "Caucasian"))
    problem = BoundProblem("selection", metric, _data(compas, "selection"), fixed={"D": 0.02}, reuse=False)
    draws = _draws(problem, 4, 2)
    passes = []
    for _ in range(2):
        for other in draws:  # (a limit below a filling's three solves: a filling charged to it would be cut short)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                res = problem.with_table(other).solve({"D": 0.02}, progress=False, time_limit=0.004)
            assert res.lower <= min(res.lower_achieved, res.upper_achieved)
        passes.append(len(fills))
    # one filling per way the program reaches a table (moved; compiled where a small race's cell is 0), then none
    assert 1 <= passes[0] <= 2 and passes[1] == passes[0]


def test_programs_without_lps_to_start_are_not_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program the global solver takes (no LP of HiGHS to start from a basis) and a region's program
    (the cells are variables) fill no memory: nothing to pay for."""
    import fairprobe.core.bound as bound_module

    fills = []
    monkeypatch.setattr(bound_module.BoundProblem, "_record_bases", lambda self, *a, **k: fills.append(1))
    params = {"D": 0.05}
    problem = BoundProblem("selection", "accuracy_parity", random_table(2, "selection"), fixed=params, reuse=False)
    problem.with_table(resampled(problem.table, 0)).solve(params, progress=False, time_limit=5)
    counts = BoundProblem("selection", "fpr_parity", random_table(2, "selection"), fixed=params, reuse=False)
    lo, hi = counts.table.column_arrays()["prob"] * 0.9, counts.table.column_arrays()["prob"] * 1.1
    counts.with_table(counts.table.with_region(lo, hi), fixed=params).solve(params, progress=False)
    assert fills == []


@pytest.mark.parametrize("how", ["slack", "fails"])
def test_a_warm_search_that_does_not_close_is_done_again_without_the_bases(monkeypatch: pytest.MonkeyPatch,
                                                                          how: str) -> None:
    """A warm search whose certificate carries more than rounding (here: every one, by a negative share), or
    that fails (here: its top of the rate, on warm runs only), is run again as a fresh problem runs it: the
    bounds are a fresh problem's, by the same exact search (never the global solver)."""
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
    if how == "slack":
        monkeypatch.setattr(two_ratio, "SLACK_SHARE", -1.0)
    else:
        top = two_ratio._Search.ratio_a_top
        monkeypatch.setattr(two_ratio._Search, "ratio_a_top",
                            lambda self: None if highs_lp.reading(self.options) else top(self))
    again = problem.with_table(other).solve(params, progress=False)
    assert calls == [True, False, True, False]  # each side: warm, then without the bases
    fresh = BoundProblem("selection", "fpr_parity", other, fixed=params, reuse=False).solve(params, progress=False)
    assert again.lower == pytest.approx(fresh.lower, abs=WARM_GAP)
    assert again.upper == pytest.approx(fresh.upper, abs=WARM_GAP)
    assert again.min_result.solver == again.max_result.solver == "highs"


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
                if "dense" in value.__dict__:  # (carried over, rows rewritten: what computing it again gives)
                    again = dataclasses.replace(value)
                    assert np.array_equal(value.dense, again.dense) and np.array_equal(value.row_of, again.row_of)
            elif key == "bounder" or key[0] == "bounder":
                ref = built[key] if key != "bounder" else next(v for k, v in built.items()
                                                               if k[0] == "bounder").without_row()
                m = ref.m
                for field in ("a", "abs_a", "row_lo", "row_hi", "_y_min", "_y_max", "_lo_fin", "_hi_fin"):
                    assert np.array_equal(getattr(value, field)[:m], getattr(ref, field)[:m]), (key, field)
    if bias in ("proxy_label", "selection"):
        assert patched >= 1

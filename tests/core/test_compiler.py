"""Compiler: the program of a tiny bias and table, its data rows at a known model, and exact reductions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairprobe.backends.scip import ScipBackend
from fairprobe.core.compiled import undefined_metric_message
from fairprobe.core.compiler import CompiledProgram, compile_program, rate_key
from fairprobe.core.config import BiasConfig
from fairprobe.core.query import Atom
from fairprobe.core.registry import metric as fp_metric
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import UndefinedMetricError
from fairprobe.metrics.base import Metric
from fairprobe.program.model import PolynomialProgram

CONFOUNDED = {"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []}
#: U confounds the treatment A with Y and P: P(Y(A=1) = 1) is only partially identified (Manski).
CONFOUNDED_TREATMENT = {"dag_str": "A->Y, U->A, U->Y, U->P, A->P", "unob": "U", "constraints": []}
SELECTION = {
    "dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"], "cond_nodes": ["S"],
    "attribute_node": "A", "outcome_node": "Y", "prediction_node": "P", "constraints": ["P(S = 1) >= 1 - D"],
}


def _table(rows: list[tuple[int, int, int, int]], **kw: object) -> ObservedTable:
    return ObservedTable.from_counts(pd.DataFrame(rows, columns=["A", "Y", "P", "n"]), **kw)


#: P(A, Y, P) with P = Y: cells (0,0,0) .3, (0,1,1) .1, (1,0,0) .2, (1,1,1) .4
FOUR_CELLS = _table([(0, 0, 0, 30), (0, 1, 1, 10), (1, 0, 0, 20), (1, 1, 1, 40)])


def _bounds(compiled: CompiledProgram) -> tuple[float, float]:
    out = []
    for sense in ("min", "max"):
        res = ScipBackend().solve(compiled.program.with_sense(sense))
        assert res.termination.value == "optimal"
        out.append(res.objective_bound)
    return out[0], out[1]


def _rows(program: PolynomialProgram) -> dict[str, tuple[str, float]]:
    return {c.name: (c.sense, c.rhs) for c in program.constraints}


def test_reduced_program_of_a_tiny_table() -> None:
    compiled = compile_program(BiasConfig.from_dict(CONFOUNDED), FOUR_CELLS, "P(P = 1 | Y = 1 & A = 0)", {})
    prog = compiled.program
    assert compiled.kind == "linear" and prog.sense == "min"
    # A is absorbed slice by slice into the (Y, P) component; the 4 zero cells are presolved away
    assert [v.name for v in prog.variables] == ["q_A_Y_P.0", "q_A_Y_P.3", "q_A_Y_P.4", "q_A_Y_P.7"]
    assert all((v.lb, v.ub) == (0.0, 1.0) for v in prog.variables)
    rows = _rows(prog)
    assert set(rows) == {"simplex_A_Y_P", "data0", "data3", "data4", "data7"}
    assert rows["simplex_A_Y_P"] == ("==", 1.0)
    assert {k: (s, round(r, 12)) for k, (s, r) in rows.items() if k.startswith("data")} == {
        "data0": ("==", 0.3), "data3": ("==", 0.1), "data4": ("==", 0.2), "data7": ("==", 0.4)}
    # P(P = 1 | Y = 1, A = 0) = q3 / P(Y = 1, A = 0) = q3 / 0.1
    assert prog.objective == {(prog.index("q_A_Y_P.3"),): pytest.approx(10.0)}
    point = {"q_A_Y_P.0": 0.3, "q_A_Y_P.3": 0.1, "q_A_Y_P.4": 0.2, "q_A_Y_P.7": 0.4}
    assert prog.max_violation(point) == pytest.approx(0.0, abs=1e-12)
    assert prog.objective_value(point) == pytest.approx(1.0)
    assert compiled.stats_before["n_variables"] == 18 and compiled.stats_after["n_variables"] == 4
    assert any("absorbed" in note for note in compiled.notes)


def test_conditions_record_the_conditioning_event_and_its_observed_probability() -> None:
    compiled = compile_program(BiasConfig.from_dict(CONFOUNDED), FOUR_CELLS, "P(P = 1 | Y = 1 & A = 0)", {})
    (cond,) = compiled.conditions
    assert cond.event == "Y = 1 & A = 0"
    assert cond.atoms == (Atom("Y", 1), Atom("A", 0))
    assert cond.observed == pytest.approx(0.1)
    assert not compiled.query_rows and not compiled.ratios


def test_naive_program_data_rows_hold_at_a_known_model() -> None:
    # the model: P(A = 1) = 0.6, and Y = A, P = A (identity response functions of both)
    table = _table([(0, 0, 0, 40), (1, 1, 1, 60)])
    compiled = compile_program(BiasConfig.from_dict(CONFOUNDED), table, "P(P = 1 | Y = 1 & A = 1)", {},
                               reduce=False)
    prog = compiled.program
    assert compiled.kind == "linear_fractional"
    assert [v.name for v in prog.variables] == [f"q_Y_P.{k}" for k in range(16)]  # 4 x 4 joint types
    assert {c.name for c in prog.constraints} == {"simplex_Y_P", *(f"data{k}" for k in range(8))}
    # joint type index = type(Y) * 4 + type(P); "identity" is response type 1 for both
    model = {v.name: 0.0 for v in prog.variables} | {"q_Y_P.5": 1.0}
    assert prog.max_violation(model) == pytest.approx(0.0, abs=1e-12)
    assert prog.objective_value(model) == pytest.approx(1.0)
    # another deterministic model (Y = A, P = 1 always: type 1 * 4 + 3) contradicts the cell (A=0, P=0)
    wrong = {v.name: 0.0 for v in prog.variables} | {"q_Y_P.7": 1.0}
    assert prog.max_violation(wrong) == pytest.approx(0.4)


def test_reduced_and_naive_programs_give_the_same_manski_bounds() -> None:
    config = BiasConfig.from_dict(CONFOUNDED_TREATMENT)
    reduced = compile_program(config, FOUR_CELLS, "P(Y(A=1) = 1)", {})
    naive = compile_program(config, FOUR_CELLS, "P(Y(A=1) = 1)", {}, reduce=False)
    assert reduced.kind == naive.kind == "linear"
    assert reduced.program.n_variables < naive.program.n_variables
    # [P(A=1, Y=1), P(A=1, Y=1) + P(A=0)] = [0.4, 0.8]
    low, high = _bounds(reduced)
    assert (low, high) == pytest.approx((0.4, 0.8), abs=1e-6)
    assert _bounds(naive) == pytest.approx((low, high), abs=1e-6)


def test_selection_bound_matches_the_hand_computed_extremes() -> None:
    table = _table([(0, 0, 0, 30), (0, 1, 1, 10), (0, 1, 0, 5), (1, 0, 0, 20), (1, 1, 1, 30), (1, 1, 0, 10)],
                   given={"S": 1})
    compiled = compile_program(BiasConfig.from_dict(SELECTION), table, "P(P = 1 | Y = 1 & A = 0)", {"D": 0.1})
    assert compiled.kind in ("linear", "linear_fractional")
    assert any(c.sense == ">=" and c.name.startswith("bias") for c in compiled.program.constraints)
    # at P(S = 1) = 0.9, the unselected mass 0.1 goes to (A=0, Y=1, P=0) or to (A=0, Y=1, P=1)
    tp, pos = 0.9 * 10 / 105, 0.9 * 15 / 105
    low, high = _bounds(compiled)
    assert low == pytest.approx(tp / (pos + 0.1), abs=1e-6)
    assert high == pytest.approx((tp + 0.1) / (pos + 0.1), abs=1e-6)


def test_max_abs_program_and_term_values() -> None:
    compiled = compile_program(BiasConfig.from_dict(CONFOUNDED), FOUR_CELLS,
                               ["P(P = 1 | A = 0) - P(P = 1 | A = 1)"], {}, max_abs=True)
    assert compiled.windows and compiled.query_rows
    assert compiled.query_rows <= {c.name for c in compiled.program.constraints}
    point = {"q_A_Y_P.3": 0.1, "q_A_Y_P.7": 0.4, "window0_low": 0.0, "window0_high": 1.0}
    # rates 0.1 / 0.4 and 0.4 / 0.6
    assert compiled.term_values(point) == [pytest.approx(0.4 / 0.6 - 0.25)]
    res = ScipBackend().solve(compiled.program)  # the lower bound of max |q|; the max-abs program only minimises
    assert res.termination.value == "optimal"
    assert res.objective_bound == pytest.approx(0.4 / 0.6 - 0.25, abs=1e-6)  # identified: both rates are pinned


def test_conditioning_on_an_empty_cell_is_undefined_at_compile_time() -> None:
    table = _table([(0, 0, 0, 30), (1, 0, 1, 20), (1, 1, 1, 40)])
    with pytest.raises(UndefinedMetricError, match="Y = 1 & A = 0"):
        compile_program(BiasConfig.from_dict(CONFOUNDED), table, "P(P = 1 | Y = 1 & A = 0)", {})


def test_undefined_metric_message_names_the_group_label_and_the_empty_cell() -> None:
    table = ObservedTable.from_frame(pd.DataFrame({"A": ["x", "y"], "Y": [0, 1], "P": [0, 1]}))
    config = BiasConfig.from_dict({**CONFOUNDED, "name": "toy"})
    msg = undefined_metric_message(config, table, (Atom("Y", 1), Atom("A", 0)), "at D = 0", label="TPR")
    assert msg.startswith("The metric 'TPR' is undefined: it conditions on Y = 1 & A = 0 (group A = 0 ('x'))")
    assert "the bias 'toy' admits at D = 0" in msg
    assert "the table has no row with Y = 1, A = 0" in msg
    negated = undefined_metric_message(config, table, (Atom("A", 0, negated=True),), "at D = 0")
    assert "everyone but group A = 0" in negated


# -- a parity of two rates read off a max-abs program's windows ------------------------------------------

def _random_cells(seed: int, k: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(4 * k, 2.0))
    rows = [{"A": a, "Y": y, "P": p, "prob": probs[4 * a + 2 * y + p]}
            for a in range(k) for y in range(2) for p in range(2)]
    return pd.DataFrame(rows)


def _window_data(bias: str, cells: pd.DataFrame) -> ObservedTable:
    given = {"S": 1} if bias in ("selection", "proxy_label_and_selection") else None
    return ObservedTable.from_probabilities(cells, given=given)


def _window_events(joint: CompiledProgram) -> list[str]:
    """The conditioning event of each window member, in the windows' order."""
    index = {v.name: k for k, v in enumerate(joint.program.variables)}
    out = []
    for family in joint.windows:
        for _, den in family:
            poly = {tuple(index[n] for n in mono): c for mono, c in den.items() if all(n in index for n in mono)}
            out.append(next(c.event for c in joint.conditions if c.poly == poly))
    return out


def _events(problem, f: int) -> list[str]:
    """The conditioning event of each rate of family ``f``, as its own program names it."""
    rates = range(len(problem.metric.families[f]))
    return [problem.rate_program(f, i).at({"D": 0.05}).conditions[0].event for i in rates]


def _keys(problem, f: int) -> list[tuple]:
    """Each rate of family ``f`` by its events (what the joint program's windows are looked up by)."""
    return [rate_key(rate) for rate in problem.metric.families[f]]


@pytest.mark.parametrize("bias", ["proxy_label", "selection", "ecp", "proxy_label_and_selection"])
@pytest.mark.parametrize(("seed", "k", "groups"), [(3, 3, "all"), (4, 2, (1, 0))])
def test_a_pair_read_off_the_joint_program_has_the_compiled_pairs_optimum(bias: str, seed: int, k: int,
                                                                          groups) -> None:
    """Both senses of ``rate_i - rate_j`` over the joint program's models equal those of the pair compiled
    on its own, to the exact search's tolerance; ordered pairs of three groups and of two groups named
    against their codes' order, both families (the joint program's windows list the rates in an order
    of their own: they are found by their events, not by position)."""
    from fairprobe.backends.highs import HighsBackend
    from fairprobe.core.bound import BoundProblem

    problem = BoundProblem(bias, fp_metric("equalized_odds", groups=groups), _window_data(bias, _random_cells(seed, k)),
                           fixed={"D": 0.05})
    joint = problem.joint_program.at({"D": 0.05})
    highs = HighsBackend()
    checked = 0
    for f in range(len(problem.metric.families)):
        events, keys = _events(problem, f), _keys(problem, f)
        for i, j in [(0, 1), (1, 0), (0, 2), (2, 1)] if k == 3 else [(0, 1), (1, 0)]:
            pair = joint.window_pair(keys[i], keys[j])
            compiled = problem.pair_program(f, min(i, j), max(i, j)).at({"D": 0.05})
            assert pair is not None and pair.ratios == ["query_r0", "query_r1"]
            assert [c.event for c in pair.conditions] == [events[i], events[j]]
            assert pair.query_rows == {"query_r0_def", "query_r0_pos", "query_r1_def", "query_r1_pos"}
            for sense in ("min", "max"):
                ours = highs.solve_two_ratio(pair.program.with_sense(sense))
                # compiled as rate_min(i,j) - rate_max(i,j): the other order is its negation
                theirs = highs.solve_two_ratio(compiled.program.with_sense(sense if i < j else
                                                                           {"min": "max", "max": "min"}[sense]))
                assert ours is not None and theirs is not None and ours.is_optimal and theirs.is_optimal
                expected = theirs.objective_bound if i < j else -theirs.objective_bound
                assert ours.objective_bound == pytest.approx(expected, abs=2e-9)
                # the search's model is a model of the joint program's rows, with the pair's value there
                assert pair.program.max_violation(ours.incumbent) <= 1e-9
                checked += 1
    assert checked == 2 * (4 if k == 3 else 2) * 2
    if groups != "all":  # the windows list the rates in another order than the metric: found by event
        assert _window_events(joint) != _events(problem, 0) + _events(problem, 1)


def test_a_pair_is_not_read_off_where_it_cannot_be() -> None:
    """A rate whose denominator the data pin has no ratio row to write (the pair is linear: compiled on its
    own), rates of two families are no pair, a key names no member, and a program without windows
    has none."""
    from fairprobe.core.bound import BoundProblem

    cells = _random_cells(5, 2)
    ppv = BoundProblem("proxy_label", fp_metric("ppv_parity", groups="all"), cells, fixed={"D": 0.05})
    joint = ppv.joint_program.at({"D": 0.05})
    assert joint.windows and all(den is None for _, den in joint.windows[0])  # P(P = 1 & A = a) is data
    assert joint.window_pair(*_keys(ppv, 0)[:2]) is None
    eo = BoundProblem("proxy_label", fp_metric("equalized_odds", groups="all"), cells, fixed={"D": 0.05})
    windows = eo.joint_program.at({"D": 0.05})
    fpr, tpr = _keys(eo, 0), _keys(eo, 1)
    # the two read off in this program have the optima of the pairs compiled on their own (TPR in reverse order:
    # the negated minimum of TPR(0) - TPR(1))
    from fairprobe.backends.highs import HighsBackend

    highs = HighsBackend()
    fpr_pair, tpr_pair = windows.window_pair(fpr[0], fpr[1]), windows.window_pair(tpr[1], tpr[0])
    fpr_max = highs.solve_two_ratio(fpr_pair.program.with_sense("max")).objective_bound
    tpr_max = highs.solve_two_ratio(tpr_pair.program.with_sense("max")).objective_bound
    assert fpr_max == pytest.approx(highs.solve_two_ratio(
        eo.pair_program(0, 0, 1).at({"D": 0.05}).program.with_sense("max")).objective_bound, abs=2e-9)
    assert tpr_max == pytest.approx(-highs.solve_two_ratio(
        eo.pair_program(1, 0, 1).at({"D": 0.05}).program.with_sense("min")).objective_bound, abs=2e-9)
    assert windows.window_pair(fpr[0], tpr[1]) is None  # two families
    assert windows.window_pair(fpr[0], fpr[0]) is None
    assert windows.window_pair(fpr[0], rate_key("P(P = 1 | Z = 0 & A = 7)")) is None  # no such member
    # the same conditioning event with another outcome event is another rate (P = 0 instead of P = 1)
    assert windows.window_pair(fpr[0], rate_key("P(P = 0 | Z = 0 & A = 1)")) is None
    single = eo.rate_program(0, 0).at({"D": 0.05})
    assert not single.windows and single.window_pair(fpr[0], fpr[1]) is None


def test_an_all_pairs_bound_reads_its_pairs_off_the_joint_program(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the LP fast path no pair is compiled, and the bounds are those of the pairs compiled one by one."""
    import fairprobe as fp
    from fairprobe.core.bound import BoundProblem

    data = _window_data("selection", _random_cells(6, 4))
    metric = fp.metric("fpr_parity", groups="all")
    problem = BoundProblem("selection", metric, data, fixed={"D": 0.05})
    read = problem.solve({"D": 0.05}, progress=False)
    assert read.details["pairs_solved"] >= 1 and problem._pair_programs == {}  # nothing compiled per pair
    monkeypatch.setattr(CompiledProgram, "window_pair", lambda self, *args: None)
    again = BoundProblem("selection", metric, data, fixed={"D": 0.05})
    compiled = again.solve({"D": 0.05}, progress=False)
    assert len(again._pair_programs) == compiled.details["pairs_solved"] >= 1
    assert read.status == compiled.status == "optimal"
    assert read.upper == pytest.approx(compiled.upper, abs=2e-9)
    assert read.lower == pytest.approx(compiled.lower, abs=1e-6)  # the joint lower bound: SCIP's tolerance


class _ComplementFnrParity(Metric):
    """FNR parity over all pairs with each rate written ``1 - P(P = 1 | Y = 1 & A = a)`` (a plugin's way)."""

    name = "complement_fnr_parity_test"
    description = "FNR parity, rates written as 1 - TPR"

    def _rate(self, config: BiasConfig, a: int) -> str:
        return f"1 - P({config.prediction_node} = 1 | {config.outcome_node} = 1 & {config.attribute_node} = {a})"

    def max_abs_terms(self, config: BiasConfig) -> list[str]:
        k = config.cardinality(config.attribute_node)
        return [f"{self._rate(config, a)} - ({self._rate(config, b)})" for a in range(k) for b in range(a + 1, k)]

    def max_abs_families(self, config: BiasConfig) -> list[list[str]]:
        return [[self._rate(config, a) for a in range(config.cardinality(config.attribute_node))]]

    def label(self, config: BiasConfig) -> str:
        return self.name


def test_rates_not_written_as_one_conditional_probability_are_not_read_off() -> None:
    """A family rate ``1 - TPR`` is an FNR, while the joint program's windows hold the TPRs (sympy cancels the
    ones in the terms): its pairs are compiled, and the bound is the built-in FNR parity's (a reviewer's case,
    where the read-off by conditioning event alone certified 0.352 against an attained 0.508)."""
    import fairprobe as fp
    from fairprobe.core.bound import BoundProblem

    assert rate_key("1 - P(P = 1 | Y = 1 & A = 0)") is None
    data = _window_data("selection", _random_cells(1, 3))
    problem = BoundProblem("selection", _ComplementFnrParity(), data, fixed={"D": 0.05})
    plugin = problem.solve({"D": 0.05}, progress=False)
    builtin = fp.bound("selection", fp.metric("fnr_parity", groups="all"), data, D=0.05, progress=False)
    assert problem._pair_programs  # compiled, not read off
    assert plugin.upper == pytest.approx(builtin.upper, abs=1e-9)
    assert plugin.upper_achieved is not None and plugin.upper_achieved > 0.5  # the pair that decides it
    assert plugin.lower == pytest.approx(builtin.lower, abs=1e-6)


def test_a_read_off_pair_the_search_declines_goes_to_the_global_solver_compiled_on_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the exact search declines a pair, SCIP gets the pair compiled for it (as without the read-off, bit for
    bit), not the joint program's finer one."""
    import fairprobe as fp
    import fairprobe.core.families as bound_module
    from fairprobe.core.bound import BoundProblem

    data = _window_data("selection", _random_cells(2, 3))
    metric = fp.metric("fpr_parity", groups="all")
    declined: list[int] = []

    def decline(compiled, *args, **kwargs):
        declined.append(compiled.program.n_variables)
        return None

    monkeypatch.setattr(bound_module, "parity_side", decline)
    problem = BoundProblem("selection", metric, data, fixed={"D": 0.05})
    read = problem.solve({"D": 0.05}, progress=False)
    assert declined and len(problem._pair_programs) == read.details["pairs_solved"]  # compiled after declining
    monkeypatch.setattr(CompiledProgram, "window_pair", lambda self, *args: None)
    again = BoundProblem("selection", metric, data, fixed={"D": 0.05}).solve({"D": 0.05}, progress=False)
    assert (read.lower, read.upper, read.upper_achieved) == (again.lower, again.upper, again.upper_achieved)


@pytest.mark.parametrize("bias", ["proxy_label", "selection", "ecp", "proxy_label_and_selection"])
@pytest.mark.parametrize(("metric", "k"), [("equalized_odds", 2), (("equalized_odds", (1, 0)), 2),
                                           (("fpr_parity", "all"), 4), (("ppv_parity", "all"), 3)])
def test_a_joint_program_compiled_from_the_rates_is_the_one_compiled_from_the_pair_terms(bias: str, metric, k: int
                                                                                         ) -> None:
    """k rates per family give the very program the k (k - 1) / 2 pair terms give (rows, windows, conditions)."""
    from fairprobe.core.bound import BoundProblem

    spec = fp_metric(metric[0], groups=metric[1]) if isinstance(metric, tuple) else metric
    problem = BoundProblem(bias, spec, _window_data(bias, _random_cells(5, k)))
    query = problem._joint_query()
    assert type(query).__name__ == "RateFamilies" and len(query.rates) == sum(map(len, problem.metric.families))
    from_rates = problem.joint_program.at({"D": 0.05})
    from_terms = compile_program(problem.config, problem.table, list(problem.metric.queries), {"D": 0.05},
                                 max_abs=True)
    assert from_rates.program.to_text() == from_terms.program.to_text()
    assert from_rates.window_keys == from_terms.window_keys and from_rates.windows == from_terms.windows
    assert from_rates.conditions == from_terms.conditions and from_rates.query_rows == from_terms.query_rows


@pytest.mark.parametrize("bias", ["proxy_label", "selection", "ecp", "proxy_label_and_selection"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_rate_read_off_the_joint_program_has_the_range_of_the_rate_compiled_alone(bias: str, seed: int) -> None:
    """Each rate of an all-pairs bound, read off the joint program and reduced to its blocks, has the range
    (certified bounds and the models achieving them) of the rate compiled on its own."""
    from fairprobe.backends.base import SolveOptions
    from fairprobe.core.bound import BoundProblem
    from fairprobe.core.decompose import BlockPlan
    from fairprobe.core.registry import get_backend

    highs, options = get_backend("highs"), SolveOptions(rel_gap=1e-10, abs_gap=1e-10)
    problem = BoundProblem(bias, fp_metric("fpr_parity", groups="all"), _window_data(bias, _random_cells(seed, 4)))
    joint = problem.joint_program.at({"D": 0.05})
    plan = BlockPlan(joint.window_model(), highs, options)
    reduced = 0
    for i, rate in enumerate(problem.metric.families[0]):
        read = joint.window_rate(rate_key(rate), plan.reduce)
        alone = problem.rate_program(0, i).at({"D": 0.05})
        assert read is not None and read.kind == alone.kind == "linear_fractional"
        assert [c.event for c in read.conditions] == [c.event for c in alone.conditions]
        reduced += read.program.n_variables < joint.window_model().n_variables
        for sense in ("min", "max"):
            ours, theirs = highs.solve(read.program.with_sense(sense), options), \
                highs.solve(alone.program.with_sense(sense), options)
            assert ours.objective_bound == pytest.approx(theirs.objective_bound, abs=1e-9), (rate, sense)
            achieved = read.program.objective_value(ours.incumbent)
            assert (achieved <= ours.objective_bound + 1e-12) if sense == "max" else \
                (achieved >= ours.objective_bound - 1e-12)
            assert achieved == pytest.approx(ours.objective_bound, abs=1e-8)  # the bound is attained (sharp)
            assert read.program.max_violation(ours.incumbent) <= 1e-9  # by a point of the read-off program
    if bias == "proxy_label":
        assert reduced == 4  # one budget over the groups' blocks: each rate keeps its own

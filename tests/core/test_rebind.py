"""Compile once, solve on many tables: a moved program is the program a compilation writes."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, as_table, resolve_bias
from fairprobe.core.compiler import compile_program
from fairprobe.core.rebind import DataRebinder, Resampler
from fairprobe.exceptions import UndefinedMetricError
from fairprobe.testing import selective_labels_table

METRICS = ["fpr_parity", "ppv_parity", "equalized_odds", "demographic_parity"]
BIASES = sorted(fp.get_registry().biases)


def random_table(seed: int, bias: str, n: int = 5000) -> fp.ObservedTable:
    rng = np.random.default_rng(seed)
    rows = [{"A": a, "Y": y, "P": p} for a in (0, 1) for y in (0, 1) for p in (0, 1)]
    cells = pd.DataFrame(rows).assign(n=rng.integers(20, 400, size=8))
    if bias == "selective_labels":
        probs = cells.assign(prob=cells.n / cells.n.sum()).drop(columns="n")
        return fp.ObservedTable.from_probabilities(selective_labels_table(probs), n=n)
    given = {node: 1 for node in resolve_bias(bias).cond_nodes} or None
    return fp.ObservedTable.from_counts(cells, given=given)


def resampled(table: fp.ObservedTable, seed: int) -> fp.ObservedTable:
    p = table.column_arrays()["prob"]
    moved = np.random.default_rng(seed).dirichlet(p * 2000 + 1e-3)
    return table.with_probabilities(moved)


@pytest.mark.parametrize("bias", BIASES)
def test_a_moved_program_equals_a_compiled_one(bias: str) -> None:
    """Row for row, for every built-in bias: where the rebinder accepts, it writes what compiling writes."""
    config = resolve_bias(bias)
    table = as_table(random_table(1, bias), config)
    accepted = 0
    for query in ("P(P = 1 | Y = 0 & A = 0) - P(P = 1 | Y = 0 & A = 1)", "P(P = 1 & A = 0) - P(P = 1 & A = 1)"):
        outcome = config.parse_outcome(config.outcome_node)[0] if config.outcome_node else "Y"
        query = query.replace("Y =", f"{outcome} =")
        fn = functools.partial(compile_program, config, query=query, params={p: 0.05 for p in config.parameters})
        rebinder = DataRebinder.build(lambda t, fn=fn: fn(table=t), table)
        if rebinder is None:
            continue
        accepted += 1
        for seed in range(3):
            other = resampled(table, seed)
            moved, compiled = rebinder.at(other), fn(table=other)
            # the fresh compilation at the new table is the known answer, row for row
            assert [(c.name, c.sense, c.poly, c.rhs) for c in moved.program.constraints] == \
                [(c.name, c.sense, c.poly, c.rhs) for c in compiled.program.constraints]
            assert moved.program.objective == compiled.program.objective
            assert moved.program.variables == compiled.program.variables
    if bias in ("proxy_label", "selection"):
        assert accepted == 2  # the bootstrap's main cases move (FPR's latent or selected denominators)


@pytest.mark.parametrize("bias", ["proxy_label", "selection", "ecp", "proxy_label_and_selection"])
@pytest.mark.parametrize("metric", METRICS)
def test_with_table_gives_the_bounds_of_a_fresh_problem(bias: str, metric: str) -> None:
    table = random_table(2, bias)
    problem = BoundProblem(bias, metric, table, fixed={p: 0.05 for p in resolve_bias(bias).parameters})
    params = problem.parameter_values(0.05) if len(problem.parameters) == 1 else \
        {p: 0.05 for p in problem.parameters}
    resampler = Resampler(problem)
    for seed in range(2):
        other = resampled(problem.table, seed)
        fresh = BoundProblem(bias, metric, other, fixed=params).solve(params, progress=False)
        # moved by the resampler, or compiled for the table by with_table: a fresh problem's bounds, bit for bit
        for way in (resampler.at(other, fixed=params), problem.with_table(other, fixed=params)):
            res = way.solve(params, progress=False)
            assert (res.lower, res.upper, res.status) == (fresh.lower, fresh.upper, fresh.status)
            assert (res.lower_achieved, res.upper_achieved) == (fresh.lower_achieved, fresh.upper_achieved)


def test_a_cell_outside_the_first_support_is_compiled() -> None:
    """The first table has a zero cell (its variables presolved away): a table with mass there compiles."""
    cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                          "n": [300, 50, 0, 200, 150, 100, 50, 200]})
    table = fp.ObservedTable.from_counts(cells)
    problem = BoundProblem("proxy_label", "fpr_parity", table, fixed={"D": 0.05})
    p = problem.table.column_arrays()["prob"].copy()
    p[2] = 0.05
    other = problem.table.with_probabilities(p / p.sum())
    resampler = Resampler(problem)
    moved = resampler.at(other).solve({"D": 0.05}, progress=False)
    fresh = BoundProblem("proxy_label", "fpr_parity", other, fixed={"D": 0.05}).solve(
        {"D": 0.05}, progress=False)
    assert (moved.lower, moved.upper) == (fresh.lower, fresh.upper)
    rebinder = next(iter(resampler.rebinders.values()))
    assert rebinder is not None and rebinder.at(other) is None  # refused: compiled instead


def test_a_pinned_denominator_is_not_moved() -> None:
    """PPV under proxy labels divides by P(P = 1 & A = a), which the data pin: the objective reads the
    data, so the rebinder refuses and every table is compiled."""
    config = resolve_bias("proxy_label")
    table = as_table(random_table(3, "proxy_label"), config)
    fn = functools.partial(compile_program, config, query="P(Z = 1 | P = 1 & A = 0) - P(Z = 1 | P = 1 & A = 1)",
                           params={"D": 0.05})
    assert DataRebinder.build(lambda t: fn(table=t), table) is None


def test_the_bootstrap_is_the_same_with_moved_programs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bootstrap interval does not depend on whether its resamples were moved or compiled."""
    table = random_table(4, "selection")
    res = fp.bound("selection", "fpr_parity", table, D=0.05, ci=0.9, resamples=30, seed=3)
    with monkeypatch.context() as m:  # every resample compiled anew: the known answer
        m.setattr(DataRebinder, "build", classmethod(lambda cls, compile_fn, table, base=None, known=(): None))
        compiled_everywhere = fp.bound("selection", "fpr_parity", table, D=0.05, ci=0.9, resamples=30, seed=3)
    assert (res.interval.lower, res.interval.upper) == \
        (compiled_everywhere.interval.lower, compiled_everywhere.interval.upper)
    assert res.interval.lower <= res.lower and res.interval.upper >= res.upper
    problem = BoundProblem("selection", "fpr_parity", table, fixed={"D": 0.05})
    from fairprobe.core.uncertainty import interval_options, resampled_probabilities

    draws = resampled_probabilities(problem.table, interval_options(0.9, resamples=30, seed=3))
    compiled, resampler = [], Resampler(problem)
    for probs in draws[:5]:
        fresh = BoundProblem("selection", "fpr_parity", problem.table.with_probabilities(probs), fixed={"D": 0.05})
        out = fresh.solve({"D": 0.05}, progress=False)
        moved = resampler.at(problem.table.with_probabilities(probs)).solve({"D": 0.05}, progress=False)
        compiled.append((out.lower, out.upper, moved.lower, moved.upper))
    for lo, hi, mlo, mhi in compiled:
        assert (lo, hi) == (mlo, mhi)  # the moved program is the compiled one: bit for bit


def test_a_resample_with_a_new_zero_cell_is_compiled() -> None:
    """The compiler reads which cells are zero (an intervention identified only where its value has
    data, a ratio floor dropped where zeros force P(F) = 0): a table with a zero the first one did not
    have is compiled, never moved, and gives what a fresh problem gives."""
    table = random_table(5, "proxy_label")
    problem = BoundProblem("proxy_label", "fpr_parity", table, fixed={"D": 0.05})
    p = problem.table.column_arrays()["prob"].copy()
    p[1] = 0.0
    other = problem.table.with_probabilities(p / p.sum())
    resampler = Resampler(problem)
    moved = resampler.at(other).solve({"D": 0.05}, progress=False)
    fresh = BoundProblem("proxy_label", "fpr_parity", other, fixed={"D": 0.05}).solve(
        {"D": 0.05}, progress=False)
    assert (moved.lower, moved.upper) == (fresh.lower, fresh.upper)
    rebinder = next(iter(resampler.rebinders.values()))
    assert rebinder is not None and rebinder.at(other) is None


def test_a_reused_buffer_does_not_change_a_table() -> None:
    table = random_table(6, "proxy_label")
    buffer = table.column_arrays()["prob"].copy()
    moved = table.with_probabilities(buffer)
    before = moved.cell_probabilities()
    buffer[:] = 1.0 / len(buffer)
    assert moved.cell_probabilities() == before
    assert moved.prob({"A": 0}) == pytest.approx(sum(v for k, v in before.items() if k[0] == 0))


def _counting_compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    import fairprobe.core.engine as bound_module

    calls = [0]

    def counting(real):
        def counted(*args, **kwargs):
            calls[0] += 1
            return real(*args, **kwargs)
        return counted

    # a problem's own compilations and the rebinders' probe compilations
    monkeypatch.setattr(bound_module, "_compile_at", counting(bound_module._compile_at))
    monkeypatch.setattr(bound_module, "_compile_on", counting(bound_module._compile_on))
    return calls


def test_a_resampler_moves_the_compiled_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """After its first move, a resampler moves the rows instead of compiling, and bounds exactly as a
    problem compiled from scratch; another D compiles; a table over other cells is refused."""
    calls = _counting_compiles(monkeypatch)
    base = random_table(7, "proxy_label")
    resampler = Resampler(BoundProblem("proxy_label", "fpr_parity", base, fixed={"D": 0.05}))
    for k, table in enumerate(resampled(base, seed) for seed in range(4)):
        before = calls[0]
        moved = resampler.at(table).solve({"D": 0.05}, progress=False)
        compiled_here = calls[0] - before
        fresh = BoundProblem("proxy_label", "fpr_parity", table, fixed={"D": 0.05}).solve({"D": 0.05}, progress=False)
        assert (moved.lower, moved.upper) == (fresh.lower, fresh.upper)
        assert (moved.lower_achieved, moved.upper_achieved) == (fresh.lower_achieved, fresh.upper_achieved)
        assert (compiled_here > 0) == (k == 0), (k, compiled_here)  # the first move checks, the later ones move
    before = calls[0]
    resampler.at(base, fixed={"D": 0.1})  # another D: another program, compiled and checked
    assert calls[0] > before
    coarse = fp.ObservedTable.from_probabilities(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [1, 1, 1, 1],
                                                               "prob": [.2, .3, .25, .25]}))
    with pytest.raises(fp.DataError, match="same cells"):
        resampler.at(coarse)


def test_every_problem_compiles_its_own_programs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is kept between problems: the same problem made again compiles as much as the first."""
    calls = _counting_compiles(monkeypatch)
    table = random_table(8, "selection")
    counts = []
    for _ in range(4):
        before = calls[0]
        problem = BoundProblem("selection", "fpr_parity", table, fixed={"D": 0.05})
        assert not problem.compiled and calls[0] == before  # making a problem compiles nothing
        problem.solve({"D": 0.05}, progress=False)
        counts.append(calls[0] - before)
        assert problem.compiled and problem.resampler is None
    assert counts[0] > 0 and counts == [counts[0]] * 4, counts


def test_a_kept_problem_is_not_reused_for_other_labels() -> None:
    """Same codes, other group labels: the metric's groups and label come from the new table."""
    cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                          "n": [300, 50, 40, 200, 150, 100, 50, 200]})
    first = fp.ObservedTable.from_counts(cells)
    labelled = dataclasses.replace(first, categories={"A": ["north", "south"]})
    for table in (first, first, labelled):
        res = fp.bound("proxy_label", "fpr_parity", table, D=0.05)
    assert res.metric == "fpr_parity (A: north vs south)"
    again = fp.bound("proxy_label", "fpr_parity", first, D=0.05)
    assert again.metric == "fpr_parity (A: 0 vs 1)"
    assert (again.lower, again.upper) == (res.lower, res.upper)  # the same numbers, only the labels differ


def _two_tables() -> tuple[fp.ObservedTable, fp.ObservedTable]:
    cells = pd.DataFrame({"A": [0] * 4 + [1] * 4, "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                          "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    first = fp.ObservedTable.from_probabilities(cells)
    return first, first.with_probabilities(np.array([.15, .1, .05, .2, .2, .05, .05, .2]))


def test_a_registered_bias_whose_content_changes_is_not_reused() -> None:
    """A plugin's bias is keyed by what it resolves to, not by its name or class: a bias whose config is
    edited under the same name and class (a notebook cell run again, a file it reads) bounds under its
    new constraint, never the kept problem's old one."""
    from fairprobe.biases.base import Bias
    from fairprobe.core.config import BiasConfig
    from fairprobe.core.registry import get_plugin_manager
    from fairprobe.hookspecs import hookimpl

    current = ["P(Z = Y) >= 1 - D"]

    class Mine(Bias):
        name = "mine_edited"
        description = "test"

        def config(self) -> BiasConfig:
            return BiasConfig(dag_str="A->Z, A->P, U->P, U->Z, Z->Y, A->Y, U->Y", unob=["U"],
                              constraints=list(current), outcome_node="Z", name="mine_edited",
                              observed_nodes=["A", "Y", "P"])

    class Plugin:
        @hookimpl
        def fairprobe_register_biases(self) -> list:
            return [Mine]

    first, second = _two_tables()
    pm = get_plugin_manager()
    pm.register(Plugin(), name="mine-edited")
    try:
        BoundProblem("mine_edited", "fpr_parity", first, fixed={"D": 0.05})
        current[0] = "P(Z = Y) >= 1 - 4 * D"
        reused = BoundProblem("mine_edited", "fpr_parity", second, fixed={"D": 0.05}).solve({"D": 0.05})
        fresh = BoundProblem("mine_edited", "fpr_parity", second, fixed={"D": 0.05}).solve({"D": 0.05})
    finally:
        pm.unregister(name="mine-edited")
    assert (reused.lower, reused.upper) == (fresh.lower, fresh.upper)
    wide = fp.bound("proxy_label", "fpr_parity", second, D=0.2)  # the same model at 4 x 0.05
    assert (fresh.lower, fresh.upper) == pytest.approx((wide.lower, wide.upper), abs=1e-9)


def test_a_config_changed_in_place_is_not_reused() -> None:
    """The caller edits a config it bounded with: a later problem with the original content compiles
    (it would otherwise start from the edited one's programs)."""
    first, second = _two_tables()
    content = resolve_bias("proxy_label").to_dict()
    edited = type(resolve_bias("proxy_label")).from_dict(content)
    BoundProblem(edited, "fpr_parity", first, fixed={"D": 0.05})
    edited.constraints = ["P(Z = Y) >= 1 - 4 * D"]
    edited.__post_init__()
    original = type(edited).from_dict(content)
    reused = BoundProblem(original, "fpr_parity", second, fixed={"D": 0.05}).solve({"D": 0.05})
    fresh = BoundProblem(original, "fpr_parity", second, fixed={"D": 0.05}).solve({"D": 0.05})
    assert (reused.lower, reused.upper) == (fresh.lower, fresh.upper)


def test_a_broken_analysis_plugin_does_not_stop_a_bound() -> None:
    """Keys read the registered biases and metrics only: an analysis plugin that fails its interface
    check (reported where analyses are used) does not break fp.bound."""
    from fairprobe.core.registry import get_plugin_manager
    from fairprobe.hookspecs import hookimpl

    class NotAnAnalysis:
        name = "broken"

    class Plugin:
        @hookimpl
        def fairprobe_register_analyses(self) -> list:
            return [NotAnAnalysis]

    first, _ = _two_tables()
    pm = get_plugin_manager()
    pm.register(Plugin(), name="broken-analysis-for-bound")
    try:
        res = fp.bound("proxy_label", "fpr_parity", first, D=0.05)
    finally:
        pm.unregister(name="broken-analysis-for-bound")
    assert res.status == "optimal"


def test_a_moved_problem_warns_of_tiny_cells_as_a_compiled_one_does() -> None:
    first, _ = _two_tables()
    p = first.column_arrays()["prob"].copy()
    p[1] = 5e-9
    tiny = first.with_probabilities(p / p.sum())
    resampler = Resampler(BoundProblem("proxy_label", "fpr_parity", first, fixed={"D": 0.05}))
    resampler.at(first)  # (the rebinders built and checked)
    with pytest.warns(RuntimeWarning, match="below 1e-8"):
        moved = resampler.at(tiny)
    rebinder = next(iter(resampler.rebinders.values()))
    assert moved.resampler is resampler and rebinder is not None and rebinder.at(tiny) is not None  # moved


def test_a_shape_whose_programs_cannot_move_compiles_once_per_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    """PPV parity under proxy labels divides by a probability the data pin (the programs read the data
    beyond the data rows): once that is found, each later table compiles once, as without a resampler, and
    the probe compilations of the rebinders are not repeated."""
    calls = _counting_compiles(monkeypatch)
    base = random_table(9, "proxy_label")
    fresh_calls = calls[0]
    resampler = Resampler(BoundProblem("proxy_label", "ppv_parity", base, fixed={"D": 0.05}))
    per_problem = calls[0] - fresh_calls
    counts = []
    for seed in range(5):
        before = calls[0]
        resampler.at(resampled(base, seed))
        counts.append(calls[0] - before)
    assert counts == [per_problem] * 5, counts


@pytest.mark.parametrize(("metric", "movable"), [("fpr_parity", True), ("ppv_parity", False)])
def test_the_second_problem_is_checked_against_its_own_compilation(monkeypatch: pytest.MonkeyPatch, metric: str,
                                                                   movable: bool) -> None:
    """The second problem of a shape compiles its own programs and checks them (with the first problem's,
    not compiled again) before any random probe: a program that reads the data beyond its data rows
    (PPV under proxy labels divides by a probability the data pin) costs that problem nothing more than
    compiling; a movable one costs one probe per program, and later problems move without compiling."""
    calls = _counting_compiles(monkeypatch)
    base = random_table(11, "proxy_label")
    before = calls[0]
    resampler = Resampler(BoundProblem("proxy_label", metric, base, fixed={"D": 0.05}))
    per_problem = calls[0] - before
    counts, bounds = [], []
    for seed in range(4):
        table = resampled(base, seed)
        before = calls[0]
        res = resampler.at(table).solve({"D": 0.05}, progress=False)
        counts.append(calls[0] - before)
        fresh = BoundProblem("proxy_label", metric, table, fixed={"D": 0.05}).solve(
            {"D": 0.05}, progress=False)
        bounds.append(((res.lower, res.upper), (fresh.lower, fresh.upper)))
    assert per_problem >= 1
    if movable:
        assert counts == [2 * per_problem, 0, 0, 0], counts
    else:
        assert counts == [per_problem] * 4, counts
    assert all(mine == theirs for mine, theirs in bounds)


def _logged_compiler(seed: int, query: str) -> tuple:
    """A proxy-label table, its compile function for ``query``, the same logging each table it compiles,
    and that log."""
    config = resolve_bias("proxy_label")
    table = as_table(random_table(seed, "proxy_label"), config)
    fn = functools.partial(compile_program, config, query=query, params={"D": 0.05})
    log: list[fp.ObservedTable] = []

    def logged(t: fp.ObservedTable):
        log.append(t)
        return fn(table=t)

    return table, fn, logged, log


def test_a_known_table_stands_in_for_a_probe_only_over_the_first_support() -> None:
    """A known table counts as a probe only with the first table's support and other probabilities: the
    rebinder then compiles one random probe; otherwise two, as without it."""
    table, fn, counted, compiled = _logged_compiler(5, "P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A = 1)")
    base = fn(table=table)
    other = resampled(table, 1)
    p = table.column_arrays()["prob"].copy()
    p[0], p[1] = p[0] + p[1], 0.0  # a zero cell: another support
    sparse = table.with_probabilities(p)
    cases = [([(other, fn(table=other))], 1), ([(sparse, fn(table=sparse))], 2), ([(table, base)], 2), ([], 2)]
    for known, probes in cases:
        compiled.clear()
        rebinder = DataRebinder.build(counted, table, base=base, known=known)
        assert set(rebinder.positions) == {row.name for row in base.data_rows}  # every data row is moved
        assert len(compiled) == probes
        assert all(t is not table and t is not other for t in compiled)  # random probe tables only
        moved = rebinder.at(other)
        assert [(c.name, c.poly, c.rhs) for c in moved.program.constraints] == \
            [(c.name, c.poly, c.rhs) for c in fn(table=other).program.constraints]


def test_a_known_table_that_reads_otherwise_refuses_without_a_probe() -> None:
    """A program whose objective reads the data (a pinned denominator) is refused on the known table's
    own compilation, before any probe is compiled."""
    table, fn, counted, probes = _logged_compiler(3, "P(Z = 1 | P = 1 & A = 0) - P(Z = 1 | P = 1 & A = 1)")
    other = resampled(table, 2)
    assert DataRebinder.build(counted, table, base=fn(table=table), known=[(other, fn(table=other))]) is None
    assert probes == []


def test_a_table_on_which_the_metric_is_undefined_does_not_stop_later_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second table of a shape may be one the metric is undefined on (no negatives left in a group):
    its problem reports that, and the next table builds the rebinders instead, after which tables move."""
    calls = _counting_compiles(monkeypatch)
    bias, metric = "proxy_label_missed_positives", "fpr_parity"
    table = random_table(13, bias)
    p = table.column_arrays()["prob"]
    resampler = Resampler(BoundProblem(bias, metric, table, fixed={"D": 0.05}))
    bad = p.copy()
    bad[(table.cells["A"].to_numpy() == 1) & (table.cells["Y"].to_numpy() == 0)] = 0.0
    with pytest.raises(UndefinedMetricError):
        resampler.at(resampler.table.with_probabilities(bad / bad.sum())).solve({"D": 0.05}, progress=False)
    counts = []
    for seed in range(3):
        before = calls[0]
        other = resampled(resampler.table, seed)
        res = resampler.at(other).solve({"D": 0.05}, progress=False)
        counts.append(calls[0] - before)
        fresh = BoundProblem(bias, metric, other, fixed={"D": 0.05}).solve({"D": 0.05}, progress=False)
        assert (res.lower, res.upper) == (fresh.lower, fresh.upper)
    assert counts[0] > 0 and counts[1:] == [0, 0], counts

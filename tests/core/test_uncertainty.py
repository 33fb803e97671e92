"""Sampling intervals of causal bounds (fairprobe.core.uncertainty)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.core.rebind import Resampler
from fairprobe.core.uncertainty import (
    IntervalOptions,
    critical_value,
    projection_region,
    resampled_probabilities,
    sampling_interval,
)
from fairprobe.exceptions import ConfigError, DataError


def counts_table(scale: int = 1) -> fp.ObservedTable:
    counts = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                           "n": np.array([400, 100, 100, 400, 300, 200, 100, 400]) * scale})
    return fp.ObservedTable.from_counts(counts)


def test_probability_table_is_refused_with_the_fix():
    table = fp.ObservedTable.from_probabilities(counts_table().cells)
    with pytest.raises(DataError, match=r"n=.*from_counts.*from_frame"):
        fp.bound("proxy_label", "fpr", table, D=0.02, ci=0.95, progress=False)


def test_interval_contains_the_population_bounds_and_shrinks_with_n():
    widths = []
    for scale in (1, 100):
        res = fp.bound("proxy_label", "fpr", counts_table(scale), D=0.02, ci=0.95, resamples=100, progress=False)
        ci = res.interval
        assert ci.lower <= res.lower <= res.upper <= ci.upper
        assert ci.set_lower <= ci.lower and ci.upper <= ci.set_upper
        widths.append((res.lower - ci.lower) + (ci.upper - res.upper))
    # standard errors shrink like 1/sqrt(n): 100 times the units, about a tenth of the excess width
    assert 0.05 < widths[1] / widths[0] < 0.2


def test_fixed_seed_same_interval_on_one_and_two_workers():
    problem = BoundProblem("proxy_label", "fpr", counts_table(), fixed={"D": 0.02})
    population = problem.solve({"D": 0.02})
    opts = IntervalOptions(resamples=40, seed=7)
    one = sampling_interval(problem, {"D": 0.02}, population, opts, n_jobs=1, progress=False)
    two = sampling_interval(problem, {"D": 0.02}, population, opts, n_jobs=2, progress=False)
    assert (one.lower, one.upper, one.se_lower, one.se_upper) == (two.lower, two.upper, two.se_lower, two.se_upper)


@pytest.mark.parametrize("bias", ["proxy_label", "selection"])
def test_a_parity_interval_is_the_same_on_one_and_two_workers(bias: str) -> None:
    """Moved by a resampler: every resample's bounds depend on its own table only, so the interval is the
    same bit for bit whichever worker solves which resample, and the resamples' programs did move."""
    table = counts_table() if bias != "selection" else fp.ObservedTable(counts_table().cells, given={"S": 1},
                                                                        n=counts_table().n)
    problem = BoundProblem(bias, "fpr_parity", table, fixed={"D": 0.05})
    population = problem.solve({"D": 0.05})
    opts = IntervalOptions(resamples=30, seed=5)
    resampler = Resampler(problem)
    one = sampling_interval(problem, {"D": 0.05}, population, opts, n_jobs=1, progress=False, resampler=resampler)
    assert resampler.rebinders and all(r is not None for r in resampler.rebinders.values())  # moved, not compiled
    two = sampling_interval(problem, {"D": 0.05}, population, opts, n_jobs=2, progress=False)
    assert (one.lower, one.upper, one.se_lower, one.se_upper) == (two.lower, two.upper, two.se_lower, two.se_upper)
    assert one.lower <= population.lower and population.upper <= one.upper


@pytest.mark.slow  # over 5 s; the default run stays under 15 minutes
def test_bootstrap_standard_error_of_a_point_identified_rate_matches_the_binomial():
    # at D = 0 the FPR of group 0 is p01 / (p00 + p01) = 100/500 with 500 negatives: se = sqrt(.2 * .8 / 500)
    res = fp.bound("proxy_label", "fpr", counts_table(), D=0.0, ci=0.95, resamples=400, progress=False,
                   stratify=None, seed=3)
    se = np.sqrt(0.2 * 0.8 / 500)
    assert abs(res.interval.se_lower - se) / se < 0.12
    assert res.interval.critical_value == pytest.approx(1.959964, abs=1e-5)


def test_projection_of_a_point_region_is_the_bound_and_wider_regions_contain_it():
    table = counts_table()
    p = table.cells["prob"].to_numpy()
    plain = fp.bound("proxy_label", "fpr_parity", table, D=0.05, progress=False)
    point = fp.bound("proxy_label", "fpr_parity", table.with_region(p, p), D=0.05, progress=False)
    assert point.lower == pytest.approx(plain.lower, abs=1e-6) and point.upper == pytest.approx(plain.upper, abs=1e-6)
    res = fp.bound("proxy_label", "fpr_parity", table, D=0.05, ci=0.95, ci_method="projection", progress=False)
    assert res.interval.lower < plain.lower - 0.01 and res.interval.upper > plain.upper + 0.01


def test_projection_region_is_clopper_pearson_with_bonferroni():
    from statsmodels.stats.proportion import proportion_confint

    table = counts_table()
    lo, hi = projection_region(table, 0.9)
    k, n = 400, 2000
    ref = proportion_confint(k, n, alpha=0.1 / 8, method="beta")
    assert lo[0] == pytest.approx(ref[0], abs=1e-12) and hi[0] == pytest.approx(ref[1], abs=1e-12)


def test_stratified_resamples_keep_group_shares():
    draws = resampled_probabilities(counts_table(), IntervalOptions(resamples=30, stratify="A"))
    assert np.allclose(draws[:, :4].sum(axis=1), 0.5) and np.allclose(draws.sum(axis=1), 1.0)


def test_critical_value_moves_from_two_sided_to_one_sided():
    assert critical_value(0.0, 0.01, 0.95, 10_000) == pytest.approx(1.959964, abs=1e-5)
    assert critical_value(1.0, 0.01, 0.95, 10_000) == pytest.approx(1.644854, abs=1e-5)
    # Stoye: a set shorter than sqrt(ln n) standard errors counts as a point
    assert critical_value(0.02, 0.01, 0.95, 10_000) == pytest.approx(1.959964, abs=1e-5)
    mid = critical_value(0.015, 0.01, 0.95, 3)  # threshold sqrt(ln 3) = 1.05 < 1.5: kept
    assert 1.645 < mid < 1.66  # Phi(c + 1.5) - Phi(-c) = 0.95 at c = 1.6527


@pytest.mark.parametrize("bad, match", [({"level": 1.5}, "between 0 and 1"), ({"method": "x"}, "not a method"),
                                        ({"resamples": 5}, ">= 20"),
                                        ({"method": "projection", "stratify": "A"}, "stratify")])
def test_bad_options_name_the_fix(bad, match):
    with pytest.raises(ConfigError, match=match):
        IntervalOptions(**bad)


def test_interval_is_shown_in_summary_json_and_frame():
    res = fp.bound("proxy_label", "fpr", counts_table(), D=0.02, ci=0.9, ci_method="bayes", resamples=50,
                   progress=False)
    # a Dirichlet-posterior interval is named a credible interval
    assert "90 % credible interval [" in res.summary() and "posterior draws" in res.summary()
    assert res.to_dict()["interval"]["method"] == "bayes"
    frame = res.to_frame()
    assert frame.loc[0, "ci_lower"] == res.interval.lower and frame.loc[0, "ci_level"] == 0.9


def test_fixed_seed_same_interval_on_a_dask_local_cluster():
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is an optional extra (fairprobe[dask])")
    from joblib import parallel_config

    problem = BoundProblem("proxy_label", "fpr", counts_table(), fixed={"D": 0.02})
    population = problem.solve({"D": 0.02})
    opts = IntervalOptions(resamples=24, seed=11)
    local = sampling_interval(problem, {"D": 0.02}, population, opts, n_jobs=1, progress=False)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster), parallel_config(backend="dask"):
        remote = sampling_interval(problem, {"D": 0.02}, population, opts, n_jobs=2, progress=False)
    assert (local.lower, local.upper, local.se_lower, local.se_upper) == \
        (remote.lower, remote.upper, remote.se_lower, remote.se_upper)


@pytest.fixture(scope="module")
def compas_races() -> fp.ObservedTable:
    from fairprobe.datasets import load_compas

    compas = load_compas().frame
    compas = compas.assign(pred=(compas.decile_score >= 5).astype(int))
    return fp.ObservedTable.from_frame(compas, A="race", Y="two_year_recid", P="pred")


def test_the_11_person_compas_group_gets_a_wide_interval_and_no_claim(compas_races):
    small = fp.metric("fpr_parity", groups=("Native American", "Caucasian"))
    res = fp.bound("selection", small, compas_races, D=0.05, ci=0.95, ci_method="projection", progress=False)
    assert res.few_units == {"Y = 0 & A = 'Native American'": 6}  # 11 people, 6 of them without recidivism
    ci = res.interval
    assert ci.lower <= res.lower <= res.upper <= ci.upper
    assert ci.upper - ci.lower > 1.1 and (res.lower - ci.lower) + (ci.upper - res.upper) > 0.1  # visibly wide
    conclusion = res.conclusion()
    assert conclusion.verdict == "too_few_units"
    assert "no conclusion is drawn" in conclusion.text and "95 % CI" in conclusion.text
    assert "stays" not in conclusion.text and "flip" not in conclusion.text  # no headline either way
    # a group of 3,175 people keeps its headline, with the interval beside it
    large = fp.bound("selection", fp.metric("fpr_parity", groups=("African-American", "Caucasian")), compas_races,
                     D=0.05, ci=0.95, ci_method="projection", progress=False)
    # (a headline that the bias alone leaves, D = 0.05, while the projection interval reaches 0: it says so)
    assert not large.few_units and large.conclusion().verdict == "survives_bias_only"
    assert large.lower > 0 > large.interval.lower
    assert large.interval.upper - large.interval.lower < 0.5


def test_small_groups_get_no_claim_without_an_interval_either(compas_races):
    small = fp.metric("fpr_parity", groups=("Native American", "Caucasian"))
    res = fp.bound("proxy_label", small, compas_races, D=0.01)
    assert res.conclusion().verdict == "too_few_units" and "--ci 0.95" in res.conclusion().text
    sweep = fp.sensitivity("proxy_label", small, compas_races, D=[0.0, 0.01], progress=False)
    assert sweep.conclusion().verdict == "too_few_units"


def test_breakdown_with_sampling_error_comes_before_the_bias_only_point_and_approaches_it():
    gaps = []
    for scale in (1, 100):
        res = fp.breakdown("proxy_label", "fpr_parity", counts_table(scale), ci=0.95, ci_method="projection",
                           xtol=1e-3, progress=False)
        assert res.claim == "metric < 0" and res.value == pytest.approx(0.0625, abs=1e-3)
        assert 0 < res.ci_value <= res.value
        below, above = res.ci_below.interval, res.ci_above.interval
        assert below.upper < 0 <= above.upper  # the interval holds the claim just below, not at the point
        assert res.ci_above.parameters["D"] - res.ci_below.parameters["D"] <= 1e-3
        gaps.append(res.value - res.ci_value)
        assert "With sampling error" in res.conclusion().text and "with sampling error" in res.summary()
        assert res.to_dict()["ci_value"] == res.ci_value
        frame = res.to_frame().set_index("point")  # the interval's two points, with their intervals, in the table
        assert frame.loc["ci_above", "ci_upper"] == above.upper and frame.loc["ci_below", "D"] < res.ci_value + 1e-12
    assert gaps[1] < 0.25 * gaps[0]  # 100 times the units: the noise costs far less of the bias budget


def test_sweep_carries_an_interval_at_every_point_and_draws_both_bands():
    import matplotlib

    matplotlib.use("Agg")
    res = fp.sensitivity("proxy_label", "fpr_parity", counts_table(), D=[0.0, 0.02, 0.04], ci=0.95,
                         ci_method="projection", progress=False)
    frame = res.to_frame()
    assert (frame.ci_lower <= frame.lower).all() and (frame.upper <= frame.ci_upper).all()
    assert (frame.ci_upper - frame.ci_lower).is_monotonic_increasing  # the band widens with the bias
    for row, point in zip(frame.itertuples(), res.points, strict=True):  # each point is the bound's own interval
        alone = fp.bound("proxy_label", "fpr_parity", counts_table(), D=point.params["D"], ci=0.95,
                         ci_method="projection", progress=False)
        assert row.ci_lower == pytest.approx(alone.interval.lower, abs=1e-6)
        assert row.ci_upper == pytest.approx(alone.interval.upper, abs=1e-6)
    ax = res.plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("95 % CI, projection" in t for t in labels) and any("certified bounds" in t for t in labels)
    assert "with sampling error" in res.summary()


def test_sensitivity_grid_gives_every_point_its_interval() -> None:
    """``sensitivity_grid(..., ci=)``: each row carries the interval of ``bound(..., ci=)`` at its point."""
    counts = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                           "n": [400, 100, 100, 400, 300, 200, 100, 400]})
    table = fp.ObservedTable.from_counts(counts)
    grid = fp.sensitivity_grid(["proxy_label"], ["fpr_parity"], {"toy": table}, D=[0.0, 0.02], ci=0.95,
                               ci_method="projection", progress=False)
    assert {"ci_lower", "ci_upper", "ci_level", "ci_method"} <= set(grid.columns)
    for row in grid.itertuples():
        one = fp.bound("proxy_label", "fpr_parity", table, D=row.D, ci=0.95, ci_method="projection")
        assert row.ci_lower == pytest.approx(one.interval.lower, abs=1e-9)
        assert row.ci_upper == pytest.approx(one.interval.upper, abs=1e-9)
        assert row.ci_lower <= row.lower <= row.upper <= row.ci_upper
    with pytest.raises(fp.DataError, match="from_counts"):  # probabilities without a sample size
        fp.sensitivity_grid(["proxy_label"], ["fpr_parity"], {"toy": counts.assign(prob=counts.n / 2000)
                            .drop(columns="n")}, D=[0.0], ci=0.95, progress=False)


@pytest.mark.parametrize("metric", ["fpr_parity", "ppv_parity", "demographic_parity"])
def test_projection_of_a_selected_table_is_linear_in_the_cells(metric: str):
    """For a selected table each cell's joint mass with S = 1 is the region's variable: the box and the
    simplex are linear rows (they were products p * P(S = 1), a nonconvex program for SCIP)."""
    table = fp.ObservedTable(counts_table().cells, given={"S": 1}, n=counts_table().n)
    p = table.column_arrays()["prob"]
    lo, hi = projection_region(table, 0.95)
    problem = BoundProblem("selection", metric, table.with_region(lo, hi), fixed={"D": 0.05})
    compiled = problem.term_programs[0].at({"D": 0.05})
    obs = {i for i, v in enumerate(compiled.program.variables) if v.name.startswith("obs.")}
    assert obs and all(len(m) == 1 for c in compiled.program.constraints for m in c.poly if obs & set(m))
    # a point region is the table itself; a wider one contains it
    point = fp.bound("selection", metric, table.with_region(p, p), D=0.05, progress=False)
    plain = fp.bound("selection", metric, table, D=0.05, progress=False)
    assert point.lower == pytest.approx(plain.lower, abs=1e-7) and point.upper == pytest.approx(plain.upper, abs=1e-7)
    wide = problem.solve({"D": 0.05}, progress=False)
    assert wide.lower <= plain.lower + 1e-9 and wide.upper >= plain.upper - 1e-9


def test_a_conclusion_that_survives_the_bias_but_not_the_noise_says_so(compas_races):
    pair = fp.metric("fpr_parity", groups=("African-American", "Caucasian"))
    alone = fp.bound("selection", pair, compas_races, D=0.06, progress=False)
    assert alone.lower > 0 and alone.conclusion().verdict == "survives"
    res = fp.bound("selection", pair, compas_races, D=0.06, ci=0.95, ci_method="projection", progress=False)
    assert res.interval.lower < 0 < res.lower  # the bias leaves the sign, the sample's noise does not
    conclusion = res.conclusion()
    assert conclusion.verdict == "survives_bias_only" and "it is not settled" in conclusion.text
    assert res.to_dict()["verdict"] == "survives_bias_only"
    # a sweep gives both limits: the bias alone keeps the sign up to 6 %, bias and noise only up to 2 %
    sweep = fp.sensitivity("selection", pair, compas_races, D=[0.0, 0.02, 0.04, 0.06], ci=0.95,
                           ci_method="projection", progress=False)
    text = sweep.conclusion().text
    assert sweep.conclusion().verdict == "survives_bias_only"
    assert "for every D up to 6 %" in text and "(95 % CI, projection) it holds only up to D = 2 %" in text


def test_interval_options_without_a_level_are_refused_not_ignored():
    with pytest.raises(ConfigError, match=r"ci_method='bayes', resamples=20 only apply.*add ci=0.95"):
        fp.bound("proxy_label", "fpr", counts_table(), D=0.02, ci_method="bayes", resamples=20, progress=False)
    with pytest.raises(ConfigError, match=r"stratify='A' only apply"):
        fp.sensitivity("proxy_label", "fpr", counts_table(), D=[0.0], stratify="A", progress=False)


def test_an_unknown_stratify_node_is_refused_before_any_solve(monkeypatch):
    from fairprobe.core import bound as bound_module

    def no_solve(*args, **kwargs):
        raise AssertionError("solved before the options were checked")

    monkeypatch.setattr(bound_module.BoundProblem, "solve", no_solve)
    with pytest.raises(ConfigError, match=r"stratify='sex' is not a node of the table \['A', 'Y', 'P'\].*mapped"):
        fp.bound("proxy_label", "fpr", counts_table(), D=0.02, ci=0.95, stratify="sex", progress=False)


def test_heavy_tailed_draws_get_a_note_and_normal_ones_none():
    from fairprobe.core.uncertainty import _skew_notes

    rng = np.random.default_rng(0)
    normal = np.column_stack([rng.normal(0.2, 0.02, 200), rng.normal(0.5, 0.02, 200)])
    assert _skew_notes(normal, "bootstrap") == []
    jumpy = normal.copy()
    jumpy[:6, 0] = 0.75  # six resamples in which a small group's bound jumped
    notes = _skew_notes(jumpy, "bootstrap")
    assert len(notes) == 1 and notes[0].startswith("the lower end's bootstrap draws are heavy-tailed (6 of 200")
    assert "ci_method='projection'" in notes[0]


def test_draws_piled_at_one_value_are_not_called_heavy_tailed():
    from fairprobe.core.uncertainty import _skew_notes

    piled = np.column_stack([np.r_[np.full(160, 1.0), np.linspace(0.9, 0.99, 40)], np.full(200, 1.0)])
    assert _skew_notes(piled, "bootstrap") == []  # most draws at the metric's end: no quartile spread to compare

"""Sampling intervals at kinks (issue 45): a fair model, equalised odds, many groups.

The value of an absolute gap, of ``groups="all"`` or of equalised odds is a maximum of absolute
gaps; at a tie the plain bootstrap of that value is inconsistent. The interval is now a band over
the bound's smooth pieces, then the maximum (:mod:`fairprobe.core.uncertainty`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import fairprobe as fp
from fairprobe.core.uncertainty import band_critical_value, bound_pieces


def _counts(groups: list[tuple[int, int, int, int]], given_: dict | None = None) -> fp.ObservedTable:
    """Counts per group as (Y=0 P=0, Y=0 P=1, Y=1 P=0, Y=1 P=1)."""
    rows = [{"A": a, "Y": y, "P": p, "n": cells[2 * y + p]}
            for a, cells in enumerate(groups) for y, p in itertools.product((0, 1), (0, 1))]
    return fp.ObservedTable.from_counts(pd.DataFrame(rows), given=given_)


def _fair_world(k: int, n: int, seed: int) -> fp.ObservedTable:
    """n units from k equal groups with FPR 0.2 and FNR 0.3 each (a fair model), base rate 0.4."""
    probs = np.array([0.6 * 0.8, 0.6 * 0.2, 0.4 * 0.3, 0.4 * 0.7] * k) / k
    cells = np.random.default_rng(seed).multinomial(n, probs)
    return _counts([tuple(cells[4 * a:4 * a + 4]) for a in range(k)])


# -- the critical value -----------------------------------------------------------------------------------
def test_band_of_one_absolute_gap_at_a_point_is_the_two_sided_normal_quantile():
    z = np.random.default_rng(1).standard_normal(200_000)
    assert band_critical_value(np.abs(z), np.abs(z), 0.95) == pytest.approx(norm.ppf(0.975), abs=0.02)
    assert band_critical_value(np.abs(z), np.abs(z), 0.90) == pytest.approx(norm.ppf(0.95), abs=0.02)


def test_band_of_a_long_set_is_one_sided_at_each_end():
    z, w = np.random.default_rng(2).standard_normal((2, 200_000))
    # independent ends far apart (shift 10 standard errors): each end one-sided, 1.645 at 95 %
    assert band_critical_value(z, w, 0.95, shift=10.0) == pytest.approx(norm.ppf(0.95), abs=0.02)


def test_band_of_two_tied_independent_gaps_covers_both_together():
    z, w = np.random.default_rng(3).standard_normal((2, 200_000))
    both = np.maximum(np.abs(z), np.abs(w))
    c = band_critical_value(both, both, 0.95)
    # P(|Z| <= c)^2 = 0.95
    assert c == pytest.approx(norm.ppf(0.5 + np.sqrt(0.95) / 2), abs=0.02)


# -- the interval ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("draws", [20, 50, 100, 1000])
def test_band_from_few_draws_keeps_its_level(draws):
    """With B draws the critical value is the ceil(level (B + 1))-th order statistic (Davison & Hinkley 1997,
    4.2.1): a new draw from the same law falls below it with probability >= level. The plain empirical
    quantile (the ceil(level B)-th) gives 48/51 = 0.941 at B = 50 and 95/101 = 0.941 at B = 100."""
    rng = np.random.default_rng(1)
    trials = 4000
    sample = np.abs(rng.standard_normal((trials, draws)))
    fresh = np.abs(rng.standard_normal(trials))
    held = np.mean([fresh[t] <= band_critical_value(sample[t], sample[t], 0.95) for t in range(trials)])
    expected = min(draws, math.ceil(0.95 * (draws + 1))) / (draws + 1)  # exact for exchangeable draws
    assert held >= 0.95 - 2.6 * math.sqrt(0.05 * 0.95 / trials)
    assert held == pytest.approx(expected, abs=2.6 * math.sqrt(expected * (1 - expected) / trials))


def test_absolute_gap_at_d0_is_the_gap_plus_minus_the_two_sided_normal_band():
    table = _counts([(240, 60, 60, 140), (230, 70, 55, 145)])
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), table, D=0.0, ci=0.95, resamples=300,
                   seed=4, progress=False)
    gap = abs(60 / 300 - 70 / 300)
    assert res.lower == pytest.approx(gap, abs=1e-7) and res.upper == pytest.approx(gap, abs=1e-7)
    se = np.sqrt(2 * 0.2167 * 0.7833 / 300)  # binomial standard error of the difference of the two FPRs
    ci = res.interval
    assert 1.75 <= ci.critical_value <= 2.2  # 1.96 up to the Monte-Carlo error of 300 resamples
    assert gap + 0.85 * ci.critical_value * se <= ci.upper <= gap + 1.15 * ci.critical_value * se
    assert ci.lower == 0.0  # the gap is 1 standard error: a fair model is not ruled out
    assert any("band over its smooth pieces" in note for note in ci.notes)


def test_three_groups_a_range_of_two_standard_errors_is_not_called_unfair():
    # FPRs 0.20, 0.20, 0.28 over 150 negatives each: the observed range is 1.7 standard errors of one
    # difference, which three equal rates give more than 5 % of the time; the plain bootstrap called it unfair
    table = _counts([(120, 30, 40, 60), (120, 30, 40, 60), (108, 42, 40, 60)])
    metric = fp.metric("fpr_parity", groups="all")
    for method in ("bootstrap", "bayes"):
        res = fp.bound("proxy_label", metric, table, D=0.0, ci=0.95, resamples=150, seed=5, ci_method=method,
                       progress=False)
        assert res.lower == pytest.approx(0.08, abs=1e-7)
        assert res.interval.lower == 0.0, method
    projection = fp.bound("proxy_label", metric, table, D=0.0, ci=0.95, ci_method="projection", progress=False)
    assert res.interval.upper <= projection.interval.upper  # no wider than projection at the kink


def test_a_clear_gap_keeps_its_finding():
    # FPR 0.1 against 0.3 on 300 negatives each: 6.5 standard errors, unfair whatever the construction
    table = _counts([(270, 30, 60, 140), (210, 90, 60, 140)])
    res = fp.bound("proxy_label", "equalized_odds", table, D=0.0, ci=0.95, resamples=60, progress=False)
    assert res.interval.lower > 0.1
    assert res.conclusion().verdict != "could_be_zero"


def test_pieces_rebuild_each_end_of_the_bound():
    table = _counts([(240, 60, 60, 140), (230, 70, 55, 145), (200, 100, 50, 150)])
    for metric in (fp.metric("fpr_parity", groups="all"), fp.metric("equalized_odds", groups="all"),
                   fp.metric("fpr_parity", groups="each_vs_rest"), fp.metric("equalized_odds", groups=(0, 2))):
        res = fp.bound("proxy_label", metric, table, D=0.02, progress=False)
        pieces = bound_pieces(res)
        assert pieces is not None, metric
        assert res.upper == pytest.approx(max(pieces.floor, pieces.upper.max()), abs=1e-9)
        assert res.lower == pytest.approx(max(pieces.floor, pieces.lower.max(), pieces.joint), abs=1e-9)
    signed = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(0, 1)), table, D=0.02, progress=False)
    assert bound_pieces(signed) is None  # a signed gap is smooth: the Imbens-Manski interval of its two ends


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.lists(st.integers(8, 120), min_size=8, max_size=8),
       metric=st.sampled_from(["fpr_parity", "all", "equalized_odds"]),
       method=st.sampled_from(["bootstrap", "bayes", "projection"]),
       d=st.sampled_from([0.0, 0.01, 0.05]), seed=st.integers(0, 1000))
def test_interval_contains_the_bias_only_interval(cells, metric, method, d, seed):
    table = _counts([tuple(cells[:4]), tuple(cells[4:])])
    m = fp.metric("fpr_parity", groups="all") if metric == "all" else metric
    res = fp.bound("proxy_label", m, table, D=d, ci=0.9, ci_method=method, resamples=20, seed=seed,
                   progress=False)
    ci = res.interval
    assert ci.lower <= res.lower + 1e-12 and res.upper <= ci.upper + 1e-12
    assert ci.set_lower <= res.lower + 1e-12 and res.upper <= ci.set_upper + 1e-12


def test_a_sweep_gives_every_point_the_band_of_its_own_bound():
    """The sweep's interval at each D is fp.bound's at that D (same seed): the band, not the plain bootstrap."""
    table = _fair_world(2, 1000, 7)
    levels = [0.0, 0.01, 0.02]
    sweep = fp.sensitivity("proxy_label", "equalized_odds", table, D=levels, ci=0.95, resamples=40, seed=3,
                           progress=False).to_frame()
    for d, row in zip(levels, sweep.itertuples(), strict=True):
        res = fp.bound("proxy_label", "equalized_odds", table, D=d, ci=0.95, resamples=40, seed=3, progress=False)
        assert "simultaneous band" in res.interval.notes[0]
        assert (row.ci_lower, row.ci_upper) == pytest.approx((res.interval.lower, res.interval.upper), abs=1e-9)
    # a fair model's observed gap (0.018 here) is not a finding: every point's interval reaches 0
    assert sweep.lower.iloc[0] > 0.0 and (sweep.ci_lower == 0.0).all()


def test_breakdown_with_sampling_error_of_a_fair_model_is_zero():
    """At a fair model the noise alone leaves "the gap exceeds 0.05" open: ci_value 0, below the bias-only value."""
    table = _fair_world(2, 1000, 7)
    res = fp.breakdown("proxy_label", "equalized_odds", table, threshold=0.05, ci=0.95, resamples=40, seed=3,
                       progress=False)
    assert 0.0 < res.value < 0.02
    assert res.ci_value == 0.0


# -- coverage of a fair model (slow: 200 samples, each with its 50 resamples) ----------------------------
@pytest.mark.slow
@pytest.mark.timeout(3600)  # 200 x 51 certified bounds: minutes on a shared machine
@pytest.mark.parametrize(("k", "metric"), [(2, ("fpr_parity", "all")), (2, ("equalized_odds", None)),
                                           (3, ("fpr_parity", "all")), (3, ("fpr_parity", "each_vs_rest")),
                                           (3, ("equalized_odds", "all"))])
@pytest.mark.parametrize("method", ["bootstrap", "bayes"])
def test_fair_model_interval_contains_zero_in_93_percent_of_samples(k, metric, method):
    name, groups = metric
    m = fp.metric(name, groups=groups) if groups else fp.metric(name)
    # n = 500: the size of the coverage study's smaller kink cells, so that these library double loops
    # (200 samples x 50 resamples) also check its warp-speed reading there
    covered = 0
    for seed in range(200):
        res = fp.bound("proxy_label", m, _fair_world(k, 500, seed), D=0.0, ci=0.95, ci_method=method,
                       resamples=50, seed=seed, progress=False)
        covered += res.interval.lower <= 0.0 <= res.interval.upper
    print(f"fair model, {k} groups, {metric}, {method}: {covered} of 200 intervals contain 0")
    assert covered >= 186, f"{covered} of 200"

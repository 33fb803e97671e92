"""Risk-score estimators at ties, nulls and numerical edges (issue 27): each test failed before the fix."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fairprobe.datasets import load_compas
from fairprobe.exceptions import DataError
from fairprobe.plugins.riskscore import (
    RiskScoreAudit,
    ace,
    auprg,
    auroc,
    drmsce,
    ece,
    eur_permutation_test,
    expected_underrepresentation,
    reliability_curve,
    resampling,
    rmsce,
)
from fairprobe.plugins.riskscore import audit as audit_module
from fairprobe.plugins.riskscore.bootstrap import bootstrap_counts, resample_counts


def test_audit_eur_is_the_standalone_estimator_under_tied_scores() -> None:
    # COMPAS decile scores: ten tied values. The audit used to count each distinct threshold once
    # (African-American 0.9843, Caucasian 0.8103, Other 0.6479 instead of 0.9693, 0.8652, 0.7182)
    frame = load_compas().frame
    data = frame.assign(r=frame.decile_score / 10)
    audit = RiskScoreAudit(n_bootstrap=5, n_permutations=20, random_state=0, progress=False, max_intersections=1,
                           metrics=("eur",)).fit(data, y_true="two_year_recid", y_score="r",
                                                 sensitive_features=["race"])
    expected = {"African-American": 0.9693, "Caucasian": 0.8652, "Other": 0.7182}
    for race, value in expected.items():
        standalone = expected_underrepresentation(data.r, data.two_year_recid, data.race == race)
        assert audit.by_group_.loc[f"race={race}", "eur"] == pytest.approx(standalone, abs=1e-12)
        assert standalone == pytest.approx(value, abs=5e-5)


def test_eur_bootstrap_resample_equals_the_estimator_on_the_resampled_rows() -> None:
    rng = np.random.default_rng(3)
    n = 400
    r = rng.integers(1, 11, n) / 10
    y = (rng.random(n) < r).astype(float)
    groups = {"all": np.arange(n), "g": np.flatnonzero(rng.random(n) < 0.3)}
    member, level, n_levels = resampling.eur_setup(r, groups)
    w = resample_counts(n, 1, rng)[0]
    got = resampling.eur_values(member, y, level, n_levels, w.astype(float))[1]
    rows = np.repeat(np.arange(n), w)
    mask = np.isin(np.arange(n), groups["g"])[rows]
    assert got == pytest.approx(expected_underrepresentation(r[rows], y[rows], mask), abs=1e-12)


def _null_audit(seed: int, n: int = 2000) -> RiskScoreAudit:
    rng = np.random.default_rng(seed)
    r = rng.random(n)
    y = (rng.random(n) < r).astype(int)  # calibrated by construction
    frame = pd.DataFrame({"g": rng.choice(list("abcdefg"), n), "y": y, "r": r})  # groups at random
    return RiskScoreAudit(n_bootstrap=1, n_permutations=199, random_state=seed, progress=False,
                          max_intersections=1, min_group_size=50, metrics=("ece", "eur")).fit(
        frame, y_true="y", y_score="r", sensitive_features=["g"])


def test_eur_does_not_flag_random_groups_under_a_calibrated_null() -> None:
    # group - all used to flag nearly every group: EUR(all) = 1 and a group's EUR is capped at 1
    audits = [_null_audit(seed) for seed in range(20)]
    for metric in ("ece", "eur"):  # the plug-in ECE grows as groups shrink: group - all flagged them too
        any_flag = [bool(a.differences_.query(f"metric == '{metric}'").flagged.any()) for a in audits]
        # the flag controls the chance of any false flag among the 7 groups at 5 %: P(>= 4 of 20) < 2 %
        assert sum(any_flag) <= 3, metric
        tests = pd.concat([a.permutation_tests_ for a in audits])
        p = tests[tests.metric == metric].p_value.to_numpy()
        assert 0.3 < np.median(p) < 0.7, metric  # unadjusted p-values about uniform


def test_eur_permutation_test_is_valid_under_the_null_and_finds_a_real_gap() -> None:
    rng = np.random.default_rng(0)
    p_values = []
    for rep in range(200):
        r = rng.random(600)
        y = (rng.random(600) < r).astype(int)
        p_values.append(eur_permutation_test(r, y, rng.random(600) < 0.2, n_permutations=99,
                                             random_state=rep).p_value)
    rate = np.mean(np.array(p_values) <= 0.05)
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 200)
    # a group whose positives the score ranks low is under-represented beyond chance
    r = rng.random(3000)
    y = (rng.random(3000) < r).astype(int)
    g = rng.random(3000) < 0.2
    r_biased = np.where(g, r * 0.7, r)
    test = eur_permutation_test(r_biased, y, g, n_permutations=199, random_state=0)
    assert test.p_value <= 0.01 and test.eur < test.chance - 0.05


def test_eur_row_of_differences_compares_with_random_groups() -> None:
    audit = _null_audit(1)
    rows = audit.differences_.query("metric == 'eur'").set_index("group")
    tests = audit.eur_tests_.set_index("group")
    assert np.allclose(rows.difference, tests.eur - tests.chance)
    assert (rows.p_value >= tests.p_value - 1e-12).all()  # adjusted for the groups tested
    assert rows.lower.isna().all() and "random groups of the same size" in rows.note.iloc[0]
    assert "vs random groups of the same size" in audit.summary()


def _compas_like_93_levels() -> tuple[np.ndarray, np.ndarray]:
    """20,000 rows on 93 score levels, each level's outcome rate equal to its score."""
    rng = np.random.default_rng(0)
    r = np.sort(rng.integers(1, 94, 20_000)) / 94.0
    y = np.zeros(r.size, dtype=int)
    for level in np.unique(r):
        idx = np.flatnonzero(r == level)
        y[rng.choice(idx, round(level * idx.size), replace=False)] = 1
    return y, r


def test_drmsce_survives_the_93_bin_grid() -> None:
    # np.arange(1/93, 1 + 1e-7, 1/93) ends at 1.0000000000000002, which np.quantile refused
    y, r = _compas_like_93_levels()
    value, bins = drmsce(y, r, return_bins=True)
    assert bins == 93 and value == pytest.approx(0.0, abs=1e-3)
    frame = pd.DataFrame({"y": y, "r": r, "s": np.where(np.arange(r.size) % 2, "a", "b")})
    audit = RiskScoreAudit(n_bootstrap=2, n_permutations=5, random_state=0, progress=False,
                           metrics=("drmsce",)).fit(frame, y_true="y", y_score="r", sensitive_features=["s"])
    assert np.isfinite(audit.by_group_.loc["all", "drmsce"])


def test_an_undefined_value_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(y: np.ndarray, r: np.ndarray) -> float:
        raise ValueError("the bins ran out of rows")

    monkeypatch.setitem(resampling.GROUP_METRICS, "calibration_slope", broken)
    rng = np.random.default_rng(0)
    r = rng.random(500)
    frame = pd.DataFrame({"s": rng.choice(["a", "b"], 500), "y": (rng.random(500) < r).astype(int), "r": r})
    audit = RiskScoreAudit(n_bootstrap=2, random_state=0, progress=False, metrics=("calibration_slope",),
                           min_group_size=10).fit(frame, y_true="y", y_score="r", sensitive_features=["s"])
    note = audit.results_.set_index(["group", "metric"]).loc[("all", "calibration_slope"), "note"]
    assert "ValueError: the bins ran out of rows" in note


def test_ece_is_in_the_audit_with_ten_bins_and_its_bootstrap_is_the_estimator() -> None:
    rng = np.random.default_rng(1)
    r = rng.random(3000)
    y = (rng.random(3000) < r**1.3).astype(int)
    frame = pd.DataFrame({"s": rng.choice(["a", "b"], 3000), "y": y, "r": r})
    audit = RiskScoreAudit(n_bootstrap=3, n_permutations=10, random_state=0, progress=False).fit(
        frame, y_true="y", y_score="r", sensitive_features=["s"])
    assert "ece" in audit.by_group_.columns
    mask = frame.s.to_numpy() == "a"
    assert audit.by_group_.loc["s=a", "ece"] == pytest.approx(ece(y[mask], r[mask]), abs=1e-12)
    assert ece(y, r) == pytest.approx(ece(y, r, n_bins=10))
    assert "10 equal-width bins" in audit.report_section(__import__("fairprobe.reporting.report", fromlist=["Report"])
                                                         .Report("x")).text
    order = np.argsort(r, kind="stable")
    w = resample_counts(r.size, 4, rng)
    boot = bootstrap_counts(y[order].astype(float), r[order], w[:, order], ["ece"])["ece"]
    for i in range(4):
        rows = np.repeat(order, w[i, order])
        assert boot[i] == pytest.approx(ece(y[rows], r[rows]), abs=1e-12)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [2, 5, 10, 15])
def test_reliability_curve_matches_scikit_learn(strategy: str, n_bins: int) -> None:
    sklearn_calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(n_bins)
    for r in (rng.random(700), rng.integers(1, 11, 700) / 10):  # continuous and decile scores
        y = (rng.random(r.size) < r).astype(int)
        ours = reliability_curve(y, r, n_bins=n_bins, strategy=strategy)
        theirs = sklearn_calibration.calibration_curve(y, r, n_bins=n_bins, strategy=strategy)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-15)


def test_decile_scores_0_9_and_1_0_are_different_bins() -> None:
    y = np.array([0, 1, 1, 1])
    r = np.array([0.9, 0.9, 1.0, 1.0])
    prob_true, prob_pred, counts = reliability_curve(y, r, n_bins=10, return_counts=True)
    assert prob_true.tolist() == [0.5, 1.0] and prob_pred.tolist() == [0.9, 1.0] and counts.tolist() == [2, 2]
    assert ece(y, r) == pytest.approx(0.5 * 0.4 + 0.5 * 0.0)  # |0.9 - 0.5| in the 0.9 bin, 0 in the 1.0 bin


def test_numeric_attributes_get_readable_quartile_labels() -> None:
    rng = np.random.default_rng(0)
    n = 2000
    r = rng.random(n)
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "income": rng.lognormal(10, 1, n),
                          "y": (rng.random(n) < r).astype(int), "r": r})
    audit = RiskScoreAudit(n_bootstrap=2, n_permutations=5, random_state=0, progress=False,
                           max_intersections=1).fit(frame, y_true="y", y_score="r",
                                                    sensitive_features=["age", "income"])
    ages = [g for g in audit.groups_ if g.startswith("age=")]
    assert ages[0].startswith("age=18-") and all("(" not in g and "]" not in g for g in audit.groups_)
    lo, hi = (int(v) for v in ages[0].split("=")[1].split("-"))
    assert (frame.age[(frame.age >= lo) & (frame.age <= hi)].size == audit.groups_[ages[0]].size)


_SCORES = st.sampled_from(["continuous", "levels", "constant", "edges"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 400), n_bins=st.integers(1, 120), kind=_SCORES, seed=st.integers(0, 10_000))
@example(n=6, n_bins=1, kind="levels", seed=1710)  # found in CI: every permuted group missed the positives
def test_no_risk_score_metric_raises_on_valid_data(n: int, n_bins: int, kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    r = {"continuous": rng.random(n), "levels": rng.integers(0, 8, n) / 7, "constant": np.full(n, 0.3),
         "edges": rng.choice([0.0, 0.1, 0.9, 1.0], n)}[kind]
    y = (rng.random(n) < 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN where undefined comes with a warning
        values = [drmsce(y, r), ece(y, r, n_bins=n_bins), ece(y, r, n_bins=n_bins, binning="mass"),
                  ece(y, r, binning="sweep"), ece(y, r, binning="mass_sweep"), ece(y, r, n_bins=n_bins, p=2),
                  ace(y, r, n_bins=n_bins), rmsce(y, r, n_bins=n_bins),
                  ece(y, r, n_bins=max(n_bins, 2), convention="paper"), auroc(y, r)]
        gain = auprg(y, r)  # can be below -1 for a ranking worse than random (negative precision gain)
        assert np.isnan(gain) or gain <= 1.0
        for strategy in ("uniform", "quantile"):
            prob_true, prob_pred = reliability_curve(y, r, n_bins=n_bins, strategy=strategy)
            assert ((0 <= prob_true) & (prob_true <= 1)).all() and prob_pred.size == prob_true.size
        g = rng.random(n) < 0.5
        if (g & (y == 1)).any() and not g.all():
            values.append(expected_underrepresentation(r, y, g))
            try:
                values.append(eur_permutation_test(r, y, g, n_permutations=5, random_state=seed).p_value)
            except DataError as err:  # five random groups of a tiny sample may all miss the positives
                assert "No random group of this size has a positive outcome" in str(err)
    finite = [v for v in values if np.isfinite(v)]
    assert all(0.0 <= v <= 1.0 for v in finite)  # errors, AUROC, EUR and p-values all live in [0, 1]


def test_an_empty_sample_is_still_an_error_not_a_number() -> None:
    with pytest.raises(DataError, match="empty"):
        reliability_curve([], [])


def test_westfall_young_controls_the_familywise_error_on_exchangeable_vectors() -> None:
    # the data's vector is one of B + 1 exchangeable ones: the chance that any of 7 skewed
    # statistics is flagged at 5 % must not exceed 5 % (plus Monte-Carlo error)
    rng = np.random.default_rng(0)
    trials, flags = 600, 0
    for _ in range(trials):
        values = np.exp(rng.standard_normal((200, 7)))
        _, adjusted = audit_module.westfall_young(values[1:], values[0])
        flags += bool((adjusted <= 0.05).any())
    assert flags / trials <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / trials)
    # a real effect in one statistic is still found (with enough permutations: at 7 groups and
    # B + 1 = 200 the smallest possible adjusted p-value is about 7 x 2 / 200)
    values = np.exp(rng.standard_normal((1000, 7)))
    values[0, 3] = 40.0
    p, adjusted = audit_module.westfall_young(values[1:], values[0])
    assert adjusted[3] <= 0.05 and p[3] == pytest.approx(2 / 1000)

"""Risk-score metrics against analytic truths, PRG edge cases, EUR population values, the audit."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.plugins.riskscore import (
    RiskScoreAudit,
    ace,
    auprg,
    auroc,
    calibration_intercept_slope,
    drmsce,
    ece,
    expected_underrepresentation,
    rmsce,
)

matplotlib.use("Agg")  # tests only: the library never switches the backend


def sample(n: int, seed: int, power: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    r = rng.random(n)
    return (rng.random(n) < r**power).astype(int), r


def test_population_values_for_a_miscalibrated_score() -> None:
    y, r = sample(100_000, 0, 2.0)  # Y ~ Bernoulli(R^2)
    assert drmsce(y, r) == pytest.approx(np.sqrt(1 / 30), abs=0.005)
    assert auroc(y, r) == pytest.approx(0.875, abs=0.005)
    assert auprg(y, r) == pytest.approx(0.8380, abs=0.01)


def test_drmsce_is_nearly_unbiased_for_a_calibrated_score() -> None:
    small = [drmsce(*sample(100, s, 1.0)) for s in range(100)]
    large = [drmsce(*sample(10_000, s, 1.0)) for s in range(100)]
    assert np.mean(small) <= 0.02 and np.mean(large) <= 0.005
    plug_in = [rmsce(*sample(100, s, 1.0)) for s in range(100)]
    assert np.mean(plug_in) > 3 * np.mean(small)  # the bias DRMSCE removes


def test_drmsce_bins_and_small_samples() -> None:
    value, bins = drmsce(*sample(10_000, 1, 1.0), return_bins=True)
    assert 10 <= bins <= 100 and value >= 0
    with pytest.warns(RuntimeWarning, match="at least 10 samples"):
        assert np.isnan(drmsce([0, 1, 1], [0.2, 0.5, 0.9]))
    y = np.r_[np.zeros(50), np.ones(50)]
    r = np.r_[np.full(50, 0.3), np.full(50, 0.6)]  # two distinct scores: ties repaired, at most 2 bins
    value, bins = drmsce(y, r, return_bins=True)
    assert bins <= 2 and value == pytest.approx(np.sqrt(0.5 * 0.3**2 + 0.5 * 0.4**2), abs=1e-9)


def test_plug_in_estimators() -> None:
    assert ece([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], n_bins=2) == pytest.approx(0.15)
    y, r = sample(5000, 2, 1.0)
    assert ace(y, r) == pytest.approx(ece(y, r, n_bins=15, binning="mass"))  # ace keeps 15 bins, ece 10
    assert ece(y, r, binning="sweep") >= 0 and ece(y, r, binning="mass_sweep") >= 0
    assert ece(y, r, convention="paper") >= 0 and ace(y, r, convention="paper") >= 0


@pytest.mark.parametrize(("y", "r", "expected"), [
    ([0, 0, 1, 1], [.1, .2, .8, .9], 1.0),
    ([1, 1, 0, 0], [.1, .2, .8, .9], -0.5),
    ([0, 1, 0, 1], [.5, .5, .5, .5], 0.0),
    ([1, 1, 0, 0, 1, 0], [.8, .8, .6, .4, .4, .2], 0.7083333333),
])
def test_auprg_edge_cases(y, r, expected) -> None:
    assert auprg(y, r) == pytest.approx(expected, abs=1e-7)


def test_undefined_discrimination_is_nan_with_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match="without positives"):
        assert np.isnan(auprg([0, 0, 0], [.1, .2, .3]))
    with pytest.warns(RuntimeWarning, match="without negatives"):  # was 0.0: undefined, as AUROC
        assert np.isnan(auprg([1, 1, 1], [.1, .5, .9]))
    with pytest.warns(RuntimeWarning, match="both outcomes"):
        assert np.isnan(auroc([1, 1], [.1, .2]))


def test_calibration_in_the_large_and_slope() -> None:
    y, r = sample(50_000, 3, 1.0)
    intercept, slope = calibration_intercept_slope(y, r)
    assert abs(intercept) < 0.05 and slope == pytest.approx(1.0, abs=0.05)


def test_eur_on_the_papers_figure_one_population() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    R = np.r_[rng.beta(3.1956, 1.5978, n), rng.beta(1.6047, 3.2094, n)]
    Y = (rng.random(2 * n) < R).astype(int)
    A = np.r_[np.ones(n, bool), np.zeros(n, bool)]
    assert expected_underrepresentation(R, Y, A, target=2 / 3) == pytest.approx(0.962, abs=0.005)
    assert expected_underrepresentation(R, Y, ~A, target=1 / 3) == pytest.approx(0.595, abs=0.005)
    assert expected_underrepresentation(R, Y, A, target=2 / 3, variant="code") == pytest.approx(0.0, abs=0.005)
    assert expected_underrepresentation(R, Y, ~A, target=1 / 3, variant="code") == pytest.approx(0.733, abs=0.006)


@pytest.mark.parametrize(("y", "r", "message"), [
    ([0, 1, 2], [.1, .2, .3], "binary"),
    ([0, 1, 1], [.1, 1.2, .3], r"\[0, 1\]"),
    ([0, 1, np.nan], [.1, .2, .3], "NaN"),
    ([0, 1], [.1, .2, .3], "differ in length"),
])
def test_bad_scores(y, r, message) -> None:
    with pytest.raises(fp.DataError, match=message):
        drmsce(y, r)


def audit_data(n: int = 3000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.integers(18, 80, n),
                          "race": rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.17, 0.03])})
    r = rng.random(n)
    y = (rng.random(n) < np.where(frame.sex == "m", r**2, r)).astype(int)  # miscalibrated for men
    return y, r, frame


def test_audit_groups_intervals_and_detection() -> None:
    y, r, frame = audit_data()
    audit = RiskScoreAudit(min_group_size=100, n_bootstrap=60, random_state=0, progress=False).fit(
        frame, y_true=y, y_score=r, sensitive_features=["sex", "age", "race"])
    res = audit.results_
    assert {"group", "metric", "n", "point", "median", "lower", "upper", "n_undefined"} <= set(res.columns)
    assert "all" in set(res.group) and any(g.startswith("age=18-") for g in res.group)  # quartile bins, by range
    assert audit.binned_ == {"age": "quartiles"}
    assert (audit.dropped_groups_.n < 100).all() and len(audit.dropped_groups_) > 0  # race=d is small
    assert "race=d" in set(audit.dropped_groups_.group)
    d = audit.by_group_["drmsce"]
    assert d["sex=m"] > 0.1 > d["sex=f"]  # the miscalibrated group stands out
    ok = res.dropna(subset=["median"])
    assert (ok.lower <= ok["median"]).all() and (ok["median"] <= ok.upper).all()
    assert audit.discrimination_metric_ == "auroc"
    assert "worst sex=m" in audit.summary() or "sex=m" in audit.summary()


def test_audit_bad_input_and_small_groups() -> None:
    y, r, frame = audit_data(400)
    with pytest.raises(fp.DataError, match="single value"):
        RiskScoreAudit(progress=False).fit(frame.assign(one="x"), y_true=y, y_score=r, sensitive_features=["one"])
    with pytest.raises(fp.DataError, match="not columns"):
        RiskScoreAudit(progress=False).fit(frame, y_true=y, y_score=r, sensitive_features=["nope"])
    with pytest.raises(fp.DataError, match=r"No group reaches min_group_size=1000.*lower min_group_size"):
        RiskScoreAudit(min_group_size=1000, n_bootstrap=5,
                       progress=False).fit(frame, y_true=y, y_score=r, sensitive_features=["sex"])
    with pytest.raises(fp.ConfigError, match="Unknown metric"):
        RiskScoreAudit(metrics=("brier",), progress=False).fit(frame, y_true=y, y_score=r, sensitive_features=["sex"])
    with pytest.raises(fp.DataError, match=r"y_score='nope' is not a column of data"):
        RiskScoreAudit(progress=False).fit(frame, y_true=y, y_score="nope", sensitive_features=["sex"])


def test_audit_report_and_plots(tmp_path) -> None:
    y, r, frame = audit_data(2000, 1)
    audit = RiskScoreAudit(n_bootstrap=30, random_state=0,
                           progress=False, n_jobs=2).fit(frame, y_true=y, y_score=r, sensitive_features=["sex", "race"])
    page = audit.to_report(tmp_path / "report")
    html = (tmp_path / "report" / "index.html").read_text()
    assert page.name == "index.html" and "data:image/png;base64" in html and "riskscore" in html
    for name in ("reliability", "roc", "prg", "representation", "distributions", "metric_drmsce",
                 "differences_drmsce"):
        assert (tmp_path / "report" / "figures" / f"s1_{name}.png").stat().st_size > 5000
    for table in ("results", "differences_to_all", "all_results_long_form", "dropped_groups"):
        assert (tmp_path / "report" / "tables" / f"s1_{table}.csv").is_file()
    from fairprobe.reporting.report import load_report

    assert load_report(tmp_path / "report").sections[0].parameters["n_bootstrap"] == 30
    from fairprobe.core.registry import _check_interface

    _check_interface("analyses", RiskScoreAudit)  # the registry accepts the class


def test_riskscore_command(tmp_path) -> None:
    import subprocess
    import sys

    y, r, frame = audit_data(1500, 2)
    path = tmp_path / "scores.csv"
    frame.assign(y=y, r=r).to_csv(path, index=False)
    out = subprocess.run([sys.executable, "-m", "fairprobe.cli", "riskscore", "--data", str(path), "--target", "y",
                          "--score", "r", "--groups", "sex,race", "--bootstrap", "20", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert '"metric": "drmsce"' in out.stdout
    bad = subprocess.run([sys.executable, "-m", "fairprobe.cli", "riskscore", "--data", str(path), "--target", "y",
                          "--score", "nope", "--groups", "sex"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "['nope'] are not in" in bad.stderr


def test_vectorised_bootstrap_equals_resampling_rows() -> None:
    from fairprobe.plugins.riskscore.bootstrap import bootstrap_group

    rng = np.random.default_rng(0)
    r = rng.random(3000).round(2)  # many ties
    y = (rng.random(3000) < r**2).astype(float)
    out = bootstrap_group(y, r, ["drmsce", "auroc", "auprg"], 4, np.random.default_rng(5))
    order = np.argsort(r, kind="stable")
    ys, rs = y[order], r[order]
    draws = np.random.default_rng(5).integers(0, r.size, size=(4, r.size))  # the same multinomial draws
    for i, idx in enumerate(draws):
        assert out["auroc"][i] == pytest.approx(auroc(ys[idx], rs[idx]), abs=1e-12)
        assert out["auprg"][i] == pytest.approx(auprg(ys[idx], rs[idx]), abs=1e-12)
        assert out["drmsce"][i] == pytest.approx(drmsce(ys[idx], rs[idx]), abs=1e-12)


def test_weighted_drmsce_equals_drmsce_on_repeated_rows() -> None:
    from fairprobe.plugins.riskscore.calibration import drmsce_weighted

    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(20, 2000))
        r = np.sort(rng.random(n).round(int(rng.integers(1, 4))))  # coarse scores: many ties at edges
        y = (rng.random(n) < r**2).astype(float)
        w = np.bincount(rng.integers(0, n, n), minlength=n)
        value, bins = drmsce_weighted(y, r, w)
        ref, ref_bins = drmsce(np.repeat(y, w), np.repeat(r, w), return_bins=True)
        assert value == pytest.approx(ref, abs=1e-12) and bins == ref_bins


def test_audit_calibration_intercept_and_slope_per_group() -> None:
    y, r, frame = audit_data(4000, 3)
    audit = RiskScoreAudit(metrics=("drmsce", "calibration_intercept",
                                                                 "calibration_slope"),
                           n_bootstrap=20, random_state=0, progress=False).fit(frame, y_true=y, y_score=r,
                                                                              sensitive_features=["sex"])
    table = audit.by_group_
    assert abs(table.loc["sex=f", "calibration_intercept"]) < 0.2  # women: calibrated (Y ~ Bernoulli(R))
    assert table.loc["sex=m", "calibration_intercept"] < -0.5  # men: Y ~ Bernoulli(R^2), over-predicted
    assert table.loc["sex=f", "calibration_slope"] == pytest.approx(1.0, abs=0.25)


def test_empty_input_is_an_error_not_perfect_calibration() -> None:
    for fn in (ece, ace, rmsce, drmsce):
        with pytest.raises(fp.DataError, match=r"undefined for an empty sample.*at least one row"):
            fn([], [])
    with pytest.raises(fp.DataError, match="empty sample"):
        RiskScoreAudit(progress=False).fit(pd.DataFrame({"sex": []}), y_true=[],
                                                                       y_score=[], sensitive_features=["sex"])


def test_text_outcomes_need_positive_label(tmp_path, capsys) -> None:
    from tests.bad_input import run_cli

    y, r, frame = audit_data(600, 3)
    text = pd.Series(np.where(y == 1, "yes", "no"), name="recid")
    kw = {"metrics": ("drmsce", "auroc"), "n_bootstrap": 10, "random_state": 0, "progress": False}
    groups = {"sensitive_features": ["sex"]}
    with pytest.raises(fp.DataError, match=r"column 'recid' holds non-numeric values \['no', 'yes'\].*positive_label"):
        RiskScoreAudit(**kw).fit(frame, y_true=text, y_score=r, **groups)
    coded = RiskScoreAudit(**kw).fit(frame, y_true=y, y_score=r, **groups).results_
    mapped = RiskScoreAudit(**kw, positive_label="yes").fit(frame.assign(recid=text), y_true="recid",
                                                           y_score=r, **groups).results_
    pd.testing.assert_frame_equal(coded, mapped)
    path = tmp_path / "scores.csv"
    frame.assign(recid=text, r=r).to_csv(path, index=False)
    args = ["riskscore", "--data", str(path), "--target", "recid", "--score", "r", "--groups", "sex",
            "--bootstrap", "5"]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and "--positive-label" in err
    code, out, err = run_cli([*args, "--positive-label", "yes"], capsys)
    assert code == 0 and "risk-score audit:" in out, err


# -- the Analysis contract ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fitted() -> RiskScoreAudit:
    return RiskScoreAudit.example().fit()


def test_contract_not_fitted_params_and_fit_returns_self() -> None:
    from fairprobe.exceptions import NotFittedError

    audit = RiskScoreAudit(n_bootstrap=5, progress=False)
    for call in (audit.summary, audit.to_frame, audit.figures, audit.check_is_fitted):
        with pytest.raises(NotFittedError):
            call()
    assert RiskScoreAudit(n_bootstrap=0).n_bootstrap == 0  # stored unchanged; validated in fit
    params = audit.get_params()
    clone = type(audit)(**params)
    assert clone.get_params() == params
    assert audit.set_params(n_bootstrap=7) is audit and audit.n_bootstrap == 7
    ex = RiskScoreAudit.example(seed=1)
    assert ex.analysis.fit(ex.data, **ex.roles) is ex.analysis


def test_contract_results_figures_and_report(fitted: RiskScoreAudit, tmp_path) -> None:
    import matplotlib.pyplot as plt

    from fairprobe.plugins.base import Summary

    s = fitted.summary()
    assert isinstance(s, Summary) and "<table" in s.as_html() and "differences to all" in s.tables
    frame = fitted.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) and frame is fitted.by_group_
    for name, plot in fitted.figures().items():
        assert plot() is not None, name
        _, ax = plt.subplots()
        assert plot(ax=ax) is ax, name
        plt.close("all")
    page = fitted.to_report(tmp_path / "rep")
    assert (tmp_path / "rep" / "index.html").is_file() and page.name == "index.html"
    assert RiskScoreAudit.demo_order == 40 and RiskScoreAudit.name == "riskscore"


def test_sensitive_features_are_a_role_of_fit_names_or_values() -> None:
    y, r, frame = audit_data(1500, 4)
    data = frame.assign(y=y, r=r)
    kw = {"n_bootstrap": 10, "random_state": 0, "progress": False, "metrics": ("auroc",)}
    a = RiskScoreAudit(**kw).fit(data, y_true="y", y_score="r", sensitive_features=["sex"])
    assert "sensitive_features" not in a.get_params() and a.sensitive_features_ == ["sex"]
    same = [RiskScoreAudit(**kw).fit(data, y_true=data.y.to_numpy(), y_score="r", sensitive_features=["sex"]),
            RiskScoreAudit(**kw).fit(data, y_true="y", y_score="r", sensitive_features="sex"),  # one name
            RiskScoreAudit(**kw).fit(None, y_true=y, y_score=r, sensitive_features=data["sex"]),  # all values
            RiskScoreAudit(**kw).fit(data, y_true="y", y_score="r", sensitive_features=data[["sex"]])]
    for other in same:
        pd.testing.assert_frame_equal(other.results_, a.results_)
    values = RiskScoreAudit(**kw).fit(None, y_true=y, y_score=r, sensitive_features=data["sex"].to_numpy())
    assert values.sensitive_features_ == ["group"] and set(values.groups_) == {"all", "group=f", "group=m"}
    with pytest.raises(fp.DataError, match=r"holds 10 row\(s\) of 1 attribute\(s\); give one row per score"):
        RiskScoreAudit(**kw).fit(None, y_true=y, y_score=r, sensitive_features=data["sex"].to_numpy()[:10])
    with pytest.raises(fp.DataError, match="data must be a DataFrame"):
        RiskScoreAudit(**kw).fit(None, y_true=y, y_score=r, sensitive_features=["sex"])
    with pytest.raises(fp.ConfigError, match=r"needs sensitive features.*sensitive_features=\['sex'"):
        RiskScoreAudit(**kw).fit(data, y_true="y", y_score="r")


def test_the_constructors_sensitive_features_still_work_with_a_deprecation_warning() -> None:
    y, r, frame = audit_data(1500, 4)
    data = frame.assign(y=y, r=r)
    kw = {"n_bootstrap": 10, "random_state": 0, "progress": False, "metrics": ("auroc",)}
    with pytest.warns(DeprecationWarning, match=r"RiskScoreAudit\(sensitive_features=...\) is deprecated; pass the "
                                                r"groups to fit"):
        old = RiskScoreAudit(sensitive_features=["sex"], **kw)
    assert "sensitive_features" not in old.get_params()  # one place for each parameter: fit's role
    new = RiskScoreAudit(**kw).fit(data, y_true="y", y_score="r", sensitive_features=["sex"])
    pd.testing.assert_frame_equal(old.fit(data, y_true="y", y_score="r").results_, new.results_)
    with pytest.warns(DeprecationWarning):
        both = RiskScoreAudit(sensitive_features=["race"], **kw)
    assert both.fit(data, y_true="y", y_score="r", sensitive_features=["sex"]).sensitive_features_ == ["sex"]
    with pytest.warns(DeprecationWarning), pytest.raises(fp.ConfigError, match="non-empty list"):
        RiskScoreAudit(sensitive_features=[], **kw).fit(data, y_true="y", y_score="r")


def test_ranking_measures_accept_real_valued_scores() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    r = rng.random(4000)
    y = (rng.random(r.size) < r).astype(int)
    decision = np.log(r / (1 - r)) * 3 - 1  # a decision function: same ranking, any real value
    decile = np.ceil(r * 10)  # 1-10
    assert auroc(y, decision) == pytest.approx(roc_auc_score(y, decision), abs=1e-12)
    assert auroc(y, decision) == pytest.approx(auroc(y, r), abs=1e-12)
    assert auprg(y, decision) == pytest.approx(auprg(y, r), abs=1e-12)
    assert auprg(y, decile) == pytest.approx(auprg(y, decile / 10), abs=1e-12)
    mask = rng.random(r.size) < 0.3
    assert expected_underrepresentation(decision, y, mask) == pytest.approx(
        expected_underrepresentation(r, y, mask), abs=1e-12)
    with pytest.raises(fp.DataError, match=r"\[0, 1\]"):  # calibration still needs probabilities
        drmsce(y, decile)
    with pytest.raises(fp.DataError, match=r"\[0, 1\]"):
        calibration_intercept_slope(y, decision)


def test_audit_of_deciles_reports_calibration_as_nan_with_a_note(tmp_path) -> None:
    y, r, frame = audit_data(2000, 5)
    data = frame.assign(y=y, decile=np.ceil(r * 10).clip(1, 10))
    audit = RiskScoreAudit(n_bootstrap=20, random_state=0,
                           progress=False).fit(data, y_true="y", y_score="decile", sensitive_features=["sex", "race"])
    table = audit.by_group_
    assert table["drmsce"].isna().all() and table["auroc"].notna().all() and table["eur"].notna().all()
    assert table.loc["all", "auroc"] > 0.7
    assert not audit.bounded_ and "outside [0, 1]" in audit.calibration_note_
    text = audit.summary()
    assert "note: the scores lie in [1, 10], outside [0, 1]" in text and "drmsce, ece are reported as NaN" in text
    assert "reliability" not in audit.figures() and "metric_drmsce" not in audit.figures()
    with pytest.raises(fp.ConfigError, match="needs probabilities"):
        audit.plot_reliability()
    audit.to_report(tmp_path / "rep")
    assert "outside [0, 1]" in (tmp_path / "rep" / "index.html").read_text()


def test_differences_to_all_are_paired_bootstrap_intervals() -> None:
    y, r, frame = audit_data(3000, 6)
    audit = RiskScoreAudit(n_bootstrap=40, random_state=0, progress=False,
                           metrics=("drmsce", "auroc", "eur")).fit(frame, y_true=y, y_score=r,
                                                                   sensitive_features=["sex"])
    diff = audit.differences_
    assert set(diff.group) == {"sex=f", "sex=m"} and set(diff.metric) == {"drmsce", "auroc", "eur"}
    row = diff.set_index(["group", "metric"]).loc[("sex=m", "drmsce")]
    boot = audit.bootstrap_
    paired = boot["sex=m"]["drmsce"] - boot["all"]["drmsce"]  # the same resamples
    assert row["median"] == pytest.approx(np.median(paired))
    assert row["lower"] == pytest.approx(np.quantile(paired, 0.025))
    assert row["upper"] == pytest.approx(np.quantile(paired, 0.975))
    assert row["lower"] > 0 and row.excludes_zero  # men (miscalibrated) differ from all
    point = audit.results_.set_index(["group", "metric"])["point"]
    assert row["difference"] == pytest.approx(point["sex=m", "drmsce"] - point["all", "drmsce"])
    assert "group - all:" in audit.summary()
    # the results do not depend on n_jobs (one seed per chunk of resamples)
    again = RiskScoreAudit(**{**audit.get_params(), "n_jobs": 2}).fit(frame, y_true=y, y_score=r,
                                                                      sensitive_features=["sex"])
    pd.testing.assert_frame_equal(again.differences_, diff)


@pytest.mark.slow  # over 5 s; the default run stays under 15 minutes
def test_report_shows_every_single_attribute_group_and_explains_eur(tmp_path) -> None:
    from fairprobe.reporting.report import load_report

    y, r, frame = audit_data(6000, 7)
    audit = RiskScoreAudit(n_bootstrap=10, random_state=0, progress=False, min_group_size=50).fit(
        frame, y_true=y, y_score=r, sensitive_features=["sex", "age", "race"])
    singles = [g for g, k in audit.n_attributes_.items() if k == 1]
    ax = audit.plot_metrics("drmsce", top=4)
    labels = [t.get_text().split(" (n=")[0] for t in ax.get_yticklabels()]
    assert set(singles) <= set(labels)  # every single-attribute group, however small top is
    assert "the 4 most extreme of" in ax.get_title() and f"all {len(singles)} single-attribute groups" in ax.get_title()
    assert "best and worst by auroc, and all: 3 of" in audit.plot_roc().get_title()  # a subset says so
    audit.to_report(tmp_path / "rep")
    sec = load_report(tmp_path / "rep").sections[0]
    assert "EUR (expected under-representation) averages" in sec.text
    tables = {t.name: t.frame for t in sec.tables}
    assert {"differences to all", "results"} <= set(tables)
    assert set(singles) <= set(tables["differences to all"].group)


def test_demo_step_finds_the_miscalibrated_region() -> None:
    from fairprobe.datasets import make_lending_scenario
    from fairprobe.plugins.riskscore.demo import demo_step
    from fairprobe.reporting.report import Report

    report, facts = Report("demo"), {}
    found, table, lines = RiskScoreAudit.demo(report, make_lending_scenario(6000, seed=0), facts, quick=True,
                                              seed=0, n_jobs=1, progress=False)
    assert found == {"miscalibrated_group": True} and facts["riskscore"]["worst_calibrated"] == "region=east"
    assert "region=east" in lines[0] and table.index[0] == "all" and len(report.sections) == 1
    assert callable(demo_step)


def test_random_state_takes_a_generator_like_the_other_analyses() -> None:
    """A numpy Generator seeds the bootstrap; the same seed gives the same intervals."""
    import numpy as np

    from fairprobe.plugins.riskscore import RiskScoreAudit

    ex = RiskScoreAudit.example()
    runs = [RiskScoreAudit(**{**ex.analysis.get_params(), "random_state": np.random.default_rng(7)})
            .fit(ex.data, **ex.roles).by_group_ for _ in range(2)]
    assert runs[0].equals(runs[1])

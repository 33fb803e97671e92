"""Undefined metrics (single-class groups and resamples) and the summary's headline numbers.

Finding A: AUPRG was 0 for a group without negatives, ranked "worst" and its gap to all flagged
as significant. Every metric that needs both outcome classes is undefined (NaN with the reason)
for such a group and for such a resample; undefined values and intervals built from too few
defined resamples are never ranked nor flagged.

Finding B: the summary printed bootstrap medians as the headline; it now prints the point
estimate on the full data with the bootstrap interval beside it, gives the best group an
interval, and names the dropped groups with their sizes (also in ``--json``).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from fairprobe.plugins.riskscore import RiskScoreAudit, auprg, auroc, prg_curve
from fairprobe.plugins.riskscore.bootstrap import bootstrap_counts
from fairprobe.plugins.riskscore.discrimination import area_under_prg

NEEDS_BOTH = ("auroc", "auprg", "calibration_intercept", "calibration_slope")
ALL_METRICS = ("drmsce", "auroc", "auprg", "eur", "calibration_intercept", "calibration_slope")


def _no_nan(constant: str) -> None:
    raise AssertionError(f"{constant} is not JSON")


def _metric_lines(text: str, metric: str) -> list[str]:
    """The summary's ranking lines of one metric: the headline and the 'group - all' line."""
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(f"  {metric:7s} all "))
    return [lines[i], lines[i + 1]]


# -- the metric functions ------------------------------------------------------------------------
def test_auprg_of_a_sample_without_negatives_is_nan_with_the_reason() -> None:
    with pytest.warns(RuntimeWarning, match="without negatives"):
        value = auprg(np.array([1, 1, 1]), np.array([.2, .5, .7]))
    assert np.isnan(value)  # was 0.0: a confident "no better than the base rate"
    with pytest.warns(RuntimeWarning, match="both outcomes"):
        assert np.isnan(auroc(np.array([1, 1, 1]), np.array([.2, .5, .7])))  # as AUROC already was
    x, p = prg_curve([1, 1, 1], [.2, .5, .7])
    assert x.size == 0 and p.size == 0  # no curve without negatives
    assert np.isnan(area_under_prg(np.array([]), np.array([])))  # no curve, no area


def test_resamples_with_a_single_class_are_undefined() -> None:
    ys, rs = np.array([0., 1., 1., 1.]), np.array([.1, .4, .6, .9])
    counts = np.array([[1, 1, 1, 1],    # both classes
                       [0, 2, 1, 1],    # positives only
                       [4, 0, 0, 0]])   # negatives only
    out = bootstrap_counts(ys, rs, counts, ["auroc", "auprg"])
    assert out["auroc"][0] == pytest.approx(1.0) and out["auprg"][0] == pytest.approx(1.0)
    assert np.isnan(out["auroc"][1:]).all()
    assert np.isnan(out["auprg"][1:]).all()  # the positives-only resample was 0.0


# -- the audit -----------------------------------------------------------------------------------
def small_group_data(seed: int = 0) -> pd.DataFrame:
    """800 ordinary rows and three 2-row groups: x all positive, z all negative, w one of each."""
    rng = np.random.default_rng(seed)
    n = 800
    r = rng.random(n)
    frame = pd.DataFrame({"race": rng.choice(["a", "b"], n), "y": (rng.random(n) < r).astype(int), "r": r})
    extra = pd.DataFrame({"race": ["x", "x", "z", "z", "w", "w"], "y": [1, 1, 0, 0, 0, 1],
                          "r": [.3, .6, .4, .7, .2, .8]})
    return pd.concat([frame, extra], ignore_index=True)


@pytest.fixture(scope="module")
def small_groups() -> RiskScoreAudit:
    return RiskScoreAudit(min_group_size=1, n_bootstrap=20, random_state=0,
                          metrics=ALL_METRICS, progress=False).fit(small_group_data(), y_true="y", y_score="r",
                                                                   sensitive_features=["race"])


def test_single_class_groups_are_undefined_with_the_reason(small_groups: RiskScoreAudit) -> None:
    res = small_groups.results_.set_index(["group", "metric"])
    assert "note" in res.columns
    for m in NEEDS_BOTH:
        for g, why in (("race=x", "every outcome is 1"), ("race=z", "every outcome is 0")):
            row = res.loc[(g, m)]
            assert np.isnan(row["point"]), (g, m)
            assert np.isnan(row["lower"]) and np.isnan(row["upper"]) and np.isnan(row["median"]), (g, m)
            assert why in row["note"] and "needs both outcomes" in row["note"], (g, m, row["note"])
    assert "no positive outcomes" in res.loc[("race=z", "eur"), "note"] and np.isnan(res.loc[("race=z", "eur"),
                                                                                          "point"])
    assert "fewer than 10 rows" in res.loc[("race=x", "drmsce"), "note"]
    assert np.isfinite(res.loc[("race=x", "eur"), "point"])  # EUR needs positives only
    by_group = small_groups.by_group_
    assert np.isnan(by_group.loc["race=x", "auprg"]) and np.isnan(by_group.loc["race=x", "auroc"])


def test_interval_from_few_defined_resamples_is_undefined(small_groups: RiskScoreAudit) -> None:
    res = small_groups.results_.set_index(["group", "metric"])
    row = res.loc[("race=w", "auroc")]  # one positive, one negative: defined on the data, rarely in a resample
    assert np.isfinite(row["point"])
    assert row["n_undefined"] > 0.025 * small_groups.n_bootstrap
    assert np.isnan(row["lower"]) and np.isnan(row["upper"])  # was an interval of the few defined resamples
    assert f"of {small_groups.n_bootstrap} resamples" in row["note"]
    # a large group with no undefined resample keeps the ordinary percentile interval
    big = small_groups.bootstrap_["race=a"]["auroc"]
    assert np.isfinite(big).all()
    assert res.loc[("race=a", "auroc"), "lower"] == pytest.approx(np.quantile(big, 0.025))
    assert res.loc[("race=a", "auroc"), "upper"] == pytest.approx(np.quantile(big, 0.975))


def test_undefined_groups_are_never_ranked_or_flagged(small_groups: RiskScoreAudit) -> None:
    diff = small_groups.differences_.set_index(["group", "metric"])
    for g in ("race=x", "race=z", "race=w"):
        for m in NEEDS_BOTH:
            row = diff.loc[(g, m)]
            assert not row["excludes_zero"], (g, m)
            assert np.isnan(row["lower"]) and np.isnan(row["upper"]), (g, m)
            assert row["note"], (g, m)
    text = str(small_groups.summary())
    for m in ("auroc", "auprg", "calibration_intercept", "calibration_slope", "drmsce", "eur"):
        for line in _metric_lines(text, m):
            assert not re.search(r"race=[xzw]\b", line), (m, line)
    # the summary says which groups are undefined and why
    undefined = [ln for ln in text.splitlines() if "race=x" in ln and "auprg" in ln]
    assert undefined and "every outcome is 1" in undefined[0] and "needs both outcomes" in undefined[0], text
    assert any("race=w" in ln and "resamples undefined" in ln for ln in text.splitlines()), text


def test_plots_and_report_leave_undefined_groups_out(small_groups: RiskScoreAudit, tmp_path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # tests only
    import matplotlib.pyplot as plt

    from fairprobe.plugins.riskscore.plots import extreme_groups

    for m in ("auroc", "auprg"):
        assert not {"race=x", "race=z", "race=w"} & set(extreme_groups(small_groups, m))
    ax = small_groups.plot_metrics("auprg")
    labels = [t.get_text().split(" (n=")[0] for t in ax.get_yticklabels()]
    assert set(labels) == {"race=a", "race=b"} and "3 undefined" in ax.get_title()
    assert "point estimate" in ax.get_xlabel()
    for name, plot in small_groups.figures().items():
        assert plot() is not None, name
        plt.close("all")
    small_groups.to_report(tmp_path / "rep")
    results = pd.read_csv(tmp_path / "rep" / "tables" / "s1_all_results_long_form.csv")
    assert "every outcome is 1" in results.set_index(["group", "metric"]).loc[("race=x", "auprg"), "note"]


def test_compas_repro_native_american_women(tmp_path, capsys) -> None:
    """The reported run: two Native American women, both re-arrested; --bootstrap 10 --min-group-size 1."""
    from sklearn.linear_model import LogisticRegression

    from fairprobe.datasets import load_compas
    from tests.bad_input import run_cli

    df = load_compas().frame
    X, y = df[["age", "priors_count"]].to_numpy(), df.two_year_recid.to_numpy()
    df = df.assign(lr_score=LogisticRegression().fit(X, y).predict_proba(X)[:, 1])
    group = (df.race == "Native American") & (df.sex == "Female")
    assert group.sum() == 2 and df.two_year_recid[group].eq(1).all()
    path = tmp_path / "compas.csv"
    df[["race", "sex", "two_year_recid", "lr_score"]].to_csv(path, index=False)
    args = ["riskscore", "--data", str(path), "--target", "two_year_recid", "--score", "lr_score",
            "--sensitive", "race,sex", "--bootstrap", "10", "--min-group-size", "1"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    name = "race=Native American & sex=Female"
    for m in ("auroc", "auprg"):
        for line in _metric_lines(out, m):
            assert name not in line, line  # was "worst ... 0.0000 [0.0000, 0.0000]" and the "largest" gap
    assert any(name in ln and "every outcome is 1" in ln for ln in out.splitlines()), out
    code, out, err = run_cli([*args, "--json"], capsys)
    assert code == 0, err
    data = json.loads(out, parse_constant=_no_nan)
    row = next(r for r in data["results"] if r["group"] == name and r["metric"] == "auprg")
    assert row["point"] is None and row["lower"] is None and "every outcome is 1" in row["note"]
    gap = next(r for r in data["differences"] if r["group"] == name and r["metric"] == "auprg")
    assert gap["excludes_zero"] is False


# -- Finding B: the headline numbers -----------------------------------------------------------------
def headline_data(seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 1500
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                          "race": rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.17, 0.03])})
    r = rng.random(n)
    y = (rng.random(n) < np.where(frame.sex == "m", r**2, r)).astype(int)
    return frame, y, r


def test_headline_is_the_point_estimate_with_the_interval_beside_it() -> None:
    from sklearn.metrics import roc_auc_score

    frame, y, r = headline_data()
    audit = RiskScoreAudit(n_bootstrap=20, random_state=0,
                           progress=False).fit(frame, y_true=y, y_score=r, sensitive_features=["sex", "race"])
    point = roc_auc_score(y, r)
    res = audit.results_.set_index(["group", "metric"])
    assert res.loc[("all", "auroc"), "point"] == pytest.approx(point, abs=1e-12)
    assert audit.by_group_.loc["all", "auroc"] == pytest.approx(point, abs=1e-12)  # to_frame: point estimates
    median = res.loc[("all", "auroc"), "median"]
    assert f"{median:.4f}" != f"{point:.4f}"  # the two differ here, so the test tells them apart
    text = str(audit.summary())
    line = _metric_lines(text, "auroc")[0]
    assert line.startswith(f"  auroc   all {point:.4f} [{res.loc[('all', 'auroc'), 'lower']:.4f}, ")
    assert "point estimate on the full data" in text and "bootstrap percentile interval" in text
    # the first-ranked group has an interval too ("best" only when it can be told apart from the others)
    best = re.search(r"(?:best|from) (.+?) (-?\d\.\d{4}) \[(-?\d\.\d{4}), (-?\d\.\d{4})\]", line)
    assert best, line
    group = best.group(1)
    assert float(best.group(2)) == pytest.approx(res.loc[(group, "auroc"), "point"], abs=5e-5)
    assert float(best.group(3)) == pytest.approx(res.loc[(group, "auroc"), "lower"], abs=5e-5)


def test_dropped_groups_are_named_with_sizes_in_the_summary_and_json(tmp_path, capsys) -> None:
    from tests.bad_input import run_cli

    frame, y, r = headline_data(1)
    path = tmp_path / "scores.csv"
    frame.assign(y=y, r=r).to_csv(path, index=False)
    sizes = frame.race.value_counts()
    assert sizes["d"] < 100
    args = ["riskscore", "--data", str(path), "--target", "y", "--score", "r", "--sensitive", "sex,race",
            "--max-intersections", "1", "--bootstrap", "10"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert "dropped_groups_" not in out
    line = next(ln for ln in out.splitlines() if f"race=d ({sizes['d']})" in ln)
    assert "fewer than" in line and "--min-group-size" in line and "not ranked" in line
    code, out, err = run_cli([*args, "--json"], capsys)
    assert code == 0, err
    data = json.loads(out, parse_constant=_no_nan)
    assert {"group": "race=d", "n": int(sizes["d"])} in data["dropped_groups"]
    assert {"results", "differences", "dropped_groups"} <= set(data)
    assert any(row["metric"] == "drmsce" for row in data["results"])

"""Running a study: outputs, resume after a stop, identical results on 1 and 2 workers and on Dask."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.exceptions import ConfigError
from fairprobe.studies.runner import run_study

# no fairlearn needed: the unconstrained model and the reweighting search
SMALL = {"name": "small", "datasets": [{"name": "german", "subsample": 400}], "classifiers": ["naive_bayes",
         "decision_tree"], "constraints": ["none", "ppv_parity"], "metrics": ["demographic_parity", "fpr_parity"],
         "biases": ["selection", "proxy_label"], "D": [0.02, 0.05], "search": {"candidates": 4}}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> fp.StudyResult:
    return fp.study(SMALL, tmp_path_factory.mktemp("ref"), progress=False)


def test_outputs(reference: fp.StudyResult) -> None:
    res = reference.results
    assert len(res) == 4 * 2 * 2 * 3  # models x biases x metrics x levels
    assert set(res.status) == {"optimal"}
    assert (res.lower <= res.upper + 1e-12).all()
    # the worst case is the largest |bound|, and the observed disparity is its value at D = 0
    assert np.allclose(res.worst, np.maximum(res.lower.abs(), res.upper.abs()))
    at_zero = res[res.D == 0.0]
    assert np.allclose(at_zero.worst, at_zero.observed) and np.allclose(at_zero.lower, at_zero.upper, atol=1e-9)
    # bounds widen with D, so the worst case never falls
    worst = res.pivot_table(index=["classifier", "constraint", "bias", "metric"], columns="D", values="worst")
    assert (worst.diff(axis=1).iloc[:, 1:] >= -1e-9).all().all()
    for name in ("results", "models", "fragility", "ranking", "figure5", "figure_german", "report"):
        assert reference.paths[name].is_file(), name
    page = reference.paths["report"].read_text()
    assert "Figure 5" in page and reference.spec.fingerprint() in page
    saved = pd.read_csv(reference.paths["results"])
    assert len(saved) == len(res)


def test_demographic_parity_is_not_moved_by_proxy_labels(reference: fp.StudyResult) -> None:
    """DP reads no outcome: proxy labels leave it point-identified (a known answer)."""
    dp = reference.results[(reference.results.metric == "demographic_parity") & (reference.results.bias ==
                                                                                   "proxy_label")]
    assert np.allclose(dp.lower, dp.upper, atol=1e-9)
    ranking = reference.ranking[reference.ranking.bias == "proxy_label"].set_index("metric")
    assert ranking.loc["demographic_parity", "rank"] == 1
    assert ranking.loc["demographic_parity", "mean_increase"] == pytest.approx(0.0, abs=1e-9)


def test_the_model_table_counts_the_held_out_rows(reference: fp.StudyResult) -> None:
    models = reference.models
    assert len(models) == 4 and (models.test_units == 200).all()
    searched = models[models.constraint == "ppv_parity"]
    assert searched.note.str.contains("candidate").all()


def _table(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "results.csv")


def test_resume_after_a_stop(tmp_path: Path, reference: fp.StudyResult) -> None:
    partial = run_study(SMALL, tmp_path, progress=False, max_units=3)  # as if stopped after 3 units
    assert len(list((tmp_path / "units").glob("*.json"))) == 3 and len(partial) == 3 * 3
    first = {f.name: f.stat().st_mtime_ns for f in (tmp_path / "units").glob("*.json")}
    res = fp.study(SMALL, tmp_path, progress=False, report=False)
    again = {f.name: f.stat().st_mtime_ns for f in (tmp_path / "units").glob("*.json")}
    assert all(again[name] == stamp for name, stamp in first.items())  # the done units were not redone
    pd.testing.assert_frame_equal(res.results, reference.results)


def test_a_half_written_unit_is_done_again(tmp_path: Path, reference: fp.StudyResult) -> None:
    run_study(SMALL, tmp_path, progress=False, max_units=1)
    broken = next((tmp_path / "units").glob("*.json"))
    broken.write_text('[{"dataset": ')
    res = fp.study(SMALL, tmp_path, progress=False, report=False)
    pd.testing.assert_frame_equal(res.results, reference.results)


def test_a_changed_spec_reuses_what_it_shares(tmp_path: Path, reference: fp.StudyResult) -> None:
    fp.study(SMALL, tmp_path, progress=False, report=False)
    before = {f.name for f in (tmp_path / "units").glob("*.json")}
    narrower = {**SMALL, "metrics": ["fpr_parity"], "name": "another title"}
    res = run_study(narrower, tmp_path, progress=False)
    assert {f.name for f in (tmp_path / "units").glob("*.json")} == before  # nothing recomputed
    expected = reference.results[reference.results.metric == "fpr_parity"].reset_index(drop=True)
    pd.testing.assert_frame_equal(res, expected)
    other_levels = run_study({**SMALL, "D": [0.03]}, tmp_path, progress=False)  # new units, old ones kept
    assert sorted(other_levels.D.unique()) == [0.0, 0.03] and len(list((tmp_path / "units").glob("*.json"))) == 32
    assert json.loads((tmp_path / "spec.json").read_text())["spec"]["D"] == [0.0, 0.03]


def test_a_changed_data_file_is_not_reused(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=300), "g": rng.choice(["u", "v"], 300)})
    frame["y"] = (frame.x + rng.normal(size=300) > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    spec = {"datasets": [{"name": "d", "path": str(tmp_path / "d.csv"), "label": "y", "attribute": "g",
                          "groups": ["u", "v"]}], "classifiers": ["logistic_regression"], "constraints": ["none"],
            "metrics": ["demographic_parity"], "biases": ["selection"], "D": [0.02]}
    first = run_study(spec, tmp_path / "out", progress=False)
    frame.assign(y=1 - frame.y).to_csv(tmp_path / "d.csv", index=False)  # the label flipped: another model
    second = run_study(spec, tmp_path / "out", progress=False)
    assert len(list((tmp_path / "out" / "models").glob("*.json"))) == 2
    assert not np.allclose(first.upper, second.upper)


def test_force_starts_over_and_a_foreign_folder_needs_it(tmp_path: Path) -> None:
    run_study(SMALL, tmp_path / "out", progress=False, max_units=2)
    run_study(SMALL, tmp_path / "out", progress=False, max_units=1, force=True)
    assert len(list((tmp_path / "out" / "units").glob("*.json"))) == 1
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="--force"):
        run_study(SMALL, tmp_path / "mine", progress=False)
    run_study(SMALL, tmp_path / "mine", progress=False, max_units=1, force=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"  # only the study's own entries are touched


def test_two_workers_give_the_same_table(tmp_path: Path, reference: fp.StudyResult) -> None:
    res = fp.study(SMALL, tmp_path, n_jobs=2, progress=False, report=False)
    pd.testing.assert_frame_equal(res.results, reference.results)
    pd.testing.assert_frame_equal(res.ranking, reference.ranking)


def test_dask_gives_the_same_table(tmp_path: Path, reference: fp.StudyResult) -> None:
    distributed = pytest.importorskip("distributed", reason='Dask is optional: pip install "fairprobe[dask]"')
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        res = fp.study(SMALL, tmp_path, client=client, progress=False, report=False)
    pd.testing.assert_frame_equal(res.results, reference.results)


def test_an_undefined_metric_is_a_row_with_its_reason(tmp_path: Path) -> None:
    """A user's file whose model never predicts positive for a group: PPV is undefined there."""
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(["u", "v"], size=n)})
    frame["y"] = (rng.random(n) < 0.5).astype(int)
    frame.loc[frame.g == "v", "x"] = -50.0  # group v: the tree predicts 0 for everyone
    frame.loc[frame.g == "u", "y"] = (frame.loc[frame.g == "u", "x"] > 0).astype(int)
    frame.to_csv(tmp_path / "mine.csv", index=False)
    spec = {"datasets": [{"name": "mine", "path": str(tmp_path / "mine.csv"), "label": "y", "attribute": "g",
                          "groups": ["u", "v"]}], "classifiers": ["decision_tree"], "constraints": ["none"],
            "metrics": ["ppv_parity", "demographic_parity"], "biases": ["selection"], "D": [0.02]}
    res = fp.study(spec, tmp_path / "out", progress=False, report=False)
    ppv = res.results[(res.results.metric == "ppv_parity") & (res.results.D == 0.0)]
    assert (ppv.status == "undefined").all() and ppv.error.str.contains("undefined", case=False).all()
    assert (res.results[res.results.metric == "demographic_parity"].status == "optimal").all()
    # no observed disparity, so no increase to rank: the ranking leaves PPV out rather than guess
    assert list(res.ranking.metric) == ["demographic_parity"]


def test_sampling_intervals_where_asked(tmp_path: Path) -> None:
    """``ci:`` gives every bound its sampling interval, which contains the bound (the population interval)."""
    spec = {**SMALL, "classifiers": ["naive_bayes"], "constraints": ["none"], "metrics": ["fpr_parity"],
            "biases": ["selection"], "D": [0.02], "ci": {"level": 0.9, "method": "bootstrap", "resamples": 20}}
    res = fp.study(spec, tmp_path, progress=False, report=False).results
    assert {"ci_lower", "ci_upper", "ci_level", "ci_method"} <= set(res.columns)
    assert (res.ci_level == 0.9).all() and (res.ci_method == "bootstrap").all()
    assert (res.ci_lower <= res.lower + 1e-12).all() and (res.ci_upper >= res.upper - 1e-12).all()
    assert (res.ci_upper - res.ci_lower > res.upper - res.lower).all()  # 200 units: sampling error is visible

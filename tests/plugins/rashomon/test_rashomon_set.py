"""The ad-hoc Rashomon set on the paper's synthetic overlap data."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import fairprobe as fp
from fairprobe.plugins.rashomon import RashomonSet


def synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Label 0: N((0,0), I) and N((5,5), I); label 1: N((5,5), I) and N((10,10), I)."""
    rng = np.random.default_rng(seed)
    centre = rng.integers(0, 4, n)
    means = np.array([[0, 0], [5, 5], [5, 5], [10, 10]])
    X = means[centre] + rng.normal(size=(n, 2))
    return X, (centre >= 2).astype(int)


def test_bootstrap_rashomon_set_finds_the_overlap() -> None:
    X, y = synthetic(4000, 0)
    grid = {"max_depth": [3, 5, 8], "criterion": ["gini", "entropy"]}
    rs = RashomonSet(estimator=DecisionTreeClassifier(), param_grid=grid, epsilon=0.1, n_models=60, subsample=0.1,
                     random_state=0, progress=False).fit(X, y_true=y)
    Xt, _ = synthetic(2000, 1)
    c = rs.conflict_ratio(Xt)
    overlap = np.linalg.norm(Xt - 5, axis=1) < 1.0
    far = np.minimum(np.linalg.norm(Xt, axis=1), np.linalg.norm(Xt - 10, axis=1)) < 1.0
    assert c[overlap].mean() >= 0.3 and c[far].mean() <= 0.05
    conv = rs.convergence(Xt)
    assert conv.n_models.iloc[-1] == len(rs.scores_) and conv.ambiguity_0.is_monotonic_increasing
    rep = rs.individual_report(Xt, threshold=0.2)
    assert set(rep.columns) >= {"majority", "conflict_ratio", "flagged", "share_0", "share_1"}
    assert np.allclose(rep.share_0 + rep.share_1, 1.0)


def test_rashomon_set_errors() -> None:
    X, y = synthetic(400, 2)
    with pytest.raises(fp.ConfigError, match="no fit/predict"):
        RashomonSet(estimator=object(), progress=False).fit(X, y_true=y)
    with pytest.raises(fp.DataError, match="single class"):
        RashomonSet(estimator=DecisionTreeClassifier(), progress=False).fit(X, y_true=np.zeros(400))
    with pytest.raises(fp.DataError, match="one row per label"):
        RashomonSet(estimator=DecisionTreeClassifier(), progress=False).fit(X, y_true=y[:-1])
    with pytest.raises(fp.DataError, match="Rashomon set is empty"):
        RashomonSet(estimator=DecisionTreeClassifier(max_depth=1), epsilon=0.0, n_models=3, subsample=0.01,
                    random_state=0, progress=False).fit(X, y_true=y)


def test_plots_and_report(tmp_path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from fairprobe.plugins.rashomon.plots import plot_ambiguity_curves, plot_distance_heatmap

    X, y = synthetic(1500, 3)
    rs = RashomonSet(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [3, 6]}, epsilon=0.1, n_models=20,
                     subsample=0.2, random_state=0, progress=False).fit(X, y_true=y)
    page = rs.to_report(tmp_path / "mult")
    assert page.name == "index.html"
    assert (tmp_path / "mult" / "figures" / "s1_ambiguity.png").stat().st_size > 3000
    assert (tmp_path / "mult" / "tables" / "s1_results.csv").is_file()
    assert len(rs.plot_scatter(X[:500]).collections) == 1
    P = rs.predict_matrix(X[:500])
    sets = {"all": P, "half": P[: P.shape[0] // 2]}
    assert len(plot_ambiguity_curves(sets).lines) == 2
    assert len(plot_distance_heatmap(sets).texts) == 4


def test_registered_and_command(tmp_path) -> None:
    import json
    import subprocess
    import sys

    import pandas as pd

    assert fp.get_registry().analyses["rashomon"] is RashomonSet
    X, y = synthetic(1200, 4)
    pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "y": y}).to_csv(tmp_path / "train.csv", index=False)
    out = subprocess.run([sys.executable, "-m", "fairprobe.cli", "multiplicity", "--data", str(tmp_path / "train.csv"),
                          "--target", "y", "--n-models", "20", "--epsilon", "0.1", "--subsample", "0.3", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert 0 < summary["n_models"] <= 20 and 0 < summary["ambiguity"] <= 1
    bad = subprocess.run([sys.executable, "-m", "fairprobe.cli", "multiplicity", "--data", str(tmp_path / "train.csv"),
                          "--target", "nope"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "['nope'] are not in" in bad.stderr


def _overlap_masks(Xt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    overlap = np.linalg.norm(Xt - 5, axis=1) < 1.0
    far = np.minimum(np.linalg.norm(Xt, axis=1), np.linalg.norm(Xt - 10, axis=1)) < 1.0
    return overlap, far


def test_fresh_samples_recover_the_true_conflict_ratio() -> None:
    """Condition (d): a fresh sample per model; the overlap's true conflict ratio is 0.5."""
    X, y = synthetic(2000, 5)
    rs = RashomonSet(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [4, 6]}, epsilon=0.1, n_models=40,
                     dataset_multiplicity="sampler", sampler=lambda rng: synthetic(2000, int(rng.integers(1 << 30))),
                     random_state=0, progress=False).fit(X, y_true=y)
    Xt, _ = synthetic(2000, 6)
    c = rs.conflict_ratio(Xt)
    overlap, far = _overlap_masks(Xt)
    assert c[overlap].mean() >= 0.4 and c[far].mean() <= 0.02


def test_noise_category_flips_metric_reference_and_penalty() -> None:
    rng = np.random.default_rng(1234)  # not synthetic's seed: the codes must be independent of the label
    X, y = synthetic(1500, 7)
    X = np.column_stack([X, rng.integers(0, 3, len(X))])  # a categorical column (codes 0, 1, 2)
    common = dict(param_grid={"max_depth": [3, 5]}, epsilon=0.05, n_models=15, subsample=0.5, random_state=0,
                  progress=False)
    rs = RashomonSet(estimator=DecisionTreeClassifier(), feature_noise=0.5, categorical_features=[2], category_flip=0.2,
                     metric="balanced_accuracy", **common).fit(X, y_true=y)
    assert 0.7 <= rs.reference_score_ <= 0.8 and np.all(rs.scores_ >= rs.reference_score_ - 0.05)
    fixed = RashomonSet(estimator=DecisionTreeClassifier(), reference=0.74, metric=lambda t, p: np.mean(t == p),
                        **common).fit(X, y_true=y)
    assert fixed.reference_score_ == 0.74 and fixed.reference_params_ == {}
    leaves = RashomonSet(estimator=DecisionTreeClassifier(), complexity=lambda m: m.get_n_leaves(), penalty=1e-3,
                         **common).fit(X, y_true=y)
    assert leaves.scores_.max() < rs.candidate_scores_.max() + 0.05  # the penalty lowers every objective
    with pytest.raises(fp.ConfigError, match="categorical_features"):
        RashomonSet(estimator=DecisionTreeClassifier(), categorical_features=[5], **common).fit(X, y_true=y)
    with pytest.raises(fp.ConfigError, match="sampler"):
        RashomonSet(estimator=DecisionTreeClassifier(), dataset_multiplicity="sampler", **common).fit(X, y_true=y)
    with pytest.raises(fp.ConfigError, match="penalty needs complexity"):
        RashomonSet(estimator=DecisionTreeClassifier(), penalty=0.1, **common).fit(X, y_true=y)
    with pytest.raises(fp.DataError, match="binary target"):
        RashomonSet(estimator=DecisionTreeClassifier(), metric="f1", **common).fit(X, y_true=np.arange(len(y)) % 3)
    with pytest.raises(fp.DataError, match="3 columns, as in fit"):
        rs.predict_matrix(X[:, :2])


def test_perturbation_switches_categories_to_other_levels() -> None:
    from fairprobe.plugins.rashomon.candidates import Perturbation, perturb

    X = np.column_stack([np.zeros(20000), np.tile([0.0, 1.0, 2.0, 5.0], 5000)])
    out = perturb(X, Perturbation(0.1, (1,), 0.3, None), np.random.default_rng(0))
    switched = out[:, 1] != X[:, 1]
    assert abs(switched.mean() - 0.3) < 0.02 and set(np.unique(out[:, 1])) == {0.0, 1.0, 2.0, 5.0}
    assert abs(out[:, 0].std() - 0.1) < 0.005


def test_parallel_training_equals_sequential() -> None:
    X, y = synthetic(800, 8)
    kw = dict(param_grid={"max_depth": [3, 5]}, epsilon=0.1, n_models=12, subsample=0.5, random_state=0,
              progress=False)
    seq = RashomonSet(estimator=DecisionTreeClassifier(), **kw).fit(X, y_true=y)
    par = RashomonSet(estimator=DecisionTreeClassifier(), n_jobs=2, **kw).fit(X, y_true=y)
    np.testing.assert_array_equal(seq.predict_matrix(X), par.predict_matrix(X))


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed not installed")
def test_training_on_a_local_dask_cluster() -> None:
    from distributed import Client, LocalCluster

    X, y = synthetic(800, 9)
    kw = dict(param_grid={"max_depth": [3, 5]}, epsilon=0.1, n_models=12, subsample=0.5, random_state=0,
              progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        dist = RashomonSet(estimator=DecisionTreeClassifier(), parallel_backend="dask", **kw).fit(X, y_true=y)
    seq = RashomonSet(estimator=DecisionTreeClassifier(), **kw).fit(X, y_true=y)
    np.testing.assert_array_equal(seq.predict_matrix(X), dist.predict_matrix(X))

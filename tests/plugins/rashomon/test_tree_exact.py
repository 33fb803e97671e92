"""TreeRashomonSet: the exact tree Rashomon set against TreeFARMS' own trees, and its bad-input errors."""

from __future__ import annotations

import builtins
import importlib.util

import numpy as np
import pandas as pd
import pytest

from fairprobe.exceptions import BackendUnavailableError, ConfigError, DataError
from fairprobe.plugins.rashomon import TreeRashomonSet
from fairprobe.plugins.rashomon.binarise import QuantileBinariser
from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_ratio, delta_ambiguity
from fairprobe.testing import check_analysis

needs_treefarms = pytest.mark.skipif(importlib.util.find_spec("treefarms") is None,
                                     reason='treefarms is not installed (pip install "fairprobe[trees]")')


def _compas_small() -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame]:
    from fairprobe.datasets import load_compas_binary

    d = load_compas_binary()
    frame = d.frame.sample(n=1500, random_state=0)
    X = frame[d.features].astype(int)
    return X.iloc[:1000], frame[d.target].to_numpy()[:1000], X.iloc[1000:]


@pytest.fixture(scope="module")
def fitted() -> tuple[TreeRashomonSet, pd.DataFrame]:
    pytest.importorskip("treefarms", reason='treefarms is not installed (pip install "fairprobe[trees]")')
    X, y, X_test = _compas_small()
    trs = TreeRashomonSet(regularization=0.01, depth_budget=4, rashomon_bound_adder=0.03, chunk_size=500)
    trs.fit(X, y_true=y, X_eval=X_test)
    return trs, X_test


@needs_treefarms
def test_exact_against_treefarms_per_tree_predict(fitted: tuple[TreeRashomonSet, pd.DataFrame]) -> None:
    trs, X_test = fitted
    assert 100 < trs.n_trees_ <= 10_000
    assert trs.n_trees_ == trs.model_.get_tree_count()  # the enumerator's own count
    P = trs.predict_matrix()  # streamed in chunks of 500 through the cached graph
    assert P.shape == (trs.n_trees_, len(X_test))
    rng = np.random.default_rng(0)
    sample = np.unique(np.concatenate([[0, trs.n_trees_ - 1], rng.choice(trs.n_trees_, 150, replace=False)]))
    for i in sample:  # TreeFARMS' per-tree predict takes ~0.1 s per tree: a sample of 152 trees
        ref = np.asarray(trs.model_[int(i)].predict(X_test)).astype(int)
        np.testing.assert_array_equal(P[i], ref, err_msg=f"tree {i}")
    # the graph counts equal a brute-force count over the prediction matrix
    np.testing.assert_array_equal(trs.ones_, P.sum(axis=0))
    np.testing.assert_allclose(trs.conflict_ratio_, conflict_ratio(P))
    assert trs.delta_ambiguity(0.0) == delta_ambiguity(P, 0.0)
    assert trs.delta_ambiguity(0.1) == delta_ambiguity(P, 0.1)
    np.testing.assert_allclose(trs.ambiguity_curve()[1], ambiguity_curve(P)[1])
    assert trs.rashomon_distance(P) == 0.0
    ref0 = P[trs.reference_index_]
    assert trs.discrepancy() == pytest.approx((P != ref0).mean(axis=1).max())


@needs_treefarms
def test_every_tree_matches_treefarms_on_a_tiny_set() -> None:
    ex = TreeRashomonSet.example()
    trs = ex.fit()
    X = ex.data[[f"x{j}" for j in range(5)]]
    P = trs.predict_matrix()
    for i in range(trs.n_trees_):
        np.testing.assert_array_equal(P[i], np.asarray(trs.model_[i].predict(X)).astype(int))
    brute = np.array([min(col.sum(), len(col) - col.sum()) / len(col) for col in P.T])
    np.testing.assert_allclose(trs.conflict_ratio_, brute)
    assert list(trs.by_group_.index) == ["a", "b"]


@needs_treefarms
def test_contract() -> None:
    import matplotlib

    matplotlib.use("Agg")
    check_analysis(TreeRashomonSet)


@needs_treefarms
def test_binariser_path_and_multiplier() -> None:
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"age": rng.integers(18, 70, 300), "city": rng.choice(["a", "b", "c"], 300)})
    y = ((X["age"] < 35) ^ (rng.random(300) < 0.2)).astype(int).to_numpy()
    with pytest.raises(DataError, match=r"needs 0/1 features; columns \['age', 'city'\].*binariser='quantile'"):
        TreeRashomonSet(depth_budget=3).fit(X, y_true=y)
    trs = TreeRashomonSet(depth_budget=3, binariser="quantile", rashomon_bound_adder=None,
                          rashomon_bound_multiplier=0.1).fit(X, y_true=y)
    assert len(trs.binary_features_) == 6 and trs.binary_features_[0].startswith("age <= ")
    assert trs.binary_features_[3:] == ["city == a", "city == b", "city == c"]
    assert trs.n_trees_ >= 1 and trs.conflict_ratio_.shape == (300,)


@needs_treefarms
def test_memory_limit_refuses_a_large_set() -> None:
    X, y, X_test = _compas_small()
    with pytest.raises(ConfigError, match=r"needs about .* GiB to evaluate, above memory_limit_gb=1e-06"):
        TreeRashomonSet(depth_budget=4, memory_limit_gb=1e-6).fit(X, y_true=y, X_eval=X_test)


def test_missing_enumerator_names_the_pip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_treefarms(name: str, *args: object, **kwargs: object) -> object:
        if name == "treefarms" or name.startswith("treefarms."):
            raise ImportError("No module named 'treefarms'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_treefarms)
    ex = TreeRashomonSet.example()
    with pytest.raises(BackendUnavailableError, match=r'pip install "treefarms>=0.2.4"'):
        ex.fit()


@pytest.mark.parametrize(("params", "match"), [
    ({"rashomon_bound_adder": 0.05, "rashomon_bound_multiplier": 0.05}, "exactly one of"),
    ({"rashomon_bound_adder": None}, "exactly one of"),
    ({"depth_budget": -1}, "depth_budget"),
    ({"regularization": "x"}, "regularization"),
    ({"binariser": "kmeans"}, "binariser"),
])
def test_bad_parameters(params: dict, match: str) -> None:
    ex = TreeRashomonSet.example()
    ex.analysis.set_params(**params)
    with pytest.raises(ConfigError, match=match):
        ex.fit()


def test_bad_data() -> None:
    ex = TreeRashomonSet.example()
    with pytest.raises(DataError, match="y_true must be 0/1"):
        ex.analysis.fit(ex.data.assign(y=ex.data["y"] + 1), y_true="y")
    with pytest.raises(DataError, match="not in the data"):
        ex.analysis.fit(ex.data, y_true="label")
    with pytest.raises(DataError, match="DataFrame"):
        ex.analysis.fit(ex.data.to_numpy(), y_true=ex.data["y"].to_numpy())


def test_quantile_binariser() -> None:
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["u", "v", "u", "u"], "b": [0, 1, 1, 0]})
    out = QuantileBinariser(1).fit_transform(X)
    assert out.columns.tolist() == ["x <= 2.5", "c == u", "c == v", "b"]
    assert out["x <= 2.5"].tolist() == [1, 1, 0, 0]
    with pytest.raises(ConfigError, match="n_thresholds"):
        QuantileBinariser(0).fit(X)


@needs_treefarms
def test_multiplicity_exact_trees_is_the_trees_command(tmp_path) -> None:
    """``fairprobe multiplicity --exact-trees`` gives what ``fairprobe multiplicity-trees`` gives."""
    import json

    from click.testing import CliRunner

    from fairprobe.cli import cli
    from fairprobe.datasets import load_compas_binary

    d = load_compas_binary()
    path = tmp_path / "rows.csv"
    d.frame[[*d.features, d.target]].head(300).to_csv(path, index=False)
    runner = CliRunner()
    via_flag = runner.invoke(cli, ["multiplicity", "--data", str(path), "--target", d.target, "--exact-trees",
                                   "--json"])
    direct = runner.invoke(cli, ["multiplicity-trees", "--data", str(path), "--target", d.target, "--json"])
    assert via_flag.exit_code == 0 and direct.exit_code == 0, via_flag.output + direct.output
    a, b = json.loads(via_flag.output), json.loads(direct.output)
    a.pop("enumeration_seconds", None)
    b.pop("enumeration_seconds", None)
    assert a == b and a["trees"] > 1


@needs_treefarms
def test_streaming_on_joblib_workers_recounts_the_graph(fitted: tuple[TreeRashomonSet, pd.DataFrame]) -> None:
    """Every tree evaluated (two workers, small chunks) gives the graph's exact counts per row."""
    trs, _ = fitted
    brute = trs.predict_matrix().sum(axis=0, dtype=np.int64)
    for n_jobs in (1, 2):
        counts = trs.streamed_ones(n_jobs=n_jobs, chunk_size=97)
        assert np.array_equal(counts, trs.ones_) and np.array_equal(counts, brute)

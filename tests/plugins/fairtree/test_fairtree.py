"""FairTree: the tests' distributions, snapping, input handling, error rates and classification."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.plugins.fairtree import FairTree, cusum_process, kolmogorov_pvalue, permutation_max_test

matplotlib.use("Agg")


def test_kolmogorov_pvalues() -> None:
    assert kolmogorov_pvalue(1.0) == pytest.approx(0.2700, abs=5e-5)
    assert kolmogorov_pvalue(1.358) == pytest.approx(0.0500, abs=5e-5)
    assert kolmogorov_pvalue(2.0) == pytest.approx(6.709e-4, rel=1e-3)


def test_process_is_the_intercept_only_ols_cusum() -> None:
    rng = np.random.default_rng(3)
    y = rng.normal(size=257)
    X = np.ones((y.size, 1))
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    e = y - X @ beta
    sigma = np.sqrt(e @ e / (y.size - 1))  # efp's OLS-CUSUM: residual sd with one parameter
    expected = np.cumsum(e) / (sigma * np.sqrt(y.size))
    np.testing.assert_allclose(cusum_process(y), expected, atol=1e-12)
    assert np.all(cusum_process(np.full(10, 2.5)) == 0)  # no variation: flat process


def test_registered_as_an_analysis() -> None:
    assert fp.get_registry().analyses["fairtree"] is FairTree


def effect_data(n: int, seed: int, kind: str = "bias") -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"g": rng.integers(0, 2, n), "age": rng.uniform(18, 70, n), "noise": rng.random(n),
                      "topic": rng.choice(list("abcde"), n),
                      "level": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"],
                                              ordered=True)})
    mean = 0.5 * X.g if kind in ("bias", "both") else 0.0
    sd = 0.5 + (0.6 * (X.age > 50) if kind in ("variance", "both") else 0.0)
    return X, rng.normal(mean, sd)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("test", ["fluctuation", "permutation"])
def test_snapping_never_leaves_a_small_child(seed: int, test: str) -> None:
    X, r = effect_data(400, seed, "both")
    tree = FairTree(test=test, min_node_size=25, n_permutations=199, random_state=seed).fit(X, residuals=r)
    s = tree.splits_
    assert len(s) >= 1 or test == "permutation"  # the max-statistic permutation test has lower power
    assert (s.n_left >= 25).all() and (s.n_right >= 25).all()
    assert (tree.leaves_.n >= 25).all()
    assert tree.leaves_.n.sum() == 400


def test_classification_of_bias_and_variance() -> None:
    X, r = effect_data(1000, 1, "bias")
    first = FairTree(random_state=0).fit(X, residuals=r).splits_.iloc[0]
    assert (first.covariate, first.classification) == ("g", "bias")
    X, r = effect_data(1000, 2, "variance")
    first = FairTree(random_state=0).fit(X, residuals=r).splits_.iloc[0]
    assert (first.covariate, first.classification) == ("age", "variance")
    assert 45 <= first.threshold <= 55
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 1000)
    tree = FairTree(test="permutation", n_permutations=499, random_state=0)
    perm = tree.fit(pd.DataFrame({"g": g}), residuals=rng.normal(0, 0.5 + 0.6 * g)).splits_.iloc[0]
    assert (perm.covariate, perm.classification) == ("g", "variance")
    perm = tree.fit(pd.DataFrame({"g": g}), residuals=rng.normal(0.6 * g, 0.5)).splits_.iloc[0]
    assert (perm.covariate, perm.classification) == ("g", "bias")


def test_inputs_and_edge_cases() -> None:
    X, r = effect_data(200, 0)
    with pytest.raises(fp.DataError, match="missing value"):
        FairTree().fit(X.assign(age=X.age.where(X.index > 3)), residuals=r)
    with pytest.raises(fp.DataError, match="Give y_true and y_pred"):
        FairTree().fit(X)
    with pytest.raises(fp.DataError, match="rows"):
        FairTree().fit(X, residuals=r[:-1])
    with pytest.raises(fp.ConfigError, match="test must be"):
        FairTree(test="anova").fit(X, residuals=r)
    const = FairTree().fit(X.assign(c=1.0), residuals=r)
    assert "constant" in const.tree_[0].tests.set_index("covariate").loc["c", "note"]
    flat = FairTree().fit(X, residuals=np.zeros(200))
    assert flat.splits_.empty and "no significant" in flat.summary()
    with pytest.raises(fp.DataError, match="1 row"):  # nothing testable: an error, not "bias +nan"
        FairTree().fit(X.iloc[:1], residuals=r[:1])
    small = FairTree(min_node_size=1).fit(X.iloc[:2], residuals=r[:2])
    assert small.leaves_.n.sum() == 2
    with pytest.raises(fp.ConfigError, match="not fitted"):
        FairTree().summary()


def test_classifier_losses() -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": rng.integers(0, 2, 800)})
    y = rng.integers(0, 2, 800)
    prob = np.clip(np.where(X.g == 1, 0.5, 0.15) + 0.7 * y * (X.g == 0), 0.01, 0.99)
    for loss in ("zero_one", "log", "absolute", lambda yt, yp: (yt - yp) ** 2):
        tree = FairTree(test="permutation", loss=loss, n_permutations=199, random_state=0).fit(X, y_true=y, y_pred=prob)
        assert tree.splits_.covariate.tolist()[:1] == ["g"], loss


def test_max_statistic_matches_brute_force() -> None:
    rng = np.random.default_rng(5)
    L = rng.exponential(size=60)
    cand = np.arange(5, 56)
    stat, best, _ = permutation_max_test(L, cand, 10, rng)
    brute = max(abs(L[:k].mean() - L[k:].mean()) for k in cand)
    assert stat == pytest.approx(brute)
    assert abs(L[:best].mean() - L[best:].mean()) == pytest.approx(brute)


def null_rate(test: str, n: int, reps: int, make) -> float:
    hits = 0
    for seed in range(reps):
        X, r = make(n, seed)
        tree = FairTree(test=test, n_permutations=199, max_depth=1, random_state=seed).fit(X, residuals=r)
        hits += not tree.splits_.empty
    return hits / reps


def binary_null(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.integers(0, 2, (n, 5)), columns=list("abcde")), rng.normal(0, 0.5, n)


def nominal_null(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"topic": rng.choice(list("abcdefgh"), n)}), rng.normal(0, 0.5, n)


def test_type_one_error_is_controlled() -> None:
    assert null_rate("fluctuation", 200, 300, binary_null) <= 0.07
    assert null_rate("fluctuation", 700, 300, nominal_null) <= 0.07  # 8 unordered levels: half split
    assert null_rate("permutation", 200, 100, binary_null) <= 0.08


def test_power_matches_the_paper() -> None:
    # Study 1.1, N = 500, delta = 0.2: the paper reports fluctuation power 0.935
    hits = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        X = pd.DataFrame(rng.integers(0, 2, (500, 5)), columns=list("abcde"))
        X["a"] = np.repeat([0, 1], 250)
        r = rng.normal(0.2 * X.a, 0.5)
        hits += not FairTree(max_depth=1, random_state=seed).fit(X, residuals=r).splits_.empty
    assert abs(hits / 300 - 0.935) <= 3 * np.sqrt(0.935 * 0.065 / 300) + 0.03


def test_plots_and_tables() -> None:
    X, r = effect_data(600, 4, "both")
    tree = FairTree(random_state=0).fit(X, residuals=r)
    ax = tree.plot_tree()
    assert len(ax.texts) >= len(tree.tree_)
    ax = tree.plot_process("g")
    assert len(ax.lines) >= 2
    with pytest.raises(fp.ConfigError, match="No fluctuation process"):
        tree.plot_process("nope")
    frame = tree.to_frame()
    assert {"node", "rule", "n", "bias", "variance", "mse"} <= set(frame.columns)
    ranking = tree.covariate_ranking()
    assert ranking.adjusted_p_value.is_monotonic_increasing
    assert " and " in " ".join(tree.leaves_.rule) or len(tree.leaves_) == 2


def test_fairtree_command(tmp_path) -> None:
    import json
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(17, 80, 1000), "sex": rng.choice(["f", "m"], 1000)})
    df["y"] = rng.normal(0, 1, 1000)
    df["yhat"] = df.y + rng.normal(0.4 * (df.age < 25), 0.5)
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    out = subprocess.run([sys.executable, "-m", "fairprobe.cli", "fairtree", "--data", str(path), "--target", "y",
                          "--prediction", "yhat", "--covariates", "age,sex", "--json", "--plot",
                          str(tmp_path / "tree.png")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["splits"][0]["covariate"] == "age" and res["splits"][0]["classification"] == "bias"
    assert (tmp_path / "tree.png").stat().st_size > 5000
    bad = subprocess.run([sys.executable, "-m", "fairprobe.cli", "fairtree", "--data", str(path), "--target", "y",
                          "--prediction", "yhat", "--covariates", "age,foo"], capture_output=True, text=True)
    assert bad.returncode == 2 and "['foo'] are not in" in bad.stderr and "Traceback" not in bad.stderr


def test_permutation_in_two_processes_agrees() -> None:
    X, r = effect_data(600, 3, "bias")
    one = FairTree(test="permutation", n_permutations=999, random_state=1).fit(X, residuals=r)
    two = FairTree(test="permutation", n_permutations=999, random_state=1, n_jobs=2).fit(X, residuals=r)
    assert one.splits_.covariate.tolist() == two.splits_.covariate.tolist()
    p1, p2 = one.tree_[0].tests.p_value, two.tree_[0].tests.p_value
    assert np.all(np.abs(p1 - p2) <= 0.05)  # independent random streams: Monte-Carlo error only
    again = FairTree(test="permutation", n_permutations=999, random_state=1).fit(X, residuals=r)
    assert again.tree_[0].tests.p_value.tolist() == p1.tolist()  # reproducible at a fixed seed

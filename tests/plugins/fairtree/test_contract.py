"""FairTree implements the analysis contract (fairprobe.plugins.base), and the issue's follow-ups.

Follow-ups: leaf rules merged into intervals and set intersections, ``null`` instead of ``NaN`` in
the command's JSON, a note on binary targets, and a ``min_node_size`` default that scales with n.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

from fairprobe.exceptions import ConfigError, DataError, NotFittedError
from fairprobe.plugins.base import Analysis, Example, Summary
from fairprobe.plugins.fairtree import FairTree
from fairprobe.plugins.fairtree.cli import fairtree_command

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def fitted() -> FairTree:
    return FairTree.example().fit()


def test_is_an_analysis() -> None:
    assert issubclass(FairTree, Analysis)
    assert FairTree.name == "fairtree" and FairTree.description
    assert FairTree.demo_order == 20 and FairTree.demo_title


def test_not_fitted_raises() -> None:
    tree = FairTree()
    for call in (tree.summary, tree.to_frame, tree.figures, tree.covariate_ranking, tree.plot_tree,
                 lambda: tree.plot_process("age"), tree.check_is_fitted):
        with pytest.raises(NotFittedError, match="not fitted"):
            call()
    with pytest.raises(NotFittedError):
        _ = tree.splits_  # plain attributes: AttributeError (NotFittedError is one) before fit
    assert not hasattr(tree, "leaves_")


def test_fit_returns_self_and_stores_results_once() -> None:
    ex = FairTree.example(seed=1)
    tree = ex.analysis
    assert tree.fit(ex.data, **ex.roles) is tree
    assert tree.splits_ is tree.splits_ and tree.leaves_ is tree.leaves_  # attributes, not rebuilt per access
    assert tree.tree_ is tree.nodes_
    assert {"splits_", "leaves_", "tree_", "nodes_", "min_node_size_", "binary_target_"} <= set(vars(tree))


def test_parameters_round_trip() -> None:
    tree = FairTree(test="permutation", alpha=0.01, min_node_size=20, random_state=np.random.default_rng(3))
    params = tree.get_params()
    assert params["alpha"] == 0.01 and params["min_node_size"] == 20
    clone = type(tree)(**params)
    assert clone.get_params() == params
    assert FairTree().set_params(**params).get_params() == params
    with pytest.raises(ConfigError, match="no parameter"):
        tree.set_params(depth=3)
    assert "alpha=0.01" in repr(tree)


def test_constructor_stores_parameters_unchecked() -> None:
    tree = FairTree(alpha=5, test="anova")  # scikit-learn's convention: validated by fit
    assert tree.alpha == 5
    with pytest.raises(ConfigError, match="test must be"):
        tree.fit(pd.DataFrame({"a": range(40)}), residuals=np.zeros(40))


@pytest.mark.parametrize("random_state", [0, None, np.random.default_rng(0)])
def test_random_state_kinds(random_state: object) -> None:
    ex = FairTree.example()
    tree = FairTree(max_depth=1, random_state=random_state).fit(ex.data, **ex.roles)
    assert len(tree.splits_) == 1


def test_summary_is_a_summary(fitted: FairTree) -> None:
    s = fitted.summary()
    assert isinstance(s, Summary) and isinstance(s, str)
    assert s.title and "<table" in s.as_html() and "<pre " in s._repr_html_()
    assert set(s.tables) == {"splits", "subgroups", "covariate ranking"}


def test_to_frame(fitted: FairTree) -> None:
    frame = fitted.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(fitted.nodes_) > 1


def test_figures_with_and_without_ax(fitted: FairTree) -> None:
    import matplotlib.pyplot as plt

    figs = fitted.figures()
    assert set(figs) == {"tree", "process education"}  # the root splits on education
    root = fitted.splits_.iloc[0]
    tree_texts = [t.get_text() for t in figs["tree"]().texts]
    assert root.left in tree_texts and root.right in tree_texts  # the drawn root rules are the fitted split's
    drawn_sizes = {int(t.split("\n")[0][4:]) for t in tree_texts if t.startswith("n = ")}
    assert set(fitted.leaves_.n) <= drawn_sizes  # every subgroup is drawn with its size
    process = figs["process education"]()
    # the drawn fluctuation process peaks at the root test's statistic
    peak = max(float(np.abs(np.asarray(line.get_ydata(), dtype=float)).max()) for line in process.lines)
    assert peak == pytest.approx(root.statistic, rel=1e-12)
    for plot in figs.values():
        _, given = plt.subplots()
        assert plot(ax=given) is given
        plt.close("all")


def test_figures_without_a_split_show_the_top_covariate() -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.random(300), "b": rng.random(300)})
    tree = FairTree(random_state=0).fit(X, residuals=rng.normal(size=300))
    assert tree.splits_.empty
    top = tree.covariate_ranking().covariate.iloc[0]
    assert set(tree.figures()) == {"tree", f"process {top}"}
    assert set(FairTree(test="permutation", n_permutations=99, random_state=0).fit(X, residuals=np.ones(300))
               .figures()) == {"tree"}


def test_to_report_writes_index_html(fitted: FairTree, tmp_path: Path) -> None:
    page = fitted.to_report(tmp_path / "report")
    assert page.name == "index.html" and page.exists()
    assert "FairTree" in page.read_text()


def test_example_is_small_and_finds_its_split() -> None:
    ex = FairTree.example(seed=2)
    assert isinstance(ex, Example)
    # small by construction (speed itself is measured in benchmarks/, not by a wall clock here)
    assert len(ex.data) < 5000 and ex.analysis.get_params()["test"] == "fluctuation"
    assert ex.analysis.get_params()["max_depth"] <= 2
    tree = ex.fit()
    assert not tree.splits_.empty


def test_roles_as_column_names() -> None:
    ex = FairTree.example()
    tree = FairTree(max_depth=1, random_state=0).fit(ex.data, y_true="log_income", y_pred="log_estimate")
    assert [c.name for c in tree.covariates_] == ["age", "education", "region", "employed", "group"]
    arrays = FairTree(max_depth=1, random_state=0).fit(ex.data.drop(columns=["log_income", "log_estimate"]),
                                                       y_true=ex.data.log_income, y_pred=ex.data.log_estimate)
    assert arrays.splits_.equals(tree.splits_)
    # the earlier positional spelling still works, with a DeprecationWarning naming the keyword one
    with pytest.warns(DeprecationWarning, match=r"FairTree\.fit\(data, y_true, y_pred\) with positional roles is "
                                                r"deprecated; pass them by keyword: fit\(data, y_true=\.\.\., "
                                                r"y_pred=\.\.\.\)"):
        old = FairTree(max_depth=1, random_state=0).fit(ex.data.drop(columns=["log_income", "log_estimate"]),
                                                        ex.data.log_income, ex.data.log_estimate)
    assert old.splits_.equals(tree.splits_)
    with pytest.raises(DataError, match=r"\['nope'\] are not in the data"):
        FairTree().fit(ex.data, y_true="nope", y_pred="log_estimate")
    with pytest.raises(DataError, match="not a DataFrame"):
        FairTree().fit(np.zeros((40, 2)), residuals="r")


def test_demo_step_detects_the_income_model_problems() -> None:
    from fairprobe.datasets import make_lending_scenario
    from fairprobe.reporting.report import Report

    facts: dict = {}
    report = Report("demo")
    found, table, lines = FairTree.demo(report, make_lending_scenario(8000, seed=0), facts, quick=True, seed=0,
                                        n_jobs=1, progress=False)
    assert found == {"biased_residuals": True, "extra_variance": True}
    assert not table.empty and lines[0].startswith("- FairTree:")
    assert any(s.startswith("age <=") and "bias" in s for s in facts["fairtree"]["splits"])


# -- the follow-ups ---------------------------------------------------------------------
def test_leaf_rules_are_merged_into_intervals() -> None:
    rng = np.random.default_rng(0)
    n = 6000
    X = pd.DataFrame({"age": rng.integers(18, 71, n), "topic": rng.choice(list("abcdef"), n)})
    mean = 0.6 * ((X.age > 30) & (X.age <= 40)) + 0.6 * X.topic.isin(["a", "b", "c"]) - 0.6 * (X.age > 55)
    tree = FairTree(random_state=0, max_depth=4).fit(X, residuals=rng.normal(mean, 0.5))
    rules = " ; ".join(tree.leaves_.rule)
    assert " < age <= " in rules
    for rule in tree.leaves_.rule:  # each covariate once per rule
        parts = rule.split(" and ")
        names = [p.split(" in ")[0] if " in " in p else next(w for w in p.split() if w in ("age", "topic"))
                 for p in parts]
        assert len(names) == len(set(names)), rule
    for nd in tree.nodes_:
        if nd.is_leaf:  # the merged rule selects exactly the leaf's rows
            assert len(_select(X, nd.subgroup)) == nd.n, nd.subgroup
    assert tree.leaves_.rule.iloc[0] in tree.summary()


def _select(X: pd.DataFrame, rule: str) -> pd.DataFrame:
    mask = np.ones(len(X), dtype=bool)
    for part in rule.split(" and "):
        if " in " in part:
            name, levels = part.split(" in ")
            mask &= X[name].isin(levels.strip("{}").split(", ")).to_numpy()
            continue
        tokens = part.split()
        if len(tokens) == 5:  # lo < name <= hi
            lo, _, name, _, hi = tokens
            mask &= ((X[name] > float(lo)) & (X[name] <= float(hi))).to_numpy()
        elif tokens[1] == "<=":
            mask &= (X[tokens[0]] <= float(tokens[2])).to_numpy()
        else:
            mask &= (X[tokens[0]] > float(tokens[2])).to_numpy()
    return X[mask]


def test_nominal_rules_intersect() -> None:
    rng = np.random.default_rng(1)
    n = 6000
    X = pd.DataFrame({"topic": rng.choice(list("abcdefgh"), n)})
    effect = X.topic.map({"a": 1.2, "b": 1.2, "c": 0.6, "d": 0.6}).fillna(0.0)
    tree = FairTree(random_state=0, max_depth=3).fit(X, residuals=rng.normal(effect, 0.5))
    assert len(tree.splits_) >= 2
    for rule in tree.leaves_.rule:
        assert rule.count("topic in") == 1, rule
    levels = [set(r.split("{")[1].rstrip("}").split(", ")) for r in tree.leaves_.rule]
    assert sorted(x for lv in levels for x in lv) == list("abcdefgh")  # the leaves partition the levels


def test_json_output_writes_null_not_nan(tmp_path: Path) -> None:
    from click.testing import CliRunner

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], 600), "y": rng.normal(size=600)})
    df["yhat"] = df.y + rng.normal(0.8 * (df.sex == "f"), 0.5)
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    result = CliRunner().invoke(fairtree_command, ["--data", str(path), "--target", "y", "--prediction", "yhat",
                                                   "--covariates", "sex", "--json"])
    assert result.exit_code == 0, result.output
    assert "NaN" not in result.output
    out = json.loads(result.output)
    assert out["splits"][0]["covariate"] == "sex" and out["splits"][0]["threshold"] is None  # nominal: no cut


def test_binary_target_note() -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": rng.integers(0, 2, 800)})
    y = rng.binomial(1, np.where(X.g == 1, 0.5, 0.1))
    tree = FairTree(random_state=0).fit(X, y_true=y, y_pred=np.full(800, y.mean()))
    assert tree.binary_target_ and "p(1 - p)" in tree.summary()
    assert "p(1 - p)" not in FairTree.example().fit().summary()


def test_min_node_size_scales_with_n() -> None:
    rng = np.random.default_rng(0)
    for n, expected in ((200, 10), (1000, 10), (5000, 50)):
        X = pd.DataFrame({"a": rng.random(n)})
        tree = FairTree(max_depth=0).fit(X, residuals=rng.normal(size=n))
        assert tree.min_node_size_ == expected and tree.min_node_size is None
    assert FairTree(min_node_size=7, max_depth=0).fit(X, residuals=np.zeros(5000)).min_node_size_ == 7
    X = pd.DataFrame({"a": np.arange(5000.0)})
    r = rng.normal(np.where(np.arange(5000) < 30, 3.0, 0.0), 0.5)  # a 30-row subgroup: below 1 % of n
    assert (FairTree(random_state=0).fit(X, residuals=r).leaves_.n >= 50).all()

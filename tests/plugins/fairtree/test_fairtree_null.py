"""FairTree on pure noise: valid inference for every covariate type, and no cascades of false splits.

Issue 13, item 5: an identifier-like nominal covariate (an ID, a timestamp read as text) used to
produce cascades of dozens of "significant" splits on pure-noise residuals. The benchmark
``benchmarks/fairtree_null.py`` measures the full acceptance (200 trees per type); these tests
run a reduced version with binomial margins.

The data and the tree draw from independent random streams (``[seed, 1]`` and ``[seed, 2]``):
with one seed for both, the tree's random halves reuse the bits that drew the residuals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from fairprobe.plugins.fairtree import FairTree
from fairprobe.testing import null_covariate

ALPHA_NOMINAL = 0.055  # size of the min-of-two fluctuation rule at alpha = 0.05 (simulated), with room


def max_hits(trees: int, level: float = 0.002) -> int:
    """Largest count of trees with a split that a valid test exceeds with probability < ``level``."""
    return int(binom.ppf(1 - level, trees, ALPHA_NOMINAL))


def null_splits(kind: str, n: int, trees: int, test: str = "fluctuation") -> np.ndarray:
    """Number of splits of each of ``trees`` full FairTrees on pure-noise residuals."""
    out = []
    for seed in range(trees):
        data = np.random.default_rng([seed, 1])
        X = pd.DataFrame({"z": null_covariate(kind, n, data)})
        tree = FairTree(test=test, n_permutations=99, random_state=np.random.default_rng([seed, 2]))
        out.append(len(tree.fit(X, residuals=data.normal(size=n)).splits_))
    return np.array(out)


# -- the reported failure: identifier-like and timestamp-as-text covariates --------------------
def identifier_frame(kind: str, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, 1])
    if kind == "id":
        return pd.DataFrame({"id": [f"u{i:05d}" for i in rng.permutation(400)]})
    if kind == "timestamp_text":
        t = pd.Timestamp("2022-03-01") + pd.to_timedelta(np.sort(rng.integers(0, 10**7, 400)), unit="s")
        return pd.DataFrame({"ts": t.astype(str)})
    return pd.DataFrame({"shop": [f"s{i:03d}" for i in rng.integers(0, 200, 3000)]})  # 200 levels, ~15 rows each


@pytest.mark.parametrize("kind", ["id", "timestamp_text", "many_levels"])
def test_no_cascade_of_false_splits(kind: str) -> None:
    """Before the fix each of these produced trees with 4-5 splits on pure noise within 100 trees."""
    splits = []
    for seed in range(100):
        X = identifier_frame(kind, seed)
        r = np.random.default_rng([seed, 3]).normal(size=len(X))
        splits.append(len(FairTree(random_state=np.random.default_rng([seed, 2])).fit(X, residuals=r).splits_))
    splits = np.array(splits)
    assert (splits > 0).sum() <= max_hits(100), np.bincount(splits)
    assert splits.max() <= 2, np.bincount(splits)


def test_identifier_column_is_not_tested() -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"customer": [f"c{i}" for i in range(300)], "g": rng.integers(0, 2, 300)})
    r = rng.normal(0.6 * X.g, 1)
    tree = FairTree(random_state=0).fit(X, residuals=r)
    tests = tree.tree_[0].tests.set_index("covariate")
    assert not tests.loc["customer", "splittable"]
    assert tests.loc["customer", "note"].startswith("identifier-like: all 300 levels have fewer than 10 rows")
    assert "not tested: 'customer'" in tree.summary()
    assert set(tree.splits_.covariate) == {"g"}


def test_rare_levels_are_pooled_into_one() -> None:
    rng = np.random.default_rng(1)
    common = rng.choice(["a", "b", "c"], 600)
    rare = np.array([f"r{i:02d}" for i in range(60)])  # 60 levels with 3 rows each
    X = pd.DataFrame({"topic": np.concatenate([common, np.repeat(rare, 3)])})
    r = rng.normal(np.where(X.topic.isin(["a", "b"]), 0.5, 0.0), 0.5)
    tree = FairTree(random_state=0).fit(X, residuals=r)
    root = tree.tree_[0].tests.iloc[0]
    assert "60 levels with fewer than 10 rows pooled into one" in root.note
    split = tree.tree_[0].split
    left = set(split["left_rule"].split("{")[1].rstrip("}").split(", "))
    pooled = {str(x) for x in rare}
    assert pooled <= left or not (pooled & left)  # the rare levels move together
    assert {"a", "b"} <= left or not ({"a", "b"} & left)  # and the effect is found
    assert split["classification"] in ("bias", "both")


def test_datetimes_are_ordered() -> None:
    rng = np.random.default_rng(2)
    when = pd.Series(pd.date_range("2023-01-01", periods=500, freq="6h"))
    X = pd.DataFrame({"when": when, "when_text": when.dt.strftime("%Y-%m-%dT%H:%M:%S"),
                      "day_first": when.dt.strftime("%d/%m/%Y")})  # ambiguous order: stays nominal
    tree = FairTree(random_state=0).fit(X, residuals=rng.normal(0.8 * (np.arange(500) >= 300), 1))
    kinds = {c.name: c.kind for c in tree.covariates_}
    assert kinds == {"when": "datetime", "when_text": "datetime", "day_first": "nominal"}
    first = tree.tree_[0].split
    assert first["covariate"] in ("when", "when_text") and first["left_rule"].startswith(f"{first['covariate']} <= ")
    assert 250 <= first["n_left"] <= 350  # an ordered cut near row 300, not a set of unrelated labels


def test_frequent_levels_are_not_pooled() -> None:
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"topic": rng.choice(list("abcdefgh"), 700)})
    r = rng.normal(0.6 * X.topic.isin(["a", "b"]), 0.5)
    tree = FairTree(random_state=0, max_depth=1).fit(X, residuals=r)
    assert "pooled" not in tree.tree_[0].tests.note.iloc[0]
    left = set(tree.tree_[0].split["left_rule"].split("{")[1].rstrip("}").split(", "))
    assert {"a", "b"} <= left or not ({"a", "b"} & left)


# -- every covariate type (the benchmark's acceptance, reduced) ------------------------------
FAST_TYPES = ["continuous", "ordinal", "binary", "nominal8", "nominal1000", "id", "datetime", "datetime_text"]


@pytest.mark.parametrize("test", ["fluctuation", "permutation"])
@pytest.mark.parametrize("kind", FAST_TYPES)
def test_pure_noise_trees_rarely_split(kind: str, test: str) -> None:
    splits = null_splits(kind, 400, 30, test)
    assert (splits > 0).sum() <= max_hits(30), np.bincount(splits)
    assert splits.max() <= 2, np.bincount(splits)


@pytest.mark.parametrize("test", ["fluctuation", "permutation"])
def test_pure_noise_many_frequent_levels(test: str) -> None:
    """1000 levels with ~10 rows each: levels are ordered and tested, and a false split does not cascade."""
    splits = null_splits("nominal1000", 10_000, 30, test)
    assert (splits > 0).sum() <= max_hits(30), np.bincount(splits)
    assert splits.max() <= 2, np.bincount(splits)

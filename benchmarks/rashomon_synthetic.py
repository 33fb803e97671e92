"""Predictive multiplicity, seed paper Section 4.3: how dataset multiplicity changes a Rashomon set.

Part 1, synthetic (the paper's Figure 2, reduced): label 0 from N((0,0), I) and N((5,5), I), label 1
from N((5,5), I) and N((10,10), I). Points from the middle components have true conflict ratio 0.5,
the others 0. Decision trees over depth x criterion x seed, epsilon = 0.1, test set of 2,000 points,
one reference score (the cross-validated best tree on the fixed sample) for every condition:
(a) no dataset multiplicity (one fixed 8,000-point sample), (b) bootstraps of 800 from the 8,000
with 200 models, (c) the same with more models, (d) a fresh 8,000-point sample per model.
Checks: (b) and (d) reach a mean conflict ratio >= 0.35 in the overlap and <= 0.05 elsewhere, and
(a) is clearly lower in the overlap than (b).

Part 2, Adult (bundled, or ``--data`` a folder of your own copies; stands in for ACSEmployment, which needs a
download): 7,000 training and 7,000 test rows, 253 trees per condition: no dataset multiplicity,
bootstraps of 2,800 and 4,200, feature subsampling (9 of 10), feature noise (N(0, 0.05) on
standardised numeric columns, categories switched with p = 0.001), and fresh 7,000-row samples
from the rest of the data. Prints standard and 0.4-ambiguity and the pairwise distances.

Part 3, speed: the 253 trees of the fixed-sample condition trained with ``n_jobs=1`` and ``n_jobs=2``.

Run: ``python benchmarks/rashomon_synthetic.py [--models 300] [--more 1000] [--data FOLDER]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from fairprobe.plugins.rashomon import RashomonSet, ambiguity_curve, conflict_ratio, rashomon_distance

GRID = {"max_depth": [*range(1, 21), None], "criterion": ["gini", "entropy", "log_loss"]}
DELTAS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.45, 0.49]


def gaussians(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and the component of each point (1, 2: the overlapping middle ones)."""
    component = rng.integers(0, 4, n)
    means = np.array([[0, 0], [5, 5], [5, 5], [10, 10]])
    return means[component] + rng.normal(size=(n, 2)), (component >= 2).astype(int), component


def _fresh(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    X, y, _ = gaussians(8000, rng)
    return X, y


def distance_table(sets: dict[str, np.ndarray]) -> pd.DataFrame:
    names = list(sets)
    return pd.DataFrame([[rashomon_distance(sets[a], sets[b]) for b in names] for a in names], index=names,
                        columns=names)


def synthetic(args: argparse.Namespace) -> bool:
    rng = np.random.default_rng(args.seed)
    X, y, _ = gaussians(8000, rng)
    Xt, yt, comp = gaussians(2000, rng)
    overlap = np.isin(comp, (1, 2))
    common = dict(param_grid=GRID, epsilon=0.1, n_jobs=args.jobs, progress=False)
    start = time.perf_counter()
    sets, rows = {}, []
    conditions = {
        "(a) no DM": dict(dataset_multiplicity="none", n_models=args.models),
        "(b) bootstrap 800, 200 models": dict(subsample=0.1, n_models=200),
        f"(c) bootstrap 800, {args.more} models": dict(subsample=0.1, n_models=args.more),
        "(d) fresh 8,000 per model": dict(dataset_multiplicity="sampler", sampler=_fresh, n_models=args.models),
    }
    reference: float | str = "cv_best"
    for k, (name, kw) in enumerate(conditions.items()):
        t0 = time.perf_counter()
        rs = RashomonSet(estimator=DecisionTreeClassifier(), reference=reference, random_state=args.seed + k,
                         **common, **kw)
        rs.fit(X, y_true=y, X_held=Xt, y_held=yt)
        reference = rs.reference_score_  # one bar for every condition
        P = rs.audit_predictions_  # the members on the held-out rows
        c = conflict_ratio(P)
        sets[name] = P
        _, amb = ambiguity_curve(P, DELTAS)
        rows.append({"condition": name, "|R|": P.shape[0], "mean c overlap": c[overlap].mean(),
                     "mean c outer": c[~overlap].mean(), **{f"A_{d:g}": a for d, a in zip(DELTAS, amb, strict=True)},
                     "dist to truth": np.mean(np.abs(c - 0.5 * overlap)), "seconds": time.perf_counter() - t0})
    table = pd.DataFrame(rows).set_index("condition")
    print(f"Synthetic overlap: reference accuracy {reference:.4f}, epsilon 0.1, overlap share {overlap.mean():.3f}")
    print(table.round(3).to_string())
    print("\npairwise Rashomon distances")
    print(distance_table(sets).round(3).to_string())
    a, b, _, d = table.index
    checks = {
        "(b) overlap >= 0.35 and outer <= 0.05": table.loc[b, "mean c overlap"] >= 0.35
        and table.loc[b, "mean c outer"] <= 0.05,
        "(d) overlap >= 0.35 and outer <= 0.05": table.loc[d, "mean c overlap"] >= 0.35
        and table.loc[d, "mean c outer"] <= 0.05,
        "(a) overlap <= (b) overlap - 0.07": table.loc[a, "mean c overlap"] <= table.loc[b, "mean c overlap"] - 0.07,
    }
    for k, v in checks.items():
        print(f"check {k}: {v}")
    print(f"synthetic part: {time.perf_counter() - start:.0f} s")
    return all(checks.values())


def adult(args: argparse.Namespace) -> None:
    from sklearn.preprocessing import StandardScaler

    from fairprobe.datasets import load_adult

    data = load_adult(args.data, split="both")
    X_all = data.X(one_hot=False)
    numeric = [j for j, c in enumerate(X_all.columns) if c not in data.categorical]
    categorical = [j for j, c in enumerate(X_all.columns) if c in data.categorical]
    Xv = X_all.to_numpy(dtype=float)
    Xv[:, numeric] = StandardScaler().fit_transform(Xv[:, numeric])
    yv = data.y
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(yv))
    test, train, pool = order[:7000], order[7000:14000], order[7000:]

    def fresh(r: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rows = r.choice(pool, 7000, replace=False)
        return Xv[rows], yv[rows]

    common = dict(param_grid=GRID, epsilon=0.1, n_models=253, n_jobs=args.jobs, progress=False)
    conditions = {
        "no DM": dict(dataset_multiplicity="none"),
        "bootstrap 2,800": dict(subsample=0.4),
        "bootstrap 4,200": dict(subsample=0.6),
        "features 9 of 10": dict(dataset_multiplicity="none", feature_subsample=0.9),
        "feature noise": dict(dataset_multiplicity="none", feature_noise=0.05, categorical_features=categorical,
                              category_flip=0.001),
        "fresh 7,000": dict(dataset_multiplicity="sampler", sampler=fresh),
    }
    start = time.perf_counter()
    reference: float | str = "cv_best"
    sets, rows = {}, []
    for k, (name, kw) in enumerate(conditions.items()):
        rs = RashomonSet(estimator=DecisionTreeClassifier(), reference=reference, random_state=args.seed + k,
                         **common, **kw)
        rs.fit(Xv[train], y_true=yv[train], X_held=Xv[test], y_held=yv[test])
        reference = rs.reference_score_
        P = rs.audit_predictions_
        c = conflict_ratio(P)
        sets[name] = P
        rows.append({"condition": name, "|R|": P.shape[0], "A_0": np.mean(c > 0), "A_0.4": np.mean(c > 0.4),
                     "mean c": c.mean()})
    print(f"\nAdult (7,000 train / 7,000 test): reference accuracy {reference:.4f}, epsilon 0.1, "
          "253 trees per condition")
    print(pd.DataFrame(rows).set_index("condition").round(3).to_string())
    print("\npairwise Rashomon distances")
    print(distance_table(sets).round(3).to_string())
    print(f"Adult part: {time.perf_counter() - start:.0f} s")

    # Part 3: parallel training speed-up on the same data.
    times = {}
    for jobs in (1, 2):
        t0 = time.perf_counter()
        RashomonSet(estimator=DecisionTreeClassifier(), reference=reference, dataset_multiplicity="none",
                    param_grid=GRID, epsilon=0.1, n_models=253, n_jobs=jobs, random_state=0, progress=False).fit(
            Xv[train], y_true=yv[train], X_held=Xv[test], y_held=yv[test])
        times[jobs] = time.perf_counter() - t0
    print(f"\n253 trees on 7,000 rows: n_jobs=1 {times[1]:.2f} s, n_jobs=2 {times[2]:.2f} s, "
          f"speed-up {times[1] / times[2]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=300, help="models in conditions (a) and (d)")
    parser.add_argument("--more", type=int, default=1000, help="models in condition (c)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=None, help="folder of adult.data/.test (default: bundled)")
    parser.add_argument("--skip-adult", action="store_true")
    args = parser.parse_args()
    ok = synthetic(args)
    if not args.skip_adult:
        adult(args)
    print(f"\nall synthetic checks passed: {ok}")


if __name__ == "__main__":
    main()

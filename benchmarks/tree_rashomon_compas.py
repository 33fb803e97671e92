"""Exact tree Rashomon set (TreeFARMS) vs ad-hoc Rashomon sets on COMPAS-binary (seed paper Sec. 4.4, App. B).

Setting: bundled ``compas-binary`` (6,907 rows x 12 binary features), objective ``loss + 0.01 x leaves``,
additive bound epsilon = 0.05 on the training objective, random 60/40 splits. Per split it prints the
number of trees of the exact set, its A_0 and A_0.1 on the test rows, and the same for ad-hoc
``RashomonSet`` sets of 50/100/200/500 sklearn trees (bootstraps of 0.5 x |train|, depth x criterion
grid, members within 0.05 test accuracy of the exact set's best-objective tree), with the distance
between the exact and each ad-hoc set. Paper: > 2 M trees, A_0 = 0.5204; ad-hoc 500 trees A_0 = 0.4354.

Speed: the exact conflict ratios from the AND/OR graph, the same by streaming every tree's
predictions in chunks (bitsets over distinct rows), and TreeFARMS' own per-tree ``predict`` on a
sample of trees scaled to the whole set. Peak memory from ``resource.getrusage``.

Run: ``python benchmarks/tree_rashomon_compas.py [--splits 5] [--depth-budget 6] [--sample 30] [--sampled
500,5000,50000]``. ``--sampled`` also prints A_0 over random samples of the exact set's trees: A_0
only grows with the trees evaluated, so a set evaluated on a sample of its trees reports less.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from fairprobe.datasets import load_compas_binary
from fairprobe.plugins.rashomon import RashomonSet, TreeRashomonSet, delta_ambiguity

PAPER = {"trees": "> 2,000,000", "A_0": 0.5204, "A_0 ad-hoc 500": 0.4354}
GRID = {"max_depth": [1, 2, 3, 4, 5, 6, 8], "criterion": ["gini", "entropy"]}


def penalised_adhoc(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, obj0: float, n: int, seed: int,
                    lam: float = 0.01, eps: float = 0.05) -> tuple[np.ndarray, int]:
    """The paper's ad-hoc set: trees of random depth, criterion and seed on bootstraps of half the training rows,
    kept when their penalised training objective ``acc - lam * leaves`` is within ``eps`` of g0's (App. B).

    Returns the members' predictions on ``Xte`` and the number of trees tried.
    """
    rng = np.random.default_rng(100 + seed)
    preds, tried = [], 0
    while len(preds) < n and tried < 50 * n:
        tried += 1
        idx = rng.choice(len(Xtr), len(Xtr) // 2, replace=True)
        model = DecisionTreeClassifier(max_depth=int(rng.choice(GRID["max_depth"])),
                                       criterion=str(rng.choice(GRID["criterion"])),
                                       random_state=int(rng.integers(2**31 - 1))).fit(Xtr[idx], ytr[idx])
        if (model.predict(Xtr) == ytr).mean() - lam * model.get_n_leaves() >= obj0 - eps:
            preds.append(model.predict(Xte))
    return np.array(preds), tried


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--depth-budget", type=int, default=6)
    ap.add_argument("--sample", type=int, default=30, help="trees timed with TreeFARMS' per-tree predict")
    ap.add_argument("--sizes", default="50,100,200,500")
    ap.add_argument("--sampled", default="500,5000,50000",
                    help="A_0 over this many random trees of the exact set (3 draws each): A_0 grows with the trees "
                         "evaluated, which is why a set evaluated on a sample reports less")
    args = ap.parse_args()
    d = load_compas_binary()
    X, y = d.frame[d.features].astype(int), d.frame[d.target].to_numpy()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"compas-binary {X.shape[0]:,} x {X.shape[1]}; lambda 0.01, epsilon 0.05 (additive), depth budget "
          f"{args.depth_budget}; paper: {PAPER}")
    for split in range(args.splits):
        rng = np.random.default_rng(split)
        perm = rng.permutation(len(X))
        tr, te = perm[:int(0.6 * len(X))], perm[int(0.6 * len(X)):]
        Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y[tr], y[te]
        trs = TreeRashomonSet(regularization=0.01, depth_budget=args.depth_budget, rashomon_bound_adder=0.05)
        t0 = time.perf_counter()
        trs.fit(Xtr, y_true=ytr, X_eval=Xte)
        wall = time.perf_counter() - t0
        print(f"\nsplit {split}: train {len(tr):,} / test {len(te):,}; exact set {trs.n_trees_:,} trees "
              f"({trs.n_graph_nodes_:,} graph nodes), best objective {trs.reference_objective_:.4f}; "
              f"A_0 = {trs.delta_ambiguity(0):.4f}, A_0.1 = {trs.delta_ambiguity(0.1):.4f}, "
              f"mean c = {trs.conflict_ratio_.mean():.4f}")
        print(f"  time: enumeration {trs.fit_seconds_:.2f} s, exact conflict ratios from the graph "
              f"{trs.eval_seconds_:.3f} s (fit wall {wall:.2f} s); peak RSS {peak_gib():.2f} GiB")
        for k in (int(v) for v in args.sampled.split(",") if v.strip()):
            if k >= trs.n_trees_:
                continue
            draws = []
            for rep in range(3):
                idx = np.sort(np.random.default_rng(rep).choice(trs.n_trees_, k, replace=False)).tolist()
                P = np.vstack([c for _, c in trs.iter_predictions(trees=idx, chunk_size=100_000)])
                draws.append(delta_ambiguity(P, 0))
            print(f"  A_0 over {k:>6,} random trees of the set: {np.mean(draws):.4f} (sd {np.std(draws):.4f})")
        # g0 on the test rows: the accuracy bar of the ad-hoc sets
        g0 = next(trs.iter_predictions(trees=[trs.reference_index_]))[1][0]
        acc0 = float((g0 == yte).mean())
        for k in sizes:
            rs = RashomonSet(estimator=DecisionTreeClassifier(), param_grid=GRID, epsilon=0.05, n_models=k,
                             subsample=0.5, reference=acc0, random_state=split, progress=False, n_jobs=1)
            t1 = time.perf_counter()
            rs.fit(Xtr.to_numpy(), y_true=ytr, X_held=Xte.to_numpy(), y_held=yte)
            P = rs.audit_predictions_
            print(f"  ad-hoc {k:>3} candidates -> {P.shape[0]:>3} members: A_0 = {delta_ambiguity(P, 0):.4f}, "
                  f"A_0.1 = {delta_ambiguity(P, 0.1):.4f}, distance to exact {trs.rashomon_distance(P):.4f} "
                  f"({time.perf_counter() - t1:.1f} s)")
        # the paper's own membership rule for ad-hoc sets: the penalised objective, as for the exact set
        P_pen, tried = penalised_adhoc(Xtr.to_numpy(), ytr, Xte.to_numpy(), 1 - trs.reference_objective_, max(sizes),
                                       split)
        print(f"  ad-hoc {max(sizes)} by the paper's rule (acc - 0.01 leaves within 0.05 of g0, {tried} tried): "
              f"A_0 = {delta_ambiguity(P_pen, 0):.4f}, A_0.1 = {delta_ambiguity(P_pen, 0.1):.4f}")
        if split == 0:
            t1 = time.perf_counter()
            ones = trs.streamed_ones(n_jobs=1, chunk_size=200_000)
            stream = time.perf_counter() - t1
            assert np.array_equal(ones, trs.ones_), "streamed counts differ from the graph's"
            t1 = time.perf_counter()
            assert np.array_equal(trs.streamed_ones(n_jobs=2, chunk_size=200_000), trs.ones_)
            print(f"  streaming every tree on 2 joblib workers: {time.perf_counter() - t1:.1f} s "
                  f"(one process: {stream:.1f} s; counts identical to the graph's)")
            sample = np.random.default_rng(0).choice(trs.n_trees_, args.sample, replace=False)
            t1 = time.perf_counter()
            for i in sample:
                ref = np.asarray(trs.model_[int(i)].predict(Xte)).astype(int)
            per_tree = (time.perf_counter() - t1) / args.sample
            scaled = per_tree * trs.n_trees_
            print(f"  speed over {trs.n_trees_:,} trees x {len(te):,} rows: graph {trs.eval_seconds_:.3f} s; "
                  f"streaming every tree in chunks {stream:.1f} s (counts identical); TreeFARMS predict "
                  f"{per_tree * 1000:.0f} ms/tree on {args.sample} trees -> {scaled / 3600:.1f} h for the set "
                  f"({scaled / stream:,.0f}x the streaming, {scaled / max(trs.eval_seconds_, 1e-9):,.0f}x the graph); "
                  f"peak RSS {peak_gib():.2f} GiB")
            del ref


if __name__ == "__main__":
    main()

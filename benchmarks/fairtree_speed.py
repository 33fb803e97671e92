"""FairTree speed: fluctuation and permutation tests against the paper's timings and a naive loop.

* fluctuation root-node test on 9,000 rows x 4 covariates (paper: 21.6 ms), median of 20 runs;
* permutation root-node test with 5000 permutations on the same data (paper: 26.4 s), in one
  process and with ``n_jobs=2``;
* in-process baseline: the permutation test as a Python loop over permutations (the obvious
  implementation), timed on 200 permutations and scaled to 5000 -> ratio baseline / vectorised;
* fluctuation test (full tree) on 10^6 rows x 10 covariates.

Run: ``python benchmarks/fairtree_speed.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pandas as pd

from fairprobe.plugins.fairtree import FairTree

PAPER_FLUCT_MS, PAPER_PERM_S = 21.6, 26.4


def data(n: int, m: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(m):
        kind = j % 4
        if kind == 0:
            cols[f"x{j}"] = rng.uniform(17, 90, n).round()  # age-like, many ties
        elif kind == 1:
            cols[f"x{j}"] = rng.integers(0, 2, n)
        elif kind == 2:
            cols[f"x{j}"] = rng.choice([f"c{k}" for k in range(6)], n)
        else:
            cols[f"x{j}"] = rng.uniform(0, 99, n)
    X = pd.DataFrame(cols)
    r = rng.normal(0.2 * (X["x0"] < 25), 0.5 + 0.2 * (X.get("x3", 0) > 55))
    return X, r


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def naive_permutation(L: np.ndarray, key: np.ndarray, n_perm: int, rng: np.random.Generator) -> float:
    order = np.argsort(key, kind="stable")
    Ls, ks = L[order], key[order]
    cuts = np.nonzero(np.diff(ks))[0] + 1
    cuts = cuts[(cuts >= 10) & (cuts <= L.size - 10)]

    def stat(x: np.ndarray) -> float:
        return max(abs(x[:c].mean() - x[c:].mean()) for c in cuts)

    obs = stat(Ls)
    return (1 + sum(stat(rng.permutation(Ls)) >= obs for _ in range(n_perm))) / (n_perm + 1)


def main() -> None:
    X, r = data(9000, 4)
    fluct_root = FairTree(max_depth=1, random_state=0)
    t_fluct = timed(lambda: fluct_root.fit(X, residuals=r), 20)
    t_perm = timed(lambda: FairTree(test="permutation", max_depth=1, n_permutations=5000,
                                    random_state=0).fit(X, residuals=r), 3)
    t_perm2 = timed(lambda: FairTree(test="permutation", max_depth=1, n_permutations=5000, n_jobs=2,
                                     random_state=0).fit(X, residuals=r), 3)
    rng = np.random.default_rng(0)
    L = r**2
    t0 = time.perf_counter()
    for col in ["x0", "x1", "x3"]:
        naive_permutation(L, X[col].to_numpy(dtype=float), 200, rng)
    t_naive = (time.perf_counter() - t0) * 5000 / 200 * 4 / 3
    print("9,000 rows x 4 covariates (one continuous with ties, binary, 6-level nominal, continuous):")
    print(f"  fluctuation, root split (median of 20): {1000 * t_fluct:8.2f} ms   paper {PAPER_FLUCT_MS} ms "
          f"-> x{PAPER_FLUCT_MS / (1000 * t_fluct):.1f} faster")
    print(f"  permutation, 5000 permutations:         {t_perm:8.2f} s    paper {PAPER_PERM_S} s "
          f"-> x{PAPER_PERM_S / t_perm:.1f} faster")
    print(f"  permutation, 5000 permutations, n_jobs=2: {t_perm2:6.2f} s    paper {PAPER_PERM_S} s "
          f"-> x{PAPER_PERM_S / t_perm2:.1f} faster")
    print(f"  naive Python-loop permutation (scaled):  {t_naive:8.2f} s    -> vectorised is x{t_naive / t_perm:.1f} "
          "faster in this process")
    Xb, rb = data(1_000_000, 10, seed=1)
    t_big = timed(lambda: FairTree(random_state=0, min_node_size=10).fit(Xb, residuals=rb), 1)
    tree = FairTree(random_state=0, min_node_size=10).fit(Xb, residuals=rb)
    print(f"10^6 rows x 10 covariates, full fluctuation tree: {t_big:.2f} s ({len(tree.splits_)} splits)")


if __name__ == "__main__":
    main()

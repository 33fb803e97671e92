"""FairTree on pure noise: how often does a tree split, and how far does a false split cascade?

For every covariate type, ``N`` independent data sets of pure-noise residuals (``R ~ N(0, 1)``,
independent of the covariate) are audited with a full FairTree (no depth limit, alpha = 0.05).
A valid audit splits at most ``alpha`` of the time at the root and does not cascade after a
false split. Acceptance (issue 13, item 5): per type, the rate of trees with any split is
<= 0.07 and no tree has more than 2 splits.

Covariate types (one covariate per tree; ``all`` puts every type into one tree):

* ``continuous`` N(0, 1); ``ordinal`` an ordered categorical with 5 levels; ``binary`` 0/1;
* ``nominal8`` 8 unordered text levels; ``nominal1000`` 1000 unordered levels with
  ``--rows-per-level`` rows each on average (``--rows-per-level x 1000`` rows, so levels are
  frequent enough to be ordered and really tested); ``nominal1000_sparse`` 1000 levels drawn for
  ``--n`` rows (most levels seen once or twice);
* ``id`` one distinct text value per row (an identifier); ``datetime`` a datetime64 column;
  ``datetime_text`` the same timestamps as ISO text (as read from a CSV);
* ``all`` every type above (except the 20 000-row ``nominal1000``) as columns of one tree.

Run: ``python benchmarks/fairtree_null.py [--trees 200] [--n 1000] [--perms 199]
[--test fluctuation|permutation|both] [--jobs 2]``. Prints one line per test and type and the
runtime; exits 1 when a type fails the acceptance bounds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # 2 processes on 2 cores; threaded BLAS oversubscribes

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from fairprobe.plugins.fairtree import FairTree
from fairprobe.testing import null_covariate

TYPES = ["continuous", "ordinal", "binary", "nominal8", "nominal1000", "nominal1000_sparse", "id", "datetime",
         "datetime_text", "all"]
MAX_RATE, MAX_SPLITS = 0.07, 2


def dataset(kind: str, n: int, rows_per_level: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Covariates and pure-noise residuals of one tree."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))  # the tree draws from [seed, 2]
    if kind == "nominal1000":
        n = 1000 * rows_per_level
    if kind == "all":
        X = pd.DataFrame({k: null_covariate(k, n, rng) for k in TYPES if k not in ("all", "nominal1000")})
    else:
        X = pd.DataFrame({kind: null_covariate(kind, n, rng)})
    return X, rng.normal(size=len(X))


def run_chunk(test: str, kind: str, n: int, rows_per_level: int, perms: int, seeds: list[int]) -> list[int]:
    """Number of splits of each pure-noise tree."""
    out = []
    for seed in seeds:
        X, r = dataset(kind, n, rows_per_level, seed)
        # an independent stream for the tree: with the data's own seed, the tree's random halves would
        # reuse the bits that drew the residuals, and the test would no longer be independent of them
        tree = FairTree(test=test, n_permutations=perms,
                        random_state=np.random.default_rng(np.random.SeedSequence([seed, 2]))).fit(X, residuals=r)
        out.append(len(tree.splits_))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trees", type=int, default=200, help="pure-noise trees per covariate type")
    ap.add_argument("--n", type=int, default=1000, help="rows per tree (nominal1000: see --rows-per-level)")
    ap.add_argument("--rows-per-level", type=int, default=20, help="average rows per level of nominal1000")
    ap.add_argument("--perms", type=int, default=199, help="permutations of the permutation test")
    ap.add_argument("--test", choices=["fluctuation", "permutation", "both"], default="both")
    ap.add_argument("--types", default=",".join(TYPES), help="comma-separated covariate types")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    tests = ["fluctuation", "permutation"] if args.test == "both" else [args.test]
    kinds = [k.strip() for k in args.types.split(",") if k.strip()]
    seeds = [args.seed * 1_000_003 + i for i in range(args.trees)]
    chunks = [seeds[i::max(4 * args.jobs, 1)] for i in range(max(4 * args.jobs, 1))]
    print(f"FairTree on pure noise: {args.trees} trees per type, n={args.n}, alpha=0.05, "
          f"permutations={args.perms}, jobs={args.jobs}; pass: rate of trees with a split <= {MAX_RATE} "
          f"and at most {MAX_SPLITS} splits in any tree")
    print(f"{'test':<12} {'type':<19} {'rows':>6} {'rate':>6} {'max':>4}  {'trees by number of splits':<28} "
          f"{'time':>7}  ok")
    start, failed = time.perf_counter(), []
    with Parallel(n_jobs=args.jobs) as pool:
        for test in tests:
            for kind in kinds:
                t0 = time.perf_counter()
                parts = pool(delayed(run_chunk)(test, kind, args.n, args.rows_per_level, args.perms, c)
                             for c in chunks if c)
                splits = np.array([s for part in parts for s in part])
                rate, worst = float((splits > 0).mean()), int(splits.max())
                ok = rate <= MAX_RATE and worst <= MAX_SPLITS
                failed += [] if ok else [(test, kind)]
                hist = " ".join(f"{k}:{v}" for k, v in enumerate(np.bincount(splits)) if v)
                rows = 1000 * args.rows_per_level if kind == "nominal1000" else args.n
                print(f"{test:<12} {kind:<19} {rows:>6} {rate:>6.3f} {worst:>4}  {hist:<28} "
                      f"{time.perf_counter() - t0:>6.1f}s  {'yes' if ok else 'NO'}", flush=True)
    print(f"total {time.perf_counter() - start:.1f}s; {'all types pass' if not failed else f'FAILED: {failed}'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

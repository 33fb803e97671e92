"""Risk-score audit speed: DRMSCE at n = 10,000 and a full audit at the paper's depression-study scale.

* DRMSCE on 10,000 scores: median of 50 runs (target: under 10 ms), beside the plug-in ECE
  computed in the same process (baseline);
* a full audit: 160,000 rows, 8 sensitive attributes (2-6 levels), up to 3-way intersections,
  min group size 2,000, ``--bootstrap`` resamples (200 in the paper), 4 metrics, ``n_jobs=2``;
  prints the number of groups and the wall time.

Run: ``python benchmarks/riskscore_speed.py [--bootstrap 200] [--rows 160000]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

from fairprobe.plugins.riskscore import RiskScoreAudit, drmsce, ece


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--rows", type=int, default=160_000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    r = rng.random(10_000)
    y = (rng.random(10_000) < r).astype(int)
    times, base = [], []
    for _ in range(50):
        t0 = time.perf_counter()
        drmsce(y, r)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ece(y, r)
        base.append(time.perf_counter() - t0)
    t_d, t_e = statistics.median(times), statistics.median(base)
    print(f"DRMSCE, n = 10,000: {1000 * t_d:.2f} ms (median of 50); plug-in ECE-15 {1000 * t_e:.2f} ms "
          f"-> ratio {t_d / t_e:.1f}")
    n = args.rows
    levels = [2, 2, 3, 3, 4, 2, 3, 5]  # about 900 groups of >= 2,000 rows, like the paper's MDD study
    frame = pd.DataFrame({f"a{j}": rng.integers(0, k, n) for j, k in enumerate(levels)})
    risk = rng.beta(2, 5, n)
    outcome = (rng.random(n) < np.clip(risk * (1 + 0.2 * frame.a0), 0, 1)).astype(int)
    audit = RiskScoreAudit(max_intersections=3, min_group_size=2000, n_bootstrap=args.bootstrap, random_state=0,
                           n_jobs=args.jobs)
    t0 = time.perf_counter()
    audit.fit(frame, y_true=outcome, y_score=risk, sensitive_features=list(frame.columns))
    elapsed = time.perf_counter() - t0
    print(f"audit: {n} rows, {len(levels)} attributes, {len(audit.groups_)} groups kept, "
          f"{len(audit.dropped_groups_)} dropped, {args.bootstrap} bootstraps, 4 metrics: {elapsed:.1f} s "
          f"with {args.jobs} jobs")


if __name__ == "__main__":
    main()

"""How often does the risk-score audit flag a group that does not differ? A calibrated null study.

Each replicate draws ``n`` units with scores calibrated by construction (``R ~ U(0, 1)``,
``Y ~ Bernoulli(R)``) and assigns them at random to 7 groups, so no group differs from the others
in anything. The audit (all five metrics, ``n_bootstrap`` resamples, ``n_permutations``
relabellings) then flags:

* DRMSCE, AUROC, AUPRG: a paired 95 % bootstrap interval of ``metric(group) - metric(all)``
  that excludes 0 (per group, not adjusted for the number of groups);
* ECE and EUR: the two-sided permutation test against random groups of the same size, adjusted for the
  groups tested (Westfall-Young min-p);
* baseline, in the same process: EUR's former rule, a bootstrap interval of ``EUR(group) -
  EUR(all)`` excluding 0 (EUR(all) is 1 and EUR is capped at 1, so this flags almost every group).

Printed per metric: the per-group flag rate with its Monte-Carlo standard error (binomial over
replicates x groups) and the share of replicates in which any group is flagged. The target is a
per-group rate at most alpha + 2 MC standard errors. CPU (``time.process_time``, measured in the
worker) and wall time per replicate are medians over the seeded replicates; the audit without the
permutation-tested metrics (ECE, EUR; same data, same process) is the timing baseline.

Usage: ``python benchmarks/riskscore_null.py [--replicates 200] [--n 20000] [--jobs 2] [--first-seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from fairprobe.plugins.riskscore import RiskScoreAudit

METRICS = ("drmsce", "ece", "auroc", "auprg", "eur")
GROUPS = list("abcdefg")


def replicate(seed: int, n: int, n_bootstrap: int, n_permutations: int) -> dict[str, object]:
    """One null data set: flags per metric and group, and the audit's CPU and wall time."""
    rng = np.random.default_rng(seed)
    r = rng.random(n)
    frame = pd.DataFrame({"g": rng.choice(GROUPS, n), "y": (rng.random(n) < r).astype(int), "r": r})
    kwargs = {"n_bootstrap": n_bootstrap, "random_state": seed, "progress": False, "max_intersections": 1}
    roles = {"y_true": "y", "y_score": "r", "sensitive_features": ["g"]}
    wall, cpu = time.perf_counter(), time.process_time()
    audit = RiskScoreAudit(n_permutations=n_permutations, metrics=METRICS, **kwargs).fit(frame, **roles)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    base_wall, base_cpu = time.perf_counter(), time.process_time()
    RiskScoreAudit(metrics=("drmsce", "auroc", "auprg"), **kwargs).fit(frame, **roles)
    base_wall, base_cpu = time.perf_counter() - base_wall, time.process_time() - base_cpu
    diff = audit.differences_
    flags = {m: diff[diff.metric == m].flagged.to_numpy(dtype=bool) for m in METRICS}
    # the former EUR rule: percentile interval of EUR(group) - EUR(all) over the same resamples
    old = []
    for g in audit.groups_:
        if g == "all":
            continue
        paired = audit.bootstrap_[g]["eur"] - audit.bootstrap_["all"]["eur"]
        paired = paired[np.isfinite(paired)]
        lo, hi = np.percentile(paired, [2.5, 97.5])
        old.append(bool(lo > 0 or hi < 0))
    flags["eur: group - all (former rule)"] = np.array(old)
    return {"flags": flags, "wall": wall, "cpu": cpu, "base_wall": base_wall, "base_cpu": base_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--first-seed", type=int, default=0, help="Seed of the first replicate.")
    args = parser.parse_args()
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    runs = Parallel(n_jobs=args.jobs)(delayed(replicate)(seed, args.n, args.bootstrap, args.permutations)
                                      for seed in range(args.first_seed, args.first_seed + args.replicates))
    total_wall = time.perf_counter() - start_wall
    print(f"calibrated null: n = {args.n:,}, {len(GROUPS)} random groups, {args.replicates} replicates "
          f"(seeds {args.first_seed}-{args.first_seed + args.replicates - 1}), "
          f"{args.bootstrap} resamples, {args.permutations} permutations, alpha = {args.alpha}")
    print(f"{'metric':34s} {'per-group flag rate':>20s} {'MC s.e.':>8s} {'target <=':>10s} "
          f"{'any group flagged':>18s}")
    for name in runs[0]["flags"]:
        per_rep = [run["flags"][name] for run in runs]
        flat = np.concatenate(per_rep)
        rate = float(flat.mean())
        se = float(np.sqrt(max(rate * (1 - rate), 1e-12) / flat.size))
        target = args.alpha + 2 * np.sqrt(args.alpha * (1 - args.alpha) / flat.size)
        anyflag = float(np.mean([f.any() for f in per_rep]))
        verdict = "ok" if rate <= target else "ABOVE"
        print(f"{name:34s} {rate:20.4f} {se:8.4f} {target:10.4f} {anyflag:18.3f}  {verdict}")
    med = {k: float(np.median([run[k] for run in runs])) for k in ("wall", "cpu", "base_wall", "base_cpu")}
    print(f"per replicate (median over {args.replicates} seeds, measured in the worker): full audit "
          f"{med['cpu']:.2f} s CPU / {med['wall']:.2f} s wall; baseline without ECE and EUR "
          f"{med['base_cpu']:.2f} s CPU / {med['base_wall']:.2f} s wall")
    print(f"whole study: {total_wall:.1f} s wall on {args.jobs} workers "
          f"(parent CPU {time.process_time() - start_cpu:.1f} s)")


if __name__ == "__main__":
    main()

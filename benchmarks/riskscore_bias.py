"""Risk-score paper, Figure 2: small-sample bias of calibration-error estimators.

R ~ U(0, 1) and Y ~ Bernoulli(rho(R)) with rho = R (calibrated) or rho = R^2 (miscalibrated;
true RMSCE sqrt(1/30) = 0.1826, true ECE 1/6). For n = 100 ... 10,000 and 100 repetitions the
script prints the mean of each estimator: DRMSCE, ECE and ACE with 15 bins (the paper's
conventions), and the bin-count-search (monotonic sweep) variants, then the *spurious gap*
mean(n = 100) - mean(n = 10,000) per estimator. An unbiased estimator has no gap; DRMSCE's must
be <= 0.015 in both scenarios and smaller than every other estimator's.

Run: ``python benchmarks/riskscore_bias.py [--reps 100]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from fairprobe.plugins.riskscore import drmsce, ece

ESTIMATORS = {
    "DRMSCE": lambda y, r: drmsce(y, r),
    "ECE-15": lambda y, r: ece(y, r, n_bins=15, binning="width", convention="paper"),
    "ACE-15": lambda y, r: ece(y, r, n_bins=15, binning="mass", convention="paper"),
    "ECE-sweep": lambda y, r: ece(y, r, binning="sweep"),
    "ACE-sweep": lambda y, r: ece(y, r, binning="mass_sweep"),
}
SIZES = [100, 200, 500, 1000, 2000, 5000, 10_000]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = []
    for scenario, power in (("rho = R", 1.0), ("rho = R^2", 2.0)):
        for n in SIZES:
            values = {k: [] for k in ESTIMATORS}
            for seed in range(args.reps):
                rng = np.random.default_rng(seed)
                r = rng.random(n)
                y = (rng.random(n) < r**power).astype(int)
                for name, fn in ESTIMATORS.items():
                    values[name].append(fn(y, r))
            rows += [{"scenario": scenario, "n": n, "estimator": k, "mean": float(np.nanmean(v)),
                      "se": float(np.nanstd(v, ddof=1) / np.sqrt(np.sum(np.isfinite(v))))}
                     for k, v in values.items()]
    frame = pd.DataFrame(rows)
    ok = True
    for scenario, sub in frame.groupby("scenario", sort=False):
        table = sub.pivot(index="n", columns="estimator", values="mean")[list(ESTIMATORS)]
        print(f"\n{scenario}: mean estimate over {args.reps} repetitions")
        print(table.round(4).to_string())
        gap = table.loc[SIZES[0]] - table.loc[SIZES[-1]]
        se = sub.pivot(index="n", columns="estimator", values="se")[list(ESTIMATORS)]
        gap_se = np.sqrt(se.loc[SIZES[0]] ** 2 + se.loc[SIZES[-1]] ** 2)
        print("spurious gap mean(n=100) - mean(n=10,000) (+- standard error): "
              + ", ".join(f"{k} {v:+.4f} (+-{gap_se[k]:.4f})" for k, v in gap.items()))
        others = gap.drop("DRMSCE").abs()
        passed = abs(gap["DRMSCE"]) <= 0.015 and (abs(gap["DRMSCE"]) < others).all()
        ok &= passed
        print(f"DRMSCE gap <= 0.015 and smallest: {passed}")
    print(f"\nall checks passed: {ok}; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()

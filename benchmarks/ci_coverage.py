"""Coverage of the sampling intervals of causal bounds: populations with known truth, sampled many times.

Each cell fixes a population (the observed distribution of A, Y, P), a bias and its D, and a
sample size n. The identified set of the population is ``[L, U]`` (the certified bounds of the
population's own table), and the truth is taken at its **upper end** ``U``: the data-generating
world is the model that attains the upper bound, the hardest case for a confidence interval
(its observable table is the population's, so samples are drawn from that table). Every
replicate draws ``n`` units (multinomial), computes ``fp.bound(..., ci=0.95, ci_method=m)`` and
records whether the interval covers ``U``, its width and its cost.

Cells: two groups, and six groups of which one holds about 10 units at n = 300 (a share of
1/30); proxy labels and selection at D = 0.02; n in {300, 3,000, 30,000}. Printed per cell and
method: coverage with its Wilson 95 % Monte-Carlo interval, the median width beside the
population's width ``U - L`` (the interval should shrink towards it like 1/sqrt(n)), replicates
whose interval was undefined (a sampled table without units in a group; counted as not covered),
and the median CPU (``time.process_time``, measured in the worker) and wall time per replicate.
The baseline in the same process is the population bound alone (one certified bound per cell).

**Warp-speed Monte Carlo** (``--warp``, Giacomini, Politis & White 2013, Econometric Theory 29):
a double loop (replicates x resamples) costs ``R x B`` bounds per cell, about 5 CPU-hours for the
grid at 500 x 1,000. With ``--warp`` each replicate draws *one* resample (or posterior draw) beside
its sample; the roots ``theta* - theta_hat`` of all replicates of a cell are pooled into the
bootstrap distribution, whose standard deviations (bootstrap) or quantiles (bayes) then give every
replicate's interval with fairprobe's own Imbens-Manski/Stoye critical value
(:func:`fairprobe.core.uncertainty.critical_value`). It estimates the coverage of the same interval
when the bootstrap distribution varies little between samples of one cell; the double loop on a
subset of cells (without ``--warp``) checks that reading. Projection needs no resamples and always
runs as itself.

Usage::

    python benchmarks/ci_coverage.py [--replicates 500] [--methods projection,bootstrap]
        [--resamples 200] [--n 300,3000,30000] [--jobs 2] [--cells two,six] [--biases proxy_label,selection]
        [--warp]
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

import fairprobe as fp
from fairprobe.core.uncertainty import IntervalOptions, critical_value, resampled_probabilities

D_VALUE = 0.02


def population(kind: str) -> pd.DataFrame:
    """The observed distribution of (A, Y, P): two groups, or six with one of share 1/30."""
    if kind == "two":
        n = np.array([400, 100, 100, 400, 300, 200, 100, 400], dtype=float)
        return pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                             "prob": n / n.sum()})
    shares = np.array([0.3, 0.25, 0.2, 0.15, 0.1 - 1 / 30, 1 / 30])  # group 5: 10 of 300 units
    rows = []
    for a, share in enumerate(shares):
        base = 0.25 + 0.05 * a  # base rate and error rates differ by group
        fpr, tpr = 0.15 + 0.03 * a, 0.6 + 0.03 * a
        for y, p in itertools.product((0, 1), (0, 1)):
            py = base if y else 1 - base
            pp = (tpr if p else 1 - tpr) if y else (fpr if p else 1 - fpr)
            rows.append({"A": a, "Y": y, "P": p, "prob": share * py * pp})
    return pd.DataFrame(rows)


def metric_for(kind: str) -> object:
    """FPR parity of the first two groups, or of the small group against the largest."""
    return fp.metric("fpr_parity", groups=(0, 1) if kind == "two" else (5, 0))


def replicate(kind: str, bias: str, n: int, method: str, resamples: int, truth: float, seed: int) -> dict:
    """One sample of n units: does the interval cover the truth, how wide is it, what did it cost."""
    table = sample_table(kind, n, seed)
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fp.bound(bias, metric_for(kind), table, D=D_VALUE, ci=0.95,
                           ci_method=method, resamples=resamples, seed=seed, progress=False, n_jobs=1)
        lo, hi = res.interval.lower, res.interval.upper
        out = {"covered": bool(lo - 1e-9 <= truth <= hi + 1e-9), "width": hi - lo, "failed": False}
    except fp.FairprobeError:
        out = {"covered": False, "width": math.nan, "failed": True}
    return {**out, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}


def sample_table(kind: str, n: int, seed: int) -> fp.ObservedTable:
    """The counts of one sample of n units from the population (a multinomial draw at ``seed``)."""
    rng = np.random.default_rng(seed)
    pop = population(kind)
    counts = pop.assign(n=rng.multinomial(n, pop.prob.to_numpy())).drop(columns="prob")
    return fp.ObservedTable.from_counts(counts)


def _ends(bias: str, kind: str, table: fp.ObservedTable) -> tuple[float, float]:
    """The certified bound on a table, or NaNs where the metric is undefined on it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fp.bound(bias, metric_for(kind), table, D=D_VALUE, progress=False)
    except fp.FairprobeError:
        return math.nan, math.nan
    return res.lower, res.upper


def warp_replicate(kind: str, bias: str, n: int, method: str, seed: int) -> dict:
    """One sample and one resample of it (warp-speed): the sample's bound and the resample's."""
    wall, cpu = time.perf_counter(), time.process_time()
    table = sample_table(kind, n, seed)
    lo, hi = _ends(bias, kind, table)
    star = (math.nan, math.nan)
    if math.isfinite(lo):
        # the library's own resampling (the first of its draws at this seed)
        draw = resampled_probabilities(table, IntervalOptions(method=method, resamples=20, seed=seed))[0]
        star = _ends(bias, kind, table.with_probabilities(draw))
    return {"lo": lo, "hi": hi, "star_lo": star[0], "star_hi": star[1],
            "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}


def warp_intervals(runs: list[dict], method: str, n: int, level: float = 0.95) -> list[tuple[float, float]]:
    """Every replicate's interval from the pooled roots (NaNs where its own bound is undefined)."""
    from scipy.stats import norm

    roots = np.array([(r["star_lo"] - r["lo"], r["star_hi"] - r["hi"]) for r in runs])
    roots = roots[np.all(np.isfinite(roots), axis=1)]
    se_lo, se_hi = float(np.std(roots[:, 0], ddof=1)), float(np.std(roots[:, 1], ddof=1))
    out = []
    for r in runs:
        if not math.isfinite(r["lo"]):
            out.append((math.nan, math.nan))
            continue
        c = critical_value(max(r["hi"] - r["lo"], 0.0), max(se_lo, se_hi), level, n)
        if method == "bootstrap":
            lower, upper = r["lo"] - c * se_lo, r["hi"] + c * se_hi
        else:  # bayes: the posterior's quantiles, read as shifts of the pooled roots
            lower = r["lo"] + float(np.quantile(roots[:, 0], norm.cdf(-c)))
            upper = r["hi"] + float(np.quantile(roots[:, 1], norm.cdf(c)))
        out.append((max(lower, -1.0), min(upper, 1.0)))  # a parity lies in [-1, 1]
    return out


def wilson(k: int, m: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion k / m."""
    if m == 0:
        return math.nan, math.nan
    p = k / m
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=500)
    parser.add_argument("--methods", default="projection,bootstrap")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples per replicate")
    parser.add_argument("--n", default="300,3000,30000")
    parser.add_argument("--cells", default="two,six")
    parser.add_argument("--biases", default="proxy_label,selection")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--warp", action="store_true",
                        help="bootstrap and bayes by warp-speed Monte Carlo (one resample per replicate, pooled)")
    args = parser.parse_args()
    methods = args.methods.split(",")
    sizes = [int(v) for v in args.n.split(",")]
    start = time.perf_counter()
    print(f"coverage of 95 % intervals at D = {D_VALUE}, truth = the upper end of the identified set; "
          f"{args.replicates} replicates per cell; "
          + ("bootstrap and bayes by warp-speed Monte Carlo (one resample per replicate, pooled)" if args.warp
             else f"bootstrap with {args.resamples} resamples"))
    print(f"{'cell':28s} {'n':>6s} {'method':>14s} {'coverage':>9s} {'MC 95 %':>15s} {'median width':>13s} "
          f"{'U - L':>7s} {'failed':>6s} {'CPU/rep':>8s} {'wall/rep':>8s}")
    for kind, bias in itertools.product(args.cells.split(","), args.biases.split(",")):
        table = fp.ObservedTable.from_probabilities(population(kind))
        base_wall, base_cpu = time.perf_counter(), time.process_time()
        pop = fp.bound(bias, metric_for(kind), table, D=D_VALUE, progress=False)
        base_wall, base_cpu = time.perf_counter() - base_wall, time.process_time() - base_cpu
        for n, method in itertools.product(sizes, methods):
            if args.warp and method != "projection":
                raw = Parallel(n_jobs=args.jobs)(delayed(warp_replicate)(kind, bias, n, method, seed)
                                                 for seed in range(args.replicates))
                runs = [{"covered": bool(lo - 1e-9 <= pop.upper <= hi + 1e-9), "width": hi - lo,
                         "failed": not math.isfinite(lo), "cpu": r["cpu"], "wall": r["wall"]}
                        for r, (lo, hi) in zip(raw, warp_intervals(raw, method, n), strict=True)]
                method = "warp-" + method
            else:
                runs = Parallel(n_jobs=args.jobs)(
                    delayed(replicate)(kind, bias, n, method, args.resamples, pop.upper, seed)
                    for seed in range(args.replicates))
            covered = sum(r["covered"] for r in runs)
            lo, hi = wilson(covered, len(runs))
            width = float(np.nanmedian([r["width"] for r in runs])) if any(not r["failed"] for r in runs) else math.nan
            print(f"{kind + ' groups, ' + bias:28s} {n:6d} {method:>14s} {covered / len(runs):9.3f} "
                  f"[{lo:.3f}, {hi:.3f}] {width:13.4f} {pop.upper - pop.lower:7.4f} "
                  f"{sum(r['failed'] for r in runs):6d} {np.median([r['cpu'] for r in runs]):7.2f}s "
                  f"{np.median([r['wall'] for r in runs]):7.2f}s", flush=True)
        print(f"  baseline: the population bound alone, {base_cpu:.2f} s CPU / {base_wall:.2f} s wall; "
              f"identified set [{pop.lower:.4f}, {pop.upper:.4f}]", flush=True)
    print(f"whole study: {time.perf_counter() - start:.0f} s wall on {args.jobs} workers")


if __name__ == "__main__":
    main()

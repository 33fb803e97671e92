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


# -- kink worlds (issue 45): the truth at ties, zeros and corners ---------------------------------------------
def _world(rates: list[tuple[float, float]], base: float = 0.4) -> pd.DataFrame:
    """Equal-sized groups with the given (FPR, FNR) each and base rate ``base``: the joint law of (A, Y, P)."""
    rows = []
    for a, (fpr, fnr) in enumerate(rates):
        for y, p in itertools.product((0, 1), (0, 1)):
            py = base if y else 1 - base
            pp = ((1 - fnr) if p else fnr) if y else (fpr if p else 1 - fpr)
            rows.append({"A": a, "Y": y, "P": p, "prob": py * pp / len(rates)})
    return pd.DataFrame(rows)


CORNER_D = 0.0340909

#: name: (population, bias, metric, D, truth, end): ``truth`` the true metric (None: the population bound's
#: ``end``); every world but "corner" and "eo-smooth" is a fair model (true gap 0), at D = 0 (the bound is a
#: point at the kink) or at D > 0 (the identified set [0, U] has its lower end clipped at the truth).
KINK_WORLDS = {
    "fair2-all": (_world([(0.2, 0.3)] * 2), "proxy_label", ("fpr_parity", "all"), 0.0, 0.0, None),
    "eo2": (_world([(0.2, 0.3)] * 2), "proxy_label", ("equalized_odds", None), 0.0, 0.0, None),
    "fair3-all": (_world([(0.2, 0.3)] * 3), "proxy_label", ("fpr_parity", "all"), 0.0, 0.0, None),
    "eo3-all": (_world([(0.2, 0.3)] * 3), "proxy_label", ("equalized_odds", "all"), 0.0, 0.0, None),
    # CORNER_D: the D at which the gap of FPRs 0.12 and 0.22 can first reach 0 (fp.breakdown, xtol 1e-7): the
    # lower end is clipped at 0 exactly there
    "corner-upper": (_world([(0.12, 0.3), (0.22, 0.3)]), "proxy_label", ("fpr_parity", "all"), CORNER_D, None,
                     "upper"),
    "corner-lower": (_world([(0.12, 0.3), (0.22, 0.3)]), "proxy_label", ("fpr_parity", "all"), CORNER_D, None,
                     "lower"),
    "sel3-all": (_world([(0.2, 0.3)] * 3), "selection", ("fpr_parity", "all"), 0.02, 0.0, None),
    "ecp3-all": (_world([(0.2, 0.3)] * 3), "ecp", ("fpr_parity", "all"), 0.02, 0.0, None),
    "combined2-eo": (_world([(0.2, 0.3)] * 2), "proxy_label_and_selection", ("equalized_odds", None), 0.02, 0.0,
                     None),
    "eo-smooth": (_world([(0.1, 0.3), (0.25, 0.2)]), "proxy_label", ("equalized_odds", None), 0.02, None, "upper"),
}


def _kink_metric(spec: tuple[str, str | None]) -> object:
    name, groups = spec
    return fp.metric(name, groups=groups) if groups is not None else fp.metric(name)


def _kink_table(world: str, n: int, seed: int, given: dict | None = None) -> fp.ObservedTable:
    pop = KINK_WORLDS[world][0]
    counts = pop.assign(n=np.random.default_rng(seed).multinomial(n, pop.prob.to_numpy())).drop(columns="prob")
    return fp.ObservedTable.from_counts(counts, given=given)


def _given(bias: str) -> dict | None:
    return {"S": 1} if "selection" in bias else None


def _kink_bound(world: str, table: fp.ObservedTable) -> fp.BoundResult | None:
    _, bias, metric, d, _, _ = KINK_WORLDS[world]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fp.bound(bias, _kink_metric(metric), table, D=d, progress=False)
    except fp.FairprobeError:
        return None


def kink_replicate(world: str, n: int, seed: int) -> dict:
    """One sample, and one bootstrap resample and one posterior draw of it (warp-speed): their rows."""
    from fairprobe.core.uncertainty import _row

    wall, cpu = time.perf_counter(), time.process_time()
    table = _kink_table(world, n, seed, _given(KINK_WORLDS[world][1]))
    res = _kink_bound(world, table)
    out: dict = {"row": None}
    if res is not None:
        out = {"row": _row(res), "lower": res.lower, "upper": res.upper, "details": {"pieces": res.details.get(
            "pieces")} if "pieces" in res.details else {}}
        for method in ("bootstrap", "bayes"):
            draw = resampled_probabilities(table, IntervalOptions(method=method, resamples=20, seed=seed))[0]
            star = _kink_bound(world, table.with_probabilities(draw))
            out[method] = _row(star) if star is not None else None
    return {**out, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}


def kink_intervals(runs: list[dict], method: str, n: int, construction: str) -> list[tuple[float, float]]:
    """Each replicate's interval by the library's own combination (``_from_draws``) of the pooled roots.

    ``construction`` "band": today's (pieces where the bound has them); "plain": the earlier one, the
    Imbens-Manski interval of the two ends' draws alone (what fairprobe gave before issue 45).
    """
    from types import SimpleNamespace

    from fairprobe.core.uncertainty import _from_draws

    roots = np.array([r[method] - r["row"] for r in runs if r["row"] is not None and r.get(method) is not None
                      and len(r[method]) == len(r["row"])])
    roots = roots[np.all(np.isfinite(roots), axis=1)]
    options = IntervalOptions(method=method, resamples=max(len(roots), 20))
    out = []
    for r in runs:
        if r["row"] is None:
            out.append((math.nan, math.nan))
            continue
        details = r["details"] if construction == "band" else {}
        population = SimpleNamespace(lower=r["lower"], upper=r["upper"], details=details)
        draws = r["row"] + roots
        if construction != "band":
            draws = draws[:, :2]
        values = _from_draws(population, draws, options, n, (-1.0, 1.0))
        out.append((values["lower"], values["upper"]))
    return out


def projection_replicate(world: str, n: int, seed: int) -> tuple[float, float]:
    _, bias, metric, d, _, _ = KINK_WORLDS[world]
    table = _kink_table(world, n, seed, _given(bias))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fp.bound(bias, _kink_metric(metric), table, D=d, ci=0.95, ci_method="projection", progress=False)
        return res.interval.lower, res.interval.upper
    except fp.FairprobeError:
        return math.nan, math.nan


def library_replicate(world: str, n: int, method: str, resamples: int, seed: int) -> tuple[float, float]:
    """The library's own interval on one sample (the double loop that checks the warp-speed reading)."""
    _, bias, metric, d, _, _ = KINK_WORLDS[world]
    table = _kink_table(world, n, seed, _given(bias))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fp.bound(bias, _kink_metric(metric), table, D=d, ci=0.95, ci_method=method, resamples=resamples,
                           seed=seed, progress=False)
        return res.interval.lower, res.interval.upper
    except fp.FairprobeError:
        return math.nan, math.nan


def run_kinks(args: argparse.Namespace) -> None:
    """Coverage of every method at the kink worlds (bootstrap and bayes by warp-speed, pooled roots)."""
    worlds = list(KINK_WORLDS) if args.worlds == "all" else args.worlds.split(",")
    sizes = [int(v) for v in args.n.split(",")]
    print(f"kink worlds: coverage of 95 % intervals, {args.replicates} replicates per cell (warp-speed for bootstrap "
          f"and bayes: one resample per replicate, roots pooled; projection: {args.projection_replicates} library "
          f"runs); 'plain' is the interval before issue 45")
    print(f"{'world':14s} {'n':>6s} {'method':>16s} {'coverage':>9s} {'MC 95 %':>15s} {'median width':>13s} "
          f"{'failed':>6s}")
    for world in worlds:
        pop_table = fp.ObservedTable.from_probabilities(KINK_WORLDS[world][0], given=_given(KINK_WORLDS[world][1]))
        pop = _kink_bound(world, pop_table)
        _, _, _, _, truth, end = KINK_WORLDS[world]
        truth = getattr(pop, end) if truth is None else truth
        print(f"{world}: identified set [{pop.lower:.4f}, {pop.upper:.4f}], truth {truth:.4f}", flush=True)
        for n in sizes:
            if args.library:  # the double loop: every replicate its own `resamples` draws, as a user runs it
                for method in args.methods.split(","):
                    ivs = Parallel(n_jobs=args.jobs)(delayed(library_replicate)(world, n, method, args.resamples, seed)
                                                     for seed in range(args.replicates))
                    _print_cell(world, n, f"{method}-library", ivs, truth)
                continue
            runs = [] if args.projection_only else Parallel(n_jobs=args.jobs)(
                delayed(kink_replicate)(world, n, seed) for seed in range(args.replicates))
            cells = [(m, c) for m in ("bootstrap", "bayes") for c in ("band", "plain")] if runs else []
            for method, construction in cells:
                ivs = kink_intervals(runs, method, n, construction)
                _print_cell(world, n, f"{method}-{construction}", ivs, truth)
            if args.projection_replicates:
                ivs = Parallel(n_jobs=args.jobs)(delayed(projection_replicate)(world, n, seed)
                                                 for seed in range(args.projection_replicates))
                _print_cell(world, n, "projection", ivs, truth)
            if not runs:
                continue
            print(f"  median per replicate (a sample's bound and two draws): CPU "
                  f"{np.median([r['cpu'] for r in runs]):.3f} s, wall {np.median([r['wall'] for r in runs]):.3f} s",
                  flush=True)


def _print_cell(world: str, n: int, label: str, ivs: list[tuple[float, float]], truth: float) -> None:
    covered = sum(bool(lo - 1e-9 <= truth <= hi + 1e-9) for lo, hi in ivs)
    failed = sum(not math.isfinite(lo) for lo, _ in ivs)
    lo, hi = wilson(covered, len(ivs))
    widths = [b - a for a, b in ivs if math.isfinite(a)]
    print(f"{world:14s} {n:6d} {label:>16s} {covered / len(ivs):9.3f} [{lo:.3f}, {hi:.3f}] "
          f"{np.median(widths) if widths else math.nan:13.4f} {failed:6d}", flush=True)


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
    parser.add_argument("--worlds", default=None,
                        help="kink worlds instead of the smooth grid: 'all' or a comma list of "
                             + ", ".join(KINK_WORLDS))
    parser.add_argument("--library", action="store_true",
                        help="kink worlds: the library's own intervals (--resamples each) instead of warp-speed")
    parser.add_argument("--projection-only", action="store_true",
                        help="kink worlds: only the projection cells (library runs), no warp-speed replicates")
    parser.add_argument("--projection-replicates", type=int, default=300,
                        help="library runs of the projection interval per kink cell (0: none)")
    args = parser.parse_args()
    if args.worlds:
        if args.n == "300,3000,30000":
            args.n = "500,5000"
        run_kinks(args)
        return
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

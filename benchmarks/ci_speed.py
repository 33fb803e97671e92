"""Cost of a bootstrap sampling interval (``fp.bound(..., ci=0.95)``) per resample.

Two-group FPR parity under proxy labels and under selection, D = 0.05, on ``--tables`` seeded random
count tables (``causal_engine.random_cells`` scaled to n = 5,000 units) and on COMPAS's two largest
groups. For each, one interval of ``--resamples`` bootstrap resamples on one worker, timed in CPU
(``time.process_time``) and wall time, with today's engine (a parity of two rates by the exact
parametric LP search of :mod:`fairprobe.backends.two_ratio`) and, as the baseline in the same
process, with that search switched off (the parities go to SCIP, as before issue 25's search).
Prints the median milliseconds per resample over the tables and what a 1,000-resample interval
would take.

With ``--jobs 2`` the intervals are timed whole, as a user runs them (``n_jobs=2``, every resample
on two worker processes; wall time is the figure, the parent's CPU is only the dispatch), and the
baseline is the same engine with every resample compiled anew instead of moved
(:mod:`fairprobe.core.rebind` switched off): the acceptance figure is a 1,000-resample interval.

With ``--projection`` it times the projection interval instead: ``fp.bound(..., ci=0.95,
ci_method="projection")`` against the plain bound in the same process (the baseline), CPU and
wall medians of ``--repeats`` runs per table, for FPR, PPV and equalised-odds parity under proxy
labels and selection; the acceptance figure is the ratio (at most 10).

With ``--bands`` it times intervals of metrics with kinks (``groups="all"`` FPR parity and equalised odds,
proxy labels) built by the band over the bound's pieces (issue 45) against the construction before it (the
ends' draws alone), in the same process: the same resamples are solved, so the ratio is the band's own cost.

Run: ``python benchmarks/ci_speed.py [--tables 2] [--resamples 100] [--jobs 2] [--projection [--repeats 3]]
[--bands]``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
import warnings

import numpy as np
from causal_engine import random_cells

import fairprobe as fp
from fairprobe.backends.highs import HighsBackend
from fairprobe.core.rebind import DataRebinder
from fairprobe.datasets import load_compas


def tables(k: int) -> list[tuple[str, fp.ObservedTable]]:
    out = []
    for seed in range(k):
        cells = random_cells(seed)
        counts = np.maximum(1, np.rint(cells.prob.to_numpy() * 5000)).astype(int)
        out.append((f"random {seed}", fp.ObservedTable.from_counts(cells.drop(columns="prob").assign(n=counts))))
    df = load_compas().frame
    df = df[df.race.isin(["African-American", "Caucasian"])].assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    out.append(("COMPAS", fp.ObservedTable.from_frame(df, A="race", Y="two_year_recid", P="pred")))
    return out


@contextlib.contextmanager
def two_ratio_search(on: bool):
    """The exact search on (today) or off (the baseline: every parity to SCIP)."""
    if on:
        yield
        return
    saved = (HighsBackend.__dict__["solve_two_ratio"], HighsBackend.__dict__["is_two_ratio"],
             HighsBackend.__dict__["solve_two_ratio_pair"])
    HighsBackend.solve_two_ratio = lambda self, program, options=None, den_floors=None: None
    HighsBackend.is_two_ratio = staticmethod(lambda program: False)
    HighsBackend.solve_two_ratio_pair = lambda self, program, options=None, den_floors=None: None
    try:
        yield
    finally:
        HighsBackend.solve_two_ratio, HighsBackend.is_two_ratio, HighsBackend.solve_two_ratio_pair = saved


@contextlib.contextmanager
def rebinding(on: bool):
    """Resamples moved (today) or compiled anew (the baseline of ``--jobs``)."""
    if on:
        yield
        return
    saved = DataRebinder.__dict__["build"]
    DataRebinder.build = classmethod(lambda cls, compile_fn, table, base=None: None)
    try:
        yield
    finally:
        DataRebinder.build = saved


def one_interval(bias: str, table: fp.ObservedTable, resamples: int, search: bool, jobs: int = 1,
                 moved: bool = True) -> tuple[float, float]:
    with two_ratio_search(search), rebinding(moved), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cpu, wall = time.process_time(), time.perf_counter()
        fp.bound(bias, "fpr_parity", table, D=0.05, ci=0.95, resamples=resamples, progress=False, n_jobs=jobs)
        return time.process_time() - cpu, time.perf_counter() - wall


def whole_intervals(args: argparse.Namespace) -> None:
    """1,000-resample intervals timed whole on ``--jobs`` workers, against compiling every resample."""
    print(f"bootstrap interval of FPR parity, {args.resamples} resamples on {args.jobs} workers, D = 0.05; "
          "seconds per interval (ours: resamples moved; base: compiled anew)")
    for bias in ("proxy_label", "selection"):
        rows = []
        for name, table in tables(args.tables):
            oc, ow = one_interval(bias, table, args.resamples, True, args.jobs, moved=True)
            bc, bw = one_interval(bias, table, args.resamples, True, args.jobs, moved=False)
            rows.append((ow, bw))
            print(f"  {bias:<12} {name:<10} ours wall {ow:6.2f} s (parent cpu {oc:5.2f}) | base wall {bw:6.2f} s "
                  f"(parent cpu {bc:5.2f})", flush=True)
        print(f"{bias}: median wall per interval: ours {statistics.median(r[0] for r in rows):.2f} s, base "
              f"{statistics.median(r[1] for r in rows):.2f} s")


def projection_cost(args: argparse.Namespace) -> None:
    """A projection interval against the plain bound, in this process: CPU and wall, medians of repeats."""
    print(f"projection interval against the plain bound, D = 0.05, medians of {args.repeats} runs (CPU | wall, s)")
    ratios = []
    for bias in ("proxy_label", "selection"):
        for metric in ("fpr_parity", "ppv_parity", "equalized_odds"):
            for name, table in tables(args.tables):
                times: dict[str, list[tuple[float, float]]] = {"plain": [], "projection": []}
                for _ in range(args.repeats):
                    for kind, extra in (("plain", {}), ("projection", {"ci": 0.95, "ci_method": "projection"})):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", RuntimeWarning)
                            cpu, wall = time.process_time(), time.perf_counter()
                            fp.bound(bias, metric, table, D=0.05, progress=False, **extra)
                            times[kind].append((time.process_time() - cpu, time.perf_counter() - wall))
                plain = [statistics.median(t[i] for t in times["plain"]) for i in (0, 1)]
                proj = [statistics.median(t[i] for t in times["projection"]) for i in (0, 1)]
                ratios.append(proj[0] / plain[0])
                print(f"  {bias:<12} {metric:<15} {name:<10} plain {plain[0]:6.3f} | {plain[1]:6.3f}   projection "
                      f"{proj[0]:6.3f} | {proj[1]:6.3f}   x {ratios[-1]:5.2f}", flush=True)
    print(f"projection / plain bound (CPU): median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} "
          "(target at most 10)")


@contextlib.contextmanager
def plain_construction(on: bool):
    """The interval before issue 45 (the ends' draws alone, no band over pieces) as the baseline."""
    if not on:
        yield
        return
    import fairprobe.core.uncertainty as unc

    saved = unc.bound_pieces
    unc.bound_pieces = lambda result: None
    try:
        yield
    finally:
        unc.bound_pieces = saved


def band_cost(args: argparse.Namespace) -> None:
    """Intervals of metrics with kinks: the band over pieces (ours) against the plain construction, same process."""
    print(f"bootstrap interval, {args.resamples} resamples, one worker, proxy labels D = 0.05; ms per resample "
          "(ours = band over the pieces, base = the ends' draws alone)")
    for metric in ("fpr_parity", "equalized_odds"):
        rows = []
        for name, table in tables(args.tables):
            pair = []
            m = fp.metric(metric, groups="all") if metric == "fpr_parity" else metric
            fp.bound("proxy_label", m, table, D=0.05, ci=0.95, resamples=20, progress=False)  # warm: compiled once
            for base in (False, True):
                with plain_construction(base), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    cpu, wall = time.process_time(), time.perf_counter()
                    res = fp.bound("proxy_label", m, table, D=0.05, ci=0.95, resamples=args.resamples,
                                   progress=False)
                    pair += [time.process_time() - cpu, time.perf_counter() - wall]
                    pair.append(res.interval.upper - res.interval.lower)
            rows.append(pair)
            per = [pair[i] / args.resamples * 1e3 for i in (0, 1, 3, 4)]
            print(f"  {metric:<15} {name:<10} ours cpu {per[0]:6.2f} wall {per[1]:6.2f} width {pair[2]:.4f} | "
                  f"base cpu {per[2]:6.2f} wall {per[3]:6.2f} width {pair[5]:.4f}", flush=True)
        med = [statistics.median(r[i] for r in rows) / args.resamples * 1e3 for i in (0, 1, 3, 4)]
        print(f"{metric}: median ms per resample: ours cpu {med[0]:.2f}, wall {med[1]:.2f}; base cpu {med[2]:.2f}, "
              f"wall {med[3]:.2f}; CPU ratio {med[0] / med[2]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=0, help="time whole intervals on this many workers")
    parser.add_argument("--projection", action="store_true", help="time projection intervals against plain bounds")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bands", action="store_true",
                        help="time intervals of metrics with kinks (band over pieces) against the plain construction")
    args = parser.parse_args()
    if args.bands:
        band_cost(args)
        return
    if args.projection:
        projection_cost(args)
        return
    if args.jobs:
        whole_intervals(args)
        return
    print(f"bootstrap interval, {args.resamples} resamples, one worker; ms per resample (ours = exact two-ratio "
          "search, base = the parities on SCIP)")
    for bias in ("proxy_label", "selection"):
        rows = []
        for name, table in tables(args.tables):
            oc, ow = one_interval(bias, table, args.resamples, True)
            bc, bw = one_interval(bias, table, args.resamples, False)
            rows.append((oc, ow, bc, bw))
            per = [x / args.resamples * 1e3 for x in (oc, ow, bc, bw)]
            print(f"  {bias:<12} {name:<10} ours cpu {per[0]:6.1f} wall {per[1]:6.1f} | base cpu {per[2]:6.1f} "
                  f"wall {per[3]:6.1f}", flush=True)
        med = [statistics.median(r[i] for r in rows) / args.resamples for i in range(4)]
        print(f"{bias}: median ms per resample: ours cpu {med[0] * 1e3:.1f}, wall {med[1] * 1e3:.1f}; base cpu "
              f"{med[2] * 1e3:.1f}, wall {med[3] * 1e3:.1f}; a 1,000-resample interval on 2 workers ~ "
              f"{med[1] * 1000 / 2:.1f} s wall (ours), {med[3] * 1000 / 2:.1f} s (base)")


if __name__ == "__main__":
    main()

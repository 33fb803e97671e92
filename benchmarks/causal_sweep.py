"""Sensitivity-sweep benchmark: 21-point sweeps of every parity metric under each single bias.

On the seed paper's COMPAS table (bundled: ``fairprobe.datasets.load_paper_table()``), for each
single built-in bias and each parity metric, a 21-point sweep D = 0, 0.005, ..., 0.1 with
``fairprobe.sensitivity`` (compiled once, D moves program coefficients) is timed:

* median wall time per certified bound (both sides) and total per sweep (wall and CPU,
  ``time.process_time``), sequentially;
* the same sweep with ``n_jobs=2`` (speed-up = sequential / parallel total);
* the in-process baseline: ``--baseline-points`` evenly spread points through ``fairprobe.bound``
  one by one (compile per point), ratio = its mean time / the sweep's mean solve time at the same
  points;
* the reference implementation's published cost, 2-4 s per bound on the proxy-label program
  (autobounds + SCIP, seed paper), as a fixed figure side by side (it cannot run here).

Then the same sweeps on ``--tables`` seeded random two-group tables (``causal_engine.random_cells``,
``--table-metrics``): per bias and metric the median CPU and wall seconds of a sweep over the tables,
against the same points through ``fairprobe.bound`` one by one in this process (CPU), and the
median sweep over all of them.

Run: ``python benchmarks/causal_sweep.py [--points 21] [--biases selection,proxy_label] [--tables 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
import pandas as pd
from causal_engine import random_cells, table_for

import fairprobe as fp
from fairprobe.datasets import load_paper_table

BIASES = ["selection", "proxy_label", "proxy_attribute", "ecp", "proxy_label_missed_positives"]
METRICS = ["fpr_parity", "fnr_parity", "ppv_parity", "npv_parity", "demographic_parity", "accuracy_parity",
           "equalized_odds"]
REFERENCE_SECONDS = (2.0, 4.0)  # published per-bound cost of the reference pipeline (proxy-label program)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=21)
    parser.add_argument("--biases", default=",".join(BIASES))
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--baseline-points", type=int, default=5, help="points of the compile-per-point baseline")
    parser.add_argument("--tables", type=int, default=5, help="seeded random tables of the second part (0: none)")
    parser.add_argument("--table-metrics", default="fpr_parity,ppv_parity,demographic_parity,equalized_odds")
    args = parser.parse_args()
    table = load_paper_table()
    grid = list(np.round(np.linspace(0, 0.1, args.points), 10))
    rows = []
    warnings.simplefilter("ignore", RuntimeWarning)
    for bias in args.biases.split(","):
        for metric in args.metrics.split(","):
            cpu = time.process_time()
            seq = fp.sensitivity(bias, metric, table, D=grid, progress=False)
            cpu = time.process_time() - cpu
            frame = seq.to_frame()
            t0 = time.perf_counter()
            par = fp.sensitivity(bias, metric, table, D=grid, n_jobs=2, progress=False)
            t_par = time.perf_counter() - t0
            # baseline on the same points: fp.bound per D vs the sweep's own per-point solve times
            idx = np.linspace(0, len(grid) - 1, args.baseline_points).round().astype(int)
            t0 = time.perf_counter()
            for i in idx:
                fp.bound(bias, metric, table, D=grid[i])
            t_base = (time.perf_counter() - t0) / len(idx)
            t_same = float(frame.time.iloc[idx].mean())
            per_bound = statistics.median(frame.time)
            diff = np.max(np.abs(par.to_frame()[["lower", "upper"]].to_numpy() - frame[["lower", "upper"]].to_numpy()))
            rows.append({"bias": bias, "metric": metric, "median_ms": 1000 * per_bound,
                         "sweep_s": seq.wall_time, "sweep_cpu_s": cpu, "sweep_2jobs_s": t_par,
                         "speedup_2jobs": seq.wall_time / t_par,
                         "bound_per_point_ms": 1000 * t_base, "ratio_vs_per_point": t_base / t_same,
                         "ratio_vs_reference": REFERENCE_SECONDS[0] / per_bound,
                         "non_optimal": int((frame.status != "optimal").sum()), "par_vs_seq_maxdiff": diff})
            r = rows[-1]
            print(f"{bias:30s} {metric:20s} median {r['median_ms']:7.1f} ms/bound  sweep {r['sweep_s']:6.2f}s "
                  f"(CPU {r['sweep_cpu_s']:6.2f}s)  "
                  f"2 jobs {r['sweep_2jobs_s']:6.2f}s (x{r['speedup_2jobs']:.2f})  per-point bound() "
                  f"{r['bound_per_point_ms']:7.1f} ms (x{r['ratio_vs_per_point']:.2f})", flush=True)
    out = pd.DataFrame(rows)
    print("\nmedian over all sweeps:")
    lo_ratio = out.ratio_vs_reference.median()
    hi_ratio = REFERENCE_SECONDS[1] / REFERENCE_SECONDS[0] * lo_ratio
    print(f"  median time per bound           {out.median_ms.median():8.1f} ms  (reference: "
          f"{REFERENCE_SECONDS[0]:.0f}-{REFERENCE_SECONDS[1]:.0f} s per bound -> x{lo_ratio:.0f} to "
          f"x{hi_ratio:.0f} faster)")
    print(f"  total per {len(grid)}-point sweep         {out.sweep_s.median():8.3f} s wall, "
          f"{out.sweep_cpu_s.median():.3f} s CPU   "
          f"(reference: {len(grid) * REFERENCE_SECONDS[0]:.0f}-{len(grid) * REFERENCE_SECONDS[1]:.0f} s)")
    print(f"  speed-up with n_jobs=2          x{out.speedup_2jobs.median():.2f}")
    print(f"  compile once vs bound() per point x{out.ratio_vs_per_point.median():.2f}")
    print(f"  all sweeps: {out.sweep_s.sum():.1f} s sequential, {out.sweep_2jobs_s.sum():.1f} s with 2 jobs; "
          f"non-optimal points {out.non_optimal.sum()}; max |parallel - sequential| {out.par_vs_seq_maxdiff.max():.1e}")
    if args.tables:
        random_tables(args, grid)


def random_tables(args: argparse.Namespace, grid: list[float]) -> None:
    """The sweeps on seeded random two-group tables: CPU and wall per sweep against ``fp.bound`` per point."""
    print(f"\n{args.tables} seeded random two-group tables, {len(grid)}-point sweeps; median over the tables "
          "(CPU s per sweep | wall | fp.bound per point, CPU s for the sweep's points)")
    cpus = []
    for bias in args.biases.split(","):
        for metric in args.table_metrics.split(","):
            sweep_cpu, sweep_wall, per_point = [], [], []
            for seed in range(args.tables):
                table = table_for(bias, random_cells(seed))
                cpu, wall = time.process_time(), time.perf_counter()
                fp.sensitivity(bias, metric, table, D=grid, progress=False)
                sweep_cpu.append(time.process_time() - cpu)
                sweep_wall.append(time.perf_counter() - wall)
                idx = np.linspace(0, len(grid) - 1, args.baseline_points).round().astype(int)
                cpu = time.process_time()
                for i in idx:  # the baseline: one bound per point, compiled per call
                    fp.bound(bias, metric, table, D=grid[i], progress=False)
                per_point.append((time.process_time() - cpu) / len(idx) * len(grid))
            cpus += sweep_cpu
            med = statistics.median
            print(f"{bias:30s} {metric:20s} {med(sweep_cpu):7.3f} s CPU {med(sweep_wall):7.3f} s wall   "
                  f"fp.bound per point {med(per_point):7.3f} s (x{med(per_point) / med(sweep_cpu):.2f})", flush=True)
    print(f"median sweep over all random tables: {statistics.median(cpus):.3f} s CPU")


if __name__ == "__main__":
    main()

"""Re-solve of a compiled two-group bound on resampled tables (same cells, new counts).

A bootstrap interval, a posterior draw or an updated table bounds the same bias and metric on a
new table over the same cells. A :class:`~fairprobe.core.rebind.Resampler` held by the caller moves
the compiled programs to the new probabilities (:mod:`fairprobe.core.rebind`: only the data rows are
rewritten, where that is exact) and solves them. This script times that re-solve against a new
problem compiled on each table (what every resample cost before programs moved), in the same
process. It uses ``--tables`` seeded random two-group count tables (n = 5,000 units;
``causal_engine.random_cells``) with ``--resamples`` multinomial resamples each, for every bias named
and FPR, PPV, equalised-odds and demographic parity at D = 0.05. It prints the median CPU
(``time.process_time``) and wall milliseconds per re-solve (the first re-solve of each table, which
checks the rebinders, included; the column ``first`` shows its own median), whether the programs
moved (``moved``) or were compiled (their data reach the objective: a denominator the data pin), and
the largest difference between the moved and the compiled bounds (0: a moved program is the
compiled one).

Run: ``python benchmarks/causal_resolve.py [--tables 5] [--resamples 10] [--biases proxy_label,selection]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
from causal_engine import METRICS, random_cells

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, resolve_bias
from fairprobe.core.rebind import Resampler


def counts_table(seed: int, bias: str) -> fp.ObservedTable:
    cells = random_cells(seed)
    counts = np.maximum(1, np.rint(cells.prob.to_numpy() * 5000)).astype(int)
    given = {node: 1 for node in resolve_bias(bias).cond_nodes} or None
    return fp.ObservedTable.from_counts(cells.drop(columns="prob").assign(n=counts), given=given)


def resolve(resampler: Resampler, other: fp.ObservedTable, params: dict) -> tuple[float, float, fp.BoundResult]:
    """CPU and wall seconds of moving the resampler's problem to ``other`` and solving it."""
    cpu, wall = time.process_time(), time.perf_counter()
    res = resampler.at(other, fixed=params).solve(params, progress=False)
    return time.process_time() - cpu, time.perf_counter() - wall, res


def compile_and_solve(bias: str, metric: str, other: fp.ObservedTable,
                      params: dict) -> tuple[float, float, fp.BoundResult]:
    """CPU and wall seconds of a new problem on ``other`` (the baseline: compiled per table)."""
    cpu, wall = time.process_time(), time.perf_counter()
    res = BoundProblem(bias, metric, other, fixed=params).solve(params, progress=False)
    return time.process_time() - cpu, time.perf_counter() - wall, res


def attempt(fn, *args):
    """``fn(*args)``, or None when the table cannot be bounded (a FairprobeError)."""
    try:
        return fn(*args)
    except fp.FairprobeError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10)
    parser.add_argument("--biases", default="proxy_label,selection,ecp,proxy_label_and_selection")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    print(f"{args.tables} tables x {args.resamples} resamples, D = 0.05; ms per re-solve, median (programs moved by "
          "a resampler | a new problem compiled per table)\n")
    header = (f"{'bias':<28}{'metric':<20}{'cpu':>7}{'wall':>7}{'first':>7}{'compiled':>9}{'x':>6}"
              f"{'moved':>8}{'max |diff|':>12}")
    print(header)
    print("-" * len(header))
    med = statistics.median
    everything, everything_wall, everything_base = [], [], []
    for bias in args.biases.split(","):
        params = {p: 0.05 for p in resolve_bias(bias).parameters}
        for metric in METRICS:
            ours, firsts, base, n_moved, total, diff = [], [], [], 0, 0, 0.0
            for seed in range(args.tables):
                table = counts_table(seed, bias)
                problem = BoundProblem(bias, metric, table, fixed=params)
                problem.solve(params, progress=False)
                resampler = Resampler(problem)
                rng = np.random.default_rng(seed)
                counts = problem.table.counts()
                draws = rng.multinomial(counts.sum(), counts / counts.sum(), size=args.resamples) / counts.sum()
                others = [problem.table.with_probabilities(probs) for probs in draws]
                # each way in a run of its own, as a bootstrap runs it; the first re-solve checks the rebinders
                moved = [attempt(resolve, resampler, other, params) for other in others]
                fresh = [attempt(compile_and_solve, bias, metric, other, params) if m else None
                         for m, other in zip(moved, others, strict=True)]
                if moved and moved[0] is not None:
                    firsts.append(moved[0][0])
                for m, f in zip(moved, fresh, strict=True):
                    if m is None or f is None:
                        continue
                    (c, w, res), (bc, bw, bres) = m, f
                    ours.append((c, w))
                    base.append((bc, bw))
                    diff = max(diff, abs(res.lower - bres.lower), abs(res.upper - bres.upper))
                n_moved += sum(v is not None for v in resampler.rebinders.values())
                total += len(resampler.rebinders)
            if not ours:
                continue
            cpu, wall = med(c for c, _ in ours), med(w for _, w in ours)
            bcpu = med(c for c, _ in base)
            everything += [c for c, _ in ours]
            everything_wall += [w for _, w in ours]
            everything_base += [c for c, _ in base]
            print(f"{bias:<28}{metric:<20}{cpu * 1e3:>7.2f}{wall * 1e3:>7.2f}{med(firsts) * 1e3:>7.1f}"
                  f"{bcpu * 1e3:>9.2f}{bcpu / cpu:>6.2f}{f'{n_moved}/{total}':>8}{diff:>12.1e}", flush=True)
    print(f"\nall re-solves: median {med(everything) * 1e3:.2f} ms CPU, {med(everything_wall) * 1e3:.2f} ms wall "
          f"(compiled per table: {med(everything_base) * 1e3:.2f} ms CPU); target 2 ms")


if __name__ == "__main__":
    main()

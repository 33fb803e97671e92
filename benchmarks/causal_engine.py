"""Causal engine benchmark: every built-in bias x {FPR, PPV, equalised-odds, demographic parity}.

Two groups, the seed paper's COMPAS table (bundled: ``fairprobe.datasets.load_paper_table()``)
at D = 0.05, SCIP. For each pair the script prints the program size before and after reduction,
the certified bounds, their gap and the median wall time of one certified bound (lower and
upper together, ``fp.bound``) over ``--repeats`` runs; then the median and the worst time over
all pairs against the targets (median < 100 ms, worst < 1 s). The baseline, run in the same
process, is the naive response-function program (one variable per joint response type, no
reductions) solved by the same driver with a time limit; the ``x`` column is baseline / fairprobe.

Tables: biases conditioned on selection (``cond_nodes = ["S"]``) see the table as the selected
rows (``given={"S": 1}``); ``selective_labels`` sees a table derived from the same one, in which
the decision ``S`` (1 = released) follows the prediction and the outcome ``O`` is recorded only
for released people.

Run: ``python benchmarks/causal_engine.py [--repeats 5] [--baseline-limit 5] [--no-baseline]``.

``--tables N`` instead times every bias x metric on N seeded random two-group tables (cells
A, Y, P from a Dirichlet(1) draw): CPU time (``time.process_time``) and wall time of one certified
bound with the LP fast path (HiGHS, verified bounds; :mod:`fairprobe.core.routing`) against the
engine without it (every program on SCIP: ``lp_fast_path=False``), both in this process, medians
over the tables per pair, then the median and worst over all bounds, and the largest difference
between the two engines' bounds. As ``fp.bound`` does, every bound compiles its own problem (nothing
is kept between calls); the ``cold`` column is the same bound timed again in a run of its own, and
the script checks both give the same bounds. Per bias and metric each engine runs over all the
tables in turn (fast path, then again, then without the fast path), in its steady state as bounds
come in use;
``--interleaved`` runs the three engines table by table instead (the earlier layout, in which every
engine measured slower). ``--biases a,b`` restricts the biases.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import warnings

import numpy as np
import pandas as pd

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, resolve_bias
from fairprobe.datasets import load_paper_table
from fairprobe.testing import selective_labels_table

METRICS = ["fpr_parity", "ppv_parity", "equalized_odds", "demographic_parity"]


def table_for(bias: str, cells: pd.DataFrame) -> fp.ObservedTable:
    config = resolve_bias(bias)
    if bias == "selective_labels":
        return fp.ObservedTable.from_probabilities(selective_labels_table(cells))
    given = {node: 1 for node in config.cond_nodes} or None
    return fp.ObservedTable.from_probabilities(cells, given=given)


def timed(repeats: int, **kwargs) -> tuple[float, float, fp.BoundResult]:
    """Median wall and CPU seconds of ``fp.bound(**kwargs)`` over ``repeats`` runs, and the last result."""
    walls, cpus, res = [], [], None
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        res = fp.bound(**kwargs)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), res


class GcClock:
    """CPU seconds the interpreter spent in garbage collection inside a ``with`` block, and its full collections.

    A full (generation 2) collection walks every object the process holds; with numpy, pandas and sympy
    imported that is about 40 ms whatever fairprobe does, and Python runs one whenever the heap has grown
    by a quarter. A bound that meets one pays for it; the benchmark reports its worst bound both ways.
    """

    def __init__(self) -> None:
        self.seconds, self.full, self._start = 0.0, 0, 0.0

    def _callback(self, phase: str, info: dict) -> None:
        # CPU time, as the bounds are timed (wall time on a loaded machine would take out more than GC)
        if phase == "start":
            self._start = time.process_time()
        else:
            self.seconds += time.process_time() - self._start
            self.full += info.get("generation") == 2

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


def random_cells(seed: int) -> pd.DataFrame:
    """Eight cells over (A, Y, P), probabilities from a seeded Dirichlet(1) draw (every cell > 0.5 %)."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(8))
    while probs.min() < 0.005:
        probs = rng.dirichlet(np.ones(8))
    rows = [{"A": a, "Y": y, "P": p} for a in (0, 1) for y in (0, 1) for p in (0, 1)]
    return pd.DataFrame(rows).assign(prob=probs)


def one_bound(bias: str, metric: str, table: fp.ObservedTable, D: float, fast: bool,
              time_limit: float) -> tuple[float, float, fp.BoundResult]:
    """CPU and wall seconds of one certified bound (problem built, compiled and solved, as ``fp.bound`` does)."""
    cpu, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # compiled once at D, as fp.bound compiles a single value (a sweep compiles twice)
        res = BoundProblem(bias, metric, table, fixed={"D": D}).solve(
            {"D": D}, lp_fast_path=fast, time_limit=time_limit, progress=False)
    return time.process_time() - cpu, time.perf_counter() - wall, res


#: The engines timed per bias and metric: the fast path (as fp.bound runs it), the same again, and the
#: engine without the fast path.
ENGINES = ("fast", "cold", "base")


def engine_run(engine: str, bias: str, metric: str, table: fp.ObservedTable, args: argparse.Namespace,
               kinds: set) -> tuple | None:
    """One bound by ``engine``: (CPU s, wall s, result), with the GC clock for the fast path; None (and
    the error's kind added to ``kinds``) when the table cannot be bounded."""
    fast = engine != "base"
    try:
        if engine != "fast":
            return one_bound(bias, metric, table, args.D, fast, args.time_limit)
        with GcClock() as clock:
            return (*one_bound(bias, metric, table, args.D, True, args.time_limit), clock)
    except fp.FairprobeError as exc:
        kinds.add(type(exc).__name__)
        return None


def tables_main(args: argparse.Namespace) -> None:
    biases = args.biases.split(",") if args.biases else sorted(fp.get_registry().biases)
    tables = [random_cells(seed) for seed in range(args.tables)]
    print(f"{args.tables} seeded random two-group tables; D = {args.D}; every bias x {METRICS}; CPU ms per "
          "certified bound, median over the tables (fast path | the same compiled from scratch | without the "
          "fast path | ratio of the last to the first)\n")
    header = f"{'bias':<38}{'metric':<20}{'fast cpu':>9}{'fast wall':>10}{'cold cpu':>9}{'base cpu':>9}" \
             f"{'base wall':>10}{'x':>6}{'max |diff|':>11}  kinds"
    print(header)
    print("-" * len(header))
    # warm-up: the process's first HiGHS and SCIP solves
    for metric in ("fpr", "equalized_odds"):
        BoundProblem("proxy_label", metric, fp.ObservedTable.from_probabilities(tables[0])).solve(
            {"D": args.D}, progress=False)
    all_fast, all_cold, all_base, worst_diff, n_unsound, n_loose = [], [], [], 0.0, 0, 0
    fast_gc: list[tuple[float, int]] = []  # per fast bound: seconds in garbage collection, full collections
    for bias in biases:
        for metric in METRICS:
            fast_cpu, fast_wall, cold_cpu, base_cpu, base_wall, kinds, diff = [], [], [], [], [], set(), 0.0
            tabs = [table_for(bias, cells) for cells in tables]
            # each engine in its own run over the tables (its steady state, as bounds come in use: a loop
            # over tables, a sweep); --interleaved runs the three engines table by table instead, the
            # layout before, in which every engine ran slower (benchmarks/RESULTS.md, "The engine, ninth part")
            runs: dict[str, list] = {engine: [None] * len(tabs) for engine in ENGINES}
            order = ([(engine, i) for i in range(len(tabs)) for engine in ENGINES] if args.interleaved
                     else [(engine, i) for engine in ENGINES for i in range(len(tabs))])
            for engine, i in order:
                if engine == "fast" or runs["fast"][i] is not None:  # (a table the fast path refused is skipped)
                    runs[engine][i] = engine_run(engine, bias, metric, tabs[i], args, kinds)
            fast, cold, base = (runs[engine] for engine in ENGINES)
            for f, c, b in zip(fast, cold, base, strict=True):
                if f is None or c is None or b is None:
                    continue
                (fc, fw, fres, clock), (cc, _, cres), (bc, bw, bres) = f, c, b
                if (cres.lower, cres.upper) != (fres.lower, fres.upper):
                    raise AssertionError(f"{bias} {metric}: the same bound twice differs")
                fast_cpu.append(fc)
                fast_gc.append((clock.seconds, clock.full))
                cold_cpu.append(cc)
                fast_wall.append(fw)
                base_cpu.append(bc)
                base_wall.append(bw)
                kinds.add(fres.kind)
                diff = max(diff, abs(fres.lower - bres.lower), abs(fres.upper - bres.upper))
                # sound: each engine's bound contains the other's achieved values where those are models to 1e-9
                # (repaired points); points SCIP left with larger row violations are counted apart
                for r, other in ((fres, bres), (bres, fres)):
                    exact = other.details.get("max_violation", 1.0) <= 1e-9
                    for ach in (other.lower_achieved, other.upper_achieved):
                        # 1e-8: a model whose rows hold to 1e-9 (the ratio boxes carry 1e-9 of slack) can sit
                        # 2e-9 beyond a sharp bound
                        if ach is not None and not r.lower - 1e-8 <= ach <= r.upper + 1e-8:
                            if exact:
                                n_unsound += 1
                            else:
                                n_loose += 1
            if not fast_cpu:
                print(f"{bias:<38}{metric:<20}  {', '.join(sorted(kinds))}")
                continue
            all_fast += fast_cpu
            all_cold += cold_cpu
            all_base += base_cpu
            worst_diff = max(worst_diff, diff)
            med = statistics.median
            print(f"{bias:<38}{metric:<20}{med(fast_cpu) * 1e3:>9.1f}{med(fast_wall) * 1e3:>10.1f}"
                  f"{med(cold_cpu) * 1e3:>9.1f}{med(base_cpu) * 1e3:>9.1f}{med(base_wall) * 1e3:>10.1f}"
                  f"{med(base_cpu) / med(fast_cpu):>6.1f}{diff:>11.1e}  {','.join(sorted(kinds))}", flush=True)
    med = statistics.median
    print(f"\n{len(all_fast)} certified bounds (CPU): fast path median {med(all_fast) * 1e3:.1f} ms, worst "
          f"{max(all_fast) * 1e3:.0f} ms; compiled from scratch median {med(all_cold) * 1e3:.1f} ms, worst "
          f"{max(all_cold) * 1e3:.0f} ms; without the fast path median {med(all_base) * 1e3:.1f} ms, worst "
          f"{max(all_base) * 1e3:.0f} ms; median ratio {med(all_base) / med(all_fast):.1f}x")
    # the worst bound again with the interpreter's garbage collections taken out (see GcClock)
    net = [c - g for c, (g, _) in zip(all_fast, fast_gc, strict=True)]
    full = [(c, g) for c, (g, n) in zip(all_fast, fast_gc, strict=True) if n]
    print(f"garbage collection: {len(full)} of {len(all_fast)} fast-path bounds ran a full collection of the "
          f"interpreter's heap ({', '.join(f'{g * 1e3:.0f}' for _, g in full) or '-'} ms); without the time in "
          f"garbage collection the worst bound is {max(net) * 1e3:.0f} ms (median {med(net) * 1e3:.1f} ms)")
    print(f"largest difference between the engines' bounds: {worst_diff:.1e}; achieved values of models (rows to "
          f"1e-9) outside the other engine's bound: {n_unsound}; values at points SCIP left with larger row "
          f"violations (window programs, not repaired yet) outside it: {n_loose}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-limit", type=float, default=5.0, help="seconds per baseline solve")
    parser.add_argument("--no-baseline", action="store_true", help="skip the naive-program baseline")
    parser.add_argument("--D", type=float, default=0.05)
    parser.add_argument("--backend", default="scip", help="backend of the timed bounds (scip, auto, ...)")
    parser.add_argument("--tables", type=int, default=0, help="time on this many seeded random tables instead")
    parser.add_argument("--biases", default="", help="comma-separated biases (with --tables; default all)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per bound (with --tables)")
    parser.add_argument("--interleaved", action="store_true",
                        help="with --tables: the three engines table by table (the earlier layout) instead of "
                             "each engine over all the tables in turn")
    args = parser.parse_args()
    if args.tables:
        tables_main(args)
        return
    cells = load_paper_table()
    biases = sorted(fp.get_registry().biases)
    print(f"table: the seed paper's COMPAS table; D = {args.D}; backend {args.backend}; {args.repeats} repeats\n")
    header = (f"{'bias':<38}{'metric':<20}{'vars':>12}{'deg':>4} {'kind':<18}{'lower':>9}{'upper':>9}"
              f"{'gap':>9}{'ms':>8}{'cpu ms':>8}{'base ms':>9}{'x':>7}")
    print(header)
    print("-" * len(header))
    fp.bound("proxy_label", "fpr", fp.ObservedTable.from_probabilities(cells), D=args.D)  # warm-up
    times, ratios = [], []
    for bias in biases:
        table = table_for(bias, cells)
        for metric in METRICS:
            try:
                sec, cpu, res = timed(args.repeats, bias=bias, metric=metric, data=table, D=args.D,
                                      backend=args.backend)
            except fp.FairprobeError as exc:
                print(f"{bias:<38}{metric:<20}  {type(exc).__name__}: {str(exc)[:90]}")
                continue
            times.append(sec)
            base_txt, ratio_txt = "-", "-"
            if not args.no_baseline:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    start = time.perf_counter()
                    fp.bound(bias, metric, table, D=args.D, reduce=False, time_limit=args.baseline_limit)
                    base = time.perf_counter() - start
                ratios.append(base / sec)
                base_txt, ratio_txt = f"{base * 1e3:.0f}", f"{base / sec:.1f}"
            sb, sa = res.stats_before, res.stats_after
            print(f"{bias:<38}{metric:<20}{sb['n_variables']:>6}->{sa['n_variables']:<5}{sa['max_degree']:>4} "
                  f"{res.kind:<18}{res.lower:>9.5f}{res.upper:>9.5f}{res.gap:>9.1e}{sec * 1e3:>8.1f}{cpu * 1e3:>8.1f}"
                  f"{base_txt:>9}{ratio_txt:>7}", flush=True)
    median, worst = statistics.median(times), max(times)
    print(f"\n{len(times)} certified bounds: median {median * 1e3:.1f} ms (target < 100 ms: "
          f"{'met' if median < 0.1 else 'MISSED'}), worst {worst * 1e3:.1f} ms (target < 1000 ms: "
          f"{'met' if worst < 1.0 else 'MISSED'})")
    if ratios:
        print(f"naive program / fairprobe (baseline capped at {args.baseline_limit:g} s per solve): "
              f"median {statistics.median(ratios):.1f}x, min {min(ratios):.1f}x")


if __name__ == "__main__":
    main()

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
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import pandas as pd

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.datasets import load_paper_table

METRICS = ["fpr_parity", "ppv_parity", "equalized_odds", "demographic_parity"]


def selective_labels_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Cells over (A, P, S, O): released (S = 1) with probability 0.9 if P = 0, 0.3 if P = 1; O = Y * S."""
    rows = []
    for r in cells.itertuples():
        release = 0.9 if r.P == 0 else 0.3
        rows.append({"A": r.A, "P": r.P, "S": 1, "O": r.Y, "prob": r.prob * release})
        rows.append({"A": r.A, "P": r.P, "S": 0, "O": 0, "prob": r.prob * (1 - release)})
    return pd.DataFrame(rows).groupby(["A", "P", "S", "O"], as_index=False).prob.sum()


def table_for(bias: str, cells: pd.DataFrame) -> fp.ObservedTable:
    config = resolve_bias(bias)
    if bias == "selective_labels":
        return fp.ObservedTable.from_probabilities(selective_labels_table(cells))
    given = {node: 1 for node in config.cond_nodes} or None
    return fp.ObservedTable.from_probabilities(cells, given=given)


def timed(repeats: int, **kwargs) -> tuple[float, fp.BoundResult]:
    times, res = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        res = fp.bound(**kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times), res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-limit", type=float, default=5.0, help="seconds per baseline solve")
    parser.add_argument("--no-baseline", action="store_true", help="skip the naive-program baseline")
    parser.add_argument("--D", type=float, default=0.05)
    parser.add_argument("--backend", default="scip", help="backend of the timed bounds (scip, auto, ...)")
    args = parser.parse_args()
    cells = load_paper_table()
    biases = sorted(fp.get_registry().biases)
    print(f"table: the seed paper's COMPAS table; D = {args.D}; backend {args.backend}; {args.repeats} repeats\n")
    header = (f"{'bias':<38}{'metric':<20}{'vars':>12}{'deg':>4} {'kind':<18}{'lower':>9}{'upper':>9}"
              f"{'gap':>9}{'ms':>8}{'base ms':>9}{'x':>7}")
    print(header)
    print("-" * len(header))
    fp.bound("proxy_label", "fpr", fp.ObservedTable.from_probabilities(cells), D=args.D)  # warm-up
    times, ratios = [], []
    for bias in biases:
        table = table_for(bias, cells)
        for metric in METRICS:
            try:
                sec, res = timed(args.repeats, bias=bias, metric=metric, data=table, D=args.D, backend=args.backend)
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
                  f"{res.kind:<18}{res.lower:>9.5f}{res.upper:>9.5f}{res.gap:>9.1e}{sec * 1e3:>8.1f}"
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

"""Causal engine benchmark: program size, certified bounds, gap and time per bound.

For the selection, proxy-label, ECP and proxy-label+selection biases on the COMPAS table of the
seed paper (bundled: ``fairprobe.datasets.load_paper_table()``, or a synthetic table when it is
absent) at D = 0.05, and the single-group FPR plus the parity metrics, prints the program size
before and after reduction, the certified bounds, their gap and the median wall time per
certified bound (both sides) with SCIP over ``--repeats`` runs, sequentially and with the two
sides in two processes (``n_jobs=2``). The baseline, run in the same
process, is the naive response-function program (one variable per joint response type, no
reductions) solved by the same driver with a time limit: the ratio column is baseline / fairprobe.

Run: ``python benchmarks/causal_engine.py [--repeats 5] [--baseline-limit 10]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import pandas as pd

import fairprobe as fp
from fairprobe.datasets import load_paper_table

CONFIGS = {"selection": {"S": 1}, "proxy_label": None, "ecp": None, "proxy_label_and_selection": {"S": 1}}
METRICS = ["fpr", "fpr_parity", "fnr_parity", "ppv_parity", "demographic_parity"]


def load_table() -> pd.DataFrame:
    return load_paper_table()


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
    parser.add_argument("--baseline-limit", type=float, default=10.0, help="seconds per baseline solve")
    parser.add_argument("--D", type=float, default=0.05)
    args = parser.parse_args()
    cells = load_table()
    print(f"table: COMPAS (fragile_fair); D = {args.D}; backend scip\n")
    header = (f"{'bias':<26}{'metric':<19}{'vars':>11}{'terms':>7}{'deg':>4} {'kind':<18}"
              f"{'lower':>9}{'upper':>9}{'gap':>9}{'ms':>8}{'ms 2cpu':>8}{'base ms':>9}{'x':>7}  base bounds")
    print(header)
    print("-" * len(header))
    fp.bound("proxy_label", "fpr", fp.ObservedTable.from_probabilities(cells), D=args.D)  # warm-up
    for bias, given in CONFIGS.items():
        table = fp.ObservedTable.from_probabilities(cells, given=given)
        for metric in METRICS:
            ms, res = timed(args.repeats, bias=bias, metric=metric, data=table, D=args.D)
            ms2, _ = timed(args.repeats, bias=bias, metric=metric, data=table, D=args.D, n_jobs=2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                start = time.perf_counter()
                base = fp.bound(bias, metric, table, D=args.D, reduce=False, time_limit=args.baseline_limit)
                base_s = time.perf_counter() - start
            sb, sa = res.stats_before, res.stats_after
            print(f"{bias:<26}{metric:<19}{sb['n_variables']:>5}->{sa['n_variables']:<4}{sa['n_terms']:>7}"
                  f"{sa['max_degree']:>4} {res.kind:<18}{res.lower:>9.5f}{res.upper:>9.5f}{res.gap:>9.1e}"
                  f"{ms * 1e3:>8.1f}{ms2 * 1e3:>8.1f}{base_s * 1e3:>9.0f}{base_s / ms:>7.1f}  "
                  f"[{base.lower:.4f}, {base.upper:.4f}] {base.status}")


if __name__ == "__main__":
    main()

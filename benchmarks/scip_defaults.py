"""fairprobe's SCIP parameter defaults against SCIP's own, paired in one process.

``fairprobe.backends.scip.DEFAULT_PARAMS`` switches off SCIP's multistart heuristic. This script
times every built-in bias x {FPR, PPV, equalised-odds, demographic parity} parity on ``--tables``
seeded random two-group tables (``causal_engine.random_cells``) and on COMPAS's two largest groups,
once with fairprobe's defaults and once with SCIP's (``DEFAULT_PARAMS`` emptied), alternating per
bound so both see the same machine load. It prints CPU (``time.process_time``) and wall time of one
certified bound (``fp.bound``: problem built and solved), medians per pair and over all bounds, the
worst bound and the largest difference between the two runs' bounds (both certified; a difference
is the solvers' gap tolerance, 1e-6 per side).

``--engine`` compares the bound engine's own SCIP parameters instead
(``fairprobe.backends.scip.PROFILES["engine"]``, the sub-NLP heuristic off for the engine's global
solves) against none, ``DEFAULT_PARAMS`` as shipped in both runs.

Run: ``python benchmarks/scip_defaults.py [--tables 10] [--biases a,b] [--metrics m,n] [--engine]``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
import warnings

from causal_engine import METRICS, random_cells, table_for

import fairprobe as fp
import fairprobe.backends.scip as scip_backend
from fairprobe.datasets import load_compas


def compas_cells():
    df = load_compas().frame
    df = df[df.race.isin(["African-American", "Caucasian"])].assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    table = fp.ObservedTable.from_frame(df, A="race", Y="two_year_recid", P="pred")
    return table.cells


#: The parameter dict the comparison swaps: SCIP's defaults as fairprobe sets them, or the engine's own.
TARGET = scip_backend.DEFAULT_PARAMS


@contextlib.contextmanager
def scip_params(params: dict):
    """Run the block with :data:`TARGET` set to ``params`` (restored after)."""
    saved = dict(TARGET)
    TARGET.clear()
    TARGET.update(params)
    try:
        yield
    finally:
        TARGET.clear()
        TARGET.update(saved)


def timed(bias: str, metric: str, table: fp.ObservedTable, params: dict) -> tuple[float, float, fp.BoundResult]:
    with scip_params(params), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cpu, wall = time.process_time(), time.perf_counter()
        res = fp.bound(bias, metric, table, D=0.05, progress=False)
        return time.process_time() - cpu, time.perf_counter() - wall, res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--biases", default="")
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--engine", action="store_true", help="compare the engine's SCIP parameters with none")
    args = parser.parse_args()
    global TARGET
    if args.engine:
        TARGET = scip_backend.PROFILES["engine"]  # the profile the engine names for its global solves
    biases = args.biases.split(",") if args.biases else sorted(fp.get_registry().biases)
    ours = dict(TARGET)
    tables = [random_cells(seed) for seed in range(args.tables)] + [compas_cells()]
    what = "the engine's SCIP parameters" if args.engine else "fairprobe defaults"
    print(f"{args.tables} seeded random tables + COMPAS (two groups), D = 0.05; {what} {ours} vs none (SCIP's)")
    header = f"{'bias':<38}{'metric':<20}{'ours cpu':>9}{'ours wall':>10}{'scip cpu':>9}{'scip wall':>10}{'x':>6}" \
             f"{'max |diff|':>11}"
    print(header + "\n" + "-" * len(header))
    fp.bound("proxy_label", "fpr_parity", table_for("proxy_label", tables[0]), D=0.05, progress=False)  # warm-up
    every_ours, every_base, worst = [], [], (0.0, "")
    diff_all = 0.0
    for bias in biases:
        for metric in args.metrics.split(","):
            oc, ow, bc, bw, diff = [], [], [], [], 0.0
            for k, cells in enumerate(tables):
                if "prob" not in cells.columns:
                    continue
                table = table_for(bias, cells)
                try:
                    c1, w1, r1 = timed(bias, metric, table, ours)
                    c2, w2, r2 = timed(bias, metric, table, {})
                except fp.FairprobeError:
                    continue
                oc.append(c1), ow.append(w1), bc.append(c2), bw.append(w2)
                diff = max(diff, abs(r1.lower - r2.lower), abs(r1.upper - r2.upper))
                if c1 > worst[0]:
                    worst = (c1, f"{bias} x {metric} on table {k}")
            if not oc:
                continue
            every_ours += oc
            every_base += bc
            diff_all = max(diff_all, diff)
            med = statistics.median
            print(f"{bias:<38}{metric:<20}{med(oc) * 1e3:>9.1f}{med(ow) * 1e3:>10.1f}{med(bc) * 1e3:>9.1f}"
                  f"{med(bw) * 1e3:>10.1f}{med(bc) / med(oc):>6.2f}{diff:>11.1e}", flush=True)
    med = statistics.median
    print(f"\n{len(every_ours)} bounds (CPU): fairprobe defaults median {med(every_ours) * 1e3:.1f} ms, total "
          f"{sum(every_ours):.1f} s, worst {worst[0] * 1e3:.0f} ms ({worst[1]}); SCIP defaults median "
          f"{med(every_base) * 1e3:.1f} ms, total {sum(every_base):.1f} s, worst {max(every_base) * 1e3:.0f} ms; "
          f"largest difference between the bounds {diff_all:.1e}")


if __name__ == "__main__":
    main()

"""The bound-identity check: every built-in bias x four metrics x four tables x three levels of D.

11 biases x {FPR, PPV parity, equalised odds, demographic parity} x {the seed paper's COMPAS table,
three seeded random two-group tables} x D in {0.01, 0.05, 0.1}: 528 certified bounds, plus
``groups="all"`` FPR and PPV parity on COMPAS's six races (proxy labels and selection, the same D).
``--write FILE`` stores them; ``--check FILE`` recomputes and compares: every bound must be the
stored one, or tighter (lower end higher, upper end lower) by no more than ``--tighter`` in total.
A refactor of the engine runs ``--check`` against the file written on the commit before it.

Run: ``python benchmarks/bound_identity.py --check benchmarks/golden/bound_identity.json``.
Prints CPU and wall time of the whole grid.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings

import numpy as np
import pandas as pd

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.datasets import load_compas, load_paper_table
from fairprobe.testing import selective_labels_table

METRICS = ["fpr_parity", "ppv_parity", "equalized_odds", "demographic_parity"]
LEVELS = [0.01, 0.05, 0.1]


def random_cells(seed: int) -> pd.DataFrame:
    """Eight cells over (A, Y, P), probabilities from a seeded Dirichlet(1) draw (every cell > 0.5 %)."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(8))
    while probs.min() < 0.005:
        probs = rng.dirichlet(np.ones(8))
    rows = [{"A": a, "Y": y, "P": p} for a in (0, 1) for y in (0, 1) for p in (0, 1)]
    return pd.DataFrame(rows).assign(prob=probs)


def table_for(bias: str, cells: pd.DataFrame) -> fp.ObservedTable:
    config = resolve_bias(bias)
    if bias == "selective_labels":
        return fp.ObservedTable.from_probabilities(selective_labels_table(cells))
    given = {node: 1 for node in config.cond_nodes} or None
    return fp.ObservedTable.from_probabilities(cells, given=given)


def compas_races() -> tuple[fp.ObservedTable, fp.ObservedTable]:
    """COMPAS with its six races (prediction: decile score >= 5), as observed and as the selected rows."""
    frame = load_compas().frame.assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    table = fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")
    return table, fp.ObservedTable(table.cells, given={"S": 1}, categories=table.categories)


def grid() -> list[tuple[str, dict]]:
    """(key, fp.bound keywords) of every bound of the check."""
    tables = [("paper", load_paper_table())] + [(f"random{seed}", random_cells(seed)) for seed in range(3)]
    out = []
    for bias in sorted(fp.get_registry().biases):
        for name, cells in tables:
            table = table_for(bias, cells)
            for metric in METRICS:
                for d in LEVELS:
                    out.append((f"{bias}|{metric}|{name}|{d}", {"bias": bias, "metric": metric, "data": table, "D": d}))
    races, selected = compas_races()
    for bias, table in (("proxy_label", races), ("selection", selected)):
        for metric in ("fpr_parity", "ppv_parity"):
            for d in LEVELS:
                out.append((f"{bias}|{metric}:all|compas-races|{d}",
                            {"bias": bias, "metric": fp.metric(metric, groups="all"), "data": table, "D": d}))
    return out


def compute() -> dict[str, list]:
    bounds = {}
    for key, kwargs in grid():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = fp.bound(progress=False, **kwargs)
                bounds[key] = [res.lower, res.upper, str(res.status)]
            except fp.FairprobeError as exc:
                bounds[key] = [None, None, type(exc).__name__]
    return bounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", help="store the bounds in this JSON file")
    parser.add_argument("--check", help="compare with the bounds stored in this JSON file")
    parser.add_argument("--tol", type=float, default=1e-12, help="allowed looseness per end")
    args = parser.parse_args()
    cpu, wall = time.process_time(), time.perf_counter()
    bounds = compute()
    print(f"{len(bounds)} bounds in {time.process_time() - cpu:.1f} s CPU, {time.perf_counter() - wall:.1f} s wall")
    if args.write:
        with open(args.write, "w") as fh:
            fh.write(json.dumps(bounds, indent=0, sort_keys=True))
        print(f"wrote {args.write}")
    if args.check:
        with open(args.check) as fh:
            stored = json.load(fh)
        looser, tighter, changed = [], [], []
        for key, (lo, hi, status) in stored.items():
            new = bounds.get(key)
            if new is None or (lo is None) != (new[0] is None):
                changed.append((key, [lo, hi, status], new))
                continue
            if lo is None:
                continue
            if new[0] < lo - args.tol or new[1] > hi + args.tol or math.isnan(new[0]):
                looser.append((key, (lo, hi), tuple(new[:2])))
            elif new[0] > lo + args.tol or new[1] < hi - args.tol:
                tighter.append((key, (lo, hi), tuple(new[:2])))
        print(f"checked {len(stored)}: {len(looser)} looser, {len(tighter)} tighter, {len(changed)} changed kind")
        for row in (looser + changed)[:20]:
            print("  ", row)
        for row in tighter[:10]:
            print("  tighter", row)
        if looser or changed:
            sys.exit(1)


if __name__ == "__main__":
    main()

"""The bound-identity check: every built-in bias x four metrics x four tables x three levels of D.

11 biases x {FPR, PPV parity, equalised odds, demographic parity} x {the seed paper's COMPAS table,
three seeded random two-group tables} x D in {0.01, 0.05, 0.1}: 528 certified bounds, plus
``groups="all"`` FPR and PPV parity on COMPAS's six races (proxy labels and selection, the same D).
``--write FILE`` stores them; ``--check FILE`` recomputes and compares: every bound must be the
stored one, or tighter (lower end higher, upper end lower) by no more than ``--tighter`` in total.
A refactor of the engine runs ``--check`` against the file written on the commit before it.

Run: ``python benchmarks/bound_identity.py --check benchmarks/golden/bound_identity.json``.
Prints CPU and wall time of the whole grid; it checks values, not speed (the engine's speed against
a baseline in one process is ``causal_engine.py`` and ``compas_races.py``, whose tables it uses).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings

# the engine benchmarks' own tables (this folder is on the path when a script here runs)
from causal_engine import random_cells, table_for
from compas_races import tables as compas_races

import fairprobe as fp
from fairprobe.datasets import load_paper_table

METRICS = ["fpr_parity", "ppv_parity", "equalized_odds", "demographic_parity"]
LEVELS = [0.01, 0.05, 0.1]


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

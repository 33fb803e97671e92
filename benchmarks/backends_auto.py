"""backend="auto" against backend="scip": every built-in bias x {fpr_parity, equalized_odds}.

The eight-cell table of the tests (A, Y, P; two groups) at D = 0.05. For each pair the script
prints the median wall time of one certified bound (``fp.bound``, lower and upper together) over
``--repeats`` runs with ``backend="auto"`` and with ``backend="scip"``, both in this process,
their ratio (scip / auto: above 1 means auto is faster), the largest difference between the two
backends' bounds, and how many programs of one bound ``auto`` gave to each backend (counted by a
hook wrapper around ``fairprobe_select_backend``). Biases conditioned on selection see the
selected rows (``given={"S": 1}``); ``selective_labels`` sees the table with a release decision
``S`` that follows the prediction and an outcome ``O`` recorded only for released people.

Run: ``python benchmarks/backends_auto.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import collections
import statistics

import pandas as pd
from causal_engine import table_for, timed  # the same tables and timing as the engine benchmark

import fairprobe as fp
from fairprobe import hookimpl
from fairprobe.core.registry import get_plugin_manager

METRICS = ["fpr_parity", "equalized_odds"]
CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})


class Tally:
    """Counts the backend chosen for each program (a wrapper: it changes no choice)."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()

    @hookimpl(wrapper=True)
    def fairprobe_select_backend(self, program, available):
        chosen = yield
        if program is not None and chosen is not None:
            self.counts[chosen] += 1
        return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--D", type=float, default=0.05)
    args = parser.parse_args()
    tally = Tally()
    get_plugin_manager().register(tally)
    usable = [n for n, cls in sorted(fp.get_registry().backends.items()) if cls.availability()]
    print(f"eight-cell table, D = {args.D}, {args.repeats} repeats; usable backends: {', '.join(usable)}\n")
    header = (f"{'bias':<38}{'metric':<16}{'auto ms':>9}{'scip ms':>9}{'scip/auto':>10}{'max |diff|':>11}"
              "  programs auto gave to")
    print(header)
    print("-" * (len(header) + 12))
    for backend in ("auto", "scip"):  # warm-up: imports and licence checks are not solve time
        fp.bound("proxy_label", "fpr", CELLS, D=args.D, backend=backend)
    ratios, auto_total, scip_total = [], 0.0, 0.0
    for bias in sorted(fp.get_registry().biases):
        table = table_for(bias, CELLS)
        for metric in METRICS:
            kwargs = dict(bias=bias, metric=metric, data=table, D=args.D)
            try:
                tally.counts.clear()
                t_auto, auto = timed(args.repeats, backend="auto", **kwargs)
                counts = {name: count // args.repeats for name, count in sorted(tally.counts.items())}
                t_scip, scip = timed(args.repeats, backend="scip", **kwargs)
            except fp.FairprobeError as exc:
                print(f"{bias:<38}{metric:<16}  {type(exc).__name__}: {str(exc)[:80]}")
                continue
            diff = max(abs(auto.lower - scip.lower), abs(auto.upper - scip.upper))
            ratios.append(t_scip / t_auto)
            auto_total += t_auto
            scip_total += t_scip
            used = ", ".join(f"{name} {count}" for name, count in counts.items())
            print(f"{bias:<38}{metric:<16}{t_auto * 1e3:>9.1f}{t_scip * 1e3:>9.1f}{t_scip / t_auto:>10.2f}"
                  f"{diff:>11.1e}  {used}", flush=True)
    print(f"\n{len(ratios)} bounds: scip/auto median {statistics.median(ratios):.2f}x "
          f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x); total {auto_total:.2f} s with auto, "
          f"{scip_total:.2f} s with scip ({scip_total / auto_total:.2f}x)")


if __name__ == "__main__":
    main()

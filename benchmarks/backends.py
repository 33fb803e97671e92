"""Backend benchmark: median solve time over 5 runs per contract problem, and ratio to SCIP.

Run: ``python benchmarks/backends.py [--repeats 5]``. The baseline (SCIP) runs in the same
process, so the ratios are comparable across machines.
"""

from __future__ import annotations

import argparse
import statistics
import time

import fairprobe as fp
from fairprobe.core.registry import get_registry
from fairprobe.testing import CONTRACT_PROBLEMS, declares_capable


def median_time(backend: fp.Backend, problem, repeats: int) -> tuple[float, float]:
    times, bound = [], float("nan")
    for _ in range(repeats):
        prog = problem.program
        start = time.perf_counter()
        res = backend.solve(prog)
        times.append(time.perf_counter() - start)
        bound = res.objective_bound
    return statistics.median(times), bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    backends = {n: c() for n, c in sorted(get_registry().backends.items()) if c.availability()}
    names = ["scip"] + [n for n in backends if n != "scip"]
    for b in backends.values():  # warm-up: imports and licence checks are not solve time
        b.solve(CONTRACT_PROBLEMS[0].program)
    header = f"{'problem':<22}" + "".join(f"{n + ' ms':>12}{'x scip':>8}" for n in names)
    print(header)
    print("-" * len(header))
    for problem in CONTRACT_PROBLEMS:
        cells, base = [], None
        for n in names:
            backend = backends[n]
            if not declares_capable(backend.capabilities, problem):
                cells.append(f"{'refused':>12}{'':>8}")
                continue
            t, _ = median_time(backend, problem, args.repeats)
            base = t if n == "scip" else base
            ratio = f"{t / base:.2f}" if base else "-"
            cells.append(f"{t * 1e3:>12.2f}{ratio:>8}")
        print(f"{problem.name:<22}" + "".join(cells))


if __name__ == "__main__":
    main()

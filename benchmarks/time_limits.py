"""Wall-clock time of each backend's solve at a 1 s time limit (run it on an idle machine).

The test suite checks time limits with :class:`fairprobe.testing.Stopwatch` (the smaller of
wall-clock and CPU time), so that a busy machine does not fail it; this script prints what the
tests cannot assert: the wall-clock seconds of a solve that must stop at its limit, beside its CPU
seconds. A hard nonconvex quadratic (minimum of ``x'Qx`` on the simplex) for the global solvers, a
dense LP for the convex-only ones (HiGHS, cvxpy).

Run: ``python benchmarks/time_limits.py [--limit 1.0]``.
"""

from __future__ import annotations

import argparse

import fairprobe as fp
from fairprobe.backends.base import SolveOptions
from fairprobe.core.registry import get_registry
from fairprobe.testing import CONTRACT_PROBLEMS, Stopwatch, dense_lp, hard_standard_quadratic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=float, default=1.0, help="Time limit of each solve (seconds).")
    args = parser.parse_args()
    names = [n for n, cls in sorted(get_registry().backends.items()) if cls.availability()]
    print(f"{'backend':<10}{'program':<20}{'wall s':>8}{'cpu s':>8}  status")
    for name in names:
        backend = fp.get_backend(name)
        backend.solve(CONTRACT_PROBLEMS[0].program)  # warm-up: imports and licence checks are not the solve
        convex_only = name in ("cvxpy", "highs")
        prog, label = (dense_lp(), "dense LP") if convex_only else (hard_standard_quadratic(), "nonconvex QP")
        try:
            with Stopwatch() as watch:
                res = backend.solve(prog, SolveOptions(time_limit=args.limit))
        except fp.FairprobeError as exc:
            print(f"{name:<10}{label:<20}{'':>8}{'':>8}  refused: {exc}")
            continue
        status = res.termination.value + (f" ({res.limit.value})" if res.limit is not None else "")
        print(f"{name:<10}{label:<20}{watch.wall:>8.2f}{watch.cpu:>8.2f}  {status}")


if __name__ == "__main__":
    main()

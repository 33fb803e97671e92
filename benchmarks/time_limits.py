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

import numpy as np

import fairprobe as fp
from fairprobe.backends.base import SolveOptions
from fairprobe.core.registry import get_registry
from fairprobe.testing import CONTRACT_PROBLEMS, Stopwatch


def hard_standard_quadratic(n: int = 60, seed: int = 3) -> fp.PolynomialProgram:
    """min x'Qx on the simplex with an indefinite Q (the program of tests/backends/test_contract.py)."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, n))
    q = (q + q.T) / 2
    prog = fp.PolynomialProgram(sense="min")
    idx = [prog.add_variable(f"x{i}", 0, 1) for i in range(n)]
    prog.set_objective({tuple(sorted((i, j))): float(q[i, j]) for i in idx for j in idx})
    prog.add_constraint({(i,): 1.0 for i in idx}, "==", 1.0, name="simplex")
    return prog


def dense_lp(n: int = 600, seed: int = 0) -> fp.PolynomialProgram:
    """A dense n x n LP (the program of tests/backends/test_auto_backend.py)."""
    rng = np.random.default_rng(seed)
    a, c = rng.uniform(0, 1, size=(n, n)), rng.uniform(0, 1, size=n)
    prog = fp.PolynomialProgram(sense="max")
    idx = [prog.add_variable(f"x{i}", 0, 10) for i in range(n)]
    prog.set_objective({(i,): float(c[i]) for i in idx})
    for k in range(n):
        prog.add_constraint({(i,): float(a[k, i]) for i in idx}, "<=", float(a[k].sum()))
    return prog


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

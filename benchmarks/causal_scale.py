"""The causal engine at the size of real audits: many groups and covariates with many levels.

For an attribute with k groups (FPR parity between the first and the last group under proxy labels
and under selection) and for a covariate X with k levels (X -> A, Y, P, Z under proxy labels, with
and without a latent X <-> Y confounder), prints the program size after reduction, the CPU time
(``time.process_time``) to compile and to solve one certified bound and the wall total, medians over
``--seeds`` seeded tables per size, and the same for the previous engine (every response type
enumerated, ``CompileOptions(slicing=False)``) where it runs at all (it refuses more than 2,000,000
joint response types; ``--baseline-limit`` caps its solves). The previous engine runs in a child
process, because it can hang inside SCIP where no time limit reaches it; its CPU time is measured
inside that process.

Run: ``python benchmarks/causal_scale.py [--groups 2,3,4,5,6,8,16,64,256] [--levels 2,4,8,16,64] [--seeds 3]``.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import multiprocessing as mp
import statistics
import time
import warnings

import numpy as np
import pandas as pd

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.core.config import BiasConfig
from fairprobe.core.options import CompileOptions
from fairprobe.exceptions import FairprobeError


def group_table(k: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = list(itertools.product(range(k), range(2), range(2)))
    return pd.DataFrame(rows, columns=["A", "Y", "P"]).assign(prob=rng.dirichlet(np.full(len(rows), 4.0)))


def covariate_table(k: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = list(itertools.product(range(k), range(2), range(2), range(2)))
    return pd.DataFrame(rows, columns=["X", "A", "Y", "P"]).assign(prob=rng.dirichlet(np.full(len(rows), 4.0)))


def covariate_bias(latent: bool) -> BiasConfig:
    dag = "X -> A, X -> Y, X -> P, X -> Z, A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y"
    return BiasConfig.from_dict({
        "name": "proxy_label_X" + ("_latent" if latent else ""),
        "dag_str": dag + (", V -> X, V -> Y" if latent else ""),
        "unob": ["U", "V"] if latent else ["U"], "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
        "constraints": ["P(Z = Y) >= 1 - D"], "observed_nodes": ["X", "A", "Y", "P"], "cardinality_of": {"Z": "Y"}})


def measure(bias, metric, table, D: float, time_limit: float, options: CompileOptions | None = None) -> dict:
    """Compile and solve one certified bound from scratch: sizes, bounds, and CPU and wall seconds of each step."""
    wall, cpu = time.perf_counter(), time.process_time()
    problem = BoundProblem(bias, metric, table, compile_options=options)
    compile_wall, compile_cpu = time.perf_counter() - wall, time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    res = problem.solve({"D": D}, time_limit=time_limit)
    return {"vars": res.stats_after.get("n_variables"), "cons": res.stats_after.get("n_constraints"),
            "compile": compile_wall, "solve": time.perf_counter() - wall, "compile_cpu": compile_cpu,
            "solve_cpu": time.process_time() - cpu, "lower": res.lower, "upper": res.upper, "gap": res.gap,
            "status": res.status}


def _baseline(queue, bias, metric, table, D: float, time_limit: float) -> None:
    try:
        queue.put(measure(bias, metric, table, D, time_limit, CompileOptions(slicing=False)))
    except FairprobeError as exc:
        queue.put(f"refused: {str(exc)[:60]}...")


def baseline(bias, metric, table, args: argparse.Namespace) -> dict | str:
    """The previous engine in a child process with a hard wall-clock limit (it can hang inside SCIP, where
    no time limit reaches it); its CPU time is measured inside the child."""
    queue: mp.Queue = mp.Queue()
    proc = mp.Process(target=_baseline, args=(queue, bias, metric, table, args.D, args.baseline_limit))
    proc.start()
    proc.join(4 * args.baseline_limit + 30)
    if proc.is_alive():
        proc.terminate()
        return f"no result in {4 * args.baseline_limit + 30:.0f} s (killed)"
    return queue.get() if not queue.empty() else "failed"


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def row(label: str, bias, metric, make_table, args: argparse.Namespace, run_baseline: bool) -> None:
    """Medians over ``--seeds`` seeded tables of one size (the bounds shown are the first seed's)."""
    tables = [make_table(seed) for seed in range(args.seeds)]
    new = [measure(bias, metric, t, args.D, args.time_limit) for t in tables]
    old_text = "-"
    if run_baseline:
        old = [baseline(bias, metric, t, args) for t in tables]
        failed = [o for o in old if isinstance(o, str)]
        if failed:
            old_text = failed[0]
        else:
            same = max(max(abs(o["lower"] - n["lower"]), abs(o["upper"] - n["upper"]))
                       for o, n in zip(old, new, strict=True))
            ratio = statistics.median((o["compile_cpu"] + o["solve_cpu"]) / (n["compile_cpu"] + n["solve_cpu"])
                                      for o, n in zip(old, new, strict=True))
            old_wall = _median(old, "compile") + _median(old, "solve")
            old_text = (f"{old[0]['vars']:>6} vars cpu {_median(old, 'compile_cpu'):7.2f}s + "
                        f"{_median(old, 'solve_cpu'):6.2f}s wall {old_wall:6.2f}s |diff| {same:.1e}  {ratio:.1f}x")
    first = new[0]
    print(f"{label:<34}{first['vars']:>7}{first['cons']:>7}{_median(new, 'compile_cpu'):>9.3f}"
          f"{_median(new, 'solve_cpu'):>10.3f}{_median(new, 'compile') + _median(new, 'solve'):>8.3f} "
          f"[{first['lower']:+.5f}, {first['upper']:+.5f}] {max(n['gap'] for n in new):.0e} "
          f"{','.join(sorted({n['status'] for n in new})):<8} | {old_text}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="2,3,4,5,6,8,16,64,256")
    parser.add_argument("--levels", default="2,4,8,16,64")
    parser.add_argument("--D", type=float, default=0.05)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--baseline-limit", type=float, default=30.0, help="seconds per baseline solve")
    parser.add_argument("--baseline-max", type=int, default=4, help="largest k run on the previous engine")
    parser.add_argument("--seeds", type=int, default=3, help="seeded tables per size (medians reported)")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    print(f"D = {args.D}; SCIP; CPU seconds to compile and to solve one certified bound (min and max) and the "
          f"wall total, medians over {args.seeds} seeded tables per size; previous engine where it runs "
          "(x: its CPU over this engine's, median over the tables)\n")
    print(f"{'case':<34}{'vars':>7}{'cons':>7}{'comp cpu':>9}{'solve cpu':>10}{'wall':>8} {'bounds (seed 0)':<22} "
          "gap status   | previous engine")
    for bias in ("proxy_label", "selection"):
        for k in [int(v) for v in args.groups.split(",")]:
            row(f"{bias}, {k} groups", bias, fp.metric("fpr_parity", groups=(0, k - 1)),
                functools.partial(group_table, k), args, k <= args.baseline_max)
    for latent in (False, True):
        for k in [int(v) for v in args.levels.split(",")]:
            row(f"covariate {k} levels{' + latent X<->Y' if latent else ''}", covariate_bias(latent), "fpr_parity",
                functools.partial(covariate_table, k), args, k <= min(args.baseline_max, 2))

if __name__ == "__main__":
    main()

"""The causal engine at the size of real audits: many groups and covariates with many levels.

For an attribute with k groups (FPR parity between the first and the last group under proxy labels
and under selection) and for a covariate X with k levels (X -> A, Y, P, Z under proxy labels, with
and without a latent X <-> Y confounder), prints the program size after reduction, the compile time
and the solve time per certified bound, and the same for the previous engine (every response type
enumerated, ``CompileOptions(slicing=False)``) in the same process where it runs at all
(it refuses more than 2,000,000 joint response types; ``--baseline-limit`` caps its solves).

Run: ``python benchmarks/causal_scale.py [--groups 2,3,4,5,6,8,16,64,256] [--levels 2,4,8,16,64]``.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing as mp
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
    start = time.perf_counter()
    problem = BoundProblem(bias, metric, table, compile_options=options, reuse=False)
    compiled = time.perf_counter() - start
    res = problem.solve({"D": D}, time_limit=time_limit)
    return {"vars": res.stats_after.get("n_variables"), "cons": res.stats_after.get("n_constraints"),
            "compile": compiled, "solve": res.wall_time, "lower": res.lower, "upper": res.upper,
            "gap": res.gap, "status": res.status}


def _baseline(queue, bias, metric, table, D: float, time_limit: float) -> None:
    try:
        queue.put(measure(bias, metric, table, D, time_limit, CompileOptions(slicing=False)))
    except FairprobeError as exc:
        queue.put(f"refused: {str(exc)[:60]}...")


def baseline(bias, metric, table, args: argparse.Namespace) -> dict | str:
    """The previous engine in a child process with a hard wall-clock limit (it can hang inside SCIP)."""
    queue: mp.Queue = mp.Queue()
    proc = mp.Process(target=_baseline, args=(queue, bias, metric, table, args.D, args.baseline_limit))
    proc.start()
    proc.join(4 * args.baseline_limit + 30)
    if proc.is_alive():
        proc.terminate()
        return f"no result in {4 * args.baseline_limit + 30:.0f} s (killed)"
    return queue.get() if not queue.empty() else "failed"


def row(label: str, bias, metric, table, args: argparse.Namespace, run_baseline: bool) -> None:
    new = measure(bias, metric, table, args.D, args.time_limit)
    old_text = "-"
    if run_baseline:
        old = baseline(bias, metric, table, args)
        if isinstance(old, str):
            old_text = old
        else:
            same = max(abs(old["lower"] - new["lower"]), abs(old["upper"] - new["upper"]))
            ratio = (old["compile"] + old["solve"]) / (new["compile"] + new["solve"])
            old_text = (f"{old['vars']:>6} vars {old['compile']:7.2f}s + {old['solve']:6.2f}s {old['status']:<8} "
                        f"|diff| {same:.1e}  {ratio:.1f}x")
    print(f"{label:<34}{new['vars']:>7}{new['cons']:>7}{new['compile']:>9.3f}{new['solve']:>9.3f} "
          f"[{new['lower']:+.5f}, {new['upper']:+.5f}] {new['gap']:.0e} {new['status']:<8} | {old_text}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="2,3,4,5,6,8,16,64,256")
    parser.add_argument("--levels", default="2,4,8,16,64")
    parser.add_argument("--D", type=float, default=0.05)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--baseline-limit", type=float, default=30.0, help="seconds per baseline solve")
    parser.add_argument("--baseline-max", type=int, default=4, help="largest k run on the previous engine")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    print(f"D = {args.D}; SCIP; time per certified bound (min and max); previous engine where it runs\n")
    print(f"{'case':<34}{'vars':>7}{'cons':>7}{'compile':>9}{'solve':>9} {'bounds':<22} gap status   | previous engine")
    for bias in ("proxy_label", "selection"):
        for k in [int(v) for v in args.groups.split(",")]:
            row(f"{bias}, {k} groups", bias, fp.metric("fpr_parity", groups=(0, k - 1)), group_table(k), args,
                k <= args.baseline_max)
    for latent in (False, True):
        for k in [int(v) for v in args.levels.split(",")]:
            row(f"covariate {k} levels{' + latent X<->Y' if latent else ''}", covariate_bias(latent), "fpr_parity",
                covariate_table(k), args, k <= min(args.baseline_max, 2))


if __name__ == "__main__":
    main()

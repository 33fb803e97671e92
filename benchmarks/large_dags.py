"""Large and padded DAGs: validation cost against the DAG's size, and unmeasured noise nodes.

Part 1 (issue 23 H2). A bias config is ``proxy_label`` plus ``n`` extra covariates, as a chain
``X0 -> X1 -> ... -> Xn`` (edges listed in a seeded order) or as a random forward DAG (each new
node draws up to two parents among the earlier ones); three seeds each. Validating it
(``BiasConfig``: DAG, latent projection, response types, slice plan) is timed, median over the
seeds, in CPU (``time.process_time``) and wall time. The baseline, run in the same process, swaps
in the previous ``DAG.observed_parents`` (a scan of the whole topological order on every call)
and ``plan_slices`` (which asked for it inside nested loops over nodes), cubic in ``n``
together; ``x`` is baseline / fairprobe.

Part 2 (issue 23 H1). ``proxy_label`` with ``k`` unmeasured parents of ``Y`` (each with no other
child), FPR at D = 0.05, on three tables drawn from seeded random SCMs of ``proxy_label``.
fairprobe absorbs them into ``Y``'s noise (exact: the bound equals the base bias's, counted in
"same bounds"); the baseline keeps them as variables (the absorption switched off), with a time
limit.

Run: ``python benchmarks/large_dags.py [--sizes 200 400 1000] [--baseline-limit 20]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

import fairprobe as fp
from fairprobe.core import engine as bound_module
from fairprobe.core import response
from fairprobe.core.bound import resolve_bias
from fairprobe.core.dag import DAG
from fairprobe.testing import RandomSCM

SEEDS = (0, 1, 2)


def _old_observed_parents(self: DAG, v: str) -> list[str]:
    ps = set(self.parents(v))
    return [p for p in self.order if p in ps and p not in self.unobserved]


def _old_plan_slices(dag, districts, sliceable):
    """The slice plan as it was (commit 9f74352): parent lists re-derived inside nested loops."""
    allowed = set(sliceable)
    single = {d[0] for d in districts if len(d) == 1}
    candidates = [v for v in dag.endogenous if v in allowed & single]
    taken: set[str] = set()
    out = {}
    for names in sorted(districts, key=lambda d: (-len(d), dag.endogenous.index(d[0]))):
        if len(names) == 1 and names[0] in taken:
            continue
        own = [r for r in names if len(names) > 1 and r in allowed and not dag.observed_parents(r)
               and all(r in dag.observed_parents(m) for m in names if m != r)]
        rest = [m for m in names if m not in own]
        chosen = {v for v in candidates if v not in taken and v not in names
                  and all(v in dag.observed_parents(m) for m in rest)}
        changed = True
        while changed:
            changed = False
            for v in list(chosen):
                if not set(dag.observed_parents(v)) <= chosen | set(own):
                    chosen.discard(v)
                    changed = True
        if own or chosen:
            out[tuple(names)] = [v for v in dag.endogenous if v in chosen or v in own]
            taken.update(chosen)
    return out


def _baseline(run: Callable[[], object]) -> tuple[float, float]:
    """``run`` timed with the previous DAG helpers swapped in."""
    new_parents, new_plan = DAG.observed_parents, response.plan_slices
    DAG.observed_parents, response.plan_slices = _old_observed_parents, _old_plan_slices
    try:
        return timed(run)
    finally:
        DAG.observed_parents, response.plan_slices = new_parents, new_plan


def padded(n: int, shape: str, seed: int) -> str:
    """``proxy_label`` plus ``n`` covariates: a chain (its edges listed in a seeded order) or a random DAG."""
    base = resolve_bias("proxy_label").dag_str
    rng = np.random.default_rng(seed)
    if shape == "chain":
        edges = [f"X{i}->X{i + 1}" for i in range(n)]
        rng.shuffle(edges)
    else:
        edges = [f"X{j}->X{i}" for i in range(1, n + 1) for j in rng.choice(i, size=min(i, 2), replace=False)]
    return base + ", " + ", ".join(edges)


def timed(run: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


def validation(sizes: list[int]) -> None:
    base = resolve_bias("proxy_label")
    print("Part 1: validating proxy_label + n covariates (median over seeds; CPU / wall seconds)")
    print(f"{'shape':<8} {'n':>5} {'cpu':>8} {'wall':>8} {'base cpu':>9} {'base wall':>9} {'x':>7}")
    for shape in ("chain", "random"):
        for n in sizes:
            ours, theirs = [], []
            for seed in SEEDS:
                dag_str = padded(n, shape, seed)
                ours.append(timed(lambda d=dag_str: dataclasses.replace(base, dag_str=d)))
                theirs.append(_baseline(lambda d=dag_str: dataclasses.replace(base, dag_str=d)))
            cpu, wall = (statistics.median(t[i] for t in ours) for i in (0, 1))
            bcpu, bwall = (statistics.median(t[i] for t in theirs) for i in (0, 1))
            print(f"{shape:<8} {n:>5} {cpu:>8.3f} {wall:>8.3f} {bcpu:>9.3f} {bwall:>9.3f} {bcpu / cpu:>6.0f}x")


def noise_parents(limit: float) -> None:
    base = resolve_bias("proxy_label")
    tables = [RandomSCM(base, seed=seed, concentration=3.0).table(["A", "Y", "P"]) for seed in SEEDS]
    print("\nPart 2: FPR under proxy_label with k unmeasured parents of Y, D = 0.05, median over "
          f"{len(SEEDS)} seeded tables (CPU / wall seconds; base = kept as variables, time limit {limit:g} s)")
    print(f"{'k':>2} {'cpu':>7} {'wall':>7} {'base cpu':>9} {'base wall':>9} {'same bounds':>11} base statuses")
    for k in (1, 2, 3):
        config = dataclasses.replace(base, dag_str=base.dag_str + "".join(f", X{i}->Y" for i in range(k)))
        ours, theirs, same, statuses = [], [], 0, []
        for table in tables:
            reference = fp.bound(base, "fpr", table, D=0.05)
            box: dict[str, fp.BoundResult] = {}
            ours.append(timed(lambda c=config, t=table, b=box: b.setdefault("ours", fp.bound(c, "fpr", t, D=0.05))))
            original = bound_module.absorbable_nodes
            bound_module.absorbable_nodes = lambda *args, **kwargs: []
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    theirs.append(timed(lambda c=config, t=table, b=box: b.setdefault(
                        "base", fp.bound(c, "fpr", t, D=0.05, time_limit=limit))))
            finally:
                bound_module.absorbable_nodes = original
            same += abs(box["ours"].lower - reference.lower) < 1e-9 and abs(box["ours"].upper - reference.upper) < 1e-9
            statuses.append(box["base"].status)
        cpu, wall = (statistics.median(t[i] for t in ours) for i in (0, 1))
        bcpu, bwall = (statistics.median(t[i] for t in theirs) for i in (0, 1))
        print(f"{k:>2} {cpu:>7.3f} {wall:>7.3f} {bcpu:>9.2f} {bwall:>9.2f} {same:>5}/{len(tables):<5} "
              f"{','.join(statuses)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 400, 1000])
    parser.add_argument("--baseline-limit", type=float, default=20.0)
    args = parser.parse_args()
    validation(args.sizes)
    noise_parents(args.baseline_limit)


if __name__ == "__main__":
    main()

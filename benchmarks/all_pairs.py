"""All pairs of many groups: ``groups="all"`` FPR parity on 2 to 64 groups, this engine against another checkout.

For k groups (a seeded Dirichlet table over A x Y x P, as ``causal_scale.py`` draws them) and each bias
(proxy labels, selection, proxy labels + selection), the script times one certified bound of
``fpr_parity`` with ``groups="all"`` at D = 0.05: CPU time (``time.process_time``) and wall time,
medians over ``--seeds`` tables, the statuses, and the growth exponent of the CPU time from the
smallest to the largest k (slope of log time against log k). With ``--baseline-src`` (the ``src``
directory of another checkout, e.g. ``git worktree add /tmp/old <rev>``) the same bounds run on
that engine too. Each (engine, k, seed) runs in a fresh child process, the two engines alternating,
after a warm-up bound in that process (imports and first-use costs left out); the CPU time is
measured inside the child. Up to ``--terms-max`` groups (default 16) the same child also times, as
the baseline in the same process, the metric bounded from its terms alone
(``CompileOptions(rate_ranges=False)``: every pair bounded on its own, the formulation before the family
ranges). Both engines' bounds are printed side by side with the largest difference of their ends.

With ``--real`` it cross-checks instead, in this process, on the bundled tables (COMPAS's six races,
Adult's five, German credit's four personal-status groups): every all-pairs bound of FPR parity, PPV
parity and equalised odds under proxy labels, selection, ECP and proxy labels + selection at D = 0.01
and 0.05, from the family ranges (the default) and from the metric's terms alone
(``CompileOptions(rate_ranges=False)``, each pair bounded on its own). It prints the largest difference
of the upper ends (both exact), of the lower ends (SCIP's window program against its term program),
and any lower end above a model the other formulation verified.

Run: ``python benchmarks/all_pairs.py [--groups 2,6,16,64] [--seeds 3] [--baseline-src /tmp/old/src]``
or ``python benchmarks/all_pairs.py --real``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

BIASES = ("proxy_label", "selection", "proxy_label_and_selection")

CHILD = r"""
import itertools, json, sys, time, warnings
import numpy as np, pandas as pd
import fairprobe as fp

warnings.simplefilter("ignore")
bias, k, seed, limit, terms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"

def table(k, seed):
    rng = np.random.default_rng(seed)
    rows = list(itertools.product(range(k), range(2), range(2)))
    frame = pd.DataFrame(rows, columns=["A", "Y", "P"]).assign(prob=rng.dirichlet(np.full(len(rows), 4.0)))
    given = {"S": 1} if "selection" in bias else None
    return fp.ObservedTable.from_probabilities(frame, given=given)

metric = fp.metric("fpr_parity", groups="all")
fp.bound(bias, metric, table(3, 99), D=0.05, progress=False)  # warm-up
data = table(k, seed)
cpu, wall = time.process_time(), time.perf_counter()
res = fp.bound(bias, metric, data, D=0.05, progress=False, time_limit=limit)
out = {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
       "status": str(res.status), "lower": res.lower, "upper": res.upper}
if terms:  # the baseline in this process: every pair bounded on its own
    cpu, wall = time.process_time(), time.perf_counter()
    fp.bound(bias, metric, data, D=0.05, progress=False, time_limit=limit,
             compile_options=fp.CompileOptions(rate_ranges=False))
    out.update(terms_cpu=time.process_time() - cpu, terms_wall=time.perf_counter() - wall)
print(json.dumps(out))
"""


def run(src: str, bias: str, k: int, seed: int, limit: float, terms: bool = False) -> dict:
    """One bound in a fresh process on the engine under ``src`` (and its terms-alone baseline with ``terms``)."""
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", CHILD, bias, str(k), str(seed), str(limit), "1" if terms else "0"],
                         env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"cpu": math.nan, "wall": math.nan, "status": "failed: " + out.stderr.strip().splitlines()[-1],
                "lower": math.nan, "upper": math.nan}
    return json.loads(out.stdout.strip().splitlines()[-1])


def exponent(ks: list[int], times: list[float]) -> float:
    """Slope of log time against log k from the first to the last size."""
    return math.log(times[-1] / times[0]) / math.log(ks[-1] / ks[0]) if len(ks) > 1 else math.nan


def real_tables() -> dict[str, tuple]:
    """The bundled tables as (proxy-label table, the same read as the selected rows)."""
    import fairprobe as fp
    from fairprobe.datasets import load_adult, load_compas, load_german

    compas = load_compas().frame.assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    adult = load_adult().frame.assign(pred=lambda d: (d.education_num >= 13).astype(int))
    german = load_german().frame.assign(pred=lambda d: (d.credit_amount <= d.credit_amount.median()).astype(int))
    out = {}
    for name, frame, columns in [("compas", compas, dict(A="race", Y="two_year_recid", P="pred")),
                                 ("adult", adult, dict(A="race", Y="income", P="pred")),
                                 ("german", german, dict(A="personal_status", Y="good_credit", P="pred"))]:
        table = fp.ObservedTable.from_frame(frame, **columns)
        out[name] = (table, fp.ObservedTable(table.cells, given={"S": 1}, categories=table.categories))
    return out


def cross_check() -> None:
    """Family ranges against the terms alone on the bundled tables (see the module docstring)."""
    import warnings

    import fairprobe as fp

    warnings.simplefilter("ignore")
    worst_upper = worst_lower = 0.0
    crossed, n = [], 0
    cpu = {"families": 0.0, "terms": 0.0}
    wall = {"families": 0.0, "terms": 0.0}
    import time
    for name, (table, selected) in real_tables().items():
        for bias in ("proxy_label", "selection", "ecp", "proxy_label_and_selection"):
            data = selected if "selection" in bias else table
            for metric in ("fpr_parity", "ppv_parity", "equalized_odds"):
                for D in (0.01, 0.05):
                    spec = fp.metric(metric, groups="all")
                    res = {}
                    for label, options in (("families", None), ("terms", fp.CompileOptions(rate_ranges=False))):
                        start, started = time.process_time(), time.perf_counter()
                        res[label] = fp.bound(bias, spec, data, D=D, progress=False, compile_options=options)
                        cpu[label] += time.process_time() - start
                        wall[label] += time.perf_counter() - started
                    a, b = res["families"], res["terms"]
                    n += 1
                    worst_upper = max(worst_upper, abs(a.upper - b.upper))
                    worst_lower = max(worst_lower, abs(a.lower - b.lower))
                    for x, y in ((a, b), (b, a)):
                        if y.lower_achieved is not None and x.lower > y.lower_achieved + 1e-9:
                            crossed.append((name, bias, metric, D, x.lower, y.lower_achieved))
                    print(f"{name:7} {bias:26} {metric:15} D={D:<5} families [{a.lower:.9f}, {a.upper:.9f}] "
                          f"{a.status:8} terms [{b.lower:.9f}, {b.upper:.9f}] {b.status}", flush=True)
    print(f"{n} all-pairs bounds: largest |upper difference| {worst_upper:.1e}, |lower difference| "
          f"{worst_lower:.1e}; lower ends above a model the other formulation verified: {len(crossed)}; "
          f"CPU {cpu['families']:.1f} s (families) against {cpu['terms']:.1f} s (terms alone), wall "
          f"{wall['families']:.1f} s against {wall['terms']:.1f} s")
    for row in crossed:
        print("  crossed:", row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="2,6,16,64")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--biases", default=",".join(BIASES))
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--terms-max", type=int, default=16, help="largest k timed from the terms alone too")
    parser.add_argument("--baseline-src", default="", help="src directory of the engine to compare with")
    parser.add_argument("--real", action="store_true", help="cross-check the formulations on the bundled tables")
    args = parser.parse_args()
    if args.real:
        cross_check()
        return
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    engines = [("this", here)] + ([("baseline", args.baseline_src)] if args.baseline_src else [])
    ks = [int(k) for k in args.groups.split(",")]
    for bias in args.biases.split(","):
        print(f"\n{bias}: fpr_parity, groups='all', D = 0.05; medians over {args.seeds} seeded tables")
        diff_column = f" {'max |end diff|':>15}" if len(engines) == 2 else ""
        print(f"{'k':>4} " + " ".join(f"{name + ' cpu s':>15} {name + ' wall s':>15} {'statuses':>22}"
                                      for name, _ in engines) + diff_column)
        medians: dict[str, list[float]] = {name: [] for name, _ in engines}
        for k in ks:
            rows: dict[str, list[dict]] = {name: [] for name, _ in engines}
            for seed in range(args.seeds):
                for name, src in engines:  # alternating: the machine's load falls on both alike
                    rows[name].append(run(src, bias, k, seed, args.time_limit, terms=k <= args.terms_max))
            line = f"{k:>4} "
            for name, _ in engines:
                cpu = statistics.median(r["cpu"] for r in rows[name])
                wall = statistics.median(r["wall"] for r in rows[name])
                medians[name].append(cpu)
                statuses = ",".join(sorted({r["status"] for r in rows[name]}))
                line += f"{cpu:>15.3f} {wall:>15.3f} {statuses:>22}"
            if all("terms_cpu" in r for r in rows["this"]):
                terms_cpu = statistics.median(r["terms_cpu"] for r in rows["this"])
                terms_wall = statistics.median(r["terms_wall"] for r in rows["this"])
                line += f"  terms alone, same process: {terms_cpu:.3f} s CPU, {terms_wall:.3f} s wall"
            if len(engines) == 2:
                diff = max(max(abs(a["lower"] - b["lower"]), abs(a["upper"] - b["upper"]))
                           for a, b in zip(rows["this"], rows["baseline"], strict=True))
                line += f" {diff:>15.2e}"
            print(line, flush=True)
        print("growth exponent of CPU time: " + ", ".join(f"{name} {exponent(ks, medians[name]):.2f}"
                                                          for name, _ in engines))


if __name__ == "__main__":
    main()

"""The fragility study at full size: 1 worker, 2 workers and a Dask LocalCluster (issue 28).

Runs ``examples/study/paper.yaml`` (the bundled data sets x 3 classifiers x 6 constraints x 6
metrics x 3 biases x 6 levels) from scratch three times in this process: sequentially (the
baseline: one process, so ``time.process_time`` is the whole CPU cost), on 2 joblib workers and on
a 2-worker Dask ``LocalCluster``. Prints wall time and this process's CPU time of each run, and
whether the three result tables are identical (``pandas.testing.assert_frame_equal``, exact).
One run already covers many inputs (the paper spec: 72 trained models, each its own table); with
``--seeds N`` the whole study is repeated for the study seeds 0..N-1 (other splits, other models,
other tables) and the medians over the seeds are printed.

Run: ``python benchmarks/study_scale.py [--spec examples/study/paper.yaml] [--seeds 1] [--skip-dask]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd

import fairprobe as fp
from fairprobe.studies import load_spec

ROOT = Path(__file__).resolve().parents[1]


def timed(run) -> tuple[float, float, pd.DataFrame]:
    cpu, wall = time.process_time(), time.perf_counter()
    res = run()
    return time.perf_counter() - wall, time.process_time() - cpu, res.results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", default=str(ROOT / "examples" / "study" / "paper.yaml"))
    parser.add_argument("--seeds", type=int, default=1, help="study seeds 0..N-1 (medians over them)")
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    spec = load_spec(args.spec)
    units = (len(spec.datasets) * len(spec.classifiers) * len(spec.constraints) * len(spec.biases)
             * len(spec.metrics))
    print(f"{spec.name}: {len(spec.datasets)} data sets x {len(spec.classifiers)} classifiers x "
          f"{len(spec.constraints)} constraints x {len(spec.metrics)} metrics x {len(spec.biases)} biases x "
          f"{len(spec.D)} levels = {units * len(spec.D):,} bounds ({units} units)")
    runs: dict[str, list[tuple[float, float, pd.DataFrame]]] = {}
    base_spec = spec
    for seed in range(args.seeds):
        spec = dataclasses.replace(base_spec, seed=seed)
        with tempfile.TemporaryDirectory() as tmp:
            runs.setdefault("1 worker (baseline)", []).append(
                timed(lambda t=tmp, s=spec: fp.study(s, Path(t) / "one", n_jobs=1, progress=False, report=False)))
            runs.setdefault("2 workers", []).append(
                timed(lambda t=tmp, s=spec: fp.study(s, Path(t) / "two", n_jobs=2, progress=False, report=False)))
            if not args.skip_dask:
                from distributed import Client, LocalCluster

                with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, Client(cluster) as client:
                    runs.setdefault("Dask LocalCluster, 2 workers", []).append(
                        timed(lambda t=tmp, c=client, s=spec: fp.study(s, Path(t) / "dask", client=c,
                                                                       progress=False, report=False)))
    bases = [r[2] for r in runs["1 worker (baseline)"]]  # one per seed
    base_wall = statistics.median(r[0] for r in runs["1 worker (baseline)"])
    print(f"\nmedians over {args.seeds} study seed(s)")
    print(f"{'run':32s} {'wall s':>9s} {'cpu s (this process)':>21s} {'speed-up':>9s}  table")
    for name, results in runs.items():
        wall = statistics.median(r[0] for r in results)
        cpu = statistics.median(r[1] for r in results)
        same = True
        for r, base in zip(results, bases, strict=True):
            try:
                pd.testing.assert_frame_equal(r[2], base)
            except AssertionError:
                same = False
        print(f"{name:32s} {wall:9.1f} {cpu:21.1f} {base_wall / wall:8.2f}x  "
              f"{'identical to the baseline' if same else 'DIFFERS from the baseline'}")
    for seed, base in enumerate(bases):
        print(f"seed {seed}: {len(base):,} rows; statuses: {base.status.value_counts().to_dict()}")


if __name__ == "__main__":
    main()

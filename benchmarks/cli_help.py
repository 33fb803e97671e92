"""Start-up of the command line: ``fairprobe --help`` against baselines run in the same process.

Each command runs in a fresh subprocess (start-up is what is measured); the figures are medians
over ``--repeats`` runs of wall time and of the child's CPU time (``resource.getrusage`` of the
children, user + system). Baselines: a bare interpreter (``python -c pass``), ``import click`` (the
floor of any click program), and the imports the help needed before issue 24 (every command
module and the analyses they import: what ``fairprobe --help`` paid for, about 1.7 s here).

The last rows are a first ``fairprobe bound`` from the shell: FPR parity over all pairs of the bundled
COMPAS's six races (``decile_score >= 5`` as the prediction, written to a temporary CSV) under
proxy labels and under selection, D = 0.05, the whole command (start-up, reading the data,
compiling, solving, printing). Its baseline is ``python -c "import fairprobe, pandas"``.

Run: ``python benchmarks/cli_help.py [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OLD_HELP_IMPORTS = ("import fairprobe.cli.causal, fairprobe.cli.commands, fairprobe.plugins.fairtree.cli, "
                    "fairprobe.plugins.rashomon.cli, fairprobe.plugins.rashomon.cli_trees, "
                    "fairprobe.plugins.riskscore.cli, fairprobe.reporting.report, fairprobe.plugins.fairtree.tests, "
                    "fairprobe.plugins.fairtree.tree, fairprobe.plugins.riskscore.audit, "
                    "fairprobe.plugins.rashomon.rashomon_set, fairprobe.plugins.rashomon.linear_exact, "
                    "fairprobe.plugins.rashomon.tree_exact")


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(argv: list[str], repeats: int) -> tuple[float, float]:
    """Median wall and child-CPU seconds of running ``argv`` ``repeats`` times (one warm-up run first)."""
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)  # warm the disk cache
    walls, cpus = [], []
    for _ in range(repeats):
        cpu, wall = _child_cpu(), time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - wall)
        cpus.append(_child_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    fairprobe = shutil.which("fairprobe") or f"{sys.executable} -m fairprobe.cli"
    cases = {
        "python -c pass (baseline)": [sys.executable, "-c", "pass"],
        "import click (baseline)": [sys.executable, "-c", "import click"],
        "imports of the old --help (baseline)": [sys.executable, "-c", OLD_HELP_IMPORTS],
        "fairprobe --help": [*fairprobe.split(), "--help"],
        "fairprobe bound --help": [*fairprobe.split(), "bound", "--help"],
    }
    from fairprobe.datasets import load_compas

    tmp = Path(tempfile.mkdtemp())
    frame = load_compas().frame
    csv = tmp / "compas.csv"
    frame.assign(pred=(frame.decile_score >= 5).astype(int))[["race", "two_year_recid", "pred"]].to_csv(csv,
                                                                                                       index=False)
    cases['python -c "import fairprobe, pandas" (baseline)'] = [sys.executable, "-c", "import fairprobe, pandas"]
    for bias in ("proxy_label", "selection"):
        cases[f"fairprobe bound COMPAS all pairs, {bias}"] = [
            *fairprobe.split(), "bound", "--bias", bias, "--metric", "fpr_parity", "--data", str(csv),
            "--columns", "A=race,Y=two_year_recid,P=pred", "--groups", "all", "--D", "0.05"]
    print(f"{'command':52s} {'wall (s)':>9s} {'CPU (s)':>9s}   medians of {args.repeats} runs")
    for name, argv in cases.items():
        wall, cpu = measure(argv, args.repeats)
        print(f"{name:52s} {wall:9.3f} {cpu:9.3f}")


if __name__ == "__main__":
    main()

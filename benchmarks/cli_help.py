"""Start-up of the command line: ``fairprobe --help`` against baselines run in the same process.

Each command runs in a fresh subprocess (start-up is what is measured); the figures are medians
over ``--repeats`` runs of wall time and of the child's CPU time (``resource.getrusage`` of the
children, user + system). Baselines: a bare interpreter (``python -c pass``), ``import click`` (the
floor of any click program), and the imports the help needed before issue 24 (every command
module and the analyses they import: what ``fairprobe --help`` paid for, about 1.7 s here).

Run: ``python benchmarks/cli_help.py [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time

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
    print(f"{'command':40s} {'wall (s)':>9s} {'CPU (s)':>9s}   medians of {args.repeats} runs")
    for name, argv in cases.items():
        wall, cpu = measure(argv, args.repeats)
        print(f"{name:40s} {wall:9.3f} {cpu:9.3f}")


if __name__ == "__main__":
    main()

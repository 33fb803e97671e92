"""``fairprobe study``: a small spec end to end, resumed, and a bad spec as one line with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

SPEC = """\
name: cli study
datasets: [{name: german, subsample: 300}]
classifiers: [naive_bayes]
constraints: [none]
metrics: [demographic_parity, fpr_parity]
biases: [selection]
D: [0.05]
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairprobe.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_study_writes_tables_and_report_and_resumes(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)
    out = run("study", "spec.yaml", "--out", "res", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "cli study: 1 models, 4 bounds" in out.stdout and "1. demographic_parity" in out.stdout
    table = pd.read_csv(tmp_path / "res" / "results.csv")
    assert len(table) == 4 and set(table.status) == {"optimal"}
    assert (tmp_path / "res" / "report" / "index.html").is_file()
    assert (tmp_path / "res" / "figures" / "figure5.png").is_file()
    again = run("study", "spec.yaml", "--out", "res", "--no-report", cwd=tmp_path)  # everything is done: resumed
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "res" / "results.csv"), table)


def test_a_bad_spec_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC.replace("D: [0.05]", "D: [5]"))
    out = run("study", "spec.yaml", "--out", "res", cwd=tmp_path)
    assert out.returncode == 2
    assert "'D': every level must be a number in [0, 1]; got 5" in out.stderr
    assert "Traceback" not in out.stderr


def test_another_study_in_the_folder_needs_force(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(SPEC)
    (tmp_path / "b.yaml").write_text(SPEC.replace("D: [0.05]", "D: [0.02]"))
    assert run("study", "a.yaml", "--out", "res", "--no-report", cwd=tmp_path).returncode == 0
    out = run("study", "b.yaml", "--out", "res", "--no-report", cwd=tmp_path)
    assert out.returncode == 2 and "--force" in out.stderr
    assert run("study", "b.yaml", "--out", "res", "--no-report", "--force", cwd=tmp_path).returncode == 0

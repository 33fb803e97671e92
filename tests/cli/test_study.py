"""``fairprobe study``: a small spec end to end, resumed, and a bad spec as one line with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

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


def test_a_foreign_folder_needs_force(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(SPEC)
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "notes.txt").write_text("mine")
    out = run("study", "a.yaml", "--out", "res", "--no-report", cwd=tmp_path)
    assert out.returncode == 2 and "--force" in out.stderr and "Traceback" not in out.stderr
    assert run("study", "a.yaml", "--out", "res", "--no-report", "--force", cwd=tmp_path).returncode == 0
    assert (tmp_path / "res" / "notes.txt").read_text() == "mine"


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason='Dask is optional: pip install "fairprobe[dask]"')
    (tmp_path / "a.yaml").write_text(SPEC)
    out = run("study", "a.yaml", "--out", "res", "--scheduler", "not-an-address", cwd=tmp_path)
    assert out.returncode == 2 and "no Dask scheduler could be reached" in out.stderr
    assert "Traceback" not in out.stderr


INTERRUPTED = """\
datasets: [{name: german, subsample: 300}]
classifiers: [naive_bayes, decision_tree]
constraints: [none, ppv_parity]
metrics: [fpr_parity, ppv_parity, equalized_odds]
biases: [proxy_label, selection]
D: [0.01, 0.03, 0.05]
search: {candidates: 5}
"""


def test_ctrl_c_stops_and_the_resumed_study_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    """SCIP catches Ctrl-C itself; the run must still stop (exit 130) and save no bound it cut short."""
    import signal
    import time

    (tmp_path / "s.yaml").write_text(INTERRUPTED)
    assert run("study", "s.yaml", "--out", "full", "--no-report", cwd=tmp_path).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "fairprobe.cli", "study", "s.yaml", "--out", "part", "--no-report"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    units = tmp_path / "part" / "units"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and not (units.is_dir() and any(units.iterdir())):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode != 0:  # it was still bounding (it may just have finished on a fast machine)
        assert proc.returncode == 130 and "run the same command again to resume" in err
    assert run("study", "s.yaml", "--out", "part", "--no-report", cwd=tmp_path).returncode == 0
    full, part = pd.read_csv(tmp_path / "full" / "results.csv"), pd.read_csv(tmp_path / "part" / "results.csv")
    pd.testing.assert_frame_equal(full, part)
    assert (part.status == "optimal").all()

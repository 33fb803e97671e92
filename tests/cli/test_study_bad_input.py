"""``fairprobe study`` on bad input: exit 2 with one line naming the problem and the fix (issue 44)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fairprobe.cli.main import main

SPEC = """\
datasets: [{name: german, subsample: 200}]
classifiers: [naive_bayes]
constraints: [none]
metrics: [demographic_parity]
biases: [selection]
D: [0.02]
"""


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run ``fairprobe ARGS`` in tmp_path (in this process): (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(SPEC)

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main(["--quiet", *args])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_a_duplicated_key(cli, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC + "datasets: [adult]\n")
    code, _, err = cli("study", "s.yaml", "--out", "res")
    assert code == 2 and "line 7" in one_line(err) and "'datasets'" in err
    assert not (tmp_path / "res").exists()


def test_a_ci_level_below_one_half(cli, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC + "ci: {level: 0.3, resamples: 20}\n")
    code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report")
    assert code == 2 and "'ci.level'" in one_line(err) and not (tmp_path / "res" / "models").exists()


def test_a_seed_out_of_range(cli, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC + f"seed: {2**70}\n")
    code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report")
    assert code == 2 and "'seed'" in one_line(err) and not (tmp_path / "res" / "models").exists()


def test_a_data_file_without_rows(cli, tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("x,g,y\n")
    (tmp_path / "s.yaml").write_text(SPEC.replace("{name: german, subsample: 200}", "{name: d, path: d.csv, "
                                                  "label: y, attribute: g, groups: [u, v]}"))
    code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report")
    assert code == 2 and "d.csv has no rows" in one_line(err)


def test_jobs_below_minus_one(cli, tmp_path: Path) -> None:
    code, _, err = cli("study", "s.yaml", "--out", "res", "--jobs", "-2")
    assert code == 2 and "--jobs -2" in one_line(err) and "-1" in err
    assert not (tmp_path / "res").exists()


def test_many_jobs_on_one_unit_start_no_pool(cli, one_worker_spy: list[int | None]) -> None:
    asked = one_worker_spy
    code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report", "--jobs", "1000")
    assert code == 0, err
    assert all(n is not None and 0 < n <= 1 for n in asked), asked


HOLD = """\
import sys, time
from fairprobe.studies.folder import folder_lock
with folder_lock(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(120)
"""


def test_a_folder_in_use(cli, tmp_path: Path) -> None:
    (tmp_path / "res").mkdir()
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "res")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
        code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report")
    finally:
        proc.kill()
        proc.wait()
    line = one_line(err)
    assert code == 2 and f"PID {proc.pid}" in line and "--out res" in line and "wait" in line
    assert {p.name for p in (tmp_path / "res").iterdir()} <= {".fairprobe-study.lock"}


def test_force_keeps_a_users_model(cli, tmp_path: Path) -> None:
    (tmp_path / "proj" / "models").mkdir(parents=True)
    (tmp_path / "proj" / "models" / "my_model.pkl").write_bytes(b"model")
    code, _, err = cli("study", "s.yaml", "--out", "proj", "--no-report")
    assert code == 2 and "--force" in one_line(err) and "my_model.pkl" not in err  # a folder, shown as models/
    assert cli("study", "s.yaml", "--out", "proj", "--no-report", "--force")[0] == 0
    assert cli("study", "s.yaml", "--out", "proj", "--force")[0] == 0
    assert (tmp_path / "proj" / "models" / "my_model.pkl").read_bytes() == b"model"


def test_study_named_files_without_the_marker(cli, tmp_path: Path) -> None:
    (tmp_path / "res" / "figures").mkdir(parents=True)
    (tmp_path / "res" / "figures" / "plot.png").write_bytes(b"png")
    (tmp_path / "res" / "results.csv").write_text("mine\n")
    code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report")
    assert code == 2 and "--force" in one_line(err)
    assert (tmp_path / "res" / "results.csv").read_text() == "mine\n"
    assert (tmp_path / "res" / "figures" / "plot.png").exists()


def test_a_full_disk(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    code, _, err = cli("study", "s.yaml", "--out", "res", "--no-report")
    line = one_line(err)
    assert code == 2 and "cannot write" in line and "results.csv: No space left on device" in line
    assert "free some space" in line

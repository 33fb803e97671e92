"""The study's output folder: one run at a time, a user's files never removed, write failures named
(issue 44, items 4, 6, 7, 13)."""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.exceptions import ConfigError

TINY = {"datasets": [{"name": "german", "subsample": 200}], "classifiers": ["naive_bayes"], "constraints": ["none"],
        "metrics": ["demographic_parity"], "biases": ["selection"], "D": [0.02]}
OTHER = {**TINY, "name": "other", "D": [0.04]}

HOLD = """\
import sys, time
from fairprobe.studies.folder import folder_lock
with folder_lock(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(120)
"""


@pytest.fixture
def holder(tmp_path: Path):  # another process holding the lock of tmp_path / "out"
    (tmp_path / "out").mkdir()
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "out")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


# -- item 4: one run at a time, unique temporary files --------------------------------------------
def test_a_folder_in_use_is_refused_naming_the_pid_and_the_fix(tmp_path: Path, holder: subprocess.Popen) -> None:
    out = tmp_path / "out"
    before = _files(out)
    with pytest.raises(ConfigError) as info:
        fp.study(TINY, out, progress=False, report=False)
    message = str(info.value)
    assert f"PID {holder.pid}" in message and "wait" in message and "another" in message
    assert _files(out) == before  # nothing written


def test_a_lock_left_by_a_dead_run_is_taken_over(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    out = tmp_path / "out"
    out.mkdir()
    (out / ".fairprobe-study.lock").write_text(json.dumps({"pid": int(dead.stdout), "host": socket.gethostname()}))
    res = fp.study(TINY, out, progress=False, report=False)
    assert len(res.results) == 2
    assert not (out / ".fairprobe-study.lock").exists()  # released at the end


@pytest.mark.slow
def test_two_runs_on_one_folder(tmp_path: Path) -> None:
    """The bug as reported: a second run while the first is working; it must be refused, not mixed in."""
    import yaml

    busy = {**TINY, "classifiers": ["naive_bayes", "decision_tree"], "metrics": ["fpr_parity", "ppv_parity"],
            "biases": ["proxy_label", "selection"], "D": [0.01, 0.03, 0.05, 0.07]}
    (tmp_path / "busy.yaml").write_text(yaml.safe_dump(busy))
    first = subprocess.Popen([sys.executable, "-m", "fairprobe.cli", "study", "busy.yaml", "--out", "out",
                              "--no-report"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and first.poll() is None and not (tmp_path / "out" / "spec.json").exists():
        time.sleep(0.01)
    try:
        with pytest.raises(ConfigError, match=f"PID {first.pid}"):
            fp.study(OTHER, tmp_path / "out", progress=False, report=False)
    finally:
        first.communicate(timeout=300)
    assert first.returncode == 0
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    assert json.loads((tmp_path / "out" / "spec.json").read_text())["spec"]["D"] == [0.0, 0.01, 0.03, 0.05, 0.07]
    assert sorted(table.D.unique()) == [0.0, 0.01, 0.03, 0.05, 0.07]


def test_temporary_files_have_unique_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.studies.runner import _write_json

    moved: list[tuple[str, str]] = []
    real = os.replace

    def spy(src: str | os.PathLike, dst: str | os.PathLike) -> None:
        moved.append((str(src), str(dst)))
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    target = tmp_path / "unit.json"
    _write_json(target, [1])
    _write_json(target, [2])
    sources = [s for s, d in moved if d == str(target)]
    assert len(sources) == 2 and sources[0] != sources[1] and str(target.with_suffix(".tmp")) not in sources
    assert json.loads(target.read_text()) == [2] and _files(tmp_path) == {"unit.json"}


# -- item 6: --force removes only what the study wrote ---------------------------------------------
def test_force_keeps_a_users_files_inside_the_studys_folders(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    fp.study(TINY, proj, progress=False, report=True)
    fp.study(OTHER, proj, progress=False, report=False)  # a second spec's units, kept for reuse
    assert len(list((proj / "units").glob("*.json"))) == 2
    mine = {"models/my_model.pkl": b"model", "models/notes.json": b"{}", "units/readme.txt": b"x",
            "figures/mine.png": b"png", "report/notes.md": b"md", "data.csv": b"a,b\n"}
    for name, data in mine.items():
        (proj / name).parent.mkdir(exist_ok=True)  # figures/ and report/ went with the last run's --no-report
        (proj / name).write_bytes(data)
    res = fp.study(TINY, proj, progress=False, report=False, force=True)
    assert len(res.results) == 2 and len(res.models) == 1
    for name, data in mine.items():
        assert (proj / name).read_bytes() == data, name
    assert len(list((proj / "units").glob("*.json"))) == 1  # the study's own were removed: it started over
    assert not (proj / "figures" / "figure5.png").exists() and not (proj / "report" / "index.html").exists()


def test_force_into_a_users_project_keeps_its_folders(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "models").mkdir(parents=True)
    (proj / "models" / "my_model.pkl").write_bytes(b"model")
    (proj / "figures").mkdir()
    (proj / "figures" / "plot.png").write_bytes(b"png")
    fp.study(TINY, proj, progress=False, report=False, force=True)
    fp.study(TINY, proj, progress=False, report=False, force=True)  # again: starts over, the user's files stay
    assert (proj / "models" / "my_model.pkl").read_bytes() == b"model"
    assert (proj / "figures" / "plot.png").read_bytes() == b"png"
    fp.study(TINY, proj, progress=False, report=False)  # marked now: resumed without --force
    assert (proj / "models" / "my_model.pkl").exists()


# -- item 7: a folder without the study's marker ---------------------------------------------------
def test_a_folder_of_study_named_files_without_the_marker_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "plot.png").write_bytes(b"png")
    (out / "results.csv").write_text("mine\n")
    with pytest.raises(ConfigError, match=r"--force") as info:
        fp.study(TINY, out, progress=False, report=False)
    assert "results.csv" in str(info.value)
    assert (out / "results.csv").read_text() == "mine\n" and (out / "figures" / "plot.png").exists()


def test_a_users_spec_json_is_not_a_marker(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "spec.json").write_text(json.dumps(TINY))
    with pytest.raises(ConfigError, match="--force"):
        fp.study(TINY, out, progress=False, report=False)
    assert json.loads((out / "spec.json").read_text()) == TINY


def test_the_spec_file_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text(json.dumps(TINY))
    with pytest.raises(ConfigError, match=r"spec\.json.*another output folder"):
        fp.study(tmp_path / "spec.json", tmp_path, progress=False, report=False, force=True)
    assert json.loads((tmp_path / "spec.json").read_text()) == TINY


def test_a_folder_of_an_earlier_version_is_a_study(tmp_path: Path) -> None:
    """Written before the marker was signed: ``spec.json`` held only the fingerprint and the spec."""
    fp.study(TINY, tmp_path, progress=False, report=False)
    marker = json.loads((tmp_path / "spec.json").read_text())
    (tmp_path / "spec.json").write_text(json.dumps({"fingerprint": marker["fingerprint"], "spec": marker["spec"]}))
    (tmp_path / "models" / "my_model.pkl").write_bytes(b"model")
    res = fp.study(TINY, tmp_path, progress=False, report=False)
    assert len(res.results) == 2
    fp.study(OTHER, tmp_path, progress=False, report=False, force=True)
    assert len(list((tmp_path / "units").glob("*.json"))) == 1 and (tmp_path / "models" / "my_model.pkl").exists()


# -- item 13: a full or read-only disk ---------------------------------------------------------------
def test_a_full_disk_is_named_with_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    with pytest.raises(ConfigError) as info:
        fp.study(TINY, tmp_path / "out", progress=False, report=False)
    assert str(info.value) == (f"cannot write {tmp_path / 'out' / 'results.csv'}: No space left on device; free some "
                               "space or choose another output folder.")
    assert not list((tmp_path / "out").glob(".fairprobe-*"))  # no temporary file left behind


def test_a_unit_that_cannot_be_written_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.replace

    def failing(src: str | os.PathLike, dst: str | os.PathLike) -> None:
        if Path(dst).parent.name == "units":
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(src))
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(ConfigError, match=r"cannot write .*units[/\\][0-9a-f]{24}\.json: Read-only file system; "):
        fp.study(TINY, tmp_path / "out", progress=False, report=False)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_named(tmp_path: Path) -> None:
    out = tmp_path / "out"
    fp.study(TINY, out, progress=False, report=False)
    folders = [out, out / "models", out / "units"]
    for f in folders:
        f.chmod(0o555)
    try:
        with pytest.raises(ConfigError, match=r"cannot write .*: Permission denied; "):
            fp.study(TINY, out, progress=False, report=False)
    finally:
        for f in folders:
            f.chmod(0o755)


def test_without_flock_the_pid_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``fcntl`` is missing the lock file is created exclusively; a dead holder's is taken over."""
    from fairprobe.studies import folder as folder_module

    monkeypatch.setattr(folder_module, "fcntl", None)
    out = tmp_path / "out"
    with folder_module.folder_lock(out):
        assert json.loads((out / ".fairprobe-study.lock").read_text())["pid"] == os.getpid()
    assert not (out / ".fairprobe-study.lock").exists()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (out / ".fairprobe-study.lock").write_text(json.dumps({"pid": sleeper.pid, "host": socket.gethostname()}))
        with pytest.raises(ConfigError, match=f"PID {sleeper.pid}"):
            folder_module.check_study_folder(out)
        with pytest.raises(ConfigError, match=f"PID {sleeper.pid}"), folder_module.folder_lock(out):
            pass
    finally:
        sleeper.kill()
        sleeper.wait()
    res = fp.study(TINY, out, progress=False, report=False)  # its holder is gone: taken over
    assert len(res.results) == 2 and _files(out) >= {"spec.json", "results.csv"}
    assert not (out / ".fairprobe-study.lock").exists()

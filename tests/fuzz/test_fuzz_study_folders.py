"""Fuzz: study runs into output folders holding a user's files.

A folder is filled with random foreign entries: files of random bytes, folders, and symbolic links
to files outside it, many named like the study's own entries (``models/``, ``units/``,
``figures/``, ``report/``, ``results.csv``, ``spec.json``, a unit's hashed file name). The oracle
is a snapshot of every entry's bytes taken before the run (and of the files the links point to):

* without ``--force`` a folder holding anything but a file browser's litter is refused with a
  fairprobe error naming ``--force``, before anything is written: the snapshot is unchanged;
* with ``--force`` the run writes the study or stops with a fairprobe error, and every foreign
  entry the study does not itself write (the files a run into an empty folder writes) is as it
  was, as is every file outside the folder; a second ``--force`` run (the folder is now the
  study's: it starts over by removing what it wrote) and a run without it keep them too; the
  results are those of a run into an empty folder (a user's file is never read as the study's).

The runs go through ``fp.study`` or the ``fairprobe study`` command (exit code 2, one line). A study
run trains a model, so the default run draws few folders; ``--hypothesis-profile=long`` draws more.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fairprobe as fp
from fairprobe.cli import main
from fairprobe.exceptions import FairprobeError
from fairprobe.studies.folder import read_marker
from fairprobe.studies.runner import plan_study
from fairprobe.studies.spec import load_spec
from tests.fuzz.oracle import TALLY, confirmed, examples

pytestmark = pytest.mark.fuzz

TINY = {"datasets": [{"name": "german", "subsample": 200}], "classifiers": ["naive_bayes"], "constraints": ["none"],
        "metrics": ["demographic_parity"], "biases": ["selection"], "D": [0.02]}
#: file browsers' litter: not a user's content (the study may run beside it without --force)
HARMLESS = {".DS_Store", "Thumbs.db", "desktop.ini"}
TOP = ["models", "units", "figures", "report", "results.csv", "results.parquet", "models.csv", "ranking.csv",
       "fragility.csv", "spec.json", "data.csv", "notes.txt", "my_model.pkl", ".DS_Store", "report.json"]
#: the model and unit files of TINY: a user's file of the very name the study gives its own
PLANNED = plan_study(load_spec(TINY)).files
INSIDE = {"models": ["my_model.pkl", "notes.json", "0123456789abcdef01234567.json",
                     *(f.split("/")[1] for f in PLANNED if f.startswith("models/"))],
          "units": ["readme.txt", "fedcba9876543210fedcba98.json",
                    *(f.split("/")[1] for f in PLANNED if f.startswith("units/"))],
          "figures": ["figure5.png", "plot.png", "dataset_german.png"],
          "report": ["index.html", "report.json", "notes.md", "figures"]}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[bool, set[str]], pd.DataFrame]:
    """The files a study run writes into an empty folder, with and without its report, and its results."""
    own = {}
    for report in (False, True):
        out = tmp_path_factory.mktemp("fuzz-study-reference") / "out"
        fp.study(TINY, out, progress=False, report=report)
        own[report] = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    return own, pd.read_csv(out / "results.csv")


@st.composite
def foreign_trees(draw):
    """(relative path, kind, content) entries: kind is "file", "dir" or "link" (to a file outside)."""
    entries: dict[str, tuple[str, bytes]] = {}
    for name in draw(st.lists(st.sampled_from(TOP), max_size=5, unique=True)):
        if name in INSIDE and draw(st.booleans()):  # a folder of the study's name holding a user's files
            entries[name] = ("dir", b"")
            for inner in draw(st.lists(st.sampled_from(INSIDE[name]), min_size=0, max_size=2, unique=True)):
                kind = draw(st.sampled_from(["file", "file", "dir", "link"]))
                content = draw(st.binary(max_size=40))
                if inner.endswith(".json") and draw(st.booleans()):  # JSON, but not the study's
                    content = draw(st.sampled_from([b"{}", b"[1, 2]", b'{"rows": []}', b"null"]))
                entries[f"{name}/{inner}"] = (kind, content)
        else:
            kind = draw(st.sampled_from(["file", "file", "file", "dir", "link"]))
            content = draw(st.binary(max_size=40))
            if name == "spec.json" and draw(st.booleans()):  # a user's spec, or JSON that only looks like a marker
                content = json.dumps(draw(st.sampled_from([TINY, {"generator": "fairprobe"}, [1, 2],
                                                           {"kind": "study", "written": ["results.csv"]}]))).encode()
            entries[name] = (kind, content)
    return entries


def _plant(out: Path, outside: Path, entries: dict[str, tuple[str, bytes]]) -> None:
    out.mkdir()
    for i, (name, (kind, content)) in enumerate(sorted(entries.items())):
        target = out / name
        if kind == "dir":
            target.mkdir(exist_ok=True)
        elif kind == "file":
            target.write_bytes(content)
        else:
            source = outside / f"target{i}"
            source.write_bytes(content)
            target.symlink_to(source)


def _snapshot(folder: Path) -> dict[str, object]:
    """Every entry: a link's target and the target's bytes, a file's bytes, a folder."""
    shot: dict[str, object] = {}
    for p in sorted(folder.rglob("*")):
        name = p.relative_to(folder).as_posix()
        if p.is_symlink():
            shot[name] = ("link", os.readlink(p))
        elif p.is_dir():
            shot[name] = ("dir",)
        else:
            shot[name] = ("file", p.read_bytes())
    return shot


def _run(out: Path, spec: Path, force: bool, report: bool, via: str) -> str | None:
    """None when the study ran; the error message when it stopped (a fairprobe error, exit code 2)."""
    if via == "api":
        try:
            fp.study(TINY, out, progress=False, report=report, force=force)
        except FairprobeError as exc:
            TALLY["error"] += 1
            return str(exc)
        return None
    argv = ["study", str(spec), "--out", str(out), *([] if report else ["--no-report"]),
            *(["--force"] if force else [])]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    text = err.getvalue()
    assert code in (0, 2) and "Traceback" not in text, f"exit {code} for {argv}: {text[-800:]}"
    if code == 0:
        return None
    assert len([line for line in text.splitlines() if line.strip()]) == 1, text
    TALLY["error"] += 1
    return text


def _kept(before: dict[str, object], after_folder: Path, outside: dict[str, bytes], outside_folder: Path,
          replaced: set[str]) -> None:
    """Every foreign entry the study does not write itself is as it was; so is every file outside."""
    after = _snapshot(after_folder)
    for name, entry in before.items():
        if name in replaced or any(name.startswith(f"{r}/") for r in replaced):
            continue
        assert after.get(name) == entry, f"{name}: {entry!r} became {after.get(name)!r}"
    for name, data in outside.items():
        assert (outside_folder / name).read_bytes() == data, f"the file {name} outside the folder changed"


UNIT = next(f for f in PLANNED if f.startswith("units/"))
MODEL = next(f for f in PLANNED if f.startswith("models/"))


@settings(max_examples=examples(4, 60))
# found by this test: a user's empty figures/ removed by --force --no-report; a user's file of a unit's or model's
# name read as the study's (JSON) or removed (not JSON)
@example(entries={"figures": ("dir", b"")}, report=False, via="api")
@example(entries={"units": ("dir", b""), UNIT: ("file", b"[1, 2]")}, report=False, via="api")
@example(entries={"models": ("dir", b""), MODEL: ("file", b"{}")}, report=False, via="cli")
@example(entries={"units": ("dir", b""), "units/fedcba9876543210fedcba98.json": ("file", b"x")}, report=False,
         via="api")
@given(entries=foreign_trees(), report=st.sampled_from([False, False, True]), via=st.sampled_from(["api", "cli"]))
def test_study_folders_with_foreign_content(reference, entries, report, via) -> None:
    own_files, results = reference
    with tempfile.TemporaryDirectory(prefix="fuzz-study-") as tmp:
        root = Path(tmp)
        (root / "outside").mkdir()
        spec = root / "spec.yaml"
        spec.write_text(yaml.safe_dump(TINY))
        out = root / "out"
        _plant(out, root / "outside", entries)
        before = _snapshot(out)
        outside = {p.name: p.read_bytes() for p in (root / "outside").iterdir()}
        foreign = {name for name in before if name.split("/")[0] not in HARMLESS}
        error = _run(out, spec, force=False, report=report, via=via)
        if foreign:
            assert error is not None, f"a folder holding {sorted(foreign)} was written without --force"
            assert "--force" in error, error
            assert _snapshot(out) == before, "a refused run changed the folder"
            _kept(before, out, outside, root / "outside", set())
        else:
            assert error is None, error
        # with --force: the study's files beside the user's, which are kept (except those of the study's names)
        replaced = own_files[report] | {"spec.json"}
        error = _run(out, spec, force=True, report=report, via=via)
        _kept(before, out, outside, root / "outside", replaced)
        if error is not None:
            return  # e.g. a folder where the study writes a file, named as such
        assert read_marker(out) is not None, "no study marker after a run"
        assert (out / "results.csv").is_file() and not (out / "results.csv").is_symlink()
        pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv"), results)  # no user's file read as the study's
        # the folder is the study's now: it resumes without --force, and --force starts over; the user's files stay
        for force in (False, True):
            error = _run(out, spec, force=force, report=report, via=via)
            assert error is None, error
            _kept(before, out, outside, root / "outside", replaced)
            pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv"), results)
        assert not (out / ".fairprobe-study.lock").exists()
        confirmed()

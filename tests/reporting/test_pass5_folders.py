"""Bad-input pass 5: a report folder rewritten keeps the files fairprobe did not write; writes are atomic.

* report.json lists the files the report wrote (``"files"``); a rerun replaces only those, so a
  user's ``tables/my_analysis.csv`` or ``figures/annot.png`` is never deleted: the folder is refused
  without ``force`` (naming the foreign files) and the files survive with it.
* :func:`fairprobe.reporting.folders.atomic_write` writes to a temporary file beside the target and
  renames it: a failure (a full disk, Ctrl-C) leaves no partial file and the old one intact.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from fairprobe.exceptions import ConfigError, OutputError
from fairprobe.reporting import folders
from fairprobe.reporting.report import Report, folder_kind


def report(title: str = "Audit", tables: int = 1) -> Report:
    rep = Report(title, command="")
    sec = rep.section("Bounds")
    for k in range(tables):
        sec.add_table(f"result{k}", pd.DataFrame({"lower": [-0.1], "upper": [0.1]}))
    return rep


def test_the_marker_lists_the_files_the_report_wrote(tmp_path: Path) -> None:
    report(tables=2).write(tmp_path / "r")
    manifest = json.loads((tmp_path / "r" / "report.json").read_text())
    assert sorted(manifest["files"]) == ["index.html", "report.json", "tables/s1_result0.csv", "tables/s1_result1.csv"]


def test_a_rerun_refuses_a_folder_with_a_users_file_in_tables_and_names_it(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report().write(out)
    (out / "tables" / "my_analysis.csv").write_text("mine")
    (out / "figures" / "annot.png").write_text("n")
    assert folder_kind(out) == "foreign"
    with pytest.raises(ConfigError) as refused:
        report("Again").write(out)
    assert "tables/my_analysis.csv" in str(refused.value) and "figures/annot.png" in str(refused.value)
    assert (out / "tables" / "my_analysis.csv").read_text() == "mine"
    assert (out / "figures" / "annot.png").read_text() == "n"


def test_force_replaces_only_the_reports_files(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report(tables=2).write(out)
    (out / "tables" / "my_analysis.csv").write_text("mine")
    (out / "figures" / "annot.png").write_text("n")
    report("Again", tables=1).write(out, force=True)
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["my_analysis.csv", "s1_result0.csv"]
    assert (out / "tables" / "my_analysis.csv").read_text() == "mine"
    assert (out / "figures" / "annot.png").read_text() == "n"
    assert json.loads((out / "report.json").read_text())["title"] == "Again"
    # the user's files are still not the report's: the next run without force is refused again
    assert folder_kind(out) == "foreign"


def test_force_into_a_foreign_folder_keeps_a_users_table(tmp_path: Path) -> None:
    out = tmp_path / "r3"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "my.csv").write_text("mine")
    report().write(out, force=True)
    assert (out / "tables" / "my.csv").read_text() == "mine"
    assert (out / "tables" / "s1_result0.csv").is_file()


def test_an_own_folder_is_still_replaced_as_a_whole(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report(tables=3).write(out)
    report("Again", tables=1).write(out)
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["s1_result0.csv"]
    assert folder_kind(out) == "fairprobe"


def test_a_folder_written_before_the_file_list_is_read_from_its_sections(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report(tables=2).write(out)
    manifest = json.loads((out / "report.json").read_text())
    del manifest["files"]
    (out / "report.json").write_text(json.dumps(manifest))
    assert folder_kind(out) == "fairprobe"
    (out / "tables" / "mine.csv").write_text("mine")
    assert folder_kind(out) == "foreign"


# -- atomic writes -------------------------------------------------------------------------------------
def half_then(exc: BaseException) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with open(path, "w") as handle:
            handle.write("D,lo")
            handle.flush()
            raise exc
    return write


@pytest.mark.parametrize("exc", [OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), KeyboardInterrupt()],
                         ids=["disk-full", "ctrl-c"])
def test_a_failed_write_leaves_no_file_and_the_old_one_intact(tmp_path: Path, exc: BaseException) -> None:
    new, old = tmp_path / "new.csv", tmp_path / "old.csv"
    old.write_text("the user's old content\n")
    for target in (new, old):
        with pytest.raises(OutputError if isinstance(exc, OSError) else KeyboardInterrupt):
            folders.atomic_write(target, half_then(exc), option="--csv")
    assert not new.exists()
    assert old.read_text() == "the user's old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv"]  # no temporary file left


def test_an_atomic_write_gets_the_users_umask_and_keeps_the_suffix(tmp_path: Path) -> None:
    seen = []

    def write(path: Path) -> None:
        seen.append(path.suffix)
        path.write_text("x")

    old = os.umask(0o022)
    try:
        folders.atomic_write(tmp_path / "sub" / "plot.svg", write)
    finally:
        os.umask(old)
    assert seen == [".svg"]
    assert (tmp_path / "sub" / "plot.svg").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("number", [errno.EROFS, errno.EACCES])
def test_a_read_only_place_names_the_right_fix(number: int) -> None:
    err = folders.write_failed("sw.csv", OSError(number, os.strerror(number)), "--csv")
    assert "free space" not in str(err)
    assert str(err).endswith("make the folder writable or choose another --csv.")
    full = folders.write_failed("sw.csv", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "--csv")
    assert str(full).endswith("free space or choose another --csv.")

"""N1: a report.json copied from another report does not make a folder fairprobe's.

A report folder records a random id in its ``report.json`` and in the hidden ``.fairprobe-report.id``
beside it; a ``report.json`` without the matching hidden file is foreign content: refused without
``force``, and with ``force`` nothing it lists is removed (only the files the new report writes are
replaced).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from fairprobe.exceptions import ConfigError
from fairprobe.reporting import folders
from fairprobe.reporting.folders import foreign_entries
from fairprobe.reporting.report import Report, folder_kind, load_report
from tests.cli.test_commands import run
from tests.cli.test_no_overwrite import CELLS


def report(title: str = "Audit", tables: int = 2) -> Report:
    rep = Report(title, command="")
    for k in range(tables):
        rep.section(f"S{k}").add_table("result", pd.DataFrame({"lower": [-0.1], "upper": [0.1]}))
    return rep


def copied_into(tmp_path: Path) -> Path:
    """m4: a report with s1_result.csv and s2_result.csv; m3: its report.json copied beside the user's file."""
    report(tables=2).write(tmp_path / "m4")
    m3 = tmp_path / "m3"
    (m3 / "tables").mkdir(parents=True)
    shutil.copy(tmp_path / "m4" / "report.json", m3 / "report.json")
    (m3 / "tables" / "s2_result.csv").write_text("MYDATA\n")
    return m3


def test_a_report_records_its_id_in_report_json_and_a_hidden_file(tmp_path: Path) -> None:
    report().write(tmp_path / "r")
    own = (tmp_path / "r" / folders.ID_FILE).read_text().strip()
    assert json.loads((tmp_path / "r" / "report.json").read_text())["folder_id"] == own
    assert folder_kind(tmp_path / "r") == "fairprobe" and foreign_entries(tmp_path / "r") == []


def test_a_copied_report_json_is_foreign(tmp_path: Path) -> None:
    m3 = copied_into(tmp_path)
    assert folder_kind(m3) == "foreign"
    assert foreign_entries(m3) == ["report.json", "tables/"]  # the folder is the user's as a whole


def test_a_copied_report_json_is_refused_without_force(tmp_path: Path) -> None:
    m3 = copied_into(tmp_path)
    with pytest.raises(ConfigError, match="fairprobe did not write"):
        report("New", tables=1).write(m3, force=False)
    assert (m3 / "tables" / "s2_result.csv").read_text() == "MYDATA\n"


def test_with_force_nothing_the_copied_report_json_lists_is_removed(tmp_path: Path) -> None:
    m3 = copied_into(tmp_path)
    report("New", tables=1).write(m3, force=True)
    assert (m3 / "tables" / "s2_result.csv").read_text() == "MYDATA\n"
    assert load_report(m3).title == "New" and folder_kind(m3) == "foreign"  # the user's file is still there


def test_the_command_line_refuses_a_copied_report_json(tmp_path: Path) -> None:
    CELLS.to_csv(tmp_path / "cells.csv", index=False)
    for name, bias in (("r1", "proxy_label"), ("r2", "selection")):
        done = run("sweep", "--bias", bias, "--metric", "fpr_parity", "--data", str(tmp_path / "cells.csv"),
                   "--D", "0:0.1:3", "--out", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
    assert run("report", str(tmp_path / "r1"), str(tmp_path / "r2"), "--out", str(tmp_path / "m4")).returncode == 0
    m3 = tmp_path / "m3"
    (m3 / "tables").mkdir(parents=True)
    shutil.copy(tmp_path / "m4" / "report.json", m3 / "report.json")
    listed = [f for f in json.loads((m3 / "report.json").read_text())["files"] if f.startswith("tables/")]
    mine = m3 / listed[-1]  # a name the copied report.json lists: the user's file, not fairprobe's
    mine.write_text("MYDATA\n")
    refused = run("report", str(tmp_path / "r1"), "--out", str(m3))
    assert refused.returncode == 2 and "fairprobe did not write" in refused.stderr
    assert mine.read_text() == "MYDATA\n"
    forced = run("report", str(tmp_path / "r1"), "--out", str(m3), "--force")
    assert forced.returncode == 0, forced.stderr
    if mine.name not in {f.name for f in (tmp_path / "r1" / "tables").iterdir()}:  # not one the new report writes
        assert mine.read_text() == "MYDATA\n"


def test_a_rewrite_replaces_the_id_with_the_report(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report().write(out)
    report("Again", tables=1).write(out)  # no force needed: the folder is fairprobe's
    own = (out / folders.ID_FILE).read_text().strip()
    assert json.loads((out / "report.json").read_text())["folder_id"] == own
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["s1_result.csv"]
    assert folder_kind(out) == "fairprobe"


def test_a_whole_report_folder_copied_is_still_a_report(tmp_path: Path) -> None:
    report().write(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert folder_kind(tmp_path / "b") == "fairprobe"
    report("B", tables=1).write(tmp_path / "b")
    assert sorted(p.name for p in (tmp_path / "b" / "tables").iterdir()) == ["s1_result.csv"]

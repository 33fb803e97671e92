"""Report folders: the user's umask, and an explicit force=False is honoured inside a --force command."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from fairprobe.exceptions import ConfigError
from fairprobe.reporting import folders
from fairprobe.reporting.report import Report, check_output_folder


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o755), (0o077, 0o700), (0o002, 0o775)])
def test_report_folders_get_the_users_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        page = Report("Audit", command="").write(tmp_path / "report")
    finally:
        os.umask(old)
    assert stat.S_IMODE(page.parent.stat().st_mode) == mode  # was 0o700 whatever the umask
    replaced = Report("Again", command="").write(tmp_path / "report")  # a replaced report keeps its folder
    assert stat.S_IMODE(replaced.parent.stat().st_mode) == mode


def test_explicit_force_false_wins_inside_a_force_command(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    seen = {}

    @click.command()
    def command() -> None:
        click.get_current_context().meta["fairprobe.force"] = True  # what --force sets
        try:
            check_output_folder(tmp_path, force=False)
            seen["explicit"] = "accepted"
        except ConfigError:
            seen["explicit"] = "refused"
        seen["default"] = check_output_folder(tmp_path).name  # None follows the command's --force

    result = CliRunner().invoke(command, [])
    assert result.exit_code == 0, result.output
    assert seen == {"explicit": "refused", "default": tmp_path.name}


def test_the_folder_rules_live_in_their_own_module() -> None:
    from fairprobe.reporting import report

    assert report.check_output_folder is folders.check_output_folder  # the old import path keeps working
    assert not hasattr(report, "_forced_by_command_line")

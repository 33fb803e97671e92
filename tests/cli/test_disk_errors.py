"""A full or read-only disk under ``--out``, ``--plot`` or ``--csv`` is one line and exit code 2, not an internal error.

The line names the path, the system's reason and the fix. Running as root makes ``chmod``
ineffective, so the writers are made to fail as a full disk does (``OSError(ENOSPC)``); a real
read-only folder is used too when the tests do not run as root.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from fairprobe.cli.main import main
from fairprobe.datasets import BUNDLED

CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")
BOUND = ["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS, "--D", "0.05"]
SWEEP = ["sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS, "--D", "0,0.05"]
FULL = os.strerror(errno.ENOSPC)


def exit_code_and_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as stop:
        main(["--quiet", *args])
    err = capsys.readouterr().err.strip()
    return stop.value.code, err


def no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, FULL)


def assert_one_line(err: str, path: Path, option: str) -> None:
    assert len(err.splitlines()) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    assert str(path) in err and FULL in err, err
    assert f"free space or choose another {option}" in err, err


@pytest.mark.parametrize("command", [BOUND, SWEEP], ids=["bound", "sweep"])
def test_a_full_disk_under_out_is_one_line(command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from fairprobe.reporting.report import Report

    monkeypatch.setattr(Report, "write_files", no_space)
    code, err = exit_code_and_error([*command, "--out", str(tmp_path / "report")], capsys)
    assert code == 2
    assert_one_line(err, tmp_path / "report", "--out")
    assert not (tmp_path / "report").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no half-written temporary folder left behind


def test_a_full_disk_under_plot_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "savefig", no_space)
    code, err = exit_code_and_error([*SWEEP, "--plot", str(tmp_path / "sweep.png")], capsys)
    assert code == 2
    assert_one_line(err, tmp_path / "sweep.png", "--plot")


def test_a_full_disk_under_csv_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd

    monkeypatch.setattr(pd.DataFrame, "to_csv", no_space)
    code, err = exit_code_and_error([*SWEEP, "--csv", str(tmp_path / "bounds.csv")], capsys)
    assert code == 2
    assert_one_line(err, tmp_path / "bounds.csv", "--csv")


def test_a_full_disk_anywhere_else_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A writer without its own check (a plugin's): the entry point still names the file and the fix."""
    import fairprobe.core.bound as bound_module

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, FULL, "/data/cache/programs.bin")

    monkeypatch.setattr(bound_module, "bound", full)
    code, err = exit_code_and_error(BOUND, capsys)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "/data/cache/programs.bin" in err and FULL in err and "free space" in err and "internal error" not in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The folder becomes read-only after the options were checked (as a disk remounted read-only)."""
    import fairprobe.cli.options as options

    locked = tmp_path / "locked"
    locked.mkdir()
    real = options.write_report

    def lock_then_write(*args: object, **kwargs: object) -> Path:
        locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
        return real(*args, **kwargs)

    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(options, "write_report", lock_then_write)
            code, err = exit_code_and_error([*BOUND, "--out", str(locked / "report")], capsys)
    finally:
        locked.chmod(stat.S_IRWXU)
    assert code == 2 and len(err.splitlines()) == 1 and str(locked) in err and "choose another --out" in err


def test_the_api_error_is_still_an_oserror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Report.write raises one OutputError (a ConfigError naming the folder), still caught as an OSError."""
    from fairprobe.exceptions import ConfigError, OutputError
    from fairprobe.reporting.report import Report

    monkeypatch.setattr(Report, "write_files", no_space)
    with pytest.raises(OSError) as raised:
        Report("audit", command="").write(tmp_path / "report")
    assert isinstance(raised.value, OutputError) and isinstance(raised.value, ConfigError)
    assert raised.value.errno == errno.ENOSPC
    assert str(raised.value) == (f"Cannot write {tmp_path / 'report'}: {FULL}; free space or choose another path.")

"""Bad-input pass 3 on the command line: no file overwritten, no internal error (D1, S6, T3, T4).

Every command option that writes a file (``--csv``, ``--plot``) is walked: an existing file is
refused without ``--force``, the ``--data`` input is refused even with it, and nothing is changed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.cli.test_commands import run

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
SWEEP = ("sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--D", "0:0.1:3")


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    CELLS.to_csv(tmp_path / "cells.csv", index=False)
    rng = np.random.default_rng(0)
    rows = pd.DataFrame({"age": rng.integers(18, 80, 300), "y": rng.normal(size=300)})
    rows["yhat"] = rows.y + rng.normal(size=300)
    rows.to_csv(tmp_path / "rows.csv", index=False)
    return {"cells": tmp_path / "cells.csv", "rows": tmp_path / "rows.csv", "dir": tmp_path}


def _writers(files: dict[str, Path]) -> list[tuple[str, tuple[str, ...], Path]]:
    """(option, command line without the option, data input) for every command option writing a file."""
    fairtree = ("fairtree", "--data", str(files["rows"]), "--target", "y", "--prediction", "yhat",
                "--covariates", "age", "--max-depth", "1")
    sweep = (*SWEEP, "--data", str(files["cells"]))
    return [("--csv", sweep, files["cells"]), ("--plot", sweep, files["cells"]),
            ("--csv", fairtree, files["rows"]), ("--plot", fairtree, files["rows"])]


def test_every_written_file_needs_force(files: dict[str, Path]) -> None:
    for option, args, data in _writers(files):
        target = files["dir"] / ("old.png" if option == "--plot" else "old.csv")
        target.write_text("mine")
        refused = run(*args, option, str(target))
        assert refused.returncode == 2, (option, args[0], refused.stderr)
        assert "already exists" in refused.stderr and "--force" in refused.stderr
        assert target.read_text() == "mine"
        # the input itself: refused with --force as well, and left unchanged
        before = data.read_bytes()
        for extra in ((), ("--force",)):
            own = run(*args, option, str(data), *extra) if option == "--csv" else None
            if own is not None:
                assert own.returncode == 2 and "input" in own.stderr, (args[0], extra, own.stderr)
        assert data.read_bytes() == before
        forced = run(*args, option, str(target), "--force")
        assert forced.returncode == 0, forced.stderr
        assert target.read_bytes() != b"mine"
        target.unlink()


def test_input_refused_as_output_even_through_another_name(files: dict[str, Path]) -> None:
    link = files["dir"] / "link.csv"
    link.symlink_to(files["cells"])
    before = files["cells"].read_bytes()
    res = run(*SWEEP, "--data", str(files["cells"]), "--csv", str(link), "--force")
    assert res.returncode == 2 and "--data input" in res.stderr
    assert files["cells"].read_bytes() == before


def test_param_d_with_d_is_a_usage_error(files: dict[str, Path]) -> None:
    res = run("bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", str(files["cells"]),
              "--D", "0.05", "--param", "D=0.1")
    assert res.returncode == 2 and "given twice" in res.stderr, res.stderr
    res = run(*SWEEP, "--data", str(files["cells"]), "--param", "D=0.1")
    assert res.returncode == 2 and "given twice" in res.stderr, res.stderr


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs a /proc file system")
def test_out_in_unwritable_pseudo_folder_is_a_usage_error(files: dict[str, Path]) -> None:
    res = run("bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", str(files["cells"]),
              "--D", "0.05", "--out", "/proc/fairprobe-report")
    assert res.returncode == 2 and "not writable" in res.stderr, res.stderr
    assert "internal error" not in res.stderr


def test_one_column_for_two_nodes_is_refused(tmp_path: Path) -> None:
    rows = pd.DataFrame({"race": ["a", "b"] * 20, "recid": [0, 1, 1, 0] * 10})
    rows.to_csv(tmp_path / "rows.csv", index=False)
    res = run("bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", str(tmp_path / "rows.csv"),
              "--columns", "A=race,Y=recid,P=recid", "--D", "0.05")
    assert res.returncode == 2 and "mapped to 2 nodes (Y, P)" in res.stderr, res.stderr

"""The command line and the app read a table with one reader and one rule for count columns.

The command line used to read a column named ``n`` as cell counts while the app treated it as a
variable of unit rows unless the user said otherwise, so the same CSV gave different bounds.
Both now call :func:`fairprobe.core.reading.frame_to_table`: counts only when the user names the
count column (``--counts n``; the app's "cell counts" answer).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fairprobe.app import logic
from fairprobe.cli.causal import load_data
from fairprobe.core.reading import frame_to_table, table_kind
from tests.cli.test_commands import run

#: Eight cells with counts; read as unit rows, the ``n`` column is a variable and each row one unit.
CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "n": [400, 100, 100, 400, 300, 200, 100, 400]})
MAPPING = {"A": "A", "Y": "Y", "P": "P"}
BOUND = ["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--D", "0.02", "--json",
         "--columns", "A=A,Y=Y,P=P"]


def _app_bound(path: Path, *, counts: bool) -> tuple[float, float]:
    """What the app computes for the file: read the upload, take the user's answer, build, sweep one point."""
    frame = logic.read_upload(path.name, path.read_bytes())
    table = logic.build_table(frame, logic.table_kind(frame, counts=counts), MAPPING)
    job = logic.SweepJob("proxy_label", "fpr_parity", table, [0.02])
    while not job.done:
        job.step()
    row = job.result().to_frame().iloc[0]
    return float(row["lower"]), float(row["upper"])


def _cli_bound(path: Path, *extra: str) -> tuple[float, float]:
    out = run(*BOUND, "--data", str(path), *extra)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    return res["lower"], res["upper"]


@pytest.mark.parametrize("counts", [False, True], ids=["n-is-a-variable", "n-named-as-counts"])
def test_the_same_csv_gives_the_same_bound_in_the_cli_and_the_app(tmp_path: Path, counts: bool) -> None:
    path = tmp_path / "cells.csv"
    CELLS.to_csv(path, index=False)
    cli = _cli_bound(path, *(["--counts", "n"] if counts else []))
    app = _app_bound(path, counts=counts)
    assert cli == pytest.approx(app, abs=1e-9)


def test_counts_change_the_bound_only_when_named(tmp_path: Path) -> None:
    """The rule matters: eight equal units and the counted cells are different data."""
    path = tmp_path / "cells.csv"
    CELLS.to_csv(path, index=False)
    as_units, as_counts = _cli_bound(path), _cli_bound(path, "--counts", "n")
    assert abs(as_units[0] - as_counts[0]) > 1e-3
    table, _ = load_data(path, "A=A,Y=Y,P=P", None)
    assert table.n == len(CELLS)  # unit rows: one unit per row, n ignored
    table, _ = load_data(path, "A=A,Y=Y,P=P", None, counts="n")
    assert table.n == int(CELLS.n.sum())


def test_the_rule_in_one_place() -> None:
    assert table_kind(CELLS) == "units" and table_kind(CELLS, counts="n") == "counts"
    assert table_kind(CELLS.drop(columns="n").assign(prob=1 / 8)) == "cells"
    units, counted = frame_to_table(CELLS, MAPPING), frame_to_table(CELLS, MAPPING, counts="n")
    assert units.n == 8 and counted.n == 2000
    assert logic.build_table(CELLS, "units", MAPPING).cells.equals(units.cells)
    assert logic.build_table(CELLS, "counts", MAPPING).cells.equals(counted.cells)

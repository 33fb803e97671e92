"""Command line of the causal analysis: bound, sweep, breakdown; one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.cli.causal import parse_grid
from fairprobe.datasets import BUNDLED

COMPAS = str(BUNDLED / "compas-scores-two-years.csv.gz")
CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairprobe.cli", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def preds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    df = pd.read_csv(COMPAS)
    df = df[df.days_b_screening_arrest.between(-30, 30) & (df.is_recid != -1) & (df.c_charge_degree != "O")
            & (df.score_text != "N/A")]
    out = pd.DataFrame({"race": df.race, "recid": df.two_year_recid, "pred": (df.decile_score >= 5).astype(int)})
    path = tmp_path_factory.mktemp("cli") / "preds.csv"
    out.to_csv(path, index=False)
    return path


def test_parse_grid() -> None:
    assert parse_grid("0:0.1:3") == [0.0, 0.05, 0.1]
    assert parse_grid("0, 0.01") == [0.0, 0.01]
    for bad in ("", "0:1", "a,b", "0:1:0"):
        with pytest.raises(fp.ConfigError):
            parse_grid(bad)


def test_sweep_command_json_plot_progress(preds: Path, tmp_path: Path) -> None:
    png = tmp_path / "out.png"
    out = run("sweep", "--bias", "selection", "--metric", "equalized_odds", "--data", str(preds),
              "--columns", "A=race,Y=recid,P=pred", "--groups", "African-American,Caucasian",
              "--D", "0:0.1:21", "--plot", str(png), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["points"]) == 21 and data["parameters"] == ["D"]
    assert png.stat().st_size > 5000
    assert "21/21" not in out.stderr  # no progress bar when stderr is not a terminal
    assert "African-American vs Caucasian" in out.stdout  # groups are shown by their labels
    # the same numbers as the library on the same rows: every race stays in the population
    table = fp.ObservedTable.from_frame(pd.read_csv(preds), A="race", Y="recid", P="pred")
    ref = fp.bound("selection", fp.metric("equalized_odds", groups=("African-American", "Caucasian")), table, D=0.05)
    point = next(p for p in data["points"] if abs(p["D"] - 0.05) < 1e-12)
    assert (point["lower"], point["upper"]) == pytest.approx((ref.lower, ref.upper), abs=1e-7)


def test_bound_and_breakdown_commands() -> None:
    out = run("bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS, "--D", "0.05", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    ref = fp.bound("proxy_label", "fpr_parity", pd.read_csv(CELLS), D=0.05)
    assert res["lower"] == pytest.approx(ref.lower, abs=1e-9)
    out = run("breakdown", "--bias", "selection", "--metric", "fpr_parity", "--data", CELLS)
    assert out.returncode == 0, out.stderr
    assert "breakdown point: D = 0.01" in out.stdout


def test_combined_biases_from_the_command_line() -> None:
    out = run("bound", "--bias", "proxy_label", "--bias", "selection", "--metric", "fpr", "--data", CELLS,
              "--param", "D_proxy_label=0.02", "--param", "D_selection=0.01")
    assert out.returncode == 0, out.stderr
    assert "D_proxy_label=0.02, D_selection=0.01" in out.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--bias", "selection", "--metric", "fpr", "--D", ""], "empty"),
    (["--bias", "selection", "--metric", "P(P = 1 | T = 1)", "--D", "0.1"], "needs ['T']"),
    (["--bias", "selection", "--metric", "fpx", "--D", "0.1"], "Unknown metric 'fpx'"),
    (["--metric", "fpr", "--D", "0.1"], "Give a bias with --bias"),
    (["--bias", "selection", "--metric", "fpr", "--D", "0.1", "--columns", "A"], "NAME=VALUE"),
])
def test_sweep_errors_are_one_line(args: list[str], message: str) -> None:
    out = run("sweep", "--data", CELLS, *args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1

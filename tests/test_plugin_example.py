"""The external example plugin (examples/plugin_example), installed and found through its entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fairprobe.datasets import BUNDLED

ROOT = Path(__file__).resolve().parents[1]
CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package installed into a private folder (its dist-info carries the entry point)."""
    target = tmp_path_factory.mktemp("plugin")
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(ROOT / "examples" / "plugin_example")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return target


def fairprobe(plugin_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    env.pop("FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD", None)
    return subprocess.run([sys.executable, "-m", "fairprobe.cli", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_plugin_contributions_are_listed(plugin_path: Path) -> None:
    out = fairprobe(plugin_path, "plugins", "--json")
    assert out.returncode == 0, out.stderr
    rows = {(r["kind"], r["name"]) for r in json.loads(out.stdout)}
    assert {("biases", "label_delay"), ("metrics", "for_parity"), ("analyses", "base_rates")} <= rows
    assert {("biases", "proxy_label"), ("analyses", "rashomon")} <= rows  # built-ins still there


def test_plugin_bias_and_metric_work_in_bound(plugin_path: Path) -> None:
    cells = pd.read_csv(CELLS)
    p = cells.set_index(["A", "Y", "P"])["prob"]
    observed = {a: p[a, 1, 0] / (p[a, 0, 0] + p[a, 1, 0]) for a in (0, 1)}
    at_zero = fairprobe(plugin_path, "bound", "--bias", "label_delay", "--metric", "for_parity", "--data", CELLS,
                        "--D", "0", "--json")
    assert at_zero.returncode == 0, at_zero.stderr
    zero = json.loads(at_zero.stdout)
    assert zero["lower"] == pytest.approx(observed[0] - observed[1], abs=1e-6)
    assert zero["upper"] == pytest.approx(observed[0] - observed[1], abs=1e-6)
    wide = json.loads(fairprobe(plugin_path, "bound", "--bias", "label_delay", "--metric", "for_parity", "--data",
                                CELLS, "--D", "0.02", "--json").stdout)
    assert wide["lower"] < zero["lower"] - 1e-3 and wide["upper"] > zero["upper"] + 1e-3
    # a plugin bias combines with the built-ins like any other
    both = fairprobe(plugin_path, "bound", "--bias", "label_delay", "--bias", "selection", "--metric", "fpr_parity",
                     "--data", CELLS, "--param", "D_label_delay=0.01", "--param", "D_selection=0.01", "--json")
    assert both.returncode == 0, both.stderr


def test_plugin_command_and_its_errors(plugin_path: Path, tmp_path: Path) -> None:
    rows = pd.DataFrame({"y": [1, 0, 0, 1, 1, 0, 0, 0], "race": list("aabbabab")})
    rows.to_csv(tmp_path / "rows.csv", index=False)
    out = fairprobe(plugin_path, "base-rates", "--data", str(tmp_path / "rows.csv"), "--target", "y", "--group", "race")
    assert out.returncode == 0, out.stderr
    assert "0.5" in out.stdout and "lower" in out.stdout
    bad = fairprobe(plugin_path, "base-rates", "--data", str(tmp_path / "rows.csv"), "--target", "nope", "--group",
                    "race")
    assert bad.returncode == 2 and "['nope'] are not in the data" in bad.stderr and "Traceback" not in bad.stderr
    unknown = fairprobe(plugin_path, "bound", "--bias", "label_delai", "--metric", "for_parity", "--data", CELLS,
                        "--D", "0.01")
    assert unknown.returncode == 2 and "label_delay" in unknown.stderr  # the message lists the registered biases

"""The command line: plugins listing, solve, demo, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fairprobe.testing import CONTRACT_PROBLEMS


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairprobe.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def test_plugins_lists_backends_with_availability() -> None:
    out = run("plugins", "--kind", "backends")
    assert out.returncode == 0, out.stderr
    lines = {line.split()[1]: line for line in out.stdout.splitlines() if line.startswith(("  + ", "  - "))}
    assert set(lines) == {"scip", "highs", "gurobi", "ortools", "cvxpy"}
    assert lines["scip"].startswith("  + scip")
    assert "licence" in lines["gurobi"] or "not installed" in lines["gurobi"]


def test_plugins_json() -> None:
    out = run("plugins", "--json")
    rows = json.loads(out.stdout)
    assert {r["name"] for r in rows if r["kind"] == "backends"} == {"scip", "highs", "gurobi", "ortools", "cvxpy"}


def test_solve_text_program(tmp_path: Path) -> None:
    problem = next(p for p in CONTRACT_PROBLEMS if p.name == "bilinear_simplex")
    path = tmp_path / "prog.txt"
    path.write_text(problem.text)
    out = run("solve", str(path), "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["termination"] == "optimal"
    assert res["objective_bound"] == pytest.approx(0.1225, abs=1e-6)


def test_bad_input_is_one_line_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("minimize\n  x + q\nbounds\n  0 <= x <= 1\n")
    out = run("solve", str(path))
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "variable 'q'" in out.stderr and "Traceback" not in out.stderr
    out = run("solve", str(path).replace("bad", "good"), "--backend", "scip")
    assert out.returncode == 2 and "does not exist" in out.stderr
    path.write_text("minimize\n  x\nbounds\n  0 <= x <= 1\n")
    out = run("solve", str(path), "--backend", "cplex")
    assert out.returncode == 2 and "Unknown backend 'cplex'" in out.stderr


def test_every_command_has_help_with_example() -> None:
    for cmd in ("plugins", "solve", "demo"):
        out = run(cmd, "--help")
        assert out.returncode == 0 and "Example:" in out.stdout, cmd


def test_demo_finds_every_injected_problem(demo_run) -> None:
    out, rep = demo_run, demo_run.out  # the full demo, run once per session (tests/conftest.py)
    assert out.returncode == 0, out.stderr
    assert f"report written to {(rep / 'index.html').resolve()}" in out.stderr  # on stderr, like every command
    def refuse(token: str) -> None:
        raise ValueError(f"summary.json holds the invalid JSON token {token}")

    summary = json.loads((rep / "summary.json").read_text(), parse_constant=refuse)  # standard JSON only
    assert summary["detected"] == {"proxy_outcome": True, "selection": True, "biased_residuals": True,
                                   "extra_variance": True, "miscalibrated_group": True}
    causal = summary["facts"]["causal"]
    # the truth is inside the certified bounds at the injected bias size, and the solvers agree
    assert causal["truth_covered"] == causal["truth_checks"] >= 4
    assert causal["backend_disagreement"] < 1e-5 and "scip" in causal["backends"]
    # conclusions about the metrics the biases can move break down at finite D
    for key in ("proxy_label/fpr_parity", "proxy_label/fnr_parity", "selection/fpr_parity",
                "selection/demographic_parity"):
        assert causal["breakdown"][key] < 0.5, key
    assert causal["breakdown"]["proxy_label/demographic_parity"] == "inf"  # P does not involve Y (JSON: "inf")
    assert summary["facts"]["riskscore"]["worst_calibrated"] == "region=east"
    assert any(s.startswith("age <=") and "bias" in s for s in summary["facts"]["fairtree"]["splits"])
    figures = sorted(p.name for p in (rep / "figures").iterdir())
    assert len(figures) >= 7 and all((rep / "figures" / f).stat().st_size > 5000 for f in figures)
    assert (rep / "tables" / "s2_breakdown_points.csv").is_file()
    assert "Injected problems detected" in out.stdout and "[ ]" not in out.stdout

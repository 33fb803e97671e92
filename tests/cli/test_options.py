"""Report folders and logs on the command line (issue 13, items 7 and 8), run in process.

``--out``/``--plot`` are checked while the options are parsed, before any work; a folder holding a
user's files needs ``--force``; a second report replaces the first as a whole; progress bars are
drawn only on a terminal and ``--quiet`` silences informational lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.bad_input import run_cli

# a joint table of attribute A, label Y and prediction P (cells with probabilities)
CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})

COMMANDS_WITH_OUT = ("bound", "sweep", "breakdown", "fairtree", "multiplicity", "riskscore", "demo", "report")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("cli_io")
    CELLS.to_csv(d / "cells.csv", index=False)
    rng = np.random.default_rng(0)
    n = 600
    r = rng.random(n)
    pd.DataFrame({"sex": rng.choice(["f", "m"], n), "score": r, "y": (rng.random(n) < r).astype(int)}).to_csv(
        d / "scores.csv", index=False)
    return {"cells": str(d / "cells.csv"), "scores": str(d / "scores.csv")}


def bound_args(files: dict[str, str]) -> list[str]:
    return ["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", files["cells"], "--D", "0.05"]


def test_empty_out_is_refused_before_any_solving(files: dict[str, str], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture) -> None:
    import fairprobe.cli.demo
    import fairprobe.core.bound

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the analysis ran although --out was unusable")

    monkeypatch.setattr(fairprobe.core.bound, "bound", never)
    monkeypatch.setattr(fairprobe.cli.demo, "run_demo", never)
    monkeypatch.chdir(tmp_path)
    for argv in ([*bound_args(files), "--out", ""], ["demo", "--quick", "--out", ""]):
        code, _out, err = run_cli(argv, capsys)
        assert code == 2 and "--out is empty" in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []  # nothing written into the current folder


def test_a_users_folder_needs_force(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "index.html").write_text("<html>my own page</html>")
    (out / "notes.txt").write_text("keep")
    code, _, err = run_cli([*bound_args(files), "--out", str(out)], capsys)
    assert code == 2 and "did not write" in err and "--force" in err
    assert (out / "index.html").read_text() == "<html>my own page</html>"
    code, _, err = run_cli([*bound_args(files), "--force", "--out", str(out)], capsys)  # --force before --out too
    assert code == 0, err
    assert "Certified bounds" in (out / "index.html").read_text() and (out / "notes.txt").read_text() == "keep"


def test_a_second_analysis_replaces_the_first_report(files: dict[str, str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "r"
    assert run_cli([*bound_args(files), "--out", str(out)], capsys)[0] == 0
    assert [p.name for p in (out / "tables").iterdir()] == ["s1_result.csv"]
    code, _, err = run_cli(["sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", files["cells"],
                            "--D", "0,0.05", "--out", str(out)], capsys)
    assert code == 0, err
    assert [p.name for p in (out / "tables").iterdir()] == ["s1_bounds.csv"]  # no table of the first analysis
    assert json.loads((out / "report.json").read_text())["title"].startswith("Sensitivity sweep")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]  # no temporary folder left behind


@pytest.mark.parametrize("command", COMMANDS_WITH_OUT)
def test_every_command_with_out_has_force(command: str, capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run_cli([command, "--help"], capsys)
    assert code == 0 and "--out" in out and "--force" in out


def test_no_progress_bar_off_a_terminal(files: dict[str, str], capsys: pytest.CaptureFixture,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAIRPROBE_PROGRESS", raising=False)
    code, out, err = run_cli(["sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", files["cells"],
                              "--D", "0:0.1:5"], capsys)
    assert code == 0, err
    assert "5/5" not in err and "it/s" not in err and err.strip() == ""  # captured stderr is not a terminal
    assert "lower" in out  # the results are printed


def test_progress_bar_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.core.progress import is_quiet, progress_bar, quiet

    monkeypatch.delenv("FAIRPROBE_QUIET", raising=False)
    monkeypatch.setenv("FAIRPROBE_PROGRESS", "1")  # forced on although stderr is not a terminal ...
    assert not progress_bar(total=2, desc="x").disable
    assert progress_bar(total=2, disable=True).disable  # ... unless the caller switches it off
    with quiet():  # ... or quiet mode is on
        assert is_quiet() and progress_bar(total=2).disable
    assert not is_quiet()
    monkeypatch.setenv("FAIRPROBE_QUIET", "1")
    assert is_quiet() and progress_bar(range(3)).disable and list(progress_bar(range(3))) == [0, 1, 2]
    monkeypatch.delenv("FAIRPROBE_PROGRESS")
    monkeypatch.delenv("FAIRPROBE_QUIET")
    assert progress_bar(total=2).disable  # pytest's captured stderr is not a terminal


def test_quiet_keeps_results_and_errors(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.core.progress import is_quiet

    monkeypatch.setenv("FAIRPROBE_PROGRESS", "1")  # bars would be drawn, but --quiet wins
    args = ["riskscore", "--data", files["scores"], "--target", "y", "--score", "score", "--groups", "sex",
            "--bootstrap", "5", "--out", str(tmp_path / "rep")]
    code, out, err = run_cli(args, capsys)
    assert code == 0 and "risk-score audit:" in out, err
    assert "report written to" in err and "report written to" not in out  # information on stderr, like every command
    code, out, err = run_cli(["--quiet", *args], capsys)
    assert code == 0, err
    assert "risk-score audit:" in out and "report written to" not in out  # the result, not the information
    assert err == ""  # no progress bar
    assert not is_quiet()  # the mode ends with the command
    code, out, err = run_cli(["--quiet", *args[:-2], "--bootstrap", "0"], capsys)
    assert code == 2 and "n_bootstrap" in err  # errors are still reported

"""Polish of the command line (auditor findings), run in process.

* ``fairprobe report`` gives each section heading once and records its command with its quotes;
* a report never shows Python's ``None`` for a parameter that is not set;
* every command that writes a report folder prints one ``report written to <page>`` line on
  stderr (stdout stays pure JSON with ``--json``; ``--quiet`` silences it);
* ``fairprobe report X --out X`` is refused (exit 2) instead of overwriting report X;
* the demo's line for an analysis whose summary starts with a heading is not left empty;
* ``fairprobe plugins`` keeps its columns aligned whatever the names' lengths;
* a saved ``--plot`` holds its whole axis label.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairprobe.datasets import BUNDLED
from tests.bad_input import run_cli

CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")
WRITTEN = re.compile(r"^report written to (.+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> str:
    d = tmp_path_factory.mktemp("polish")
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "sex": rng.choice(["f", "m"], n), "x": rng.normal(size=n)})
    frame["y"] = (rng.random(n) < 1 / (1 + np.exp(-frame.x))).astype(int)
    frame["score"] = 1 / (1 + np.exp(-frame.x - 0.5 * (frame.sex == "f")))
    frame["yhat"] = frame.x + rng.normal(0.4 * (frame.age < 25), 0.5)
    frame.to_csv(d / "rows.csv", index=False)
    return str(d / "rows.csv")


def sweep(bias: str, out: Path, *extra: str) -> list[str]:
    return ["sweep", "--bias", bias, "--metric", "fpr_parity", "--data", CELLS, "--D", "0:0.1:3", "--out", str(out),
            *extra]


def test_merged_report_gives_each_heading_once_and_keeps_the_quotes(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    for bias, name in (("proxy_label", "rep1"), ("selection", "rep2")):
        code, _, err = run_cli(sweep(bias, tmp_path / name), capsys)
        assert code == 0, err
    argv = ["report", str(tmp_path / "rep1"), str(tmp_path / "rep2"), "--out", str(tmp_path / "merged"),
            "--title", "COMPAS audit"]
    code, _, err = run_cli(argv, capsys)
    assert code == 0, err
    page = (tmp_path / "merged" / "index.html").read_text()
    headings = re.findall(r"<h2 id='s\d+'>([^<]*)</h2>", page)
    assert headings == ["Sensitivity sweep: fpr_parity", "Sensitivity sweep: fpr_parity (2)"]
    command = json.loads((tmp_path / "merged" / "report.json").read_text())["command"]
    assert "--title 'COMPAS audit'" in command
    assert shlex.split(command) == ["fairprobe", *argv]  # copied into a shell, it runs the same command
    # each part keeps the command that made it, quoted too
    sweep_command = json.loads((tmp_path / "rep1" / "report.json").read_text())["command"]
    assert shlex.split(sweep_command) == ["fairprobe", *sweep("proxy_label", tmp_path / "rep1")]


def test_a_parameter_that_is_not_set_is_not_shown_as_none(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, _, err = run_cli([*sweep("proxy_label", tmp_path / "r"), "--time-limit", "none"], capsys)
    assert code == 0, err
    page = (tmp_path / "r" / "index.html").read_text()
    assert "<td>time limit</td><td>none</td>" in page and ">None<" not in page
    code, _, err = run_cli(sweep("proxy_label", tmp_path / "default"), capsys)  # no --time-limit: the default
    assert code == 0, err
    assert "<td>time limit</td><td>60.0</td>" in (tmp_path / "default" / "index.html").read_text()


def command_lines(rows: str, out: Path) -> dict[str, list[str]]:
    bound = ["--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS]
    return {
        "bound": ["bound", *bound, "--D", "0.05", "--out", str(out / "bound")],
        "sweep": sweep("proxy_label", out / "sweep"),
        "breakdown": ["breakdown", *bound, "--out", str(out / "breakdown")],
        "fairtree": ["fairtree", "--data", rows, "--target", "x", "--prediction", "yhat", "--covariates", "age,sex",
                     "--permutations", "20", "--out", str(out / "fairtree")],
        "riskscore": ["riskscore", "--data", rows, "--target", "y", "--score", "score", "--groups", "sex",
                      "--bootstrap", "5", "--out", str(out / "riskscore")],
        "multiplicity": ["multiplicity", "--data", rows, "--target", "y", "--n-models", "5", "--epsilon", "0.05",
                         "--out", str(out / "multiplicity")],
    }


@pytest.mark.parametrize("command", ["bound", "sweep", "breakdown", "fairtree", "riskscore", "multiplicity",
                                     "report"])
def test_every_command_with_out_prints_the_same_line_on_stderr(command: str, rows: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    if command == "report":
        assert run_cli(command_lines(rows, tmp_path)["bound"], capsys)[0] == 0
        argv = ["report", str(tmp_path / "bound"), "--out", str(tmp_path / "report")]
    else:
        argv = command_lines(rows, tmp_path)[command]
    folder = tmp_path / command
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert WRITTEN.findall(err) == [str((folder / "index.html").resolve())]  # once, naming the page
    assert "written to" not in out
    code, out, err = run_cli([*argv, "--json"], capsys)  # the report is replaced; stdout is JSON only
    assert code == 0, err
    json.loads(out)
    assert WRITTEN.findall(err) == [str((folder / "index.html").resolve())]
    code, out, err = run_cli(["--quiet", *argv], capsys)  # --quiet silences informational lines
    assert code == 0, err
    assert "written to" not in out + err and (folder / "index.html").is_file()


def test_no_line_without_out(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS,
                              "--D", "0.05"], capsys)
    assert code == 0, err
    assert "written to" not in out + err


def test_report_refuses_to_overwrite_one_of_its_inputs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for bias, name in (("proxy_label", "x"), ("selection", "y")):
        assert run_cli(sweep(bias, tmp_path / name), capsys)[0] == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "x").rglob("*") if p.is_file()}
    for out in (tmp_path / "x", tmp_path / "x" / "merged"):
        code, _, err = run_cli(["report", str(tmp_path / "x"), str(tmp_path / "y"), "--out", str(out)], capsys)
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2 and len(lines) == 1, err
        assert f"--out {out}" in err and f"input report {tmp_path / 'x'}" in err
        assert "Choose another --out folder" in err and "Traceback" not in err
    after = {p.name: p.read_bytes() for p in (tmp_path / "x").rglob("*") if p.is_file()}
    assert after == before and sorted(p.name for p in (tmp_path / "x").iterdir()) == sorted(
        [".fairprobe-report.id", "figures", "index.html", "report.json", "tables"])
    code, _, err = run_cli(["report", str(tmp_path / "x"), "--out", str(tmp_path / "other")], capsys)
    assert code == 0, err  # another folder is fine


def test_demo_line_of_an_analysis_whose_summary_starts_with_a_heading_is_not_empty() -> None:
    from fairprobe.plugins.base import Analysis, Example, Summary
    from fairprobe.reporting.report import Report

    class Headed(Analysis):
        name, description = "headed", "a summary with a heading line"

        def fit(self, data: pd.DataFrame, *, y_true: str) -> Headed:
            self.rate_ = float(data[y_true].mean())
            return self

        def summary(self) -> Summary:
            return Summary(f"headed analysis (scip):\n  rate {self.rate_:.2f}\n  groups 2\n\nmore details")

        def to_frame(self) -> pd.DataFrame:
            return pd.DataFrame({"rate": [self.rate_]})

        @classmethod
        def example(cls, *, seed: int = 0) -> Example:
            return Example(cls(), pd.DataFrame({"y": [0, 1, 1, 1]}), {"y_true": "y"})

    _, _, lines = Headed.demo(Report("demo", command=""), None, {}, quick=True, seed=0, n_jobs=1, progress=False)
    assert lines == ["- headed (its built-in example): headed analysis (scip): rate 0.75; groups 2"]


def test_demo_line_of_linear_multiplicity_says_what_it_found() -> None:
    from fairprobe.core.registry import get_registry
    from fairprobe.datasets import make_lending_scenario
    from fairprobe.reporting.report import Report

    cls = get_registry().analyses["linear_multiplicity"]
    _, _, lines = cls.demo(Report("demo", command=""), make_lending_scenario(2000, seed=0), {}, quick=True, seed=0,
                           n_jobs=1, progress=False)
    assert len(lines) == 1 and not lines[0].rstrip().endswith(":")
    assert "ambiguity" in lines[0]


def test_plugins_table_columns_are_aligned(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.core.registry import list_plugins

    monkeypatch.setenv("COLUMNS", "400")  # wide enough for every description on its row (narrower: wrapped)
    table = list_plugins()
    code, out, err = run_cli(["plugins"], capsys)
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("  + ") or line.startswith("  - ")]
    assert len(rows) == len(table)
    by_name = {r.name: r for r in table.itertuples()}
    status_at, description_at = set(), set()
    for line in rows:
        name = line[4:].split()[0]
        row = by_name[name]
        status = line.index(row.status, 4 + len(name))
        status_at.add(status)
        description_at.add(line.index(row.description, status + len(row.status)))
    assert len(status_at) == 1 and len(description_at) == 1, (status_at, description_at)
    longest = max(len(n) for n in table.name)
    assert status_at.pop() > 4 + longest  # the longest name does not push its status out of line


def test_a_saved_plot_holds_an_axis_label_longer_than_the_figure(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    from fairprobe.cli.options import save_plot
    from fairprobe.reporting.plotting import new_axes

    def draw() -> object:
        ax = new_axes(size=(4, 2))
        ax.plot([0, 0.1], [0, 1])
        ax.set_ylabel("fpr_parity (race: African-American vs Caucasian), certified bounds")
        return ax

    save_plot(draw, tmp_path / "sweep.png")
    height = plt.imread(io.BytesIO((tmp_path / "sweep.png").read_bytes())).shape[0]
    plt.close("all")
    assert height > 2 * 150  # the image grew to hold the whole label (clipped, it stays 300 px high)

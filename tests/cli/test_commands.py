"""Every command: one valid run (report folder written) and at least two kinds of bad input.

Bad input must give exit code 2 and one line on stderr naming the problem, never a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairprobe.datasets import BUNDLED

CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")


def run_subprocess(*args: str) -> subprocess.CompletedProcess:
    """The real entry point (``python -m fairprobe.cli``) in a new process."""
    return subprocess.run([sys.executable, "-m", "fairprobe.cli", *args], capture_output=True, text=True,
                          timeout=600)


def run(*args: str) -> subprocess.CompletedProcess:
    """``fairprobe`` in this process (the same ``main`` as the console script, without a new
    interpreter's ~1.5 s of imports per call); exit code, stdout and stderr as a subprocess gives them."""
    import contextlib
    import io

    from fairprobe.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(["fairprobe", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    n = 1200
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "sex": rng.choice(["f", "m"], n),
                          "x": rng.normal(size=n)})
    frame["y"] = (rng.random(n) < 1 / (1 + np.exp(-frame.x))).astype(int)
    frame["score"] = 1 / (1 + np.exp(-frame.x - 0.5 * (frame.sex == "f")))
    frame["yhat"] = frame.x + rng.normal(0.4 * (frame.age < 25), 0.5)
    frame.to_csv(d / "rows.csv", index=False)
    (d / "cyclic.json").write_text(json.dumps({
        "name": "cyclic", "dag_str": "A -> Y, Y -> A, A -> P", "unob": [], "attribute_node": "A",
        "outcome_node": "Y", "prediction_node": "P", "constraints": ["P(Y = 1) <= D"]}))
    (d / "broken.json").write_text('{"name": "broken", ')
    (d / "bad_constraint.json").write_text(json.dumps({
        "name": "badc", "dag_str": "A -> Y, A -> P, Y -> P", "unob": [], "attribute_node": "A",
        "outcome_node": "Y", "prediction_node": "P", "constraints": ["P(Y = 1 <= D"]}))
    return {k: str(d / f) for k, f in (("rows", "rows.csv"), ("cyclic", "cyclic.json"), ("broken", "broken.json"),
                                       ("bad_constraint", "bad_constraint.json"))} | {"dir": str(d)}


def assert_bad(out: subprocess.CompletedProcess, message: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("command", ["bound", "sweep", "breakdown"])
def test_causal_commands(command: str, files: dict[str, str], tmp_path: Path) -> None:
    extra = {"bound": ["--D", "0.05"], "sweep": ["--D", "0:0.1:3"], "breakdown": []}[command]
    base = [command, "--metric", "fpr_parity", "--data", CELLS, *extra]
    ok = run(*base, "--bias", "proxy_label", "--out", str(tmp_path / "rep"), "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["sections"]
    assert_bad(run(*base, "--bias", "proxy_label", "--columns", "A=race"), "['race'] named in --columns")
    assert_bad(run(*base, "--bias", files["cyclic"]), "cycle")
    assert_bad(run(*base, "--bias", files["broken"]), "not valid JSON")
    assert_bad(run(*base, "--bias", files["bad_constraint"]), "Cannot parse 'P(Y = 1 <= D'")
    assert_bad(run(*base, "--bias", "proxy_labels"), "Unknown bias 'proxy_labels'")


def test_bound_with_a_sampling_interval(tmp_path: Path) -> None:
    counts = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                           "n": [400, 100, 100, 400, 300, 200, 100, 400]})
    counts.to_csv(tmp_path / "counts.csv", index=False)
    counted = ["--data", str(tmp_path / "counts.csv"), "--counts", "n"]  # the count column is named, never guessed
    base = ["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--D", "0.02"]
    out = run(*base, *counted, "--ci", "0.95", "--resamples", "40", "--seed", "3",
              "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    ci = res["interval"]
    assert ci["method"] == "bootstrap" and ci["resamples"] == 40 and ci["seed"] == 3
    assert ci["lower"] <= res["lower"] <= res["upper"] <= ci["upper"]
    assert "With sampling error" in res["conclusion"]
    projection = run(*base, *counted, "--ci", "0.95", "--ci-method", "projection",
                     "--out", str(tmp_path / "report"))
    assert projection.returncode == 0 and "projection (Clopper-Pearson region, n = 2,000)" in projection.stdout
    # the report has its own block for the two intervals, with how to read them
    page = (tmp_path / "report" / "index.html").read_text()
    assert "95 % confidence interval for the metric" in page and "bias-only interval (the data as the population)" \
        in page and "survives both bias and noise" in page
    block = pd.read_csv(next((tmp_path / "report" / "tables").glob("*sampling*")), index_col=0)
    assert block.loc["method", "value"] == "projection, one certified program"
    # probabilities without a sample size, and levels out of range, are refused with the fix
    counts.assign(prob=counts.n / counts.n.sum()).drop(columns="n").to_csv(tmp_path / "probs.csv", index=False)
    assert_bad(run(*base, "--data", str(tmp_path / "probs.csv"), "--ci", "0.95"), "no sample size")
    assert_bad(run(*base, *counted, "--ci", "1.5"), "strictly between 0 and 1")
    assert_bad(run(*base, *counted, "--ci", "0.95", "--resamples", "5"), ">= 20")
    # interval options without --ci are refused, not silently dropped; --stratify names a node of the table
    assert_bad(run(*base, *counted, "--ci-method", "bayes"), "add --ci 0.95")
    assert_bad(run(*base, *counted, "--ci", "0.95", "--stratify", "race"),
               "not a node of the table")
    strat = run(*base, *counted, "--ci", "0.95", "--resamples", "40", "--stratify", "A",
                "--json")
    assert strat.returncode == 0, strat.stderr
    assert any("within the levels of A" in note for note in json.loads(strat.stdout)["interval"]["notes"])
    brk = run("breakdown", "--bias", "proxy_label", "--metric", "fpr_parity", *counted,
              "--ci", "0.95", "--ci-method", "projection", "--json")
    assert brk.returncode == 0, brk.stderr
    out = json.loads(brk.stdout)
    assert 0 < out["ci_value"] < out["value"] and "With sampling error" in out["conclusion"]
    sweep = run("sweep", "--bias", "proxy_label", "--metric", "fpr_parity", *counted,
                "--D", "0,0.02,0.04", "--ci", "0.95", "--ci-method", "projection", "--plot", str(tmp_path / "s.png"),
                "--json")
    assert sweep.returncode == 0, sweep.stderr
    points = json.loads(sweep.stdout)["points"]
    assert all(p["ci_lower"] <= p["lower"] <= p["upper"] <= p["ci_upper"] for p in points)
    assert points[0]["ci_upper"] - points[0]["ci_lower"] < points[-1]["ci_upper"] - points[-1]["ci_lower"]
    assert (tmp_path / "s.png").stat().st_size > 0


def test_fairtree_command(files: dict[str, str], tmp_path: Path) -> None:
    base = ["fairtree", "--data", files["rows"], "--target", "x", "--prediction", "yhat"]
    ok = run(*base, "--covariates", "age,sex", "--out", str(tmp_path / "rep"))
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "rep" / "figures" / "s1_tree.png").is_file()
    assert_bad(run(*base, "--covariates", "age,income"), "['income'] are not in")
    assert_bad(run(*base, "--covariates", "age", "--test", "chi2"), "Invalid value for '--test'")
    assert_bad(run("fairtree", "--data", files["rows"], "--covariates", "age"), "Give --target and --prediction")


def test_riskscore_command(files: dict[str, str], tmp_path: Path) -> None:
    base = ["riskscore", "--data", files["rows"], "--target", "y", "--score", "score"]
    ok = run(*base, "--groups", "sex", "--bootstrap", "10", "--out", str(tmp_path / "rep"))
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "rep" / "report.json").is_file()
    assert_bad(run(*base, "--groups", "race"), "['race'] are not in")
    assert_bad(run("riskscore", "--data", files["rows"], "--target", "x", "--score", "score", "--groups", "sex"),
               "binary")
    assert_bad(run(*base, "--groups", "sex", "--max-intersections", "0"), "max_intersections must be at least 1")
    # a real-valued score is ranked (AUROC, AUPRG); calibration is reported as undefined, with why
    real = run("riskscore", "--data", files["rows"], "--target", "y", "--score", "x", "--groups", "sex",
               "--bootstrap", "10")
    assert real.returncode == 0, real.stderr
    assert "outside [0, 1]" in real.stdout
    # ECE and EUR are compared with random groups of the same size: --permutations, and JSON rows
    perm = run(*base, "--groups", "sex", "--bootstrap", "5", "--permutations", "30", "--json")
    assert perm.returncode == 0, perm.stderr
    tests = json.loads(perm.stdout)["permutation_tests"]
    assert {t["metric"] for t in tests} == {"ece", "eur"} and all(t["n_permutations"] <= 30 for t in tests)
    assert_bad(run(*base, "--groups", "sex", "--permutations", "0"), "n_permutations must be at least 1")


def test_multiplicity_command(files: dict[str, str], tmp_path: Path) -> None:
    base = ["multiplicity", "--data", files["rows"], "--n-models", "10", "--epsilon", "0.05"]
    ok = run(*base, "--target", "y", "--out", str(tmp_path / "rep"))
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "rep" / "tables" / "s1_individual_report.csv").is_file()
    assert_bad(run(*base, "--target", "label"), "['label'] are not in")
    assert_bad(run(*base, "--target", "y", "--model", "svm"), "Invalid value for '--model'")
    assert_bad(run(*base, "--target", "y", "--dataset-multiplicity", "subsample", "--subsample", "1.5"),
               "subsample must be <= 1")


def test_report_plugins_solve_and_demo_bad_input(files: dict[str, str], tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert run("bound", "--bias", "selection", "--metric", "fpr", "--data", CELLS, "--D", "0.05", "--out",
                   str(tmp_path / name)).returncode == 0
    ok = run("report", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "all"), "--title", "Audit")
    assert ok.returncode == 0, ok.stderr
    merged = json.loads((tmp_path / "all" / "report.json").read_text())
    assert merged["title"] == "Audit" and len(merged["sections"]) == 2
    as_json = run("report", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "all2"), "--json")
    assert as_json.returncode == 0, as_json.stderr
    printed = json.loads(as_json.stdout)
    assert printed["sections"] == 2 and printed["report"].endswith("index.html") and len(printed["parts"]) == 2
    assert_bad(run("report", files["dir"], "--out", str(tmp_path / "x")), "not a fairprobe report folder")
    assert_bad(run("report", str(tmp_path / "missing"), "--out", str(tmp_path / "x")), "does not exist")
    assert_bad(run("plugins", "--kind", "solvers"), "Invalid value for '--kind'")
    assert_bad(run("plugins", "--json", "--verbose"), "No such option")
    assert_bad(run("solve", files["rows"]), "Line 1")
    assert_bad(run("demo", "--quick", "--out", files["rows"]), "is a file")
    assert_bad(run("demo", "--seed", "one"), "Invalid value for '--seed'")


def test_help_of_every_command_has_an_example() -> None:
    out = run_subprocess("--help")  # once through the real module entry point
    assert "Exit codes" in out.stdout
    for cmd in ("plugins", "solve", "bound", "sweep", "breakdown", "fairtree", "multiplicity", "riskscore", "demo",
                "report"):
        out = run(cmd, "--help")
        assert out.returncode == 0 and "Example:" in out.stdout, cmd


def test_debug_shows_the_traceback() -> None:
    out = run_subprocess("--debug", "bound", "--bias", "proxy_labels", "--metric", "fpr", "--data", CELLS, "--D",
                         "0.1")
    assert out.returncode != 0 and "Traceback" in out.stderr


def test_demo_json_prints_what_it_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``fairprobe demo --json``: the findings as JSON (the tour itself is tested in tests/cli/test_main.py)."""
    from click.testing import CliRunner

    import fairprobe.cli.demo
    from fairprobe.cli import cli

    def fake(out_dir, **kwargs):
        assert kwargs["progress"] is False  # nothing but the JSON on stdout
        return fairprobe.cli.demo.DemoResult(Path(out_dir), "summary", {"selection": True}, seconds=1.5,
                                             facts={"causal": {"breakdown": float("inf")}})

    monkeypatch.setattr(fairprobe.cli.demo, "run_demo", fake)
    out = CliRunner().invoke(cli, ["demo", "--out", str(tmp_path / "r"), "--json", "--seed", "3"])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    assert printed["detected"] == {"selection": True} and printed["seed"] == 3
    assert printed["facts"]["causal"]["breakdown"] == "inf"  # JSON has no infinity


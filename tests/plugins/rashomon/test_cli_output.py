"""``fairprobe multiplicity`` / ``multiplicity-trees`` as a person reads them: the counts of the set, the
per-group table, the status line before the silent reference search, the --exact-trees options, the help
examples and the two ambiguities of --exact-linear."""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.bad_input import run_cli

needs_treefarms = pytest.mark.skipif(importlib.util.find_spec("treefarms") is None,
                                     reason='treefarms is not installed (pip install "fairprobe[trees]")')


@pytest.fixture
def people_csv(tmp_path: Path) -> Path:
    """400 rows: two numeric features, a text one, a two-valued protected column and a noisy label."""
    rng = np.random.default_rng(4)
    n = 400
    income = rng.normal(50, 10, n).round(1)
    job = rng.choice(["clerk", "nurse", "chef"], n)
    sex = rng.choice(["female", "male"], n)
    y = ((income - 50) / 10 + (job == "nurse") + rng.normal(0, 1.2, n) > 0.3).astype(int)
    path = tmp_path / "people.csv"
    pd.DataFrame({"income": income, "age": rng.integers(18, 70, n), "job": job, "sex": sex, "y": y}).to_csv(
        path, index=False)
    return path


@pytest.fixture
def compas_csv(tmp_path: Path) -> Path:
    """300 COMPAS rows with non-binary columns (as the auditor's mult.csv)."""
    from fairprobe.datasets import load_compas

    frame = load_compas().frame
    path = tmp_path / "mult.csv"
    frame[["sex", "race", "age", "priors_count", "c_charge_degree", "two_year_recid"]].head(300).to_csv(
        path, index=False)
    return path


def _json(out: str) -> dict:
    return json.loads(out[out.index("{"):])


def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAIRPROBE_QUIET", raising=False)
    monkeypatch.delenv("FAIRPROBE_PROGRESS", raising=False)


SAMPLED = ("--target", "y", "--n-models", "20", "--epsilon", "0.01", "--seed", "3", "--sensitive", "sex")


# -- 1. how many models were trained, how many are in the set -------------------------------------------------
def test_text_and_json_say_how_many_trained_models_are_within_epsilon(people_csv: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    out_dir = tmp_path / "rep"
    code, out, err = run_cli(["multiplicity", "--data", str(people_csv), *SAMPLED, "--json", "--out", str(out_dir)],
                             capsys)
    assert code == 0, err
    summary = _json(out)
    trained, within = summary["n_models_trained"], summary["n_models_within_epsilon"]
    assert trained == 20 and 0 < within < 20  # a small epsilon leaves some trained models out of the set
    assert summary["n_models"] == within  # the old key keeps its meaning: the Rashomon set's size
    assert "within epsilon" not in summary["definitions"]["n_models_trained"]
    assert "epsilon=0.01" in summary["definitions"]["n_models_within_epsilon"]
    # the same counts as the analysis's own summary in the report
    report = json.loads((out_dir / "report.json").read_text())
    assert f"{within} of {trained} models within 0.01" in report["summary"]

    code, out, err = run_cli(["multiplicity", "--data", str(people_csv), *SAMPLED], capsys)
    assert code == 0, err
    assert f"{within} of 20 trained models are within epsilon=0.01 of the reference" in " ".join(out.split())


# -- 2. a readable summary with an aligned per-group table --------------------------------------------------------
def test_text_output_is_a_summary_with_an_aligned_group_table(people_csv: Path,
                                                              capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(["multiplicity", "--data", str(people_csv), *SAMPLED, "--json"], capsys)
    assert code == 0, err
    groups = _json(out)["conflict_by_group"]
    code, text, err = run_cli(["multiplicity", "--data", str(people_csv), *SAMPLED], capsys)
    assert code == 0, err
    assert "{" not in text and "conflict_by_group" not in text  # no Python dict dump
    assert not re.search(r"^\w+: ", text.splitlines()[0])  # nor a key: value dump
    assert all(len(line) <= 100 for line in text.splitlines())
    lines = text.splitlines()
    start = lines.index("Conflict by sex (400 training rows):")
    header, body = lines[start + 1], lines[start + 2:start + 2 + len(groups)]
    assert header.split() == ["sex", "rows", "mean", "conflict", "flagged"]
    for line, (group, row) in zip(body, sorted(groups.items()), strict=True):
        cells = line.split()
        assert cells[0] == group  # the group labels are shown
        assert int(cells[1].replace(",", "")) == row["rows"]
        assert float(cells[2]) == pytest.approx(row["mean_conflict"], abs=5e-5)
        assert float(cells[3].rstrip("%")) == pytest.approx(100 * row["flagged_share"], abs=0.05)
    # right-aligned numeric columns: every row's cells end where the header's do
    for name in ("rows", "conflict", "flagged"):
        end = header.index(name) + len(name)
        for line in body:
            assert line[end - 1] != " " and line[end:end + 1] in ("", " "), (name, line)


# -- 3. a status line before the silent reference search ---------------------------------------------------------
def test_status_line_before_the_reference_search_follows_the_progress_conventions(
        people_csv: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    _quiet_env(monkeypatch)
    argv = ["multiplicity", "--data", str(people_csv), *SAMPLED]
    code, out, err = run_cli(argv, capsys)  # stderr is not a terminal here: no bar, no status
    assert code == 0 and "fitting the reference model" not in err and "Rashomon candidates" not in err

    monkeypatch.setenv("FAIRPROBE_PROGRESS", "1")  # bars forced on: the status line comes first
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert "fitting the reference model on 400 rows" in err and "fitting" not in out
    assert err.index("fitting the reference model") < err.index("Rashomon candidates")

    code, out, err = run_cli(["--quiet", *argv], capsys)  # quiet mode wins
    assert code == 0 and "fitting the reference model" not in err


# -- 4. --exact-trees: its options exist on this command, the sampled set's are refused --------------------------
def test_exact_trees_refuses_the_sampled_sets_options(compas_csv: Path, capsys: pytest.CaptureFixture) -> None:
    base = ["multiplicity", "--data", str(compas_csv), "--target", "two_year_recid", "--exact-trees"]
    code, out, err = run_cli([*base, "--n-models", "5", "--model", "logistic_regression"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--model and --n-models do not apply" in err and "drop --exact-trees" in err
    code, _, err = run_cli([*base, "--exact-linear"], capsys)
    assert code == 2 and "--exact-linear does not apply" in err
    # and the tree option without --exact-trees
    code, _, err = run_cli(["multiplicity", "--data", str(compas_csv), "--target", "two_year_recid", "--binarise"],
                           capsys)
    assert code == 2 and "--binarise applies only to --exact-trees" in err
    code, _, err = run_cli([*base, "--sensitive", "race,sex"], capsys)
    assert code == 2 and "one protected column" in err


def test_exact_trees_errors_name_options_of_the_command(compas_csv: Path, capsys: pytest.CaptureFixture) -> None:
    for command in (["multiplicity", "--exact-trees"], ["multiplicity-trees"]):
        code, help_text, _ = run_cli([*command, "--help"], capsys)
        assert code == 0 and "--binarise" in help_text
    if importlib.util.find_spec("treefarms") is None:  # without it the command stops before the data checks
        pytest.skip('the data checks of the enumeration need treefarms (pip install "fairprobe[trees]")')
    for command in (["multiplicity", "--exact-trees"], ["multiplicity-trees"]):
        code, _, err = run_cli([*command, "--data", str(compas_csv), "--target", "two_year_recid",
                                "--sensitive", "race"], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "not binary" in err and "Pass --binarise" in err and "binariser=" not in err


@needs_treefarms
def test_exact_trees_binarise_through_multiplicity(compas_csv: Path, capsys: pytest.CaptureFixture) -> None:
    via = ["--data", str(compas_csv), "--target", "two_year_recid", "--sensitive", "race", "--binarise",
           "--n-thresholds", "2"]
    code, out, err = run_cli(["multiplicity-trees", *via, "--json"], capsys)
    assert code == 0, err
    direct = _json(out)
    code, out, err = run_cli(["multiplicity", "--exact-trees", *via, "--json"], capsys)
    assert code == 0, err
    flag = _json(out)
    for summary in (direct, flag):
        summary.pop("enumeration_seconds")
    assert flag == direct and flag["trees"] > 1 and set(flag["by_group"]) <= {
        "African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other"}
    code, text, err = run_cli(["multiplicity-trees", *via], capsys)
    assert code == 0, err
    assert text.startswith("Exact tree Rashomon set: ") and "{" not in text
    assert "Conflict by race (300 training rows):" in text


# -- 5. help examples are not rewrapped --------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["multiplicity", "multiplicity-trees"])
def test_help_examples_keep_their_lines(command: str, capsys: pytest.CaptureFixture) -> None:
    code, help_text, _ = run_cli([command, "--help"], capsys)
    assert code == 0
    lines = help_text.splitlines()
    start = lines.index("  Example:")
    example = lines[start + 1:lines.index("", start)]
    assert example and example[0].strip().startswith(f"fairprobe {command} --data ")
    for line, following in itertools.pairwise(example):
        assert "\\" not in line.rstrip()[:-1], line  # a continuation only at the end of a line
        if line.endswith("\\"):  # the continued line starts with an option, indented below the command
            assert following.lstrip().startswith("--"), following
            assert len(following) - len(following.lstrip()) > len(line) - len(line.lstrip()), following
        else:
            assert following.strip().startswith(f"fairprobe {command} "), following
    if command == "multiplicity-trees":
        assert any(line.strip().endswith("--target recidivate-within-two-years:1 \\") for line in example)


# -- 6. the sampled and the exact linear ambiguity, each said for what it is -------------------------------------
def _linear_dichotomies(X: np.ndarray) -> np.ndarray:
    """Every labelling of the 2-D rows by a line (both sides), without margins: the critical directions are
    the normals of the lines through two rows; one direction between each pair of neighbours suffices."""
    n = len(X)
    i, j = np.triu_indices(n, 1)
    v = X[j] - X[i]
    normal = np.arctan2(v[:, 1], v[:, 0]) + np.pi / 2
    angles = np.sort(np.concatenate([normal, normal + np.pi]) % (2 * np.pi))
    mids = (angles + np.append(angles[1:], angles[0] + 2 * np.pi)) / 2
    patterns = set()
    for t in mids:
        p = X @ np.array([np.cos(t), np.sin(t)])
        order = np.sort(p)
        for cut in np.concatenate([[order[0] - 1], (order[:-1] + order[1:]) / 2, [order[-1] + 1]]):
            patterns.add(tuple((p > cut).astype(int)))
    return np.array(sorted(patterns))


def test_exact_linear_output_says_what_each_ambiguity_is(small_csv: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["multiplicity", "--data", str(small_csv), "--target", "y", "--n-models", "10", "--epsilon", "0.01",
            "--seed", "0", "--exact-linear"]
    code, out, err = run_cli([*argv, "--json"], capsys)
    assert code == 0, err
    s = _json(out)
    # the auditor's "contradiction": the sampled set disagrees on many rows, the exact linear set on none
    assert s["ambiguity"] > 0.3 and s["exact_linear_ambiguity"] == [0.0, 0.0]
    # both are right. Brute force: the least-error labelling by a line is unique and the budget
    # floor(8 + 0.01 x 30) allows no extra error, so no linear classifier in the set flips a row
    frame = pd.read_csv(small_csv)
    y = frame.pop("y").to_numpy()
    X = frame.to_numpy(float)
    errors = (_linear_dichotomies((X - X.mean(0)) / X.std(0)) != y).sum(axis=1)
    assert errors.min() == s["exact_linear_reference_error"] and s["exact_linear_reference_optimal"]
    assert (errors <= s["exact_linear_error_budget"]).sum() == 1
    for key in ("ambiguity", "exact_linear_ambiguity"):
        assert key in s["definitions"]
    assert "held-out" in s["definitions"]["n_models_within_epsilon"]
    assert "training errors" in s["definitions"]["exact_linear_ambiguity"]

    code, text, err = run_cli(argv, capsys)
    assert code == 0, err
    flat = " ".join(text.split())
    assert f"ambiguity {s['ambiguity']:.3f} (share of rows on which the set's models disagree)" in flat
    assert "Exact linear Rashomon set" in flat and "certified ambiguity 0.000" in flat
    assert "at most 8 training errors (budget 8 + epsilon x rows = 8.3)" in flat
    assert "Not the same quantity as the sampled ambiguity above" in flat


def test_seed_fixes_the_pipeline_models(people_csv: Path, capsys: pytest.CaptureFixture) -> None:
    """--seed reaches the trees inside the pipeline (reference search and candidates): two runs agree."""
    runs = []
    for _ in range(3):
        code, out, err = run_cli(["multiplicity", "--data", str(people_csv), *SAMPLED, "--json"], capsys)
        assert code == 0, err
        runs.append(_json(out))
    assert runs[0] == runs[1] == runs[2]

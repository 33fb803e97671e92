"""The analyses follow core's one rule for "too few to say" (:mod:`fairprobe.core.small_groups`).

Found by an auditor (issue 44, item 19): the multiplicity tables showed "flagged 50.0 %" for a
2-row group with no caveat; the risk-score audit named "best" a group whose DRMSCE was clipped at
0 with the interval [0, 0.11], overlapping every other group's; the demo's exact tree step
presented a one-tree set with ambiguity 0 as a finding.
"""

from __future__ import annotations

import importlib.util
import json
import re

import numpy as np
import pandas as pd
import pytest

from fairprobe.core.small_groups import FEW_UNITS
from tests.bad_input import run_cli

needs_treefarms = pytest.mark.skipif(importlib.util.find_spec("treefarms") is None,
                                     reason='treefarms is not installed (pip install "fairprobe[trees]")')

CAVEAT = f"rests on 2 rows, fewer than {FEW_UNITS}: too few to say"


# -- multiplicity: a per-group table marks a group below the threshold ---------------------------------------------
def _tiny_group_data(n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + rng.normal(0, 0.7, n) > 0).astype(int)
    groups = np.where(np.arange(n) < 2, "tiny", np.where(X[:, 1] > 0, "a", "b"))
    return X, y, groups


@pytest.fixture(scope="module")
def rashomon():
    from sklearn.tree import DecisionTreeClassifier

    from fairprobe.plugins.rashomon import RashomonSet

    X, y, groups = _tiny_group_data()
    return RashomonSet(estimator=DecisionTreeClassifier(), n_models=10, epsilon=0.05, random_state=0,
                       progress=False).fit(X, y_true=y, sensitive_features=groups)


def test_the_rashomon_table_marks_a_group_below_the_threshold(rashomon) -> None:
    table = rashomon.by_group_
    assert table.loc["tiny", "rows"] == 2
    assert bool(table.loc["tiny", "too_few"]) and not table.loc[["a", "b"], "too_few"].any()
    lines = rashomon.summary().splitlines()
    tiny = next(line for line in lines if "group tiny" in line)
    assert CAVEAT in tiny
    assert all(CAVEAT not in line for line in lines if "group a" in line or "group b" in line)


def test_the_printed_group_table_marks_it_too(rashomon) -> None:
    from fairprobe.plugins.rashomon.text import group_table

    lines = group_table(rashomon.by_group_, "group").splitlines()
    tiny = next(line for line in lines if line.split()[0] == "tiny")
    assert CAVEAT in tiny
    assert all(CAVEAT not in line for line in lines if line.split()[0] in ("a", "b"))


def test_the_group_at_the_threshold_is_not_marked() -> None:
    from fairprobe.plugins.rashomon.measures import conflict_by_group

    individual = pd.DataFrame({"g": ["big"] * FEW_UNITS + ["small"] * (FEW_UNITS - 1),
                               "conflict_ratio": 0.0, "flagged": False})
    table = conflict_by_group(individual, "g")
    assert table["too_few"].to_dict() == {"big": False, "small": True}


def test_the_multiplicity_command_marks_it(tmp_path, capsys: pytest.CaptureFixture) -> None:
    X, y, groups = _tiny_group_data()
    path = tmp_path / "people.csv"
    pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "sex": groups, "y": y}).to_csv(path, index=False)
    argv = ["multiplicity", "--data", str(path), "--target", "y", "--n-models", "10", "--epsilon", "0.05",
            "--seed", "3", "--sensitive", "sex"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    tiny = next(line for line in out.splitlines() if line.split()[:1] == ["tiny"])
    assert CAVEAT in tiny
    code, out, err = run_cli([*argv, "--json"], capsys)
    assert code == 0, err
    groups_json = json.loads(out[out.index("{"):])["conflict_by_group"]
    assert groups_json["tiny"]["too_few"] is True and groups_json["a"]["too_few"] is False


# -- the exact tree set: one tree is no multiplicity ---------------------------------------------------------------
def _one_tree_data() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(200, 3)), columns=["x0", "x1", "x2"])
    return X.assign(y=X.x0, group=np.where(rng.random(200) < 0.5, "a", "b"))


@needs_treefarms
def test_a_one_tree_set_says_there_is_no_multiplicity_to_measure() -> None:
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    fitted = TreeRashomonSet(regularization=0.01, depth_budget=2, rashomon_bound_adder=0.005).fit(
        _one_tree_data(), y_true="y", sensitive_features="group")
    assert fitted.n_trees_ == 1
    first = fitted.summary().splitlines()[0]
    assert "1 tree " in first and "1 trees" not in first
    assert "the set holds one tree, so there is no multiplicity to measure" in first
    conclusion = fitted.conclusion()
    assert conclusion.verdict == "too_few_models" and "no multiplicity to measure" in conclusion.text


@needs_treefarms
def test_the_demo_step_of_a_one_tree_set_is_no_finding() -> None:
    from fairprobe.datasets import make_lending_scenario
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet
    from fairprobe.reporting.report import Report

    _, table, lines = TreeRashomonSet.demo(Report("demo"), make_lending_scenario(3000, seed=0), {}, quick=True,
                                           seed=0, n_jobs=1, progress=False)
    assert (table["share_1"].isin([0.0, 1.0])).all()  # this seed gives a set of one tree
    assert "no multiplicity to measure" in lines[0] and "1 trees" not in lines[0]


# -- risk-score audit: no "best" among groups that cannot be told apart ---------------------------------------------
@pytest.fixture(scope="module")
def calibrated():
    from fairprobe.plugins.riskscore import RiskScoreAudit

    rng = np.random.default_rng(0)
    n = 1200
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "race": rng.choice(["a", "b", "c"], n, p=[.6, .3, .1])})
    r = rng.random(n)
    y = (rng.random(n) < r).astype(int)  # calibrated in every group
    return RiskScoreAudit(n_bootstrap=30, max_intersections=1, random_state=0, progress=False).fit(
        frame, y_true=y, y_score=r, sensitive_features=["sex", "race"])


def _line(audit, metric: str) -> str:
    return next(line for line in audit.summary().splitlines() if line.startswith(f"  {metric} "))


def test_no_group_is_best_when_its_interval_overlaps_the_others(calibrated) -> None:
    res = calibrated.results_
    drmsce = res[(res.metric == "drmsce") & (res.group != "all")]
    assert (drmsce.point == 0).any() and (drmsce.lower == 0).all()  # clipped at 0, intervals from 0
    line = _line(calibrated, "drmsce")
    assert "best" not in line and "worst" not in line
    assert f"the {len(drmsce)} groups cannot be told apart" in line
    match = re.search(r"from (\S+) (\d\.\d{4}) \[(\d\.\d{4}), (\d\.\d{4})\] to (\S+) ", line)
    assert match, line  # the ends are still shown, with their intervals


def test_a_group_that_stands_apart_is_still_called_worst() -> None:
    from fairprobe.plugins.riskscore import RiskScoreAudit

    rng = np.random.default_rng(2)
    n = 1500
    frame = pd.DataFrame({"region": rng.choice(["east", "west", "north"], n)})
    r = rng.random(n)
    truth = np.where(frame.region == "east", np.clip(r + 0.3, 0, 1), r)  # east: the scores say 0.3 too little
    y = (rng.random(n) < truth).astype(int)
    audit = RiskScoreAudit(n_bootstrap=30, max_intersections=1, metrics=("drmsce",), random_state=0,
                           progress=False).fit(frame, y_true=y, y_score=r, sensitive_features=["region"])
    line = _line(audit, "drmsce")
    assert "worst region=east" in line


def test_a_group_below_the_threshold_is_never_best() -> None:
    from fairprobe.plugins.riskscore import RiskScoreAudit

    rng = np.random.default_rng(3)
    n = 1000
    frame = pd.DataFrame({"site": np.where(np.arange(n) < 20, "tiny", rng.choice(["x", "y"], n))})
    r = rng.random(n)
    y = (rng.random(n) < np.where(frame.site == "tiny", r, np.clip(r + 0.3, 0, 1))).astype(int)
    audit = RiskScoreAudit(n_bootstrap=30, max_intersections=1, min_group_size=10, metrics=("drmsce",),
                           random_state=0, progress=False).fit(frame, y_true=y, y_score=r,
                                                               sensitive_features=["site"])
    line = _line(audit, "drmsce")
    assert "best site=tiny" not in line

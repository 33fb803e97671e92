"""Bad-input pass 5 on the study: a user's files in report/, YAML booleans as labels, one model,
white-space variants of a group, a copied spec.json, and the command's help and write errors."""

from __future__ import annotations

import errno
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import fairprobe as fp
from fairprobe.core.small_groups import MIN_MODELS
from fairprobe.exceptions import ConfigError, DataError

TINY = {"datasets": [{"name": "german", "subsample": 200}], "classifiers": ["naive_bayes"], "constraints": ["none"],
        "metrics": ["demographic_parity", "fpr_parity"], "biases": ["selection"], "D": [0.02]}
MINE = {"report/tables/mine.csv": b"m\n", "report/figures/mine.png": b"r", "report/notes.md": b"n"}


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished study with its report (copied by the tests that change it)."""
    out = tmp_path_factory.mktemp("pass5") / "s1"
    fp.study(TINY, out, progress=False, report=True)
    return out


def _copy_with_mine(done: Path, tmp_path: Path) -> Path:
    out = tmp_path / "s2"
    shutil.copytree(done, out)
    for name, data in MINE.items():
        (out / name).write_bytes(data)
    return out


def _kept(out: Path) -> None:
    for name, data in MINE.items():
        assert (out / name).read_bytes() == data, name


# -- D2: a user's files in report/tables/ and report/figures/ ------------------------------------------
def test_force_keeps_a_users_files_in_the_reports_folders(done: Path, tmp_path: Path) -> None:
    out = _copy_with_mine(done, tmp_path)
    fp.study(TINY, out, progress=False, report=True, force=True)
    _kept(out)
    assert (out / "report" / "index.html").exists() and (out / "report" / "tables" / "s3_ranking.csv").exists()


def test_no_report_keeps_a_users_files_in_report(done: Path, tmp_path: Path) -> None:
    out = _copy_with_mine(done, tmp_path)
    fp.study(TINY, out, progress=False, report=False)
    _kept(out)
    assert not (out / "report" / "index.html").exists() and not (out / "report" / "tables" / "s3_ranking.csv").exists()
    assert not (out / "report" / "figures" / "s2_figure5.png").exists()


def test_a_plain_resume_keeps_a_users_files_in_report(done: Path, tmp_path: Path) -> None:
    out = _copy_with_mine(done, tmp_path)
    fp.study(TINY, out, progress=False, report=True)
    _kept(out)


def test_the_marker_lists_the_reports_files_one_by_one(done: Path) -> None:
    written = set(json.loads((done / "spec.json").read_text())["written"])
    assert "report/tables" not in written and "report/figures" not in written
    assert {"report/index.html", "report/report.json", "report/tables/s3_ranking.csv",
            "report/figures/s2_figure5.png"} <= written
    on_disk = {p.relative_to(done).as_posix() for p in (done / "report").rglob("*") if p.is_file()}
    assert on_disk <= written


def test_a_marker_listing_the_reports_folders_removes_only_the_reports_files(done: Path, tmp_path: Path) -> None:
    """A marker of the previous version listed report/tables and report/figures: read through report.json."""
    out = _copy_with_mine(done, tmp_path)
    marker = json.loads((out / "spec.json").read_text())
    marker["written"] = sorted({w for w in marker["written"] if not w.startswith("report/")}
                               | {"report/index.html", "report/report.json", "report/tables", "report/figures"})
    (out / "spec.json").write_text(json.dumps(marker))
    fp.study(TINY, out, progress=False, report=False, force=True)
    _kept(out)
    assert not (out / "report" / "tables" / "s3_ranking.csv").exists()


# -- D7: YAML reads an unquoted yes as True ----------------------------------------------------------
def _loans(tmp_path: Path, north: str = "north") -> Path:
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"inc": rng.normal(50, 5, n), "debt": rng.normal(10, 2, n),
                          "region": np.where(np.arange(n) % 2 == 0, "south", "north"),
                          "repaid": np.where(rng.random(n) < 0.6, "yes", "no")})
    frame.loc[[1, 3, 5, 7], "region"] = north  # 4 rows of the second group, as the file gives them
    path = tmp_path / "loans.csv"
    frame.to_csv(path, index=False)
    return path


def _spec(path: Path, positive: str = "yes") -> str:
    return (f"datasets: [{{name: mine, path: {path.name}, label: repaid, positive: {positive}, attribute: region, "
            "groups: [south, north], features: [inc, debt]}]\nclassifiers: [logistic_regression]\n"
            "constraints: [none]\nmetrics: [fpr_parity]\nbiases: [selection]\nD: [0.05]\n")


def test_an_unquoted_yes_is_named_with_the_fix(tmp_path: Path) -> None:
    path = _loans(tmp_path)
    (tmp_path / "q.yaml").write_text(_spec(path))
    with pytest.raises(DataError) as info:
        fp.study(tmp_path / "q.yaml", tmp_path / "out", progress=False, report=False)
    text = str(info.value)
    assert 'positive: "yes"' in text and "'no'" in text and "'yes'" in text, text


def test_a_quoted_yes_runs(tmp_path: Path) -> None:
    path = _loans(tmp_path)
    (tmp_path / "q.yaml").write_text(_spec(path, '"yes"'))
    res = fp.study(tmp_path / "q.yaml", tmp_path / "out", progress=False, report=False)
    assert set(res.results.status) == {"optimal"}


def test_a_positive_value_never_found_lists_the_labels(tmp_path: Path) -> None:
    path = _loans(tmp_path)
    (tmp_path / "q.yaml").write_text(_spec(path, "repaid_ok"))
    with pytest.raises(DataError, match=r"'no', 'yes'"):
        fp.study(tmp_path / "q.yaml", tmp_path / "out", progress=False, report=False)


# -- D8: one model is too few for a bootstrap over models ---------------------------------------------
def test_one_model_gives_no_bootstrap_interval(done: Path) -> None:
    assert MIN_MODELS == 2
    ranking = pd.read_csv(done / "ranking.csv")
    assert (ranking.models == 1).all()
    assert ranking[["lower", "upper", "p_most_robust", "p_most_fragile"]].isna().all().all()
    fragility = pd.read_csv(done / "fragility.csv")
    assert fragility[["worst_lower", "worst_upper", "increase_lower", "increase_upper"]].isna().all().all()
    html = (done / "report" / "index.html").read_text()
    assert "P(most robust) 1.00" not in html and f"at least {MIN_MODELS} models" in html


def test_the_summary_of_one_model_withholds_the_interval(done: Path) -> None:
    from fairprobe.studies import StudyResult, load_spec

    spec = load_spec(TINY)
    res = StudyResult(spec, pd.read_csv(done / "results.csv"), pd.read_csv(done / "models.csv"),
                      pd.read_csv(done / "fragility.csv"), pd.read_csv(done / "ranking.csv"), done)
    text = res.summary()
    assert "P(most robust)" not in text and "[" not in text.split("\n", 2)[2]
    assert f"at least {MIN_MODELS} models" in text


def test_two_models_keep_their_interval() -> None:
    from fairprobe.studies.outputs import metric_ranking

    rows = [dict(dataset="d", classifier="c", constraint=k, bias="b", metric=m, D=D, status="optimal",
                 worst=o + D * s, observed=o) for k, o in (("x", .1), ("y", .2)) for m, s in (("dp", 0), ("fpr", 2))
            for D in (0.0, 0.1)]
    r = metric_ranking(pd.DataFrame(rows), reps=50)
    assert not r.lower.isna().any() and not math.isnan(r.p_most_robust.iloc[0])


# -- D9: labels that differ only by white space --------------------------------------------------------
def test_a_group_label_with_a_trailing_space_is_refused(tmp_path: Path) -> None:
    path = _loans(tmp_path, north="north ")
    (tmp_path / "q.yaml").write_text(_spec(path, '"yes"'))
    with pytest.raises(DataError, match=r"differ only by spaces.*'north'.*'north '|'north '.*'north'"):
        fp.study(tmp_path / "q.yaml", tmp_path / "out", progress=False, report=False)


# -- B3: a copied spec.json is no marker ------------------------------------------------------------------
def test_a_copied_spec_json_does_not_make_a_study_folder(done: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "results.csv").write_text("mine\n")
    shutil.copy(done / "spec.json", out / "spec.json")
    with pytest.raises(ConfigError, match="--force"):
        fp.study(TINY, out, progress=False, report=False)
    assert (out / "results.csv").read_text() == "mine\n"


def test_a_copied_spec_json_lists_nothing_force_may_remove(done: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    (out / "models").mkdir(parents=True)
    mine = next((done / "models").glob("*.json")).name
    (out / "models" / "other.json").write_text("{}")
    (out / "report").mkdir()
    (out / "report" / "index.html").write_text("mine")  # a name the copied marker lists
    marker = json.loads((done / "spec.json").read_text())
    marker["written"].append("report/index.html")
    (out / "spec.json").write_text(json.dumps(marker))
    fp.study({**TINY, "D": [0.04]}, out, progress=False, report=False, force=True)
    assert (out / "report" / "index.html").read_text() == "mine" and (out / "models" / "other.json").exists()
    assert mine  # the copied marker's model is not there to remove; nothing else was


def test_a_copied_study_folder_is_still_a_study(done: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(done, out)
    res = fp.study(TINY, out, progress=False, report=False)  # resumed, no --force needed
    assert len(res.results) == 4


def test_an_old_spec_json_alone_is_not_a_marker(done: Path, tmp_path: Path) -> None:
    marker = json.loads((done / "spec.json").read_text())
    out = tmp_path / "mine"
    out.mkdir()
    (out / "results.csv").write_text("mine\n")
    (out / "spec.json").write_text(json.dumps({"fingerprint": marker["fingerprint"], "spec": marker["spec"]}))
    with pytest.raises(ConfigError, match="--force"):
        fp.study(TINY, out, progress=False, report=False)


# -- cosmetic: the command's help and a failed report write -------------------------------------------
def test_study_help_describes_its_own_force_and_jobs() -> None:
    from fairprobe.cli.study import study_command

    text = " ".join(CliRunner().invoke(study_command, ["--help"]).output.split())
    force = text.split("--force", 1)[1].split("--jobs", 1)[0]
    assert "--csv" not in force and "--plot" not in force and "--data" not in force and "tables/ are" not in force
    assert "wrote" in force
    jobs = text.split("--jobs INTEGER", 1)[1].split("--scheduler", 1)[0]
    assert jobs.count("-1") == 1 and jobs.count("never more than") == 1, jobs


def test_a_report_that_cannot_be_written_is_one_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.reporting.report import Report

    def full(self: Report, out: Path) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Report, "write_files", full)
    with pytest.raises(ConfigError) as info:
        fp.study(TINY, tmp_path / "out", progress=False, report=True)
    text = str(info.value)
    assert text.lower().count("cannot write") == 1 and text.count("No space left") == 1, text
    assert text.count("free some space") + text.count("free space") == 1, text


# -- found by the study-folder fuzz test on the way: a user's file of a model's name, an empty folder ------
def test_a_users_file_of_a_models_name_is_never_read_as_the_studys(tmp_path: Path) -> None:
    from fairprobe.studies import load_spec
    from fairprobe.studies.runner import plan_study

    out = tmp_path / "out"
    (out / "models").mkdir(parents=True)
    planned = next(f for f in plan_study(load_spec(TINY)).files if f.startswith("models/"))
    (out / planned).write_text("{}")
    (out / "models" / "0123456789abcdef01234567.json").write_text("{}")  # another, of no planned name
    res = fp.study(TINY, out, progress=False, report=False, force=True)
    assert len(res.results) == 4 and len(res.models) == 1 and set(res.results.status) == {"optimal"}
    assert (out / "models" / "0123456789abcdef01234567.json").read_text() == "{}"


def test_a_users_empty_folder_stays(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    fp.study(TINY, out, progress=False, report=False, force=True)
    fp.study(TINY, out, progress=False, report=False, force=True)
    assert (out / "figures").is_dir()

"""The data sets of a study: bundled roles, a user's file, and the loaders of downloaded copies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.exceptions import DataError
from fairprobe.studies.data import load_study_data
from fairprobe.studies.spec import DatasetSpec, StudySpec


@pytest.mark.parametrize(("name", "rows", "groups"), [
    ("compas", 5278, ("African-American", "Caucasian")), ("adult", 30162, ("Female", "Male")),
    ("german", 1000, ("age <= 25", "age > 25")), ("compas_binary", 6907, ("Female", "Male"))])
def test_bundled_roles(name: str, rows: int, groups: tuple[str, str]) -> None:
    data = load_study_data(DatasetSpec(name))
    assert len(data.y) == rows == len(data.X) == len(data.group) and data.groups == groups
    assert set(np.unique(data.y)) == {0, 1} and set(np.unique(data.group)) == set(groups)
    assert not data.X.isna().any().any() and all(np.issubdtype(t, np.floating) for t in data.X.dtypes)


def test_subsample_is_seeded() -> None:
    a, b = load_study_data(DatasetSpec("adult", subsample=500), seed=3), load_study_data(DatasetSpec("adult",
                                                                                                  subsample=500), 3)
    assert len(a.y) == 500 and (a.y == b.y).all() and a.X.equals(b.X)


def test_a_users_file_with_missing_columns_or_groups(tmp_path: Path) -> None:
    pd.DataFrame({"x": range(90), "y": [0, 1] * 45, "g": ["a", "b", "c"] * 30}).to_csv(tmp_path / "d.csv", index=False)
    good = DatasetSpec("d", str(tmp_path / "d.csv"), "y", "g", 1, ("a", "b"))
    data = load_study_data(good)
    assert len(data.y) == 60 and list(data.X.columns) == ["x"]
    with pytest.raises(DataError, match=r"never takes the value\(s\) \['z'\]"):
        load_study_data(DatasetSpec("d", str(tmp_path / "d.csv"), "y", "g", 1, ("a", "z")))
    with pytest.raises(DataError, match=r"columns \['w'\] are not in d.csv"):
        load_study_data(DatasetSpec("d", str(tmp_path / "d.csv"), "y", "g", 1, ("a", "b"), ("w",)))
    with pytest.raises(DataError, match="never \\(or always\\) equals the positive value"):
        load_study_data(DatasetSpec("d", str(tmp_path / "d.csv"), "y", "g", 7, ("a", "b")))


def test_downloaded_copies_are_read_with_their_roles(tmp_path: Path) -> None:
    """Files shaped as UCI's (';'-separated, their columns), since the real ones cannot ship here."""
    rng = np.random.default_rng(0)
    n = 200
    bank = pd.DataFrame({"age": rng.integers(20, 70, n), "job": rng.choice(["admin.", "services"], n),
                         "marital": rng.choice(["married", "single", "divorced"], n), "balance": rng.normal(0, 1, n),
                         "duration": rng.integers(0, 900, n), "y": rng.choice(["yes", "no"], n)})
    bank.to_csv(tmp_path / "bank-full.csv", sep=";", index=False)
    student = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "age": rng.integers(15, 22, n),
                            "studytime": rng.integers(1, 5, n), "G1": rng.integers(0, 20, n),
                            "G2": rng.integers(0, 20, n), "G3": rng.integers(0, 20, n)})
    student.to_csv(tmp_path / "student-mat.csv", sep=";", index=False)
    spec = StudySpec.from_dict({"datasets": [{"name": "bank_marketing", "path": "bank-full.csv"},
                                             {"name": "student_performance", "path": "student-mat.csv"}]},
                               base=tmp_path)
    b, s = (load_study_data(d) for d in spec.datasets)
    assert b.groups == ("married", "single") and len(b.y) == int((bank.marital != "divorced").sum())
    assert "duration" not in b.X.columns and b.y.sum() == int(((bank.y == "yes") & (bank.marital != "divorced")).sum())
    assert s.groups == ("F", "M") and s.y.sum() == int((student.G3 >= 10).sum())
    assert not {"G1", "G2", "G3"} & set(s.X.columns)
    res = fp.study({"datasets": [{"name": "student_performance", "path": str(tmp_path / "student-mat.csv")}],
                    "classifiers": ["naive_bayes"], "constraints": ["none"], "metrics": ["demographic_parity"],
                    "biases": ["selection"], "D": [0.02]}, tmp_path / "out", progress=False, report=False)
    assert set(res.results.status) == {"optimal"}

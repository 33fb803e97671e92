"""Loaders of the local real data sets: standard filters, row counts, clear errors, no downloads."""

from __future__ import annotations

from pathlib import Path

import pytest

import fairprobe as fp
from fairprobe.datasets import data_home, load_adult, load_compas, load_german, load_table

DATA = Path("/work/shared/data")
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="the shared data folder is not on this machine")


def test_compas_standard_filters() -> None:
    d = load_compas(DATA)
    assert len(d) == 6172 and d.y.mean() == pytest.approx(0.4551, abs=5e-5)
    assert d.frame.race.value_counts()["African-American"] == 3175
    assert "name" not in d.frame.columns and d.frame.score.between(0.1, 1.0).all()
    assert len(load_compas(DATA, races=("African-American", "Caucasian"))) == 5278


def test_adult_complete_cases_and_encodings() -> None:
    train, test = load_adult(DATA), load_adult(DATA, split="test")
    assert (len(train), len(test)) == (30162, 15060) and set(test.frame.income) == {0, 1}
    X = train.X()
    assert X.shape[0] == 30162 and "sex" not in X.columns and X.notna().all().all()
    assert train.X(one_hot=False).shape == (30162, 10)


def test_german_attributes() -> None:
    d = load_german(DATA)
    assert len(d) == 1000 and d.y.sum() == 700 and set(d.frame.sex) == {"female", "male"}


def test_missing_folder_and_file_errors(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("FAIRPROBE_DATA", raising=False)
    with pytest.raises(fp.DataError, match="never downloads"):
        data_home()
    with pytest.raises(fp.DataError, match="does not exist"):
        load_compas(tmp_path / "nope")
    with pytest.raises(fp.DataError, match=r"adult\.data is not in"):
        load_adult(tmp_path)
    monkeypatch.setenv("FAIRPROBE_DATA", str(DATA))
    assert len(load_german()) == 1000
    with pytest.raises(fp.DataError, match="split must be"):
        load_adult(split="validation")
    with pytest.raises(fp.DataError, match="does not exist"):
        load_table(tmp_path / "scores.csv")
    (tmp_path / "scores.csv").write_text("y,r\n1,0.5\n")
    assert load_table(tmp_path / "scores.csv").shape == (1, 2)

"""Loaders of the bundled real data sets: standard filters, row counts, labels, overrides, clear errors."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

import fairprobe as fp
from fairprobe.datasets import (
    BUNDLED,
    data_home,
    load_adult,
    load_compas,
    load_compas_binary,
    load_german,
    load_paper_table,
    load_table,
)


@pytest.fixture(autouse=True)
def _no_data_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAIRPROBE_DATA", raising=False)


def test_compas_standard_filters_and_labels() -> None:
    d = load_compas()
    assert len(d) == 6172 and d.y.mean() == pytest.approx(0.4551, abs=5e-5)
    counts = d.frame.race.value_counts()
    assert counts.to_dict() == {"African-American": 3175, "Caucasian": 2103, "Hispanic": 509, "Other": 343,
                                "Asian": 31, "Native American": 11}
    assert set(d.frame.sex) == {"Male", "Female"}
    assert "name" not in d.frame.columns and d.frame.score.between(0.1, 1.0).all()
    assert (d.frame.decile_score == (d.frame.score * 10).round()).all()
    assert len(load_compas(races=("African-American", "Caucasian"))) == 5278
    with pytest.raises(fp.DataError, match=r"'Martian'.*choose from"):
        load_compas(races=("Martian",))


def test_adult_complete_cases_and_encodings() -> None:
    train, test = load_adult(), load_adult(split="test")
    assert (len(train), len(test)) == (30162, 15060) and set(test.frame.income) == {0, 1}
    assert train.y.mean() == pytest.approx(0.2489, abs=5e-4)
    assert set(train.frame.sex) == {"Male", "Female"} and "White" in set(train.frame.race)
    X = train.X()
    assert X.shape[0] == 30162 and "sex" not in X.columns and X.notna().all().all()
    assert train.X(one_hot=False).shape == (30162, 10)
    assert len(load_adult(split="both")) == 45222


def test_german_attributes() -> None:
    d = load_german()
    assert len(d) == 1000 and d.y.sum() == 700 and set(d.frame.sex) == {"female", "male"}
    assert d.frame.sex.value_counts()["female"] == 310
    assert set(d.frame.age_group) == {"<=25", ">25"} and d.frame.status.str.startswith("A1").all()


def test_compas_binary_and_paper_tables() -> None:
    d = load_compas_binary()
    assert len(d) == 6907 and len(d.features) == 12 and d.y.mean() == pytest.approx(0.4627, abs=5e-5)
    assert set(d.frame[d.features].stack().unique()) == {0, 1}
    assert len(d.frame[d.features].drop_duplicates()) == 123
    cells = load_paper_table()
    assert list(cells.columns) == ["A", "Y", "P", "prob"] and cells.prob.sum() == pytest.approx(1, abs=1e-12)
    assert load_paper_table("example_model").equals(cells)
    with pytest.raises(fp.DataError, match="Unknown paper table"):
        load_paper_table("nope")


def test_path_and_environment_override_the_bundled_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert data_home() == BUNDLED
    # a plain copy in a user folder, with one row fewer than the original: the override is really read
    with gzip.open(BUNDLED / "german-credit.csv.gz", "rt") as src:
        lines = src.read().splitlines(keepends=True)
    (tmp_path / "german-credit.csv").write_text("".join(lines[:-1]))
    assert len(load_german(tmp_path)) == 999
    monkeypatch.setenv("FAIRPROBE_DATA", str(tmp_path))
    assert data_home() == tmp_path and len(load_german()) == 999
    with pytest.raises(fp.DataError, match=r"adult\.data is not in .*bundled copy"):
        load_adult()
    shutil.copy(BUNDLED / "fragile_fair-fogliato_compas.csv.gz", tmp_path)  # .gz copies are read as well
    assert load_paper_table().shape == (8, 4)


def test_missing_folder_and_file_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(fp.DataError, match=r"does not exist.*never downloads"):
        load_compas(tmp_path / "nope")
    monkeypatch.setenv("FAIRPROBE_DATA", str(tmp_path / "gone"))
    with pytest.raises(fp.DataError, match=r"FAIRPROBE_DATA.*does not exist"):
        data_home()
    monkeypatch.delenv("FAIRPROBE_DATA")
    with pytest.raises(fp.DataError, match="split must be"):
        load_adult(split="validation")
    with pytest.raises(fp.DataError, match="does not exist"):
        load_table(tmp_path / "scores.csv")
    (tmp_path / "scores.csv").write_text("y,r\n1,0.5\n")
    assert load_table(tmp_path / "scores.csv").shape == (1, 2)

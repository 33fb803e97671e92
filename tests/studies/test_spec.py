"""The study spec: defaults, files, and one clear error per bad field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairprobe.exceptions import ConfigError
from fairprobe.studies.spec import StudySpec, load_spec

BASE = {"datasets": ["german"]}


def test_defaults_are_the_papers() -> None:
    spec = StudySpec.from_dict(BASE)
    assert [c.name for c in spec.classifiers] == ["logistic_regression", "naive_bayes", "decision_tree"]
    assert spec.constraints == ("demographic_parity", "equalized_odds", "fpr_parity", "fnr_parity", "ppv_parity",
                                "npv_parity")
    assert spec.biases == ("proxy_label", "selection", "ecp") and spec.D[0] == 0.0 and len(spec.D) == 6


def test_zero_is_always_a_level() -> None:
    assert StudySpec.from_dict({**BASE, "D": [0.05, 0.01]}).D == (0.0, 0.01, 0.05)


@pytest.mark.parametrize(("change", "message"), [
    ({"datasets": []}, "'datasets': must be a non-empty list"),
    ({"datasets": ["nope"]}, "'nope' is not a bundled data set"),
    ({"datasets": [{"name": "german", "label": "y"}]}, "only apply to a file of your own"),
    ({"datasets": [{"name": "mine", "path": "missing.csv", "label": "y", "attribute": "a", "groups": [0, 1]}]},
     "no file"),
    ({"classifiers": ["svm"]}, "neither a built-in name"),
    ({"classifiers": ["sklearn.nothing.Here"]}, "cannot import 'sklearn.nothing.Here'"),
    ({"classifiers": ["sklearn.preprocessing.StandardScaler"]}, "not a classifier class"),
    ({"constraints": ["fairness"]}, "'constraints': unknown ['fairness']"),
    ({"constraints": ["none", "none"]}, "lists a value twice"),
    ({"metrics": ["fpr_parity", "accuracy"]}, "'metrics': unknown ['accuracy']"),
    ({"biases": ["nonsense"]}, "'biases': 'nonsense'"),
    ({"D": [0.1, 2]}, "every level must be a number in [0, 1]; got 2"),
    ({"D": 0.1}, "'D': must be a non-empty list"),
    ({"test_size": 1.5}, "'test_size': must be in (0, 1)"),
    ({"seed": -1}, "'seed': must be a non-negative integer"),
    ({"search": {"candidates": 0}}, "'search.candidates': must be a positive integer"),
    ({"search": {"tries": 3}}, "'search': unknown key(s) ['tries']"),
    ({"ci": {"method": "jackknife"}}, "'ci.method': 'jackknife' is not one of"),
    ({"ci": {"resamples": 5}}, "'ci.resamples': must be an integer of at least 20"),
    ({"colour": "red"}, "unknown key(s) ['colour']"),
])
def test_bad_fields_are_named(change: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        StudySpec.from_dict({**BASE, **change})
    assert message in str(info.value)


def test_missing_datasets() -> None:
    with pytest.raises(ConfigError, match="'datasets' is required"):
        StudySpec.from_dict({"classifiers": ["naive_bayes"]})


def test_a_users_file_needs_its_roles(tmp_path: Path) -> None:
    (tmp_path / "mine.csv").write_text("x,y,a\n1,0,u\n2,1,v\n")
    with pytest.raises(ConfigError, match=r"needs \['groups'\]"):
        StudySpec.from_dict({"datasets": [{"name": "mine", "path": str(tmp_path / "mine.csv"), "label": "y",
                                           "attribute": "a"}]})
    with pytest.raises(ConfigError, match="two different values"):
        StudySpec.from_dict({"datasets": [{"name": "mine", "path": str(tmp_path / "mine.csv"), "label": "y",
                                           "attribute": "a", "groups": ["u", "u"]}]})


def test_files_yaml_and_json_with_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mine.csv").write_text("x,y,a\n1,0,u\n2,1,v\n")
    body = {"datasets": [{"name": "mine", "path": "data/mine.csv", "label": "y", "attribute": "a",
                          "groups": ["u", "v"]}], "classifiers": ["naive_bayes"], "D": [0.02]}
    (tmp_path / "s.json").write_text(json.dumps(body))
    (tmp_path / "s.yaml").write_text("datasets:\n  - {name: mine, path: data/mine.csv, label: y, attribute: a, "
                                     "groups: [u, v]}\nclassifiers: [naive_bayes]\nD: [0.02]\n")
    a, b = load_spec(tmp_path / "s.json"), load_spec(tmp_path / "s.yaml")
    assert a == b and a.datasets[0].path == str(tmp_path / "data" / "mine.csv")
    assert a.fingerprint() == b.fingerprint()


def test_unparsable_file(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("datasets: [german\n")
    with pytest.raises(ConfigError, match="could not be parsed"):
        load_spec(tmp_path / "s.yaml")
    with pytest.raises(ConfigError, match="no file"):
        load_spec(tmp_path / "absent.yaml")


def test_custom_classifier_by_import_path() -> None:
    spec = StudySpec.from_dict({**BASE, "classifiers": [
        "sklearn.ensemble.RandomForestClassifier",
        {"name": "small_forest", "estimator": "sklearn.ensemble.RandomForestClassifier",
         "params": {"n_estimators": 5}}]})
    assert [c.name for c in spec.classifiers] == ["RandomForestClassifier", "small_forest"]
    assert spec.classifiers[1].params == {"n_estimators": 5}


def test_the_shipped_paper_spec_is_valid() -> None:
    root = Path(__file__).resolve().parents[2]
    spec = load_spec(root / "examples" / "study" / "paper.yaml")
    assert len(spec.datasets) >= 3 and len(spec.constraints) == 6 and len(spec.metrics) == 6 and len(spec.D) == 6


def test_a_dataset_that_cannot_be_bundled_names_the_file_it_needs() -> None:
    with pytest.raises(ConfigError, match=r"download bank-full.csv from the UCI Machine Learning Repository"):
        StudySpec.from_dict({"datasets": ["bank_marketing"]})
    with pytest.raises(ConfigError, match=r"are fixed for this data set"):
        StudySpec.from_dict({"datasets": [{"name": "student_performance", "path": "x.csv", "label": "G3"}]})

"""Training under the constraints: the reductions reduce their disparity, the search its parity."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from fairprobe.exceptions import ConfigError
from fairprobe.studies.data import load_study_data
from fairprobe.studies.spec import ClassifierSpec, DatasetSpec, StudySpec
from fairprobe.studies.training import train_and_evaluate

SPEC = StudySpec.from_dict({"datasets": ["compas"], "search": {"candidates": 30}})


@pytest.fixture(scope="module")
def compas():
    return load_study_data(DatasetSpec("compas", subsample=2000))


def rates(cells: pd.DataFrame, groups: tuple[str, str]) -> dict[str, float]:
    """Selection-rate and PPV gaps (first group minus second) of a held-out table."""
    out = {}
    for name, event, given in (("dp", "P", None), ("ppv", "Y", "P")):
        values = []
        for g in groups:
            part = cells[cells.A == g]
            if given is not None:
                part = part[part[given] == 1]
            values.append(float((part.n * part[event]).sum() / part.n.sum()))
        out[name] = values[0] - values[1]
    return out


def test_demographic_parity_reduction_narrows_the_gap(compas) -> None:
    pytest.importorskip("fairlearn", reason='the reductions need fairlearn: pip install "fairprobe[study]"')
    clf = ClassifierSpec("logistic_regression")
    free = rates(train_and_evaluate(compas, clf, "none", SPEC).cells, compas.groups)["dp"]
    fair = rates(train_and_evaluate(compas, clf, "demographic_parity", SPEC).cells, compas.groups)["dp"]
    assert abs(fair) < abs(free) / 2  # COMPAS: a selection-rate gap of about 0.2 without the constraint


def test_the_search_keeps_the_unweighted_model_among_its_candidates(compas) -> None:
    model = train_and_evaluate(compas, ClassifierSpec("naive_bayes"), "ppv_parity", SPEC)
    assert "candidate" in model.note and "of 30" in model.note
    assert int(model.cells.n.sum()) == 1000 and 0.5 < model.accuracy < 0.8


def test_training_is_deterministic(compas) -> None:
    a = train_and_evaluate(compas, ClassifierSpec("decision_tree"), "npv_parity", SPEC)
    b = train_and_evaluate(compas, ClassifierSpec("decision_tree"), "npv_parity", SPEC)
    pd.testing.assert_frame_equal(a.cells, b.cells)
    assert a.note == b.note


def test_without_fairlearn_a_reduction_names_the_extra(compas, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fairlearn", None)
    monkeypatch.setitem(sys.modules, "fairlearn.reductions", None)
    with pytest.raises(ConfigError, match=r'pip install "fairprobe\[study\]"'):
        train_and_evaluate(compas, ClassifierSpec("naive_bayes"), "equalized_odds", SPEC)


def test_a_classifier_without_sample_weight_is_refused_for_the_search(compas) -> None:
    spec = StudySpec.from_dict({"datasets": ["compas"], "classifiers": ["sklearn.neighbors.KNeighborsClassifier"],
                                "search": {"candidates": 2}})
    with pytest.raises(ConfigError, match="does not accept sample_weight"):
        train_and_evaluate(compas, spec.classifiers[0], "ppv_parity", spec)
    model = train_and_evaluate(compas, spec.classifiers[0], "none", spec)  # unconstrained is fine
    assert np.isfinite(model.accuracy)

"""Rashomon output that says what it counts and withholds a headline it cannot support (issue 27)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from fairprobe.datasets import make_lending_scenario
from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity
from fairprobe.plugins.rashomon.rashomon_set import RashomonSet, text_columns
from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet
from fairprobe.reporting.report import Report


def test_by_group_counts_audit_rows_under_an_honest_name() -> None:
    rs = RashomonSet.example().fit()
    table = rs.by_group_
    assert "members" not in table.columns and "rows" in table.columns
    assert table.rows.sum() == len(rs.individual_)  # audit rows, not members of the set
    assert len(rs.scores_) != table.rows.sum()


def test_a_reference_no_better_than_the_majority_class_gets_no_headline() -> None:
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=600), "b": rng.normal(size=600)})
    y = (rng.random(600) < 0.1).astype(int)  # rare, unrelated to X: nothing beats "always 0"
    rs = RashomonSet(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [1, 2]}, n_models=8,
                     epsilon=0.02, random_state=0, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        rs.fit(X, y_true=y)
    note = rs.trivial_reference_note()
    assert "no better than always predicting the majority class" in note
    assert rs.summary().splitlines()[1].startswith("caution: ")
    assert RashomonSet.example().fit().trivial_reference_note() == ""  # balanced accuracy beats 0.5


def test_demo_sections_run_on_the_lending_data_and_headline_only_a_useful_model() -> None:
    scenario = make_lending_scenario(3000, seed=0)
    from fairprobe.plugins.rashomon.demo import demo_step

    facts: dict = {}
    _, _, lines = demo_step(RashomonSet, Report("demo"), scenario, facts, quick=True, seed=0, n_jobs=1,
                            progress=False)
    assert facts["multiplicity"]["headline_held_back"] is False and "near-optimal trees" in lines[0]
    import importlib.util

    if importlib.util.find_spec("treefarms") is not None:  # the exact tree set is an optional extra
        _, table, lines = TreeRashomonSet.demo(Report("demo"), scenario, {}, quick=True, seed=0, n_jobs=1,
                                               progress=False)
        assert "400 applicants of the lending data" in lines[0] and len(table) == 400
    _, table, lines = ExactLinearMultiplicity.demo(Report("demo"), scenario, {}, quick=True, seed=0, n_jobs=1,
                                                   progress=False)
    assert "24 applicants of the lending data" in lines[0] and len(table) == 24


def test_text_columns_are_chosen_without_pandas_deprecations() -> None:
    frame = pd.DataFrame({"n": [1.0, 2.0], "s": pd.Series(["a", "b"], dtype="string"), "o": ["x", "y"],
                          "c": pd.Categorical(["u", "v"]), "b": [True, False]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert text_columns(frame) == ["s", "o", "c"]
        RashomonSet.example().fit()  # the example's pipeline selects its text columns the same way


@pytest.mark.parametrize("module", ["rashomon", "riskscore", "fairtree"])
def test_no_future_warning_from_fairprobe_in_the_analyses_examples(module: str) -> None:
    from fairprobe.core.registry import registered

    prefix = f"fairprobe.plugins.{module}"
    classes = [cls for cls in registered("analyses").values() if cls.__module__.startswith(prefix)]
    assert classes
    from fairprobe.exceptions import BackendUnavailableError

    for cls in classes:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)
            warnings.simplefilter("error", DeprecationWarning)
            warnings.filterwarnings("ignore", category=UserWarning)
            try:
                cls.example().fit()
            except BackendUnavailableError:  # an optional extra (treefarms) not installed: nothing to check
                continue

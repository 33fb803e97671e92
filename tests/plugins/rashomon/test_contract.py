"""RashomonSet and ExactLinearMultiplicity implement the analysis contract (fairprobe.plugins.base).

Plus what the new API adds: fitted-state results on the audit set, row identifiers, a per-group
conflict table, scikit-learn Pipelines over DataFrames with text columns, the majority-class
warning, numpy Generators as random_state, and the command's --features/--drop/--sensitive/--id.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from fairprobe.exceptions import ConfigError, DataError, NotFittedError
from fairprobe.plugins.base import Analysis, Example, Summary
from fairprobe.plugins.rashomon import ExactLinearMultiplicity, RashomonSet
from fairprobe.testing import check_analysis
from tests.bad_input import run_cli

matplotlib.use("Agg")

CLASSES = [RashomonSet, ExactLinearMultiplicity]


@pytest.mark.parametrize("cls", CLASSES)
def test_contract_suite(cls: type, tmp_path: Path) -> None:
    out = check_analysis(cls, tmp_path)
    assert (Path(out["report"]).parent / "index.html").is_file()


@pytest.mark.parametrize("cls", CLASSES)
def test_contract_by_hand(cls: type, tmp_path: Path) -> None:
    assert issubclass(cls, Analysis) and cls.name and cls.description and cls.demo_title
    ex = cls.example()
    assert isinstance(ex, Example)
    unfitted = type(ex.analysis)(**ex.analysis.get_params(deep=False))
    for call in (unfitted.summary, unfitted.to_frame, unfitted.figures, unfitted.check_is_fitted,
                 lambda: unfitted.to_report(tmp_path / "never")):
        with pytest.raises(NotFittedError, match="not fitted"):
            call()
    assert unfitted.set_params(progress=False) is unfitted and unfitted.progress is False
    with pytest.raises(ConfigError, match="no parameter 'nope'"):
        unfitted.set_params(nope=1)
    fitted = ex.fit()
    assert fitted is ex.analysis
    summary = fitted.summary()
    assert isinstance(summary, Summary) and "<pre " in summary.as_html() and summary.tables
    frame = fitted.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame)
    import matplotlib.pyplot as plt

    for plot in fitted.figures().values():
        assert hasattr(plot(), "figure")
        _, ax = plt.subplots()
        assert plot(ax=ax) is ax
        plt.close("all")
    page = fitted.to_report(tmp_path / "report")
    assert page.name == "index.html" and page.is_file()


def test_demo_orders() -> None:
    assert RashomonSet.demo_order == 30 and ExactLinearMultiplicity.demo_order == 35


def test_estimator_is_keyword_only_and_required() -> None:
    with pytest.raises(TypeError):
        RashomonSet(DecisionTreeClassifier())  # type: ignore[misc]
    with pytest.raises(ConfigError, match=r"needs estimator=.*RashomonSet\(estimator=DecisionTreeClassifier"):
        RashomonSet().fit(np.zeros((10, 1)), y_true=np.arange(10) % 2)
    with pytest.raises(TypeError):
        ExactLinearMultiplicity(0.05)  # type: ignore[misc]


def _numeric(n: int = 600, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)}, index=[f"id{i}" for i in range(n)])
    y = (X.a + rng.normal(0, 0.8, n) > 0).astype(int).to_numpy()
    return X, y


def test_fitted_state_on_the_audit_set_with_row_identifiers_and_groups() -> None:
    X, y = _numeric()
    kw = dict(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [2, 4]}, epsilon=0.05, n_models=15,
              random_state=0, progress=False)
    groups = np.where(X.b > 0, "high", "low")
    rs = RashomonSet(**kw).fit(X, y_true=y, sensitive_features=groups)
    assert rs.audit_predictions_.shape == (len(rs.scores_), len(X))  # no held-out rows: the audit set is X
    frame = rs.to_frame()
    assert list(frame.index[:2]) == ["id0", "id1"] and frame.index.equals(X.index)
    assert {"group", "majority", "conflict_ratio", "flagged"} <= set(frame.columns)
    np.testing.assert_allclose(frame.conflict_ratio, rs.conflict_ratio())  # the fitted-state version
    np.testing.assert_allclose(rs.conflict_ratio(), rs.conflict_ratio(X))  # the same as predicting X again
    assert rs.delta_ambiguity(delta=0.0) == pytest.approx(float((frame.conflict_ratio > 0).mean()))
    # audit rows, not set members; too_few marks a group of fewer rows than core's threshold
    assert list(rs.by_group_.columns) == ["rows", "mean_conflict", "flagged_share", "too_few"]
    assert rs.by_group_.rows.sum() == len(X) and set(rs.by_group_.index) == {"high", "low"}
    summary = rs.summary()
    assert "group high" in summary and "conflict by group" in summary.tables
    assert rs.to_frame() is not rs.individual_  # a copy: callers cannot change the fitted state

    held, y_held = _numeric(200, seed=1)
    rs2 = RashomonSet(**kw).fit(X, y_true=y, X_held=held, y_held=y_held, sensitive_features="b")
    assert rs2.audit_predictions_.shape[1] == 200 and rs2.to_frame().index.equals(held.index)
    assert rs2.by_group_.rows.sum() == 200  # the column of the audit set (X_held)
    with pytest.raises(DataError, match="one group per row of the audit set"):
        RashomonSet(**kw).fit(X, y_true=y, sensitive_features=groups[:10])
    with pytest.raises(DataError, match="not a column of the audit set"):
        RashomonSet(**kw).fit(X, y_true=y, sensitive_features="nope")


def _applicants(n: int = 800, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"income": rng.normal(50, 10, n).round(1), "job": rng.choice(["clerk", "nurse", "chef"], n),
                      "city": rng.choice(["north", "south"], n)})
    y = ((X.income - 50) / 10 + (X.job == "nurse") + rng.normal(0, 1, n) > 0.3).astype(int).to_numpy()
    return X, y


def test_pipeline_over_a_dataframe_with_text_columns() -> None:
    X, y = _applicants()
    encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["job", "city"]),
                                     remainder="passthrough")
    model = make_pipeline(encode, LogisticRegression())
    rs = RashomonSet(estimator=model, param_grid={"logisticregression__C": [0.1, 1.0]}, epsilon=0.05, n_models=10,
                     feature_noise=1.0, category_flip=0.05, feature_subsample=0.7, random_state=0,
                     progress=False).fit(X, y_true=y, sensitive_features="city")
    assert len(rs.scores_) >= 1 and rs.to_frame().shape[0] == len(X)
    new, _ = _applicants(50, seed=3)
    P = rs.predict_matrix(new[["city", "job", "income"]])  # columns by name, in any order
    assert P.shape == (len(rs.scores_), 50)
    report = rs.individual_report(new, threshold=0.1)
    assert report.index.equals(new.index)


def test_warns_when_the_reference_is_no_better_than_the_majority_class() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (rng.random(400) < 0.15).astype(int)  # labels independent of X: trees predict the majority
    kw = dict(estimator=DecisionTreeClassifier(max_depth=1), n_models=5, epsilon=0.05, random_state=0, progress=False)
    with pytest.warns(UserWarning, match="no better than always predicting the majority class"):
        RashomonSet(**kw).fit(X, y_true=y)
    Xi, yi = _numeric()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        RashomonSet(**kw).fit(Xi, y_true=yi)  # an informative model: no warning


def test_random_state_int_none_or_generator() -> None:
    X, y = _numeric(300)
    kw = dict(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [2, 4]}, epsilon=0.05, n_models=6,
              progress=False)
    a = RashomonSet(random_state=np.random.default_rng(5), **kw).fit(X, y_true=y)
    b = RashomonSet(random_state=np.random.default_rng(5), **kw).fit(X, y_true=y)
    np.testing.assert_array_equal(a.audit_predictions_, b.audit_predictions_)
    RashomonSet(random_state=None, **kw).fit(X, y_true=y)
    with pytest.raises(ConfigError, match="numpy Generator"):
        RashomonSet(random_state="seed", **kw).fit(X, y_true=y)


def test_refit_replaces_the_fitted_state() -> None:
    X, y = _numeric(300)
    rs = RashomonSet(estimator=DecisionTreeClassifier(), n_models=4, epsilon=0.1, random_state=0, progress=False)
    rs.fit(X, y_true=y, sensitive_features=X.b > 0)
    rs.fit(X, y_true=y)
    assert rs.by_group_ is None and "group" not in rs.to_frame().columns


def test_exact_delegates_to_its_result() -> None:
    ex = ExactLinearMultiplicity.example()
    model = ex.fit()
    assert model.result_.summary() in model.summary()
    frame = model.to_frame()
    assert frame.index.equals(ex.data.index) and set(frame.status) <= {"ambiguous", "not ambiguous", "undecided"}
    assert "row status" in model.summary().tables


def test_exact_demo_fits_a_small_sample_of_the_lending_data(tmp_path: Path) -> None:
    from fairprobe.datasets import make_lending_scenario
    from fairprobe.reporting.report import Report

    # the demo step fits 24 applicants of the demo's own data: its size, not a wall clock (speed
    # lives in benchmarks/)
    example = ExactLinearMultiplicity.example()
    assert len(example.data) <= 30 and example.fit().result_.n_solves <= 2 * len(example.data)
    found, table, lines = ExactLinearMultiplicity.demo(Report("demo"), make_lending_scenario(2000, seed=0), {},
                                                       quick=True, seed=0, n_jobs=1, progress=False)
    assert found == {} and len(table) == 24 and lines[0].startswith("- exact linear multiplicity (24 applicants")


def test_exact_solver_parameters_are_not_in_the_algorithm() -> None:
    source = (Path(__file__).parents[3] / "src/fairprobe/plugins/rashomon/linear_exact.py").read_text()
    assert "limits/" not in source


def test_rashomon_demo_step(tmp_path: Path) -> None:
    from fairprobe.datasets import make_lending_scenario
    from fairprobe.reporting.report import Report

    report = Report("demo")
    facts: dict = {}
    found, table, lines = RashomonSet.demo(report, make_lending_scenario(3000, seed=0), facts, quick=True, seed=0,
                                           n_jobs=1, progress=False)
    assert found == {} and list(table.columns) == ["applicants", "mean_conflict", "flagged_share", "too_few"]
    assert lines[0].startswith("- multiplicity: ") and "near-optimal trees" in lines[0] and "group 1" in lines[0]
    assert set(facts["multiplicity"]) == {"members", "ambiguity", "flagged_share", "headline_held_back"}
    assert report.sections and report.write(tmp_path / "demo").is_file()


# -- the command line ----------------------------------------------------------------------------
@pytest.fixture
def people_csv(tmp_path: Path) -> Path:
    X, y = _applicants(400)
    frame = X.assign(name=[f"p{i}" for i in range(len(X))], sex=np.random.default_rng(1).choice(["f", "m"], len(X)),
                     y=y)
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return path


def test_command_features_drop_sensitive_and_ids(people_csv: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    out_dir = tmp_path / "rep"
    code, out, err = run_cli(["multiplicity", "--data", str(people_csv), "--target", "y", "--n-models", "8",
                              "--epsilon", "0.05", "--sensitive", "sex", "--drop", "city", "--id", "name",
                              "--json", "--out", str(out_dir)], capsys)
    assert code == 0, err
    summary = json.loads(out[out.index("{"):])
    assert summary["features"] == ["income", "job"]  # not the target, the id, the dropped or the protected column
    assert set(summary["conflict_by_group"]) == {"f", "m"}
    rows = pd.read_csv(out_dir / "tables" / "s1_individual_report.csv")
    assert rows.iloc[0, 0] == "p0" and "sex" in rows.columns  # row identifiers, then the group
    assert (out_dir / "tables" / "s1_conflict_by_group.csv").is_file()

    code, out, err = run_cli(["multiplicity", "--data", str(people_csv), "--target", "y", "--n-models", "5",
                              "--epsilon", "0.1", "--features", "income,sex", "--sensitive", "sex", "--use-sensitive",
                              "--json"], capsys)
    assert code == 0, err
    assert json.loads(out[out.index("{"):])["features"] == ["income", "sex"]
    code, _, err = run_cli(["multiplicity", "--data", str(people_csv), "--target", "y", "--n-models", "5",
                            "--epsilon", "0.1", "--out", str(tmp_path / "rows")], capsys)
    assert code == 0, err
    rows = pd.read_csv(tmp_path / "rows" / "tables" / "s1_individual_report.csv")
    assert rows.columns[0] == "row" and rows.row.tolist() == list(range(400))  # the row numbers of the file
    code, _, err = run_cli(["multiplicity", "--data", str(people_csv), "--target", "y", "--drop", "nope"], capsys)
    assert code == 2 and "nope" in err

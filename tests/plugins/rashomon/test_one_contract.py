"""The analysis contract, for the Rashomon analyses: roles by keyword (names or arrays), nested
parameters, and a Rashomon set of models the user already fitted.

The acceptance test of the last: ``RashomonSet(models=...)`` gives exactly the conflict ratios,
ambiguity and ambiguity curve of the prediction-matrix functions of ``plugins.rashomon.measures``
on the same predictions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.rashomon import (
    ExactLinearMultiplicity,
    RashomonSet,
    ambiguity_curve,
    conflict_ratio,
    delta_ambiguity,
)


def _frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    df["y"] = (df.a + rng.normal(0, 1, n) > 0).astype(int)
    return df


KW = dict(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [2, 4]}, n_models=8, epsilon=0.05,
          random_state=0, progress=False)


def test_fit_takes_the_label_by_column_name() -> None:
    df = _frame()
    by_name = RashomonSet(**KW).fit(df, y_true="y")  # was: "got X (300, 3) and y ()"
    assert list(by_name.feature_names_in_) == ["a", "b", "c"]  # the label column is not a feature
    by_value = RashomonSet(**KW).fit(df[["a", "b", "c"]], y_true=df["y"].to_numpy())
    np.testing.assert_array_equal(by_name.audit_predictions_, by_value.audit_predictions_)
    pd.testing.assert_frame_equal(by_name.to_frame(), by_value.to_frame())


def test_held_out_labels_by_column_name() -> None:
    df, held = _frame(), _frame(120, seed=1)
    named = RashomonSet(**KW).fit(df, y_true="y", X_held=held)  # X_held's own "y" column holds its labels
    explicit = RashomonSet(**KW).fit(df, y_true="y", X_held=held, y_held="y")
    arrays = RashomonSet(**KW).fit(df.drop(columns="y"), y_true=df.y.to_numpy(), X_held=held.drop(columns="y"),
                                   y_held=held.y.to_numpy())
    for other in (explicit, arrays):
        np.testing.assert_array_equal(named.audit_predictions_, other.audit_predictions_)
    assert named.audit_predictions_.shape[1] == 120 and named.scores_.tolist() == arrays.scores_.tolist()
    with pytest.raises(DataError, match="y_held='y' names a column of X_held, but no X_held was given"):
        RashomonSet(**KW).fit(df, y_true="y", y_held="y")
    with pytest.raises(DataError, match=r"Column\(s\) \['label'\] are not in the data"):
        RashomonSet(**KW).fit(df, y_true="label")


@pytest.mark.parametrize("cls", [RashomonSet, ExactLinearMultiplicity])
def test_positional_labels_still_work_with_a_deprecation_warning(cls: type) -> None:
    df = _frame(40)
    make = (lambda: RashomonSet(**{**KW, "n_models": 3})) if cls is RashomonSet else \
        (lambda: ExactLinearMultiplicity(epsilon=0.05, progress=False))
    X, y = df[["a", "b"]], df.y.to_numpy()
    with pytest.warns(DeprecationWarning, match=rf"{cls.__name__}\.fit\(data, y_true\) with positional roles is "
                                                r"deprecated; pass them by keyword: fit\(data, y_true=\.\.\.\)"):
        old = make().fit(X, y)
    new = make().fit(X, y_true=y)
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())
    with pytest.raises(TypeError, match="both by position and by keyword"):
        make().fit(X, y, y_true=y)
    with pytest.raises(TypeError, match="at most 1 positional role"):
        make().fit(X, y, y)


def test_exact_linear_takes_the_label_by_column_name() -> None:
    ex = ExactLinearMultiplicity.example()
    data = ex.data.assign(label=ex.roles["y_true"])
    named = ExactLinearMultiplicity(epsilon=0.05, progress=False).fit(data, y_true="label")
    assert named.feature_names_ == list(map(str, ex.data.columns))  # "label" left the features
    assert named.result_.ambiguity == ex.fit().result_.ambiguity
    with pytest.raises(DataError, match="needs y_true"):
        ExactLinearMultiplicity(progress=False).fit(ex.data)


def test_nested_parameters_as_in_scikit_learn() -> None:
    rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), n_models=5)
    deep, shallow = rs.get_params(deep=True), rs.get_params(deep=False)
    assert deep["estimator__max_depth"] == 3 and "estimator__max_depth" not in shallow
    assert set(shallow) <= set(deep) and deep["n_models"] == 5
    assert rs.set_params(estimator__max_depth=5, n_models=7) is rs
    assert rs.estimator.max_depth == 5 and rs.n_models == 7
    # a new estimator and its parameter in one call: the parameter goes to the new one
    rs.set_params(estimator=DecisionTreeClassifier(), estimator__min_samples_leaf=4)
    assert rs.estimator.min_samples_leaf == 4
    with pytest.raises(ConfigError, match="no parameter 'estimatr'"):
        rs.set_params(estimatr__max_depth=2)
    with pytest.raises(ConfigError, match=r"RashomonSet\.sampler is None, which has no parameters to set"):
        rs.set_params(sampler__x=1)
    with pytest.raises(ValueError, match="max_dept"):  # scikit-learn's own error for its own parameters
        rs.set_params(estimator__max_dept=2)


def _own_models(X: pd.DataFrame, y: np.ndarray) -> list:
    models = [DecisionTreeClassifier(max_depth=d, random_state=s).fit(X, y) for d in (1, 2, 3, 6) for s in (0, 1)]
    return [*models, LogisticRegression().fit(X, y)]


def test_given_models_equal_the_prediction_matrix_functions() -> None:
    df = _frame(400)
    X, y = df[["a", "b", "c"]], df.y.to_numpy()
    train, audit = X.iloc[:250], X.iloc[250:]
    models = _own_models(train, y[:250])
    P = np.stack([m.predict(audit) for m in models])  # the same predictions, made by hand
    groups = np.where(audit.b > 0, "high", "low")
    rs = RashomonSet(models=models).fit(audit, y_true=y[250:], sensitive_features=groups)
    np.testing.assert_array_equal(rs.audit_predictions_, P)
    np.testing.assert_array_equal(rs.conflict_ratio(), conflict_ratio(P))
    np.testing.assert_array_equal(rs.to_frame().conflict_ratio.to_numpy(), conflict_ratio(P))
    for delta in (0.0, 0.1, 0.25):
        assert rs.delta_ambiguity(delta=delta) == delta_ambiguity(P, delta)
    np.testing.assert_array_equal(rs.ambiguity_curve()[1], ambiguity_curve(P)[1])
    # new rows: the kept models predict them as the user's models do
    new = X.iloc[:30]
    np.testing.assert_array_equal(rs.conflict_ratio(new), conflict_ratio(np.stack([m.predict(new) for m in models])))
    assert rs.to_frame().index.equals(audit.index) and set(rs.by_group_.index) == {"high", "low"}
    assert rs.scores_.tolist() == [float(np.mean(p == y[250:])) for p in P]  # accuracy on the audit rows
    assert len(rs.scores_) == len(models)  # every given model is a member: no epsilon filter
    assert "9 given models (fitted by the user, not filtered)" in rs.summary()


def test_given_models_without_labels_and_with_held_out_rows() -> None:
    df = _frame(300)
    X, y = df[["a", "b", "c"]], df.y.to_numpy()
    models = _own_models(X, y)
    unlabelled = RashomonSet(models=models).fit(X)
    assert np.isnan(unlabelled.scores_).all() and "no labels, so no scores" in unlabelled.summary()
    held = _frame(80, seed=2)
    rs = RashomonSet(models=models).fit(X, y_true=y, X_held=held[["a", "b", "c"]], y_held=held.y.to_numpy())
    np.testing.assert_array_equal(rs.audit_predictions_, np.stack([m.predict(held[["a", "b", "c"]]) for m in models]))


def test_given_models_are_checked() -> None:
    X = _frame(50)[["a", "b", "c"]]
    with pytest.raises(ConfigError, match="not both"):
        RashomonSet(estimator=DecisionTreeClassifier(), models=[DecisionTreeClassifier()]).fit(X)
    with pytest.raises(ConfigError, match="non-empty list of fitted classifiers"):
        RashomonSet(models=[]).fit(X)
    with pytest.raises(ConfigError, match=r"models\[1\] is 3, which cannot predict"):
        RashomonSet(models=[DecisionTreeClassifier(), 3]).fit(X)
    with pytest.raises(DataError, match=r"models\[0\] \(DecisionTreeClassifier\) could not predict the audit rows"):
        RashomonSet(models=[DecisionTreeClassifier()]).fit(X)  # not fitted

"""Checks of a :class:`~fairprobe.plugins.rashomon.rashomon_set.RashomonSet`'s parameters and data.

Every parameter is checked before any data is touched, and every error names the parameter and
the fix. The checks run in a fixed order (the first failing one speaks), kept in tables so that
the order is visible in one place.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.validate import check_number
from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.base import columns_by_role

__all__ = ["METRICS", "MULTIPLICITY", "allows_nan", "audit_groups", "categorical_positions", "check_given_models",
           "check_set_params", "check_threshold", "check_training_data", "labels_by_name", "split_held_out"]

#: How candidates' training rows are drawn (``dataset_multiplicity``).
MULTIPLICITY = ("none", "bootstrap", "subsample", "sampler")
#: The named held-out scores (``metric``); a callable is allowed too.
METRICS = ("accuracy", "balanced_accuracy", "f1")

# check_number's keywords for the real-valued parameters after epsilon and n_models, in the order they are checked
_SHARES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("feature_subsample", {"low": 0.0, "high": 1.0, "low_open": True, "optional": True,
                           "hint": " (the share of features each model sees, in (0, 1])"}),
    ("feature_noise", {"low": 0.0, "optional": True, "hint": " (a standard deviation, >= 0)"}),
    ("category_flip", {"low": 0.0, "high": 1.0, "optional": True, "hint": " (a probability, in [0, 1])"}),
    ("penalty", {"low": 0.0, "hint": " (the weight of complexity(model), >= 0)"}),
)


def _not_integer(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, numbers.Integral)


def _bad_random_state(rs: Any) -> bool:
    return rs is not None and not isinstance(rs, np.random.Generator) and (_not_integer(rs) or not 0 <= rs < 2**32)


def _bad_categorical(cats: Any) -> bool:
    return isinstance(cats, str | int) or not all(isinstance(j, numbers.Integral | str) and not isinstance(j, bool)
                                                  for j in cats)


def _bad_metric(metric: Any) -> bool:
    return not callable(metric) and metric not in METRICS


# (failed(set), message(set)) after the numbers, in order: the first that fails raises a ConfigError
_Rules = tuple[tuple[Callable[[Any], bool], Callable[[Any], str]], ...]
_BEFORE_THRESHOLD: _Rules = (
    (lambda s: bool(s.penalty) and s.complexity is None,
     lambda s: "penalty needs complexity=callable(model) -> float (e.g. the number of leaves)."),
    (lambda s: s.complexity is not None and not callable(s.complexity),
     lambda s: f"complexity must be a function complexity(model) -> float; got {s.complexity!r}."),
    (lambda s: _bad_metric(s.metric),
     lambda s: f"metric must be one of {METRICS} or a callable(y_true, y_pred); got {s.metric!r}."),
    (lambda s: isinstance(s.reference, str) and (_not_integer(s.cv) or s.cv < 2),
     lambda s: f"cv must be an integer >= 2 (folds of the reference search); got {s.cv!r}."),
)
_AFTER_THRESHOLD: _Rules = (
    (lambda s: _bad_random_state(s.random_state),
     lambda s: "random_state must be None, a numpy Generator or an integer in [0, 2**32); got "
               f"{s.random_state!r}."),
    (lambda s: s.n_jobs is not None and (_not_integer(s.n_jobs) or s.n_jobs == 0),
     lambda s: f"n_jobs must be a non-zero integer (-1 for all cores) or None; got {s.n_jobs!r}."),
    (lambda s: _bad_categorical(s.categorical_features or []),
     lambda s: "categorical_features must be a list of column positions (integers), e.g. [0, 3]; "
               f"got {s.categorical_features or []!r}."),
)


def check_set_params(rs: Any) -> None:
    """Every parameter of a Rashomon set, before any data is touched.

    Parameters
    ----------
    rs : RashomonSet
        The unfitted analysis (its parameters are read, nothing is set).

    Raises
    ------
    ConfigError
        The first parameter that is wrong, naming it and the fix.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
    >>> check_set_params(RashomonSet(estimator=DecisionTreeClassifier(), n_models=0))
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: n_models must be a positive integer (e.g. 200); got 0.
    """
    if rs.models is not None:
        check_given_models(rs)
        return
    _check_estimator(rs.estimator)
    if rs.param_grid is not None:
        _check_param_grid(rs.estimator, rs.param_grid)
    _check_resampling(rs)
    check_number("epsilon", rs.epsilon, low=0.0, hint=" (the tolerance in score units, e.g. 0.01)")
    if _not_integer(rs.n_models) or rs.n_models < 1:
        raise ConfigError(f"n_models must be a positive integer (e.g. 200); got {rs.n_models!r}.")
    if rs.dataset_multiplicity == "bootstrap":
        check_number("subsample", rs.subsample, low=0.0, low_open=True,
                     hint=" (the bootstrap size as a share of the training rows, e.g. 1.0)")
    else:
        check_number("subsample", rs.subsample, low=0.0, high=1.0, low_open=True,
                     hint=" (a share of the training rows, in (0, 1])")
    for name, limits in _SHARES:
        check_number(name, getattr(rs, name), **limits)
    _apply(_BEFORE_THRESHOLD, rs)
    check_threshold(rs.threshold)
    _apply(_AFTER_THRESHOLD, rs)


def _apply(rules: _Rules, rs: Any) -> None:
    for failed, message in rules:
        if failed(rs):
            raise ConfigError(message(rs))


def _check_estimator(est: Any) -> None:
    """An instance of a scikit-learn classifier (not a class, not a regressor)."""
    if est is None:
        raise ConfigError("RashomonSet needs estimator=<a scikit-learn classifier>, e.g. "
                          "RashomonSet(estimator=DecisionTreeClassifier(), param_grid={'max_depth': [3, 5]}).")
    if isinstance(est, type):
        raise ConfigError(f"estimator is the class {est.__name__}, not a model; pass an instance, e.g. "
                          f"{est.__name__}().")
    if not (hasattr(est, "fit") and hasattr(est, "predict")):
        raise ConfigError(f"{type(est).__name__} has no fit/predict; pass a scikit-learn classifier.")
    from sklearn.base import is_regressor

    if is_regressor(est):
        raise ConfigError(f"{type(est).__name__} is a regressor; a Rashomon set of decisions needs a classifier "
                          "(e.g. LogisticRegression or DecisionTreeClassifier).")


def _check_param_grid(est: Any, param_grid: Any) -> None:
    """A dict of non-empty lists, each naming a parameter of ``est``."""
    if not isinstance(param_grid, dict):
        raise ConfigError(f"param_grid must be a dict of lists, e.g. {{'max_depth': [2, 4]}}; got "
                          f"{type(param_grid).__name__}.")
    valid = est.get_params(deep=True) if hasattr(est, "get_params") else None
    for key, values in param_grid.items():
        if valid is not None and key not in valid:
            raise ConfigError(f"param_grid names {key!r}, which {type(est).__name__} does not have; valid "
                              f"parameters: {sorted(valid)[:12]}.")
        if isinstance(values, str) or not isinstance(values, list | tuple | np.ndarray) or len(values) == 0:
            raise ConfigError(f"param_grid[{key!r}] must be a non-empty list of values, e.g. "
                              f"{{{key!r}: [{values!r}]}}; got {values!r}.")


def _check_resampling(rs: Any) -> None:
    """``dataset_multiplicity`` and ``sampler`` agree."""
    if rs.dataset_multiplicity not in MULTIPLICITY:
        raise ConfigError(f"dataset_multiplicity must be one of {MULTIPLICITY}; got {rs.dataset_multiplicity!r}.")
    if (rs.dataset_multiplicity == "sampler") != (rs.sampler is not None):
        raise ConfigError('Give a sampler exactly when dataset_multiplicity="sampler" (sampler(rng) -> (X, y)).')
    if rs.sampler is not None and not callable(rs.sampler):
        raise ConfigError(f"sampler must be a function sampler(rng) -> (X, y); got {type(rs.sampler).__name__}.")


def check_given_models(rs: Any) -> None:
    """``models``: a non-empty list of fitted classifiers, and no ``estimator`` beside it.

    Parameters
    ----------
    rs : RashomonSet
        The unfitted analysis, built with ``models=``.

    Raises
    ------
    ConfigError
        Both ``estimator`` and ``models``, an empty or non-list ``models``, a model that cannot
        predict, or a wrong ``metric`` or ``threshold``.

    Examples
    --------
    >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
    >>> try:
    ...     check_given_models(RashomonSet(models=[]))
    ... except ConfigError as exc:
    ...     print(str(exc)[:45])
    models must be a non-empty list of fitted cla
    """
    if rs.estimator is not None:
        raise ConfigError("Give estimator= (RashomonSet trains the set) or models= (your own fitted models), "
                          "not both.")
    models = rs.models
    if isinstance(models, str) or not isinstance(models, list | tuple) or not models:
        raise ConfigError(f"models must be a non-empty list of fitted classifiers, e.g. models=[tree, forest]; "
                          f"got {type(models).__name__}.")
    bad = [i for i, m in enumerate(models) if isinstance(m, type) or not hasattr(m, "predict")]
    if bad:
        raise ConfigError(f"models[{bad[0]}] is {models[bad[0]]!r}, which cannot predict; pass fitted "
                          "classifiers (objects with predict).")
    if _bad_metric(rs.metric):
        raise ConfigError(f"metric must be one of {METRICS} or a callable(y_true, y_pred); got {rs.metric!r}.")
    check_threshold(rs.threshold)


def check_threshold(threshold: Any, name: str = "threshold") -> float:
    """A conflict-ratio threshold: a number in [0, 1).

    Parameters
    ----------
    threshold : Any
        The value given.
    name : str
        The argument's name, used in the message.

    Returns
    -------
    float

    Examples
    --------
    >>> check_threshold(0.2)
    0.2
    """
    return check_number(name, threshold, low=0.0, high=1.0 - 1e-12,
                        hint=" (a conflict ratio, in [0, 0.5] for two classes, e.g. 0.2)")


def allows_nan(estimator: Any) -> bool:
    """Whether a scikit-learn estimator declares that it fits data with missing values.

    Parameters
    ----------
    estimator : Any

    Returns
    -------
    bool
        ``False`` for anything that is not a scikit-learn estimator with the tag API.

    Examples
    --------
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> allows_nan(HistGradientBoostingClassifier()), allows_nan(object())
    (True, False)
    """
    try:
        return bool(estimator.__sklearn_tags__().input_tags.allow_nan)
    except Exception:  # not a scikit-learn estimator, or an older tag API: assume it does not
        return False


def _as_features(X: Any, what: str, frame: bool) -> Any:
    """``X`` as a DataFrame (``frame``) without infinite numbers, or as a float array."""
    if frame:
        if not isinstance(X, pd.DataFrame):
            raise DataError(f"{what} must be a DataFrame with the columns of X, as in fit; got {type(X).__name__}.")
        if np.isinf(X.select_dtypes("number").to_numpy(dtype=float)).any():
            raise DataError(f"{what} has infinite values; replace or drop them first.")
        return X
    try:
        return np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{what} must be numeric (encode categories as codes first, or pass a DataFrame "
                        f"and a Pipeline that encodes them): {exc}") from None


def _as_labels(y: Any, what: str) -> np.ndarray:
    """``y`` as a 1-D array (a single column or row flattened)."""
    if y is None:
        raise DataError(f"Labels for {what} are missing; pass y{'_held' if what != 'X' else '_true'} with one "
                        "label per row.")
    y = np.asarray(y)
    return y.ravel() if y.ndim == 2 and 1 in y.shape else y


def _check_classes(y: np.ndarray, metric: Any) -> None:
    """No missing label, one type of label, at least two classes (exactly two for f1)."""
    if (y.dtype.kind == "f" and np.isnan(y).any()) or (y.dtype.kind == "O" and pd.isna(y).any()):
        raise DataError(f"The labels have {int(pd.isna(y).sum())} missing values; drop those rows or fill them in.")
    try:
        classes = np.unique(y)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in y})
        raise DataError(f"The labels mix types {kinds}; use one type (e.g. all integers 0/1).") from None
    if classes.size < 2:
        raise DataError("The target has a single class; a classifier needs at least two.")
    if metric == "f1" and classes.size != 2:
        raise DataError(f'metric="f1" needs a binary target; this one has {classes.size} classes.')


def check_training_data(X: Any, y: Any, *, estimator: Any, metric: Any, what: str = "X",
                        frame: bool = False) -> tuple[Any, np.ndarray]:
    """Features and labels a Rashomon set can train on (``X``) or score with (``X_held``).

    Parameters
    ----------
    X : array-like or DataFrame
        Features.
    y : array-like
        One label per row.
    estimator : Any
        The set's estimator (whether it fits missing values).
    metric : str or callable
        The set's held-out score (``"f1"`` needs two classes).
    what : str
        The argument's name, used in the messages.
    frame : bool
        Keep ``X`` a DataFrame (text columns, or a Pipeline); else make it a float array.

    Returns
    -------
    X : ndarray or DataFrame
    y : ndarray

    Raises
    ------
    DataError
        Shapes that disagree, no rows or columns, missing or infinite values, labels of one class.

    Examples
    --------
    >>> X, y = check_training_data([[0.0], [1.0]], [0, 1], estimator=None, metric="accuracy")
    >>> X.shape, y.tolist()
    ((2, 1), [0, 1])
    """
    X = _as_features(X, what, frame)
    y = _as_labels(y, what)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.size:
        raise DataError(f"{what} must be 2-D with one row per label; got {what} {X.shape} and y {y.shape}.")
    if X.shape[0] == 0:
        raise DataError(f"{what} has no rows; give training rows of at least two classes.")
    if X.shape[1] == 0:
        raise DataError(f"{what} has no feature columns; give the features the models should use.")
    if not frame and (np.isinf(X).any() or (np.isnan(X).any() and not allows_nan(estimator))):
        raise DataError(f"{what} has missing or infinite values, which {type(estimator).__name__} cannot "
                        "fit; impute or drop them first.")
    _check_classes(y, metric)
    return X, y


def categorical_positions(categorical_features: Any, X: Any, text_too: bool) -> tuple[int, ...]:
    """``categorical_features`` as column positions (names allowed for a DataFrame), plus text columns.

    Parameters
    ----------
    categorical_features : list of int or str, optional
        The set's parameter.
    X : ndarray or DataFrame
        The training features.
    text_too : bool
        Add the DataFrame's text and categorical columns (when it stays a DataFrame).

    Returns
    -------
    tuple of int
        Sorted column positions.

    Examples
    --------
    >>> categorical_positions(["b"], pd.DataFrame({"a": [1.0], "b": [0], "c": ["x"]}), text_too=True)
    (1, 2)
    """
    cats = list(categorical_features or [])
    names = list(X.columns) if isinstance(X, pd.DataFrame) else None
    positions = []
    for j in cats:
        if not isinstance(j, str):
            positions.append(int(j))
        elif names is None:
            raise ConfigError(f"categorical_features must be a list of column positions (integers), e.g. "
                              f"[0, 3]; got {cats!r} (column names need X as a DataFrame).")
        elif j not in names:
            raise ConfigError(f"categorical_features names {j!r}, which is not a column of X; columns: {names[:12]}.")
        else:
            positions.append(names.index(j))
    bad = [j for j in positions if not 0 <= j < X.shape[1]]
    if bad:
        raise ConfigError(f"categorical_features {bad} are not columns of X (it has {X.shape[1]}).")
    if isinstance(X, pd.DataFrame) and text_too:
        positions += [j for j, t in enumerate(X.dtypes)
                      if not pd.api.types.is_numeric_dtype(t) or isinstance(t, pd.CategoricalDtype)]
    return tuple(sorted(set(positions)))


def audit_groups(sensitive_features: Any, audit: Any) -> tuple[np.ndarray | None, str]:
    """The audit rows' groups: a column of the audit set, or an array aligned with it.

    Parameters
    ----------
    sensitive_features : str or array-like, optional
        A column name of ``audit`` or one group per row.
    audit : ndarray or DataFrame
        The audit rows.

    Returns
    -------
    groups : ndarray or None
    name : str
        The groups' column heading (``""`` without groups).

    Examples
    --------
    >>> groups, name = audit_groups("g", pd.DataFrame({"g": ["a", "b"]}))
    >>> groups.tolist(), name
    (['a', 'b'], 'g')
    """
    if sensitive_features is None:
        return None, ""
    if isinstance(sensitive_features, str):
        if not isinstance(audit, pd.DataFrame) or sensitive_features not in audit.columns:
            where = list(audit.columns)[:12] if isinstance(audit, pd.DataFrame) else "X is not a DataFrame"
            raise DataError(f"sensitive_features={sensitive_features!r} is not a column of the audit set "
                            f"({where}); pass a column name of X (X_held when given) or an array of groups.")
        return audit[sensitive_features].to_numpy(), sensitive_features
    name = getattr(sensitive_features, "name", None)
    groups = np.asarray(sensitive_features)
    if groups.ndim == 2 and 1 in groups.shape:
        groups = groups.ravel()
    if groups.ndim != 1 or groups.size != audit.shape[0]:
        raise DataError(f"sensitive_features has shape {groups.shape}; it must give one group per row of the "
                        f"audit set ({audit.shape[0]} rows: X_held when given, else X).")
    if pd.isna(groups).any():
        raise DataError(f"sensitive_features has {int(pd.isna(groups).sum())} missing values; fill them in "
                        "(e.g. 'unknown') or drop those rows.")
    return groups, str(name) if isinstance(name, str) else "group"


def labels_by_name(data: Any, X_held: Any, y_true: Any, y_held: Any) -> tuple[Any, Any, Any, Any]:
    """Labels given as column names, taken out of the features: ``y_true`` of ``data``, ``y_held`` of ``X_held``.

    Without ``y_held``, a column of ``X_held`` named like ``y_true`` holds the held-out labels.

    Parameters
    ----------
    data : array-like or DataFrame
        Training features (with the label column when ``y_true`` names one).
    X_held : array-like or DataFrame, optional
        Held-out features.
    y_true, y_held : str or array-like, optional
        Labels, or the names of their columns.

    Returns
    -------
    X, X_held, y_true, y_held
        The features without label columns, and the labels as values.

    Examples
    --------
    >>> X, _, y, _ = labels_by_name(pd.DataFrame({"a": [1, 2], "y": [0, 1]}), None, "y", None)
    >>> list(X.columns), list(y)
    (['a'], [0, 1])
    """
    X, values = columns_by_role(data, {"y_true": y_true})
    held_name = y_held if isinstance(y_held, str) else None
    if y_held is None and isinstance(y_true, str) and isinstance(X_held, pd.DataFrame) and y_true in X_held.columns:
        held_name = y_true
    if held_name is not None:
        if X_held is None:
            raise DataError(f"y_held={held_name!r} names a column of X_held, but no X_held was given.")
        X_held, held = columns_by_role(X_held, {"y_held": held_name})
        y_held = held["y_held"]
    return X, X_held, values["y_true"], y_held


def split_held_out(X: Any, y: np.ndarray, y_held: Any, split_seed: Any) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    """A stratified 25 % held-out split of the training rows, when no held-out rows are given.

    Parameters
    ----------
    X, y : training features and labels
    y_held : optional
        Must be None (held-out labels without held-out rows are an error).
    split_seed : int, optional
        Seed of the split.

    Returns
    -------
    X_train, X_held, y_train, y_held

    Raises
    ------
    DataError
        ``y_held`` without rows, or too few rows per class for a stratified split.

    Examples
    --------
    >>> X_train, X_held, y_train, y_held = split_held_out(np.zeros((8, 1)), np.array([0, 1] * 4), None, 0)
    >>> len(y_train), len(y_held)
    (6, 2)
    """
    from sklearn.model_selection import train_test_split

    if y_held is not None:
        raise DataError("y_held was given without X_held; pass both, or neither for a 25 % split of X.")
    counts = np.unique(y, return_counts=True)[1]
    n_held = math.ceil(0.25 * y.size)
    if counts.min() < 2 or n_held < counts.size or y.size - n_held < counts.size:
        raise DataError(
            f"{y.size} rows with {counts.min()} in the smallest class are too few for a stratified 25 % "
            "held-out split; give more rows (at least 2 per class, 4 per class to be safe) or pass "
            "X_held and y_held.")
    return train_test_split(X, y, test_size=0.25, random_state=split_seed, stratify=y)

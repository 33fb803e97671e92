"""Rashomon sets by the ad-hoc approach: many near-optimal models of any scikit-learn classifier.

The reference model ``g0`` is the cross-validated best of ``param_grid`` (refit on the training
data); its held-out score is the bar. Candidate models vary hyperparameters (drawn from the
grid), seeds and the data they see (bootstrap or subsample of a given size, a random feature
subset, Gaussian noise on the features); those scoring within ``epsilon`` of ``g0`` on the
held-out data form the Rashomon set (Definition 4.1 of the seed paper).

:class:`RashomonSet` follows the analysis contract (:mod:`fairprobe.plugins.base`): ``fit``
stores the members' predictions on the *audit set* (the held-out rows when given, else ``X``)
and everything the per-person results need, so :meth:`RashomonSet.summary`,
:meth:`RashomonSet.to_frame` and :meth:`RashomonSet.figures` take no data.

Models fitted elsewhere form a set too: ``RashomonSet(models=[m1, m2, ...]).fit(X_audit)`` audits
exactly those models (no training, no epsilon filter), with the same per-person results as the
prediction-matrix functions of :mod:`~fairprobe.plugins.rashomon.measures` on their predictions.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.core.small_groups import too_few_text
from fairprobe.core.validate import check_number
from fairprobe.exceptions import ConfigError, DataError, FairprobeError, NotFittedError
from fairprobe.plugins.base import Analysis, Example, Summary, columns_by_role, positional_roles
from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_by_group, conflict_ratio, delta_ambiguity

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report


def text_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` that hold text or categories (what a one-hot encoder should take).

    ``make_column_selector(dtype_include=object)`` asks pandas for ``object`` columns, which under
    pandas 3 silently includes the new ``str`` dtype and warns that it will stop doing so; this
    asks for what is meant, whatever the pandas version.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    list of str

    Examples
    --------
    >>> text_columns(pd.DataFrame({"a": [1], "b": ["x"], "c": pd.Categorical(["y"])}))
    ['b', 'c']
    """
    return [c for c in frame.columns
            if not pd.api.types.is_numeric_dtype(frame[c]) or isinstance(frame[c].dtype, pd.CategoricalDtype)]


__all__ = ["RashomonSet", "text_columns"]

_MULTIPLICITY = ("none", "bootstrap", "subsample", "sampler")
_METRICS = ("accuracy", "balanced_accuracy", "f1")


def _score(metric: Any, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if callable(metric):
        return float(metric(y_true, y_pred))
    from sklearn import metrics

    fn = {"accuracy": metrics.accuracy_score, "balanced_accuracy": metrics.balanced_accuracy_score,
          "f1": metrics.f1_score}[metric]
    return float(fn(y_true, y_pred))


@dataclass(frozen=True)
class _Perturbation:
    """How one candidate's training data differ from the training set."""

    noise: float | None
    categorical: tuple[int, ...]
    flip: float | None
    sampler: Callable[[np.random.Generator], tuple[Any, Any]] | None


def _perturb(X: np.ndarray, how: _Perturbation, rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise on the numeric columns, random category switches on the categorical ones."""
    if not how.noise and not how.flip:
        return X
    X = X.copy()
    cat = np.zeros(X.shape[1], dtype=bool)
    cat[list(how.categorical)] = True
    if how.noise:
        X[:, ~cat] += rng.normal(0.0, how.noise, (X.shape[0], int((~cat).sum())))
    if how.flip:
        for j in np.flatnonzero(cat):
            levels = np.unique(X[:, j])
            switch = rng.random(X.shape[0]) < how.flip
            if levels.size > 1 and switch.any():
                # a switched entry takes one of the *other* levels, uniformly
                offset = rng.integers(1, levels.size, int(switch.sum()))
                pos = np.searchsorted(levels, X[switch, j])
                X[switch, j] = levels[(pos + offset) % levels.size]
    return X


def _perturb_frame(X: pd.DataFrame, how: _Perturbation, rng: np.random.Generator,
                   skip: set[int] | None = None) -> pd.DataFrame:
    """:func:`_perturb` for a DataFrame: noise on numeric columns, switches on categorical ones (any dtype)."""
    if not how.noise and not how.flip:
        return X
    X = X.copy()
    cat = set(how.categorical)
    for j, col in enumerate(X.columns):
        if skip and j in skip:
            continue
        values = X[col]
        if j not in cat:
            if how.noise:
                X[col] = values.to_numpy(dtype=float) + rng.normal(0.0, how.noise, len(X))
            continue
        if not how.flip:
            continue
        codes, levels = pd.factorize(values, sort=True)  # missing values get code -1 and stay as they are
        switch = (rng.random(len(X)) < how.flip) & (codes >= 0)
        if len(levels) > 1 and switch.any():
            # a switched entry takes one of the *other* levels, uniformly (as in _perturb)
            offset = rng.integers(1, len(levels), int(switch.sum()))
            new = values.to_numpy(dtype=object, copy=True)
            new[switch] = np.asarray(levels, dtype=object)[(codes[switch] + offset) % len(levels)]
            X[col] = pd.Series(new, index=X.index).astype(values.dtype)
    return X


def _take(X: Any, rows: np.ndarray | None, cols: np.ndarray | None) -> Any:
    """Rows and columns (positions) of an array or a DataFrame.

    A DataFrame keeps every column (a Pipeline selects its columns by name): the columns not in
    ``cols`` are set to a constant, their first value, which a model cannot learn from.
    """
    if isinstance(X, pd.DataFrame):
        if cols is not None and len(cols) < X.shape[1]:
            X = X.copy()
            for j in sorted(set(range(X.shape[1])) - {int(c) for c in cols}):
                X[X.columns[j]] = X.iloc[0, j] if X.shape[0] else X.iloc[:, j]
        return X if rows is None else X.iloc[rows]
    if cols is not None:
        X = X[:, cols]
    return X if rows is None else X[rows]


def _take_like(X: Any, cols: np.ndarray, train: Any) -> Any:
    """Columns ``cols`` of ``X``; a DataFrame's masked columns get the constants of ``train``."""
    if not isinstance(X, pd.DataFrame) or len(cols) == X.shape[1]:
        return _take(X, None, cols)
    X = X.copy()
    for j in sorted(set(range(X.shape[1])) - {int(c) for c in cols}):
        X[X.columns[j]] = train.iloc[0, j]
    return X


def _fit_candidate(estimator: Any, params: dict[str, Any], X: Any, y: np.ndarray, X_held: Any,
                   y_held: np.ndarray, rows: np.ndarray | None, cols: np.ndarray, how: _Perturbation, metric: Any,
                   seed: int, X_audit: Any = None) -> tuple[Any, np.ndarray, float, np.ndarray | None]:
    """Train one candidate; its held-out predictions and score, and its predictions on ``X_audit`` if given."""
    from sklearn.base import clone

    model = clone(estimator).set_params(**params)
    # also a Pipeline's steps (``model__random_state``): else their trees draw fresh randomness every run
    model.set_params(**{k: seed for k in model.get_params() if k == "random_state" or k.endswith("__random_state")})
    rng = np.random.default_rng(seed)
    frame = isinstance(X_held, pd.DataFrame)
    if how.sampler is not None:  # a fresh sample from the data-generating process
        try:
            X, y = how.sampler(rng)
            X = (pd.DataFrame(X) if frame else np.asarray(X, dtype=float))
            y = np.asarray(y).ravel()
        except (TypeError, ValueError) as exc:
            raise DataError(f"sampler(rng) must return (X, y) with numeric X; it failed: {exc}") from None
        if X.ndim != 2 or X.shape[0] != y.size or X.shape[1] != X_held.shape[1]:
            raise DataError(f"sampler(rng) returned X {X.shape} and y {y.shape}; it must return one label per row "
                            f"and {X_held.shape[1]} columns, as the training data.")
        if frame:
            X.columns = X_held.columns
        rows = None
    Xs = _take(X, rows, cols)
    ys = y if rows is None else y[rows]
    if frame:  # all columns kept (the masked ones constant, and not perturbed): positions are unchanged
        masked = set(range(Xs.shape[1])) - {int(c) for c in cols}
        model.fit(_perturb_frame(Xs, how, rng, skip=masked), ys)
    else:
        sub = _Perturbation(how.noise, tuple(int(np.searchsorted(cols, j)) for j in how.categorical if j in cols),
                            how.flip, None)
        model.fit(_perturb(Xs, sub, rng), ys)
    pred = model.predict(_take_like(X_held, cols, Xs))
    audit = None if X_audit is None else model.predict(_take_like(X_audit, cols, Xs))
    return model, pred, _score(metric, y_held, pred), audit


class RashomonSet(Analysis):
    """A Rashomon set of near-optimal models built by parametric and dataset multiplicity.

    Parameters
    ----------
    estimator : scikit-learn classifier or Pipeline
        The model class (required unless ``models`` is given). A
        :class:`~sklearn.pipeline.Pipeline` (e.g. a ``ColumnTransformer`` one-hot encoding text
        columns, then a classifier) takes ``X`` as a DataFrame with text columns.
    models : list of fitted classifiers, optional
        A set of models you already fitted (anything with ``predict``), used as the Rashomon set
        as it is: :meth:`fit` only predicts the audit rows with each of them (and scores them when
        labels are given). ``estimator``, ``epsilon``, the resampling and the reference search do
        not apply; give either ``estimator`` or ``models``.
    param_grid : dict of lists, optional
        Hyperparameters searched for the reference model and drawn for each candidate (a
        Pipeline's are named ``step__parameter``).
    epsilon : float
        Tolerance: members score at least ``reference_score_ - epsilon`` on the held-out data.
    n_models : int
        Candidate models trained.
    dataset_multiplicity : {"bootstrap", "subsample", "none", "sampler"}
        How each candidate's training rows are drawn: with replacement, without replacement, the
        whole training set, or a fresh sample from ``sampler``.
    subsample : float
        Size of each bootstrap (or subsample) as a fraction of the training set (0.1 = 800 of 8,000).
    feature_subsample : float, optional
        Fraction of features each candidate sees (a random subset per candidate; with a DataFrame the
        other columns are set to a constant, so a Pipeline still finds them by name).
    feature_noise : float, optional
        Standard deviation of Gaussian noise added to each candidate's numeric training features.
    categorical_features : list of int or str, optional
        Columns holding categories (positions, or names when ``X`` is a DataFrame): they get no
        Gaussian noise but are switched to another observed level with probability
        ``category_flip``. Text columns of a DataFrame are categorical anyway.
    category_flip : float, optional
        Probability of switching a categorical value to another observed level.
    sampler : callable, optional
        ``sampler(rng) -> (X, y)`` draws a fresh training sample (``dataset_multiplicity="sampler"``),
        the paper's condition (d).
    metric : {"accuracy", "balanced_accuracy", "f1"} or callable
        Held-out score; a callable is ``metric(y_true, y_pred)``, larger is better.
    reference : "cv_best", fitted estimator or float
        ``"cv_best"`` searches ``param_grid`` by cross-validation and refits; a fitted estimator is
        used as ``g0`` as it is; a number is taken as the reference score itself.
    complexity : callable, optional
        ``complexity(model) -> float``; with ``penalty`` the objective becomes
        ``score - penalty * complexity`` (a sparsity-penalised Rashomon set, e.g. leaves per tree).
    penalty : float
        Weight of ``complexity`` in the objective (0: no penalty).
    cv : int
        Folds of the reference model's search.
    threshold : float
        Rows of the audit set with a conflict ratio above it are flagged (:meth:`to_frame`).
    random_state : int, numpy Generator or None
        Seed (or generator) of the resamples, noise and hyperparameter draws.
    n_jobs : int, optional
        joblib workers for training (-1: all cores).
    parallel_backend : str, optional
        joblib backend; ``"dask"`` runs on the active ``dask.distributed`` client.
    keep_models : bool
        Keep the fitted members (``False`` keeps only their predictions; then the methods taking a
        new ``X`` are unavailable).
    progress : bool
        Show a progress bar.

    Attributes
    ----------
    audit_predictions_ : ndarray (n_members, n_audit)
        The members' predictions on the audit set (the held-out rows when given, else ``X``).
    audit_index_ : pandas.Index
        Row identifiers of the audit set (the DataFrame's index, else 0..n-1).
    scores_ : ndarray
        Held-out scores of the members; ``reference_score_`` is the bar's reference.
    baseline_score_ : float
        Held-out score of always predicting the training majority class.
    individual_ : DataFrame
        Per audit row: majority, conflict ratio, flag, share per class (what :meth:`to_frame` returns).
    by_group_ : DataFrame or None
        Per group of ``sensitive_features``: ``rows`` (audit rows in the group; the set's size is
        ``len(scores_)``), ``mean_conflict``, ``flagged_share``, ``too_few`` (fewer rows than
        :data:`~fairprobe.core.small_groups.FEW_UNITS`: the summary says the group's figures are too
        few to say anything).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 2)); y = (X[:, 0] + rng.normal(0, 1, 600) > 0).astype(int)
    >>> rs = RashomonSet(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [2, 3, 4]}, epsilon=0.05,
    ...                  n_models=30, random_state=0, progress=False).fit(X, y_true=y)
    >>> 0 < len(rs.scores_) <= 30, float(rs.conflict_ratio(X).max()) <= 0.5
    (True, True)
    >>> rs.to_frame().shape[0], "conflict ratios" in rs.figures()
    (600, True)

    A set of models fitted elsewhere, audited on the same rows:

    >>> own = [DecisionTreeClassifier(max_depth=d, random_state=0).fit(X, y) for d in (2, 3, 4)]
    >>> given = RashomonSet(models=own).fit(X, y_true=y)
    >>> given.audit_predictions_.shape, len(given.scores_)
    ((3, 600), 3)
    """

    name: ClassVar[str] = "rashomon"
    description: ClassVar[str] = "Rashomon sets, conflict ratios and delta-ambiguity"
    demo_title: ClassVar[str] = "predictive multiplicity (Rashomon set)"
    demo_order: ClassVar[int] = 30

    def __init__(self, *, estimator: Any = None, models: list[Any] | None = None,
                 param_grid: dict[str, list[Any]] | None = None,
                 epsilon: float = 0.01, n_models: int = 200, dataset_multiplicity: str = "bootstrap",
                 subsample: float = 1.0, feature_subsample: float | None = None, feature_noise: float | None = None,
                 categorical_features: list[int | str] | None = None, category_flip: float | None = None,
                 sampler: Callable[[np.random.Generator], tuple[Any, Any]] | None = None, metric: Any = "accuracy",
                 reference: Any = "cv_best", complexity: Callable[[Any], float] | None = None, penalty: float = 0.0,
                 cv: int = 5, threshold: float = 0.2, random_state: int | np.random.Generator | None = None,
                 n_jobs: int | None = None, parallel_backend: str | None = None, keep_models: bool = True,
                 progress: bool = True) -> None:
        self.estimator = estimator
        self.models = models
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.n_models = n_models
        self.dataset_multiplicity = dataset_multiplicity
        self.subsample = subsample
        self.feature_subsample = feature_subsample
        self.feature_noise = feature_noise
        self.categorical_features = categorical_features
        self.category_flip = category_flip
        self.sampler = sampler
        self.metric = metric
        self.reference = reference
        self.complexity = complexity
        self.penalty = penalty
        self.cv = cv
        self.threshold = threshold
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.parallel_backend = parallel_backend
        self.keep_models = keep_models
        self.progress = progress

    def _check_params(self) -> None:
        """Every parameter, before any data is touched; ConfigError naming the parameter and the fix."""
        est = self.estimator
        if self.models is not None:
            self._check_models()
            return
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
        if self.param_grid is not None:
            if not isinstance(self.param_grid, dict):
                raise ConfigError(f"param_grid must be a dict of lists, e.g. {{'max_depth': [2, 4]}}; got "
                                  f"{type(self.param_grid).__name__}.")
            valid = est.get_params(deep=True) if hasattr(est, "get_params") else None
            for key, values in self.param_grid.items():
                if valid is not None and key not in valid:
                    raise ConfigError(f"param_grid names {key!r}, which {type(est).__name__} does not have; valid "
                                      f"parameters: {sorted(valid)[:12]}.")
                if isinstance(values, str) or not isinstance(values, list | tuple | np.ndarray) or len(values) == 0:
                    raise ConfigError(f"param_grid[{key!r}] must be a non-empty list of values, e.g. "
                                      f"{{{key!r}: [{values!r}]}}; got {values!r}.")
        if self.dataset_multiplicity not in _MULTIPLICITY:
            raise ConfigError(
                f"dataset_multiplicity must be one of {_MULTIPLICITY}; got {self.dataset_multiplicity!r}.")
        if (self.dataset_multiplicity == "sampler") != (self.sampler is not None):
            raise ConfigError('Give a sampler exactly when dataset_multiplicity="sampler" (sampler(rng) -> (X, y)).')
        if self.sampler is not None and not callable(self.sampler):
            raise ConfigError("sampler must be a function sampler(rng) -> (X, y); got "
                              f"{type(self.sampler).__name__}.")
        check_number("epsilon", self.epsilon, low=0.0, hint=" (the tolerance in score units, e.g. 0.01)")
        if isinstance(self.n_models, bool) or not isinstance(self.n_models, numbers.Integral) or self.n_models < 1:
            raise ConfigError(f"n_models must be a positive integer (e.g. 200); got {self.n_models!r}.")
        if self.dataset_multiplicity == "bootstrap":
            check_number("subsample", self.subsample, low=0.0, low_open=True,
                          hint=" (the bootstrap size as a share of the training rows, e.g. 1.0)")
        else:
            check_number("subsample", self.subsample, low=0.0, high=1.0, low_open=True,
                          hint=" (a share of the training rows, in (0, 1])")
        check_number("feature_subsample", self.feature_subsample, low=0.0, high=1.0, low_open=True, optional=True,
                      hint=" (the share of features each model sees, in (0, 1])")
        check_number("feature_noise", self.feature_noise, low=0.0, optional=True,
                      hint=" (a standard deviation, >= 0)")
        check_number("category_flip", self.category_flip, low=0.0, high=1.0, optional=True,
                      hint=" (a probability, in [0, 1])")
        check_number("penalty", self.penalty, low=0.0, hint=" (the weight of complexity(model), >= 0)")
        if self.penalty and self.complexity is None:
            raise ConfigError("penalty needs complexity=callable(model) -> float (e.g. the number of leaves).")
        if self.complexity is not None and not callable(self.complexity):
            raise ConfigError(f"complexity must be a function complexity(model) -> float; got {self.complexity!r}.")
        if not callable(self.metric) and self.metric not in _METRICS:
            raise ConfigError(f"metric must be one of {_METRICS} or a callable(y_true, y_pred); got {self.metric!r}.")
        if isinstance(self.reference, str) and (isinstance(self.cv, bool) or not isinstance(self.cv, numbers.Integral)
                                                or self.cv < 2):
            raise ConfigError(f"cv must be an integer >= 2 (folds of the reference search); got {self.cv!r}.")
        _check_threshold(self.threshold)
        rs = self.random_state
        if rs is not None and not isinstance(rs, np.random.Generator) and (
                isinstance(rs, bool) or not isinstance(rs, numbers.Integral) or not 0 <= rs < 2**32):
            raise ConfigError(f"random_state must be None, a numpy Generator or an integer in [0, 2**32); got {rs!r}.")
        jobs = self.n_jobs
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs == 0):
            raise ConfigError(f"n_jobs must be a non-zero integer (-1 for all cores) or None; got {jobs!r}.")
        cats = self.categorical_features or []
        if isinstance(cats, str | int) or not all(isinstance(j, numbers.Integral | str) and not isinstance(j, bool)
                                                   for j in cats):
            raise ConfigError(f"categorical_features must be a list of column positions (integers), e.g. [0, 3]; "
                              f"got {cats!r}.")

    def _check_models(self) -> None:
        """``models``: a non-empty list of fitted classifiers, and no ``estimator`` beside it."""
        if self.estimator is not None:
            raise ConfigError("Give estimator= (RashomonSet trains the set) or models= (your own fitted models), "
                              "not both.")
        models = self.models
        if isinstance(models, str) or not isinstance(models, list | tuple) or not models:
            raise ConfigError(f"models must be a non-empty list of fitted classifiers, e.g. models=[tree, forest]; "
                              f"got {type(models).__name__}.")
        bad = [i for i, m in enumerate(models) if isinstance(m, type) or not hasattr(m, "predict")]
        if bad:
            raise ConfigError(f"models[{bad[0]}] is {models[bad[0]]!r}, which cannot predict; pass fitted "
                              "classifiers (objects with predict).")
        if not callable(self.metric) and self.metric not in _METRICS:
            raise ConfigError(f"metric must be one of {_METRICS} or a callable(y_true, y_pred); got {self.metric!r}.")
        _check_threshold(self.threshold)

    def _frame_mode(self, X: Any) -> bool:
        """Whether ``X`` stays a DataFrame: it has text columns, or the estimator is a Pipeline."""
        if not isinstance(X, pd.DataFrame):
            return False
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import Pipeline

        numeric = all(pd.api.types.is_numeric_dtype(t) and not isinstance(t, pd.CategoricalDtype) for t in X.dtypes)
        return not numeric or isinstance(self.estimator, Pipeline | ColumnTransformer)

    def _check(self, X: Any, y: Any, what: str = "X", frame: bool | None = None) -> tuple[Any, np.ndarray]:
        if frame is None:
            frame = self._frame_mode(X)
        if frame:
            if not isinstance(X, pd.DataFrame):
                raise DataError(f"{what} must be a DataFrame with the columns of X, as in fit; got "
                                f"{type(X).__name__}.")
            numeric = X.select_dtypes("number")
            if np.isinf(numeric.to_numpy(dtype=float)).any():
                raise DataError(f"{what} has infinite values; replace or drop them first.")
        else:
            try:
                X = np.asarray(X, dtype=float)
            except (TypeError, ValueError) as exc:
                raise DataError(f"{what} must be numeric (encode categories as codes first, or pass a DataFrame "
                                f"and a Pipeline that encodes them): {exc}") from None
        if y is None:
            raise DataError(f"Labels for {what} are missing; pass y{'_held' if what != 'X' else '_true'} with one "
                            "label per row.")
        y = np.asarray(y)
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.size:
            raise DataError(f"{what} must be 2-D with one row per label; got {what} {X.shape} and y {y.shape}.")
        if X.shape[0] == 0:
            raise DataError(f"{what} has no rows; give training rows of at least two classes.")
        if X.shape[1] == 0:
            raise DataError(f"{what} has no feature columns; give the features the models should use.")
        if not frame and (np.isinf(X).any() or (np.isnan(X).any() and not _allows_nan(self.estimator))):
            raise DataError(f"{what} has missing or infinite values, which {type(self.estimator).__name__} cannot "
                            "fit; impute or drop them first.")
        if (y.dtype.kind == "f" and np.isnan(y).any()) or (y.dtype.kind == "O" and pd.isna(y).any()):
            raise DataError(f"The labels have {int(pd.isna(y).sum())} missing values; drop those rows or fill them in.")
        try:
            classes = np.unique(y)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in y})
            raise DataError(f"The labels mix types {kinds}; use one type (e.g. all integers 0/1).") from None
        if classes.size < 2:
            raise DataError("The target has a single class; a classifier needs at least two.")
        if self.metric == "f1" and classes.size != 2:
            raise DataError(f'metric="f1" needs a binary target; this one has {classes.size} classes.')
        return X, y

    def _categorical_positions(self, X: Any) -> tuple[int, ...]:
        """``categorical_features`` as column positions (names allowed for a DataFrame), plus text columns."""
        cats = list(self.categorical_features or [])
        names = list(X.columns) if isinstance(X, pd.DataFrame) else None
        positions = []
        for j in cats:
            if isinstance(j, str):
                if names is None:
                    raise ConfigError(f"categorical_features must be a list of column positions (integers), e.g. "
                                      f"[0, 3]; got {cats!r} (column names need X as a DataFrame).")
                if j not in names:
                    raise ConfigError(f"categorical_features names {j!r}, which is not a column of X; columns: "
                                      f"{names[:12]}.")
                positions.append(names.index(j))
            else:
                positions.append(int(j))
        bad = [j for j in positions if not 0 <= j < X.shape[1]]
        if bad:
            raise ConfigError(f"categorical_features {bad} are not columns of X (it has {X.shape[1]}).")
        if isinstance(X, pd.DataFrame) and self._frame_mode(X):
            positions += [j for j, t in enumerate(X.dtypes)
                          if not pd.api.types.is_numeric_dtype(t) or isinstance(t, pd.CategoricalDtype)]
        return tuple(sorted(set(positions)))

    def _reference(self, X: Any, y: np.ndarray, X_held: Any, y_held: np.ndarray) -> None:
        from sklearn.model_selection import GridSearchCV

        if isinstance(self.reference, int | float):
            self.reference_params_, self.reference_score_ = {}, float(self.reference)
        elif isinstance(self.reference, str):
            if self.reference != "cv_best":
                raise ConfigError(f'reference must be "cv_best", a fitted estimator or a score; got {self.reference!r}')
            scoring = None if self.metric == "accuracy" else (
                self.metric if isinstance(self.metric, str) else _callable_scorer(self.metric))
            search = GridSearchCV(self.estimator, self.param_grid or {}, cv=self.cv, scoring=scoring,
                                  error_score="raise")
            try:
                search.fit(X, y)
            except FairprobeError:
                raise
            except (ValueError, TypeError) as exc:  # the estimator refused the data or a grid value
                detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
                raise ConfigError(f"{type(self.estimator).__name__} could not be fitted in the reference search: "
                                  f"{detail}. Check param_grid's values and the data.") from None
            self.reference_params_ = dict(search.best_params_)
            self.reference_score_ = self._objective(search.best_estimator_, X_held, y_held)
        else:
            if not hasattr(self.reference, "predict"):
                raise ConfigError("reference must be 'cv_best', a fitted estimator with predict, or a number.")
            self.reference_params_ = {}
            self.reference_score_ = self._objective(self.reference, X_held, y_held)

    def _objective(self, model: Any, X_held: Any, y_held: np.ndarray, cols: np.ndarray | None = None) -> float:
        pred = model.predict(_take(X_held, None, cols))
        value = _score(self.metric, y_held, pred)
        return value - self.penalty * float(self.complexity(model)) if self.penalty else value

    def _baseline(self, y: np.ndarray, y_held: np.ndarray) -> float:
        """Held-out score of always predicting the training majority class."""
        labels, counts = np.unique(y, return_counts=True)
        with warnings.catch_warnings():  # f1 of a constant prediction warns about an undefined precision
            warnings.simplefilter("ignore")
            return _score(self.metric, y_held, np.full(y_held.shape, labels[counts.argmax()]))

    def _groups(self, sensitive_features: Any, audit: Any) -> tuple[np.ndarray | None, str]:
        """The audit rows' groups: a column of the audit set, or an array aligned with it."""
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

    @positional_roles("y_true")
    def fit(self, data: Any, *, y_true: Any = None, X_held: Any = None, y_held: Any = None,
            sensitive_features: Any = None) -> RashomonSet:
        """Find the reference model, train the candidates, keep the Rashomon set and its audit results.

        With ``models=`` the given models are the set: ``fit`` predicts the audit rows (``X_held``
        when given, else ``data``) with each and scores them when their labels are given.

        Parameters
        ----------
        data : array-like or DataFrame (n, d)
            Training features (a DataFrame with text columns needs a Pipeline that encodes them);
            the column named by ``y_true`` is not a feature.
        y_true : str or array-like (n,)
            Training labels: a column name of ``data`` or one label per row (optional with
            ``models=``). ``fit(X, y)`` with positional labels still works, with a
            ``DeprecationWarning``.
        X_held, y_held : optional
            Rows that score the models and form the audit set. Without them a stratified 25 % split
            of ``data`` scores the models and the audit set is the whole of ``data``. ``y_held``
            may name a column of ``X_held``; by default a column of ``X_held`` named like
            ``y_true`` holds its labels.
        sensitive_features : str or array-like, optional
            A column name of the audit set (it stays a feature: drop it from the data first if the
            models must not see it), or one group per audit row: gives ``by_group_``.

        Returns
        -------
        RashomonSet
            ``self``, fitted.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(1)
        >>> X = rng.normal(size=(400, 2)); y = (X[:, 0] > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(), n_models=10, epsilon=0.05, random_state=0,
        ...                  progress=False).fit(X, y_true=y, sensitive_features=X[:, 1] > 0)
        >>> rs.audit_predictions_.shape[1], len(rs.by_group_)
        (400, 2)
        """
        from sklearn.model_selection import ParameterGrid

        for attr in self._fitted_attributes():  # a refit starts clean: no stale results of an earlier fit
            delattr(self, attr)
        self._check_params()
        X, X_held, y_true, y_held = _labels_by_name(data, X_held, y_true, y_held)
        if self.models is not None:
            return self._fit_given(X, y_true, X_held, y_held, sensitive_features)
        frame = self._frame_mode(X)
        columns = list(X.columns) if isinstance(X, pd.DataFrame) else None
        raw_X, raw_held = X, X_held  # the row identifiers and a sensitive column come from these
        X, y = self._check(X, y_true, frame=frame)
        categorical = self._categorical_positions(raw_X if isinstance(raw_X, pd.DataFrame) else X)
        rng = np.random.default_rng(self.random_state)  # a Generator is used (and advanced) as it is
        split_seed = (int(rng.integers(0, 2**32 - 1)) if isinstance(self.random_state, np.random.Generator)
                      else self.random_state)
        X, y, X_held, y_held, audit = self._held_out(X, y, X_held, y_held, columns, frame, split_seed)
        audit_raw = raw_X if raw_held is None else raw_held
        groups, group_name = self._groups(sensitive_features, audit_raw)
        audit_index = (audit_raw.index.copy() if isinstance(audit_raw, pd.DataFrame)
                       else pd.RangeIndex(audit.shape[0]))
        smallest = int(np.unique(y, return_counts=True)[1].min())
        if isinstance(self.reference, str) and smallest < self.cv:
            raise DataError(
                f"The smallest class has {smallest} training rows, fewer than the cv={self.cv} folds of the "
                "reference search; give more data, lower cv, or pass reference=<score or fitted model>.")
        grid = list(ParameterGrid(self.param_grid or {}))
        self._reference(X, y, X_held, y_held)
        baseline = self._baseline(y, y_held)
        if self.reference_score_ <= baseline + 1e-12:
            warnings.warn(f"The reference model scores {self.reference_score_:.4f} on the held-out data, no better "
                          f"than always predicting the majority class ({baseline:.4f}): its near-optimal models "
                          "may be near-constant, and their conflicts say little. Check the features and the "
                          "metric (e.g. metric='balanced_accuracy' for rare classes).", UserWarning, stacklevel=2)
        n, d = X.shape
        how = _Perturbation(self.feature_noise, categorical, self.category_flip, self.sampler)
        jobs = self._draw_jobs(rng, grid, n, d)
        # the audit set is the held-out set when given; otherwise every candidate also predicts X
        X_audit = audit if audit is not X_held else None
        results = self._fit_candidates(jobs, X, y, X_held, y_held, how, X_audit)
        self._select_members(results, jobs, baseline, X_audit)
        self.audit_index_ = audit_index
        self.n_features_in_ = d
        if columns is not None:
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.frame_mode_ = frame
        self._first_row_ = X.iloc[:1] if frame else None  # the constants of masked columns (feature_subsample)
        self._set_individual(groups, group_name)
        return self

    def _fit_given(self, X: Any, y_true: Any, X_held: Any, y_held: Any, sensitive_features: Any) -> RashomonSet:
        """``models=``: predict the audit rows with every given model; score them when labels are given.

        No training and no epsilon filter: the user's models are the set. The per-person results
        are computed as in :meth:`fit`, from the same prediction matrix.
        """
        audit_raw, labels = (X, y_true) if X_held is None else (X_held, y_held)
        if X_held is None and y_held is not None:
            raise DataError("y_held was given without X_held; with models= the audit rows are X_held when given, "
                            "else the data, and their labels y_true.")
        audit = audit_raw if isinstance(audit_raw, pd.DataFrame) else np.asarray(audit_raw)
        if audit.ndim != 2 or audit.shape[0] == 0:
            raise DataError(f"The audit rows must be 2-D with at least one row; got shape {audit.shape}.")
        P = []
        for i, model in enumerate(self.models):
            try:
                P.append(np.asarray(model.predict(audit)).ravel())
            except FairprobeError:
                raise
            except Exception as exc:  # an unfitted model, or columns it was not fitted on
                detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
                raise DataError(f"models[{i}] ({type(model).__name__}) could not predict the audit rows: {detail}. "
                                "Pass fitted models and rows with the columns they were fitted on.") from None
        if {p.shape for p in P} != {(audit.shape[0],)}:
            raise DataError(f"Every model must predict one label per audit row ({audit.shape[0]}); got "
                            f"{sorted({p.size for p in P})} predictions.")
        P = np.stack(P)
        if labels is not None:
            y = np.asarray(labels).ravel()
            if y.size != audit.shape[0]:
                raise DataError(f"The labels have {y.size} values for {audit.shape[0]} audit rows; give one per row.")
            scores = np.array([_score(self.metric, y, p) for p in P])
            with warnings.catch_warnings():  # f1 of a constant prediction warns about an undefined precision
                warnings.simplefilter("ignore")
                labels_, counts = np.unique(y, return_counts=True)
                baseline = _score(self.metric, y, np.full(y.shape, labels_[counts.argmax()]))
        else:
            scores, baseline = np.full(len(P), np.nan), np.nan
        groups, group_name = self._groups(sensitive_features, audit_raw)
        self.reference_params_ = {}
        self.reference_score_ = float(np.max(scores)) if labels is not None else np.nan
        self.candidate_scores_ = scores
        self.baseline_score_ = float(baseline)
        self.scores_ = scores
        d = audit.shape[1]
        self.columns_ = [np.arange(d)] * len(P)
        self.params_ = [{} for _ in P]
        self.held_predictions_ = self.audit_predictions_ = P
        self.models_ = list(self.models) if self.keep_models else None
        self.audit_index_ = (audit_raw.index.copy() if isinstance(audit_raw, pd.DataFrame)
                             else pd.RangeIndex(audit.shape[0]))
        self.n_features_in_ = d
        if isinstance(audit_raw, pd.DataFrame):
            self.feature_names_in_ = np.asarray(audit_raw.columns, dtype=object)
        self.frame_mode_ = isinstance(audit_raw, pd.DataFrame)
        self._first_row_ = audit_raw.iloc[:1] if self.frame_mode_ else None
        self._set_individual(groups, group_name)
        return self

    def _set_individual(self, groups: np.ndarray | None, group_name: str) -> None:
        """The per-person results of the audit set, computed once: to_frame, summary and figures read them."""
        individual = _individual(self.audit_predictions_, float(self.threshold))
        individual.index = self.audit_index_
        if groups is not None:
            individual.insert(0, group_name, groups)
            self.by_group_ = conflict_by_group(individual, group_name)
        else:
            self.by_group_ = None
        self.individual_ = individual
        self.convergence_ = _convergence(self.audit_predictions_)

    def _held_out(self, X: Any, y: np.ndarray, X_held: Any, y_held: Any, columns: list[Any] | None, frame: bool,
                  split_seed: Any) -> tuple[Any, np.ndarray, Any, np.ndarray, Any]:
        """Training and held-out rows (given, or a stratified 25 % split of ``X``) and the audit set.

        Separate from :meth:`fit`: the two ways to get held-out rows and their checks are one decision.
        Returns ``X, y, X_held, y_held, audit``; ``audit`` is the unsplit ``X`` when no ``X_held`` is given.
        """
        from sklearn.model_selection import train_test_split

        if X_held is None:
            if y_held is not None:
                raise DataError("y_held was given without X_held; pass both, or neither for a 25 % split of X.")
            audit = X
            counts = np.unique(y, return_counts=True)[1]
            n_held = math.ceil(0.25 * y.size)
            if counts.min() < 2 or n_held < counts.size or y.size - n_held < counts.size:
                raise DataError(
                    f"{y.size} rows with {counts.min()} in the smallest class are too few for a stratified 25 % "
                    "held-out split; give more rows (at least 2 per class, 4 per class to be safe) or pass "
                    "X_held and y_held.")
            X, X_held, y, y_held = train_test_split(X, y, test_size=0.25, random_state=split_seed, stratify=y)
        else:
            if columns is not None and isinstance(X_held, pd.DataFrame):
                missing = [c for c in columns if c not in X_held.columns]
                if missing:
                    raise DataError(f"X_held lacks the columns {missing[:5]} of X; give it the same columns.")
                X_held = X_held[columns]
            X_held, y_held = self._check(X_held, y_held, "X_held", frame=frame)
            if X_held.shape[1] != X.shape[1]:
                raise DataError(f"X_held has {X_held.shape[1]} columns; X has {X.shape[1]}.")
            audit = X_held
        return X, y, X_held, y_held, audit

    def _draw_jobs(self, rng: np.random.Generator, grid: list[dict[str, Any]], n: int,
                   d: int) -> list[tuple[dict[str, Any], np.ndarray | None, np.ndarray, int]]:
        """Each candidate's ``(params, rows, cols, seed)``, drawn from ``rng`` in a fixed order.

        Separate from :meth:`fit` so that the order of the random draws (which fixes the results
        for a seed) sits in one short loop.
        """
        size = max(2, round(self.subsample * n))
        jobs = []
        for _ in range(int(self.n_models)):
            params = grid[int(rng.integers(len(grid)))] if grid else {}
            if self.dataset_multiplicity == "bootstrap":
                rows = rng.integers(0, n, size)
            elif self.dataset_multiplicity == "subsample":
                rows = rng.choice(n, size=min(size, n), replace=False)
            else:
                rows = None
            k = d if not self.feature_subsample else max(1, round(self.feature_subsample * d))
            cols = np.sort(rng.choice(d, size=k, replace=False)) if k < d else np.arange(d)
            jobs.append((params, rows, cols, int(rng.integers(0, 2**31 - 1))))
        return jobs

    def _fit_candidates(self, jobs: list[tuple[dict[str, Any], np.ndarray | None, np.ndarray, int]], X: Any,
                        y: np.ndarray, X_held: Any, y_held: np.ndarray, how: _Perturbation,
                        X_audit: Any) -> list[tuple[Any, ...]]:
        """Fit and score every candidate (in parallel when ``n_jobs`` asks), with a progress bar.

        Separate from :meth:`fit`: the parallel run and the translation of an estimator's refusal
        into a ``DataError`` are one step. Returns one ``_fit_candidate`` result per job, in order.
        """
        from joblib import Parallel, delayed, parallel_config

        from fairprobe.core.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

        bar = tqdm(total=len(jobs), desc="Rashomon candidates", disable=not self.progress)
        backend = self.parallel_backend or ("sequential" if self.n_jobs in (None, 1) else "loky")
        try:
            with parallel_config(backend=backend, n_jobs=self.n_jobs if self.n_jobs is not None else 1):
                gen = Parallel(return_as="generator")(
                    delayed(_fit_candidate)(self.estimator, p, X, y, X_held, y_held, rows, cols, how, self.metric, s,
                                            X_audit)
                    for p, rows, cols, s in jobs)
                results = []
                for item in gen:
                    results.append(item)
                    bar.update()
        except FairprobeError:
            raise
        except (ValueError, TypeError) as exc:  # e.g. a bootstrap sample with one class for LogisticRegression
            detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise DataError(f"A candidate {type(self.estimator).__name__} could not be fitted: {detail}. Use larger "
                            "samples (subsample), fewer perturbations, or a model that accepts such data.") from None
        finally:
            bar.close()
        return results

    def _select_members(self, results: list[tuple[Any, ...]],
                        jobs: list[tuple[dict[str, Any], np.ndarray | None, np.ndarray, int]], baseline: float,
                        X_audit: Any) -> None:
        """Keep the candidates within ``epsilon`` of the reference; store their scores, columns and predictions.

        Separate from :meth:`fit`: it decides the Rashomon set (or raises when it is empty) and sets
        the fitted attributes that describe its members.
        """
        scores = np.array([r[2] for r in results])
        if self.penalty:
            scores = scores - self.penalty * np.array([float(self.complexity(r[0])) for r in results])
        keep = scores >= self.reference_score_ - self.epsilon
        if not keep.any():
            raise DataError(
                f"The Rashomon set is empty: the best candidate scores {scores.max():.4f} against the reference "
                f"{self.reference_score_:.4f} - epsilon {self.epsilon}; increase epsilon or the training size.")
        members = np.flatnonzero(keep)
        self.candidate_scores_ = scores
        self.baseline_score_ = float(baseline)
        self.scores_ = scores[keep]
        self.columns_ = [jobs[i][2] for i in members]
        self.params_ = [jobs[i][0] for i in members]
        self.held_predictions_ = np.stack([results[i][1] for i in members])
        self.audit_predictions_ = (self.held_predictions_ if X_audit is None
                                   else np.stack([results[i][3] for i in members]))
        self.models_ = [results[i][0] for i in members] if self.keep_models else None

    # -- the audit set (fitted state) ------------------------------------------------------------
    def check_is_fitted(self) -> None:
        """Raise :class:`~fairprobe.exceptions.NotFittedError` unless :meth:`fit` has completed.

        Examples
        --------
        >>> from fairprobe.exceptions import NotFittedError
        >>> try:
        ...     RashomonSet(estimator=None).summary()
        ... except NotFittedError:
        ...     print("not fitted")
        not fitted
        """
        if "individual_" not in vars(self):  # a fit that failed half-way leaves no usable state
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet; call {type(self).__name__}"
                                 "(estimator=...).fit(data, y_true=...) before using its results.")

    def _predictions(self, X: Any) -> np.ndarray:
        """The members' predictions on ``X``, or on the audit set when ``X`` is None."""
        self.check_is_fitted()
        return self.audit_predictions_ if X is None else self.predict_matrix(X)

    def summary(self) -> Summary:
        """The Rashomon set and the audit set's conflicts in a few lines (tables: groups, contested rows).

        Returns
        -------
        Summary

        Examples
        --------
        >>> rs = RashomonSet.example().fit()
        >>> "models within 0.02 of the reference balanced_accuracy" in rs.summary()
        True
        """
        self.check_is_fitted()
        table = self.individual_
        metric = self.metric if isinstance(self.metric, str) else "score"
        if self.models is None:
            head = (f"{len(self.scores_)} of {self.n_models} models within {self.epsilon:g} of the reference {metric} "
                    f"{self.reference_score_:.4f} (majority-class baseline {self.baseline_score_:.4f})")
        elif np.isfinite(self.scores_).all():
            head = (f"{len(self.scores_)} given models (fitted by the user, not filtered): {metric} "
                    f"{np.min(self.scores_):.4f} to {np.max(self.scores_):.4f} on the audit set (majority-class "
                    f"baseline {self.baseline_score_:.4f})")
        else:
            head = f"{len(self.scores_)} given models (fitted by the user, not filtered; no labels, so no scores)"
        lines = [head,
                 f"audit set: {len(table)} rows; ambiguity {float(np.mean(table.conflict_ratio > 0)):.3f}; "
                 f"{int(table.flagged.sum())} rows ({table.flagged.mean():.1%}) with conflict ratio > "
                 f"{float(self.threshold):g}"]
        caution = self.trivial_reference_note()
        if caution:
            lines.insert(1, f"caution: {caution}")
        tables = {}
        if self.by_group_ is not None:
            for group, row in self.by_group_.iterrows():
                caveat = f" ({too_few_text(f'{int(row.rows)} rows')})" if row.too_few else ""
                lines.append(f"  group {group}: {int(row.rows)} rows, mean conflict {row.mean_conflict:.3f}, "
                             f"flagged {row.flagged_share:.1%}{caveat}")
            tables["conflict by group"] = self.by_group_.round(4)
        tables["most contested rows"] = table.sort_values("conflict_ratio", ascending=False).head(15).round(3)
        tables["convergence"] = self.convergence_.round(4)
        return Summary("\n".join(lines), title="Predictive multiplicity (Rashomon set)", tables=tables)

    def trivial_reference_note(self) -> str:
        """Why the multiplicity figures are no headline, when the reference model is trivial ("" otherwise).

        A reference model no better than always predicting the majority class makes near-trivial
        models near-optimal; their disagreement says how arbitrary a useless model is, not how
        arbitrary this data's decisions are.

        Returns
        -------
        str

        Examples
        --------
        >>> RashomonSet.example().fit().trivial_reference_note()
        ''
        """
        self.check_is_fitted()
        if self.models is not None or not np.isfinite(self.baseline_score_):
            return ""
        if self.reference_score_ > self.baseline_score_ + 1e-12:
            return ""
        metric = self.metric if isinstance(self.metric, str) else "score"
        return (f"the reference model's {metric} {self.reference_score_:.4f} is no better than always predicting "
                f"the majority class ({self.baseline_score_:.4f}), so near-trivial models are near-optimal: the "
                "ambiguity and conflict figures describe how arbitrary a useless model is, not this data's "
                "decisions; use a better model or metric (e.g. balanced_accuracy) before reading them")

    def to_frame(self) -> pd.DataFrame:
        """The individual report on the audit set, indexed by its row identifiers.

        Returns
        -------
        DataFrame
            Per audit row: the group (with ``sensitive_features``), the majority prediction, the
            conflict ratio, ``flagged`` (above ``threshold``) and the share of members per class.

        Examples
        --------
        >>> rs = RashomonSet.example().fit()
        >>> list(rs.to_frame().columns[:4])
        ['group', 'majority', 'conflict_ratio', 'flagged']
        """
        self.check_is_fitted()
        return self.individual_.copy()

    def figures(self) -> dict[str, Callable[..., Any]]:
        """The conflict-ratio histogram and the delta-ambiguity curve of the audit set (and conflicts by group).

        Returns
        -------
        dict of str to callable
            Each ``plot(*, ax=None) -> Axes``.

        Examples
        --------
        >>> rs = RashomonSet.example().fit()
        >>> sorted(rs.figures())
        ['ambiguity', 'conflict by group', 'conflict ratios']
        """
        from fairprobe.plugins.rashomon import plots

        self.check_is_fitted()
        P = self.audit_predictions_
        figs: dict[str, Callable[..., Any]] = {
            "conflict ratios": lambda *, ax=None: plots.plot_conflict_histogram(P, ax=ax),
            "ambiguity": lambda *, ax=None: plots.plot_ambiguity_curves({"Rashomon set": P}, ax=ax)}
        if self.by_group_ is not None:
            by_group = self.by_group_
            figs["conflict by group"] = lambda *, ax=None: plots.plot_group_conflict(by_group, ax=ax)
        return figs

    def report_section(self, report: Report, title: str | None = None) -> Any:
        """Add the Rashomon set's section (summary, figures, individual report, tables) to ``report``.

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The report to add the section to.
        title : str, optional
            Section heading (default: the analysis's description).

        Returns
        -------
        fairprobe.reporting.report.Section

        Examples
        --------
        >>> from fairprobe.reporting.report import Report
        >>> sec = RashomonSet.example().fit().report_section(Report("t"))
        >>> "conflict ratio of a row" in sec.notes[-1]
        True
        """
        sec = super().report_section(report, title)
        sec.add_note("The conflict ratio of a row is the share of near-optimal models that disagree with the "
                     "majority decision (0 to 0.5 for two classes); rows above the threshold are flagged.")
        return sec

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        """Decision trees behind a one-hot encoding on 1,200 synthetic loan applicants, audited by group.

        Parameters
        ----------
        seed : int
            Seed of the generated data and of the analysis.

        Returns
        -------
        Example

        Examples
        --------
        >>> ex = RashomonSet.example()
        >>> ex.fit().by_group_.index.tolist()
        [0, 1]
        """
        from sklearn.compose import make_column_transformer
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder
        from sklearn.tree import DecisionTreeClassifier

        from fairprobe.datasets import make_lending_scenario

        audit = make_lending_scenario(1200, seed=seed).audit_frame
        X = audit[["age", "income", "education", "region", "employed"]].astype({"education": str, "region": str})
        # text columns chosen by type, not by name: the same estimator fits any table (the web app
        # fits it on a user's columns)
        encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), text_columns),
                                         remainder="passthrough")
        model = make_pipeline(encode, DecisionTreeClassifier(min_samples_leaf=10))
        # balanced accuracy: defaults are rare, and plain accuracy barely beats always predicting "no default"
        rs = cls(estimator=model, param_grid={"decisiontreeclassifier__max_depth": [3, 4, 6]}, epsilon=0.02,
                 n_models=12, subsample=0.5, cv=3, metric="balanced_accuracy", random_state=seed, progress=False)
        return Example(rs, X, {"y_true": audit["default"].to_numpy(), "sensitive_features": audit["group"]})

    @classmethod
    def demo(cls, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
             progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
        """The Rashomon-set step of ``fairprobe demo`` (see :func:`fairprobe.plugins.rashomon.demo.demo_step`).

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The demo's report; the step adds its section.
        scenario : fairprobe.datasets.Scenario
            The demo's lending scenario.
        facts : dict
            Findings for ``summary.json``.
        quick : bool
            Fewer models.
        seed : int
            Random seed.
        n_jobs : int
            Parallel workers.
        progress : bool
            Show progress bars.

        Returns
        -------
        found : dict of str to bool
            Injected problems of the scenario this step detected.
        table : DataFrame
            The step's main table.
        lines : list of str
            One finding line.

        Examples
        --------
        The step takes seconds (it trains dozens of trees); ``fairprobe demo`` runs it under this heading:

        >>> RashomonSet.demo_title, RashomonSet.demo_order
        ('predictive multiplicity (Rashomon set)', 30)
        """
        from fairprobe.plugins.rashomon.demo import demo_step  # the step module does not import this one

        return demo_step(cls, report, scenario, facts, quick=quick, seed=seed, n_jobs=n_jobs, progress=progress)

    # -- measures (on new data, or on the audit set when X is None) ------------------------------
    def predict_matrix(self, X: Any = None) -> np.ndarray:
        """Predictions of every member on ``X`` (default: the audit set): (n_models, n_points).

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data.

        Returns
        -------
        ndarray
            Labels predicted by each member, one row per member.

        Raises
        ------
        ConfigError
            ``X`` given but the members were not kept (``keep_models=False``).
        DataError
            ``X`` lacks columns of the training data, or is not numeric or finite where it must be.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> rs.predict_matrix(X[:5]).shape, rs.predict_matrix().shape
        ((10, 5), (10, 300))
        """
        self.check_is_fitted()
        if X is None:
            return self.audit_predictions_
        if self.models_ is None:
            raise ConfigError("No fitted models kept (keep_models=False): only the audit set's predictions "
                              "(audit_predictions_, predict_matrix() without X) are available.")
        names = getattr(self, "feature_names_in_", None)
        if names is not None and isinstance(X, pd.DataFrame):
            missing = [c for c in names if c not in X.columns]
            if missing:
                raise DataError(f"X lacks the columns {missing[:5]} of the training data; give it the same columns.")
            X = X[list(names)]
        if self.frame_mode_:
            if not isinstance(X, pd.DataFrame):
                raise DataError(f"X must be a DataFrame with the columns {list(names)[:12]}, as in fit; got "
                                f"{type(X).__name__}.")
            train_first = self._first_row_
            return np.stack([m.predict(_take_like(X, cols, train_first))
                             for m, cols in zip(self.models_, self.columns_, strict=True)])
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"X must be numeric, coded as in fit: {exc}") from None
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise DataError(f"X must have {self.n_features_in_} columns, as in fit; got shape {X.shape}.")
        if np.isinf(X).any() or (np.isnan(X).any() and not _allows_nan(self.estimator)):
            raise DataError("X has missing or infinite values; impute or drop them first (as for fit).")
        return np.stack([m.predict(X[:, cols]) for m, cols in zip(self.models_, self.columns_, strict=True)])

    def conflict_ratio(self, X: Any = None) -> np.ndarray:
        """Per-point conflict ratio of the set on ``X`` (default: the audit set).

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).

        Returns
        -------
        ndarray of float
            Share of members disagreeing with the majority, per row.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> rs.conflict_ratio(X[:5]).tolist()
        [0.1, 0.3, 0.0, 0.0, 0.0]
        """
        return conflict_ratio(self._predictions(X))

    def delta_ambiguity(self, X: Any = None, delta: float = 0.0) -> float:
        """Share of points of ``X`` (default: the audit set) with conflict ratio above ``delta``.

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).
        delta : float
            Threshold on the conflict ratio (0: the standard ambiguity).

        Returns
        -------
        float

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> round(rs.delta_ambiguity(), 3), round(rs.delta_ambiguity(X, delta=0.2), 3)
        (0.487, 0.28)
        """
        return delta_ambiguity(self._predictions(X), delta)

    def ambiguity_curve(self, X: Any = None, deltas: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """delta-ambiguity over a grid of delta, on ``X`` (default: the audit set).

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).
        deltas : array-like of float, optional
            Thresholds (default 51 points in [0, 0.5]).

        Returns
        -------
        deltas, ambiguity : ndarray
            The grid and the delta-ambiguity at each of its points.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> grid, amb = rs.ambiguity_curve(deltas=[0, 0.1, 0.3])
        >>> amb.round(3).tolist()
        [0.487, 0.38, 0.2]
        """
        return ambiguity_curve(self._predictions(X), deltas)

    def convergence(self, X: Any = None, deltas: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4), steps: int = 20,
                    random_state: int | None = 0) -> pd.DataFrame:
        """delta-ambiguity and mean conflict ratio as members are added (in a random order).

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).
        deltas : tuple of float
            Thresholds of the delta-ambiguity columns.
        steps : int
            Number of set sizes (rows of the table).
        random_state : int or None
            Seed of the order in which members are added.

        Returns
        -------
        DataFrame
            ``n_models``, ``mean_conflict`` and one ``ambiguity_<delta>`` column per threshold.

        Raises
        ------
        ConfigError
            ``steps`` not a positive integer, or a threshold out of range.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> table = rs.convergence(steps=3)
        >>> table["n_models"].tolist(), list(table.columns[:3])
        ([1, 6, 10], ['n_models', 'mean_conflict', 'ambiguity_0'])
        """
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
            raise ConfigError(f"steps must be a positive integer (set sizes in the table, e.g. 20); got {steps!r}.")
        for d in deltas:
            _check_threshold(d, "each of deltas")
        return _convergence(self._predictions(X), tuple(float(d) for d in deltas), int(steps), random_state)

    def individual_report(self, X: Any = None, threshold: float | None = None) -> pd.DataFrame:
        """Per row of ``X``: majority prediction, conflict ratio, flag above ``threshold``, share per class.

        Without ``X`` (and ``threshold``) this is :meth:`to_frame`. The rows keep ``X``'s index
        when it is a DataFrame.

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).
        threshold : float, optional
            Rows with a conflict ratio above it are flagged (default: the ``threshold`` parameter).

        Returns
        -------
        DataFrame
            Columns ``majority``, ``conflict_ratio``, ``flagged`` and ``share_<class>``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> print(rs.individual_report(X[:3], threshold=0.1))
           majority  conflict_ratio  flagged  share_0  share_1
        0         1             0.1    False      0.1      0.9
        1         1             0.3     True      0.3      0.7
        2         0             0.0    False      1.0      0.0
        """
        if X is None and threshold is None:
            return self.to_frame()
        threshold = self.threshold if threshold is None else threshold
        _check_threshold(threshold)
        table = _individual(self._predictions(X), threshold)
        if isinstance(X, pd.DataFrame):
            table.index = X.index
        elif X is None:
            table.index = self.audit_index_
        return table

    # -- plots -----------------------------------------------------------------------------------
    def plot_conflict_histogram(self, X: Any = None, ax: Any = None) -> Any:
        """Histogram of the conflict ratios on ``X`` (default: the audit set).

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> rs.plot_conflict_histogram().get_xlabel()
        'conflict ratio'
        >>> plt.close("all")
        """
        from fairprobe.plugins.rashomon.plots import plot_conflict_histogram

        return plot_conflict_histogram(self._predictions(X), ax=ax)

    def plot_ambiguity_curve(self, X: Any = None, ax: Any = None, label: str = "Rashomon set") -> Any:
        """The delta-ambiguity curve on ``X`` (default: the audit set).

        Parameters
        ----------
        X : array-like or DataFrame, optional
            Rows with the columns of the training data (default: the audit set).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        label : str
            Legend entry of the curve.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> [line.get_label() for line in rs.plot_ambiguity_curve(label="trees").lines]
        ['trees']
        >>> plt.close("all")
        """
        from fairprobe.plugins.rashomon.plots import plot_ambiguity_curves

        return plot_ambiguity_curves({label: self._predictions(X)}, ax=ax)

    def plot_scatter(self, X: Any, features: tuple[int, int] = (0, 1), ax: Any = None) -> Any:
        """Two numeric features of ``X`` (column positions) coloured by conflict ratio.

        Parameters
        ----------
        X : array-like or DataFrame
            Rows with the columns of the training data.
        features : (int, int)
            Column positions of ``X`` on the horizontal and vertical axes.
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        DataError
            ``features`` are not two column positions of ``X``.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3), epsilon=0.05, n_models=10, reference=0.7,
        ...                  random_state=0, progress=False).fit(X, y_true=y)
        >>> rs.plot_scatter(X, features=(0, 1)).get_xlabel()
        'feature 0'
        >>> plt.close("all")
        """
        from fairprobe.plugins.rashomon.plots import plot_conflict_scatter

        P = self.predict_matrix(X)
        if (len(features) != 2 or not all(isinstance(j, numbers.Integral) and 0 <= j < self.n_features_in_
                                           for j in features)):
            raise DataError(f"features must be two column positions of X, in [0, {self.n_features_in_}); got "
                            f"{features!r}.")
        values = X.iloc[:, list(features)] if isinstance(X, pd.DataFrame) else np.asarray(X)[:, list(features)]
        return plot_conflict_scatter(np.asarray(values, dtype=float), P, (0, 1), ax=ax)


def _labels_by_name(data: Any, X_held: Any, y_true: Any, y_held: Any) -> tuple[Any, Any, Any, Any]:
    """Labels given as column names, taken out of the features: ``y_true`` of ``data``, ``y_held`` of ``X_held``.

    Without ``y_held``, a column of ``X_held`` named like ``y_true`` holds the held-out labels.
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


def _allows_nan(estimator: Any) -> bool:
    """Whether a scikit-learn estimator declares that it fits data with missing values."""
    try:
        return bool(estimator.__sklearn_tags__().input_tags.allow_nan)
    except Exception:  # not a scikit-learn estimator, or an older tag API: assume it does not
        return False


def _check_threshold(threshold: Any, name: str = "threshold") -> float:
    """A conflict-ratio threshold: a number in [0, 1)."""
    return check_number(name, threshold, low=0.0, high=1.0 - 1e-12,
                         hint=" (a conflict ratio, in [0, 0.5] for two classes, e.g. 0.2)")


def _callable_scorer(metric: Callable[[np.ndarray, np.ndarray], float]) -> Any:
    from sklearn.metrics import make_scorer

    return make_scorer(metric)


def _convergence(P: np.ndarray, deltas: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4), steps: int = 20,
                 random_state: int | None = 0) -> pd.DataFrame:
    order = np.random.default_rng(random_state).permutation(P.shape[0])
    sizes = np.unique(np.linspace(1, P.shape[0], min(steps, P.shape[0])).round().astype(int))
    rows = []
    for k in sizes:
        c = conflict_ratio(P[order[:k]])
        rows.append({"n_models": int(k), "mean_conflict": float(c.mean()),
                     **{f"ambiguity_{d:g}": float(np.mean(c > d)) for d in deltas}})
    return pd.DataFrame(rows)


def _individual(P: np.ndarray, threshold: float) -> pd.DataFrame:
    labels = np.unique(P)
    shares = {f"share_{lab}": (P == lab).mean(axis=0) for lab in labels}
    counts = np.stack([(P == lab).sum(axis=0) for lab in labels])
    c = conflict_ratio(P)
    return pd.DataFrame({"majority": labels[counts.argmax(axis=0)], "conflict_ratio": c,
                         "flagged": c > threshold, **shares})


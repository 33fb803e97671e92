"""Rashomon sets by the ad-hoc approach: many near-optimal models of any scikit-learn classifier.

The reference model ``g0`` is the cross-validated best of ``param_grid`` (refit on the training
data); its held-out score is the bar. Candidate models vary hyperparameters (drawn from the
grid), seeds and the data they see (bootstrap or subsample of a given size, a random feature
subset, Gaussian noise on the features); those scoring within ``epsilon`` of ``g0`` on the
held-out data form the Rashomon set (Definition 4.1 of the seed paper).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.core.validate import check_number as _check_number
from fairprobe.exceptions import ConfigError, DataError, FairprobeError
from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_ratio, delta_ambiguity

__all__ = ["RashomonSet"]

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


def _fit_candidate(estimator: Any, params: dict[str, Any], X: np.ndarray, y: np.ndarray, X_held: np.ndarray,
                   y_held: np.ndarray, rows: np.ndarray | None, cols: np.ndarray, how: _Perturbation, metric: Any,
                   seed: int) -> tuple[Any, np.ndarray, float]:
    from sklearn.base import clone

    model = clone(estimator).set_params(**params)
    if "random_state" in model.get_params():
        model.set_params(random_state=seed)
    rng = np.random.default_rng(seed)
    if how.sampler is not None:  # a fresh sample from the data-generating process
        try:
            X, y = how.sampler(rng)
            X, y = np.asarray(X, dtype=float), np.asarray(y).ravel()
        except (TypeError, ValueError) as exc:
            raise DataError(f"sampler(rng) must return (X, y) with numeric X; it failed: {exc}") from None
        if X.ndim != 2 or X.shape[0] != y.size or X.shape[1] != X_held.shape[1]:
            raise DataError(f"sampler(rng) returned X {X.shape} and y {y.shape}; it must return one label per row "
                            f"and {X_held.shape[1]} columns, as the training data.")
        rows = None
    Xs = X[:, cols] if rows is None else X[np.ix_(rows, cols)]
    ys = y if rows is None else y[rows]
    sub = _Perturbation(how.noise, tuple(int(np.searchsorted(cols, j)) for j in how.categorical if j in cols),
                        how.flip, None)
    model.fit(_perturb(Xs, sub, rng), ys)
    pred = model.predict(X_held[:, cols])
    return model, pred, _score(metric, y_held, pred)


class RashomonSet:
    """A Rashomon set of near-optimal models built by parametric and dataset multiplicity.

    Parameters
    ----------
    estimator : scikit-learn classifier
    param_grid : dict of lists, optional
        Hyperparameters searched for the reference model and drawn for each candidate.
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
        Fraction of features each candidate sees (a random subset per candidate).
    feature_noise : float, optional
        Standard deviation of Gaussian noise added to each candidate's numeric training features.
    categorical_features : list of int, optional
        Columns holding category codes: they get no Gaussian noise but are switched to another
        observed level with probability ``category_flip``.
    category_flip : float, optional
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
    cv : int
        Folds of the reference model's search.
    random_state : int, optional
    n_jobs : int, optional
        joblib workers for training (-1: all cores).
    parallel_backend : str, optional
        joblib backend; ``"dask"`` runs on the active ``dask.distributed`` client.
    keep_models : bool
        Keep the fitted members (``False`` keeps only their held-out predictions).
    progress : bool

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 2)); y = (X[:, 0] + rng.normal(0, 1, 600) > 0).astype(int)
    >>> rs = RashomonSet(DecisionTreeClassifier(), param_grid={"max_depth": [2, 3, 4]}, epsilon=0.05,
    ...                  n_models=30, random_state=0, progress=False).fit(X, y)
    >>> 0 < len(rs.scores_) <= 30, float(rs.conflict_ratio(X).max()) <= 0.5
    (True, True)
    """

    name: ClassVar[str] = "rashomon"
    description: ClassVar[str] = "Rashomon sets, conflict ratios and delta-ambiguity"

    def __init__(self, estimator: Any, *, param_grid: dict[str, list[Any]] | None = None, epsilon: float = 0.01,
                 n_models: int = 200, dataset_multiplicity: str = "bootstrap", subsample: float = 1.0,
                 feature_subsample: float | None = None, feature_noise: float | None = None,
                 categorical_features: list[int] | None = None, category_flip: float | None = None,
                 sampler: Callable[[np.random.Generator], tuple[Any, Any]] | None = None, metric: Any = "accuracy",
                 reference: Any = "cv_best", complexity: Callable[[Any], float] | None = None, penalty: float = 0.0,
                 cv: int = 5, random_state: int | None = None, n_jobs: int | None = None,
                 parallel_backend: str | None = None, keep_models: bool = True, progress: bool = True) -> None:
        self.estimator = estimator
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
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.parallel_backend = parallel_backend
        self.keep_models = keep_models
        self.progress = progress

    def _check_params(self) -> None:
        """Every parameter, before any data is touched; ConfigError naming the parameter and the fix."""
        est = self.estimator
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
        _check_number("epsilon", self.epsilon, low=0.0, hint=" (the tolerance in score units, e.g. 0.01)")
        if isinstance(self.n_models, bool) or not isinstance(self.n_models, numbers.Integral) or self.n_models < 1:
            raise ConfigError(f"n_models must be a positive integer (e.g. 200); got {self.n_models!r}.")
        if self.dataset_multiplicity == "bootstrap":
            _check_number("subsample", self.subsample, low=0.0, low_open=True,
                          hint=" (the bootstrap size as a share of the training rows, e.g. 1.0)")
        else:
            _check_number("subsample", self.subsample, low=0.0, high=1.0, low_open=True,
                          hint=" (a share of the training rows, in (0, 1])")
        _check_number("feature_subsample", self.feature_subsample, low=0.0, high=1.0, low_open=True, optional=True,
                      hint=" (the share of features each model sees, in (0, 1])")
        _check_number("feature_noise", self.feature_noise, low=0.0, optional=True,
                      hint=" (a standard deviation, >= 0)")
        _check_number("category_flip", self.category_flip, low=0.0, high=1.0, optional=True,
                      hint=" (a probability, in [0, 1])")
        _check_number("penalty", self.penalty, low=0.0, hint=" (the weight of complexity(model), >= 0)")
        if self.penalty and self.complexity is None:
            raise ConfigError("penalty needs complexity=callable(model) -> float (e.g. the number of leaves).")
        if self.complexity is not None and not callable(self.complexity):
            raise ConfigError(f"complexity must be a function complexity(model) -> float; got {self.complexity!r}.")
        if not callable(self.metric) and self.metric not in _METRICS:
            raise ConfigError(f"metric must be one of {_METRICS} or a callable(y_true, y_pred); got {self.metric!r}.")
        if isinstance(self.reference, str) and (isinstance(self.cv, bool) or not isinstance(self.cv, numbers.Integral)
                                                or self.cv < 2):
            raise ConfigError(f"cv must be an integer >= 2 (folds of the reference search); got {self.cv!r}.")
        rs = self.random_state
        if rs is not None and (isinstance(rs, bool) or not isinstance(rs, numbers.Integral) or not 0 <= rs < 2**32):
            raise ConfigError(f"random_state must be None or an integer in [0, 2**32); got {rs!r}.")
        jobs = self.n_jobs
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs == 0):
            raise ConfigError(f"n_jobs must be a non-zero integer (-1 for all cores) or None; got {jobs!r}.")
        cats = self.categorical_features or []
        if isinstance(cats, str | int) or not all(isinstance(j, numbers.Integral) and not isinstance(j, bool)
                                                   for j in cats):
            raise ConfigError(f"categorical_features must be a list of column positions (integers), e.g. [0, 3]; "
                              f"got {cats!r}.")

    def _check(self, X: Any, y: Any, what: str = "X") -> tuple[np.ndarray, np.ndarray]:
        self._check_params()
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"{what} must be numeric (encode categories as codes first): {exc}") from None
        if y is None:
            raise DataError(f"Labels for {what} are missing; pass y{'_held' if what != 'X' else ''} with one label "
                            "per row.")
        y = np.asarray(y)
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.size:
            raise DataError(f"{what} must be 2-D with one row per label; got {what} {X.shape} and y {y.shape}.")
        if X.shape[0] == 0:
            raise DataError(f"{what} has no rows; give training rows of at least two classes.")
        if X.shape[1] == 0:
            raise DataError(f"{what} has no feature columns; give the features the models should use.")
        if np.isinf(X).any() or (np.isnan(X).any() and not _allows_nan(self.estimator)):
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
        bad = [j for j in self.categorical_features or [] if not 0 <= j < X.shape[1]]
        if bad:
            raise ConfigError(f"categorical_features {bad} are not columns of X (it has {X.shape[1]}).")
        return X, y

    def _reference(self, X: np.ndarray, y: np.ndarray, X_held: np.ndarray, y_held: np.ndarray) -> None:
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

    def _objective(self, model: Any, X_held: np.ndarray, y_held: np.ndarray, cols: np.ndarray | None = None) -> float:
        pred = model.predict(X_held if cols is None else X_held[:, cols])
        value = _score(self.metric, y_held, pred)
        return value - self.penalty * float(self.complexity(model)) if self.penalty else value

    def fit(self, X: Any, y: Any, X_held: Any = None, y_held: Any = None) -> RashomonSet:
        """Find the reference model, train the candidates, keep the Rashomon set.

        ``X_held``/``y_held`` score the models (default: a stratified 25 % split of ``X``, ``y``).
        """
        from joblib import Parallel, delayed, parallel_config
        from sklearn.model_selection import ParameterGrid, train_test_split

        from fairprobe.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

        X, y = self._check(X, y)
        if X_held is None:
            if y_held is not None:
                raise DataError("y_held was given without X_held; pass both, or neither for a 25 % split of X.")
            counts = np.unique(y, return_counts=True)[1]
            n_held = math.ceil(0.25 * y.size)
            if counts.min() < 2 or n_held < counts.size or y.size - n_held < counts.size:
                raise DataError(
                    f"{y.size} rows with {counts.min()} in the smallest class are too few for a stratified 25 % "
                    "held-out split; give more rows (at least 2 per class, 4 per class to be safe) or pass "
                    "X_held and y_held.")
            X, X_held, y, y_held = train_test_split(X, y, test_size=0.25, random_state=self.random_state, stratify=y)
        else:
            X_held, y_held = self._check(X_held, y_held, "X_held")
            if X_held.shape[1] != X.shape[1]:
                raise DataError(f"X_held has {X_held.shape[1]} columns; X has {X.shape[1]}.")
        smallest = int(np.unique(y, return_counts=True)[1].min())
        if isinstance(self.reference, str) and smallest < self.cv:
            raise DataError(
                f"The smallest class has {smallest} training rows, fewer than the cv={self.cv} folds of the "
                "reference search; give more data, lower cv, or pass reference=<score or fitted model>.")
        rng = np.random.default_rng(self.random_state)
        grid = list(ParameterGrid(self.param_grid or {}))
        self._reference(X, y, X_held, y_held)
        n, d = X.shape
        size = max(2, round(self.subsample * n))
        how = _Perturbation(self.feature_noise, tuple(self.categorical_features or ()), self.category_flip,
                            self.sampler)
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
        bar = tqdm(total=len(jobs), desc="Rashomon candidates", disable=not self.progress)
        backend = self.parallel_backend or ("sequential" if self.n_jobs in (None, 1) else "loky")
        try:
            with parallel_config(backend=backend, n_jobs=self.n_jobs if self.n_jobs is not None else 1):
                gen = Parallel(return_as="generator")(
                    delayed(_fit_candidate)(self.estimator, p, X, y, X_held, y_held, rows, cols, how, self.metric, s)
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
        scores = np.array([s for _, _, s in results])
        if self.penalty:
            scores = scores - self.penalty * np.array([float(self.complexity(m)) for m, _, _ in results])
        keep = scores >= self.reference_score_ - self.epsilon
        self.candidate_scores_ = scores
        if not keep.any():
            raise DataError(
                f"The Rashomon set is empty: the best candidate scores {scores.max():.4f} against the reference "
                f"{self.reference_score_:.4f} - epsilon {self.epsilon}; increase epsilon or the training size.")
        self.scores_ = scores[keep]
        self.columns_ = [jobs[i][2] for i in np.nonzero(keep)[0]]
        self.params_ = [jobs[i][0] for i in np.nonzero(keep)[0]]
        self.held_predictions_ = np.stack([results[i][1] for i in np.nonzero(keep)[0]])
        self.models_ = [results[i][0] for i in np.nonzero(keep)[0]] if self.keep_models else None
        self.n_features_in_ = d
        return self

    # -- measures on new data -------------------------------------------------------------------
    def predict_matrix(self, X: Any) -> np.ndarray:
        """Predictions of every member on ``X``: (n_models, n_points)."""
        if getattr(self, "models_", None) is None:
            raise ConfigError("No fitted models kept (fit first, with keep_models=True).")
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"X must be numeric, coded as in fit: {exc}") from None
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise DataError(f"X must have {self.n_features_in_} columns, as in fit; got shape {X.shape}.")
        if np.isinf(X).any() or (np.isnan(X).any() and not _allows_nan(self.estimator)):
            raise DataError("X has missing or infinite values; impute or drop them first (as for fit).")
        return np.stack([m.predict(X[:, cols]) for m, cols in zip(self.models_, self.columns_, strict=True)])

    def conflict_ratio(self, X: Any) -> np.ndarray:
        """Per-point conflict ratio of the set on ``X``."""
        return conflict_ratio(self.predict_matrix(X))

    def delta_ambiguity(self, X: Any, delta: float = 0.0) -> float:
        """Share of points of ``X`` with conflict ratio above ``delta``."""
        return delta_ambiguity(self.predict_matrix(X), delta)

    def ambiguity_curve(self, X: Any, deltas: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """delta-ambiguity over a grid of delta."""
        return ambiguity_curve(self.predict_matrix(X), deltas)

    def convergence(self, X: Any, deltas: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4), steps: int = 20,
                    random_state: int | None = 0) -> pd.DataFrame:
        """delta-ambiguity and mean conflict ratio as members are added (in a random order)."""
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
            raise ConfigError(f"steps must be a positive integer (set sizes in the table, e.g. 20); got {steps!r}.")
        for d in deltas:
            _check_threshold(d, "each of deltas")
        return _convergence(self.predict_matrix(X), tuple(float(d) for d in deltas), int(steps), random_state)

    def individual_report(self, X: Any, threshold: float = 0.2) -> pd.DataFrame:
        """Per row: majority prediction, conflict ratio, flag above ``threshold``, share per class."""
        _check_threshold(threshold)
        return _individual(self.predict_matrix(X), threshold)

    # -- plots and report ------------------------------------------------------------------------
    def plot_conflict_histogram(self, X: Any, ax: Any = None) -> Any:
        """Histogram of the conflict ratios on ``X``."""
        from fairprobe.plugins.rashomon.plots import plot_conflict_histogram

        return plot_conflict_histogram(self.predict_matrix(X), ax=ax)

    def plot_ambiguity_curve(self, X: Any, ax: Any = None, label: str = "Rashomon set") -> Any:
        """The delta-ambiguity curve on ``X``."""
        from fairprobe.plugins.rashomon.plots import plot_ambiguity_curves

        return plot_ambiguity_curves({label: self.predict_matrix(X)}, ax=ax)

    def plot_scatter(self, X: Any, features: tuple[int, int] = (0, 1), ax: Any = None) -> Any:
        """Two features of ``X`` coloured by conflict ratio."""
        from fairprobe.plugins.rashomon.plots import plot_conflict_scatter

        P = self.predict_matrix(X)
        if (len(features) != 2 or not all(isinstance(j, numbers.Integral) and 0 <= j < self.n_features_in_
                                           for j in features)):
            raise DataError(f"features must be two column positions of X, in [0, {self.n_features_in_}); got "
                            f"{features!r}.")
        return plot_conflict_scatter(np.asarray(X, dtype=float), P, features, ax=ax)

    def report(self, X: Any, path: str, threshold: float = 0.2, *, force: bool = False,
               exact_linear: Any = None) -> str:
        """Write the individual report, the convergence table and the plots for ``X`` as a report folder.

        The folder has the shared format of :mod:`fairprobe.report` (``index.html``, CSV tables, PNG
        figures, ``report.json``) and follows its rules: a folder holding files fairprobe did not write
        is refused unless ``force``, an earlier report in it is replaced as a whole. Returns the HTML
        page's path. ``exact_linear``, a
        :class:`~fairprobe.plugins.rashomon.linear_exact.LinearMultiplicityResult` on the training
        rows (possibly partial), adds its figures and the per-row status table.
        """
        from fairprobe.plugins.rashomon.plots import plot_ambiguity_curves, plot_conflict_histogram
        from fairprobe.report import write_report

        _check_threshold(threshold)
        P = self.predict_matrix(X)  # every table and plot below reads these predictions
        table = _individual(P, threshold)
        summary = (f"{len(self.scores_)} models within {self.epsilon} of the reference score "
                   f"{self.reference_score_:.4f}; ambiguity {delta_ambiguity(P, 0.0):.3f}, "
                   f"{int(table.flagged.sum())} of {len(table)} rows above conflict ratio {threshold}")
        parameters = {"estimator": type(self.estimator).__name__, "epsilon": self.epsilon,
                      "candidates": self.n_models, "members": len(self.scores_),
                      "dataset multiplicity": self.dataset_multiplicity, "subsample": self.subsample,
                      "feature subsample": self.feature_subsample, "feature noise": self.feature_noise,
                      "reference score": round(self.reference_score_, 4), "threshold": threshold,
                      "random state": self.random_state}
        tables = {"individual report": table,
                  "most contested rows": table.sort_values("conflict_ratio", ascending=False).head(50).round(3),
                  "convergence": _convergence(P)}
        if exact_linear is not None:
            ex = exact_linear
            amb = (f"{ex.ambiguity_lower:.3f}" if ex.ambiguity_lower == ex.ambiguity_upper
                   else f"in [{ex.ambiguity_lower:.3f}, {ex.ambiguity_upper:.3f}]")
            stopped = ex.details.get("stopped_by")
            summary += (f". Exact linear classifiers: {ex.reference_error} reference errors, budget "
                        f"{ex.error_budget:g}, ambiguity {amb}"
                        + (f" (stopped early by {stopped}; partial, every decided row certified)" if stopped else ""))
            parameters.update({"exact linear reference errors": ex.reference_error,
                               "exact linear error budget": ex.error_budget,
                               "exact linear ambiguity": [ex.ambiguity_lower, ex.ambiguity_upper],
                               "exact linear discrepancy": (None if ex.discrepancy is None
                                                            else [ex.discrepancy, ex.discrepancy_upper]),
                               "exact linear undecided rows": ex.n_undecided,
                               "exact linear stopped by": stopped})
            tables["exact linear multiplicity (training rows)"] = ex.to_frame()
        page = write_report(
            path, "Predictive multiplicity", summary=summary, section="Rashomon set and conflict ratios",
            text="The conflict ratio of a row is the share of near-optimal models that disagree with the majority "
                 "decision (0 to 0.5); rows above the threshold are flagged.",
            parameters=parameters,
            figures={"conflict histogram": lambda: plot_conflict_histogram(P),
                     "ambiguity curve": lambda: plot_ambiguity_curves({"Rashomon set": P})},
            tables=tables, force=force)
        return str(page)


def _allows_nan(estimator: Any) -> bool:
    """Whether a scikit-learn estimator declares that it fits data with missing values."""
    try:
        return bool(estimator.__sklearn_tags__().input_tags.allow_nan)
    except Exception:  # not a scikit-learn estimator, or an older tag API: assume it does not
        return False


def _check_threshold(threshold: Any, name: str = "threshold") -> float:
    """A conflict-ratio threshold: a number in [0, 1)."""
    return _check_number(name, threshold, low=0.0, high=1.0 - 1e-12,
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


"""Training the candidates of a Rashomon set: each one's resample, perturbation, fit and held-out score.

:class:`~fairprobe.plugins.rashomon.rashomon_set.RashomonSet` draws what each candidate sees
(:class:`Perturbation`, rows and columns) and keeps those near the reference; this module trains
them, one at a time (:func:`fit_candidate`, what a joblib worker runs) or all of them
(:func:`fit_candidates`), and predicts with models fitted elsewhere (:func:`predict_given`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError, FairprobeError

__all__ = ["Job", "Perturbation", "draw_jobs", "fit_candidate", "fit_candidates", "perturb", "perturb_frame",
           "predict_given", "reference_search", "score", "take", "take_like", "text_columns"]

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


#: One candidate's ``(params, rows, cols, seed)``: hyperparameters, training rows (None: all), feature positions, seed.
Job = tuple[dict[str, Any], np.ndarray | None, np.ndarray, int]


def score(metric: Any, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """A held-out score of predictions: a named metric of scikit-learn, or ``metric(y_true, y_pred)``.

    Parameters
    ----------
    metric : {"accuracy", "balanced_accuracy", "f1"} or callable
        The set's ``metric``.
    y_true, y_pred : ndarray
        Labels and predictions.

    Returns
    -------
    float

    Examples
    --------
    >>> score("accuracy", np.array([0, 1, 1]), np.array([0, 1, 0]))
    0.6666666666666666
    """
    if callable(metric):
        return float(metric(y_true, y_pred))
    from sklearn import metrics

    fn = {"accuracy": metrics.accuracy_score, "balanced_accuracy": metrics.balanced_accuracy_score,
          "f1": metrics.f1_score}[metric]
    return float(fn(y_true, y_pred))


@dataclass(frozen=True)
class Perturbation:
    """How one candidate's training data differ from the training set.

    Parameters
    ----------
    noise : float or None
        Standard deviation of the Gaussian noise on numeric columns.
    categorical : tuple of int
        Positions of the categorical columns (no noise; switched with probability ``flip``).
    flip : float or None
        Probability of switching a categorical value to another observed level.
    sampler : callable or None
        ``sampler(rng) -> (X, y)``: a fresh training sample instead of the training rows.

    Examples
    --------
    >>> Perturbation(0.1, (), None, None).noise
    0.1
    """

    noise: float | None
    categorical: tuple[int, ...]
    flip: float | None
    sampler: Callable[[np.random.Generator], tuple[Any, Any]] | None


def perturb(X: np.ndarray, how: Perturbation, rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise on the numeric columns, random category switches on the categorical ones.

    Parameters
    ----------
    X : ndarray
        Numeric features (not changed: a perturbed copy is returned).
    how : Perturbation
        The noise and the switches.
    rng : numpy Generator
        Source of the noise and switches.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> X = np.zeros((3, 2))
    >>> perturb(X, Perturbation(None, (), None, None), np.random.default_rng(0)) is X
    True
    """
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


def perturb_frame(X: pd.DataFrame, how: Perturbation, rng: np.random.Generator,
                  skip: set[int] | None = None) -> pd.DataFrame:
    """:func:`perturb` for a DataFrame: noise on numeric columns, switches on categorical ones (any dtype).

    Parameters
    ----------
    X : DataFrame
        Features (not changed: a perturbed copy is returned).
    how : Perturbation
        The noise and the switches.
    rng : numpy Generator
        Source of the noise and switches.
    skip : set of int, optional
        Column positions left as they are (the masked ones of a feature subsample).

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> X = pd.DataFrame({"a": ["x", "y", "x"]})
    >>> perturb_frame(X, Perturbation(None, (0,), 1.0, None), np.random.default_rng(0))["a"].tolist()
    ['y', 'x', 'y']
    """
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
            # a switched entry takes one of the *other* levels, uniformly (as in perturb)
            offset = rng.integers(1, len(levels), int(switch.sum()))
            new = values.to_numpy(dtype=object, copy=True)
            new[switch] = np.asarray(levels, dtype=object)[(codes[switch] + offset) % len(levels)]
            X[col] = pd.Series(new, index=X.index).astype(values.dtype)
    return X


def take(X: Any, rows: np.ndarray | None, cols: np.ndarray | None) -> Any:
    """Rows and columns (positions) of an array or a DataFrame.

    A DataFrame keeps every column (a Pipeline selects its columns by name): the columns not in
    ``cols`` are set to a constant, their first value, which a model cannot learn from.

    Parameters
    ----------
    X : ndarray or DataFrame
    rows, cols : ndarray, optional
        Row and column positions (all when None).

    Returns
    -------
    ndarray or DataFrame

    Examples
    --------
    >>> take(np.arange(6).reshape(3, 2), np.array([0, 2]), np.array([1])).tolist()
    [[1], [5]]
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


def take_like(X: Any, cols: np.ndarray, train: Any) -> Any:
    """Columns ``cols`` of ``X``; a DataFrame's masked columns get the constants of ``train``.

    Parameters
    ----------
    X : ndarray or DataFrame
        Rows to predict.
    cols : ndarray
        The column positions a candidate saw.
    train : ndarray or DataFrame
        The candidate's training rows (a DataFrame's masked columns hold its constants).

    Returns
    -------
    ndarray or DataFrame

    Examples
    --------
    >>> train = pd.DataFrame({"a": [0], "b": [9]})
    >>> take_like(pd.DataFrame({"a": [1, 2], "b": [3, 4]}), np.array([0]), train)["b"].tolist()
    [9, 9]
    """
    if not isinstance(X, pd.DataFrame) or len(cols) == X.shape[1]:
        return take(X, None, cols)
    X = X.copy()
    for j in sorted(set(range(X.shape[1])) - {int(c) for c in cols}):
        X[X.columns[j]] = train.iloc[0, j]
    return X


def fit_candidate(estimator: Any, params: dict[str, Any], X: Any, y: np.ndarray, X_held: Any,
                  y_held: np.ndarray, rows: np.ndarray | None, cols: np.ndarray, how: Perturbation, metric: Any,
                  seed: int, X_audit: Any = None) -> tuple[Any, np.ndarray, float, np.ndarray | None]:
    """Train one candidate; its held-out predictions and score, and its predictions on ``X_audit`` if given.

    Parameters
    ----------
    estimator : scikit-learn classifier or Pipeline
        Cloned, given ``params`` and ``seed`` as its random state, and fitted.
    params : dict
        Hyperparameters of this candidate.
    X, y : training features and labels
    X_held, y_held : held-out features and labels
    rows : ndarray, optional
        Training rows drawn for this candidate (all when None).
    cols : ndarray
        Feature positions this candidate sees.
    how : Perturbation
        Noise, switches or a sampler.
    metric : str or callable
        The held-out score.
    seed : int
        Seed of the candidate's model and perturbation.
    X_audit : optional
        Audit rows to predict too.

    Returns
    -------
    model, held-out predictions, score, audit predictions (or None)

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> fit_candidate(DecisionTreeClassifier(), {}, X, y, X, y, None, np.array([0]), Perturbation(None, (), None, None),
    ...               "accuracy", 0)[2]
    1.0
    """
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
    Xs = take(X, rows, cols)
    ys = y if rows is None else y[rows]
    if frame:  # all columns kept (the masked ones constant, and not perturbed): positions are unchanged
        masked = set(range(Xs.shape[1])) - {int(c) for c in cols}
        model.fit(perturb_frame(Xs, how, rng, skip=masked), ys)
    else:
        sub = Perturbation(how.noise, tuple(int(np.searchsorted(cols, j)) for j in how.categorical if j in cols),
                           how.flip, None)
        model.fit(perturb(Xs, sub, rng), ys)
    pred = model.predict(take_like(X_held, cols, Xs))
    audit = None if X_audit is None else model.predict(take_like(X_audit, cols, Xs))
    return model, pred, score(metric, y_held, pred), audit



def fit_candidates(estimator: Any, jobs: list[Job], X: Any, y: np.ndarray, X_held: Any, y_held: np.ndarray,
                   how: Perturbation, X_audit: Any, *, metric: Any, n_jobs: int | None, parallel_backend: str | None,
                   progress: bool) -> list[tuple[Any, ...]]:
    """Fit and score every candidate (in parallel when ``n_jobs`` asks), with a progress bar.

    The parallel run and the translation of an estimator's refusal into a ``DataError`` are one step.

    Parameters
    ----------
    estimator : scikit-learn classifier or Pipeline
    jobs : list of Job
        Each candidate's ``(params, rows, cols, seed)``.
    X, y, X_held, y_held, how, X_audit
        As for :func:`fit_candidate`.
    metric : str or callable
        The held-out score.
    n_jobs : int, optional
        joblib workers (None or 1: sequential).
    parallel_backend : str, optional
        joblib backend (default: loky when parallel).
    progress : bool
        Show a progress bar.

    Returns
    -------
    list of tuple
        One :func:`fit_candidate` result per job, in order.

    Raises
    ------
    DataError
        A candidate could not be fitted (e.g. a bootstrap sample of one class).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> jobs = [({}, None, np.array([0]), s) for s in (1, 2)]
    >>> out = fit_candidates(DecisionTreeClassifier(), jobs, X, y, X, y, Perturbation(None, (), None, None), None,
    ...                      metric="accuracy", n_jobs=None, parallel_backend=None, progress=False)
    >>> [r[2] for r in out]
    [1.0, 1.0]
    """
    from joblib import Parallel, delayed, parallel_config

    from fairprobe.core.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

    bar = tqdm(total=len(jobs), desc="Rashomon candidates", disable=not progress)
    backend = parallel_backend or ("sequential" if n_jobs in (None, 1) else "loky")
    try:
        with parallel_config(backend=backend, n_jobs=n_jobs if n_jobs is not None else 1):
            gen = Parallel(return_as="generator")(
                delayed(fit_candidate)(estimator, p, X, y, X_held, y_held, rows, cols, how, metric, s, X_audit)
                for p, rows, cols, s in jobs)
            results = []
            for item in gen:
                results.append(item)
                bar.update()
    except FairprobeError:
        raise
    except (ValueError, TypeError) as exc:  # e.g. a bootstrap sample with one class for LogisticRegression
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise DataError(f"A candidate {type(estimator).__name__} could not be fitted: {detail}. Use larger "
                        "samples (subsample), fewer perturbations, or a model that accepts such data.") from None
    finally:
        bar.close()
    return results


def predict_given(models: list[Any], audit: Any, labels: Any, metric: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """Every given (already fitted) model's predictions on the audit rows, and their scores when labels are given.

    Parameters
    ----------
    models : list
        Fitted classifiers (anything with ``predict``).
    audit : ndarray or DataFrame
        The audit rows.
    labels : array-like, optional
        One label per audit row (no scores without them).
    metric : str or callable
        The score.

    Returns
    -------
    predictions : ndarray (n_models, n_audit)
    scores : ndarray
        One per model (NaN without labels).
    baseline : float
        The score of always predicting the majority label (NaN without labels).

    Raises
    ------
    DataError
        Audit rows that are not 2-D, a model that could not predict or did not give one label per
        row, labels of another length.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> X = np.zeros((3, 1)); m = DummyClassifier(strategy="constant", constant=1).fit(X, [0, 1, 1])
    >>> P, scores, baseline = predict_given([m, m], X, [0, 1, 1], "accuracy")
    >>> P.tolist(), scores.round(3).tolist()
    ([[1, 1, 1], [1, 1, 1]], [0.667, 0.667])
    """
    if audit.ndim != 2 or audit.shape[0] == 0:
        raise DataError(f"The audit rows must be 2-D with at least one row; got shape {audit.shape}.")
    P = []
    for i, model in enumerate(models):
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
    if labels is None:
        return P, np.full(len(P), np.nan), np.nan
    y = np.asarray(labels).ravel()
    if y.size != audit.shape[0]:
        raise DataError(f"The labels have {y.size} values for {audit.shape[0]} audit rows; give one per row.")
    scores = np.array([score(metric, y, p) for p in P])
    with warnings.catch_warnings():  # f1 of a constant prediction warns about an undefined precision
        warnings.simplefilter("ignore")
        classes, counts = np.unique(y, return_counts=True)
        baseline = score(metric, y, np.full(y.shape, classes[counts.argmax()]))
    return P, scores, baseline


def draw_jobs(rng: np.random.Generator, grid: list[dict[str, Any]], n: int, d: int, *, n_models: int,
              multiplicity: str, subsample: float, feature_subsample: float | None) -> list[Job]:
    """Each candidate's ``(params, rows, cols, seed)``, drawn from ``rng`` in a fixed order.

    The order of the random draws fixes the results for a seed: it sits in this one short loop.

    Parameters
    ----------
    rng : numpy Generator
        Advanced by the draws.
    grid : list of dict
        Hyperparameter combinations (one is drawn per candidate; none: ``{}``).
    n, d : int
        Training rows and features.
    n_models : int
        Candidates.
    multiplicity : {"bootstrap", "subsample", "none", "sampler"}
        How the rows are drawn.
    subsample : float
        Rows drawn, as a share of ``n``.
    feature_subsample : float, optional
        Features each candidate sees, as a share of ``d``.

    Returns
    -------
    list of Job

    Examples
    --------
    >>> jobs = draw_jobs(np.random.default_rng(0), [], 10, 3, n_models=2, multiplicity="bootstrap", subsample=0.5,
    ...                  feature_subsample=None)
    >>> len(jobs), jobs[0][1].size, jobs[0][2].tolist()
    (2, 5, [0, 1, 2])
    """
    size = max(2, round(subsample * n))
    jobs = []
    for _ in range(n_models):
        params = grid[int(rng.integers(len(grid)))] if grid else {}
        if multiplicity == "bootstrap":
            rows = rng.integers(0, n, size)
        elif multiplicity == "subsample":
            rows = rng.choice(n, size=min(size, n), replace=False)
        else:
            rows = None
        k = d if not feature_subsample else max(1, round(feature_subsample * d))
        cols = np.sort(rng.choice(d, size=k, replace=False)) if k < d else np.arange(d)
        jobs.append((params, rows, cols, int(rng.integers(0, 2**31 - 1))))
    return jobs


def reference_search(estimator: Any, param_grid: dict[str, list[Any]] | None, X: Any, y: np.ndarray, *, cv: int,
                     metric: Any) -> Any:
    """The cross-validated search of ``param_grid`` for the reference model, refitted on ``X``.

    Parameters
    ----------
    estimator : scikit-learn classifier or Pipeline
    param_grid : dict of lists, optional
        The hyperparameters searched (none: the estimator as it is).
    X, y : training features and labels
    cv : int
        Folds.
    metric : str or callable
        The score the search maximises (a callable is ``metric(y_true, y_pred)``).

    Returns
    -------
    sklearn.model_selection.GridSearchCV
        Fitted: ``best_params_`` and ``best_estimator_``.

    Raises
    ------
    ConfigError
        The estimator refused the data or a value of the grid.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.arange(8.0).reshape(-1, 1); y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> reference_search(DecisionTreeClassifier(), {"max_depth": [1, 2]}, X, y, cv=2, metric="f1").best_params_
    {'max_depth': 1}
    """
    from sklearn.metrics import make_scorer
    from sklearn.model_selection import GridSearchCV

    scoring = None if metric == "accuracy" else (metric if isinstance(metric, str) else make_scorer(metric))
    search = GridSearchCV(estimator, param_grid or {}, cv=cv, scoring=scoring, error_score="raise")
    try:
        search.fit(X, y)
    except FairprobeError:
        raise
    except (ValueError, TypeError) as exc:  # the estimator refused the data or a grid value
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise ConfigError(f"{type(estimator).__name__} could not be fitted in the reference search: "
                          f"{detail}. Check param_grid's values and the data.") from None
    return search

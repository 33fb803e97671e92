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

import numbers
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.core.small_groups import too_few_text
from fairprobe.exceptions import ConfigError, DataError, NotFittedError
from fairprobe.plugins.base import Analysis, Example, Summary, positional_roles
from fairprobe.plugins.rashomon.candidates import (
    Job,
    Perturbation,
    draw_jobs,
    fit_candidates,
    predict_given,
    reference_search,
    score,
    take,
    take_like,
    text_columns,
)
from fairprobe.plugins.rashomon.measures import (
    ambiguity_curve,
    conflict_by_group,
    conflict_ratio,
    convergence_table,
    delta_ambiguity,
    individual_table,
)
from fairprobe.plugins.rashomon.set_checks import (
    allows_nan,
    audit_groups,
    categorical_positions,
    check_set_params,
    check_threshold,
    check_training_data,
    labels_by_name,
    split_held_out,
)
from fairprobe.plugins.rashomon.text import set_headline

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report


__all__ = ["RashomonSet", "text_columns"]

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
        check_set_params(self)

    def _frame_mode(self, X: Any) -> bool:
        """Whether ``X`` stays a DataFrame: it has text columns, or the estimator is a Pipeline."""
        if not isinstance(X, pd.DataFrame):
            return False
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import Pipeline

        numeric = all(pd.api.types.is_numeric_dtype(t) and not isinstance(t, pd.CategoricalDtype) for t in X.dtypes)
        return not numeric or isinstance(self.estimator, Pipeline | ColumnTransformer)

    def _check(self, X: Any, y: Any, what: str = "X", frame: bool | None = None) -> tuple[Any, np.ndarray]:
        return check_training_data(X, y, estimator=self.estimator, metric=self.metric, what=what,
                                   frame=self._frame_mode(X) if frame is None else frame)

    def _reference(self, X: Any, y: np.ndarray, X_held: Any, y_held: np.ndarray) -> None:
        if isinstance(self.reference, int | float):
            self.reference_params_, self.reference_score_ = {}, float(self.reference)
        elif isinstance(self.reference, str):
            if self.reference != "cv_best":
                raise ConfigError(f'reference must be "cv_best", a fitted estimator or a score; got {self.reference!r}')
            search = reference_search(self.estimator, self.param_grid, X, y, cv=self.cv, metric=self.metric)
            self.reference_params_ = dict(search.best_params_)
            self.reference_score_ = self._objective(search.best_estimator_, X_held, y_held)
        else:
            if not hasattr(self.reference, "predict"):
                raise ConfigError("reference must be 'cv_best', a fitted estimator with predict, or a number.")
            self.reference_params_ = {}
            self.reference_score_ = self._objective(self.reference, X_held, y_held)

    def _objective(self, model: Any, X_held: Any, y_held: np.ndarray, cols: np.ndarray | None = None) -> float:
        pred = model.predict(take(X_held, None, cols))
        value = score(self.metric, y_held, pred)
        return value - self.penalty * float(self.complexity(model)) if self.penalty else value

    def _baseline(self, y: np.ndarray, y_held: np.ndarray) -> float:
        """Held-out score of always predicting the training majority class."""
        labels, counts = np.unique(y, return_counts=True)
        with warnings.catch_warnings():  # f1 of a constant prediction warns about an undefined precision
            warnings.simplefilter("ignore")
            return score(self.metric, y_held, np.full(y_held.shape, labels[counts.argmax()]))

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
        X, X_held, y_true, y_held = labels_by_name(data, X_held, y_true, y_held)
        if self.models is not None:
            return self._fit_given(X, y_true, X_held, y_held, sensitive_features)
        frame = self._frame_mode(X)
        columns = list(X.columns) if isinstance(X, pd.DataFrame) else None
        raw_X, raw_held = X, X_held  # the row identifiers and a sensitive column come from these
        X, y = self._check(X, y_true, frame=frame)
        features = raw_X if isinstance(raw_X, pd.DataFrame) else X
        categorical = categorical_positions(self.categorical_features, features, self._frame_mode(features))
        rng = np.random.default_rng(self.random_state)  # a Generator is used (and advanced) as it is
        split_seed = (int(rng.integers(0, 2**32 - 1)) if isinstance(self.random_state, np.random.Generator)
                      else self.random_state)
        X, y, X_held, y_held, audit = self._held_out(X, y, X_held, y_held, columns, frame, split_seed)
        audit_raw = raw_X if raw_held is None else raw_held
        groups, group_name = audit_groups(sensitive_features, audit_raw)
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
        how = Perturbation(self.feature_noise, categorical, self.category_flip, self.sampler)
        jobs = draw_jobs(rng, grid, n, d, n_models=int(self.n_models), multiplicity=self.dataset_multiplicity,
                         subsample=self.subsample, feature_subsample=self.feature_subsample)
        # the audit set is the held-out set when given; otherwise every candidate also predicts X
        X_audit = audit if audit is not X_held else None
        results = fit_candidates(self.estimator, jobs, X, y, X_held, y_held, how, X_audit, metric=self.metric,
                                 n_jobs=self.n_jobs, parallel_backend=self.parallel_backend, progress=self.progress)
        self._select_members(results, jobs, baseline, X_audit)
        self.audit_index_ = audit_index
        self.n_features_in_ = d
        if columns is not None:
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.frame_mode_ = frame
        self._first_row_ = X.iloc[:1] if frame else None  # the constants of masked columns (feature_subsample)
        self._setindividual_table(groups, group_name)
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
        P, scores, baseline = predict_given(self.models, audit, labels, self.metric)
        groups, group_name = audit_groups(sensitive_features, audit_raw)
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
        self._setindividual_table(groups, group_name)
        return self

    def _setindividual_table(self, groups: np.ndarray | None, group_name: str) -> None:
        """The per-person results of the audit set, computed once: to_frame, summary and figures read them."""
        individual = individual_table(self.audit_predictions_, float(self.threshold))
        individual.index = self.audit_index_
        if groups is not None:
            individual.insert(0, group_name, groups)
            self.by_group_ = conflict_by_group(individual, group_name)
        else:
            self.by_group_ = None
        self.individual_ = individual
        self.convergence_ = convergence_table(self.audit_predictions_)

    def _held_out(self, X: Any, y: np.ndarray, X_held: Any, y_held: Any, columns: list[Any] | None, frame: bool,
                  split_seed: Any) -> tuple[Any, np.ndarray, Any, np.ndarray, Any]:
        """Training and held-out rows (given, or a stratified 25 % split of ``X``) and the audit set.

        Separate from :meth:`fit`: the two ways to get held-out rows and their checks are one decision.
        Returns ``X, y, X_held, y_held, audit``; ``audit`` is the unsplit ``X`` when no ``X_held`` is given.
        """
        if X_held is None:
            X_train, X_held, y_train, y_held = split_held_out(X, y, y_held, split_seed)
            return X_train, y_train, X_held, y_held, X
        if columns is not None and isinstance(X_held, pd.DataFrame):
            missing = [c for c in columns if c not in X_held.columns]
            if missing:
                raise DataError(f"X_held lacks the columns {missing[:5]} of X; give it the same columns.")
            X_held = X_held[columns]
        X_held, y_held = self._check(X_held, y_held, "X_held", frame=frame)
        if X_held.shape[1] != X.shape[1]:
            raise DataError(f"X_held has {X_held.shape[1]} columns; X has {X.shape[1]}.")
        return X, y, X_held, y_held, X_held

    def _select_members(self, results: list[tuple[Any, ...]],
                        jobs: list[Job], baseline: float,
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
        lines = [set_headline(self),
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
        from fairprobe.plugins.rashomon.demo import lending_example  # the step module does not import this one

        return lending_example(cls, seed=seed)

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
            return np.stack([m.predict(take_like(X, cols, train_first))
                             for m, cols in zip(self.models_, self.columns_, strict=True)])
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"X must be numeric, coded as in fit: {exc}") from None
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise DataError(f"X must have {self.n_features_in_} columns, as in fit; got shape {X.shape}.")
        if np.isinf(X).any() or (np.isnan(X).any() and not allows_nan(self.estimator)):
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
            check_threshold(d, "each of deltas")
        return convergence_table(self._predictions(X), tuple(float(d) for d in deltas), int(steps), random_state)

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
        check_threshold(threshold)
        table = individual_table(self._predictions(X), threshold)
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

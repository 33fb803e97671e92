"""Train one classifier under one fairness constraint and evaluate it on held-out rows.

* ``none``: the classifier as it is.
* ``demographic_parity``, ``equalized_odds``, ``fpr_parity``, ``fnr_parity``: fairlearn's
  exponentiated-gradient reduction (``fairprobe[study]``); FNR parity is equal true-positive
  rates. The randomised classifier is drawn once with the study's seed, so every row gets one
  deterministic prediction.
* ``ppv_parity``, ``npv_parity``: no reduction exists for predictive parity, so, as in the paper,
  ``candidates`` predictors trained with random weights per (group, label) cell are compared on a
  validation split of the training rows, and the one with the smallest parity among those within
  ``accuracy_slack`` of the unweighted predictor's accuracy is refitted on every training row.

Inputs are standardised with the training rows' means and scales (naive Bayes: coded into quintile
bins, see :class:`Inputs`); the attribute is not an input.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError
from fairprobe.studies.data import StudyData
from fairprobe.studies.spec import REDUCTIONS, SEARCHED, ClassifierSpec, StudySpec

__all__ = ["Inputs", "TrainedModel", "make_estimator", "train_and_evaluate"]


@dataclass
class TrainedModel:
    """What a study keeps of a trained model: its held-out table and accuracy.

    Parameters
    ----------
    cells : pandas.DataFrame
        Held-out counts: columns ``A`` (group label), ``Y``, ``P`` and ``n``.
    accuracy : float
        Held-out accuracy.
    note : str
        How the constraint was met (the chosen candidate of a search, the reduction's size).
    """

    cells: pd.DataFrame
    accuracy: float
    note: str = ""


def make_estimator(spec: ClassifierSpec, seed: int) -> Any:
    """A fresh, unfitted estimator of the spec.

    Parameters
    ----------
    spec : ClassifierSpec
        A built-in name or an import path with parameters.
    seed : int
        ``random_state`` of the estimators that take one.

    Returns
    -------
    estimator

    Examples
    --------
    >>> type(make_estimator(ClassifierSpec("decision_tree"), 0)).__name__
    'DecisionTreeClassifier'
    """
    if spec.estimator is None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.naive_bayes import CategoricalNB
        from sklearn.tree import DecisionTreeClassifier

        return {"logistic_regression": lambda: LogisticRegression(max_iter=2000),
                # on quintile codes of the inputs (see Inputs): Gaussian NB on one-hot columns is worse
                # than predicting the majority class (German credit 0.41, Adult 0.39)
                "naive_bayes": lambda: CategoricalNB(min_categories=N_BINS),
                "decision_tree": lambda: DecisionTreeClassifier(max_depth=6, random_state=seed)}[spec.name]()
    module, _, attr = spec.estimator.rpartition(".")
    cls = getattr(importlib.import_module(module), attr)
    params = dict(spec.params)
    if "random_state" in cls().get_params() and "random_state" not in params:
        params["random_state"] = seed
    try:
        return cls(**params)
    except TypeError as exc:
        raise ConfigError(f"classifier {spec.name!r}: {spec.estimator}({params}) failed: {exc}") from None


#: Quantile bins of a numeric input for naive Bayes.
N_BINS = 5


class Inputs:
    """The model inputs, fitted on the training rows: standardised, or coded for naive Bayes.

    Naive Bayes reads categories: a column with more than two values becomes its quintile bin
    (``KBinsDiscretizer``), a two-valued column 0/1. Every other classifier gets the columns
    standardised (``StandardScaler``).

    Parameters
    ----------
    coded : bool
        Quintile and 0/1 codes (naive Bayes) instead of standardised values.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 1.], [1., 5.], [0., 2.], [1., 9.], [0., 3.]])
    >>> Inputs(coded=True).fit(X).transform(X).tolist()
    [[0, 0], [1, 3], [0, 1], [1, 4], [0, 2]]
    """

    def __init__(self, coded: bool) -> None:
        self.coded = coded

    def fit(self, X: np.ndarray) -> Inputs:
        from sklearn.preprocessing import KBinsDiscretizer, StandardScaler

        if not self.coded:
            self.scaler = StandardScaler().fit(X)
            return self
        self.low = X.min(axis=0)
        self.many = [j for j in range(X.shape[1]) if len(np.unique(X[:, j])) > 2]
        self.bins = None
        if self.many:
            with warnings.catch_warnings():  # tied quantiles merge bins; fewer bins is what we want then
                warnings.simplefilter("ignore", UserWarning)
                self.bins = KBinsDiscretizer(n_bins=N_BINS, encode="ordinal", strategy="quantile",
                                             quantile_method="averaged_inverted_cdf").fit(X[:, self.many])
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        if not self.coded:
            return self.scaler.transform(X)
        out = (X > self.low).astype(int)
        if self.bins is not None:
            out[:, self.many] = self.bins.transform(X[:, self.many]).astype(int)
        return out


def _split(data: StudyData, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.model_selection import train_test_split

    strata = data.y * 2 + (data.group == data.groups[0])
    rows = np.arange(len(data.y))
    try:
        return train_test_split(rows, test_size=test_size, random_state=seed, stratify=strata)
    except ValueError:  # a (label, group) cell with one row cannot be stratified
        return train_test_split(rows, test_size=test_size, random_state=seed, stratify=data.y)


def _parity(kind: str, y: np.ndarray, p: np.ndarray, in_first: np.ndarray) -> float:
    """|PPV or NPV of the first group - of the second| on these rows (inf where undefined)."""
    target, predicted = (1, 1) if kind == "ppv_parity" else (0, 0)
    rates = []
    for members in (in_first, ~in_first):
        chosen = members & (p == predicted)
        if not chosen.any():
            return np.inf
        rates.append(float(np.mean(y[chosen] == target)))
    return abs(rates[0] - rates[1])


def _fit(estimator: Any, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None, name: str, why: str) -> Any:
    try:
        return estimator.fit(X, y) if weights is None else estimator.fit(X, y, sample_weight=weights)
    except TypeError as exc:
        if "sample_weight" in str(exc):
            raise ConfigError(f"classifier {name!r} does not accept sample_weight, which {why} needs; use another "
                              "classifier for this constraint.") from None
        raise


def _search(data: StudyData, clf: ClassifierSpec, constraint: str, X: np.ndarray, train: np.ndarray,
            spec: StudySpec) -> tuple[Any, str]:
    """The reweighted predictor with the smallest validation parity within the accuracy slack."""
    from sklearn.base import clone
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(spec.seed)
    y, first = data.y[train], data.group[train] == data.groups[0]
    cell = first.astype(int) * 2 + y
    try:
        fit_rows, val_rows = train_test_split(np.arange(len(train)), test_size=0.25, random_state=spec.seed,
                                              stratify=cell)
    except ValueError:
        fit_rows, val_rows = train_test_split(np.arange(len(train)), test_size=0.25, random_state=spec.seed)
    base = make_estimator(clf, spec.seed)
    scored = []
    for k in range(spec.search_candidates):
        w = np.ones(4) if k == 0 else np.exp(rng.uniform(-1.5, 1.5, size=4))
        model = _fit(clone(base), X[train][fit_rows], y[fit_rows], w[cell[fit_rows]], clf.name,
                     f"the {constraint} search")
        pred = model.predict(X[train][val_rows])
        scored.append((float(np.mean(pred == y[val_rows])), _parity(constraint, y[val_rows], pred, first[val_rows]),
                       w))
    floor = scored[0][0] - spec.search_accuracy_slack
    best = min(range(len(scored)), key=lambda i: (scored[i][1] if scored[i][0] >= floor else np.inf, i))
    acc, parity, w = scored[best]
    model = _fit(clone(base), X[train], y, w[cell], clf.name, f"the {constraint} search")
    return model, (f"candidate {best} of {len(scored)}: validation {constraint} {parity:.4f} "
                   f"(unweighted {scored[0][1]:.4f}), accuracy {acc:.4f} (floor {floor:.4f})")


def _reduction(constraint: str, eps: float) -> Any:
    try:
        from fairlearn import reductions
    except ImportError:
        raise ConfigError(f"the constraint {constraint!r} trains through fairlearn's reductions, which are not "
                          "installed: pip install \"fairprobe[study]\" (or use constraint none, ppv_parity, "
                          "npv_parity).") from None
    moment = {"demographic_parity": reductions.DemographicParity, "equalized_odds": reductions.EqualizedOdds,
              "fpr_parity": reductions.FalsePositiveRateParity,
              "fnr_parity": reductions.TruePositiveRateParity}[constraint]()
    return moment


def train_and_evaluate(data: StudyData, clf: ClassifierSpec, constraint: str, spec: StudySpec) -> TrainedModel:
    """Train on the training split under ``constraint`` and tabulate the held-out predictions.

    Parameters
    ----------
    data : StudyData
        The data set.
    clf : ClassifierSpec
        The classifier.
    constraint : str
        ``none``, a reduction or a searched predictive parity (see the module notes).
    spec : StudySpec
        Split, seed and the constraints' options.

    Returns
    -------
    TrainedModel

    Examples
    --------
    >>> from fairprobe.studies.data import load_study_data
    >>> from fairprobe.studies.spec import DatasetSpec
    >>> spec = StudySpec.from_dict({"datasets": ["german"]})
    >>> model = train_and_evaluate(load_study_data(DatasetSpec("german")), ClassifierSpec("naive_bayes"), "none", spec)
    >>> int(model.cells.n.sum()), sorted(model.cells.columns)
    (500, ['A', 'P', 'Y', 'n'])
    """
    try:
        return _train_and_evaluate(data, clf, constraint, spec)
    except ConfigError:
        raise
    except Exception as exc:  # the estimator's own failure (a parameter, the data): named, not a traceback
        raise ConfigError(f"training {clf.name} under {constraint} on {data.name} failed: {type(exc).__name__}: "
                          f"{exc}") from None


def _train_and_evaluate(data: StudyData, clf: ClassifierSpec, constraint: str, spec: StudySpec) -> TrainedModel:
    train, test = _split(data, spec.test_size, spec.seed)
    raw = data.X.to_numpy(dtype=float)
    X = Inputs(coded=clf.estimator is None and clf.name == "naive_bayes").fit(raw[train]).transform(raw)
    note = ""
    if constraint == "none":
        model = _fit(make_estimator(clf, spec.seed), X[train], data.y[train], None, clf.name, "training")
        pred = model.predict(X[test])
    elif constraint in REDUCTIONS:
        moment = _reduction(constraint, spec.reduction_eps)  # names the extra when fairlearn is missing
        from fairlearn.reductions import ExponentiatedGradient

        reduction = ExponentiatedGradient(make_estimator(clf, spec.seed), moment, eps=spec.reduction_eps)
        try:
            with warnings.catch_warnings():  # fairlearn's own pandas deprecations, not the user's concern
                warnings.filterwarnings("ignore", module="fairlearn")
                reduction.fit(X[train], data.y[train], sensitive_features=data.group[train])
        except TypeError as exc:
            if "sample_weight" in str(exc):
                raise ConfigError(f"classifier {clf.name!r} does not accept sample_weight, which fairlearn's "
                                  f"{constraint} reduction needs.") from None
            raise
        pred = np.asarray(reduction.predict(X[test], random_state=spec.seed))
        note = f"exponentiated gradient, eps {spec.reduction_eps:g}, {len(reduction.predictors_)} predictors"
    elif constraint in SEARCHED:
        model, note = _search(data, clf, constraint, X, train, spec)
        pred = model.predict(X[test])
    else:  # the spec check rules this out
        raise ConfigError(f"unknown constraint {constraint!r}")
    pred = np.asarray(pred)
    if not np.isin(pred, (0, 1)).all():
        raise ConfigError(f"classifier {clf.name!r} predicted values other than 0 and 1 on {data.name} "
                          f"({np.unique(pred)[:5].tolist()}...); give a binary classifier.")
    pred = pred.astype(int)
    frame = pd.DataFrame({"A": data.group[test], "Y": data.y[test], "P": pred})
    cells = frame.groupby(["A", "Y", "P"]).size().rename("n").reset_index()
    note = "; ".join(n for n in (note, data.note) if n)
    return TrainedModel(cells, float(np.mean(pred == data.y[test])), note)

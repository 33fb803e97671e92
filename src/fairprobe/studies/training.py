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

Inputs are standardised with the training rows' means and scales; the attribute is not an input.
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

__all__ = ["TrainedModel", "make_estimator", "train_and_evaluate"]


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
        from sklearn.naive_bayes import GaussianNB
        from sklearn.tree import DecisionTreeClassifier

        return {"logistic_regression": lambda: LogisticRegression(max_iter=2000),
                "naive_bayes": GaussianNB,
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
    from sklearn.preprocessing import StandardScaler

    train, test = _split(data, spec.test_size, spec.seed)
    raw = data.X.to_numpy(dtype=float)
    scaler = StandardScaler().fit(raw[train])
    X = scaler.transform(raw)
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
    pred = np.asarray(pred).astype(int)
    frame = pd.DataFrame({"A": data.group[test], "Y": data.y[test], "P": pred})
    cells = frame.groupby(["A", "Y", "P"]).size().rename("n").reset_index()
    return TrainedModel(cells, float(np.mean(pred == data.y[test])), note)

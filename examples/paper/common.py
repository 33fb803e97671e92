"""Shared helpers of the paper reproductions: data loading, training, observed tables.

Training with fairness constraints uses fairlearn's reductions (``pip install fairlearn``; an
optional extra, ``fairprobe[experiments]``). Data are the copies bundled with fairprobe (or
yours, with ``$FAIRPROBE_DATA``); nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import fairprobe as fp
from fairprobe import datasets

OUT = Path(os.environ.get("FAIRPROBE_OUT", Path(__file__).resolve().parent / "output"))


def load_compas() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """ProPublica COMPAS two-year, standard filters, African-American (A=1) vs Caucasian (A=0)."""
    df = datasets.load_compas(races=("African-American", "Caucasian")).frame  # ProPublica's filters
    X = pd.DataFrame({"age": df.age, "priors": df.priors_count, "juv_fel": df.juv_fel_count,
                      "juv_misd": df.juv_misd_count, "juv_other": df.juv_other_count,
                      "felony": (df.c_charge_degree == "F").astype(int), "male": (df.sex == "Male").astype(int)})
    return X, df.two_year_recid.to_numpy(), (df.race == "African-American").astype(int).to_numpy()


def load_adult(n: int | None = 15_000, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """UCI Adult (train file, complete cases), sex as attribute (A=1 female); optional subsample."""
    df = datasets.load_adult().frame  # complete cases, income already 0/1
    if n is not None and n < len(df):
        df = df.sample(n=n, random_state=seed)
    X = pd.get_dummies(df[["age", "education_num", "capital_gain", "capital_loss", "hours_per_week",
                           "marital_status", "occupation", "workclass"]], drop_first=True, dtype=float)
    return X, df.income.to_numpy(), (df.sex == "Female").astype(int).to_numpy()


def load_german() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """UCI German credit; label 1 = good credit; attribute age > 25 (A=0) vs <= 25 (A=1)."""
    df = datasets.load_german().frame
    X = pd.get_dummies(df.drop(columns=["sex", "age_group", "good_credit"]), drop_first=True, dtype=float)
    return X, df.good_credit.to_numpy(), (df.age <= 25).astype(int).to_numpy()


DATASETS = {"compas": load_compas, "adult": load_adult, "german": load_german}
CLASSIFIERS = {
    "logistic_regression": lambda: LogisticRegression(max_iter=2000),
    "naive_bayes": lambda: GaussianNB(),
    "decision_tree": lambda: DecisionTreeClassifier(max_depth=6, random_state=0),
}


def train_predict(X: pd.DataFrame, y: np.ndarray, A: np.ndarray, classifier: str, constraint: str | None,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train on half, predict the other half; returns (A_test, y_test, predictions).

    ``constraint`` is None, "demographic_parity" or "equalized_odds" (fairlearn's
    ExponentiatedGradient reduction; the attribute is not a model input).
    """
    Xs = StandardScaler().fit_transform(X.to_numpy(dtype=float))
    Xtr, Xte, ytr, yte, Atr, Ate = train_test_split(Xs, y, A, test_size=0.5, random_state=seed, stratify=y)
    model = CLASSIFIERS[classifier]()
    if constraint is None:
        model.fit(Xtr, ytr)
        return Ate, yte, model.predict(Xte)
    try:
        from fairlearn.reductions import DemographicParity, EqualizedOdds, ExponentiatedGradient
    except ImportError:  # pragma: no cover - depends on the environment
        raise SystemExit("These experiments need fairlearn: pip install fairlearn") from None
    moment = {"demographic_parity": DemographicParity, "equalized_odds": EqualizedOdds}[constraint]()
    reduction = ExponentiatedGradient(model, moment, eps=0.01)
    reduction.fit(Xtr, ytr, sensitive_features=Atr)
    # the randomised classifier, drawn once with a fixed seed: one deterministic prediction per row
    return Ate, yte, np.asarray(reduction.predict(Xte, random_state=seed)).astype(int)


def observed_table(A: np.ndarray, Y: np.ndarray, P: np.ndarray) -> fp.ObservedTable:
    """Joint table of (attribute, outcome, prediction) from unit-level arrays."""
    return fp.ObservedTable.from_frame(pd.DataFrame({"A": A, "Y": Y, "P": P}))

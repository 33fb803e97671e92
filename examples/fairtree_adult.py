"""FairTree on UCI Adult, as in the seed paper's Section 5.

A random forest predicts income (>50K) from the Adult census data bundled with fairprobe; we
inject two known problems into its predicted probabilities: a **bias** for people under 25
(+0.15) and **extra noise** for people working more than 55 hours a week (sd 0.15), and add a
permuted copy of ``age`` as a control covariate that must never be split on. FairTree then
audits the residuals along age, sex, race, education, hours and the control.

Run: ``python examples/fairtree_adult.py`` (writes ``fairtree_adult.png`` next to this file).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from fairprobe.datasets import load_adult
from fairprobe.plugins.fairtree import FairTree


def main() -> None:
    df = load_adult().frame  # bundled UCI Adult, complete cases
    y = df.income.to_numpy()
    X = pd.get_dummies(df[["age", "education_num", "capital_gain", "capital_loss", "hours_per_week", "sex",
                           "marital_status", "occupation"]], drop_first=True, dtype=float)
    Xtr, Xte, ytr, yte, _, dte = train_test_split(X, y, df, test_size=9000, random_state=0)
    rf = RandomForestClassifier(n_estimators=100, min_samples_leaf=20, random_state=0, n_jobs=2).fit(Xtr, ytr)
    rng = np.random.default_rng(0)
    prob = rf.predict_proba(Xte)[:, 1]
    prob = prob + 0.15 * (dte.age.to_numpy() < 25)  # injected bias
    prob = prob + rng.normal(0, 0.15, len(prob)) * (dte.hours_per_week.to_numpy() > 55)  # injected noise
    covariates = pd.DataFrame({
        "age": dte.age.to_numpy(), "sex": dte.sex.to_numpy(), "race": dte.race.to_numpy(),
        "education": pd.Categorical(dte.education_num.to_numpy(), ordered=True),
        "hours": dte.hours_per_week.to_numpy(), "control": rng.permutation(dte.age.to_numpy())})
    # min_node_size=10 as in the paper (the default would scale it with the rows)
    tree = FairTree(random_state=0, max_depth=3, min_node_size=10).fit(covariates, y_true=yte, y_pred=prob)
    print(tree.summary())
    print("\ncovariate ranking at the root:")
    print(tree.covariate_ranking().to_string(index=False))
    assert "control" not in set(tree.splits_.covariate), "the permuted control covariate must not be split on"
    ax = tree.plot_tree()
    ax.figure.set_size_inches(14, 7)
    ax.figure.tight_layout()
    out = Path(__file__).with_name("fairtree_adult.png")
    ax.figure.savefig(out, dpi=130)
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()

"""Risk-score audit of a recidivism model on COMPAS (the risk-score paper's analysis style).

A gradient-boosted classifier predicts two-year recidivism from the ProPublica COMPAS data in
the bundled data (standard filters), is calibrated (isotonic) on a validation split, and its
test-set risk scores are audited by sex, age group and race (up to 3-way intersections, groups
of at least 100 people, 200 bootstraps). Writes the report folder ``riskscore_compas_report/``
next to this file.

Run: ``python examples/riskscore_compas.py``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split

from fairprobe.datasets import load_compas
from fairprobe.plugins.riskscore import RiskScoreAudit


def main() -> None:
    df = load_compas().frame  # bundled, ProPublica's standard filters
    X = pd.DataFrame({"age": df.age, "priors": df.priors_count, "juv_fel": df.juv_fel_count,
                      "juv_misd": df.juv_misd_count, "juv_other": df.juv_other_count,
                      "felony": (df.c_charge_degree == "F").astype(int), "male": (df.sex == "Male").astype(int)})
    y = df.two_year_recid.to_numpy()
    groups = pd.DataFrame({"sex": df.sex, "age_group": df.age_cat,
                           "race": df.race.where(df.race.isin(["African-American", "Caucasian", "Hispanic"]),
                                                 "Other")})
    X_tr, X_rest, y_tr, y_rest, _, g_rest = train_test_split(X, y, groups, test_size=0.5, random_state=0,
                                                             stratify=y)
    X_val, X_te, y_val, y_te, _, g_te = train_test_split(X_rest, y_rest, g_rest, test_size=0.6, random_state=0,
                                                         stratify=y_rest)
    model = HistGradientBoostingClassifier(max_depth=3, learning_rate=0.05, random_state=0).fit(X_tr, y_tr)
    calibrated = CalibratedClassifierCV(FrozenEstimator(model), method="isotonic").fit(X_val, y_val)
    risk = calibrated.predict_proba(X_te)[:, 1]
    audit = RiskScoreAudit(min_group_size=100, n_bootstrap=200,
                           random_state=0, n_jobs=2)
    audit.fit(g_te.reset_index(drop=True), y_true=y_te, y_score=risk,
              sensitive_features=["sex", "age_group", "race"])
    print(audit.summary())
    print(audit.to_frame().round(3).to_string())
    page = audit.to_report(Path(__file__).with_name("riskscore_compas_report"))
    print(f"\nreport written to {page}")


if __name__ == "__main__":
    main()

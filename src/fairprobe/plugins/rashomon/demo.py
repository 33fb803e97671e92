"""The Rashomon-set step of ``fairprobe demo`` (moved here from :mod:`fairprobe.cli.demo`)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairprobe.core.small_groups import too_few_text

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report

__all__ = ["demo_step", "lending_example"]


def demo_step(cls: type, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int,
              n_jobs: int, progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
    """A Rashomon set of decision trees on the scenario's recorded defaults; conflicts per applicant and group.

    Parameters
    ----------
    cls : type
        :class:`~fairprobe.plugins.rashomon.rashomon_set.RashomonSet` (or a subclass).
    report : fairprobe.reporting.report.Report
        Gets the step's section.
    scenario : fairprobe.datasets Scenario
        :func:`fairprobe.datasets.make_lending_scenario`'s data.
    facts : dict
        Gets ``facts["multiplicity"]`` (members, ambiguity, flagged share).
    quick : bool
        Fewer candidate models.
    seed : int
        Random seed.
    n_jobs : int
        Parallel workers.
    progress : bool
        Show progress bars.

    Returns
    -------
    found : dict
        Empty: multiplicity is not one of the scenario's injected problems.
    table : DataFrame
        Held-out applicants, members and conflicts per group.
    lines : list of str
        The finding line.

    Examples
    --------
    >>> from fairprobe.datasets import make_lending_scenario
    >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
    >>> from fairprobe.reporting.report import Report
    >>> found, table, lines = demo_step(RashomonSet, Report("demo"), make_lending_scenario(3000, seed=0), {},
    ...                                 quick=True, seed=0, n_jobs=1, progress=False)
    >>> lines[0].startswith("- multiplicity: "), list(table.columns)
    (True, ['applicants', 'mean_conflict', 'flagged_share', 'too_few'])
    """
    from sklearn.tree import DecisionTreeClassifier

    audit = scenario.audit_frame
    X = audit[["age", "income", "education", "region", "employed"]].assign(
        income=np.log(audit.income), education=audit.education.cat.codes, region=audit.region.cat.codes)
    rng = np.random.default_rng(seed)
    test = rng.random(len(audit)) < 0.3
    n_models = 40 if quick else 150
    rs = cls(estimator=DecisionTreeClassifier(), param_grid={"max_depth": [3, 4, 5, 6, 8],
                                                             "min_samples_leaf": [10, 30, 100]},
             epsilon=0.01, n_models=n_models, subsample=0.5, categorical_features=["education", "region"],
             threshold=0.2, random_state=seed, n_jobs=n_jobs, progress=progress,
             metric="balanced_accuracy")  # defaults are rare: plain accuracy barely beats "no default"
    y = audit.default.to_numpy()
    # the held-out applicants score the trees and are the audit set; their group gives the per-group table
    with warnings.catch_warnings(record=True) as caught:  # the report says it; the demo's output stays clean
        warnings.simplefilter("always", UserWarning)
        rs.fit(X[~test], y_true=y[~test], X_held=X[test], y_held=y[test],
               sensitive_features=audit.group[test].to_numpy())
    P = rs.audit_predictions_
    described = audit.loc[test, ["age", "income", "education", "region"]]
    individual = pd.concat([rs.to_frame(), described], axis=1)
    by_group = rs.by_group_.rename(columns={"rows": "applicants"})
    sec = report.section(
        "Predictive multiplicity: would another equally good model decide differently?",
        "A Rashomon set of decision trees predicting the recorded default, each trained on a random half of "
        "the training rows with hyperparameters drawn from a grid; members are within 0.01 balanced accuracy "
        "of the cross-validated best tree (plain accuracy barely beats always predicting 'no default'). The "
        "conflict ratio of an applicant is the share of members that disagree "
        "with the majority (0 to 0.5).")
    for warning in caught:
        if issubclass(warning.category, UserWarning):
            sec.add_note(f"Warning: {warning.message}")
    sec.add_parameters({"models trained": n_models, "members": P.shape[0], "epsilon": 0.01,
                        "reference balanced accuracy": round(rs.reference_score_, 4), "bootstrap size": "50 %"})
    figures = rs.figures()
    sec.add_figure("conflict ratios", figures["conflict ratios"](), "Conflict ratios of the held-out applicants.")
    sec.add_figure("ambiguity", figures["ambiguity"](), "delta-ambiguity against delta.")
    sec.add_table("conflict by group", by_group.round(4))
    sec.add_table("most contested applicants", individual.sort_values("conflict_ratio", ascending=False)
                  .head(15).round(3))
    ambiguity = rs.delta_ambiguity(delta=0.0)
    flagged = float(individual.flagged.mean())
    caution = rs.trivial_reference_note()
    facts["multiplicity"] = {"members": int(P.shape[0]), "ambiguity": ambiguity, "flagged_share": flagged,
                             "headline_held_back": bool(caution)}
    if caution:  # no headline next to a warning that the reference model is useless
        sec.add_note(f"No headline: {caution}.")
        lines = [f"- multiplicity: no headline; {caution} (conflicting decisions for {ambiguity:.1%} of "
                 "applicants, in the report)"]
    else:
        lines = [f"- multiplicity: {P.shape[0]} near-optimal trees; {ambiguity:.1%} of applicants get conflicting "
                 f"decisions, {flagged:.1%} with conflict ratio > 0.2 ({_group_share(by_group, 0)}, "
                 f"{_group_share(by_group, 1)})"]
    return {}, by_group, lines


def _group_share(by_group: pd.DataFrame, group: Any) -> str:
    """``"group 0 12.5%"``, with core's caveat when the group's applicants are too few to say."""
    if group not in by_group.index:
        return f"group {group} {float('nan'):.1%}"
    row = by_group.loc[group]
    caveat = f" ({too_few_text(f'{int(row.applicants)} applicants')})" if row.too_few else ""
    return f"group {group} {row.flagged_share:.1%}{caveat}"


def lending_example(cls: type, *, seed: int = 0) -> Any:
    """Decision trees behind a one-hot encoding on 1,200 synthetic loan applicants, audited by group.

    What :meth:`RashomonSet.example <fairprobe.plugins.rashomon.rashomon_set.RashomonSet.example>` returns.

    Parameters
    ----------
    cls : type
        :class:`~fairprobe.plugins.rashomon.rashomon_set.RashomonSet` (or a subclass).
    seed : int
        Seed of the generated data and of the analysis.

    Returns
    -------
    fairprobe.plugins.base.Example

    Examples
    --------
    >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
    >>> lending_example(RashomonSet).analysis.n_models
    12
    """
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    from fairprobe.datasets import make_lending_scenario
    from fairprobe.plugins.base import Example
    from fairprobe.plugins.rashomon.candidates import text_columns

    audit = make_lending_scenario(1200, seed=seed).audit_frame
    X = audit[["age", "income", "education", "region", "employed"]].astype({"education": str, "region": str})
    # text columns chosen by type, not by name: the same estimator fits any table (the web app
    # fits it on a user's columns)
    encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), text_columns), remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(min_samples_leaf=10))
    # balanced accuracy: defaults are rare, and plain accuracy barely beats always predicting "no default"
    rs = cls(estimator=model, param_grid={"decisiontreeclassifier__max_depth": [3, 4, 6]}, epsilon=0.02,
             n_models=12, subsample=0.5, cv=3, metric="balanced_accuracy", random_state=seed, progress=False)
    return Example(rs, X, {"y_true": audit["default"].to_numpy(), "sensitive_features": audit["group"]})

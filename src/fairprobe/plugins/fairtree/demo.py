"""FairTree's step of ``fairprobe demo``: the income model's residuals on the lending scenario.

The scenario (:func:`fairprobe.datasets.make_lending_scenario`) injects biased residuals for
``age < 25`` and extra variance for ``education == "none"``; the step reports whether FairTree
finds both. It gets the analysis class from :meth:`FairTree.demo
<fairprobe.plugins.fairtree.tree.FairTree.demo>` rather than importing it, so this module and
:mod:`~fairprobe.plugins.fairtree.tree` do not import each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report

__all__ = ["COVARIATES", "demo_step"]

#: Covariates the demo audits the income model along.
COVARIATES = ["age", "education", "region", "employed", "group"]


def demo_step(cls: type, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int,
              n_jobs: int, progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
    """Audit the scenario's income model with FairTree and add a section to ``report``.

    Parameters
    ----------
    cls : type
        :class:`~fairprobe.plugins.fairtree.tree.FairTree` (or a subclass).
    report : fairprobe.reporting.report.Report
        The demo's report.
    scenario : fairprobe.datasets.Scenario
        The lending scenario (its ``audit_frame`` has ``income`` and ``income_estimate``).
    facts : dict
        Findings for ``summary.json``; ``facts["fairtree"]["splits"]`` lists each split.
    quick : bool
        Quick mode (unused: the fluctuation test is fast).
    seed : int
        Seed of the tree (the only setting this step uses).
    n_jobs : int
        Parallel workers.
    progress : bool
        Show progress bars.

    Returns
    -------
    found : dict of str to bool
        ``biased_residuals`` (an age split near 25 classified bias or both) and ``extra_variance``
        (an education split separating ``none``, classified variance or both).
    table : DataFrame
        The splits.
    lines : list of str
        One ``"- FairTree: ..."`` finding line.

    Examples
    --------
    >>> from fairprobe.datasets import make_lending_scenario
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> from fairprobe.reporting.report import Report
    >>> found, table, lines = demo_step(FairTree, Report("demo"), make_lending_scenario(8000, seed=0), {},
    ...                                 quick=True, seed=0, n_jobs=1, progress=False)
    >>> found
    {'biased_residuals': True, 'extra_variance': True}
    """
    audit = scenario.audit_frame
    tree = cls(random_state=seed, max_depth=3, min_node_size=100).fit(
        audit[COVARIATES], y_true=np.log(audit.income.to_numpy()), y_pred=np.log(audit.income_estimate.to_numpy()))
    splits = tree.splits_
    sec = report.section(
        "FairTree: where does the income model err, and is it bias or variance?",
        "FairTree recursively splits the applicants along the covariate whose residuals (log estimate minus "
        "log income) change most significantly (fluctuation tests, Bonferroni-adjusted), and says whether "
        "each split separates a bias (mean residual), a variance (spread) or both.")
    sec.add_parameters({"test": "fluctuation", "alpha": 0.05, "max_depth": 3, "min_node_size": 100,
                        "covariates": ", ".join(COVARIATES)})
    sec.add_figure("tree", tree.figures()["tree"](), "The FairTree of the income model's residuals.")
    sec.add_note(tree.summary().as_text())
    sec.add_table("splits", splits)
    sec.add_table("subgroups", tree.leaves_.round(4))
    age = splits[(splits.covariate == "age") & splits.classification.isin(["bias", "both"])]
    edu = splits[(splits.covariate == "education") & splits.classification.isin(["variance", "both"])]
    found = {"biased_residuals": bool(age.threshold.astype(float).between(21, 28).any()),
             "extra_variance": bool(edu.left.str.contains("none").any())}
    facts["fairtree"] = {"splits": [f"{r.left} ({r.classification})" for r in splits.itertuples()]}
    lines = [f"- FairTree: {len(splits)} significant splits, {len(tree.leaves_)} subgroups; "
             + "; ".join(f"{r.left} ({r.classification})" for r in splits.itertuples())]
    return found, splits, lines

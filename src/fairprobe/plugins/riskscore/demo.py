"""The risk-score audit's step of ``fairprobe demo`` (:meth:`RiskScoreAudit.demo` delegates here).

The step gets the analysis class from :meth:`RiskScoreAudit.demo` rather than importing it, so this
module and :mod:`~fairprobe.plugins.riskscore.audit` do not import each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from fairprobe.plugins.riskscore.common import add_text

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report

__all__ = ["FEATURES", "demo_step"]

#: The scenario's sensitive features audited by the demo.
FEATURES = ["group", "region", "education"]


def demo_step(cls: type, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool,
              seed: int, n_jobs: int, progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
    """Audit the scenario's risk score per group; detect the miscalibrated region (east).

    Parameters
    ----------
    cls : type
        :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit` (or a subclass).
    report : fairprobe.reporting.report.Report
        Receives the step's section.
    scenario : fairprobe.datasets.Scenario
        :func:`fairprobe.datasets.make_lending_scenario`'s data.
    facts : dict
        Receives ``facts["riskscore"]``: the worst calibrated single-attribute group and the DRMSCE of each.
    quick : bool
        30 resamples and single attributes only.
    seed : int
        Random seed.
    n_jobs : int
        Parallel workers.
    progress : bool
        Show progress bars.

    Returns
    -------
    found : dict of str to bool
        ``{"miscalibrated_group": worst calibrated group is region=east}``.
    table : DataFrame
        ``by_group_`` (point estimates).
    lines : list of str
        One finding for the demo's summary.

    Examples
    --------
    >>> from fairprobe.datasets import make_lending_scenario
    >>> from fairprobe.plugins.riskscore.audit import RiskScoreAudit
    >>> from fairprobe.reporting.report import Report
    >>> facts = {}
    >>> found, table, lines = demo_step(RiskScoreAudit, Report("demo"), make_lending_scenario(4000, seed=0), facts,
    ...                                 quick=True, seed=0, n_jobs=1, progress=False)
    >>> found, facts["riskscore"]["worst_calibrated"]
    ({'miscalibrated_group': True}, 'region=east')
    """
    audit = scenario.audit_frame
    data = audit.assign(**{c: audit[c].astype(str) for c in FEATURES})
    ra = cls(max_intersections=1 if quick else 2, min_group_size=100, n_bootstrap=30 if quick else 200,
             random_state=seed, n_jobs=n_jobs, progress=progress).fit(data, y_true="default", y_score="score",
                                                                      sensitive_features=FEATURES)
    by_group = ra.by_group_
    sec = ra.report_section(report, "Risk-score audit: calibration, discrimination and representation per group")
    add_text(sec, "DRMSCE (debiased calibration error, 0 = calibrated), ECE (10 equal-width bins), AUROC and AUPRG "
                 "(discrimination) and expected under-representation (EUR, 1 = never under-represented among the "
                 "highest scores) for every group and intersection with at least 100 applicants: point estimates "
                 "with 95 % bootstrap intervals. EUR is compared with random groups of the same size (a permutation "
                 "test adjusted for the number of groups). The scenario builds three causes of a low EUR in: group "
                 "1's recorded defaults include non-defaulters (positives the score ranks low), the east's inflated "
                 "scores crowd the other regions out of the top, and more education means lower true risk, so a "
                 "calibrated score flags fewer of the educated than their share of the defaults.")
    single = by_group[by_group.index.map(ra.n_attributes_) == 1]
    worst = single.drmsce.idxmax()
    found = {"miscalibrated_group": worst == "region=east"}
    facts["riskscore"] = {"worst_calibrated": worst, "drmsce": single.drmsce.round(4).to_dict()}
    diff = ra.differences_.set_index(["group", "metric"])
    gap = diff.loc[(worst, "drmsce")]
    tests = ra.eur_tests_.set_index("group")
    flagged = [g for g in single.index if g in tests.index and tests.loc[g, "flagged"]]
    facts["riskscore"]["eur_flagged"] = flagged
    lines = [f"- risk scores: worst calibrated group {worst} (DRMSCE {single.drmsce.max():.3f}, overall "
             f"{by_group.loc['all', 'drmsce']:.3f}; difference {gap['difference']:+.3f} [{gap['lower']:+.3f}, "
             f"{gap['upper']:+.3f}]); lowest AUROC {single.auroc.idxmin()} ({single.auroc.min():.3f}); "
             f"EUR beyond chance: {', '.join(flagged) if flagged else 'no single-attribute group'}"]
    return found, by_group, lines

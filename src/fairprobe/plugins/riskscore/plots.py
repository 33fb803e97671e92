"""Plots of a fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.

Every plot that shows only some of the audited groups says so in its title; the tables of the
audit (and of its report) always hold every group.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError
from fairprobe.plugins.riskscore.common import BADNESS
from fairprobe.reporting.plotting import new_axes

__all__ = ["extreme_groups", "plot_curves", "plot_distributions", "plot_metric_panel", "plot_reliability",
           "plot_representation"]

_GRID = np.linspace(0, 1, 21)
_LOWER_IS_BETTER = {"drmsce", "ece"}


def extreme_groups(audit: Any, metric: str = "drmsce") -> list[str]:
    """The best and the worst group by point estimate (excluding "all"), plus "all".

    Only groups whose value and interval are defined are ranked (as in the summary).

    Parameters
    ----------
    audit : RiskScoreAudit
        A fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.
    metric : str
        A computed metric (``"drmsce"``: lower is better; otherwise higher is).

    Returns
    -------
    list of str
        The best group, the worst group and ``"all"`` (only ``"all"`` without values).

    Examples
    --------
    >>> from fairprobe.plugins.riskscore import RiskScoreAudit
    >>> extreme_groups(RiskScoreAudit.example().fit(), "drmsce")[-1]
    'all'
    """
    res = audit.results_
    sub = _defined(res[(res.metric == metric) & (res.group != "all")])
    if sub.empty:
        return ["all"]
    order = sub.assign(_bad=sub["point"].map(BADNESS[metric])).sort_values("_bad", kind="stable").group.tolist()
    return list(dict.fromkeys([order[0], order[-1], "all"]))


def _defined(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows with a defined value (``point`` or ``difference``) and interval."""
    value = "difference" if "difference" in frame.columns else "point"
    return frame.dropna(subset=[value, "lower", "upper"])


def _check_groups(audit: Any, groups: list[str] | None, metric: str) -> tuple[list[str], str]:
    """The groups to draw and the title's note on which ones they are."""
    total = len(audit.groups_)
    if groups:
        unknown = [g for g in groups if g not in audit.groups_]
        if unknown:
            raise ConfigError(f"Unknown group(s) {unknown}; audited groups are listed in audit.groups_.")
        return list(groups), f"{len(groups)} of {total} groups"
    # the preferred metric, else the first with values (calibration is NaN for non-probabilities)
    for m in dict.fromkeys([metric, audit.discrimination_metric_, *audit.metrics]):
        if m in audit.metrics and audit._has_values(m):
            chosen = extreme_groups(audit, m)
            return chosen, f"best and worst by {m}, and all: {len(chosen)} of {total} groups"
    return ["all"], f"all only: 1 of {total} groups"


def _rows(audit: Any, frame: pd.DataFrame, top: int) -> tuple[pd.DataFrame, str]:
    """Every single-attribute group (and all) plus the ``top`` most extreme intersections."""
    value = "difference" if "difference" in frame.columns else "point"
    k = frame.group.map(audit.n_attributes_)
    single, inter = frame[k <= 1], frame[k > 1].sort_values(value, kind="stable")
    n_single = int((k == 1).sum())
    note = f"all {n_single} single-attribute groups"
    if len(inter) > top:
        keep = np.r_[0: top // 2, len(inter) - (top - top // 2): len(inter)]
        note += f", the {top} most extreme of {len(inter)} intersections"
        inter = inter.iloc[keep]
    elif len(inter):
        note += f", all {len(inter)} intersections"
    return pd.concat([single, inter]).sort_values(value, kind="stable"), note


def plot_metric_panel(audit: Any, metric: str, *, ax: Any = None, top: int = 15, differences: bool = False) -> Any:
    """Point estimate with percentile interval per group, sizes in the labels (``differences``: group - all).

    Every single-attribute group with a defined value and interval is shown; of the intersections,
    the ``top`` most extreme. Undefined ones are left out and counted in the title.

    Parameters
    ----------
    audit : RiskScoreAudit
        A fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.
    metric : str
        A computed metric.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    top : int
        Intersections shown (half from each end).
    differences : bool
        Show the paired difference to the whole population instead of the metric.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ConfigError
        ``metric`` was not computed.

    Examples
    --------
    >>> from fairprobe.plugins.riskscore import RiskScoreAudit
    >>> ax = plot_metric_panel(RiskScoreAudit.example().fit(), "auroc", differences=True)
    >>> len(ax.get_yticklabels())  # 2 groups, 5 regions, 4 education levels (all is the line at 0)
    11
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    res = audit.differences_ if differences else audit.results_
    if metric not in set(audit.metrics):
        raise ConfigError(f"Metric {metric!r} was not computed; computed: {list(audit.metrics)}.")
    rows = res[(res.metric == metric) & (res.group != "all")]
    if differences and metric in ("ece", "eur"):  # compared with random groups of the same size
        return _chance_difference_panel(audit, metric, rows, top, ax)
    defined = _defined(rows)
    sub, note = _rows(audit, defined, top)
    if len(defined) < len(rows):
        note += f"; {len(rows) - len(defined)} undefined (see the table's note) not shown"
    value = sub["difference" if differences else "point"]
    ax = new_axes(ax, (7, 0.35 * len(sub) + 1.5))
    yy = np.arange(len(sub))
    # the interval as a line and the estimate as a dot: a point estimate may lie outside its percentile interval
    ax.hlines(yy, sub["lower"], sub["upper"], color="tab:blue", lw=1.2)
    ax.plot(value, yy, "o", ms=4, color="tab:blue")
    ax.set_yticks(yy, [f"{g} (n={n})" for g, n in zip(sub.group, sub.n, strict=True)], fontsize=7)
    pct = f"{audit.ci * 100:g}%"
    if differences:
        ax.axvline(0.0, color="grey", ls=":", lw=1)
        ax.set_xlabel(f"{metric}(group) - {metric}(all) (point estimate, paired {pct} bootstrap interval)")
    else:
        overall = res[(res.metric == metric) & (res.group == "all")]["point"]
        if len(overall) and np.isfinite(overall.iloc[0]):
            ax.axvline(float(overall.iloc[0]), color="grey", ls=":", lw=1)
        ax.set_xlabel(f"{metric} (point estimate, {pct} bootstrap interval); dotted: all")
    ax.set_title(f"{metric}{' - all' if differences else ''}: {note}", fontsize=9)
    return ax


def _chance_difference_panel(audit: Any, metric: str, rows: pd.DataFrame, top: int | None, ax: Any) -> Any:
    """Value minus chance per group (ECE, EUR); red where the adjusted permutation test flags it.

    These metrics have no paired interval against all (EUR(all) is 1 by definition, the plug-in
    ECE grows as groups shrink): the panel shows each group's distance from random groups of its
    size, and which distances are beyond chance.
    """
    defined = rows.dropna(subset=["difference"])
    sub, note = _rows(audit, defined, top)
    if len(defined) < len(rows):
        note += f"; {len(rows) - len(defined)} undefined (see the table's note) not shown"
    ax = new_axes(ax, (7, 0.35 * len(sub) + 1.5))
    yy = np.arange(len(sub))
    flagged = sub["flagged"].to_numpy(dtype=bool)
    ax.hlines(yy, 0.0, sub["difference"], color="tab:blue", lw=1.0)
    ax.plot(sub["difference"][flagged], yy[flagged], "o", ms=5, color="tab:red", label="flagged")
    ax.plot(sub["difference"][~flagged], yy[~flagged], "o", ms=5, mfc="white", color="tab:blue",
            label="within chance")
    ax.set_yticks(yy, [f"{g} (n={n})" for g, n in zip(sub.group, sub.n, strict=True)], fontsize=7)
    ax.axvline(0.0, color="grey", ls=":", lw=1)
    ax.set_xlabel(f"{metric}(group) - {metric}(random groups of the same size); flagged: two-sided permutation "
                  f"test, adjusted p <= {1 - audit.ci:.2g}")
    if len(sub):
        ax.legend(fontsize=7, loc="best")
    ax.set_title(f"{metric} - chance: {note}", fontsize=9)
    return ax


def plot_reliability(audit: Any, groups: list[str] | None = None, *, ax: Any = None) -> Any:
    """LOWESS reliability curves (frac = max(0.3, min(1, 250/n)), it=0) with bootstrap bands.

    Parameters
    ----------
    audit : RiskScoreAudit
        A fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.
    groups : list of str, optional
        Groups to draw, as in ``audit.groups_`` (default: the best and the worst by the metric, and ``"all"``).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ConfigError
        The scores are not probabilities, or an unknown group.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.riskscore import RiskScoreAudit
    >>> ax = plot_reliability(RiskScoreAudit.example().fit(), ["all"])
    >>> ax.get_title()
    'Reliability: 1 of 12 groups'
    >>> plt.close("all")
    """
    from statsmodels.nonparametric.smoothers_lowess import lowess

    if not audit.bounded_:
        raise ConfigError(f"A reliability diagram needs probabilities; {audit.calibration_note_}")
    groups, note = _check_groups(audit, groups, "drmsce")
    ax = new_axes(ax, (5, 5))
    x = np.linspace(0, 1, 100)
    rng = np.random.default_rng(audit.random_state)
    n_boot = min(audit.n_bootstrap, 100)
    for g in groups:
        idx = audit.groups_[g]
        y, r = audit.y_[idx], audit.r_[idx]
        frac = max(0.3, min(1.0, 250 / idx.size))
        curves = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(n_boot):
                d = rng.integers(0, idx.size, idx.size)
                curves.append(lowess(y[d], r[d], frac=frac, it=0, xvals=x))
        curves = np.array(curves)
        med = np.nanmedian(curves, axis=0)
        line, = ax.plot(x, med, label=f"{g} (n={idx.size})")
        ax.fill_between(x, np.nanquantile(curves, 0.025, axis=0), np.nanquantile(curves, 0.975, axis=0),
                        color=line.get_color(), alpha=0.2)
    ax.plot([0, 1], [0, 1], "k--", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("risk score R")
    ax.set_ylabel("P(Y = 1 | R, G)")
    ax.set_title(f"Reliability: {note}", fontsize=9)
    ax.legend(frameon=False, fontsize=7)
    return ax


def _roc_points(y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.metrics import roc_curve

    fpr, tpr, _ = roc_curve(y, r)
    xs, ind = np.unique(fpr, return_inverse=True)
    best = np.full(xs.size, -np.inf)
    np.maximum.at(best, ind, tpr)
    return np.interp(_GRID, xs, best, left=0, right=1), _GRID


def _prg_points(y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from fairprobe.plugins.riskscore.discrimination import prg_curve

    rec, prec = prg_curve(y, r)
    if rec.size == 0:
        return np.full(_GRID.size, np.nan), _GRID
    xs, ind = np.unique(rec, return_inverse=True)
    best = np.full(xs.size, -np.inf)
    np.maximum.at(best, ind, prec)
    return np.interp(_GRID, xs, best), _GRID


def plot_curves(audit: Any, kind: str, groups: list[str] | None = None, *, ax: Any = None) -> Any:
    """ROC (``kind="roc"``) or PRG (``"prg"``) curves: bootstrap median and 95% band.

    Parameters
    ----------
    audit : RiskScoreAudit
        A fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.
    kind : {"roc", "prg"}
        Receiver-operating-characteristic or precision-recall-gain curves.
    groups : list of str, optional
        Groups to draw, as in ``audit.groups_`` (default: the best and the worst by the metric, and ``"all"``).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.riskscore import RiskScoreAudit
    >>> ax = plot_curves(RiskScoreAudit.example().fit(), "prg", ["all", "group=1"])
    >>> ax.get_title(), ax.get_xlabel()
    ('PRG: 2 of 12 groups', 'recall gain')
    >>> plt.close("all")
    """
    metric = "auroc" if kind == "roc" else "auprg"
    groups, note = _check_groups(audit, groups, metric)
    ax = new_axes(ax, (5, 5))
    rng = np.random.default_rng(audit.random_state)
    points = _roc_points if kind == "roc" else _prg_points
    for g in groups:
        idx = audit.groups_[g]
        y, r = audit.y_[idx], audit.r_[idx]
        curves = []
        for _ in range(min(audit.n_bootstrap, 100)):
            d = rng.integers(0, idx.size, idx.size)
            if 0 < y[d].sum() < idx.size:
                curves.append(points(y[d], r[d])[0])
        if not curves:
            continue
        curves = np.array(curves)
        line, = ax.plot(_GRID, np.nanmedian(curves, axis=0), label=f"{g}")
        ax.fill_between(_GRID, np.nanquantile(curves, 0.025, axis=0), np.nanquantile(curves, 0.975, axis=0),
                        color=line.get_color(), alpha=0.2)
    if kind == "roc":
        ax.plot([0, 1], [0, 1], "k--", lw=0.8)
        ax.set_xlabel("false-positive rate")
        ax.set_ylabel("true-positive rate")
    else:
        ax.plot([0, 1], [1, 0], "k--", lw=0.8, label="F1 baseline")
        ax.set_xlabel("recall gain")
        ax.set_ylabel("precision gain")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"{kind.upper()}: {note}", fontsize=9)
    ax.legend(frameon=False, fontsize=7)
    return ax


def plot_representation(audit: Any, groups: list[str] | None = None, *, ax: Any = None) -> Any:
    """p(G | R >= tau) / p(G | Y = 1) against the threshold's quantile, with bootstrap bands.

    Parameters
    ----------
    audit : RiskScoreAudit
        A fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.
    groups : list of str, optional
        Groups to draw, as in ``audit.groups_`` (default: the best and the worst by the metric, and ``"all"``).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.riskscore import RiskScoreAudit
    >>> ax = plot_representation(RiskScoreAudit.example().fit())
    >>> ax.get_title()
    'Representation: best and worst by eur, and all: 3 of 12 groups (all = the line at 1)'
    >>> plt.close("all")
    """
    from fairprobe.plugins.riskscore.representation import representation_curve

    chosen, note = _check_groups(audit, groups, "eur")
    groups = [g for g in chosen if g != "all"] or list(audit.groups_)[1:2]
    if "all" in chosen:  # "all" is the reference line at 1, not a curve
        note = f"{note} (all = the line at 1)"
    ax = new_axes(ax, (6, 4))
    rng = np.random.default_rng(audit.random_state)
    y, r = audit.y_, audit.r_
    n = y.size
    for g in groups:
        mask = np.zeros(n, dtype=bool)
        mask[audit.groups_[g]] = True
        target = float(mask[y == 1].mean()) if y.sum() else np.nan
        if not target > 0:
            continue
        grid, _ = representation_curve(r, y, mask, target=target)
        curves = []
        for _ in range(min(audit.n_bootstrap, 100)):
            d = rng.integers(0, n, n)
            curves.append(representation_curve(r[d], y[d], mask[d], target=target, grid=grid)[1])
        curves = np.array(curves)
        line, = ax.plot(grid, np.median(curves, axis=0), label=g)
        ax.fill_between(grid, np.quantile(curves, 0.025, axis=0), np.quantile(curves, 0.975, axis=0),
                        color=line.get_color(), alpha=0.2)
    ax.axhline(1.0, color="k", ls="--", lw=0.8)
    ax.set_xlabel("threshold quantile of the risk scores")
    ax.set_ylabel("p(G | flagged) / p(G | Y = 1)")
    ax.set_title(f"Representation: {note}", fontsize=9)
    ax.legend(frameon=False, fontsize=7)
    return ax


def plot_distributions(audit: Any, groups: list[str] | None = None, *, ax: Any = None) -> Any:
    """Histogram densities of the scores per group (bins over the scores' range).

    Parameters
    ----------
    audit : RiskScoreAudit
        A fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`.
    groups : list of str, optional
        Groups to draw, as in ``audit.groups_`` (default: the best and the worst by the metric, and ``"all"``).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.riskscore import RiskScoreAudit
    >>> ax = plot_distributions(RiskScoreAudit.example().fit(), ["group=0", "group=1"])
    >>> ax.get_title()
    'Score distributions: 2 of 12 groups'
    >>> plt.close("all")
    """
    groups, note = _check_groups(audit, groups, "drmsce")
    ax = new_axes(ax, (6, 4))
    lo, hi = audit.score_range_
    # probabilities on [0, 1]; other scores (a decision function, a decile) over their own range
    bins = np.linspace(0, 1, 31) if audit.bounded_ else np.linspace(lo, hi if hi > lo else lo + 1, 31)
    for g in groups:
        ax.hist(audit.r_[audit.groups_[g]], bins=bins, density=True, histtype="step", lw=1.5, label=g)
    ax.set_xlabel("risk score")
    ax.set_ylabel("density")
    ax.set_title(f"Score distributions: {note}", fontsize=9)
    ax.legend(frameon=False, fontsize=7)
    return ax

"""Plots and the HTML report of a fitted :class:`~fairprobe.plugins.riskscore.audit.RiskScoreAudit`."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError
from fairprobe.plotting import new_axes

__all__ = ["plot_curves", "plot_distributions", "plot_metric_panel", "plot_reliability", "plot_representation",
           "write_report"]

_GRID = np.linspace(0, 1, 21)
_LOWER_IS_BETTER = {"drmsce"}


def extreme_groups(audit: Any, metric: str = "drmsce") -> list[str]:
    """The best and the worst group by bootstrap median (excluding "all"), plus "all"."""
    res = audit.results_
    sub = res[(res.metric == metric) & (res.group != "all")].dropna(subset=["median"])
    if sub.empty:
        return ["all"]
    order = sub.sort_values("median", ascending=metric in _LOWER_IS_BETTER).group.tolist()
    return list(dict.fromkeys([order[0], order[-1], "all"]))


def _check_groups(audit: Any, groups: list[str] | None, metric: str) -> list[str]:
    groups = groups or extreme_groups(audit, metric if metric in audit.metrics else audit.metrics[0])
    unknown = [g for g in groups if g not in audit.groups_]
    if unknown:
        raise ConfigError(f"Unknown group(s) {unknown}; audited groups are listed in audit.groups_.")
    return groups


def plot_metric_panel(audit: Any, metric: str, ax: Any = None, top: int = 15) -> Any:
    """Median with percentile interval per group (most extreme ``top`` groups), sizes on the right."""
    res = audit.results_
    if metric not in set(res.metric):
        raise ConfigError(f"Metric {metric!r} was not computed; computed: {sorted(set(res.metric))}.")
    sub = res[res.metric == metric].dropna(subset=["median"]).sort_values("median")
    if len(sub) > top:
        keep = sub.iloc[np.r_[0: top // 2, len(sub) - (top - top // 2): len(sub)]]
        sub = keep if "all" in set(keep.group) else pd.concat([keep, sub[sub.group == "all"]])
    ax = new_axes(ax, (7, 0.35 * len(sub) + 1.5))
    yy = np.arange(len(sub))
    ax.errorbar(sub["median"], yy, xerr=[sub["median"] - sub["lower"], sub["upper"] - sub["median"]], fmt="o",
                ms=4, capsize=2, color="tab:blue")
    ax.set_yticks(yy, [f"{g} (n={n})" for g, n in zip(sub.group, sub.n, strict=True)], fontsize=7)
    overall = res[(res.metric == metric) & (res.group == "all")]["median"]
    if len(overall):
        ax.axvline(float(overall.iloc[0]), color="grey", ls=":", lw=1)
    ax.set_xlabel(f"{metric} (bootstrap median, {int(audit.ci * 100)}% interval)")
    return ax


def plot_reliability(audit: Any, groups: list[str] | None = None, ax: Any = None) -> Any:
    """LOWESS reliability curves (frac = max(0.3, min(1, 250/n)), it=0) with bootstrap bands."""
    from statsmodels.nonparametric.smoothers_lowess import lowess

    groups = _check_groups(audit, groups, "drmsce")
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


def plot_curves(audit: Any, kind: str, groups: list[str] | None = None, ax: Any = None) -> Any:
    """ROC (``kind="roc"``) or PRG (``"prg"``) curves: bootstrap median and 95% band."""
    metric = "auroc" if kind == "roc" else "auprg"
    groups = _check_groups(audit, groups, metric)
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
    ax.legend(frameon=False, fontsize=7)
    return ax


def plot_representation(audit: Any, groups: list[str] | None = None, ax: Any = None) -> Any:
    """p(G | R >= tau) / p(G | Y = 1) against the threshold's quantile, with bootstrap bands."""
    from fairprobe.plugins.riskscore.representation import representation_curve

    groups = [g for g in _check_groups(audit, groups, "eur") if g != "all"] or list(audit.groups_)[1:2]
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
    ax.legend(frameon=False, fontsize=7)
    return ax


def plot_distributions(audit: Any, groups: list[str] | None = None, ax: Any = None) -> Any:
    """Histogram densities of the scores per group."""
    groups = _check_groups(audit, groups, "drmsce")
    ax = new_axes(ax, (6, 4))
    bins = np.linspace(0, 1, 31)
    for g in groups:
        ax.hist(audit.r_[audit.groups_[g]], bins=bins, density=True, histtype="step", lw=1.5, label=g)
    ax.set_xlabel("risk score")
    ax.set_ylabel("density")
    ax.legend(frameon=False, fontsize=7)
    return ax


def write_report(audit: Any, path: str, *, force: bool = False) -> str:
    """Every plot, the tables and the summary as a shared-format report folder (``fairprobe.report``)."""
    from fairprobe.report import write_report as write

    figures = {f"metric {m}": (lambda m=m: audit.plot_metrics(m)) for m in audit.metrics}
    figures.update({"reliability": audit.plot_reliability, "roc": audit.plot_roc, "prg": audit.plot_prg,
                    "distributions": audit.plot_distributions})
    if "eur" in audit.metrics:
        figures["representation"] = audit.plot_representation
    page = write(
        path, "Risk-score audit", summary=audit.summary(), section="Risk-score fairness per group",
        text="DRMSCE (debiased calibration error), AUROC / AUPRG (discrimination) and expected "
             "under-representation per group, with bootstrap medians and percentile intervals.",
        parameters={"sensitive features": ", ".join(audit.sensitive_features), "bootstrap": audit.n_bootstrap,
                    "max intersections": audit.max_intersections, "min group size": audit.min_group_size,
                    "confidence": audit.ci, "random state": audit.random_state},
        figures=figures,
        tables={"metrics by group (bootstrap medians)": audit.by_group.round(4), "results": audit.results_,
                "dropped groups": audit.dropped_groups_}, force=force)
    return str(page)

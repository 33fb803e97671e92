"""What a study publishes: the fragility table, the ranking of metrics, the figures and the report.

The quantity is the paper's: for each trained model (data set x classifier x constraint), metric,
bias and level ``D``, the **worst-case absolute disparity** ``max(|lower|, |upper|)`` of the
certified bound, and its **increase** over the model's observed disparity (the value at ``D = 0``).
Averages are over the models, and their uncertainty is a percentile bootstrap over the models
(the unit of replication of the study), with the study's seed. Fewer than
:data:`~fairprobe.core.small_groups.MIN_MODELS` models (one) have nothing to resample: their
averages are given without an interval or a probability of rank (empty cells), as the project's
rule for too few to say (:mod:`fairprobe.core.small_groups`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.core.small_groups import MIN_MODELS

__all__ = ["dataset_figure", "figure5", "fragility_table", "metric_ranking"]

MODEL = ["dataset", "classifier", "constraint"]


def _by_model(results: pd.DataFrame, value: str, levels: Sequence[str], *, drop: bool = True) -> pd.DataFrame:
    """Models x (levels...) matrix of ``value``; a model missing a cell (a failed bound) is dropped."""
    ok = results[results.status.isin(["optimal", "limit"])]
    wide = ok.pivot_table(index=MODEL, columns=list(levels), values=value, aggfunc="first", dropna=False)
    return wide.dropna(axis=0, how="any") if drop else wide


def _bootstrap_means(matrix: np.ndarray, reps: int, seed: int) -> np.ndarray:
    """(reps, columns) means of rows resampled with replacement; NaN with fewer than ``MIN_MODELS`` rows."""
    if len(matrix) < MIN_MODELS:  # one model: nothing to resample, no interval to claim
        return np.full((max(reps, 1), matrix.shape[1]), np.nan)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(matrix), size=(reps, len(matrix)))
    return matrix[rows].mean(axis=1)


def fragility_table(results: pd.DataFrame, *, reps: int = 2000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """Average worst-case disparity and its increase per bias, metric and level, with bootstrap intervals.

    Parameters
    ----------
    results : pandas.DataFrame
        The tidy results of :func:`~fairprobe.studies.runner.run_study`.
    reps : int
        Bootstrap resamples of the models.
    seed : int
        Seed of the bootstrap.
    level : float
        Coverage of the percentile intervals.

    Returns
    -------
    pandas.DataFrame
        Columns bias, metric, D, models, mean_worst, worst_lower, worst_upper, mean_increase,
        increase_lower, increase_upper (the intervals NaN on fewer than ``MIN_MODELS`` models).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(dataset="d", classifier="c", constraint=k, bias="b", metric="m", D=D, status="optimal",
    ...              worst=w, observed=o) for k, o in (("x", .1), ("y", .2)) for D, w in ((0., o), (.1, o + .1))]
    >>> t = fragility_table(pd.DataFrame(rows), reps=50)
    >>> t[["D", "mean_worst", "mean_increase"]].round(3).values.tolist(), t.models.tolist()
    ([[0.0, 0.15, 0.0], [0.1, 0.25, 0.1]], [2, 2])
    """
    out = []
    alpha = (1 - level) / 2
    for (bias, metric), part in results.groupby(["bias", "metric"], sort=True):
        worst = _by_model(part, "worst", ["D"])
        if worst.empty or 0.0 not in worst.columns:
            continue  # no model with an observed disparity (D = 0) to measure the increase from
        increase = worst.sub(worst[0.0], axis=0)
        boot_w = _bootstrap_means(worst.to_numpy(), reps, seed)
        boot_i = _bootstrap_means(increase.to_numpy(), reps, seed)
        for j, d in enumerate(worst.columns):
            out.append({"bias": bias, "metric": metric, "D": float(d), "models": len(worst),
                        "mean_worst": float(worst[d].mean()),
                        "worst_lower": float(np.quantile(boot_w[:, j], alpha)),
                        "worst_upper": float(np.quantile(boot_w[:, j], 1 - alpha)),
                        "mean_increase": float(increase[d].mean()),
                        "increase_lower": float(np.quantile(boot_i[:, j], alpha)),
                        "increase_upper": float(np.quantile(boot_i[:, j], 1 - alpha))})
    return pd.DataFrame(out)


def metric_ranking(results: pd.DataFrame, *, reps: int = 2000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """Metrics ranked by fragility at the largest level: mean increase of the worst-case disparity.

    Per bias and pooled over the biases (``bias = "all"``: each model's increase averaged over the
    biases first, so a model is one replicate), the mean increase over the models at the largest
    ``D``, its bootstrap interval, the rank (1 = most robust) and the bootstrap probabilities that
    the metric is the most robust and the most fragile. The models are resampled jointly for all
    metrics, so the ranks' uncertainty is that of the comparison. On fewer than ``MIN_MODELS``
    models (one) the interval and the probabilities are NaN: the rank is that model's order only.

    Parameters
    ----------
    results : pandas.DataFrame
        The tidy results of :func:`~fairprobe.studies.runner.run_study`.
    reps, seed, level
        As for :func:`fragility_table`.

    Returns
    -------
    pandas.DataFrame
        Columns bias, D, metric, models, mean_increase, lower, upper, rank, p_most_robust, p_most_fragile.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(dataset="d", classifier="c", constraint=k, bias="b", metric=m, D=D, status="optimal",
    ...              worst=o + D * s, observed=o) for k, o in (("x", .1), ("y", .2)) for m, s in (("dp", 0), ("fpr", 2))
    ...         for D in (0.0, 0.1)]
    >>> r = metric_ranking(pd.DataFrame(rows), reps=50)
    >>> r[r.bias == "b"][["metric", "rank", "p_most_robust"]].values.tolist()
    [['dp', 1, 1.0], ['fpr', 2, 0.0]]
    """
    top = results.D.max()
    alpha = (1 - level) / 2
    out = []
    groups = [(b, results[results.bias == b]) for b in dict.fromkeys(results.bias)]
    if len(groups) > 1:
        groups.append(("all", results))
    for bias, part in groups:
        at_top = part[part.D.isin([0.0, top])]
        worst = _by_model(at_top, "worst", ["bias", "metric", "D"] if bias == "all" else ["metric", "D"], drop=False)
        if bias == "all":  # one replicate per model: its increases averaged over the biases
            worst = worst.T.groupby(level=["metric", "D"]).mean().T if len(worst.columns) else worst
        # a metric undefined at D = 0 on every model has no increase to rank
        metrics = sorted(m for m in {c[0] for c in worst.columns}
                         if (m, 0.0) in worst.columns and (m, top) in worst.columns
                         and worst[(m, 0.0)].notna().any() and worst[(m, top)].notna().any())
        if not metrics or top == 0.0:
            continue
        increase = np.column_stack([worst[(m, top)].to_numpy() - worst[(m, 0.0)].to_numpy() for m in metrics])
        increase = increase[~np.isnan(increase).any(axis=1)]  # models with every metric bounded
        if not len(increase):
            continue
        boot = _bootstrap_means(increase, reps, seed)
        few = len(increase) < MIN_MODELS  # no bootstrap over one model: no interval, no probability of rank
        order = np.argsort(np.argsort(boot, axis=1), axis=1)  # 0 = smallest increase = most robust
        means = increase.mean(axis=0)
        ranks = np.argsort(np.argsort(means)) + 1
        for j, m in enumerate(metrics):
            out.append({"bias": bias, "D": float(top), "metric": m, "models": len(increase),
                        "mean_increase": float(means[j]), "lower": float(np.quantile(boot[:, j], alpha)),
                        "upper": float(np.quantile(boot[:, j], 1 - alpha)), "rank": int(ranks[j]),
                        "p_most_robust": np.nan if few else float(np.mean(order[:, j] == 0)),
                        "p_most_fragile": np.nan if few else float(np.mean(order[:, j] == len(metrics) - 1))})
    frame = pd.DataFrame(out)
    return frame.sort_values(["rank"], kind="mergesort").sort_values("bias", kind="mergesort", key=lambda b: b.map(
        {name: i for i, name in enumerate(dict.fromkeys(frame.bias))})).reset_index(drop=True) if len(frame) else frame


def _panels(table: pd.DataFrame, title: str, order: Sequence[str] | None = None) -> Any:
    # An explicit figure on an Agg canvas: saving it needs no pyplot and switches no backend.
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    present = list(dict.fromkeys(table.bias))
    biases = [b for b in (order or []) if b in present] + [b for b in present if b not in (order or [])]
    fig = Figure(figsize=(max(6.5, 4.2 * len(biases)), 3.8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(biases), sharey=True, squeeze=False)
    metrics = sorted(table.metric.unique())
    colours = colormaps["tab10"]
    for ax, bias in zip(axes[0], biases, strict=True):
        part = table[table.bias == bias]
        for k, metric in enumerate(metrics):
            line = part[part.metric == metric].sort_values("D")
            if line.empty:
                continue
            ax.plot(line.D, line.mean_worst, marker="o", ms=3, color=colours(k), label=metric)
            ax.fill_between(line.D, line.worst_lower, line.worst_upper, color=colours(k), alpha=0.15, lw=0)
        ax.set_title(bias)
        ax.set_xlabel("sensitivity D")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("average worst-case |disparity|")
    axes[0][-1].legend(frameon=False, fontsize=8, loc="upper left")
    import textwrap

    fig.suptitle("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    fig.tight_layout()
    return fig


def _figure(results: pd.DataFrame, title: str, reps: int, seed: int, order: Sequence[str] | None,
            table: pd.DataFrame | None) -> Any:
    table = fragility_table(results, reps=reps, seed=seed) if table is None else table
    n = results[MODEL].drop_duplicates().shape[0]
    bands = ("bands: 95 % bootstrap over models" if n >= MIN_MODELS else
             f"no bands: a bootstrap over models needs at least {MIN_MODELS}")
    return _panels(table, f"{title}average over {n} model{'s' if n != 1 else ''}; {bands}", order)


def figure5(results: pd.DataFrame, *, reps: int = 2000, seed: int = 0, order: Sequence[str] | None = None,
            table: pd.DataFrame | None = None) -> Any:
    """The paper's Figure 5: per bias, the average worst-case disparity of each metric against D.

    Bands are 95 % bootstrap intervals over the models.

    Parameters
    ----------
    results : pandas.DataFrame
        The tidy results.
    reps, seed
        Bootstrap of the bands.
    order : sequence of str, optional
        The biases' panels in this order (the spec's).
    table : pandas.DataFrame, optional
        ``fragility_table(results)`` when the caller has it already (not computed again).

    Returns
    -------
    matplotlib.figure.Figure
    """
    return _figure(results, f"{results.dataset.nunique()} data sets: ", reps, seed, order, table)


def dataset_figure(results: pd.DataFrame, dataset: str, *, reps: int = 2000, seed: int = 0,
                   order: Sequence[str] | None = None) -> Any:
    """Figure 5 on one data set's models (the paper's Appendix E panels).

    Parameters
    ----------
    results : pandas.DataFrame
        The tidy results.
    dataset : str
        The data set.
    reps, seed
        Bootstrap of the bands.
    order : sequence of str, optional
        The biases' panels in this order (the spec's).

    Returns
    -------
    matplotlib.figure.Figure
    """
    return _figure(results[results.dataset == dataset], f"{dataset}: ", reps, seed, order, None)

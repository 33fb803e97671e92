"""Plots of Rashomon sets: conflict-ratio histogram, delta-ambiguity curves, 2-D scatter, distances."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_ratio, rashomon_distance
from fairprobe.reporting.plotting import new_axes

__all__ = ["plot_ambiguity", "plot_ambiguity_curves", "plot_conflict_histogram", "plot_conflict_ratios",
           "plot_conflict_scatter", "plot_distance_heatmap",
           "plot_group_conflict", "plot_status_counts", "plot_weights"]


def plot_conflict_histogram(predictions: np.ndarray, ax: Any = None) -> Any:
    """Histogram of the per-point conflict ratios.

    Parameters
    ----------
    predictions : array-like of shape (n_models, n_points)
        Label predictions of the set's models.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> ax = plot_conflict_histogram(np.array([[0, 1, 1, 0], [0, 0, 1, 1], [0, 1, 0, 1]]))
    >>> ax.get_xlabel()
    'conflict ratio'
    >>> plt.close("all")
    """
    return plot_conflict_ratios(conflict_ratio(predictions), ax=ax)


def plot_conflict_ratios(ratios: np.ndarray, ax: Any = None) -> Any:
    """Histogram of per-point conflict ratios already computed (e.g. exactly, over millions of trees).

    Parameters
    ----------
    ratios : array-like of float in [0, 0.5]
        One conflict ratio per point.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> ax = plot_conflict_ratios(np.array([0.0, 0.1, 0.5]))
    >>> ax.get_ylabel()
    'points'
    >>> plt.close("all")
    """
    ax = new_axes(ax, (5, 3.5))
    ax.hist(np.asarray(ratios, dtype=float), bins=np.linspace(0, 0.5, 26), color="tab:blue")
    ax.set_xlabel("conflict ratio")
    ax.set_ylabel("points")
    return ax


def plot_ambiguity_curves(sets: Mapping[str, np.ndarray], ax: Any = None) -> Any:
    """delta-ambiguity against delta for several Rashomon sets (their prediction matrices).

    Parameters
    ----------
    sets : mapping of str to array-like of shape (n_models, n_points)
        Label predictions of each set, by name (the legend).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> sets = {"small": np.array([[0, 1, 1], [0, 0, 1]]), "large": np.array([[0, 1, 1], [1, 0, 1], [0, 1, 0]])}
    >>> ax = plot_ambiguity_curves(sets)
    >>> [line.get_label() for line in ax.lines]
    ['small', 'large']
    >>> plt.close("all")
    """
    return plot_ambiguity({name: ambiguity_curve(P) for name, P in sets.items()}, ax=ax)


def plot_ambiguity(curves: Mapping[str, tuple[np.ndarray, np.ndarray]], ax: Any = None) -> Any:
    """delta-ambiguity curves already computed, ``{name: (deltas, ambiguity)}``.

    Parameters
    ----------
    curves : mapping of str to (array, array)
        Each set's deltas and delta-ambiguity values, by name (the legend).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> ax = plot_ambiguity({"exact": (np.array([0.0, 0.5]), np.array([0.6, 0.0]))})
    >>> [line.get_label() for line in ax.lines]
    ['exact']
    >>> plt.close("all")
    """
    ax = new_axes(ax, (5, 3.5))
    for name, (grid, curve) in curves.items():
        ax.plot(grid, curve, label=name)
    ax.set_xlabel("delta")
    ax.set_ylabel("delta-ambiguity")
    ax.set_xlim(0, 0.5)
    ax.set_ylim(0, 1)
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_conflict_scatter(X: np.ndarray, predictions: np.ndarray, features: tuple[int, int] = (0, 1),
                          ax: Any = None) -> Any:
    """Points in two chosen features, coloured by conflict ratio.

    Parameters
    ----------
    X : array-like of shape (n_points, n_features)
        The points' features.
    predictions : array-like of shape (n_models, n_points)
        Label predictions of the set's models.
    features : (int, int)
        Columns of ``X`` on the horizontal and vertical axes.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> X = np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 4.0], [2.0, 2.0, 3.0]])
    >>> ax = plot_conflict_scatter(X, np.array([[0, 1, 1], [0, 0, 1]]), features=(0, 2))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('feature 0', 'feature 2')
    >>> plt.close("all")
    """
    ax = new_axes(ax, (5, 4.5))
    X = np.asarray(X, dtype=float)
    sc = ax.scatter(X[:, features[0]], X[:, features[1]], c=conflict_ratio(predictions), cmap="viridis",
                    vmin=0, vmax=0.5, s=6)
    ax.figure.colorbar(sc, ax=ax, label="conflict ratio")
    ax.set_xlabel(f"feature {features[0]}")
    ax.set_ylabel(f"feature {features[1]}")
    return ax


def plot_distance_heatmap(sets: Mapping[str, np.ndarray], ax: Any = None) -> Any:
    """Pairwise distances between Rashomon sets (1/6 is the independent-uniform baseline).

    Parameters
    ----------
    sets : mapping of str to array-like of shape (n_models, n_points)
        Label predictions of each set on the same points, by name.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> sets = {"a": np.array([[0, 1, 1], [0, 0, 1]]), "b": np.array([[0, 1, 1], [1, 0, 1], [0, 1, 0]])}
    >>> ax = plot_distance_heatmap(sets)
    >>> [t.get_text() for t in ax.texts]
    ['0.000', '0.278', '0.278', '0.000']
    >>> plt.close("all")
    """
    names = list(sets)
    D = np.array([[rashomon_distance(sets[a], sets[b]) for b in names] for a in names])
    ax = new_axes(ax, (4.5, 4))
    im = ax.imshow(D, cmap="magma_r", vmin=0, vmax=0.5)
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    for (i, j), v in np.ndenumerate(D):
        ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=7, color="w" if v > 0.25 else "k")
    ax.figure.colorbar(im, ax=ax, label="distance")
    return ax


def plot_group_conflict(by_group: Any, ax: Any = None) -> Any:
    """Mean conflict ratio and flagged share per group (a ``by_group_`` table of a Rashomon set).

    Parameters
    ----------
    by_group : DataFrame
        Indexed by group, with columns ``mean_conflict`` and ``flagged_share``.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"mean_conflict": [0.1, 0.2], "flagged_share": [0.05, 0.3]}, index=["a", "b"])
    >>> len(plot_group_conflict(t).patches)
    4
    """
    ax = new_axes(ax, (5, 3.5))
    x = np.arange(len(by_group))
    ax.bar(x - 0.2, by_group["mean_conflict"], width=0.4, label="mean conflict ratio", color="tab:blue")
    ax.bar(x + 0.2, by_group["flagged_share"], width=0.4, label="share flagged", color="tab:orange")
    ax.set_xticks(x, [str(g) for g in by_group.index])
    ax.set_xlabel(str(by_group.index.name or "group"))
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_status_counts(status: Any, ax: Any = None) -> Any:
    """Rows per ambiguity status of an exact linear multiplicity result.

    Parameters
    ----------
    status : array of str
        ``"ambiguous"``, ``"not ambiguous"`` or ``"undecided"`` per row.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> len(plot_status_counts(["ambiguous", "not ambiguous", "ambiguous"]).patches)
    3
    """
    ax = new_axes(ax, (5, 3.5))
    order = ["ambiguous", "not ambiguous", "undecided"]
    values = np.asarray(status, dtype=str)
    counts = [int(np.sum(values == s)) for s in order]
    ax.bar(order, counts, color=["tab:red", "tab:green", "tab:gray"])
    ax.set_ylabel("rows")
    return ax


def plot_weights(weights: Any, names: list[str], ax: Any = None) -> Any:
    """A linear classifier's weights (in the features' original units) as horizontal bars.

    Parameters
    ----------
    weights : array-like
        The weights, one per feature (the intercept excluded).
    names : list of str
        One per weight.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> len(plot_weights([0.5, -0.2], ["x", "intercept"]).patches)
    2
    """
    ax = new_axes(ax, (5, 0.6 + 0.35 * len(names)))
    ax.barh(range(len(names)), np.asarray(weights, dtype=float), color="tab:blue")
    ax.set_yticks(range(len(names)), names)
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_xlabel("weight")
    return ax

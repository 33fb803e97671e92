"""Predictive-multiplicity measures over a set of models' predictions.

``predictions`` is an ``(n_models, n_points)`` array of class labels (0/1 for binary tasks).

* conflict ratio ``c(x) = min(n1, n0) / |R|`` in [0, 0.5], the share of models disagreeing with
  the majority at ``x``; for ``k`` classes the generalisation ``1 - max_j n_j / |R|`` is used
  (equal to the binary formula for two classes, in [0, 1 - 1/k]);
* delta-ambiguity ``A_delta = mean_x 1[c(x) > delta]`` (strict); ``delta = 0`` is the standard
  ambiguity of Marx, Calmon & Ustun (2020) and is monotone in the set of models;
* distance between two Rashomon sets ``mean_x |c_1(x) - c_2(x)|`` in [0, 0.5] (1/6 is the value
  for independent uniform conflict ratios).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from fairprobe.core.small_groups import too_few
from fairprobe.exceptions import DataError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ambiguity_curve", "conflict_by_group", "conflict_ratio", "convergence_table", "delta_ambiguity",
           "individual_table", "rashomon_distance"]


def _as_predictions(predictions: object) -> np.ndarray:
    P = np.asarray(predictions)
    if P.ndim != 2:
        raise DataError(f"predictions must be a 2-D (models x points) array; got shape {P.shape}.")
    if P.shape[0] == 0:
        raise DataError("The Rashomon set is empty: no model's predictions were given.")
    return P


def conflict_ratio(predictions: object) -> np.ndarray:
    """Per-point conflict ratio of a set of models' label predictions.

    Parameters
    ----------
    predictions : array-like of shape (n_models, n_points)
        Class labels predicted by each model of the set.

    Returns
    -------
    ndarray of float, shape (n_points,)
        Share of models disagreeing with the majority at each point.

    Raises
    ------
    DataError
        ``predictions`` is not 2-D or has no models.

    Examples
    --------
    >>> conflict_ratio([[0, 1, 1], [0, 0, 1], [0, 1, 0], [0, 1, 1]]).tolist()
    [0.0, 0.25, 0.25]

    Three classes:

    >>> conflict_ratio([[0, 1, 2], [0, 1, 1], [1, 1, 2]]).round(3).tolist()
    [0.333, 0.0, 0.333]
    """
    P = _as_predictions(predictions)
    m = P.shape[0]
    if P.dtype.kind in "bui" and P.size and P.min() >= 0 and P.max() <= 1:
        n1 = P.sum(axis=0, dtype=np.int64)  # binary fast path: one pass over the matrix
        return np.minimum(n1, m - n1) / m
    labels = np.unique(P)
    counts = np.stack([(P == lab).sum(axis=0) for lab in labels])
    return 1.0 - counts.max(axis=0) / m


def conflict_by_group(individual: pd.DataFrame, group: str) -> pd.DataFrame:
    """Per group of an individual report: rows, mean conflict ratio, share flagged, and whether too few.

    ``too_few`` marks a group of fewer rows than core's threshold
    (:data:`~fairprobe.core.small_groups.FEW_UNITS`): its mean conflict and flagged share rest on
    too few rows to say anything.

    Parameters
    ----------
    individual : DataFrame
        One row per audited row, with ``conflict_ratio``, ``flagged`` and the column ``group``.
    group : str
        The group column.

    Returns
    -------
    DataFrame
        Indexed by group (sorted): ``rows``, ``mean_conflict``, ``flagged_share``, ``too_few``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"g": ["a"] * 30 + ["b"] * 2, "conflict_ratio": 0.25, "flagged": [False] * 31 + [True]})
    >>> conflict_by_group(rows, "g")[["rows", "flagged_share", "too_few"]].to_dict("index")
    {'a': {'rows': 30, 'flagged_share': 0.0, 'too_few': False}, 'b': {'rows': 2, 'flagged_share': 0.5, 'too_few': True}}
    """
    table = individual.groupby(group, sort=True).agg(rows=("conflict_ratio", "size"),
                                                     mean_conflict=("conflict_ratio", "mean"),
                                                     flagged_share=("flagged", "mean"))
    table["too_few"] = [too_few(int(n)) for n in table["rows"]]
    return table


def delta_ambiguity(predictions: object, delta: float = 0.0) -> float:
    """Share of points whose conflict ratio exceeds ``delta`` (``delta = 0``: standard ambiguity).

    Parameters
    ----------
    predictions : array-like of shape (n_models, n_points)
        Class labels predicted by each model of the set.
    delta : float
        Threshold on the conflict ratio, in [0, 0.5] for binary tasks (at most 1).

    Returns
    -------
    float
        The delta-ambiguity, in [0, 1].

    Raises
    ------
    DataError
        ``delta`` outside [0, 1] or not a number.

    Examples
    --------
    >>> P = [[0, 1, 1], [0, 0, 1], [0, 1, 0], [0, 1, 1]]
    >>> round(delta_ambiguity(P), 3), delta_ambiguity(P, delta=0.25)
    (0.667, 0.0)
    """
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0.0 <= delta <= 1.0:
        raise DataError(f"delta must be a number in [0, 0.5] for binary tasks (at most 1), e.g. delta=0.1; "
                        f"got {delta!r}.")
    return float(np.mean(conflict_ratio(predictions) > delta))


def ambiguity_curve(predictions: object, deltas: object = None) -> tuple[np.ndarray, np.ndarray]:
    """``(deltas, A_delta)`` over a grid (default 51 points in [0, 0.5]).

    Parameters
    ----------
    predictions : array-like of shape (n_models, n_points)
        Class labels predicted by each model of the set.
    deltas : array-like of float, optional
        Thresholds in [0, 1] (default ``numpy.linspace(0, 0.5, 51)``).

    Returns
    -------
    deltas : ndarray
        The grid.
    ambiguity : ndarray
        The delta-ambiguity at each threshold (non-increasing in delta).

    Raises
    ------
    DataError
        Empty, non-numeric or out-of-range ``deltas``.

    Examples
    --------
    >>> P = [[0, 1, 1], [0, 0, 1], [0, 1, 0], [0, 1, 1]]
    >>> grid, amb = ambiguity_curve(P, [0.0, 0.2, 0.3])
    >>> amb.round(3).tolist()
    [0.667, 0.667, 0.0]
    >>> ambiguity_curve(P)[0].size
    51
    """
    c = conflict_ratio(predictions)
    try:
        grid = np.linspace(0, 0.5, 51) if deltas is None else np.asarray(deltas, dtype=float).ravel()
    except (TypeError, ValueError):
        raise DataError(f"deltas must be numbers in [0, 0.5] (e.g. numpy.linspace(0, 0.5, 51)); got {deltas!r}.") \
            from None
    if grid.size == 0 or not np.all((grid >= 0) & (grid <= 1)):
        raise DataError(f"deltas must be a non-empty list of numbers in [0, 0.5] (at most 1); got {deltas!r}.")
    return grid, (c[None, :] > grid[:, None]).mean(axis=1)


def rashomon_distance(pred_a: object, pred_b: object) -> float:
    """Mean absolute difference of two Rashomon sets' conflict ratios on the same points.

    Parameters
    ----------
    pred_a, pred_b : array-like of shape (n_models, n_points)
        Label predictions of the two sets (the numbers of models may differ).

    Returns
    -------
    float
        The distance, in [0, 0.5].

    Raises
    ------
    DataError
        The sets predict different numbers of points.

    Examples
    --------
    >>> round(rashomon_distance([[0, 1, 1], [0, 0, 1], [0, 1, 0], [0, 1, 1]], [[0, 1, 1], [0, 1, 1]]), 4)
    0.1667
    """
    ca, cb = conflict_ratio(pred_a), conflict_ratio(pred_b)
    if ca.shape != cb.shape:
        raise DataError(f"The two sets predict different numbers of points ({ca.size} and {cb.size}).")
    return float(np.mean(np.abs(ca - cb)))


def convergence_table(predictions: np.ndarray, deltas: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4), steps: int = 20,
                      random_state: int | None = 0) -> pd.DataFrame:
    """delta-ambiguity and mean conflict ratio as models are added in a random order.

    Parameters
    ----------
    predictions : ndarray (n_models, n_points)
        Class labels predicted by each model.
    deltas : tuple of float
        Thresholds of the ``ambiguity_<delta>`` columns.
    steps : int
        Number of set sizes (rows).
    random_state : int or None
        Seed of the order in which models are added.

    Returns
    -------
    DataFrame
        ``n_models``, ``mean_conflict`` and one ``ambiguity_<delta>`` column per threshold.

    Examples
    --------
    >>> convergence_table(np.array([[0, 1], [1, 1]]), deltas=(0.0,), steps=2)["ambiguity_0"].tolist()
    [0.0, 0.5]
    """
    import pandas as pd

    order = np.random.default_rng(random_state).permutation(predictions.shape[0])
    sizes = np.unique(np.linspace(1, predictions.shape[0], min(steps, predictions.shape[0])).round().astype(int))
    rows = []
    for k in sizes:
        c = conflict_ratio(predictions[order[:k]])
        rows.append({"n_models": int(k), "mean_conflict": float(c.mean()),
                     **{f"ambiguity_{d:g}": float(np.mean(c > d)) for d in deltas}})
    return pd.DataFrame(rows)


def individual_table(predictions: np.ndarray, threshold: float) -> pd.DataFrame:
    """Per point: the majority prediction, the conflict ratio, ``flagged`` above ``threshold``, share per class.

    Parameters
    ----------
    predictions : ndarray (n_models, n_points)
        Class labels predicted by each model.
    threshold : float
        Points with a conflict ratio above it are flagged.

    Returns
    -------
    DataFrame
        Columns ``majority``, ``conflict_ratio``, ``flagged`` and ``share_<class>``.

    Examples
    --------
    >>> individual_table(np.array([[0, 1], [1, 1], [1, 1]]), 0.2)["flagged"].tolist()
    [True, False]
    """
    import pandas as pd

    labels = np.unique(predictions)
    shares = {f"share_{lab}": (predictions == lab).mean(axis=0) for lab in labels}
    counts = np.stack([(predictions == lab).sum(axis=0) for lab in labels])
    c = conflict_ratio(predictions)
    return pd.DataFrame({"majority": labels[counts.argmax(axis=0)], "conflict_ratio": c,
                         "flagged": c > threshold, **shares})

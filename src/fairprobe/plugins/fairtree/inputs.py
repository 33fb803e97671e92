"""FairTree's inputs checked: its parameters, the per-row numbers it audits and the per-row loss.

Every message names the parameter (and its command-line option) and what to pass instead; the
checks run in the order :meth:`fairprobe.plugins.fairtree.tree.FairTree.fit` relies on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError

__all__ = ["LOSSES", "check_int", "check_params", "numeric_values", "per_row_loss"]

#: The named losses ``loss(y_true, y_pred)`` of :class:`~fairprobe.plugins.fairtree.tree.FairTree`.
LOSSES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "squared": lambda y, p: (p - y) ** 2,
    "absolute": lambda y, p: np.abs(p - y),
    "zero_one": lambda y, p: (np.round(p) != y).astype(float),
    "log": lambda y, p: -(y * np.log(np.clip(p, 1e-15, 1)) + (1 - y) * np.log(np.clip(1 - p, 1e-15, 1))),
}


def check_int(name: str, value: Any, lowest: int, hint: str) -> int:
    """``value`` as an int >= ``lowest`` (whole floats accepted), else a ConfigError.

    Parameters
    ----------
    name : str
        The parameter as the message names it (e.g. ``"max_depth (--max-depth)"``).
    value : object
        The value given.
    lowest : int
        The smallest value allowed.
    hint : str
        What to pass, shown in the message.

    Returns
    -------
    int
        The value as an ``int``.

    Raises
    ------
    ConfigError
        When ``value`` is not a whole number >= ``lowest`` (booleans are refused).

    Examples
    --------
    >>> check_int("max_depth", 2.0, 0, "or None for no limit")
    2
    >>> check_int("max_depth", -1, 0, "or None for no limit")
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: max_depth must be an integer >= 0 (or None for no limit); got -1.
    """
    ok = isinstance(value, int | np.integer | float | np.floating) and not isinstance(value, bool)
    if ok and isinstance(value, float | np.floating):
        ok = bool(np.isfinite(value)) and float(value).is_integer()
    if not ok or int(value) < lowest:
        raise ConfigError(f"{name} must be an integer >= {lowest} ({hint}); got {value!r}.")
    return int(value)


def numeric_values(name: str, values: Any, n: int) -> np.ndarray:
    """One finite number per row, or a DataError naming ``name`` and what to do.

    Parameters
    ----------
    name : str
        The role of the values (``"y_true"``, ``"residuals"``, ...), as the messages name it.
    values : array-like
        One value per row (a Series, a one-column frame or an array).
    n : int
        The number of covariate rows.

    Returns
    -------
    ndarray
        The values as floats, flattened.

    Raises
    ------
    DataError
        For text, dates, more than one column, a length other than ``n`` or a value that is not finite.

    Examples
    --------
    >>> numeric_values("y_true", [0, 1, 1], 3)
    array([0., 1., 1.])
    """
    arr = np.asarray(values.to_numpy() if isinstance(values, pd.Series | pd.DataFrame) else values)
    if arr.ndim > 1 and sum(d > 1 for d in arr.shape) > 1:
        raise DataError(f"{name} must be one value per row; got shape {arr.shape}. Pass a single column.")
    arr = arr.ravel()
    text = [v for v in arr[:10_000].tolist() if isinstance(v, str | bytes)] if arr.dtype.kind in "OUS" else []
    if text:
        examples = list(dict.fromkeys(text))[:3]
        raise DataError(f"{name} holds text values such as {examples}; FairTree needs numbers. Recode labels to 0/1 "
                        "with the event (positive) label as 1, e.g. (y == '<positive label>').astype(int) "
                        "(the sign of the residuals follows this choice), or convert the column with pd.to_numeric.")
    if arr.dtype.kind in "mMc":
        raise DataError(f"{name} has dtype {arr.dtype}; FairTree needs real numbers. Convert it first.")
    try:
        arr = arr.astype(float)
    except (TypeError, ValueError):
        raise DataError(f"{name} holds values that are not numbers; convert the column with pd.to_numeric.") from None
    if arr.size != n:
        raise DataError(f"The covariates have {n} rows but {name} has {arr.size}; pass one value per covariate row.")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise DataError(f"{name} has {bad.size} NaN or infinite value(s) (rows {bad[:5].tolist()}"
                        f"{', ...' if bad.size > 5 else ''}); drop those rows (FairTree cannot audit them).")
    return arr


def check_params(tree: Any) -> None:
    """Check a FairTree's parameters, in the order of its signature's documentation.

    Parameters
    ----------
    tree : FairTree
        The unfitted analysis (its parameters are stored unchanged by ``__init__``).

    Raises
    ------
    ConfigError
        Naming the first parameter out of range and a value to pass.

    Examples
    --------
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> check_params(FairTree(alpha=0.1))
    >>> check_params(FairTree(decision="mean"))
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: decision must be 'min_of_two' or 'bias_only'; got 'mean'.
    """
    if not isinstance(tree.test, str) or tree.test not in ("fluctuation", "permutation"):
        raise ConfigError(f"test must be 'fluctuation' (default) or 'permutation'; got {tree.test!r}. "
                          "Pick one of them.")
    alpha = tree.alpha
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating) \
            or not 0 < float(alpha) < 1:
        raise ConfigError(f"alpha (--alpha) must be a number in (0, 1), e.g. alpha=0.05; got {alpha!r}.")
    if tree.min_node_size is not None:
        check_int("min_node_size (--min-node-size)", tree.min_node_size, 1,
                  "e.g. min_node_size=10, or None to scale it with the rows")
    check_int("min_level_size", tree.min_level_size, 1, "e.g. min_level_size=10")
    check_int("n_permutations (--permutations)", tree.n_permutations, 1, "e.g. n_permutations=999")
    if tree.max_depth is not None:
        check_int("max_depth (--max-depth)", tree.max_depth, 0, "or None for no limit")
    if tree.n_jobs is not None and (check_int("n_jobs (--jobs)", tree.n_jobs, -1, "e.g. n_jobs=2") == 0):
        raise ConfigError("n_jobs=0 runs no worker; use n_jobs=1 (one process), 2, or -1 (two processes).")
    if not isinstance(tree.decision, str) or tree.decision not in ("min_of_two", "bias_only"):
        raise ConfigError(f"decision must be 'min_of_two' or 'bias_only'; got {tree.decision!r}.")
    if not callable(tree.loss) and (not isinstance(tree.loss, str) or tree.loss not in LOSSES):
        raise ConfigError(f"Unknown loss {tree.loss!r}; choose from {sorted(LOSSES)} or pass a callable.")
    rs = tree.random_state
    if rs is not None and not isinstance(rs, np.random.Generator):
        try:
            if isinstance(rs, bool | float | str):
                raise TypeError
            np.random.default_rng(rs)
        except (TypeError, ValueError):
            raise ConfigError(f"random_state (--seed) must be None, a non-negative integer or a numpy Generator; "
                              f"got {rs!r}. Pass e.g. random_state=0.") from None


def per_row_loss(loss: str | Callable, y: np.ndarray | None, p: np.ndarray | None, r: np.ndarray | None,
                 loss_values: Any, n: int) -> np.ndarray:
    """The per-row loss: given, from the callable or named loss, or the squared residual.

    Parameters
    ----------
    loss : str or callable
        FairTree's ``loss`` (a name of :data:`LOSSES` or ``loss(y_true, y_pred)``).
    y, p : ndarray or None
        Observed values and predictions (``None`` when residuals or losses were given instead).
    r : ndarray or None
        Signed residuals (``None`` with losses only).
    loss_values : array-like or None
        A per-row loss given by the user; it wins over ``loss``.
    n : int
        The number of rows.

    Returns
    -------
    ndarray
        One finite loss per row.

    Raises
    ------
    DataError
        When the loss needs ``y_true`` and ``y_pred`` that were not given, fails, or is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> per_row_loss("absolute", np.array([0.0, 1.0]), np.array([0.5, 0.5]), None, None, 2)
    array([0.5, 0.5])
    """
    if loss_values is not None:
        L = numeric_values("loss_values", loss_values, n)
    elif callable(loss):
        if y is None:
            raise DataError("A callable loss needs y_true and y_pred, not residuals=; pass them instead.")
        try:
            L = np.asarray(loss(y, p), dtype=float).ravel()
        except (TypeError, ValueError) as exc:
            raise DataError(f"The loss callable failed or returned non-numbers ({exc}); it must map "
                            "(y_true, y_pred) arrays to one finite number per row.") from None
    elif loss == "squared" or y is None:
        if y is None and loss != "squared":
            raise DataError(f"loss={loss!r} needs y_true and y_pred, not residuals=; pass them instead.")
        L = r**2
    else:
        if loss == "log":
            for label, v in (("y_true", y), ("y_pred", p)):
                if v.min() < 0 or v.max() > 1:
                    raise DataError(f"loss='log' needs {label} in [0, 1] (labels 0/1 and probabilities); "
                                    f"got values in [{v.min():g}, {v.max():g}]. Rescale it or use "
                                    "loss='squared'.")
        L = LOSSES[loss](y, p)
    if L.size != n or not np.all(np.isfinite(L)):
        raise DataError(f"The per-row loss must be finite with one value per row ({n}); got {L.size} value(s), "
                        f"{int((~np.isfinite(L)).sum()) if L.size == n else 'some'} not finite. Fix the loss.")
    return L

"""The groups of the risk-score audit: sensitive attributes coded as labels, and their intersections.

Continuous attributes (numeric with more than ``max_levels`` distinct values) are binned into
quartiles labelled by the values they hold; groups are every combination of up to
``max_intersections`` attributes and of their values present in the data.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError

__all__ = ["attribute_values", "check_features", "code_attributes", "intersection_groups", "named_attributes",
           "quartile_labels", "role_values"]


def quartile_labels(s: pd.Series) -> pd.Series:
    """Quartile bins of a numeric attribute, labelled ``"18-33"`` by the values they hold.

    ``pd.qcut``'s own labels are intervals such as ``(17.999, 33.0]``: the opened-up lower edge is
    a number no unit has. The range of the values inside each bin reads as it is meant.
    """
    codes = pd.qcut(s, 4, labels=False, duplicates="drop")
    integral = bool(np.all(np.equal(np.mod(s.to_numpy(dtype=float), 1), 0)))
    fmt = (lambda v: f"{int(v)}") if integral else (lambda v: f"{v:.4g}")
    ranges = s.groupby(codes).agg(["min", "max"])
    names = {k: fmt(lo) if lo == hi else f"{fmt(lo)}-{fmt(hi)}" for k, (lo, hi) in ranges.iterrows()}
    return codes.map(names)


def attribute_values(values: Any, n: int) -> pd.DataFrame:
    """Sensitive attributes given as values: one column per attribute, one row per unit."""
    if isinstance(values, pd.DataFrame):
        frame = values.reset_index(drop=True)
    elif isinstance(values, pd.Series):
        frame = values.reset_index(drop=True).to_frame(values.name if isinstance(values.name, str) else "group")
    else:
        arr = np.asarray(values, dtype=object)
        if arr.ndim == 1:
            frame = pd.DataFrame({"group": arr})
        elif arr.ndim == 2:
            frame = pd.DataFrame(arr, columns=[f"group{j}" for j in range(arr.shape[1])])
        else:
            raise DataError(f"sensitive_features must be column names or one row of attributes per unit; got an "
                            f"array of shape {arr.shape}.")
    if len(frame) != n or frame.shape[1] == 0:
        raise DataError(f"sensitive_features holds {len(frame)} row(s) of {frame.shape[1]} attribute(s); give one "
                        f"row per score ({n}), or the column names of data.")
    frame.columns = [str(c) for c in frame.columns]
    return frame


def check_features(feats: Any) -> list[str]:
    """``feats`` as a list of distinct column names, or a ConfigError with the fix."""
    if isinstance(feats, str) or not isinstance(feats, list | tuple) or not feats:
        raise ConfigError(f"sensitive_features must be a non-empty list of column names, e.g. ['sex']; got "
                          f"{feats!r}.")
    if len(set(map(str, feats))) < len(feats):
        raise ConfigError(f"sensitive_features lists a column twice: {list(feats)}; list each once.")
    return list(feats)


def named_attributes(frame: pd.DataFrame, features: list[str], max_levels: int) -> tuple[pd.DataFrame, dict[str, str]]:
    """The columns ``features`` of ``frame``, coded by :func:`code_attributes` (``max_levels`` and the result as there).

    Parameters
    ----------
    frame : DataFrame
        The audit's data.
    features : list of str
        Column names of the sensitive attributes.
    max_levels : int

    Raises
    ------
    DataError
        A feature that is not a column, or a column name used twice.

    Examples
    --------
    >>> attrs, binned = named_attributes(pd.DataFrame({"sex": ["f", "m"], "x": [1, 2]}), ["sex"], 10)
    >>> attrs["sex"].tolist(), binned
    (['f', 'm'], {})
    """
    missing = [c for c in features if c not in frame.columns]
    if missing:
        raise DataError(f"Sensitive feature(s) {missing} are not columns of the frame: {list(frame.columns)}; "
                        "fix sensitive_features or the frame.")
    dupes = sorted({str(c) for c in frame.columns[frame.columns.duplicated()] if c in features})
    if dupes:
        raise DataError(f"The frame has several columns named {dupes}; give every column a distinct name.")
    return code_attributes(frame[features], max_levels)


def code_attributes(frame: pd.DataFrame, max_levels: int) -> tuple[pd.DataFrame, dict[str, str]]:
    """Each attribute as text labels (numeric ones with more than ``max_levels`` values binned into quartiles).

    Parameters
    ----------
    frame : DataFrame
        One column per sensitive attribute.
    max_levels : int
        Numeric attributes with more distinct values are binned into quartiles.

    Returns
    -------
    attributes : DataFrame
        One text column per attribute.
    binned : dict of str to str
        ``"quartiles"`` for every binned attribute.

    Raises
    ------
    DataError
        An attribute with missing values or a single value.

    Examples
    --------
    >>> attrs, binned = code_attributes(pd.DataFrame({"age": range(20)}), 10)
    >>> sorted(attrs["age"].unique())[:2], binned
    (['0-4', '10-14'], {'age': 'quartiles'})
    """
    out, binned = {}, {}
    for col in list(frame.columns):
        s = frame[col]
        if s.isna().any():
            raise DataError(f"Sensitive feature {col!r} has missing values; fill them (e.g. 'unknown') first.")
        if s.nunique() < 2:
            raise DataError(f"Sensitive feature {col!r} has a single value ({s.iloc[0]!r}); it defines no groups. "
                            "Drop it from sensitive_features, or audit data in which it varies.")
        if pd.api.types.is_numeric_dtype(s) and s.nunique() > max_levels:
            # documented rule: quartile bins, labelled by the smallest and largest value inside
            s = quartile_labels(s)
            binned[col] = "quartiles"
        out[col] = s.astype(str).to_numpy()
    return pd.DataFrame(out), binned


def intersection_groups(attrs: pd.DataFrame, max_intersections: int,
                        min_group_size: int) -> tuple[dict[str, np.ndarray], dict[str, int], pd.DataFrame]:
    """``all`` and every combination of up to ``max_intersections`` attributes and of their values.

    Parameters
    ----------
    attrs : DataFrame
        Coded attributes (:func:`code_attributes`).
    max_intersections : int
        Largest number of attributes combined in one group.
    min_group_size : int
        Groups with fewer rows are dropped.

    Returns
    -------
    groups : dict of str to ndarray
        Row positions of each group kept, ``all`` first.
    n_attributes : dict of str to int
        Attributes combined in each group (0 for ``all``).
    dropped : DataFrame
        The groups below ``min_group_size`` (``group``, ``n``).

    Examples
    --------
    >>> groups, k, dropped = intersection_groups(pd.DataFrame({"sex": ["f", "m", "m"]}), 1, 2)
    >>> list(groups), dropped.group.tolist()
    (['all', 'sex=m'], ['sex=f'])
    """
    groups = {"all": np.arange(len(attrs))}
    k_of = {"all": 0}
    dropped = []
    cols = list(attrs.columns)
    for k in range(1, min(max_intersections, len(cols)) + 1):
        for combo in itertools.combinations(cols, k):
            for values, idx in attrs.groupby(list(combo), sort=True).indices.items():
                values = values if isinstance(values, tuple) else (values,)
                label = " & ".join(f"{c}={v}" for c, v in zip(combo, values, strict=True))
                if len(idx) >= min_group_size:
                    groups[label] = np.asarray(idx)
                    k_of[label] = k
                else:
                    dropped.append({"group": label, "n": len(idx)})
    return groups, k_of, pd.DataFrame(dropped, columns=["group", "n"])


def role_values(data: pd.DataFrame | None, value: Any, role: str) -> Any:
    """A role given as a column name of ``data`` (its column) or as values (unchanged).

    Parameters
    ----------
    data : DataFrame or None
        The audit's data.
    value : str or array-like
        A column name of ``data``, or the values themselves.
    role : str
        The role's name (``y_true``, ``y_score``), used in the messages.

    Returns
    -------
    Series or the values as given

    Examples
    --------
    >>> role_values(pd.DataFrame({"y": [0, 1]}), "y", "y_true").tolist()
    [0, 1]
    """
    if isinstance(value, str) and data is not None:
        if value not in data.columns:
            raise DataError(f"{role}={value!r} is not a column of data (columns: {list(data.columns)}); pass a "
                            "column name or one value per row.")
        column = data[value]
        if isinstance(column, pd.DataFrame):
            raise DataError(f"data has several columns named {value!r}; give every column a distinct name.")
        return column.reset_index(drop=True)
    return value

"""Binary features for tree enumerators: thresholds at quantiles, one column per category.

Exact tree enumerators (TreeFARMS, GOSDT) split on 0/1 features only. :class:`QuantileBinariser`
turns a frame of mixed columns into such features:

* a column that already holds only 0/1 (or booleans) is kept as it is;
* a numeric column gets one feature ``"<col> <= t"`` per threshold ``t``, the distinct values of
  its ``n_thresholds`` inner quantiles (``q = 1/(k+1), ..., k/(k+1)``);
* any other column (text, category) gets one feature ``"<col> == v"`` per value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError

__all__ = ["QuantileBinariser", "is_binary_frame"]


def is_binary_frame(X: pd.DataFrame) -> list[str]:
    """The columns of ``X`` that are not 0/1 (empty when every column is binary).

    Parameters
    ----------
    X : DataFrame
        The features.

    Returns
    -------
    list of str
        Names of the non-binary columns.

    Examples
    --------
    >>> is_binary_frame(pd.DataFrame({"a": [0, 1], "b": [0.5, 2.0], "c": [True, False]}))
    ['b']
    """
    bad = []
    for col in X.columns:
        values = X[col]
        if values.dtype == bool:
            continue
        if not pd.api.types.is_numeric_dtype(values) or not values.dropna().isin([0, 1]).all() or values.isna().any():
            bad.append(str(col))
    return bad


class QuantileBinariser:
    """Binary features from numeric columns (thresholds at quantiles) and categorical ones (one-hot).

    Parameters
    ----------
    n_thresholds : int
        Thresholds per numeric column (distinct quantiles; fewer when the column has fewer values).

    Attributes
    ----------
    rules_ : list of tuple
        ``(column, kind, value)`` per output feature, ``kind`` one of ``"keep"``, ``"<="``, ``"=="``.
    feature_names_out_ : list of str
        Names of the binary features.

    Examples
    --------
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["f", "m", "m", "f"], "prior": [0, 1, 0, 1]})
    >>> b = QuantileBinariser(n_thresholds=2).fit(X)
    >>> b.feature_names_out_
    ['age <= 30', 'age <= 40', 'sex == f', 'sex == m', 'prior']
    >>> b.transform(X).to_numpy().tolist()[0]
    [1, 1, 1, 0, 0]
    """

    def __init__(self, n_thresholds: int = 3) -> None:
        self.n_thresholds = n_thresholds

    def fit(self, X: pd.DataFrame) -> QuantileBinariser:
        """Choose the thresholds and categories of each column.

        Parameters
        ----------
        X : DataFrame
            The features (no missing values).

        Returns
        -------
        QuantileBinariser
            ``self``.

        Raises
        ------
        ConfigError
            ``n_thresholds`` is not a positive integer.
        DataError
            ``X`` is not a DataFrame or has missing values.

        Examples
        --------
        >>> QuantileBinariser(1).fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]})).rules_
        [('x', '<=', 2.0)]
        """
        if isinstance(self.n_thresholds, bool) or not isinstance(self.n_thresholds, (int, np.integer)) \
                or self.n_thresholds < 1:
            raise ConfigError(f"n_thresholds must be a positive integer (e.g. 3); got {self.n_thresholds!r}.")
        if not isinstance(X, pd.DataFrame):
            raise DataError(f"QuantileBinariser needs a DataFrame of features; got {type(X).__name__}.")
        if X.isna().any().any():
            cols = [str(c) for c in X.columns[X.isna().any()]]
            raise DataError(f"Columns {cols} have missing values; fill or drop them before binarising.")
        rules: list[tuple[Any, str, Any]] = []
        k = int(self.n_thresholds)
        for col in X.columns:
            values = X[col]
            if values.dtype == bool or (pd.api.types.is_numeric_dtype(values) and values.isin([0, 1]).all()):
                rules.append((col, "keep", None))
            elif pd.api.types.is_numeric_dtype(values):
                qs = np.quantile(values.to_numpy(dtype=float), np.arange(1, k + 1) / (k + 1))
                top = float(values.max())
                for t in sorted({float(q) for q in qs if q < top}):
                    rules.append((col, "<=", t))
            else:
                for v in sorted(values.astype(str).unique()):
                    rules.append((col, "==", v))
        self.rules_ = rules
        self.feature_names_out_ = [str(c) if kind == "keep" else f"{c} {kind} {_fmt(v)}" for c, kind, v in rules]
        return self

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """The 0/1 features of ``X`` (integer columns named by :attr:`feature_names_out_`).

        Parameters
        ----------
        X : DataFrame
            Rows with the columns seen in :meth:`fit`.

        Returns
        -------
        DataFrame
            One 0/1 column per rule, ``X``'s index.

        Raises
        ------
        DataError
            A column seen in :meth:`fit` is missing.

        Examples
        --------
        >>> b = QuantileBinariser(1).fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
        >>> b.transform(pd.DataFrame({"x": [0.0, 5.0]}))["x <= 2"].tolist()
        [1, 0]
        """
        missing = [str(c) for c, _, _ in self.rules_ if c not in X.columns]
        if missing:
            raise DataError(f"Columns {sorted(set(missing))} seen when binarising are missing from the data.")
        out = {}
        for name, (col, kind, v) in zip(self.feature_names_out_, self.rules_, strict=True):
            values = X[col]
            if kind == "keep":
                out[name] = values.astype(int).to_numpy()
            elif kind == "<=":
                out[name] = (values.to_numpy(dtype=float) <= v).astype(int)
            else:
                out[name] = (values.astype(str).to_numpy() == v).astype(int)
        return pd.DataFrame(out, index=X.index)

    def fit_transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """:meth:`fit` then :meth:`transform`.

        Parameters
        ----------
        X : DataFrame
            The features.

        Returns
        -------
        DataFrame
            The 0/1 features.

        Examples
        --------
        >>> QuantileBinariser(1).fit_transform(pd.DataFrame({"x": [1, 2, 3]})).columns.tolist()
        ['x <= 2']
        """
        return self.fit(X).transform(X)

    def __repr__(self) -> str:
        return f"QuantileBinariser(n_thresholds={self.n_thresholds!r})"


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return f"{v:g}" if isinstance(v, float) else str(v)

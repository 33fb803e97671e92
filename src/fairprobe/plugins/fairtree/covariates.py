"""Covariate handling for FairTree: continuous, ordinal, datetime, binary and unordered categorical.

* numeric and boolean columns are ordered by value (continuous/ordinal);
* an ordered ``pandas.Categorical`` keeps its category order (ordinal);
* datetime, timedelta and period columns, and text columns whose every value is a year-first
  date or timestamp (``2021-03-04``, ``2021/03/04 17:05:11``, ISO 8601 with a time zone), are
  ordered by time (``"datetime"``): a timestamp read as text is an order, not a set of unrelated
  labels;
* other columns (strings, unordered categoricals) are nominal; with more than two levels their
  order is learnt per node (see the split tests), and levels with fewer than ``min_level_size``
  rows in a node are pooled there (see :class:`~fairprobe.plugins.fairtree.tree.FairTree`).

Missing values are an error: FairTree splits on observed covariate values only; drop or impute
the rows, or encode "missing" as its own category.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import DataError

__all__ = ["Covariate", "prepare_covariates"]

# year-first dates and timestamps; day/month-first text is ambiguous (01/02/2020), so it stays nominal
_DATE_TEXT = re.compile(
    r"^\s*\d{4}[-/.]\d{1,2}([-/.]\d{1,2})?"
    r"([ T]\d{1,2}:\d{2}(:\d{2}([.,]\d+)?)?)?\s*(Z|UTC|[+-]\d{2}(:?\d{2})?)?\s*$",
    re.IGNORECASE,
)


@dataclass
class Covariate:
    """One covariate: its kind and a numeric key per row (value, or category code).

    Parameters
    ----------
    name : str
        The column's name.
    kind : {"continuous", "ordinal", "datetime", "nominal"}
        How splits treat it: ordered thresholds, or any subset of the categories (nominal).
    key : ndarray of float
        One number per row: the value, or the code of its category.
    categories : list
        The categories (or distinct timestamps) in code order; empty for continuous covariates.

    Examples
    --------
    >>> import pandas as pd
    >>> cov = prepare_covariates(pd.DataFrame({"region": ["north", "south", "north"]}))[0]
    >>> cov.kind, cov.key.tolist(), cov.categories
    ('nominal', [0.0, 1.0, 0.0], ['north', 'south'])
    """

    name: str
    kind: str  # "continuous", "ordinal", "datetime" or "nominal"
    key: np.ndarray
    categories: list[Any] = field(default_factory=list)

    @property
    def ordered(self) -> bool:
        """Whether splits follow a fixed order of the values (everything except nominal).

        Returns
        -------
        bool

        Examples
        --------
        >>> Covariate("age", "continuous", np.array([20.0, 30.0])).ordered
        True
        >>> Covariate("region", "nominal", np.array([0.0, 1.0]), ["n", "s"]).ordered
        False
        """
        return self.kind != "nominal"

    def value_text(self, threshold: float) -> str:
        """A split threshold of an ordered covariate as the user's value (category, time or number).

        Parameters
        ----------
        threshold : float
            The threshold on the covariate's key (a category code for ordinal and datetime covariates).

        Returns
        -------
        str
            The category or timestamp at that code, or the number itself.

        Examples
        --------
        >>> Covariate("age", "continuous", np.array([20.0, 30.0])).value_text(24.5)
        '24.5'
        >>> Covariate("grade", "ordinal", np.array([0.0, 1.0, 2.0]), ["low", "mid", "high"]).value_text(1.0)
        'mid'
        """
        if self.kind in ("ordinal", "datetime") and self.categories:
            return str(self.categories[int(threshold)])
        return f"{threshold:g}"

    def levels_text(self, codes: Any) -> str:
        """Category codes as ``{a, b}`` in the covariate's category order.

        Parameters
        ----------
        codes : iterable of int
            Codes of the categories (positions in :attr:`categories`).

        Returns
        -------
        str

        Examples
        --------
        >>> Covariate("region", "nominal", np.array([0.0, 1.0, 2.0]), ["east", "north", "west"]).levels_text([2, 0])
        '{east, west}'
        """
        return "{" + ", ".join(str(self.categories[c]) for c in sorted(codes)) + "}"

    def describe_left(self, threshold: float | None, left_codes: list[int] | None,
                      present: Any = None) -> tuple[str, str]:
        """Readable conditions of the left and right child.

        Parameters
        ----------
        threshold : float or None
            The split threshold of an ordered covariate (the left child is ``<= threshold``).
        left_codes : list of int or None
            For a nominal covariate, the codes of the categories going left (then ``threshold`` is unused).
        present : iterable of int, optional
            For a nominal covariate, the codes of the categories in the node being split: the
            right child is these minus ``left_codes`` (default: every category). A category split
            off higher up is not in the node, so its split rule must not name it.

        Returns
        -------
        left, right : str
            The conditions of the two children.

        Examples
        --------
        >>> Covariate("age", "continuous", np.array([20.0, 30.0])).describe_left(25.0, None)
        ('age <= 25', 'age > 25')
        >>> region = Covariate("region", "nominal", np.array([0.0, 1.0, 2.0]), ["east", "north", "west"])
        >>> region.describe_left(None, [1])
        ('region in {north}', 'region in {east, west}')
        >>> region.describe_left(None, [1], present=[1, 2])  # east was split off at a parent node
        ('region in {north}', 'region in {west}')
        """
        if left_codes is not None:
            pool = range(len(self.categories)) if present is None else sorted({int(c) for c in present})
            right = [c for c in pool if c not in set(left_codes)]
            return f"{self.name} in {self.levels_text(left_codes)}", f"{self.name} in {self.levels_text(right)}"
        cut = self.value_text(float(threshold))  # type: ignore[arg-type]
        return f"{self.name} <= {cut}", f"{self.name} > {cut}"


def _ordered_codes(name: str, values: pd.Series) -> Covariate:
    """An ordered covariate keyed by the rank of its distinct values (exact for int64 timestamps)."""
    codes, uniques = pd.factorize(values, sort=True)
    return Covariate(name, "datetime", codes.astype(float), list(uniques))


def _hashable(value: Any) -> bool:
    """Whether a cell can be a category (lists, dicts and sets cannot)."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _datetime_text(col: pd.Series) -> pd.Series | None:
    """``col`` parsed as timestamps when every distinct value is a year-first date, else ``None``."""
    uniques = pd.unique(col.to_numpy(dtype=object))
    if not all(isinstance(v, str) and _DATE_TEXT.match(v) for v in uniques):
        return None
    for utc in (False, True):  # mixed time-zone offsets need a common (UTC) clock
        try:
            return pd.to_datetime(col, format="mixed", utc=utc)
        except (ValueError, TypeError, OverflowError):
            continue
    return None


def prepare_covariates(X: pd.DataFrame | np.ndarray) -> list[Covariate]:
    """Covariates from a data frame (or a 2-D array, all continuous).

    Numbers and booleans are continuous, ordered categoricals ordinal, datetimes, timedeltas,
    periods and year-first date strings datetime, and everything else nominal.

    Parameters
    ----------
    X : DataFrame or ndarray of shape (n_rows, n_covariates)
        The covariates to split on; an array must be numeric (its columns are named ``x0``, ``x1``, ...).

    Returns
    -------
    list of Covariate
        One per column, in column order.

    Raises
    ------
    DataError
        Not 2-D, no or duplicated columns, missing or infinite values, complex numbers, or a
        non-numeric array.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [25, 40, 31], "joined": ["2020-01-05", "2021-03-01", "2020-06-30"],
    ...                   "region": ["south", "north", "south"]})
    >>> [(c.name, c.kind) for c in prepare_covariates(X)]
    [('age', 'continuous'), ('joined', 'datetime'), ('region', 'nominal')]
    >>> [c.name for c in prepare_covariates(np.zeros((3, 2)))]
    ['x0', 'x1']
    """
    X = _as_frame(X)
    return [_covariate(name, X[name]) for name in X.columns]


def _as_frame(X: pd.DataFrame | np.ndarray) -> pd.DataFrame:
    """The covariates as a data frame with at least one column and no duplicated names."""
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise DataError(f"Covariates must be 2-D (rows x covariates); got shape {X.shape}. Pass a DataFrame "
                            "or reshape a single covariate with x.reshape(-1, 1).")
        if X.dtype.kind not in "biuf":
            raise DataError(f"A covariate array must be numeric; got dtype {X.dtype}. Pass a DataFrame to audit "
                            "along text, categorical or datetime covariates.")
        X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    if not isinstance(X, pd.DataFrame):
        raise DataError(f"Covariates must be a pandas DataFrame or a 2-D array; got {type(X).__name__}. "
                        "Wrap them with pd.DataFrame(...).")
    if X.shape[1] == 0:
        raise DataError("No covariates given: FairTree needs at least one column to split on; pass the columns "
                        "to audit along.")
    dupes = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
    if dupes:
        raise DataError(f"Covariate column(s) {dupes} appear more than once; drop or rename the duplicates.")
    return X


def _check_values(name: Any, col: pd.Series) -> None:
    """No missing values, and one hashable value per row of an object column."""
    missing = int(col.isna().sum())
    if missing:
        raise DataError(
            f"Covariate {name!r} has {missing} missing value(s); drop or impute those rows, or encode "
            "'missing' as its own category (FairTree splits only on observed values)."
        )
    if col.dtype == object and not col.map(_hashable).all():
        example = next(v for v in col if not _hashable(v))
        raise DataError(f"Covariate {name!r} holds {type(example).__name__} values such as {example!r}; a "
                        "covariate needs one number, label or date per row. Expand it into columns, or "
                        "turn each value into a label (e.g. df[col].map(str)).")


def _numeric_covariate(name: Any, col: pd.Series) -> Covariate:
    """A number or boolean column: continuous, once it holds no complex or infinite value."""
    if pd.api.types.is_complex_dtype(col):
        raise DataError(f"Covariate {name!r} holds complex numbers; pass its real part or a modulus.")
    key = col.to_numpy(dtype=float)
    if not np.all(np.isfinite(key)):
        raise DataError(f"Covariate {name!r} has infinite values; drop those rows or cap the values.")
    return Covariate(str(name), "continuous", key)


def _covariate(name: Any, col: pd.Series) -> Covariate:
    """One column as a covariate, its kind read from its dtype (text that parses as dates is a datetime)."""
    _check_values(name, col)
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = list(col.cat.categories)
        kind = "ordinal" if col.cat.ordered else "nominal"
        return Covariate(str(name), kind, col.cat.codes.to_numpy().astype(float), cats)
    if (pd.api.types.is_datetime64_any_dtype(col) or pd.api.types.is_timedelta64_dtype(col)
            or isinstance(col.dtype, pd.PeriodDtype)):
        return _ordered_codes(str(name), col)
    if pd.api.types.is_bool_dtype(col) or pd.api.types.is_numeric_dtype(col):
        return _numeric_covariate(name, col)
    if (stamps := _datetime_text(col)) is not None:
        return _ordered_codes(str(name), stamps)
    codes, uniques = pd.factorize(col, sort=False)
    order = sorted(range(len(uniques)), key=lambda i: str(uniques[i]))  # categories by name
    rank = np.empty(len(order), dtype=float)
    rank[order] = np.arange(len(order))
    return Covariate(str(name), "nominal", rank[codes], [uniques[i] for i in order])

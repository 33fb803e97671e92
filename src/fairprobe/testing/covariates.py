"""Pure-noise covariates of every type FairTree handles (the null benchmark and its reduced test share them)."""

from __future__ import annotations

from typing import Any

__all__ = ["NULL_COVARIATE_TYPES", "null_covariate"]

#: Covariate types of :func:`null_covariate`.
NULL_COVARIATE_TYPES = ("continuous", "ordinal", "binary", "nominal8", "nominal1000", "nominal1000_sparse", "id",
                        "datetime", "datetime_text")


def null_covariate(kind: str, n: int, rng: Any) -> Any:
    """One pure-noise covariate of type ``kind`` (see :data:`NULL_COVARIATE_TYPES`) for ``n`` rows.

    Continuous, five-level ordinal, binary, 8-level nominal, 1000-level nominal, an identifier
    (one distinct text value per row), datetimes, and the same timestamps as ISO text.

    Parameters
    ----------
    kind : str
        One of :data:`NULL_COVARIATE_TYPES`.
    n : int
        Number of rows.
    rng : numpy.random.Generator
        Source of randomness (e.g. ``numpy.random.default_rng(0)``).

    Returns
    -------
    numpy.ndarray, pandas.Categorical or pandas.Series
        ``n`` values independent of everything else.

    Raises
    ------
    ValueError
        When ``kind`` is not a known covariate type.

    Examples
    --------
    >>> import numpy as np
    >>> from fairprobe.testing import null_covariate
    >>> null_covariate("binary", 4, np.random.default_rng(0))
    array([1, 1, 1, 0])
    >>> list(null_covariate("ordinal", 4, np.random.default_rng(0)))
    ['top', 'high', 'mid', 'low']
    """
    import numpy as np
    import pandas as pd

    if kind == "continuous":
        return rng.normal(size=n)
    if kind == "ordinal":
        levels = ["none", "low", "mid", "high", "top"]
        return pd.Categorical(rng.choice(levels, n), categories=levels, ordered=True)
    if kind == "binary":
        return rng.integers(0, 2, n)
    if kind == "nominal8":
        return rng.choice(list("abcdefgh"), n)
    if kind in ("nominal1000", "nominal1000_sparse"):
        return np.array([f"level{i:04d}" for i in rng.integers(0, 1000, n)])
    if kind == "id":
        return np.array([f"id{i:07d}" for i in rng.permutation(n)])
    stamps = pd.Timestamp("2021-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 3 * 10**7, n)), unit="s")
    if kind == "datetime":
        return pd.Series(stamps)
    if kind == "datetime_text":
        return np.asarray(pd.Series(stamps).dt.strftime("%Y-%m-%d %H:%M:%S"))
    raise ValueError(f"unknown covariate type {kind!r}; use one of {NULL_COVARIATE_TYPES}")

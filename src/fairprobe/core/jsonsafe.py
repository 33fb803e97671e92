"""JSON for results: infinities as the strings ``"inf"``/``"-inf"``, NaN as ``null``.

Standard JSON has no infinity or NaN (Python's ``json`` writes the invalid tokens ``Infinity``
and ``NaN``). A certified bound can be infinite (no bound was proved) and an undefined rate is
NaN, so every JSON writer of fairprobe goes through :func:`json_number` (one value) or
:func:`json_default` (``json.dumps(..., default=json_default)``).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["json_default", "json_number", "jsonable"]


def json_number(x: Any) -> Any:
    """``x`` with a float infinity as ``"inf"``/``"-inf"`` and NaN as None; anything else unchanged.

    Parameters
    ----------
    x : Any
        One value, typically a float bound that may be infinite or NaN.

    Returns
    -------
    Any
        ``"inf"``, ``"-inf"`` or None for the non-finite floats, else ``x`` itself.

    Examples
    --------
    >>> json_number(float("inf")), json_number(float("nan")), json_number(0.5)
    ('inf', None, 0.5)
    """
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def jsonable(obj: Any) -> Any:
    """``obj`` (dicts, lists, tuples, numbers, numpy scalars) with every number through :func:`json_number`.

    Parameters
    ----------
    obj : Any
        A nested structure of dicts, lists, tuples and numbers (numpy scalars included).

    Returns
    -------
    Any
        The same structure (tuples become lists) with numbers safe for standard JSON.

    Examples
    --------
    >>> jsonable({"lower": float("-inf"), "values": [1.0, float("nan")]})
    {'lower': '-inf', 'values': [1.0, None]}
    """
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item) and getattr(obj, "ndim", None) == 0:
        obj = obj.item()  # numpy scalar
    return json_number(obj)


def json_default(x: Any) -> Any:
    """``default=`` for ``json.dumps``: numpy scalars and arrays as numbers and lists, the rest as text.

    Parameters
    ----------
    x : Any
        An object ``json.dumps`` cannot serialise by itself.

    Returns
    -------
    Any
        A JSON-safe number or list for objects with ``tolist`` (numpy), else ``str(x)``.

    Examples
    --------
    >>> import json
    >>> import numpy as np
    >>> json.dumps({"x": np.float64(1.5), "a": np.array([1.0, np.inf])}, default=json_default)
    '{"x": 1.5, "a": [1.0, "inf"]}'
    >>> json_default(3j)
    '3j'
    """
    if hasattr(x, "tolist"):
        return jsonable(x.tolist())
    return str(x)

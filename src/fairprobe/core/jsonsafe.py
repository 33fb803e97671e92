"""JSON for results: infinities as the strings ``"inf"``/``"-inf"``, NaN as ``null``.

Standard JSON has no infinity or NaN (Python's ``json`` writes the invalid tokens ``Infinity``
and ``NaN``). A certified bound can be infinite (no bound was proved) and an undefined rate is
NaN. The one rule: an infinity keeps its sign as a string, NaN (undefined) becomes ``null``.
Every JSON writer of fairprobe (``--json`` of every command, ``summary.json``, ``report.json``,
``to_json``) goes through :func:`dumps`, which applies it and refuses any other non-finite value
(``allow_nan=False``), so no writer can emit invalid JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["dumps", "json_default", "json_number", "jsonable"]


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
    >>> import numpy as np
    >>> json.dumps({"x": np.float64(1.5), "a": np.array([1.0, np.inf])}, default=json_default)
    '{"x": 1.5, "a": [1.0, "inf"]}'
    >>> json_default(3j)
    '3j'
    """
    if hasattr(x, "tolist"):
        return jsonable(x.tolist())
    return str(x)


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` under the one rule for non-finite numbers (the only JSON writer fairprobe uses).

    Parameters
    ----------
    obj : Any
        Dicts, lists, numbers (numpy included), strings; anything else is written as its text.
    **kwargs : Any
        Passed to :func:`json.dumps` (``indent``, ``sort_keys``).

    Returns
    -------
    str
        Standard JSON: no ``Infinity`` or ``NaN`` token.

    Examples
    --------
    >>> import numpy as np
    >>> dumps({"upper": float("inf"), "rate": float("nan"), "a": np.array([0.5, -np.inf])})
    '{"upper": "inf", "rate": null, "a": [0.5, "-inf"]}'
    """
    return json.dumps(jsonable(obj), default=json_default, allow_nan=False, **kwargs)

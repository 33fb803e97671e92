"""JSON for results: infinities as the strings ``"inf"``/``"-inf"``, NaN as ``null``.

Standard JSON has no infinity or NaN, yet a certified bound can be infinite and an undefined rate
is NaN. Every JSON writer of fairprobe goes through :func:`dumps`, which applies this rule and
refuses any other non-finite value.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["dumps", "json_number", "jsonable"]


def json_number(x: Any) -> Any:
    """``x`` with a float infinity as ``"inf"``/``"-inf"`` and NaN as None; anything else unchanged.

    Parameters
    ----------
    x : Any

    Returns
    -------
    Any

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

    Returns
    -------
    Any
        The same structure, tuples as lists.

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


def _json_default(x: Any) -> Any:
    """``default=`` for ``json.dumps``: numpy scalars and arrays as numbers and lists, the rest as text."""
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

    Examples
    --------
    >>> import numpy as np
    >>> dumps({"upper": float("inf"), "rate": float("nan"), "a": np.array([0.5, -np.inf]), "z": 3j})
    '{"upper": "inf", "rate": null, "a": [0.5, "-inf"], "z": "3j"}'
    """
    return json.dumps(jsonable(obj), default=_json_default, allow_nan=False, **kwargs)

"""Sparse polynomials as plain dicts.

A monomial is a sorted tuple of variable indices with repetition (``x0**2 * x3`` is
``(0, 0, 3)``); the constant monomial is ``()``. A polynomial maps monomials to float
coefficients. Plain dicts are much faster than sympy at the sizes the causal compiler produces,
which is why sympy stays at the edges (parsing and printing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

Monomial = tuple[int, ...]
Poly = dict[Monomial, float]

__all__ = ["Monomial", "Poly", "constant", "degree", "evaluate", "monomial_mul", "poly_add", "poly_mul", "poly_scale",
           "variable", "variables_of"]


def constant(value: float) -> Poly:
    """The constant polynomial ``value``: ``{(): value}``, or ``{}`` when ``value`` is zero.

    Parameters
    ----------
    value : float

    Returns
    -------
    Poly

    Examples
    --------
    >>> constant(2), constant(0)
    ({(): 2.0}, {})
    """
    return {(): float(value)} if value != 0 else {}


def variable(index: int, coefficient: float = 1.0) -> Poly:
    """The polynomial ``coefficient * x_index``.

    Parameters
    ----------
    index : int
    coefficient : float

    Returns
    -------
    Poly

    Examples
    --------
    >>> variable(3), variable(0, -2)
    ({(3,): 1.0}, {(0,): -2.0})
    """
    return {(index,): float(coefficient)}


def monomial_mul(a: Monomial, b: Monomial) -> Monomial:
    """Product of two monomials (merge of two sorted tuples).

    Parameters
    ----------
    a, b : Monomial

    Returns
    -------
    Monomial

    Examples
    --------
    >>> monomial_mul((0, 3), (1,)), monomial_mul((), (2, 2))
    ((0, 1, 3), (2, 2))
    """
    if not a:
        return b
    if not b:
        return a
    return tuple(sorted(a + b))


def poly_add(a: Mapping[Monomial, float], b: Mapping[Monomial, float], scale: float = 1.0) -> Poly:
    """``a + scale * b`` as a new polynomial, zero coefficients dropped (neither argument is modified).

    Parameters
    ----------
    a, b : mapping of Monomial to float
    scale : float
        Factor applied to ``b`` (``-1`` subtracts).

    Returns
    -------
    Poly

    Examples
    --------
    >>> poly_add({(0,): 1.0, (): 2.0}, {(0,): 1.0}, scale=-1)
    {(): 2.0}
    """
    out = dict(a)
    for mono, coef in b.items():
        value = out.get(mono, 0.0) + scale * coef
        if value == 0.0:
            out.pop(mono, None)
        else:
            out[mono] = value
    return out


def poly_scale(a: Mapping[Monomial, float], scale: float) -> Poly:
    """``scale * a`` as a new polynomial (``{}`` when ``scale`` is 0).

    Parameters
    ----------
    a : mapping of Monomial to float
    scale : float

    Returns
    -------
    Poly

    Examples
    --------
    >>> poly_scale({(0,): 1.5, (): 1.0}, 2)
    {(0,): 3.0, (): 2.0}
    """
    if scale == 0:
        return {}
    return {mono: coef * scale for mono, coef in a.items()}


def poly_mul(a: Mapping[Monomial, float], b: Mapping[Monomial, float]) -> Poly:
    """The expanded product ``a * b``, zero coefficients dropped.

    Parameters
    ----------
    a, b : mapping of Monomial to float

    Returns
    -------
    Poly

    Examples
    --------
    >>> x, y = variable(0), variable(1)
    >>> poly_mul(poly_add(x, y), poly_add(x, y, scale=-1))  # (x + y)(x - y)
    {(0, 0): 1.0, (1, 1): -1.0}
    """
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            mono = monomial_mul(ma, mb)
            out[mono] = out.get(mono, 0.0) + ca * cb
    return {m: c for m, c in out.items() if c != 0.0}


def degree(a: Mapping[Monomial, float]) -> int:
    """Total degree: the length of the longest monomial (0 for constants and the zero polynomial).

    Parameters
    ----------
    a : mapping of Monomial to float

    Returns
    -------
    int

    Examples
    --------
    >>> degree({(0, 0, 3): 1.0, (1,): 2.0}), degree({})
    (3, 0)
    """
    return max(map(len, a), default=0)


def variables_of(a: Mapping[Monomial, float]) -> set[int]:
    """Indices of the variables that occur in ``a``.

    Parameters
    ----------
    a : mapping of Monomial to float

    Returns
    -------
    set of int

    Examples
    --------
    >>> sorted(variables_of({(0, 0, 3): 1.0, (): 2.0}))
    [0, 3]
    """
    return {i for mono in a for i in mono}


def evaluate(a: Mapping[Monomial, float], point: Sequence[float]) -> float:
    """Value of ``a`` at ``point``.

    Parameters
    ----------
    a : mapping of Monomial to float
    point : sequence of float
        ``point[i]`` is the value of ``x_i``.

    Returns
    -------
    float

    Examples
    --------
    >>> evaluate({(0, 0): 1.0, (1,): -2.0, (): 0.5}, [3.0, 1.0])  # x0**2 - 2 x1 + 0.5
    7.5
    """
    total = 0.0
    for mono, coef in a.items():
        term = coef
        for i in mono:
            term *= point[i]
        total += term
    return total


def canonical_items(a: Mapping[Monomial, float]) -> Iterable[tuple[Monomial, float]]:
    """The ``(monomial, coefficient)`` pairs in a deterministic order: by degree, then lexicographically.

    Parameters
    ----------
    a : mapping of Monomial to float

    Returns
    -------
    list of (Monomial, float)

    Examples
    --------
    >>> canonical_items({(1, 1): 1.0, (2,): 3.0, (): 4.0, (0,): 2.0})
    [((), 4.0), ((0,), 2.0), ((2,), 3.0), ((1, 1), 1.0)]
    """
    return sorted(a.items(), key=lambda kv: (len(kv[0]), kv[0]))

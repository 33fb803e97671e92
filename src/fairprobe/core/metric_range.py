"""The values a metric can take in any model at all (interval arithmetic on its expression).

:func:`metric_range` is the range a bound is clipped to when a solver stops before its dual bound
reaches it (:attr:`BoundProblem.natural_range <fairprobe.core.engine.BoundProblem.natural_range>`).
"""

from __future__ import annotations

import functools
import math
from typing import Any

from fairprobe.core.query import Atom, parse_expression

__all__ = ["metric_range", "paired_range"]


@functools.lru_cache(maxsize=256)
def metric_range(queries: tuple[str, ...], max_abs: bool,
                   two_valued: frozenset[str] = frozenset()) -> tuple[float, float]:
    """:attr:`BoundProblem.natural_range` of a metric's queries (sympy interval arithmetic, kept per metric).

    ``two_valued``: the nodes the bias gives exactly two values, which tightens the range of
    differences between a conditional and an interventional probability (:func:`paired_range`).
    """
    import sympy

    lows, highs = [], []
    for query in queries:
        parsed = parse_expression(query)
        try:
            box = sympy.sympify(parsed.expr).subs({p: sympy.AccumBounds(0, 1) for p in parsed.symbols})
            low, high = (float(box.min), float(box.max)) if isinstance(box, sympy.AccumBounds) \
                else (float(box), float(box))
        except (TypeError, ValueError, AttributeError):
            return -math.inf, math.inf
        for tighter in (_linear_range(parsed), paired_range(parsed, two_valued)):
            if tighter is not None:  # all are certified: keep the tightest ends
                low, high = max(low, tighter[0]), min(high, tighter[1])
        lows.append(low)
        highs.append(high)
    if max_abs:  # max_i |term_i|
        return 0.0, max(max(abs(lo), abs(hi)) for lo, hi in zip(lows, highs, strict=True))
    return lows[0], highs[0]


def _disjoint(first: Any, second: Any) -> bool:
    """Whether two probability atoms' events exclude each other (one variable, as read under one intervention,
    takes different values in them)."""
    for a in first.event:
        for b in second.event:
            if a.var != b.var or a.intervention != b.intervention:
                continue
            if (not a.negated and not b.negated and a.value != b.value) or \
                    (a.negated != b.negated and a.value == b.value):
                return True
    return False


def _linear_range(parsed: Any) -> tuple[float, float] | None:
    """The range of a query linear in its probabilities, where those of disjoint events given the same event sum
    to at most 1 (None for a query that is not linear).

    Greedy sets of pairwise disjoint events given one event each range over ``[min(0, min c), max(0, max c)]``
    (a group's accuracy over [0, 1], not interval arithmetic's [0, 2]); certified, possibly loose.

    Examples
    --------
    >>> from fairprobe.core.query import parse_expression
    >>> _linear_range(parse_expression("P(P = 0 & Y = 0 | A = 0) + P(P = 1 & Y = 1 | A = 0) - P(P = 1 | A = 1)"))
    (-1.0, 1.0)
    >>> _linear_range(parse_expression("P(P = 1 | A = 0) * P(P = 1 | A = 1)")) is None
    True
    """
    terms = _linear_terms(parsed)
    if terms is None:
        return None
    coefs, constant = terms
    low, high = _disjoint_sets_range(parsed, coefs, list(range(len(parsed.atoms))))
    return constant + low, constant + high


def _linear_terms(parsed: Any) -> tuple[list[float], float] | None:
    """The coefficients of a query linear in its probabilities (aligned with ``parsed.atoms``) and its constant."""
    import sympy

    symbols = list(parsed.symbols)
    if not symbols:
        return None
    try:
        poly = sympy.Poly(sympy.sympify(parsed.expr), *symbols)
    except (sympy.PolynomialError, TypeError, ValueError):
        return None
    if poly.total_degree() > 1:
        return None
    return [float(poly.coeff_monomial(s)) for s in symbols], float(poly.coeff_monomial(1))


def _disjoint_sets_range(parsed: Any, coefs: list[float], members: list[int]) -> tuple[float, float]:
    """The range of ``sum coefs[k] * p_k`` over the atoms ``members`` (the rule of :func:`_linear_range`)."""
    sets: list[list[int]] = []
    for k in members:
        atom = parsed.atoms[k]
        for group in sets:
            if all(parsed.atoms[j].given == atom.given and _disjoint(parsed.atoms[j], atom) for j in group):
                group.append(k)
                break
        else:
            sets.append([k])
    return (sum(min(0.0, *(coefs[k] for k in group)) for group in sets),
            sum(max(0.0, *(coefs[k] for k in group)) for group in sets))


def _interventional_match(atoms: Any, coefs: list[float], k: int, used: set[int],
                          two_valued: frozenset[str]) -> int | None:
    """The term pairing term ``k``, ``P(E | X = x)``, with ``-P(E(X=x))`` (``X`` two-valued), else None."""
    cond = atoms[k]
    if len(cond.given) != 1:
        return None
    on = cond.given[0]
    if on.negated or on.intervention or on.var not in two_valued \
            or any(a.intervention or a.var == on.var for a in cond.event):
        return None
    world = tuple(Atom(a.var, a.value, ((on.var, on.value),), a.negated) for a in cond.event)
    return next((j for j, other in enumerate(atoms) if j not in used and j != k and not other.given
                 and other.event == world and coefs[j] == -coefs[k]), None)


def paired_range(parsed: Any, two_valued: frozenset[str]) -> tuple[float, float] | None:
    """The range of a linear query whose terms pair a conditional and an interventional probability
    of one event, ``c * (P(E | X = x) - P(E(X=x)))``, when ``X`` takes two values (None otherwise).

    Why it holds in every model: with ``pi_v = P(X = v)``, consistency gives ``P(E | X = x) - P(E(X=x)) =
    sum_{v != x} pi_v (P(E | X = x) - P(E(X=x) | X = v))``, within ``1 - pi_x`` of 0. With two values
    ``1 - pi_0 = pi_1``, so all of ``X``'s pairs (coefficient sums ``C_x``) lie within ``C_0 pi_1 + C_1 pi_0
    <= max(C_0, C_1)`` of 0: the spurious effect TV - TE lies in [-1, 1] where interval arithmetic gives
    [-2, 2]. With three values the pairs can reach ``C_0 + C_1``, so only two-valued nodes are paired. The
    other terms add their range (:func:`_linear_range`'s rule).


    Examples
    --------
    >>> from fairprobe.core.query import parse_expression
    >>> se = parse_expression("P(P = 1 | A = 0) - P(P(A=0) = 1) - P(P = 1 | A = 1) + P(P(A=1) = 1)")
    >>> paired_range(se, frozenset({"A"}))
    (-1.0, 1.0)
    >>> paired_range(se, frozenset()) is None  # A may have more values: no tighter range
    True
    """

    terms = _linear_terms(parsed)
    if terms is None or not two_valued:
        return None
    coefs, constant = terms
    atoms = parsed.atoms
    used: set[int] = set()
    weight: dict[str, dict[Any, float]] = {}  # node -> value -> sum |c| of its pairs
    for k, cond in enumerate(atoms):
        match = None if k in used or coefs[k] == 0 else _interventional_match(atoms, coefs, k, used, two_valued)
        if match is None:
            continue
        on = cond.given[0]
        used |= {k, match}
        values = weight.setdefault(on.var, {})
        values[on.value] = values.get(on.value, 0.0) + abs(coefs[k])
    if not used:
        return None
    # two values: at most two keys per node (a third would be a value outside the node's two; then no claim)
    if any(len(values) > 2 for values in weight.values()):
        return None
    spread = sum(max(values.values()) for values in weight.values())
    low, high = _disjoint_sets_range(parsed, coefs, [k for k in range(len(atoms)) if k not in used])
    return constant + low - spread, constant + high + spread

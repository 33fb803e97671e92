"""Exact, solver-neutral reformulations of programs (used by the bound driver and the backends).

* :func:`quadratize`: lower every monomial of degree > 2 to products of two factors with
  auxiliary variables ``w = u*v`` (exact; bounds of ``w`` from interval arithmetic).
* :func:`charnes_cooper`: an exact LP for a linear-fractional program (denominator > 0).
* :func:`fraction_to_epigraph`: ``min num/den`` -> ``min r`` with ``num - r*den <= 0``.

Every transform returns a new program whose first variables are the original ones, in order,
so an incumbent maps back by truncation (Charnes-Cooper: by division, see its docstring).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from fairprobe.exceptions import ProgramError
from fairprobe.program.model import Constraint, PolynomialProgram, Variable
from fairprobe.program.polynomial import Monomial, Poly, poly_add

__all__ = ["ProductDefinition", "QuadratizedProgram", "charnes_cooper", "fraction_to_epigraph", "interval_mul",
           "poly_interval", "quadratize"]


def _safe_mul(a: float, b: float) -> float:
    """``a * b`` with ``0 * inf = 0`` (for interval ends, the factor is exactly zero)."""
    if a == 0 or b == 0:
        return 0.0
    return a * b


def interval_mul(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """Interval product ``[a] * [b]``: the smallest interval holding every product of a point of each.

    Parameters
    ----------
    a, b : tuple of float
        The factors' intervals ``(low, high)``; ends may be infinite (``0 * inf`` counts as 0).

    Returns
    -------
    tuple of float

    Examples
    --------
    >>> interval_mul((-1.0, 2.0), (3.0, 4.0)), interval_mul((0.0, 0.0), (0.0, float("inf")))
    ((-4.0, 8.0), (0.0, 0.0))
    """
    cands = [_safe_mul(x, y) for x in a for y in b]
    return min(cands), max(cands)


def _interval_pow(a: tuple[float, float], p: int) -> tuple[float, float]:
    """Interval power ``[a] ** p`` (non-negative for even ``p``)."""
    out = (1.0, 1.0)
    for _ in range(p):
        out = interval_mul(out, a)
    if p % 2 == 0:
        lo, hi = out
        out = (max(lo, 0.0), hi)
        if a[0] <= 0 <= a[1]:
            out = (0.0, out[1])
    return out


def poly_interval(poly: Poly, bounds: list[tuple[float, float]]) -> tuple[float, float]:
    """A (possibly loose) interval ``(low, high)`` holding ``poly(x)`` for every ``x`` in the box ``bounds``.

    Parameters
    ----------
    poly : Poly
    bounds : list of tuple of float
        ``(low, high)`` of each variable, by index.

    Returns
    -------
    tuple of float

    Examples
    --------
    >>> poly_interval({(0, 0): 1.0, (1,): -2.0}, [(-1.0, 2.0), (0.0, 1.0)])  # x0**2 - 2*x1
    (-2.0, 4.0)
    """
    lo = hi = 0.0
    for mono, coef in poly.items():
        t = (1.0, 1.0)
        for i, run in itertools.groupby(mono):
            t = interval_mul(t, _interval_pow(bounds[i], len(list(run))))
        a, b = _safe_mul(coef, t[0]), _safe_mul(coef, t[1])
        lo += min(a, b)
        hi += max(a, b)
    return lo, hi


@dataclass(frozen=True)
class ProductDefinition:
    """Auxiliary variable ``result = left * right`` (indices in the quadratized program).

    Parameters
    ----------
    result : int
        Index of the auxiliary variable.
    left, right : int
        Indices of the two factors.

    Examples
    --------
    >>> ProductDefinition(result=3, left=0, right=1)
    ProductDefinition(result=3, left=0, right=1)
    """

    result: int
    left: int
    right: int


@dataclass
class QuadratizedProgram:
    """A degree <= 2 program plus the definitions of its auxiliary product variables.

    Parameters
    ----------
    program : PolynomialProgram
        The quadratized program; its first ``n_original`` variables are the original ones.
    n_original : int
        Number of variables of the original program.
    products : list of ProductDefinition
        One definition per auxiliary product variable.

    Examples
    --------
    >>> p = PolynomialProgram.from_text("maximize\\n  x*y*z\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1\\n  0 <= z <= 1")
    >>> q = quadratize(p)
    >>> q.n_original, q.program.max_degree, q.products
    (3, 2, [ProductDefinition(result=3, left=0, right=1)])
    """

    program: PolynomialProgram
    n_original: int
    products: list[ProductDefinition] = field(default_factory=list)


def quadratize(program: PolynomialProgram) -> QuadratizedProgram:
    """Exact reformulation with every monomial of degree <= 2.

    A monomial ``x*y*z`` becomes ``w*z`` with a new variable ``w`` and the constraint
    ``w - x*y == 0``; sub-products are shared between monomials. Fractional objectives are
    left as they are (call :func:`fraction_to_epigraph` first when needed).

    Parameters
    ----------
    program : PolynomialProgram
        The program to lower (left unchanged).

    Returns
    -------
    QuadratizedProgram

    Examples
    --------
    >>> prog = PolynomialProgram.from_text("maximize\\n  x*y*z\\nsubject to\\n  c: x + y + z <= 2\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1\\n  0 <= z <= 1")
    >>> print(quadratize(prog).program.to_text())
    maximize
      z*_w0
    subject to
      c: x + y + z <= 2
      _def3: _w0 - x*y == 0
    bounds
      0 <= x <= 1
      0 <= y <= 1
      0 <= z <= 1
      0 <= _w0 <= 1
    """
    out = program.copy()
    bounds = [(v.lb, v.ub) for v in out.variables]
    cache: dict[Monomial, int] = {}
    products: list[ProductDefinition] = []
    used = {v.name for v in out.variables}

    def fresh_name() -> str:
        k = len(products)
        while f"_w{k}" in used:
            k += 1
        used.add(f"_w{k}")
        return f"_w{k}"

    def product_var(mono: Monomial) -> int:
        """Index of a variable equal to the monomial ``mono`` (degree >= 1)."""
        if len(mono) == 1:
            return mono[0]
        if mono in cache:
            return cache[mono]
        left = product_var(mono[:-1])
        right = mono[-1]
        lo, hi = interval_mul(bounds[left], bounds[right])
        idx = out.add_variable(fresh_name(), lo, hi)
        bounds.append((lo, hi))
        out.constraints.append(Constraint({(idx,): 1.0, tuple(sorted((left, right))): -1.0}, "==", 0.0, f"_def{idx}"))
        products.append(ProductDefinition(idx, left, right))
        cache[mono] = idx
        return idx

    def lower(poly: Poly) -> Poly:
        res: Poly = {}
        for mono, coef in poly.items():
            if len(mono) <= 2:
                key = mono
            else:
                key = tuple(sorted((product_var(mono[:-1]), mono[-1])))
            res = poly_add(res, {key: coef})
        return res

    out.objective = lower(program.objective)
    if program.objective_denominator is not None:
        out.objective_denominator = lower(program.objective_denominator)
    new_constraints = [Constraint(lower(c.poly), c.sense, c.rhs, c.name) for c in program.constraints]
    # definitions were appended to out.constraints while lowering; keep them after the originals
    definitions = out.constraints[len(program.constraints):]
    out.constraints = new_constraints + definitions
    return QuadratizedProgram(out, program.n_variables, products)


def fraction_to_epigraph(program: PolynomialProgram) -> PolynomialProgram:
    """``opt num/den`` -> ``opt r`` subject to ``num - r*den <= 0`` (min) or ``>= 0`` (max).

    Valid when ``den > 0`` on the feasible set. The new variable ``_ratio`` (last) gets bounds
    from interval arithmetic when the denominator's interval is positive.

    Parameters
    ----------
    program : PolynomialProgram
        A program, usually with a fractional objective (left unchanged).

    Returns
    -------
    PolynomialProgram
        The epigraph program, or ``program`` itself when its objective is not a fraction.

    Examples
    --------
    >>> lf = PolynomialProgram.from_text("minimize\\n  (x + 1) / (y + 1)\\nsubject to\\n  c: x + y <= 1\\n"
    ...                                  "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> print(fraction_to_epigraph(lf).to_text())
    minimize
      _ratio
    subject to
      c: x + y <= 1
      _epigraph: 1 + x - _ratio - y*_ratio <= 0
    bounds
      0 <= x <= 1
      0 <= y <= 1
      0.5 <= _ratio <= 2
    """
    if program.objective_denominator is None:
        return program
    out = program.copy()
    box = [(v.lb, v.ub) for v in program.variables]
    num_lo, num_hi = poly_interval(program.objective, box)
    den_lo, den_hi = poly_interval(program.objective_denominator, box)
    lo, hi = -math.inf, math.inf
    if den_lo > 0:
        cands = [a / b for a in (num_lo, num_hi) for b in (den_lo, den_hi) if math.isfinite(a / b)]
        if len(cands) == 4:
            lo, hi = min(cands), max(cands)
    r = out.add_variable("_ratio", lo, hi)
    body = poly_add(program.objective, {
        tuple(sorted((*mono, r))): -coef for mono, coef in program.objective_denominator.items()
    })
    out.constraints.append(Constraint(body, "<=" if program.sense == "min" else ">=", 0.0, "_epigraph"))
    out.objective = {(r,): 1.0}
    out.objective_denominator = None
    return out


def charnes_cooper(program: PolynomialProgram) -> PolynomialProgram:
    """Exact LP for a linear-fractional program, by the Charnes-Cooper transformation.

    With ``t = 1/den(x)`` and ``y = t*x``: optimise ``num(y, t)`` subject to ``den(y, t) == 1``,
    ``A y - b t (sense) 0``, ``lb t <= y <= ub t``, ``t >= 0``. Requires ``den > 0`` on the
    feasible set (the caller checks). The result has variables ``y`` (same names) then ``_t``;
    an optimal ``x`` is ``y / t``.

    Parameters
    ----------
    program : PolynomialProgram
        A linear-fractional program (linear rows, numerator and denominator).

    Returns
    -------
    PolynomialProgram

    Raises
    ------
    ProgramError
        ``program`` is not linear-fractional.

    Examples
    --------
    >>> lf = PolynomialProgram.from_text("minimize\\n  (x + 1) / (y + 1)\\nsubject to\\n  c: x + y <= 1\\n"
    ...                                  "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> print(charnes_cooper(lf).to_text())
    minimize
      x + _t
    subject to
      _den: y + _t == 1
      c: x + y - _t <= 0
      x - _t <= 0
      y - _t <= 0
    bounds
      0 <= x <= inf
      0 <= y <= inf
      0 <= _t <= inf
    """
    if program.objective_denominator is None or not program.is_linear():
        raise ProgramError("charnes_cooper needs a linear-fractional program.")
    n = program.n_variables
    out = PolynomialProgram(sense=program.sense, name=program.name)
    for v in program.variables:
        out.variables.append(Variable(v.name, 0.0 if v.lb >= 0 else -math.inf,
                                      0.0 if v.ub <= 0 else math.inf))
    out._index = {v.name: i for i, v in enumerate(out.variables)}
    t = out.add_variable("_t" if "_t" not in out._index else "_t_cc", 0.0, math.inf)

    def homogenise(poly: Poly) -> Poly:
        return {((t,) if not mono else mono): coef for mono, coef in poly.items()}

    out.objective = homogenise(program.objective)
    out.constraints.append(Constraint(homogenise(program.objective_denominator), "==", 1.0, "_den"))
    for c in program.constraints:
        body = homogenise(c.poly)
        if c.rhs:
            body = poly_add(body, {(t,): -c.rhs})
        out.constraints.append(Constraint(body, c.sense, 0.0, c.name))
    for i, v in enumerate(program.variables[:n]):
        if math.isfinite(v.lb) and v.lb != 0:
            out.constraints.append(Constraint({(i,): 1.0, (t,): -v.lb}, ">=", 0.0, None))
        if math.isfinite(v.ub):
            out.constraints.append(Constraint({(i,): 1.0, (t,): -v.ub}, "<=", 0.0, None))
    return out

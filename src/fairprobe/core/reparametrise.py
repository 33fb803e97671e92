"""Exact rewrites that make a proxy's measurement model linear: structural zeros and reciprocals.

A proxy ``Y`` of a latent outcome ``Z`` whose error does not depend on the latent confounder
(the ``..._no_edge`` proxy-label biases) is parametrised by ``P(Y = y | A = a, Z = z)``: every
data row ``P(Y = y, P = p, A = a) = sum_z q(z, p, a) * P(y | a, z)`` is bilinear. Two rewrites,
each exact (same feasible values of every other variable, same objective), remove the
nonlinearity when the bias makes the proxy one-sided:

* **structural zeros**: a row ``sum c_k m_k == 0`` with all ``c_k`` of one sign over non-negative
  variables forces each monomial to 0. A conditional parameter ``y`` all of whose nonlinear
  monomials are so forced can be fixed at 0: at any admitted point either ``y = 0`` already, or
  every cofactor ``m / y`` is 0, and then moving ``y``'s mass to a sibling of its distribution row
  (whose monomials have cofactors among ``y``'s, hence are 0 too) changes no value. With one
  sibling, the sibling is 1.
* **reciprocals**: a binary distribution row ``y + y' == 1`` whose ``y`` meets the data only in
  single-monomial rows ``c_x * x * y == d_x`` (``d_x / c_x > 0``), one per partner ``x``: then
  ``x = k_x / y`` with ``k_x = d_x / c_x``, and with ``w = 1 / y >= 1`` every monomial that holds
  one partner is linear in ``w``: ``x * y -> k_x``, ``x * y' = x - x * y -> k_x w - k_x``,
  ``x -> k_x w``. The single-monomial rows become constants and the distribution row drops out.

:func:`reparametrise` applies both until neither applies; :class:`Rewrite` maps polynomials of
the original program (conditioning events, max-abs terms) into the new one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fairprobe.exceptions import InfeasibleError
from fairprobe.program.model import Constraint, PolynomialProgram, Variable
from fairprobe.program.polynomial import Monomial, Poly

__all__ = ["Rewrite", "reparametrise"]

_TOL = 1e-9


@dataclass
class Rewrite:
    """The rewrites applied to a program, to map polynomials forward.

    Parameters
    ----------
    program : PolynomialProgram
        The rewritten program (the original one until a rewrite applies).
    steps : list, optional
        ``(old variable names, new variable names, monomial map)`` per rewrite, in order.
    notes : list of str, optional
        One line per kind of rewrite applied, for reports.

    Examples
    --------
    >>> text = "minimize\\n x\\nsubject to\\n dist: y + z == 1\\n data: x*y == 0.2\\n other: x*z + u == 0.3\\n"
    >>> prog = PolynomialProgram.from_text(text + "bounds\\n 0 <= x <= 1\\n 0 <= y <= 1\\n 0 <= z <= 1\\n 0 <= u <= 1")
    >>> rewrite = reparametrise(prog)
    >>> [v.name for v in rewrite.program.variables], len(rewrite.steps)
    (['u', 'inv_y'], 1)
    """

    program: PolynomialProgram
    steps: list[tuple[list[str], list[str], Callable[[Monomial], Poly]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def map_named(self, poly: Mapping[tuple[str, ...], float]) -> dict[tuple[str, ...], float]:
        """A polynomial over the original program's variable names, over the new program's names.

        Parameters
        ----------
        poly : mapping of tuple of str to float
            ``{monomial as variable names: coefficient}`` over the original program.

        Returns
        -------
        dict of tuple of str to float
            The same polynomial over the rewritten program's variables (``()`` is the constant).

        Examples
        --------
        >>> text = "minimize\\n x\\nsubject to\\n dist: y + z == 1\\n data: x*y == 0.2\\nbounds\\n"
        >>> prog = PolynomialProgram.from_text(text + "0 <= x <= 1\\n 0 <= y <= 1\\n 0 <= z <= 1")
        >>> reparametrise(prog).map_named({("x", "z"): 1.0})
        {('inv_y',): 0.2, (): -0.2}
        """
        out = dict(poly)
        for names, new_names, mono_map in self.steps:
            index = {n: i for i, n in enumerate(names)}
            mapped: Poly = {}
            for mono, coef in out.items():
                for m, v in mono_map(tuple(sorted(index[n] for n in mono))).items():
                    mapped[m] = mapped.get(m, 0.0) + coef * v
            out = {tuple(new_names[i] for i in m): v for m, v in mapped.items() if v != 0.0}
        return out


def _rows(prog: PolynomialProgram) -> list[tuple[str, Poly]]:
    out = [(f"row{k}", c.poly) for k, c in enumerate(prog.constraints)]
    out.append(("objective", prog.objective))
    if prog.objective_denominator is not None:
        out.append(("denominator", prog.objective_denominator))
    return out


def _occurrences(prog: PolynomialProgram) -> dict[int, list[tuple[str, Monomial]]]:
    occ: dict[int, list[tuple[str, Monomial]]] = {}
    for where, poly in _rows(prog):
        for mono in poly:
            for i in set(mono):
                occ.setdefault(i, []).append((where, mono))
    return occ


def _forced_zero(prog: PolynomialProgram) -> set[Monomial]:
    """Monomials that every feasible point sets to 0 (one-signed ``== 0`` rows over x >= 0)."""
    out: set[Monomial] = set()
    for c in prog.constraints:
        if c.sense != "==" or c.rhs != 0.0 or not c.poly or () in c.poly:
            continue
        signs = {v > 0 for v in c.poly.values()}
        if len(signs) == 1 and all(prog.variables[i].lb >= 0 for m in c.poly for i in m):
            out.update(c.poly)
    return out


def _dist_rows(prog: PolynomialProgram) -> list[tuple[int, list[int]]]:
    """Rows ``sum x_i == 1`` over variables in [0, >= 1] (a conditional distribution)."""
    out = []
    for k, c in enumerate(prog.constraints):
        if (c.sense == "==" and abs(c.rhs - 1.0) <= _TOL and len(c.poly) >= 2
                and all(len(m) == 1 and v == 1.0 for m, v in c.poly.items())):
            ids = [m[0] for m in c.poly]
            if all(prog.variables[i].lb == 0.0 and prog.variables[i].ub >= 1.0 for i in ids):
                out.append((k, ids))
    return out


def _only_in(occ: list[tuple[str, Monomial]], row: str, var: int) -> bool:
    """Every linear occurrence of ``var`` is in ``row``, and ``var`` has degree 1 everywhere."""
    for where, mono in occ:
        if mono.count(var) > 1:
            return False
        if len(mono) == 1 and where != row:
            return False
    return True


def _structural_zero(prog: PolynomialProgram) -> tuple[dict[int, float], str] | None:
    zero = _forced_zero(prog)
    if not zero:
        return None
    occ = _occurrences(prog)
    for k, ids in _dist_rows(prog):
        row = f"row{k}"
        for y in ids:
            occ_y = occ.get(y, [])
            nonlinear = {m for _, m in occ_y if len(m) > 1}
            if (not nonlinear or not nonlinear <= zero or not _only_in(occ_y, row, y)
                    or any(w in ("objective", "denominator") for w, _ in occ_y)):
                continue
            cof = {_without(m, y) for m in nonlinear}
            siblings = [s for s in ids if s != y]
            ok = all(_only_in(occ.get(s, []), row, s)
                     and all(_without(m, s) in cof for _, m in occ.get(s, []) if len(m) > 1)
                     and not any(w in ("objective", "denominator") for w, _ in occ.get(s, []))
                     for s in siblings)
            if not ok:
                continue
            fixed = {y: 0.0}
            if len(siblings) == 1:
                fixed[siblings[0]] = 1.0
            return fixed, prog.variables[y].name
    return None


def _without(mono: Monomial, var: int) -> Monomial:
    out = list(mono)
    out.remove(var)
    return tuple(out)


def _reciprocal(prog: PolynomialProgram) -> tuple[int, int, dict[int, float], set[int], int] | None:
    """``(y, y', {x: k_x}, single-monomial rows, distribution row)`` of one applicable reciprocal rewrite."""
    singles_of: dict[int, list[int]] = {}  # variable -> its single bilinear-monomial equality rows
    for j, c in enumerate(prog.constraints):
        if c.sense == "==" and len(c.poly) == 1:
            (mono,) = c.poly
            if len(mono) == 2 and mono[0] != mono[1]:
                for v in mono:
                    singles_of.setdefault(v, []).append(j)
    if not singles_of:
        return None
    occ = None
    for k, ids in _dist_rows(prog):
        if len(ids) != 2:
            continue
        for y, y2 in (ids, ids[::-1]):
            if y not in singles_of:
                continue
            partners: dict[int, float] = {}
            for j in singles_of[y]:
                (mono, coef), = prog.constraints[j].poly.items()
                x = mono[0] if mono[1] == y else mono[1]
                ratio = prog.constraints[j].rhs / coef
                if ratio <= 0 or x in partners or prog.variables[x].lb < 0:
                    partners = {}
                    break
                partners[x] = ratio
            if not partners:
                continue
            occ = _occurrences(prog) if occ is None else occ
            if _self_consistent(prog, occ, f"row{k}", y, y2, partners):
                return y, y2, partners, set(singles_of[y]), k
    return None


def _self_consistent(prog: PolynomialProgram, occ: dict[int, list[tuple[str, Monomial]]], row: str, y: int,
                     y2: int, partners: dict[int, float]) -> bool:
    """Every monomial of ``y``/``y'`` holds exactly one partner; partners have degree 1 and meet no other."""
    for v in (y, y2):
        if not _only_in(occ.get(v, []), row, v):
            return False
        for _, mono in occ.get(v, []):
            if len(mono) == 1:
                continue
            if y in mono and y2 in mono:
                return False
            if sum(1 for i in mono if i in partners) != 1:
                return False
    for x in partners:
        for _, mono in occ.get(x, []):
            if mono.count(x) > 1 or sum(1 for i in mono if i in partners) != 1:
                return False
    return True


def _apply(prog: PolynomialProgram, removed: set[int], mono_map: Callable[[Monomial], Poly],
           new_vars: list[Variable], drop_rows: set[int], skip_rows: frozenset[int] = frozenset()) -> PolynomialProgram:
    """``prog`` without ``removed``, monomials mapped by ``mono_map``; rows in ``skip_rows`` and (unchecked) in
    ``drop_rows``, which become constants holding by construction, left out."""
    out = PolynomialProgram(sense=prog.sense, name=prog.name)
    out.variables = [v for i, v in enumerate(prog.variables) if i not in removed] + new_vars
    out._index = {v.name: i for i, v in enumerate(out.variables)}

    def image(poly: Poly) -> Poly:
        res: Poly = {}
        for mono, coef in poly.items():
            for m, v in mono_map(mono).items():
                res[m] = res.get(m, 0.0) + coef * v
        return {m: v for m, v in res.items() if v != 0.0}

    for j, c in enumerate(prog.constraints):
        if j in skip_rows:
            continue
        body = image(c.poly)
        const = body.pop((), 0.0)
        if not body:
            slack = c.rhs - const
            bad = (c.sense == "==" and abs(slack) > 1e-7) or (c.sense == "<=" and slack < -1e-7) or (
                c.sense == ">=" and slack > 1e-7)
            if bad and j not in drop_rows:
                raise InfeasibleError(f"The observed table is inconsistent with the bias model: row {c.name} "
                                      "cannot hold once the bias's structural zeros are applied. Check the "
                                      "table and the bias's equality constraints.")
            continue
        out.constraints.append(Constraint(body, c.sense, c.rhs - const, c.name))
    out.objective = image(prog.objective)
    out.objective_denominator = None if prog.objective_denominator is None else image(prog.objective_denominator)
    return out


def _renumber(prog: PolynomialProgram, removed: set[int]) -> dict[int, int]:
    keep = [i for i in range(prog.n_variables) if i not in removed]
    return {old: new for new, old in enumerate(keep)}


def _fix_step(prog: PolynomialProgram, fixed: dict[int, float]):
    new = _renumber(prog, set(fixed))

    def mono_map(mono: Monomial) -> Poly:
        coef = 1.0
        rest = []
        for i in mono:
            if i in fixed:
                coef *= fixed[i]
            else:
                rest.append(new[i])
        return {tuple(rest): coef} if coef != 0.0 else {}

    return _apply(prog, set(fixed), mono_map, [], set()), mono_map


def _reciprocal_step(prog: PolynomialProgram, y: int, y2: int, partners: dict[int, float], singles: set[int],
                     dist_row: int):
    removed = {y, y2, *partners}
    new = _renumber(prog, removed)
    vy, vy2 = prog.variables[y], prog.variables[y2]
    lo, hi = 1.0, float("inf")
    if vy.ub < 1.0:
        lo = max(lo, 1.0 / vy.ub) if vy.ub > 0 else float("inf")
    if vy.lb > 0:
        hi = min(hi, 1.0 / vy.lb)
    if vy2.lb > 0:
        lo = max(lo, 1.0 / (1.0 - vy2.lb)) if vy2.lb < 1 else float("inf")
    if vy2.ub < 1.0:
        hi = min(hi, 1.0 / (1.0 - vy2.ub))
    for x, k in partners.items():
        vx = prog.variables[x]
        lo = max(lo, vx.lb / k)
        hi = min(hi, vx.ub / k)
    name = f"inv_{vy.name}"
    while name in prog._index:
        name += "_"
    w = len(new)
    wvar = Variable(name, lo, hi)

    def mono_map(mono: Monomial) -> Poly:
        x = next((i for i in mono if i in partners), None)
        if x is None:
            return {tuple(new[i] for i in mono): 1.0}
        k = partners[x]
        rest = [new[i] for i in mono if i not in (x, y, y2)]
        if y in mono:
            return {tuple(sorted(rest)): k}
        with_w = tuple(sorted([*rest, w]))
        if y2 in mono:
            return {with_w: k, tuple(sorted(rest)): -k}
        return {with_w: k}

    return _apply(prog, removed, mono_map, [wvar], singles, frozenset({dist_row})), mono_map


def reparametrise(prog: PolynomialProgram) -> Rewrite | None:
    """Apply the structural-zero and reciprocal rewrites until neither applies (``None``: none did).

    Parameters
    ----------
    prog : PolynomialProgram
        The program to rewrite (left unchanged).

    Returns
    -------
    Rewrite or None
        The rewritten program and the maps between the two; None when no rewrite applies.

    Examples
    --------
    >>> text = "minimize\\n x\\nsubject to\\n dist: y + z == 1\\n data: x*y == 0.2\\n other: x*z + u == 0.3\\n"
    >>> prog = PolynomialProgram.from_text(text + "bounds\\n 0 <= x <= 1\\n 0 <= y <= 1\\n 0 <= z <= 1\\n 0 <= u <= 1")
    >>> print(reparametrise(prog).program.to_text())
    minimize
      0.2*inv_y
    subject to
      other: u + 0.2*inv_y == 0.5
    bounds
      0 <= u <= 1
      1 <= inv_y <= 5
    """
    current = prog
    rewrite = Rewrite(prog)
    zeros = reciprocals = 0
    while True:
        names = [v.name for v in current.variables]
        found = _structural_zero(current)
        if found is not None:
            current, mono_map = _fix_step(current, found[0])
            zeros += 1
        else:
            rec_found = _reciprocal(current)
            if rec_found is None:
                break
            current, mono_map = _reciprocal_step(current, *rec_found)
            reciprocals += 1
        rewrite.steps.append((names, [v.name for v in current.variables], mono_map))
    if not rewrite.steps:
        return None
    rewrite.program = current
    if zeros:
        rewrite.notes.append(f"{zeros} conditional probabilities fixed at 0 by the bias's structural zeros (exact)")
    if reciprocals:
        rewrite.notes.append(f"{reciprocals} one-sided measurement laws written through 1 / P(proxy | latent): "
                             "their data rows are linear (exact)")
    return rewrite

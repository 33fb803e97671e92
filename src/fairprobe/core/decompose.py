"""Drop the blocks of a program that the objective does not read, keeping their effect exactly.

A bias with one population-wide budget (``P(Z = Y) >= 1 - D``) couples every group's variables through
one linear row, while a metric of two groups reads only their blocks. Any other block can take any
point of its own feasible set, so for ``sum_c g_c(x_c) <= b`` the row holds for some choice of the
dropped blocks exactly when it holds with each ``g_c`` at its minimum: the program over the read blocks,
its right-hand side moved by those minima, has the same optimum (with certified lower bounds of the
minima, a certified relaxation).

Equality rows that are the sum of other, disjoint equality rows (a c-component's simplex when the data
pin every cell) are left out first; the budget is then a linear inequality without which some of its
variables are not connected to those the objective reads. Only linear blocks are dropped (one LP each);
programs without such a row are returned unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairprobe.backends.base import SolveOptions, SolveResult, Termination
from fairprobe.program.model import Constraint, PolynomialProgram

__all__ = ["BlockPlan", "Reduction", "drop_unread_blocks"]

_RHS_TOL = 1e-9


@dataclass
class Reduction:
    """A smaller program and the values of the variables it left out.

    Parameters
    ----------
    program : PolynomialProgram
        The program over the blocks the objective reads.
    fill : dict of str to float, optional
        A point of every dropped block (variable name -> value) at which it spends the least of the
        shared budget, completing an incumbent of ``program`` into a point of the original.
    dropped : int, optional
        Number of variables left out (default 0).

    Examples
    --------
    >>> from fairprobe.program.model import PolynomialProgram
    >>> small = PolynomialProgram()
    >>> small.add_variable("x", 0.0, 1.0)
    0
    >>> red = Reduction(small, {"y": 0.0}, 1)
    >>> red.dropped, red.program.n_variables
    (1, 1)
    """

    program: PolynomialProgram
    fill: dict[str, float] = field(default_factory=dict)
    dropped: int = 0

    def complete(self, point: Mapping[str, float] | None) -> dict[str, float] | None:
        """An incumbent of the reduced program as a point of the original one.

        Parameters
        ----------
        point : mapping of str to float or None
            A point of :attr:`program` by variable name (None: no incumbent).

        Returns
        -------
        dict of str to float or None
            ``point`` with the dropped variables set to :attr:`fill`; None when ``point`` is None.

        Examples
        --------
        >>> Reduction(PolynomialProgram(), {"y": 0.0}, 1).complete({"x": 0.5})
        {'y': 0.0, 'x': 0.5}
        """

        return None if point is None else {**self.fill, **point}


def _vars(row: Constraint) -> set[int]:
    return {v for mono in row.poly for v in mono}


def _linear(row: Constraint) -> bool:
    return all(len(mono) <= 1 for mono in row.poly)


def _implied_rows(rows: list[Constraint]) -> set[int]:
    """Indices of equality rows that are the sum of other, disjoint equality rows."""
    equalities = [i for i, r in enumerate(rows) if r.sense == "==" and _linear(r) and () not in r.poly]
    var_sets = {i: _vars(rows[i]) for i in equalities}
    by_var: dict[int, list[int]] = {}
    for i in equalities:
        for v in var_sets[i]:
            by_var.setdefault(v, []).append(i)
    implied: set[int] = set()
    for i in equalities:
        own = var_sets[i]
        if any(len(by_var[v]) > 64 for v in own):
            continue  # a variable in many rows (P(S = 1)): not worth the scan; keeping a row is always exact
        parts = {j for v in own for j in by_var[v]
                 if j != i and j not in implied and len(var_sets[j]) < len(own)}
        parts = {j for j in parts if var_sets[j] <= own}
        if parts and sum(len(var_sets[j]) for j in parts) == len(own) and _is_sum(rows, i, parts, own):
            implied.add(i)
    return implied


def _is_sum(rows: list[Constraint], i: int, parts: set[int], own: set[int]) -> bool:
    """Whether row ``i`` (over ``own``) is the sum of the rows ``parts``, coefficient by coefficient."""
    row = rows[i]
    covered: set[int] = set()
    for j in parts:
        for (v,), coef in rows[j].poly.items():
            if v in covered or abs(coef - row.poly[(v,)]) > 1e-12:
                return False
            covered.add(v)
    return covered == own and abs(sum(rows[j].rhs for j in parts) - row.rhs) <= _RHS_TOL


def _components(n: int, rows: list[Constraint], keep: list[int]) -> list[int]:
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in keep:
        vs = list(_vars(rows[i]))
        for v in vs[1:]:
            parent[root(v)] = root(vs[0])
    return [root(v) for v in range(n)]


def _subprogram(prog: PolynomialProgram, members: list[int], rows: list[Constraint],
                objective: dict[tuple[int, ...], float]) -> tuple[PolynomialProgram, dict[int, int]]:
    index = {v: k for k, v in enumerate(members)}
    sub = PolynomialProgram(sense="min", name="fairprobe-block")
    for v in members:
        var = prog.variables[v]
        sub.add_variable(var.name, var.lb, var.ub, integer=var.integer)

    def remap(poly: dict[tuple[int, ...], float]) -> dict[tuple[int, ...], float]:
        return {tuple(index[v] for v in mono): c for mono, c in poly.items()}

    sub.constraints = [Constraint(remap(r.poly), r.sense, r.rhs, r.name) for r in rows]
    sub.objective = remap(objective)
    return sub, index


def drop_unread_blocks(prog: PolynomialProgram, backend: Any, options: SolveOptions) -> Reduction | None:
    """The program without the blocks its objective does not read, or ``None`` when none can go.

    Parameters
    ----------
    prog : PolynomialProgram
        The program to reduce (left unchanged).
    backend : Backend
        Solves each dropped block's budget program (certified lower bound used).
    options : SolveOptions
        Solver options for those block programs.

    Returns
    -------
    Reduction or None
        ``None`` when the program has no droppable block, a dropped block's program is not
        solved to optimality, or the structure is not one budget row over separate blocks.

    Examples
    --------
    The objective reads the block ``x, x2``; the block ``y, y2`` meets it only through the budget,
    where it spends at least ``min y = 0``:

    >>> from fairprobe.backends.base import SolveOptions
    >>> from fairprobe.program.model import PolynomialProgram
    >>> from fairprobe.core.registry import get_backend
    >>> prog = PolynomialProgram.from_text("maximize\\n  x\\nsubject to\\n  budget: x + y <= 0.5\\n  bx: x + x2 == 1\\n"
    ...                                    "  by: y + y2 == 1\\nbounds\\n  0 <= x <= 1\\n  0 <= x2 <= 1\\n"
    ...                                    "  0 <= y <= 1\\n  0 <= y2 <= 1")
    >>> red = drop_unread_blocks(prog, get_backend("scip"), SolveOptions())
    >>> red.dropped, red.fill
    (2, {'y': 0.0, 'y2': 1.0})
    >>> [(c.name, c.poly, c.rhs) for c in red.program.constraints]
    [('bx', {(0,): 1.0, (1,): 1.0}, 1.0), ('budget', {(0,): 1.0}, 0.5)]
    """
    rows = prog.constraints
    implied = _implied_rows(rows)
    active = [i for i in range(len(rows)) if i not in implied]
    objective_vars = _objective_vars(prog)
    found = _budget_row(prog, active, objective_vars) if objective_vars else None
    if found is None:
        return None
    budget, comp, read = found
    (dropped, dropped_rows), (members, kept_rows) = _blocks(prog, active, budget, comp, read)
    row = rows[budget]
    sign = 1.0 if row.sense == "<=" else -1.0  # ">=": the block's best is its largest part
    res = _least_use(prog, backend, options, {mono: sign * c for mono, c in row.poly.items()}, dropped, dropped_rows)
    if res is None:
        return None  # an infeasible or unsolved block: the full program reports it
    fill: dict[str, float] = dict(res.incumbent) if res.incumbent is not None else {}
    return _budget_moved(prog, row, members, kept_rows, res.objective_bound, fill)


def _objective_vars(prog: PolynomialProgram) -> set[int]:
    """The variables the objective (and its denominator) reads."""
    return {v for poly in (prog.objective, prog.objective_denominator or {}) for mono in poly for v in mono}


def _budget_moved(prog: PolynomialProgram, row: Constraint, members: list[int], kept_rows: list[Constraint],
                  used: float, fill: dict[str, float]) -> Reduction:
    """The program over ``members`` and ``kept_rows`` with the budget ``row`` moved by the left-out blocks' ``used``."""
    sign = 1.0 if row.sense == "<=" else -1.0  # ">=": a block's best is its largest part
    kept = set(members)
    budget_part = {mono: c for mono, c in row.poly.items() if not mono or mono[0] in kept}
    rows = [*kept_rows, Constraint(budget_part, row.sense, row.rhs - sign * used, row.name)]
    return Reduction(_kept_program(prog, members, rows), fill, prog.n_variables - len(members))


class BlockPlan:
    """The blocks of one model's rows, each block's least use of the budget solved once for every objective.

    Where :func:`drop_unread_blocks` on each of k programs would solve the k blocks again, the plan solves
    each block's least use once and moves the budget by the sum of the unread blocks' certified least uses.

    Parameters
    ----------
    model : PolynomialProgram
        The model: the variables and rows every program reduced by the plan has (the same row objects).
    backend : Backend
        Solves each block's least use (its certified lower bound is used).
    options : SolveOptions
        Solver options of those solves.

    Examples
    --------
    >>> from fairprobe.backends.base import SolveOptions
    >>> from fairprobe.program.model import PolynomialProgram
    >>> from fairprobe.core.registry import get_backend
    >>> text = ("minimize\\n  0\\nsubject to\\n  budget: x + y + z <= 0.5\\n  bx: x + x2 == 1\\n"
    ...         "  by: y + y2 == 1\\n  bz: z + z2 == 1\\nbounds\\n  0 <= x <= 1\\n  0 <= x2 <= 1\\n"
    ...         "  0.125 <= y <= 1\\n  0 <= y2 <= 1\\n  0.25 <= z <= 1\\n  0 <= z2 <= 1\\n")
    >>> model = PolynomialProgram.from_text(text)
    >>> plan = BlockPlan(model, get_backend("highs"), SolveOptions())
    >>> prog = model.with_sense("max")
    >>> prog.objective = {(0,): 1.0}
    >>> red = plan.reduce(prog)
    >>> red.dropped, round(red.program.constraints[-1].rhs, 12)  # 0.5 - 0.125 - 0.25 (certified: a hair above)
    (4, 0.125)
    """

    def __init__(self, model: PolynomialProgram, backend: Any, options: SolveOptions) -> None:
        self.model, self.backend, self.options = model, backend, options
        rows = model.constraints
        implied = _implied_rows(rows)
        self.active = [i for i in range(len(rows)) if i not in implied]
        self.candidates = _budget_candidates(rows, self.active)

        #: the solved state: each budget row's components (by variable) and each (budget, block)'s least use
        self.components: dict[int, list[int]] = {}
        self.least: dict[tuple[int, int], SolveResult | None] = {}

    def reduce(self, prog: PolynomialProgram) -> Reduction | None:
        """``prog`` (the model's rows with an objective) without the blocks its objective does not read.

        Parameters
        ----------
        prog : PolynomialProgram
            A program with the model's variables (their boxes too) and rows (else nothing is reduced).

        Returns
        -------
        Reduction or None
            None as for :func:`drop_unread_blocks`, or when ``prog`` is not over the model's rows.
        """
        rows, variables = self.model.constraints, self.model.variables
        # the same rows and the same boxes: each block's least use was solved over these
        if len(prog.variables) != len(variables) or len(prog.constraints) != len(rows) or \
                any(a is not b and a != b for a, b in zip(prog.constraints, rows, strict=True)) or \
                any(a is not b and a != b for a, b in zip(prog.variables, variables, strict=True)):
            return None
        read_vars = _objective_vars(prog)
        found = _budget_row(prog, self.active, read_vars, self.candidates, self.components) if read_vars else None
        return None if found is None else self._reduced(prog, *found)

    def _reduced(self, prog: PolynomialProgram, budget: int, comp: list[int], read: set[int]) -> Reduction | None:
        blocks, block_rows = _block_rows(prog, self.active, budget, comp)
        row = prog.constraints[budget]
        sign = 1.0 if row.sense == "<=" else -1.0  # ">=": a block's best is its largest part
        used, fill = 0.0, {}
        for b in blocks:
            if b in read:
                continue
            if (budget, b) not in self.least:
                self.least[(budget, b)] = _least_use(prog, self.backend, self.options,
                                                     {m: sign * c for m, c in row.poly.items()}, blocks[b],
                                                     block_rows[b])
            res = self.least[(budget, b)]
            if res is None:
                return None  # an infeasible or unsolved block: the full program reports it
            used += res.objective_bound
            fill.update(res.incumbent or {})
        members = sorted(v for b in read for v in blocks[b])
        return _budget_moved(prog, row, members, [r for b in read for r in block_rows[b]], used, fill)


def _least_use(prog: PolynomialProgram, backend: Any, options: SolveOptions, budget: dict[tuple[int, ...], float],
               members: list[int], rows: list[Constraint]) -> Any:
    """One solve of the least use of the budget by the unread (independent) blocks; None if not optimal."""

    chosen = set(members)
    part = {mono: c for mono, c in budget.items() if mono and mono[0] in chosen}
    sub, _ = _subprogram(prog, members, rows, part)
    res = backend.solve(sub, options)
    if res.termination is not Termination.OPTIMAL or not math.isfinite(res.objective_bound):
        return None
    return res


def _blocks(prog: PolynomialProgram, active: list[int], budget: int, comp: list[int], read: set[int]
            ) -> tuple[tuple[list[int], list[Constraint]], tuple[list[int], list[Constraint]]]:
    """(variables, rows) of the unread blocks and of the read ones (the active rows but the budget)."""
    blocks, block_rows = _block_rows(prog, active, budget, comp)
    unread = [b for b in blocks if b not in read]
    return ((sorted(v for b in unread for v in blocks[b]), [r for b in unread for r in block_rows[b]]),
            (sorted(v for b in read for v in blocks[b]), [r for b in read for r in block_rows[b]]))


def _block_rows(prog: PolynomialProgram, active: list[int], budget: int, comp: list[int]
                ) -> tuple[dict[int, list[int]], dict[int, list[Constraint]]]:
    """The variables and the active rows (but the budget) of each block, by its component."""
    blocks: dict[int, list[int]] = {}
    for v in range(prog.n_variables):
        blocks.setdefault(comp[v], []).append(v)
    block_rows: dict[int, list[Constraint]] = {b: [] for b in blocks}
    for i in active:
        vs = _vars(prog.constraints[i]) if i != budget else set()
        if vs:
            block_rows[comp[next(iter(vs))]].append(prog.constraints[i])
    return blocks, block_rows


def _kept_program(prog: PolynomialProgram, members: list[int], rows: list[Constraint]) -> PolynomialProgram:
    """The program over ``members`` and ``rows``, with ``prog``'s objective, sense and name."""
    out, index = _subprogram(prog, members, rows, prog.objective)
    out.sense, out.name = prog.sense, prog.name
    if prog.objective_denominator is not None:
        out.objective_denominator = {tuple(index[v] for v in m): c for m, c in prog.objective_denominator.items()}
    return out


def _budget_candidates(rows: list[Constraint], active: list[int]) -> list[int]:
    """The active linear inequalities over several variables, widest first."""
    return sorted((i for i in active if rows[i].sense != "==" and _linear(rows[i]) and len(_vars(rows[i])) > 1),
                  key=lambda i: -len(rows[i].poly))


def _budget_row(prog: PolynomialProgram, active: list[int], objective_vars: set[int],
                candidates: list[int] | None = None, components: dict[int, list[int]] | None = None
                ) -> tuple[int, list[int], set[int]] | None:
    """(budget row, component of each variable without it, components the objective reads), or None.

    The budget is the widest linear inequality whose removal leaves some of its variables in blocks the
    objective does not read, all of them linear. ``components`` caches each candidate's components.
    """
    rows = prog.constraints
    components = {} if components is None else components
    for budget in _budget_candidates(rows, active) if candidates is None else candidates:
        if budget not in components:
            components[budget] = _components(prog.n_variables, rows, [i for i in active if i != budget])
        comp = components[budget]
        read = {comp[v] for v in objective_vars}
        if not any(comp[v] not in read for v in _vars(rows[budget])):
            continue
        # only linear blocks are left out: each costs one LP (a nonlinear one would be the hard
        # part of the program, e.g. all of it behind the row t >= U - L of a max-abs program)
        if all(_linear(rows[i]) for i in active if i != budget and any(comp[v] not in read for v in _vars(rows[i]))):
            return budget, comp, read
    return None

"""Repair a global solver's point into a model that satisfies every row to 1e-9.

Global solvers accept a point when each row holds to about 1e-6, which moves a small group's rate
by 1e-4, so the value "achieved by a feasible model" could lie outside the sharp interval. A
compiled program's nonconvexity sits only in its ratio rows (``r * P(F) - P(E & F) == 0``):
:func:`repair_point` projects the solver's point onto the linear rows (nearest in L1, one LP) and
sets each ratio to its exact value there. The projection can cost the point some of its objective;
the result's ``gap`` is then the true distance from the certified bound to a real model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairprobe.backends.base import SolveOptions, Termination
from fairprobe.program.model import Constraint, PolynomialProgram
from fairprobe.program.polynomial import Poly, evaluate

__all__ = ["REPAIRED_TOLERANCE", "model_violation", "polish_point", "polish_windows", "project_to_model",
           "repair_point"]

#: Largest row violation of a repaired point.
REPAIRED_TOLERANCE = 1e-9


def _ratio_rows(program: PolynomialProgram, ratios: list[str]) -> dict[int, tuple[dict, dict]] | None:
    """``{ratio variable: (N, D)}`` from rows ``r * D - N == 0``; None when the program has another shape."""
    idx = {program.index(name): name for name in ratios}
    out: dict[int, tuple[dict, dict]] = {}
    for row in program.constraints:
        touched = {i for mono in row.poly for i in mono if i in idx}
        if not touched:
            if any(len(m) > 1 for m in row.poly):
                return None  # a nonlinear row that is not a ratio definition
            continue
        if len(touched) != 1 or row.sense != "==" or row.rhs != 0.0:
            return None
        r = touched.pop()
        num: dict = {}
        den: dict = {}
        for mono, coef in row.poly.items():
            if r in mono:
                rest = tuple(i for i in mono if i != r)
                if len(rest) > 1 or mono.count(r) > 1 or any(i in idx for i in rest):
                    return None
                den[rest] = den.get(rest, 0.0) + coef
            elif len(mono) > 1:
                return None
            else:
                num[mono] = num.get(mono, 0.0) - coef
        if r in out:
            return None
        out[r] = (num, den)
    if set(out) != set(idx):
        return None
    return out


def _lp_over(program: PolynomialProgram, rows: list, name: str) -> PolynomialProgram:
    """A minimisation over ``program``'s variables (same boxes) with ``rows``; no objective yet."""
    # a compiled program's rows are in normal form already: copied without add_constraint's checks
    return PolynomialProgram(sense="min", name=name, variables=list(program.variables),
                             constraints=[Constraint(dict(row.poly), row.sense, row.rhs, row.name) for row in rows])


def _minimise_l1_distance(lp: PolynomialProgram, program: PolynomialProgram, columns: list[int],
                          point: Mapping[str, float]) -> None:
    """Set ``lp``'s objective to the L1 distance of ``columns`` from ``point`` (one deviation each)."""
    dev = {j: lp.add_variable(f"_dev{j}", 0.0) for j in columns}
    for j, d in dev.items():
        target = float(point.get(program.variables[j].name, 0.0))
        lp.constraints.append(Constraint({(d,): 1.0, (j,): -1.0}, ">=", -target))
        lp.constraints.append(Constraint({(d,): 1.0, (j,): 1.0}, ">=", target))
    lp.set_objective({(d,): 1.0 for d in dev.values()})


def _model_rows(program: PolynomialProgram, query_rows: frozenset[str] | set[str]) -> list:
    """The rows that describe the models the bias admits (every row that does not encode the query)."""
    return [row for row in program.constraints if row.name not in query_rows]


def _optimum(lp_backend: Any, lp: PolynomialProgram) -> Mapping[str, float] | None:
    """The LP's optimal point, or None."""
    res = lp_backend.solve(lp, SolveOptions())
    return res.incumbent if res.termination is Termination.OPTIMAL else None


def _clipped(program: PolynomialProgram, point: Mapping[str, float]) -> dict[str, float]:
    """``point`` on every variable of ``program`` (0 where missing), inside their boxes."""
    return {v.name: min(max(float(point.get(v.name, 0.0)), v.lb), v.ub) for v in program.variables}


def model_violation(program: PolynomialProgram, query_rows: frozenset[str] | set[str],
                    point: Mapping[str, float]) -> float:
    """Largest violation at ``point`` of the model rows (and of every variable's box).

    Parameters
    ----------
    program : PolynomialProgram
    query_rows : set of str
        Names of the rows that encode the query (left out).
    point : mapping of str to float

    Returns
    -------
    float
    """
    check = PolynomialProgram(sense="min", variables=list(program.variables),
                              constraints=_model_rows(program, query_rows))
    return check.max_violation(point)


def repair_point(program: PolynomialProgram, ratios: list[str], point: Mapping[str, float],
                 lp_backend: Any) -> dict[str, float] | None:
    """The model nearest to ``point`` that satisfies every row of ``program`` to :data:`REPAIRED_TOLERANCE`.

    Parameters
    ----------
    program : PolynomialProgram
        A compiled program whose only nonlinear rows define the ratio variables ``ratios``.
    ratios : list of str
        The ratio variables.
    point : mapping of str to float
        The solver's point.
    lp_backend : Backend
        Solves the projection LP (HiGHS).

    Returns
    -------
    dict or None
        The repaired point; None when the program has another shape or the repair does not hold.

    Examples
    --------
    >>> import fairprobe as fp
    >>> text = "maximize\\n r\\nsubject to\\n s: a + b == 1\\n r_def: r*a + r*b - a == 0\\n"
    >>> prog = fp.PolynomialProgram.from_text(text + "bounds\\n 0 <= a <= 1\\n 0 <= b <= 1\\n 0 <= r <= 1")
    >>> fixed = repair_point(prog, ["r"], {"a": 0.7000004, "b": 0.3, "r": 0.7}, fp.get_backend("highs"))
    >>> prog.max_violation(fixed) <= 1e-9, round(fixed["r"], 6)
    (True, 0.7)
    """
    defs = _ratio_rows(program, ratios)
    if defs is None:
        return None
    linear = [row for row in program.constraints if not any(i in defs for mono in row.poly for i in mono)]
    lp = _lp_over(program, linear, "repair")
    _minimise_l1_distance(lp, program, [j for j in range(program.n_variables) if j not in defs], point)
    found = _optimum(lp_backend, lp)
    if found is None:
        return None
    values = [float(found[v.name]) for v in program.variables]
    for r, (num, den) in defs.items():
        d = evaluate(den, values)
        if not d > 0:
            return None
        values[r] = evaluate(num, values) / d
    fixed = {v.name: values[j] for j, v in enumerate(program.variables)}
    return fixed if program.max_violation(fixed) <= REPAIRED_TOLERANCE else None


def polish_point(program: PolynomialProgram, ratios: list[str], point: Mapping[str, float],
                 lp_backend: Any) -> dict[str, float] | None:
    """The best model with all ratios but one held at ``point``'s values and that one optimised exactly.

    Where a denominator is near its floor, :func:`repair_point` moves the rates and loses the model
    near the bound; with every other ratio held, the free ratio's optimum is a linear-fractional
    program, solved exactly. Each ratio is tried as the free one; the best model is returned.

    Parameters
    ----------
    program : PolynomialProgram
        A compiled program whose objective is linear in its ratio variables.
    ratios : list of str
        The ratio variables.
    point : mapping of str to float
        The solver's point.
    lp_backend : Backend
        Solves the linear-fractional programs (HiGHS).

    Returns
    -------
    dict or None
        A point satisfying every row to :data:`REPAIRED_TOLERANCE`, or None.
    """
    defs = _ratio_rows(program, ratios)
    obj = program.objective
    if defs is None or program.objective_denominator is not None or any(len(m) > 1 for m in obj):
        return None
    sign = 1.0 if program.sense == "min" else -1.0
    best: dict[str, float] | None = None
    for free in defs:
        held = {r: min(max(float(point.get(program.variables[r].name, 0.0)), program.variables[r].lb),
                       program.variables[r].ub) for r in defs if r != free}
        found = _optimum(lp_backend, _held_program(program, defs, free, held))
        if found is None:
            continue
        cand = _polished(program, defs[free], free, held, found)
        if cand is None or program.max_violation(cand) > REPAIRED_TOLERANCE:
            continue
        if best is None or sign * program.objective_value(cand) < sign * program.objective_value(best):
            best = cand
    return best


def _held_program(program: PolynomialProgram, defs: Mapping[int, tuple[Poly, Poly]], free: int,
                  held: Mapping[int, float]) -> PolynomialProgram:
    """The linear-fractional program of ratio ``free`` with the other ratios fixed at ``held``."""
    lp = PolynomialProgram(sense=program.sense, name="polish")
    for v in program.variables:
        lp.add_variable(v.name, *((held[len(lp.variables)],) * 2 if len(lp.variables) in held else (v.lb, v.ub)))
    for row in program.constraints:
        if any(i == free for mono in row.poly for i in mono):
            continue  # the free ratio's own definition: the objective below is its value
        body = _substituted(row.poly, held)
        const = body.pop((), 0.0)
        if body:
            lp.add_constraint(body, row.sense, row.rhs - const, name=row.name)
    obj = program.objective
    num, den = defs[free]
    coef = float(obj.get((free,), 0.0))
    const = float(obj.get((), 0.0)) + sum(float(obj.get((r,), 0.0)) * v for r, v in held.items())
    # c * N / D + const as one ratio: (c N + const D) / D
    lp.objective = {m: coef * v for m, v in num.items()}
    for m, v in den.items():
        lp.objective[m] = lp.objective.get(m, 0.0) + const * v
    lp.objective_denominator = dict(den)
    lp.variables[free] = type(lp.variables[free])(program.variables[free].name, 0.0, 0.0)  # unused
    return lp


def _substituted(poly: Poly, held: Mapping[int, float]) -> Poly:
    """``poly`` with the variables of ``held`` replaced by their values."""
    body: Poly = {}
    for mono, coef in poly.items():
        factor = coef
        for i in mono:
            if i in held:
                factor *= held[i]
        rest = tuple(i for i in mono if i not in held)
        body[rest] = body.get(rest, 0.0) + factor
    return body


def _polished(program: PolynomialProgram, definition: tuple[Poly, Poly], free: int, held: Mapping[int, float],
              incumbent: Mapping[str, float]) -> dict[str, float] | None:
    """The full point of a held program's optimum: held ratios at their values, the free one at N / D."""
    values = [float(incumbent.get(v.name, 0.0)) for v in program.variables]
    for r in held:
        values[r] = held[r]
    num, den = definition
    d = evaluate(den, values)
    if not d > 0:
        return None
    values[free] = evaluate(num, values) / d
    return {v.name: values[j] for j, v in enumerate(program.variables)}


def project_to_model(program: PolynomialProgram, query_rows: frozenset[str] | set[str], point: Mapping[str, float],
                     lp_backend: Any) -> dict[str, float] | None:
    """The point nearest ``point`` (L1) that satisfies every row that is not a query row, to 1e-9.

    The rows outside ``query_rows`` describe the models the bias admits; the query rows only define
    auxiliary variables (ratios, windows, ``t``), which keep the point's values.

    Parameters
    ----------
    program : PolynomialProgram
        A compiled program whose non-query rows are linear.
    query_rows : set of str
        Names of the rows that encode the query.
    point : mapping of str to float
        The solver's point.
    lp_backend : Backend
        Solves the projection LP (HiGHS).

    Returns
    -------
    dict or None
        None when a model row is nonlinear or the projection fails.

    Examples
    --------
    >>> import fairprobe as fp
    >>> text = "minimize\\n t\\nsubject to\\n s: a + b == 1\\n w: t - a >= 0\\n"
    >>> prog = fp.PolynomialProgram.from_text(text + "bounds\\n 0 <= a <= 1\\n 0 <= b <= 1\\n 0 <= t <= 1")
    >>> fixed = project_to_model(prog, {"w"}, {"a": 0.3000004, "b": 0.7, "t": 0.3}, fp.get_backend("highs"))
    >>> abs(fixed["a"] + fixed["b"] - 1) <= 1e-9
    True
    """
    model_rows = _model_rows(program, query_rows)
    if any(len(m) > 1 for row in model_rows for m in row.poly):
        return None
    lp = _lp_over(program, model_rows, "project")
    read = sorted({i for row in model_rows for m in row.poly for i in m})
    _minimise_l1_distance(lp, program, read, point)
    found = _optimum(lp_backend, lp)
    if found is None:
        return None
    out = _clipped(program, point)  # the auxiliary variables, which the model rows do not read
    for j in read:
        out[program.variables[j].name] = float(found[program.variables[j].name])
    return out if model_violation(program, query_rows, out) <= REPAIRED_TOLERANCE else None


#: Widths added to a solver's window in turn by :func:`polish_windows` (the first with a model wins).
WINDOW_SLACKS = (0.0, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)


def polish_windows(program: PolynomialProgram, query_rows: frozenset[str] | set[str],
                   windows: list[list[tuple[dict, dict | None]]], point: Mapping[str, float], lp_backend: Any,
                   floor: float = 1e-9) -> dict[str, float] | None:
    """A model whose rates lie in the solver's windows, widened as little as a model needs.

    With the windows' lower ends held at the solver's values and their width at ``t``, "every rate
    in its window" is linear in the model: one LP finds a model or proves there is none. Each window
    is widened by ``s`` at both ends, for ``s`` in :data:`WINDOW_SLACKS` in turn (the model's value
    is then at most ``t + 2 s``).

    Parameters
    ----------
    program : PolynomialProgram
        The joint program; its rows outside ``query_rows`` (the model rows) must be linear.
    query_rows : set of str
        Names of the rows that encode the query.
    windows : list of list of (dict, dict or None)
        Per family, each rate as (numerator, denominator or None) over variable names.
    point : mapping of str to float
        The solver's point (``window{f}_low`` and ``window{f}_high`` are read).
    lp_backend : Backend
        Solves the LPs (HiGHS).
    floor : float, optional
        Least denominator of a rate in the model.

    Returns
    -------
    dict or None
        The model's point (rows outside ``query_rows`` to :data:`REPAIRED_TOLERANCE`), or None.
    """
    model_rows = _model_rows(program, query_rows)
    if any(len(m) > 1 for row in model_rows for m in row.poly):
        return None
    index = {v.name: i for i, v in enumerate(program.variables)}
    lows, width = [], 0.0
    for f in range(len(windows)):
        low, high = point.get(f"window{f}_low"), point.get(f"window{f}_high")
        if low is None or high is None:
            return None
        lows.append(float(low))
        width = max(width, float(high) - float(low))

    def linear(named: dict) -> dict | None:
        out: dict = {}
        for names, coef in named.items():
            if len(names) > 1:
                return None
            if any(n not in index for n in names):
                continue  # a variable the presolve removed (forced to 0)
            key = tuple(index[n] for n in names)
            out[key] = out.get(key, 0.0) + coef
        return out

    rates = []
    for family in windows:
        members = []
        for num, den in family:
            n, d = linear(num), (linear(den) if den is not None else {(): 1.0})
            if n is None or d is None:
                return None
            members.append((n, d))
        rates.append(members)
    best = _least_widening(program, model_rows, rates, lows, width, point, lp_backend, floor)
    if best is not None and model_violation(program, query_rows, best) <= REPAIRED_TOLERANCE:
        return best
    for slack in WINDOW_SLACKS:
        lp = _lp_over(program, model_rows, "window-polish")
        for f, members in enumerate(rates):
            # widened at both ends: the solver's point sits within its tolerance of each end
            bottom, top = lows[f] - slack, lows[f] + width + slack
            for n, d in members:
                # N - bottom * D >= 0 and N - top * D <= 0, with D >= floor (a rate in its window)
                for bound, sense in ((bottom, ">="), (top, "<=")):
                    body, const = _rate_against(n, d, bound)
                    if body:
                        lp.add_constraint(body, sense, -const)
                d_body = dict(d)
                d_const = d_body.pop((), 0.0)
                if d_body:
                    lp.add_constraint(d_body, ">=", floor - d_const)
        found = _optimum(lp_backend, lp)
        out = None if found is None else _clipped(program, found)
        if out is not None and model_violation(program, query_rows, out) <= REPAIRED_TOLERANCE:
            return out
    return None


def _least_widening(program: PolynomialProgram, model_rows: list, rates: list, lows: list[float], width: float,
                    point: Mapping[str, float], lp_backend: Any, floor: float) -> dict[str, float] | None:
    """One LP for the least widening ``s`` of every window that leaves a model inside them: ``N_i - low D_i +
    s d_i >= 0`` (likewise at the top), with ``D_i >= d_i`` (half its value at the point), implies the rate's row."""
    lp = _lp_over(program, model_rows, "window-widening")
    widen = lp.add_variable("_widen", 0.0, 1.0)
    values = [float(point.get(v.name, 0.0)) for v in program.variables]
    for f, members in enumerate(rates):
        for n, d in members:
            d_body = dict(d)
            d_const = d_body.pop((), 0.0)
            held = max(2.0 * floor, 0.5 * evaluate(d, values))
            if d_body:
                lp.add_constraint(d_body, ">=", held - d_const)
            for end, sense, sign in ((lows[f], ">=", 1.0), (lows[f] + width, "<=", -1.0)):
                body, const = _rate_against(n, d, end)
                body[(widen,)] = sign * held
                lp.add_constraint(body, sense, -const)
    lp.set_objective({(widen,): 1.0})
    found = _optimum(lp_backend, lp)
    return None if found is None else _clipped(program, found)


def _rate_against(num: dict, den: dict, value: float) -> tuple[dict, float]:
    """``N - value * D`` as (body without constant, constant): the rate against ``value``, linear."""
    body = dict(num)
    for m, c in den.items():
        body[m] = body.get(m, 0.0) - value * c
    const = body.pop((), 0.0)
    return body, const

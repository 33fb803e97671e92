"""One program's certified bounds: the solves, checks and readings the engine makes of a compiled program.

Each function takes a compiled program and the call's backend (a :class:`~fairprobe.core.budget.TimeBudget`
around the router); :class:`~fairprobe.core.engine.BoundProblem` and :mod:`fairprobe.core.families`
put them together.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fairprobe.backends.base import SolveOptions, SolveResult, Termination
from fairprobe.core.budget import TimeBudget
from fairprobe.core.compiled import CompiledProgram, named_value, rate_key, undefined_metric_message
from fairprobe.core.config import BiasConfig
from fairprobe.core.data_rows import RATIO_EPSILON
from fairprobe.core.decompose import Reduction, drop_unread_blocks
from fairprobe.core.inputs import labelled_event
from fairprobe.core.options import DEFAULT_GAP
from fairprobe.core.registry import get_backend
from fairprobe.core.repair import (
    REPAIRED_TOLERANCE,
    model_violation,
    polish_point,
    polish_windows,
    project_to_model,
    repair_point,
)
from fairprobe.core.routing import exact_lp_backend
from fairprobe.core.small_groups import few_units, units_behind_rates
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import InfeasibleError, SolverError, UndefinedMetricError
from fairprobe.program.model import PolynomialProgram
from fairprobe.program.polynomial import evaluate
from fairprobe.program.transforms import charnes_cooper


def few_units_by_event(programs: list[CompiledProgram], config: BiasConfig, table: ObservedTable) -> dict[str, int]:
    """The too few units behind each rate of the metric (:mod:`fairprobe.core.small_groups`), by labelled event."""
    units = units_behind_rates(programs, config, table)
    return {labelled_event(event, config, table): k for event, k in few_units(units).items()}


def _solve_one(prog: PolynomialProgram, backend_name: str, options: SolveOptions) -> SolveResult:
    return get_backend(backend_name).solve(prog, options)


def _solve_pair(prog: PolynomialProgram, backend: Any, options: SolveOptions,
                n_jobs: int = 1) -> tuple[SolveResult, SolveResult]:
    """Solve the min and max programs, in two worker processes when ``n_jobs >= 2``."""
    if n_jobs >= 2 and not (isinstance(backend, TimeBudget) and backend.solves_exactly(prog)):
        from joblib import Parallel, delayed

        options = backend.limit(options) if isinstance(backend, TimeBudget) else options  # the call's budget

        lo, hi = Parallel(n_jobs=2, backend="loky")(
            delayed(_solve_one)(prog.with_sense(sense), backend.name, options) for sense in ("min", "max"))
        if isinstance(backend, TimeBudget):
            backend.note_stopped([lo, hi])
        return lo, hi
    # Processes, not threads: two SCIP instances optimising concurrently in one process (with
    # pyscipopt's optimizeNogil) crashed in testing.
    if prog.is_fractional and isinstance(backend, TimeBudget):
        both = backend.solve_fractional_pair(prog, options)  # an exact backend: the denominator's check once
        if both is not None:
            return both
    if isinstance(backend, TimeBudget):  # the lower side may use half of what is left, the upper the rest
        return backend.solve(prog.with_sense("min"), options, share=0.5), backend.solve(prog.with_sense("max"), options)
    return backend.solve(prog.with_sense("min"), options), backend.solve(prog.with_sense("max"), options)


def _narrow(prog: PolynomialProgram, k: int, lo: float, hi: float) -> None:
    """Shrink variable ``k``'s box to ``[lo, hi]`` (1e-9 slack, infinite ends ignored, never empty), in place."""
    var = prog.variables[k]
    new_lo = max(var.lb, lo - 1e-9) if math.isfinite(lo) else var.lb
    new_hi = min(var.ub, hi + 1e-9) if math.isfinite(hi) else var.ub
    if new_lo <= new_hi:
        prog.variables[k] = type(var)(var.name, new_lo, new_hi)


def tighten_ratio_bounds(compiled: CompiledProgram, backend: Any, options: SolveOptions) -> PolynomialProgram:
    """Bound each auxiliary ratio variable by its exact range, from two LPs each.

    Without the bilinear definition rows each ratio's range is a linear-fractional program; its certified
    bounds cut nothing off and tighten the global solver's McCormick relaxations of those rows.

    Parameters
    ----------
    compiled : CompiledProgram
        The compiled program; its ``ratios`` name the ratio variables.
    backend : Backend
        Solves the range programs.
    options : SolveOptions
        Solver options for those programs.

    Returns
    -------
    PolynomialProgram
        A copy of the program with narrower boxes on the ratio variables (the program itself when it
        has none).

    Examples
    --------
    >>> from fairprobe.backends.base import SolveOptions
    >>> from fairprobe.core.compiler import compile_program
    >>> from fairprobe.core.registry import get_backend
    >>> from fairprobe.core.inputs import as_table, resolve_bias
    >>> from fairprobe.datasets import load_paper_table
    >>> config = resolve_bias("proxy_label_false_positives_no_edge")
    >>> table = as_table(load_paper_table(), config)
    >>> compiled = compile_program(config, table, "P(P = 1 | Z = 0 & A = 0)", {"D": 0.05})
    >>> compiled.ratios, compiled.program.variables[compiled.program.index("query_r0")].ub
    (['query_r0'], 1.0)
    >>> tight = tighten_ratio_bounds(compiled, get_backend("scip"), SolveOptions())
    >>> ratio = tight.variables[tight.index("query_r0")]
    >>> round(ratio.lb, 6), round(ratio.ub, 6)
    (0.230869, 0.230869)
    """
    prog = compiled.program
    if not compiled.ratios:
        return prog
    defs = {f"{name}_def" for name in compiled.ratios}
    base = prog.copy()
    base.constraints = [c for c in prog.constraints if c.name not in defs]
    if base.max_degree > 1 or base.is_fractional:
        return _tighten_by_global_solves(prog, compiled.ratios, backend, options)
    out = prog.copy()
    for name in compiled.ratios:
        r = prog.index(name)
        row = next((c for c in prog.constraints if c.name == f"{name}_def"), None)
        if row is None:  # the definition row was presolved away (P(F) = 0); nothing to tighten
            continue
        den = {tuple(i for i in m if i != r): v for m, v in row.poly.items() if r in m}
        num = {m: -v for m, v in row.poly.items() if r not in m}
        if any(len(m) > 1 for m in den) or any(len(m) > 1 for m in num):
            continue
        lfp = base.copy()
        lfp.objective, lfp.objective_denominator = num, den
        lp = lfp if on_fast_path(backend, lfp) else charnes_cooper(lfp)  # HiGHS verifies the ratio in its own variables
        lo = backend.solve(lp.with_sense("min"), options)
        hi = backend.solve(lp.with_sense("max"), options)
        if lo.termination is Termination.INFEASIBLE or hi.termination is Termination.INFEASIBLE:
            continue  # left to the main solve, which reports it properly
        _narrow(out, r, lo.objective_bound, hi.objective_bound)
    return out


#: Seconds per range solve of a ratio variable in a nonconvex program (its certified bound is
#: valid whenever the solve stops, only weaker).
RANGE_SOLVE_LIMIT = 1.0


def _tighten_by_global_solves(prog: PolynomialProgram, ratios: list[str], backend: Any,
                              options: SolveOptions) -> PolynomialProgram:
    """Bound each ratio variable of a nonconvex program by its certified range (two short global solves each)."""
    if not ratios or prog.n_variables > 200:
        return prog
    limit = RANGE_SOLVE_LIMIT if options.time_limit is None else min(RANGE_SOLVE_LIMIT, options.time_limit)
    short = dataclasses.replace(options, time_limit=limit)
    out = prog.copy()
    ranged = prog.copy()  # one copy; only its objective changes per ratio
    ranged.objective_denominator = None
    for name in ratios:
        r = prog.index(name)
        ranged.objective = {(r,): 1.0}
        lo = backend.solve(ranged.with_sense("min"), short)
        hi = backend.solve(ranged.with_sense("max"), short)
        if Termination.INFEASIBLE in (lo.termination, hi.termination):
            return prog  # left to the main solve, which reports it properly
        _narrow(out, r, lo.objective_bound, hi.objective_bound)
    return out


def _ratio_row_parts(prog: PolynomialProgram, row: Any, r: int) -> tuple[dict, dict] | None:
    """The denominator and numerator of ratio ``r``'s definition row ``r * den - num = rhs``, when both are sums
    of nonnegative terms in nonnegative variables (else None)."""
    den: dict[tuple[int, ...], float] = {}
    num: dict[tuple[int, ...], float] = {(): row.rhs} if row.rhs else {}
    for mono, coef in row.poly.items():
        if r in mono:
            if mono.count(r) != 1:
                return None
            den[tuple(i for i in mono if i != r)] = coef
        else:
            num[mono] = -coef
    terms = [*den.items(), *num.items()]
    if den and all(c >= 0 for _, c in terms) and all(prog.variables[i].lb >= 0 for mono, _ in terms for i in mono):
        return den, num
    return None


def _numerators_within(den: dict, members: list[tuple[int, dict]]) -> bool:
    """Whether the members' numerators together never exceed their shared denominator (term by term)."""
    total: dict[tuple[int, ...], float] = {}
    for _, num in members:
        for mono, coef in num.items():
            total[mono] = total.get(mono, 0.0) + coef
    return not any(coef > den.get(mono, 0.0) * (1 + 1e-12) for mono, coef in total.items())


def ratio_share_rows(compiled: CompiledProgram, program: PolynomialProgram) -> tuple[PolynomialProgram, int]:
    """``program`` with a row ``r_1 + ... + r_k <= 1`` for each set of ratios that share a denominator and
    whose numerators together never exceed it, and how many such rows were added.

    Rates of disjoint events given ``F`` (a group's accuracy) sum to at most 1 in every model, but the
    bilinear definition rows say so only to a solver's tolerance, which near ``P(F)``'s floor let a group
    without data have an accuracy of 2. The row is added only when read off the program (nonnegative
    terms whose numerators add up to at most the denominator), so it cuts nothing off.

    Parameters
    ----------
    compiled : CompiledProgram
        The compiled program; its ``ratios`` name the ratio variables.
    program : PolynomialProgram
        The program to solve (``compiled.program`` or its tightened copy); never modified.

    Returns
    -------
    (PolynomialProgram, int)
        A copy with the rows (``program`` itself when there are none) and their number.

    Examples
    --------
    >>> from fairprobe.core.compiler import compile_program
    >>> from fairprobe.core.inputs import as_table, resolve_bias
    >>> from fairprobe.datasets import load_paper_table
    >>> config = resolve_bias("selection")
    >>> accuracy = "P(P = 0 & Y = 0 | A = 1) + P(P = 1 & Y = 1 | A = 1)"
    >>> compiled = compile_program(config, as_table(load_paper_table(), config), accuracy, {"D": 0.05})
    >>> shared, added = ratio_share_rows(compiled, compiled.program)
    >>> added, shared.constraints[-1].sense, shared.constraints[-1].rhs
    (1, '<=', 1.0)
    """
    prog = program
    if len(compiled.ratios) < 2:
        return prog, 0
    rows = {c.name: c for c in prog.constraints}
    names = {v.name for v in prog.variables}
    groups: dict[frozenset, list[tuple[int, dict]]] = {}
    for name in compiled.ratios:
        row = rows.get(f"{name}_def")
        if row is None or row.sense != "==" or name not in names:
            continue
        r = prog.index(name)
        split = _ratio_row_parts(prog, row, r)
        if split is not None:
            groups.setdefault(frozenset(split[0].items()), []).append((r, split[1]))
    out, added = None, 0
    for key, members in groups.items():
        if len(members) < 2 or not _numerators_within(dict(key), members):
            continue  # the numerators can exceed the denominator: no row
        if out is None:
            out = prog.copy()
        out.add_constraint({(r,): 1.0 for r, _ in members}, "<=", 1.0, name=f"ratio_share{added}")
        added += 1
    return (prog, 0) if out is None else (out, added)


_SHARE_NOTE = ("rates of disjoint events given the same event (a group's accuracy) summed to at most 1 "
               "({} row(s), valid in every model)")


def _infeasible_message() -> str:
    return ("The observed data are inconsistent with the bias assumptions at this sensitivity value: no "
            "model satisfies both. Increase D (allow more bias), or check that the table's columns are "
            "mapped to the right DAG nodes.")


#: Largest row violation of an incumbent whose metric value is reported as achieved. Solvers
#: check rows against 1e-6 relative to their size; rows that sum many probabilities (P(S = 1) of a
#: selected table) can exceed 1e-6 in absolute terms.
ACHIEVED_TOLERANCE = 1e-5


def _achieved(compiled: CompiledProgram, res: SolveResult, lp: PolynomialProgram | None) -> float | None:
    """The metric's value at the solver's point when it is a model (repaired to 1e-9 if needed; violation recorded)."""
    if res.incumbent is None:
        return None
    prog = compiled.program
    point = dict(res.incumbent)
    if lp is not None:
        t = point.get(lp.variables[-1].name, 0.0)
        if t <= 1e-12:
            return None
        point = {v.name: point[v.name] / t for v in prog.variables}
    point = _model_point(compiled, point, res)
    if point is None:
        return None
    if prog.is_fractional:
        values = [point[v.name] for v in prog.variables]
        if evaluate(prog.objective_denominator or {}, values) <= 0:
            return None
    return prog.objective_value(point)


def _model_point(compiled: CompiledProgram, point: dict[str, float], res: SolveResult) -> dict[str, float] | None:
    """``point`` if it satisfies every row to 1e-9, else its repair (:mod:`fairprobe.core.repair`), else the
    point within :data:`ACHIEVED_TOLERANCE`, else None; the violation is recorded on ``res``."""
    prog = compiled.program
    viol = prog.max_violation(point)
    if viol > REPAIRED_TOLERANCE and compiled.ratios:
        highs = exact_lp_backend()
        if highs is not None:
            fixed = repair_point(prog, compiled.ratios, point, highs)
            if fixed is None or abs(prog.objective_value(fixed) - prog.objective_value(point)) > LOOSE_GAP:
                # the rates moved in the projection (a denominator near its floor): hold all but one
                # rate and optimise that one exactly; keep the model nearer the solver's value
                polished = polish_point(prog, compiled.ratios, point, highs)
                target = prog.objective_value(point)
                if polished is not None and (fixed is None or abs(prog.objective_value(polished) - target)
                                             < abs(prog.objective_value(fixed) - target)):
                    fixed = polished
            if fixed is not None:
                point, viol = fixed, prog.max_violation(fixed)
    if viol > ACHIEVED_TOLERANCE:
        return None
    if isinstance(res.extra, dict):  # what the achieved value rests on, for the result's details
        res.extra["achieved_violation"] = max(viol, res.extra.get("achieved_violation", 0.0))
    return point


@dataclass
class Side:
    """Bounds of one compiled program (both senses)."""

    lower: float
    upper: float
    lower_achieved: float | None
    upper_achieved: float | None
    lo: SolveResult
    hi: SolveResult
    notes: list[str]


def check_results(results: list[SolveResult], label: str, compiled: CompiledProgram,
                   lp: PolynomialProgram | None, be: Any, options: SolveOptions) -> None:
    for r in results:
        if r.termination is Termination.INFEASIBLE:
            if lp is not None:
                check = compiled.program.copy()
                check.objective, check.objective_denominator = {}, None
                if be.solve(check, options).termination is not Termination.INFEASIBLE:
                    # Charnes-Cooper is infeasible while the models exist: P(F) = 0 in all of them
                    # (normally caught earlier by check_defined)
                    event = compiled.conditions[0].event if compiled.conditions else "its conditioning event"
                    raise UndefinedMetricError(
                        f"The metric {label!r} is undefined: it conditions on {event}, which has probability "
                        "0 in every model consistent with the data and the assumptions. Choose groups in which "
                        "the event can occur, or a bias or sensitivity value that allows it.")
            raise InfeasibleError(_infeasible_message())
        if r.termination in (Termination.ERROR, Termination.UNBOUNDED):
            raise SolverError(f"The solver could not bound the metric: {r.message}")


def labelled_error(exc: UndefinedMetricError, label: str) -> UndefinedMetricError:
    """The compiler's message with the metric's label in it."""
    return UndefinedMetricError(str(exc).replace("The metric ", f"The metric {label!r} ", 1))


def _where(params: Mapping[str, float]) -> str:
    return "at " + ", ".join(f"{k} = {v:g}" for k, v in params.items()) if params else ""


def _record_minima(conditions: list, found: list[float | None], checked: dict[str, bool], minima: dict | None,
                   event_minima: dict | None) -> None:
    """Mark the events whose verified minimum is positive as checked, and record the minima (:func:`check_defined`)."""
    for cond, low in zip(conditions, found, strict=True):
        if low is not None and low >= RATIO_EPSILON:
            checked[cond.event] = False
            if minima is not None:
                minima[frozenset(cond.poly.items())] = low
            if event_minima is not None:
                event_minima[cond.event] = low


def check_defined(compiled: CompiledProgram, be: Any, options: SolveOptions, label: str, config: BiasConfig,
                   table: ObservedTable, params: Mapping[str, float], checked: dict[str, bool],
                   minima: dict | None = None, event_minima: dict | None = None) -> None:
    """Decide, for each conditioning event ``F`` of the metric, whether ``P(F)`` can be (or must be) 0.

    Raises :class:`UndefinedMetricError` when the certified ``max P(F)`` over the admitted models is below
    ``RATIO_EPSILON``; else ``checked[event]`` records whether ``min P(F)`` may be. ``minima`` receives each
    verified positive minimum keyed by ``frozenset(poly.items())``, ``event_minima`` the same by event.
    """
    todo = [c for c in compiled.conditions if c.event not in checked]
    if not todo:
        return
    base = copy.copy(compiled.program)  # a view: only read here (a solve below copies it again)
    base.constraints = [c for c in base.constraints if c.name not in compiled.query_rows]
    base.objective_denominator = None
    for cond in todo:
        if cond.observed is not None:  # the data pin P(F) > 0: the same in every model
            checked[cond.event] = False
    todo = [c for c in todo if c.observed is None]
    # the usual case, positive in every admitted model: one verified LP each over rows read once
    found = be.verified_minima(base, [dict(c.poly) for c in todo], options) if todo and on_fast_path(be, base) else None
    if found is not None:
        _record_minima(todo, found, checked, minima, event_minima)
        todo = [c for c in todo if c.event not in checked]
    for cond in todo:
        prog = base.copy()
        prog.objective = dict(cond.poly)
        failed = (Termination.INFEASIBLE, Termination.ERROR, Termination.UNBOUNDED)
        lo = be.solve(prog.with_sense("min"), options)
        if lo.termination in failed:
            return  # no admitted model (or a solver failure): the main solve reports it
        if lo.termination is Termination.OPTIMAL and lo.objective_bound >= RATIO_EPSILON:
            checked[cond.event] = False  # positive in every admitted model (the usual case: one solve)
            continue
        hi = be.solve(prog.with_sense("max"), options)
        if hi.termination in failed:
            return
        if hi.objective_bound < RATIO_EPSILON:
            raise UndefinedMetricError(undefined_metric_message(config, table, cond.atoms, _where(params), label))
        checked[cond.event] = True


def solve_compiled(compiled: CompiledProgram, be: Any, options: SolveOptions, label: str,
                    n_jobs: int = 1, minima: Mapping | None = None) -> Side:
    """Certified min and max of one compiled single-query program (``minima``: as :func:`check_defined`
    recorded them for it)."""
    notes: list[str] = []
    lp = None
    if compiled.kind == "linear_fractional":
        program, lp = _fractional(compiled, be)
        notes.append("linear-fractional program solved exactly as one LP (Charnes-Cooper)")
        lo, hi = _solve_pair(program, be, options)
    elif (pair := _parity_pair(compiled, be, options, minima)) is not None:
        lo, hi = pair
        notes.append("a parity of two rates solved exactly (parametric LP search, verified bounds)")
    else:
        program = tighten_ratio_bounds(compiled, be, options)
        if program is not compiled.program:
            notes.append("ratio variables bounded by their exact single-ratio ranges (LPs)")
        program, shared = ratio_share_rows(compiled, program)
        if shared:
            notes.append(_SHARE_NOTE.format(shared))
        red = reduction_of(program, be, options)
        if red is not None:
            notes.append(REDUCTION_NOTE.format(red.dropped))
        lo, hi = _solve_pair(program if red is None else red.program, be, options, n_jobs=n_jobs)
        lo, hi = _completed(lo, red), _completed(hi, red)
        lo, hi = _unless_contradicted(compiled, lo, hi, be, options, notes)
    check_results([lo, hi], label, compiled, lp, be, options)
    return Side(lo.objective_bound, hi.objective_bound, _achieved(compiled, lo, lp), _achieved(compiled, hi, lp),
                 lo, hi, notes)


def _unless_contradicted(compiled: CompiledProgram, lo: SolveResult, hi: SolveResult, be: Any, options: SolveOptions,
                         notes: list[str]) -> tuple[SolveResult, SolveResult]:
    """``lo`` and ``hi``, with a side the solver called infeasible solved again where a model refutes it.

    A global solver can call a badly scaled program infeasible while a point satisfies every row to
    :data:`ACHIEVED_TOLERANCE`; such a side is solved again as compiled with the ``"retry"`` profile, and
    if still infeasible it reports a numerical error with the trivial bound, never "no model exists".
    """
    sides = {"min": lo, "max": hi}
    if all(r.termination is not Termination.INFEASIBLE for r in sides.values()):
        return lo, hi
    prog = compiled.program
    evidence = next((r.incumbent for r in sides.values() if r.incumbent is not None
                     and prog.max_violation(r.incumbent) <= ACHIEVED_TOLERANCE), None)
    if evidence is None:
        evidence = _admitted_model(compiled, be, options)
    if evidence is None:
        return lo, hi  # nothing refutes the claim
    # the backend's "retry" profile: its own ladder of settings until a solve is not infeasible (SCIP's)
    retry = dataclasses.replace(options, profiles=(*options.profiles, "retry"))
    solve = be.solve_global if isinstance(be, TimeBudget) else be.solve
    for sense, res in sides.items():
        if res.termination is not Termination.INFEASIBLE:
            continue
        again = solve(prog.with_sense(sense), retry)
        if again.termination is Termination.INFEASIBLE:
            again = dataclasses.replace(again, termination=Termination.NUMERICAL_ERROR, incumbent=None,
                                        incumbent_objective=None,
                                        objective_bound=-math.inf if sense == "min" else math.inf,
                                        message=again.message + "; called infeasible although a model exists: a "
                                                                "numerical failure")
        notes.append(f"the solver called the {sense} side infeasible although a model exists (rows to "
                     f"{ACHIEVED_TOLERANCE:g}); solved again on the program as compiled")
        sides[sense] = again
    return sides["min"], sides["max"]


def _admitted_model(compiled: CompiledProgram, be: Any, options: SolveOptions) -> dict[str, float] | None:
    """A point of ``compiled``'s admitted set (its rows outside the query) with each ratio variable set to its
    ratio there, when that satisfies every row to :data:`ACHIEVED_TOLERANCE`; else None."""
    prog = compiled.program
    base = prog.copy()
    base.constraints = [c for c in prog.constraints if c.name not in compiled.query_rows]
    base.objective, base.objective_denominator = {}, None
    res = (be.solve_global if isinstance(be, TimeBudget) else be.solve)(base.with_sense("min"), options)
    if res.incumbent is None:
        return None
    point = dict(res.incumbent)
    names = [v.name for v in prog.variables]
    for ratio in compiled.ratios:
        row = next((c for c in prog.constraints if c.name == f"{ratio}_def"), None)
        if row is None or ratio not in names:
            return None
        r = names.index(ratio)
        values = [point.get(name, 0.0) for name in names]
        values[r] = 0.0
        minus_num = evaluate(row.poly, values)  # the row is r * den - num
        values[r] = 1.0
        den = evaluate(row.poly, values) - minus_num
        if not den > 0:
            return None
        point[ratio] = -minus_num / den
    return point if prog.max_violation(point) <= ACHIEVED_TOLERANCE else None


def _parity_pair(compiled: CompiledProgram, be: Any, options: SolveOptions,
                 minima: Mapping | None = None) -> tuple[SolveResult, SolveResult] | None:
    """Both sides of a parity of two rates by the LP fast path's exact search (no ratio boxes needed), else None."""
    if not on_fast_path(be, compiled.program) or compiled.program.max_degree != 2:
        return None
    solve = be.solve_parity_pair
    # the definedness check's verified minima of P(F) bound the search's denominators from below: two
    # LPs fewer (over a superset of the search's polytope, so a valid floor)
    return solve(compiled.program, options, den_floors=minima) if minima else solve(compiled.program, options)


REDUCTION_NOTE = ("{} variables of blocks the metric does not read left out; each enters the shared budget row "
                   "with its least use of it (exact)")


def reduction_of(program: PolynomialProgram, be: Any, options: SolveOptions) -> Reduction | None:
    """:func:`~fairprobe.core.decompose.drop_unread_blocks` for nonconvex programs (LPs are fast as they are)."""
    if program.max_degree <= 1:
        return None
    return drop_unread_blocks(program, be, options)


def _completed(res: SolveResult, red: Reduction | None) -> SolveResult:
    """``res`` with its incumbent completed by the dropped blocks' points."""
    if red is None or res.incumbent is None:
        return res
    return dataclasses.replace(res, incumbent=red.complete(res.incumbent))


def solve_reduced(program: PolynomialProgram, be: Any, options: SolveOptions, sense: str,
                   red: Reduction | None = None, global_only: bool = False) -> SolveResult:
    """One side of ``program`` (of its reduction ``red``), incumbent in the original variables.

    ``global_only`` sends it past the fast path's exact routes (the exact search already declined it).
    """
    solve = be.solve_global if global_only else be.solve
    return _completed(solve((program if red is None else red.program).with_sense(sense), options), red)


def solve_sense(compiled: CompiledProgram, prepared: tuple[PolynomialProgram, Reduction | None], be: Any,
                 options: SolveOptions, label: str, sense: str,
                 global_only: bool = False) -> tuple[float, float | None, SolveResult]:
    """Certified bound, achieved value and result of one side of a prepared program (see :func:`prepared_program`)."""
    program, red = prepared
    lp = program if compiled.kind == "linear_fractional" and not program.is_fractional else None
    res = solve_reduced(program, be, options, sense, red, global_only)
    check_results([res], label, compiled, lp, be, options)
    return res.objective_bound, _achieved(compiled, res, lp), res


def on_fast_path(be: Any, program: PolynomialProgram) -> bool:
    """Whether the router sends ``program`` to a backend with exact routes (an :class:`ExactBackend`)."""
    return isinstance(be, TimeBudget) and be.exact(program)


def _fractional(compiled: CompiledProgram, be: Any) -> tuple[PolynomialProgram, PolynomialProgram | None]:
    """What a backend solves for a linear-fractional program, and the Charnes-Cooper LP when that is it."""
    if on_fast_path(be, compiled.program):
        return compiled.program, None  # HiGHS verifies the ratio in the model's own variables
    # exact: the denominator is a probability, so every LP point has t > 0 and maps back to a model
    lp = charnes_cooper(compiled.program)
    return lp, lp


def prepared_program(compiled: CompiledProgram, be: Any,
              options: SolveOptions) -> tuple[PolynomialProgram, Reduction | None]:
    """The program a backend solves (the Charnes-Cooper LP or the ratio-tightened program) and its reduction."""
    if compiled.kind == "linear_fractional":
        return _fractional(compiled, be)[0], None
    program = ratio_share_rows(compiled, tighten_ratio_bounds(compiled, be, options))[0]
    return program, reduction_of(program, be, options)


def parity_searchable(compiled: CompiledProgram, be: Any) -> bool:
    """Whether the fast path's exact search may take ``compiled`` as it is (a nonconvex ratio program)."""
    program = compiled.program
    return compiled.kind != "linear_fractional" and program.max_degree == 2 and on_fast_path(be, program)


def parity_side(compiled: CompiledProgram, be: Any, options: SolveOptions, label: str, sense: str,
                 floors: Mapping[str, float] | None = None) -> tuple[float, float | None, SolveResult] | None:
    """One side of a parity of two rates by the exact search on the program as compiled, else None.

    ``floors``: verified lower bounds of the conditioning events' probabilities over the admitted models,
    by event (as :func:`check_defined` found them); they stand in for the search's denominator LPs.
    """
    minima = {frozenset(c.poly.items()): floors[c.event] for c in compiled.conditions
              if floors and c.event in floors}
    program = compiled.program.with_sense(sense)
    res = be.solve_parity(program, options, den_floors=minima) if minima else be.solve_parity(program, options)
    if res is None:
        return None
    check_results([res], label, compiled, None, be, options)
    return res.objective_bound, _achieved(compiled, res, None), res


def read_off_pair(joint: CompiledProgram, first: str, second: str) -> CompiledProgram | None:
    """``first - second`` (two rates, each one conditional probability) read off the joint program, else None."""
    keys = [rate_key(first), rate_key(second)]
    return None if None in keys else joint.window_pair(*keys)


def excluded_notes(excluded: list[str]) -> list[str]:
    """The note on conditioning events that can be 0 in some admitted models (none when there are none)."""
    if not excluded:
        return []
    zero = " or ".join(f"P({e}) = 0" for e in excluded)
    return [f"the metric is undefined in the admitted models where {zero}; the bounds are over the other models "
            f"(each of these events with probability >= {RATIO_EPSILON:g})"]


#: The default optimality gap of a bound, and the distance above which a loosened gap makes it "gap".
LOOSE_GAP = 1e-5


#: How far outside the verified bound an achieved value may be evaluated and still be reported (at
#: the bound): a model's rows hold to 1e-9, and its value in floating point is a rate at exactly 1
#: computed as 1 + 1e-13. Further out it is not reported as achieved.
ACHIEVED_SLACK = 1e-9


def snapped(value: float | None, low: float, high: float, slack: float) -> float | None:
    """``value`` moved onto ``low`` or ``high`` when it lies within ``slack`` outside them (else as is)."""
    if value is None or not (math.isfinite(low) and math.isfinite(high)):
        return value
    if low - slack <= value < low:
        return low
    if high < value <= high + slack:
        return high
    return value


def inside_bounds(value: float | None, lower: float, upper: float) -> float | None:
    """An achieved value within :data:`ACHIEVED_SLACK` outside ``[lower, upper]``, moved onto the bound."""
    return snapped(value, lower, upper, ACHIEVED_SLACK)


#: How far beyond the metric's own range (a rate outside [0, 1]) a model's computed value may be and
#: still be read as the range's end: rows hold to 1e-9, divided by a denominator of 1e-3.
RANGE_SLACK = 1e-6


def achieved_gap(lower: float, upper: float, low_ach: float | None, up_ach: float | None) -> float:
    """Largest distance between a certified bound and the achieved value on its side (inf if none)."""
    return max(abs(low_ach - lower) if low_ach is not None else math.inf,
               abs(upper - up_ach) if up_ach is not None else math.inf)


def joint_achieved(joint: CompiledProgram, res: SolveResult) -> float | None:
    """``max_i |q_i|`` at the incumbent of a joint max-abs program, when it is a model (within tolerance)."""
    if res.incumbent is None:
        return None
    exact = _window_value_at_model(joint, dict(res.incumbent), res)
    if exact is not None:
        return exact
    point = _model_point(joint, dict(res.incumbent), res)
    if point is None:
        return None
    return max(abs(v) for v in joint.term_values(point))


def joint_solve_options(options: SolveOptions) -> SolveOptions:
    """``options`` with the ``"joint"`` profile (:data:`fairprobe.backends.scip.PROFILES`); solver options stand."""
    return dataclasses.replace(options, profiles=(*options.profiles, "joint"))


def _windows_value(joint: CompiledProgram, model: Mapping[str, float]) -> float:
    """Each family's largest minus smallest rate at a model, the largest of them (inf: a rate at its floor)."""
    value = 0.0
    for family in joint.windows:
        rates = []
        for num, den in family:
            d = 1.0 if den is None else named_value(den, model)
            if not d >= RATIO_EPSILON:
                return math.inf  # a rate at its floor is 0/0 here: not a value to report
            rates.append(named_value(num, model) / d)
        value = max(value, max(rates) - min(rates))
    return value


def _window_value_at_model(joint: CompiledProgram, point: dict[str, float], res: SolveResult) -> float | None:
    """The max-of-family-ranges metric in a model verified to 1e-9 near ``point`` (None if none is found)."""
    # the solver's point holds the window rows only to 1e-6: rates are read at its projection onto the model
    if not joint.windows:
        return None
    highs = exact_lp_backend()
    if highs is None:
        return None
    value, model = math.inf, None
    projected = project_to_model(joint.program, joint.query_rows, point, highs)
    if projected is not None:
        value, model = _windows_value(joint, projected), projected
    if not value <= res.objective_bound + LOOSE_GAP:
        # the nearest model lost more than 1e-5: look for one inside the solver's windows, widened
        # as little as a model needs (an LP per width)
        inside = polish_windows(joint.program, joint.query_rows, joint.windows, point, highs, RATIO_EPSILON)
        polished = _windows_value(joint, inside) if inside is not None else math.inf
        if polished < value:
            value, model = polished, inside
    if model is None or not math.isfinite(value):
        return None
    if isinstance(res.extra, dict):
        violation = model_violation(joint.program, joint.query_rows, model)
        res.extra["achieved_violation"] = max(violation, res.extra.get("achieved_violation", 0.0))
    return value


def bound_windows(program: PolynomialProgram, ranges: list[list[Side]], lower: float,
                   upper: float) -> PolynomialProgram:
    """Window ends and ``t`` of a family-window program bounded by the rates' certified ranges (exact).

    An optimal window shrinks to ``[min_a q_a, max_a q_a]``; families are matched by position.
    """

    names = {v.name for v in program.variables}
    if not all(f"window{f}_low" in names and f"window{f}_high" in names for f in range(len(ranges))) \
            or f"window{len(ranges)}_low" in names:
        return program
    out = program.copy()
    for f, family in enumerate(ranges):
        _narrow(out, out.index(f"window{f}_low"), min(s.lower for s in family), min(s.upper for s in family))
        _narrow(out, out.index(f"window{f}_high"), max(s.lower for s in family), max(s.upper for s in family))
    if "max_abs" in names:
        _narrow(out, out.index("max_abs"), lower, upper)
    return out


def final_status(results: list[SolveResult], gap: float, width_gap: float, notes: list[str]) -> str:
    """The result's status: "gap" (with a note) when a loosened ``gap`` left the bounds loose."""
    status = _status(results)
    if status == "optimal" and gap > DEFAULT_GAP and width_gap > LOOSE_GAP:
        # solved only to the loosened gap the caller asked for: certified, but not optimal
        notes.append(f"solved to the requested gap {gap:g}: the certified bounds lie up to {width_gap:.2g} "
                     "beyond values achieved by feasible models (lower the gap for a sharp answer)")
        return "gap"
    if status == "optimal" and LOOSE_GAP < width_gap < math.inf:
        # every solver reports optimal within its tolerances, yet no verified model comes near a bound:
        # the solver's optimum sits where its feasibility tolerance (about 1e-6) lets a denominator
        # cross the metric's 1e-9 floor. Certified, not shown to be sharp: say so instead of "optimal".
        notes.append(f"the solvers report both sides optimal, but the best models verified to 1e-9 lie up to "
                     f"{width_gap:.2g} inside the bounds (a rate's denominator near its {RATIO_EPSILON:g} floor, "
                     "where a solver's tolerance admits points that are not models): the bounds are certified, "
                     "not shown to be attained")
        return "gap"
    return status


def _status(results: list[SolveResult]) -> str:
    if all(r.is_optimal for r in results):
        return "optimal"
    if any(r.termination is Termination.NUMERICAL_ERROR for r in results):
        warnings.warn(
            "The solver ran into numerical trouble: the reported bounds are the valid bounds of the "
            "search so far (possibly infinite); rescale the table or try another backend.",
            RuntimeWarning, stacklevel=4)
        return "numerical_error"
    warnings.warn(
        "A solver stopped at a limit: the bounds are certified but may be wider than the sharp "
        "interval (see lower_achieved/upper_achieved).", RuntimeWarning, stacklevel=4)
    return "limit"

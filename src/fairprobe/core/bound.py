"""The bound driver: ``fairprobe.bound`` and its :class:`BoundResult`.

``lower``/``upper`` are *certified*: every model consistent with the bias assumptions and the
observed table has a metric value in ``[lower, upper]`` (up to solver tolerances, about 1e-9 for
LPs). ``lower_achieved``/``upper_achieved`` are values attained by a feasible model the solver
found (re-evaluated on the program), so the true sharp interval lies between the two.

**Undefined metrics.** A rate such as ``FNR_a = P(P = 0 | Y = 1, A = a)`` is a ratio, undefined in a
model where its conditioning event ``Y = 1 & A = a`` has probability 0. Before solving, the maximum
of ``P(F)`` over the models the bias admits is computed for every conditioning event ``F`` of the
metric (a certified bound from the same solver; events pinned by the data are skipped). When it
is below ``1e-9`` the metric is undefined in every admitted model and :func:`bound` raises
:class:`~fairprobe.exceptions.UndefinedMetricError`, never a bound on a free ratio. When only the
minimum is below ``1e-9``, the bound is over the models in which each conditioning event has
probability at least ``1e-9`` (the floor the compiler puts on ratios), and the result lists those
events in :attr:`BoundResult.excluded_events` and says so in its notes.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import math
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairprobe.backends.base import SolveOptions, SolveResult, Termination
from fairprobe.core.budget import DEFAULT_TIME_LIMIT, TimeBudget, reporting_progress
from fairprobe.core.compiler import (
    RATIO_EPSILON,
    CompiledProgram,
    compile_program,
    named_value,
    rate_key,
    undefined_metric_message,
)
from fairprobe.core.config import BiasConfig
from fairprobe.core.decompose import Reduction, drop_unread_blocks
from fairprobe.core.identify import absorbable_nodes
from fairprobe.core.inputs import (  # noqa: F401  (some re-exported: they lived here before)
    MetricSpec,
    as_table,
    attribute_labels,
    declare_unmeasured,
    fit_cardinalities,
    labelled_event,
    node_labels,
    resolve_bias,
    resolve_metric,
    resolve_parameters,
    unmeasured_names,
)
from fairprobe.core.options import DEFAULT_GAP, CompileOptions, RunOptions, merge_fixed, run_options
from fairprobe.core.parametric import ParametricProgram, affine_in_parameters
from fairprobe.core.rebind import Resampler
from fairprobe.core.registry import get_backend
from fairprobe.core.repair import (
    REPAIRED_TOLERANCE,
    model_violation,
    polish_point,
    polish_windows,
    project_to_model,
    repair_point,
)
from fairprobe.core.results import BoundResult, ObservedValue, PointOutcome, few_units_line
from fairprobe.core.routing import Router, exact_lp_backend, route_label
from fairprobe.core.small_groups import few_units, units_behind_rates
from fairprobe.core.table import ObservedTable
from fairprobe.core.validate import sensitivity_values, sweep_grid
from fairprobe.exceptions import (
    ConfigError,
    DataError,
    InfeasibleError,
    SolverError,
    UndefinedMetricError,
)
from fairprobe.program.model import PolynomialProgram
from fairprobe.program.polynomial import evaluate
from fairprobe.program.transforms import charnes_cooper

__all__ = ["BoundProblem", "BoundResult", "MetricSpec", "bound", "declare_unmeasured",
           "few_units_line", "resolve_bias", "resolve_metric", "resolve_parameters"]


def _few_units(programs: list[CompiledProgram], config: BiasConfig, table: ObservedTable) -> dict[str, int]:
    """The units behind each rate of the metric that are too few for a claim, by labelled event
    (the rule: :mod:`fairprobe.core.small_groups`)."""
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


def _lf_to_lp(compiled: CompiledProgram) -> PolynomialProgram:
    """Charnes-Cooper LP of a linear-fractional program.

    The denominator is a probability, so it is >= 0 on the feasible set; every feasible point of
    the LP has ``t > 0`` (the x-polytope is bounded) and maps back to a model with denominator
    ``1/t > 0``. The LP therefore optimises exactly over the models in which the metric is
    defined, and its optimum (finite: the metric is bounded) is attained by such a model.
    """
    return charnes_cooper(compiled.program)


def _narrow(prog: PolynomialProgram, k: int, lo: float, hi: float) -> None:
    """Shrink variable ``k``'s box to ``[lo, hi]`` (with 1e-9 slack), in place.

    An infinite end leaves that side alone; a box that would become empty is left as it was.
    """
    var = prog.variables[k]
    new_lo = max(var.lb, lo - 1e-9) if math.isfinite(lo) else var.lb
    new_hi = min(var.ub, hi + 1e-9) if math.isfinite(hi) else var.ub
    if new_lo <= new_hi:
        prog.variables[k] = type(var)(var.name, new_lo, new_hi)


def tighten_ratio_bounds(compiled: CompiledProgram, backend: Any, options: SolveOptions) -> PolynomialProgram:
    """Bound each auxiliary ratio variable by its exact range, from two LPs each.

    A ratio variable ``r = P(E & F) / P(F)`` is defined by the bilinear row ``r * P(F) - P(E & F)
    == 0``. Without those rows the program is often linear; then the range of each ratio alone
    is a linear-fractional program, solved exactly (Charnes-Cooper). Its certified bounds are valid
    for ``r`` on the full feasible set, so adding them cuts nothing off, and they make the
    McCormick relaxations of the bilinear rows much tighter for the global solver.

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
        lp = lfp if _fast_path(backend, lfp) else charnes_cooper(lfp)  # HiGHS verifies the ratio in its own variables
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
    """Bound each ratio variable of a nonconvex program by its certified range (two global solves each).

    When the data rows themselves are bilinear (a proxy whose error does not depend on the latent
    confounder), the single-ratio ranges are no longer LPs; their certified global bounds, each
    found with a short time limit, still cut nothing off and make the main solve's relaxations
    tight (a narrow parity interval is otherwise proved with many branch-and-bound nodes).
    """
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


def ratio_share_rows(compiled: CompiledProgram, program: PolynomialProgram) -> tuple[PolynomialProgram, int]:
    """``program`` with a row ``r_1 + ... + r_k <= 1`` for each set of ratios that share a denominator and
    whose numerators together never exceed it, and how many such rows were added.

    Ratios ``r_i = P(E_i & F) / P(F)`` of disjoint events ``E_i`` (a group's accuracy is
    ``P(P = 0 & Y = 0 | A = a) + P(P = 1 & Y = 1 | A = a)``) sum to at most 1 in every model where
    ``P(F) > 0``, and the models the program admits have ``P(F) >= 1e-9``. The bilinear definition rows
    ``r_i * P(F) = P(E_i & F)`` say so only up to a solver's feasibility tolerance, which at ``P(F)`` near
    its floor admits any ``r_i`` in its box: a global solver then let a group without data have an
    accuracy of 2 (accuracy parity -2, called optimal). The row is read off the program, never assumed:
    it is added only when every numerator and denominator term is a nonnegative multiple of a product
    of variables bounded below by 0 and, term by term, the numerators' coefficients add up to at most
    the denominator's. It holds in every model, so it cuts nothing off.

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
        den: dict[tuple[int, ...], float] = {}
        num: dict[tuple[int, ...], float] = {(): row.rhs} if row.rhs else {}
        for mono, coef in row.poly.items():
            if r in mono:
                if mono.count(r) != 1:
                    break
                den[tuple(i for i in mono if i != r)] = coef
            else:
                num[mono] = -coef
        else:
            terms = [*den.items(), *num.items()]
            if den and all(c >= 0 for _, c in terms) and \
                    all(prog.variables[i].lb >= 0 for mono, _ in terms for i in mono):
                groups.setdefault(frozenset(den.items()), []).append((r, num))
    out, added = None, 0
    for key, members in groups.items():
        if len(members) < 2:
            continue
        den = dict(key)
        total: dict[tuple[int, ...], float] = {}
        for _, num in members:
            for mono, coef in num.items():
                total[mono] = total.get(mono, 0.0) + coef
        if any(coef > den.get(mono, 0.0) * (1 + 1e-12) for mono, coef in total.items()):
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
    """The metric's value at the solver's point, when that point is a model (repaired to 1e-9 if needed).

    The point's largest row violation (after repair) is recorded in ``res.extra["achieved_violation"]``.
    """
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
class _Side:
    """Bounds of one compiled program (both senses)."""

    lower: float
    upper: float
    lower_achieved: float | None
    upper_achieved: float | None
    lo: SolveResult
    hi: SolveResult
    notes: list[str]


def _check_results(results: list[SolveResult], label: str, compiled: CompiledProgram,
                   lp: PolynomialProgram | None, be: Any, options: SolveOptions) -> None:
    for r in results:
        if r.termination is Termination.INFEASIBLE:
            if lp is not None:
                check = compiled.program.copy()
                check.objective, check.objective_denominator = {}, None
                if be.solve(check, options).termination is not Termination.INFEASIBLE:
                    # Charnes-Cooper is infeasible while the models exist: P(F) = 0 in all of them
                    # (normally caught earlier by _check_defined)
                    event = compiled.conditions[0].event if compiled.conditions else "its conditioning event"
                    raise UndefinedMetricError(
                        f"The metric {label!r} is undefined: it conditions on {event}, which has probability "
                        "0 in every model consistent with the data and the assumptions. Choose groups in which "
                        "the event can occur, or a bias or sensitivity value that allows it.")
            raise InfeasibleError(_infeasible_message())
        if r.termination in (Termination.ERROR, Termination.UNBOUNDED):
            raise SolverError(f"The solver could not bound the metric: {r.message}")


def _labelled(exc: UndefinedMetricError, label: str) -> UndefinedMetricError:
    """The compiler's message with the metric's label in it."""
    return UndefinedMetricError(str(exc).replace("The metric ", f"The metric {label!r} ", 1))


def _where(params: Mapping[str, float]) -> str:
    return "at " + ", ".join(f"{k} = {v:g}" for k, v in params.items()) if params else ""


def _check_defined(compiled: CompiledProgram, be: Any, options: SolveOptions, label: str, config: BiasConfig,
                   table: ObservedTable, params: Mapping[str, float], checked: dict[str, bool],
                   minima: dict | None = None, event_minima: dict | None = None) -> None:
    """Decide, for each conditioning event ``F`` of the metric, whether ``P(F)`` can be (or must be) 0.

    ``max P(F)`` over the admitted models (the program without the rows that encode the query) is
    certified by the solver's dual bound: below ``RATIO_EPSILON`` no admitted model gives the
    metric a value, and :class:`UndefinedMetricError` is raised. Otherwise ``checked[event]`` records
    whether ``min P(F)`` may be below ``RATIO_EPSILON`` (the metric is undefined in some models,
    which the bound leaves out). Events pinned by the data are skipped. ``minima`` (when given)
    receives each verified positive minimum, keyed by ``frozenset(poly.items())``: a lower bound on
    ``P(F)`` over the program's models, which a parity search of the same program needs as well;
    ``event_minima`` the same by event (the value holds in any program of the same models).
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
    found = be.verified_minima(base, [dict(c.poly) for c in todo], options) if todo and _fast_path(be, base) else None
    if found is not None:
        for cond, low in zip(todo, found, strict=True):
            if low is not None and low >= RATIO_EPSILON:
                checked[cond.event] = False
                if minima is not None:
                    minima[frozenset(cond.poly.items())] = low
                if event_minima is not None:
                    event_minima[cond.event] = low
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


def _solve_compiled(compiled: CompiledProgram, be: Any, options: SolveOptions, label: str,
                    n_jobs: int = 1, minima: Mapping | None = None) -> _Side:
    """Certified min and max of one compiled single-query program (``minima``: as :func:`_check_defined`
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
        red = _reduction(program, be, options)
        if red is not None:
            notes.append(_REDUCTION_NOTE.format(red.dropped))
        lo, hi = _solve_pair(program if red is None else red.program, be, options, n_jobs=n_jobs)
        lo, hi = _completed(lo, red), _completed(hi, red)
        lo, hi = _unless_contradicted(compiled, lo, hi, be, options, notes)
    _check_results([lo, hi], label, compiled, lp, be, options)
    return _Side(lo.objective_bound, hi.objective_bound, _achieved(compiled, lo, lp), _achieved(compiled, hi, lp),
                 lo, hi, notes)


def _unless_contradicted(compiled: CompiledProgram, lo: SolveResult, hi: SolveResult, be: Any, options: SolveOptions,
                         notes: list[str]) -> tuple[SolveResult, SolveResult]:
    """``lo`` and ``hi``, with a side the solver called infeasible solved again where a model refutes it.

    A global solver can call a badly scaled program infeasible in one sense or both (SCIP, a
    reciprocal variable up to 1e3 next to rows at 1e-4) while models exist. The evidence is a point
    that satisfies every row to :data:`ACHIEVED_TOLERANCE`: the other side's incumbent, else a model
    of the admitted set (the rows outside the query) with its ratios completed. Such a side is solved
    again on the program as compiled (no ratio boxes, no reduction), then at a tight feasibility
    tolerance; if it still says infeasible, it reports a numerical error with the trivial bound, never
    "no model exists".
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
    """Both sides of a parity of two rates by the LP fast path's exact search, else None.

    The search needs no ratio boxes (it bounds each rate by its own LPs), so the single-ratio range
    solves that tighten the global solver's relaxation are skipped; a program the search does not
    take (or cannot close) goes the global solver's way, ranges first.
    """
    if not _fast_path(be, compiled.program) or compiled.program.max_degree != 2:
        return None
    solve = be.solve_parity_pair
    # the definedness check's verified minima of P(F) bound the search's denominators from below: two
    # LPs fewer (over a superset of the search's polytope, so a valid floor)
    return solve(compiled.program, options, den_floors=minima) if minima else solve(compiled.program, options)


_REDUCTION_NOTE = ("{} variables of blocks the metric does not read left out; each enters the shared budget row "
                   "with its least use of it (exact)")


def _reduction(program: PolynomialProgram, be: Any, options: SolveOptions) -> Reduction | None:
    """:func:`~fairprobe.core.decompose.drop_unread_blocks` for nonconvex programs (LPs are fast as they are)."""
    if program.max_degree <= 1:
        return None
    return drop_unread_blocks(program, be, options)


def _completed(res: SolveResult, red: Reduction | None) -> SolveResult:
    """``res`` with its incumbent completed by the dropped blocks' points."""
    if red is None or res.incumbent is None:
        return res
    return dataclasses.replace(res, incumbent=red.complete(res.incumbent))


def _solve_reduced(program: PolynomialProgram, be: Any, options: SolveOptions, sense: str,
                   red: Reduction | None = None, global_only: bool = False) -> SolveResult:
    """One side of ``program`` (of its reduction ``red`` when given), incumbent in the original variables.

    ``global_only`` sends it past the fast path's exact routes to the chosen backend (the exact
    search already declined the program).
    """
    solve = be.solve_global if global_only else be.solve
    return _completed(solve((program if red is None else red.program).with_sense(sense), options), red)


def _solve_sense(compiled: CompiledProgram, prepared: tuple[PolynomialProgram, Reduction | None], be: Any,
                 options: SolveOptions, label: str, sense: str,
                 global_only: bool = False) -> tuple[float, float | None, SolveResult]:
    """Certified bound, achieved value and result of one side of a prepared program (see :func:`_prepared`)."""
    program, red = prepared
    lp = program if compiled.kind == "linear_fractional" and not program.is_fractional else None
    res = _solve_reduced(program, be, options, sense, red, global_only)
    _check_results([res], label, compiled, lp, be, options)
    return res.objective_bound, _achieved(compiled, res, lp), res


def _fast_path(be: Any, program: PolynomialProgram) -> bool:
    """Whether the router sends ``program`` to a backend with exact routes (an :class:`ExactBackend`)."""
    return isinstance(be, TimeBudget) and be.exact(program)


def _fractional(compiled: CompiledProgram, be: Any) -> tuple[PolynomialProgram, PolynomialProgram | None]:
    """What a backend solves for a linear-fractional program, and the Charnes-Cooper LP when that is it.

    On the LP fast path HiGHS takes the ratio itself (Charnes-Cooper inside, its bound verified in
    the model's own variables); any other backend gets the Charnes-Cooper LP.
    """
    if _fast_path(be, compiled.program):
        return compiled.program, None
    lp = _lf_to_lp(compiled)
    return lp, lp


def _prepared(compiled: CompiledProgram, be: Any,
              options: SolveOptions) -> tuple[PolynomialProgram, Reduction | None]:
    """The program a backend solves (the Charnes-Cooper LP or the ratio-tightened program) and its reduction."""
    if compiled.kind == "linear_fractional":
        return _fractional(compiled, be)[0], None
    program = ratio_share_rows(compiled, tighten_ratio_bounds(compiled, be, options))[0]
    return program, _reduction(program, be, options)


def _parity_searchable(compiled: CompiledProgram, be: Any) -> bool:
    """Whether the fast path's exact search may take ``compiled`` as it is (a nonconvex ratio program)."""
    program = compiled.program
    return compiled.kind != "linear_fractional" and program.max_degree == 2 and _fast_path(be, program)


def _parity_side(compiled: CompiledProgram, be: Any, options: SolveOptions, label: str, sense: str,
                 floors: Mapping[str, float] | None = None) -> tuple[float, float | None, SolveResult] | None:
    """One side of a parity of two rates by the exact search on the program as compiled, else None.

    The ratio ranges and the block reduction of :func:`_prepared` only help the global solver; the
    parametric LP search bounds each rate by its own LPs, so it takes the program unchanged.
    ``floors`` are verified lower bounds of the conditioning events' probabilities over the
    admitted models, by event (from the rates' definedness checks: the same events, the same
    models, in another program's variables); they stand in for the search's denominator LPs.
    """
    minima = {frozenset(c.poly.items()): floors[c.event] for c in compiled.conditions
              if floors and c.event in floors}
    program = compiled.program.with_sense(sense)
    res = be.solve_parity(program, options, den_floors=minima) if minima else be.solve_parity(program, options)
    if res is None:
        return None
    _check_results([res], label, compiled, None, be, options)
    return res.objective_bound, _achieved(compiled, res, None), res


def _read_off_pair(joint: CompiledProgram, first: str, second: str) -> CompiledProgram | None:
    """``first - second`` (two rates of the metric, as it writes them) read off the joint program, else None.

    Only rates written exactly as one conditional probability are read off, found by their events
    (:func:`~fairprobe.core.compiler.rate_key`); any other form (``1 - P(...)``, a multiple) is
    compiled on its own, as the joint program's windows hold what sympy made of the terms.
    """
    keys = [rate_key(first), rate_key(second)]
    return None if None in keys else joint.window_pair(*keys)


def _excluded_notes(excluded: list[str]) -> list[str]:
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


def _snapped(value: float | None, low: float, high: float, slack: float) -> float | None:
    """``value`` moved onto ``low`` or ``high`` when it lies within ``slack`` outside them (else as is)."""
    if value is None or not (math.isfinite(low) and math.isfinite(high)):
        return value
    if low - slack <= value < low:
        return low
    if high < value <= high + slack:
        return high
    return value


def _inside(value: float | None, lower: float, upper: float) -> float | None:
    """An achieved value within :data:`ACHIEVED_SLACK` outside ``[lower, upper]``, moved onto the bound."""
    return _snapped(value, lower, upper, ACHIEVED_SLACK)


#: How far beyond the metric's own range (a rate outside [0, 1]) a model's computed value may be and
#: still be read as the range's end: rows hold to 1e-9, divided by a denominator of 1e-3.
RANGE_SLACK = 1e-6


def _gap(lower: float, upper: float, low_ach: float | None, up_ach: float | None) -> float:
    """Largest distance between a certified bound and the achieved value on its side (inf if none)."""
    return max(abs(low_ach - lower) if low_ach is not None else math.inf,
               abs(upper - up_ach) if up_ach is not None else math.inf)


def _joint_achieved(joint: CompiledProgram, res: SolveResult) -> float | None:
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


def _joint_options(options: SolveOptions) -> SolveOptions:
    """``options`` for a joint program's global solve: the ``"joint"`` profile, which a backend maps to its own
    settings (SCIP: a tight feasibility tolerance, bound tightening at every node, a tenth of the gap;
    :data:`fairprobe.backends.scip.PROFILES`); a caller's own solver options stand."""
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
    """The max-of-family-ranges metric in a model verified to 1e-9 near ``point`` (None if none is found).

    The solver's point satisfies the window rows only to its tolerance (1e-6); its value, read
    through the windows, can lie outside the sharp bound. The point's response-type probabilities
    are projected onto the model rows and every rate is computed exactly there, unclipped.
    """
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


def _bound_windows(program: PolynomialProgram, ranges: list[list[_Side]], lower: float,
                   upper: float) -> PolynomialProgram:
    """Window ends and ``t`` of a family-window program bounded by the rates' certified ranges.

    Any optimal window can be shrunk to ``[min_a q_a, max_a q_a]``, so ``L_f`` in ``[min lo, min hi]``
    and ``U_f`` in ``[max lo, max hi]`` keep the optimum; ``t`` lies between the certified bounds
    of the metric. Families are matched by position (the compiler numbers them in the order their
    first rate appears in the terms, which is the metric's order).
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


def _final_status(results: list[SolveResult], gap: float, width_gap: float, notes: list[str]) -> str:
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


def _compile_at(config: BiasConfig, table: ObservedTable, queries: Any, options: CompileOptions, max_abs: bool,
                params: Mapping[str, float]) -> CompiledProgram:
    # module level (not a closure) so problems pickle to worker processes, with the caller's options
    return compile_program(config, table, queries, params, max_abs=max_abs, options=options)


def _compile_on(config: BiasConfig, queries: Any, options: CompileOptions, max_abs: bool,
                params: Mapping[str, float], table: ObservedTable) -> CompiledProgram:
    # the table last, for DataRebinder's compile_fn(table); module level so problems pickle
    return compile_program(config, table, queries, params, max_abs=max_abs, options=options)


@functools.lru_cache(maxsize=256)
def _natural_range(queries: tuple[str, ...], max_abs: bool,
                   two_valued: frozenset[str] = frozenset()) -> tuple[float, float]:
    """:attr:`BoundProblem.natural_range` of a metric's queries (sympy interval arithmetic, kept per metric).

    ``two_valued``: the nodes the bias gives exactly two values, which tightens the range of
    differences between a conditional and an interventional probability (:func:`_paired_range`).
    """
    import sympy

    from fairprobe.core.query import parse_expression

    lows, highs = [], []
    for query in queries:
        parsed = parse_expression(query)
        try:
            box = sympy.sympify(parsed.expr).subs({p: sympy.AccumBounds(0, 1) for p in parsed.symbols})
            low, high = (float(box.min), float(box.max)) if isinstance(box, sympy.AccumBounds) \
                else (float(box), float(box))
        except (TypeError, ValueError, AttributeError):
            return -math.inf, math.inf
        for tighter in (_linear_range(parsed), _paired_range(parsed, two_valued)):
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

    Interval arithmetic takes each probability alone in [0, 1], so a group's accuracy,
    ``P(P = 0 & Y = 0 | A = a) + P(P = 1 & Y = 1 | A = a)``, would range over [0, 2]. Probabilities
    are put in sets of pairwise disjoint events with the same conditioning event (greedily, in the
    query's order); a set's terms ``sum c_k p_k`` with ``p >= 0``, ``sum p <= 1`` range over
    ``[min(0, min c), max(0, max c)]``, and the sets add up. Certified, possibly loose.

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


def _paired_range(parsed: Any, two_valued: frozenset[str]) -> tuple[float, float] | None:
    """The range of a linear query whose terms pair a conditional and an interventional probability
    of one event, ``c * (P(E | X = x) - P(E(X=x)))``, when ``X`` takes two values (None otherwise).

    Why it is a true range in every model: let ``pi_v = P(X = v)``. By consistency (a unit with
    ``X = x`` has ``E(X=x)`` exactly when it has ``E``), ``P(E(X=x)) = pi_x P(E | X = x) +
    sum_{v != x} pi_v P(E(X=x) | X = v)``, so ``P(E | X = x) - P(E(X=x)) = sum_{v != x} pi_v
    (P(E | X = x) - P(E(X=x) | X = v))``, each difference in [-1, 1]: the pair lies in
    ``[-(1 - pi_x), 1 - pi_x]`` (also where ``pi_x = 0`` leaves ``P(E | X = x)`` free in [0, 1]).
    The pairs at ``x`` with coefficients ``c`` add up to at most ``C_x (1 - pi_x)`` in absolute value,
    ``C_x = sum |c|``. With two values, ``1 - pi_0 = pi_1``, so all of ``X``'s pairs lie within
    ``C_0 pi_1 + C_1 pi_0 <= max(C_0, C_1)`` of 0. The spurious effect, TV - TE =
    ``[P(P = 1 | A = a0) - P(P(A=a0) = 1)] - [P(P = 1 | A = a1) - P(P(A=a1) = 1)]``, lies in [-1, 1]
    (``pi_1 (p_0 - q) + pi_0 (r - p_1)``), where interval arithmetic gives [-2, 2]. With three or more
    values it does not: the pairs can reach ``C_0 + C_1`` as ``pi_0, pi_1 -> 0`` (2 for TV - TE), so only
    two-valued nodes are paired. The other terms add their range (:func:`_linear_range`'s rule).

    Examples
    --------
    >>> from fairprobe.core.query import parse_expression
    >>> se = parse_expression("P(P = 1 | A = 0) - P(P(A=0) = 1) - P(P = 1 | A = 1) + P(P(A=1) = 1)")
    >>> _paired_range(se, frozenset({"A"}))
    (-1.0, 1.0)
    >>> _paired_range(se, frozenset()) is None  # A may have more values: no tighter range
    True
    """
    from fairprobe.core.query import Atom

    terms = _linear_terms(parsed)
    if terms is None or not two_valued:
        return None
    coefs, constant = terms
    atoms = parsed.atoms
    used: set[int] = set()
    weight: dict[str, dict[Any, float]] = {}  # node -> value -> sum |c| of its pairs
    for k, cond in enumerate(atoms):
        if k in used or coefs[k] == 0 or len(cond.given) != 1:
            continue
        on = cond.given[0]
        if on.negated or on.intervention or on.var not in two_valued \
                or any(a.intervention or a.var == on.var for a in cond.event):
            continue
        world = tuple(Atom(a.var, a.value, ((on.var, on.value),), a.negated) for a in cond.event)
        match = next((j for j, other in enumerate(atoms) if j not in used and j != k and not other.given
                      and other.event == world and coefs[j] == -coefs[k]), None)
        if match is None:
            continue
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


class _CompiledOnUse:
    """A program attribute of :class:`BoundProblem`: a read before :meth:`BoundProblem.compile` compiles."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, problem: Any, owner: type | None = None) -> Any:
        if problem is None:
            return self
        problem.compile()
        return problem.__dict__[self.name]


class BoundProblem:
    """Bias + metric + data, compiled once; :meth:`solve` bounds it at any sensitivity value.

    Making one resolves and checks the bias, the metric and the table; :meth:`compile` compiles the
    programs (the first solve, or the first read of a program, does it when nothing did before). A
    problem depends on its arguments only: nothing is kept between problems. The reuse of compiled
    programs across tables over the same cells is a :class:`~fairprobe.core.rebind.Resampler`, held by
    its caller.

    Parameters
    ----------
    bias, metric, data : Any
        The bias, the metric and the observed data, as for :func:`bound`.
    reduce : bool
        Apply the exact program reductions.
    fixed : dict, optional
        Sensitivity values compiled in as constants (the others are swept affinely).
    unmeasured : list of str, optional
        As for :func:`bound`.
    compile_options : CompileOptions, optional
        Every compile switch (default: all exact reductions on; ``reduce=False`` turns them off).
        The options travel with the problem, so worker processes compile as the caller asked.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.bound import BoundProblem
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> problem = BoundProblem("proxy_label", "fpr", cells)
    >>> problem.compiled
    False
    >>> [round(problem.compile().solve({"D": d}).upper, 4) for d in (0.0, 0.05)]
    [0.2, 0.3333]
    """

    #: The compiled programs: one per term, the families' rates, the joint program of a maximum (:meth:`compile`).
    term_programs = _CompiledOnUse()
    rate_programs = _CompiledOnUse()
    joint_program = _CompiledOnUse()

    def __init__(self, bias: Any, metric: Any, data: Any, *, reduce: bool = True,
                 fixed: Mapping[str, float] | None = None, unmeasured: Any = None,
                 compile_options: CompileOptions | None = None) -> None:
        options = compile_options if compile_options is not None else CompileOptions(reduce=bool(reduce))
        if not reduce and options.reduce:
            options = dataclasses.replace(options, reduce=False)
        declared = unmeasured_names(unmeasured)
        self.compile_options = options
        config = declare_unmeasured(resolve_bias(bias), declared)
        self.table = as_table(data, config)
        given = [n for n in declared if n in self.table.nodes]
        if given:
            raise ConfigError(f"Node(s) {given} are declared unmeasured but the table has them as columns; "
                              "drop them from unmeasured (or the columns from the table).")
        self.config = fit_cardinalities(config, self.table)
        self.table.validate_against(self.config)  # a forgotten column is an error, before any compiling
        self.metric = resolve_metric(metric, self.config, self.table)
        self.reduce = options.reduce
        self.absorbed = self._absorb_noise_nodes() if options.reduce else []
        self.fixed = dict(fixed or {})
        used = sorted({str(s) for c in self.config.parsed_constraints for s in c.parameters})
        self.parameters = [p for p in self.config.parameters if p in used]
        #: the :class:`~fairprobe.core.rebind.Resampler` that moved this problem to its table (None: compiled there)
        self.resampler: Resampler | None = None

    @property
    def compiled(self) -> bool:
        """Whether the programs are compiled (:meth:`compile`).

        Returns
        -------
        bool
        """
        return "term_programs" in self.__dict__

    def compile(self) -> BoundProblem:
        """Compile the programs, once (a problem given a resampler moves them where exact).

        Returns
        -------
        BoundProblem
            This problem.

        Raises
        ------
        UndefinedMetricError
            The metric is undefined on this table.
        """
        if not self.compiled:
            self._compile_programs()
        return self

    def _build(self, queries: Any, max_abs: bool = False) -> ParametricProgram:
        fn = functools.partial(_compile_at, self.config, self.table, queries, self.compile_options, max_abs)
        if self.resampler is not None and self.table.region is None and all(p in self.fixed for p in self.parameters):
            # (a region's program has the cells as variables; a swept one compiles per point)
            compile_on = functools.partial(_compile_on, self.config, queries, self.compile_options, max_abs,
                                           dict(self.fixed))
            moved = self.resampler.program(self.program_key(queries, max_abs), self.table, dict(self.fixed),
                                           compile_on, fn, affine_in_parameters(self.config))
            if moved is not None:
                return moved
        built = ParametricProgram.build(fn, self.config, self.parameters, self.fixed)
        self._built[self.program_key(queries, max_abs)] = built
        return built

    def program_key(self, queries: Any, max_abs: bool) -> tuple:
        """What names one of this problem's programs among those of its tables (a resampler's key).

        Parameters
        ----------
        queries : str or list of str
            The program's metric expression(s).
        max_abs : bool
            Whether it is the joint program of a maximum of absolute terms.

        Returns
        -------
        tuple
        """
        return repr(queries), max_abs, tuple(sorted(dict(self.fixed).items()))

    def programs_by_key(self) -> dict[tuple, ParametricProgram]:
        """The programs this problem compiled (not moved), by :meth:`program_key` (compiling first).

        Returns
        -------
        dict
            The problem's own dict: a resampler reads each program once and drops it.
        """
        return self.compile()._built

    def _compile_programs(self) -> None:
        #: the programs this problem compiled, by :meth:`program_key` (a Resampler's rebinders start from them)
        self._built: dict[tuple, ParametricProgram] = {}
        options, build = self.compile_options, self._build
        self._pair_programs: dict[tuple[int, int, int], ParametricProgram] = {}
        rates: list[list[ParametricProgram]] = []
        try:
            if self.metric.max_abs and self.metric.families and options.uses("rate_ranges"):
                rates = [[build(q) for q in family] for family in self.metric.families]
                terms = []  # the pairs are compiled when they can decide the upper bound
                joint: ParametricProgram | None = build(list(self.metric.queries), max_abs=True)
            elif self.metric.max_abs:
                terms = [build(q) for q in self.metric.queries]
                joint = build(list(self.metric.queries), max_abs=True)
            else:
                terms, joint = [build(self.metric.query)], None
        except UndefinedMetricError as exc:
            raise _labelled(exc, self.metric.label) from None
        # (term_programs last: it marks the problem compiled)
        self.rate_programs, self.joint_program, self.term_programs = rates, joint, terms

    def with_table(self, table: ObservedTable, *, fixed: Mapping[str, float] | None = None,
                   resampler: Resampler | None = None) -> BoundProblem:
        """The same bias and metric on another table over the same cells, compiled for it.

        The bias, the metric and their checks are resolved once, only the programs are compiled
        again (a confidence region, :meth:`ObservedTable.with_region`, is bounded this way). For
        many tables over the same cells (a bootstrap, posterior draws) hold a
        :class:`~fairprobe.core.rebind.Resampler`: it moves the compiled programs instead, where
        that is exact (:meth:`Resampler.at <fairprobe.core.rebind.Resampler.at>`).

        Parameters
        ----------
        table : ObservedTable
            Same nodes, conditioning event and cells as :attr:`table` (new probabilities).
        fixed : mapping of str to float, optional
            Sensitivity values compiled in as constants (one compilation per program instead of
            one per swept parameter; default: this problem's).
        resampler : Resampler, optional
            Moves the programs from its first table (this problem's) where exact, and keeps the
            checked rebinders for the next tables; None compiles every program.

        Returns
        -------
        BoundProblem

        Raises
        ------
        DataError
            ``table`` is not an :class:`ObservedTable` (a DataFrame, None), or has other nodes,
            another conditioning event or other cells.

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table())
        >>> p = problem.table.cells["prob"].to_numpy()
        >>> other = problem.table.with_probabilities((p + 0.1) / (p + 0.1).sum())
        >>> round(problem.solve({"D": 0.05}).upper, 4), round(problem.with_table(other).solve({"D": 0.05}).upper, 4)
        (0.3433, 0.4422)
        >>> round(BoundProblem("proxy_label", "fpr", other).solve({"D": 0.05}).upper, 4)  # compiled from scratch
        0.4422
        """
        self.check_same_cells(table, "with_table")
        new = copy.copy(self)
        for name in ("term_programs", "rate_programs", "joint_program", "_built", "_pair_programs"):
            new.__dict__.pop(name, None)
        new.table = table
        new.fixed = dict(self.fixed if fixed is None else fixed)
        new.resampler = resampler
        return new.compile()

    def check_same_cells(self, table: ObservedTable, who: str) -> None:
        """Raise unless ``table`` is an :class:`ObservedTable` over this problem's cells.

        Parameters
        ----------
        table : ObservedTable
            The table to check.
        who : str
            The caller's name, for the message.

        Raises
        ------
        DataError
            ``table`` is not an :class:`ObservedTable`, or is over other cells (:meth:`same_cells`).
        """
        if not isinstance(table, ObservedTable):
            raise DataError(f"{who} takes an ObservedTable, not {type(table).__name__}; build one with "
                            "ObservedTable.from_frame (one row per unit) or ObservedTable.from_counts (cell counts), "
                            "or table.with_probabilities(...) from the problem's table.")
        if not self.same_cells(table):
            raise DataError(f"{who} needs a table over the same cells (nodes, conditioning event and rows) as the "
                            "problem's; build it with table.with_probabilities(...) or compile a new BoundProblem.")

    def same_cells(self, table: ObservedTable) -> bool:
        """Whether ``table`` is over this problem's cells (nodes, conditioning event, labels and rows).

        Parameters
        ----------
        table : ObservedTable

        Returns
        -------
        bool
            True when :meth:`with_table` accepts ``table``.
        """
        mine, theirs = self.table.column_arrays(), table.column_arrays()
        # (the labels too: the metric's groups and its label were resolved through them)
        return (table.nodes == self.table.nodes and table.given == self.table.given
                and table.categories == self.table.categories
                and len(table.cells) == len(self.table.cells)
                and all(theirs[v] is mine[v] or np.array_equal(theirs[v], mine[v]) for v in self.table.nodes))

    def _absorb_noise_nodes(self) -> list[str]:
        """Declare latent the unmeasured nodes that only feed one other node (exact; see
        :func:`~fairprobe.core.identify.absorbable_nodes`), and return them."""
        from fairprobe.core.query import parse_expression

        read = {v for c in self.config.parsed_constraints for v in c.variables}
        read |= {v for q in self.metric.queries for v in parse_expression(q).variables}
        absorbed = absorbable_nodes(self.config, self.table.nodes, read)
        if absorbed:
            self.config = dataclasses.replace(self.config, unob=[*self.config.unob, *absorbed])
        return absorbed

    def parameter_values(self, D: Any = None, **parameters: float) -> dict[str, float]:
        """Validated sensitivity values for this problem.

        Parameters
        ----------
        D : float, dict or None
            The value of the single free parameter, or values by name.
        **parameters : float
            Values by keyword.

        Returns
        -------
        dict of str to float
            Values by parameter name (see :func:`resolve_parameters`).

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table())
        >>> problem.parameter_values(0.05), problem.parameter_values(D=0.1)
        ({'D': 0.05}, {'D': 0.1})
        """
        return resolve_parameters(self.config, D, parameters)

    def points(self, D: Any, *, parameter: str | None = None,
               fixed: Mapping[str, float] | None = None) -> tuple[list[str], list[dict[str, float]]]:
        """The grid of a sweep: which parameters move and the sensitivity values of every point.

        Parameters
        ----------
        D : list of float or dict of str to list of float
            Values of the swept parameter, or ``{"D_a": [...], "D_b": [...]}`` for a 2-D grid.
        parameter : str, optional
            The parameter a list ``D`` sweeps when the bias has several.
        fixed : mapping, optional
            Values of the parameters not swept (default: the problem's ``fixed``).

        Returns
        -------
        swept : list of str
            The swept parameters, in grid order.
        points : list of dict
            Every point's values by name (checked before any solve).

        Raises
        ------
        ConfigError
            A parameter that is unknown, neither swept nor fixed, or ambiguous, or an empty list.

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> BoundProblem("proxy_label", "fpr", load_paper_table()).points([0.0, 0.1])
        (['D'], [{'D': 0.0}, {'D': 0.1}])
        """
        return sweep_points(self, D, parameter, self.fixed if fixed is None else fixed)

    @property
    def zero_point(self) -> dict[str, float]:
        """Every sensitivity parameter at 0: the data with no bias.

        Returns
        -------
        dict of str to float

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> BoundProblem("proxy_label", "fpr", load_paper_table()).zero_point
        {'D': 0.0}
        """
        return {p: 0.0 for p in self.config.parameters}

    def solve_point(self, params: Mapping[str, float], **solve_kwargs: Any) -> PointOutcome:
        """One grid point of a sweep: its bounds, or the reason it has none (infeasible, undefined).

        Only what a grid point may legitimately be is caught, by type: the data contradicting the
        bias at this value (:class:`~fairprobe.exceptions.InfeasibleError`) and a metric undefined
        there (:class:`~fairprobe.exceptions.UndefinedMetricError`). Anything else (a bad solver
        option, a missing backend) is the caller's error and is raised, as :func:`bound` raises it.

        Parameters
        ----------
        params : mapping of str to float
            The point's sensitivity values.
        **solve_kwargs : Any
            Options of :meth:`solve` (``backend``, ``time_limit``, ``gap``, ``solver_options``).

        Returns
        -------
        PointOutcome

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> out = BoundProblem("proxy_label", "fpr", load_paper_table()).solve_point({"D": 0.05})
        >>> out.status, round(out.result.upper, 4)
        ('optimal', 0.3433)
        """
        kwargs = {**solve_kwargs, "n_jobs": 1, "progress": False}  # a sweep's workers are its points; its bar
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # limits are reported per point instead
            try:
                res = self.solve(params, **kwargs)
            except InfeasibleError as exc:
                return PointOutcome(dict(params), None, str(exc), "infeasible")
            except UndefinedMetricError as exc:
                return PointOutcome(dict(params), None, str(exc), "undefined")
        return PointOutcome(dict(params), res, None, res.status)

    def observed(self, outcomes: Any = (), **solve_kwargs: Any) -> ObservedValue:
        """The metric with no bias: certified bounds at :attr:`zero_point`, or why there are none.

        Parameters
        ----------
        outcomes : sequence of PointOutcome, optional
            Points already solved; the all-zero one is reused when present.
        **solve_kwargs : Any
            Options of :meth:`solve` (``backend``, ``time_limit``, ...).

        Returns
        -------
        ObservedValue
            Its ``error`` is set when the metric is undefined (or the data infeasible) without bias.

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> round(BoundProblem("proxy_label", "fpr", load_paper_table()).observed().point, 6)
        0.230869
        """
        zero = self.zero_point
        out = next((o for o in outcomes if all(o.params.get(p, 0.0) == 0.0 for p in zero)), None)
        if out is None:
            out = self.solve_point(zero, **solve_kwargs)
        if out.result is None:
            return ObservedValue(None, None, out.error)
        return ObservedValue(out.result.lower, out.result.upper)

    def solve(self, params: Mapping[str, float], *, backend: str = "scip",
              time_limit: float | None = DEFAULT_TIME_LIMIT, gap: float = DEFAULT_GAP, n_jobs: int = 1,
              solver_options: Mapping[str, Any] | None = None, progress: bool = True,
              lp_fast_path: bool = True) -> BoundResult:
        """Certified bounds at the sensitivity values ``params``.

        Parameters
        ----------
        params : mapping of str to float
            Sensitivity values by name.
        backend : str, optional
            Backend name (default "scip").
        time_limit : float or None, optional
            Seconds for the whole call, shared by all its solves (default
            :data:`~fairprobe.core.budget.DEFAULT_TIME_LIMIT`); None for no limit.
        gap : float, optional
            Target optimality gap per side.
        n_jobs : int, optional
            ``2`` solves the two sides of polynomial problems in two processes.
        solver_options : mapping, optional
            Backend-specific parameters.
        progress : bool, optional
            Status lines past a few seconds where progress is shown (False: none, as in sweeps,
            whose progress bar says it).
        lp_fast_path : bool, optional
            Solve the linear programs of the bound with HiGHS, verified
            (:mod:`fairprobe.core.routing`; default True). False sends every program to ``backend``
            (the engine before the fast path, kept for benchmarks and cross-checks).

        Returns
        -------
        BoundResult

        Raises
        ------
        InfeasibleError
            The data contradict the assumptions at ``params``.
        UndefinedMetricError
            The metric is undefined in every model the bias admits at ``params``.

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table())
        >>> res = problem.solve({"D": 0.05})
        >>> round(res.lower, 6), round(res.upper, 6)
        (0.07206, 0.343264)
        """
        start = time.perf_counter()
        params = self.parameter_values(dict(params))
        # one deadline for every solve of the call; its LPs on HiGHS with verified bounds (core.routing)
        # solver options name one solver's parameters: that backend then takes every program
        be = TimeBudget(Router(backend, exact=lp_fast_path and not solver_options), time_limit, routed=True)
        options = SolveOptions(rel_gap=gap, abs_gap=gap, solver_options=dict(solver_options or {}))
        with reporting_progress(f"bounding {self.metric.label}", be, disable=not progress):
            result = self._solve(params, be, options, start, n_jobs)
        if be.stopped_early:
            result.notes.append(f"the time limit of {time_limit:g} s for the whole call was reached; the bounds are "
                                "certified but may be wider than the sharp interval (raise time_limit, or "
                                "time_limit=None for no limit)")
        result.time_limit = time_limit
        routed = be.router
        if routed is not None and routed.lp_solves:
            exact = sorted({k.split(" (")[0] for k in routed.answered if " (" in k})
            others = f"; {routed.main_solves} by {backend}" if routed.main_solves else ""
            result.notes.append(f"{routed.lp_solves} linear program(s) solved by {', '.join(exact)} with verified "
                                f"(outward-rounded) bounds{others}")
        result.details["answered_by"] = {"min": route_label(result.min_result), "max": route_label(result.max_result)}
        violations = [r.extra.get("achieved_violation", r.extra.get("max_violation"))
                      for r in (result.min_result, result.max_result)
                      if r is not None and r.extra.get("achieved_violation", r.extra.get("max_violation")) is not None]
        if violations:  # how far the achieved models are from satisfying every row exactly
            result.details["max_violation"] = max(violations)
        result.metric_kind = self.metric.kind
        if all(v == 0.0 for v in params.values()):
            result.set_observed(ObservedValue(result.lower, result.upper))  # this is the no-bias point
        if self.absorbed:
            result.notes.append(f"unmeasured {self.absorbed} only feed one node each: treated as its exogenous noise "
                                "(latent; exact, the set of models over the other nodes is the same)")
        low, high = self.natural_range
        clipped = result.lower < low or result.upper > high
        if clipped:
            # a solve cut short can return a dual bound past what the metric can take at all
            # (below -1 for a difference of rates, or infinite); the metric's own range is as certified
            if max(low - result.lower, result.upper - high) > ACHIEVED_SLACK:  # not just outward rounding
                result.notes.append(f"bounds clipped to the metric's own range [{low:g}, {high:g}] (a solver stopped "
                                    "before its dual bound reached it)")
            result.lower, result.upper = max(result.lower, low), min(result.upper, high)
        # a model's value lies in the metric's own range exactly; a rate computed as 1 + 2e-9 (rows held
        # to 1e-9 over a small group's denominator) is that range's end, not a value beyond it
        ach = [_snapped(a, low, high, RANGE_SLACK) for a in (result.lower_achieved, result.upper_achieved)]
        if clipped or ach != [result.lower_achieved, result.upper_achieved]:
            result.lower_achieved = _inside(ach[0], result.lower, result.upper)
            result.upper_achieved = _inside(ach[1], result.lower, result.upper)
            result.gap = _gap(result.lower, result.upper, result.lower_achieved, result.upper_achieved)
        return result

    @functools.cached_property
    def natural_range(self) -> tuple[float, float]:
        """The values the metric can take in any model at all: interval arithmetic with every
        probability in [0, 1] (``[-1, 1]`` for a difference of two rates).

        Returns
        -------
        (float, float)
            A certified (possibly loose) range; ``(-inf, inf)`` when it cannot be computed.

        Examples
        --------
        >>> from fairprobe.datasets import load_paper_table
        >>> BoundProblem("proxy_label", "fpr_parity", load_paper_table()).natural_range
        (-1.0, 1.0)
        >>> BoundProblem("proxy_label", "equalized_odds", load_paper_table()).natural_range
        (0.0, 1.0)
        """
        two_valued = frozenset(n for n in self.config.dag.nodes if self.config.cardinality(n) == 2)
        return _natural_range(tuple(self.metric.queries), bool(self.metric.max_abs), two_valued)

    def _solve(self, params: dict[str, float], be: TimeBudget, options: SolveOptions, start: float,
               n_jobs: int) -> BoundResult:
        label = self.metric.label
        try:
            compiled = [pp.at(params) for pp in self.term_programs]
        except UndefinedMetricError as exc:
            raise _labelled(exc, label) from None
        checked: dict[str, bool] = {}
        minima: list[dict] = []
        if self.rate_programs:
            return self._solve_families(params, be, options, checked, start)
        for c in compiled:
            minima.append({})
            _check_defined(c, be, options, label, self.config, self.table, params, checked, minima[-1])
        excluded = [labelled_event(event, self.config, self.table) for event, partial in checked.items() if partial]
        sides = [_solve_compiled(c, be, options, label, n_jobs=n_jobs, minima=m)
                 for c, m in zip(compiled, minima, strict=True)]
        notes = list(compiled[0].notes) + sides[0].notes
        notes += _excluded_notes(excluded)
        if self.joint_program is None:
            side, main = sides[0], compiled[0]
            results = [side.lo, side.hi]
            lower, upper = side.lower, side.upper
            low_ach, up_ach = side.lower_achieved, side.upper_achieved
            lo_res, hi_res, details = side.lo, side.hi, {}
        else:
            main = self.joint_program.at(params)
            lower, upper, low_ach, up_ach, lo_res, hi_res, details = self._max_abs(main, sides, be, options)
            results = [r for s in sides for r in (s.lo, s.hi)] + [lo_res]
            notes.append("lower bound: one joint program min t s.t. t >= |term_i| (sharp); upper bound: "
                         "max over terms of the separate certified bounds of |term_i| (sharp)")
        low_ach, up_ach = _inside(low_ach, lower, upper), _inside(up_ach, lower, upper)
        width_gap = _gap(lower, upper, low_ach, up_ach)
        status = _final_status(results, options.rel_gap, width_gap, notes)
        return BoundResult(
            lower=lower, upper=upper, lower_achieved=low_ach, upper_achieved=up_ach, status=status,
            gap=width_gap, min_result=lo_res, max_result=hi_res, kind=main.kind,
            stats_before=main.stats_before, stats_after=main.stats_after, metric=label,
            parameters=params, backend=be.name, wall_time=time.perf_counter() - start, notes=notes,
            details=details, excluded_events=excluded, nonnegative=bool(self.metric.max_abs),
            few_units=_few_units(compiled, self.config, self.table),
        )

    def _pair_program(self, f: int, i: int, j: int) -> ParametricProgram:
        """``rate_i - rate_j`` of family ``f`` (``i < j``), compiled on first use."""
        key = (f, i, j)
        if key not in self._pair_programs:
            family = self.metric.families[f]
            self._pair_programs[key] = self._build(f"{family[i]} - ({family[j]})")
        return self._pair_programs[key]

    def _compiled_pair(self, key: tuple[int, int, int], params: dict[str, float], be: Any, options: SolveOptions,
                       checked: dict[str, bool]) -> CompiledProgram:
        """The pair ``key`` compiled on its own at ``params``, its conditioning events checked."""
        try:
            compiled = self._pair_program(*key).at(params)
        except UndefinedMetricError as exc:
            raise _labelled(exc, self.metric.label) from None
        _check_defined(compiled, be, options, self.metric.label, self.config, self.table, params, checked)
        return compiled

    def _solve_families(self, params: dict[str, float], be: Any, options: SolveOptions, checked: dict[str, bool],
                        start: float) -> BoundResult:
        """A max of family ranges, ``max_f (max_a q_a - min_b q_b)``, bounded sharply with few solves.

        Upper: ``max`` over ordered pairs of ``sup (q_a - q_b)``. The rates' own ranges give every
        pair the cheap upper bound ``sup q_a - inf q_b``; the pairs are solved in decreasing order of
        it until the next one cannot beat a value already attained, and every unsolved pair enters
        the certified upper bound with its cheap bound (so skipping one never cuts anything off).
        Lower: one joint program with each family's rates in a window of width ``t``.
        """
        label = self.metric.label
        try:
            rates = [[pp.at(params) for pp in family] for family in self.rate_programs]
            joint = self.joint_program.at(params)
        except UndefinedMetricError as exc:
            raise _labelled(exc, label) from None
        floors: dict[str, float] = {}  # verified least P(F) by event, for the pairs' parity searches
        for family in rates:
            for c in family:
                _check_defined(c, be, options, label, self.config, self.table, params, checked, event_minima=floors)
        ranges = [[_solve_compiled(c, be, options, label) for c in family] for family in rates]
        results = [r for family in ranges for side in family for r in (side.lo, side.hi)]
        candidates = sorted(((family[i].upper - family[j].lower, f, i, j)
                             for f, family in enumerate(ranges)
                             for i in range(len(family)) for j in range(len(family)) if i != j), reverse=True)
        prepared: dict[tuple[int, int, int], tuple[CompiledProgram, tuple]] = {}
        read_off: set[tuple[int, int, int]] = set()  # pairs read off the joint program (for the exact search)
        solved: list[tuple[float, float | None, SolveResult]] = []
        solved_pairs: dict[tuple[int, int, int], float] = {}
        best_achieved = -math.inf
        k = 0
        while k < len(candidates) and candidates[k][0] > best_achieved:
            _, f, i, j = candidates[k]
            key, sense = ((f, i, j), "max") if i < j else ((f, j, i), "min")
            if key not in prepared:
                # on the fast path the exact search takes the pair read off the joint program (compiled
                # with every rate); a global solver gets the pair compiled on its own (merged for it)
                family = self.metric.families[key[0]]
                searching = _fast_path(be, joint.program)
                compiled = _read_off_pair(joint, family[key[1]], family[key[2]]) if searching else None
                if compiled is None:
                    compiled = self._compiled_pair(key, params, be, options, checked)
                else:  # (its events are the rates', checked above: this finds them checked)
                    _check_defined(compiled, be, options, label, self.config, self.table, params, checked)
                    read_off.add(key)
                prepared[key] = (compiled, None)  # prepared for the global solver only if the search declines
            compiled, ready = prepared[key]
            searchable = _parity_searchable(compiled, be)
            side = _parity_side(compiled, be, options, label, sense, floors) if searchable else None
            if side is None:  # not a parity of two rates, or the search declined it: the global solver's way
                if ready is None:
                    if key in read_off:
                        compiled = self._compiled_pair(key, params, be, options, checked)
                    prepared[key] = (compiled, _prepared(compiled, be, options))
                side = _solve_sense(*prepared[key], be, options, label, sense, global_only=searchable)
            bound_, achieved, res = side
            if sense == "min":  # sup (q_j - q_i) = -inf (q_i - q_j)
                bound_, achieved = -bound_, None if achieved is None else -achieved
            solved.append((bound_, achieved, res))
            solved_pairs[(f, i, j)] = bound_
            results.append(res)
            if achieved is not None:
                best_achieved = max(best_achieved, achieved)
            k += 1
        upper = max([b for b, _, _ in solved] + [c[0] for c in candidates[k:]] + [0.0])
        up_ach = best_achieved if math.isfinite(best_achieved) else None
        hi_res = max(solved, key=lambda t: t[0])[2] if solved else ranges[0][0].hi
        separate = max(max(0.0, max(s.lower for s in family) - min(s.upper for s in family)) for family in ranges)
        program = _bound_windows(tighten_ratio_bounds(joint, be, options), ranges, separate, upper)
        joint_red = _reduction(program, be, options)
        joint_options = _joint_options(options)
        lo_res = _solve_reduced(program, be, joint_options, "min", joint_red)
        _check_results([lo_res], label, joint, None, be, joint_options)
        low_ach = _joint_achieved(joint, lo_res)
        results.append(lo_res)
        lower = max(lo_res.objective_bound, separate)
        excluded = [labelled_event(event, self.config, self.table) for event, partial in checked.items() if partial]
        notes = list(joint.notes)
        notes.append(f"upper bound: {len(solved)} of {len(candidates)} ordered pairs solved; the others cannot "
                     "exceed a value already attained (bounded by the rates' own ranges)")
        dropped = [ready[1].dropped for _, ready in prepared.values() if ready is not None and ready[1] is not None]
        if joint_red is not None or dropped:
            notes.append(_REDUCTION_NOTE.format(max([*dropped, joint_red.dropped if joint_red else 0])))
        notes += _excluded_notes(excluded)
        # each ordered pair's sup (q_a - q_b): solved, or the rates' cheap bound where it could not matter
        pair_upper = {(f, i, j): cheap for cheap, f, i, j in candidates}
        pair_upper.update(solved_pairs)
        details = {
            "rates": [{"query": q, "lower": side.lower, "upper": side.upper}
                      for qs, family in zip(self.metric.families, ranges, strict=True)
                      for q, side in zip(qs, family, strict=True)],
            "pairs_solved": len(solved), "pairs_total": len(candidates),
            "separate_lower": separate, "joint_lower": lo_res.objective_bound,
            "pieces": {
                "lower": [family[i].lower - family[j].upper for family in ranges
                          for i in range(len(family)) for j in range(len(family)) if i != j],
                "upper": [pair_upper[key] for key in sorted(pair_upper)],
                "joint": lo_res.objective_bound, "floor": 0.0},
        }
        low_ach, up_ach = _inside(low_ach, lower, upper), _inside(up_ach, lower, upper)
        width_gap = _gap(lower, upper, low_ach, up_ach)
        return BoundResult(
            lower=lower, upper=upper, lower_achieved=low_ach, upper_achieved=up_ach,
            status=_final_status(results, options.rel_gap, width_gap, notes),
            gap=width_gap, min_result=lo_res, max_result=hi_res, kind=joint.kind,
            stats_before=joint.stats_before, stats_after=joint.stats_after, metric=label, parameters=params,
            backend=be.name, wall_time=time.perf_counter() - start, notes=notes, details=details,
            excluded_events=excluded, nonnegative=True,
            few_units=_few_units([c for family in rates for c in family], self.config, self.table),
        )

    def _max_abs(self, joint: CompiledProgram, sides: list[_Side], be: Any, options: SolveOptions) -> tuple:
        # Upper: sup max_i |q_i| = max_i max(-inf q_i, sup q_i), exact from the separate bounds.
        upper = max(max(-s.lower, s.upper) for s in sides)
        best = max(range(len(sides)), key=lambda i: max(-sides[i].lower, sides[i].upper))
        ach = [abs(a) for s in sides for a in (s.lower_achieved, s.upper_achieved) if a is not None]
        up_ach = max(ach) if ach else None
        # Lower: separate runs only give max_i dist(0, [lo_i, hi_i]); the joint program is sharp.
        separate = max(max(0.0, s.lower, -s.upper) for s in sides)
        program = tighten_ratio_bounds(joint, be, options)
        red = _reduction(program, be, options)
        joint_options = _joint_options(options)
        lo = _solve_reduced(program, be, joint_options, "min", red)
        _check_results([lo], self.metric.label, joint, None, be, joint_options)
        low_ach = _joint_achieved(joint, lo)
        lower = max(lo.objective_bound, separate)
        details = {
            "terms": [{"query": q, "lower": s.lower, "upper": s.upper} for q, s in zip(self.metric.queries, sides,
                                                                                       strict=True)],
            "separate_lower": separate, "joint_lower": lo.objective_bound,
            # the smooth components whose maximum is each end (the sampling interval's band is over these)
            "pieces": {"lower": [v for s in sides for v in (s.lower, -s.upper)],
                       "upper": [v for s in sides for v in (-s.lower, s.upper)],
                       "joint": lo.objective_bound, "floor": 0.0},
        }
        return lower, upper, low_ach, up_ach, lo, sides[best].hi, details


def sweep_points(problem: BoundProblem, D: Any, parameter: str | None,
                 fixed: Mapping[str, float]) -> tuple[list[str], list[dict[str, float]]]:
    """The grid of a sweep of ``problem`` (what :meth:`BoundProblem.points` returns).

    Parameters
    ----------
    problem : BoundProblem
    D : list of float or dict of str to list of float
        The swept values.
    parameter : str or None
        The parameter a list ``D`` sweeps.
    fixed : mapping of str to float
        Values of the parameters not swept.

    Returns
    -------
    (list of str, list of dict)
        The swept parameters and every point's values.

    Examples
    --------
    >>> from fairprobe.datasets import load_paper_table
    >>> sweep_points(BoundProblem("proxy_label", "fpr", load_paper_table()), {"D": [0.0, 0.1]}, None, {})[1]
    [{'D': 0.0}, {'D': 0.1}]
    """
    fixed = dict(fixed)
    D = sweep_grid(D)
    names = problem.config.parameters
    if isinstance(D, Mapping):
        axes = {str(k): [float(v) for v in vals] for k, vals in D.items()}
    else:
        if D is None or isinstance(D, (int, float)):
            raise ConfigError("Give D as a list of sensitivity values, e.g. D=np.linspace(0, 0.1, 21).")
        free = [p for p in names if p not in fixed]
        if parameter is None:
            if len(free) != 1:
                first, *rest = names
                raise ConfigError(
                    f"The bias has parameters {names}; say which to sweep (parameter={first!r}) and fix the "
                    "others by keyword, or pass D as a dict of value lists for a 2-D sweep (command line: "
                    f"--parameter {first} {' '.join('--param ' + p + '=0.05' for p in rest)}).")
            parameter = free[0]
        axes = {parameter: [float(v) for v in D]}
    unknown = [p for p in axes if p not in names]
    if unknown:
        raise ConfigError(f"Unknown sensitivity parameter(s) {unknown}; this bias has {names}.")
    for p, vals in axes.items():
        if not vals:
            raise ConfigError(f"The list of values for {p} is empty; give at least one sensitivity value.")
    missing = [p for p in names if p not in axes and p not in fixed and p in problem.parameters]
    if missing:
        raise ConfigError(f"Give fixed values for {missing} (e.g. {missing[0]}=0.02) or sweep them too.")
    swept = list(axes)
    grid = [{**fixed, **dict(zip(swept, combo, strict=True))} for combo in itertools.product(*axes.values())]
    for pt in grid:
        problem.parameter_values(pt)  # validate every value before any solve
    return swept, grid


def bound(
    bias: Any,
    metric: Any,
    data: Any,
    D: float | Mapping[str, float] | None = None,
    *,
    options: RunOptions | None = None,
    backend: str = "scip",
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    gap: float = DEFAULT_GAP,
    reduce: bool = True,
    n_jobs: int = 1,
    solver_options: Mapping[str, Any] | None = None,
    unmeasured: Any = None,
    progress: bool = True,
    compile_options: CompileOptions | None = None,
    fixed: Mapping[str, float] | None = None,
    ci: float | bool | None = None,
    ci_method: str = "bootstrap",
    resamples: int = 1000,
    seed: int = 0,
    stratify: str | None = None,
    **parameters: float,
) -> BoundResult:
    """Certified bounds on ``metric`` under ``bias`` given ``data`` at sensitivity ``D``.

    Parameters
    ----------
    bias : str, BiasConfig, dict or path
        Registered bias name, config object, config dict, or JSON file.
    metric : str or Metric
        Registered metric name, configured metric, or a query string in the constraint grammar
        such as ``"P(P = 1 | Y = 0 & A = 0)"``.
    data : ObservedTable or pandas.DataFrame
        The observed table, a frame of cell probabilities (``prob`` column) or a frame of rows.
    D : float or dict
        The sensitivity parameter (a dict for named parameters).
    options : RunOptions, optional
        How the bound is solved, in one object (:func:`~fairprobe.core.options.run_options`); the
        keywords ``backend`` to ``compile_options`` below are a shortcut for it, so with ``options``
        leave them at their defaults.
    backend : str
        Backend name ("scip", "highs", "gurobi", "ortools", "cvxpy", "auto").
    time_limit : float or None, optional
        Seconds for the whole call, shared by all its solves (default 60, see
        :data:`~fairprobe.core.budget.DEFAULT_TIME_LIMIT`; ``None``: no limit). A call that reaches
        it still returns certified bounds, possibly wider than the sharp ones (status ``"limit"``),
        and prints a status line every few seconds where progress is shown.
    gap : float
        Target optimality gap per side.
    reduce : bool
        Apply the exact program reductions (default); ``False`` solves the naive
        response-function program, for benchmarks.
    n_jobs : int
        ``2`` solves the lower- and upper-bound programs of polynomial problems in two worker
        processes (worth it when one solve takes more than a few tenths of a second).
    solver_options : dict, optional
        Backend-specific parameters, e.g. ``{"numerics/feastol": 1e-8}`` for SCIP: a tighter
        feasibility tolerance moves the bounds of polynomial programs closer to the sharp values
        (they are certified either way, up to the tolerance).
    unmeasured : list of str, optional
        DAG nodes that have no column in the table, on purpose (e.g. ``["Z"]`` for a true outcome
        never recorded). Every other node of the DAG that is not latent (``unob``) or conditioned
        on must be a column: a forgotten column is an error, not an unmeasured variable. The
        config's ``observed_nodes`` declares the same thing from the other side (the built-in
        biases list their measured nodes there).
    progress : bool
        Status lines past a few seconds (where progress is shown).
    compile_options : CompileOptions, optional
        Every compile switch (see :class:`~fairprobe.core.options.CompileOptions`).
    fixed : dict, optional
        Values of the other sensitivity parameters of a combined bias (the same as keywords).
    ci : float or bool, optional
        A sampling interval at this coverage level (``True``: 0.95) in
        :attr:`~BoundResult.interval`: it covers the metric's true value when the bias is at most
        ``D``, accounting for the units the table was estimated from (needs counts).
    ci_method : {"bootstrap", "projection", "bayes"}
        How (:mod:`fairprobe.core.uncertainty`): resampled units with Imbens-Manski/Stoye
        (default), a finite-sample confidence region, or Dirichlet posterior draws.
    resamples : int
        Resamples or posterior draws (default 1,000); ``n_jobs`` workers solve them.
    seed : int
        Seed of the draws (the interval is the same for any number of workers).
    stratify : str, optional
        A node whose counts the design fixes (e.g. ``"A"``): units are resampled within its levels.
    **parameters : float
        Sensitivity values by name, e.g. ``D_selection=0.05``.

    Returns
    -------
    BoundResult
        Its :attr:`~BoundResult.observed` value (the same metric with no bias) is computed on first
        use, e.g. by :meth:`~BoundResult.conclusion` or :meth:`~BoundResult.summary`.

    Raises
    ------
    InfeasibleError
        The data contradict the assumptions at this ``D``.
    UndefinedMetricError
        A conditioning event of the metric (e.g. ``Y = 1 & A = 1`` for FNR of group 1) has
        probability 0 in every model the bias admits at this ``D``.
    DataError
        The table lacks a node of the bias that is not declared unmeasured, or ``ci`` is asked of
        a table without a sample size.

    Examples
    --------
    >>> import pandas as pd, fairprobe as fp
    >>> cfg = {"dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"],
    ...        "cond_nodes": ["S"], "attribute_node": "A", "outcome_node": "Y",
    ...        "prediction_node": "P", "constraints": ["P(S = 1) >= 1 - D"]}
    >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2,
    ...                       "P": [0, 1] * 4, "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
    >>> table = fp.ObservedTable.from_probabilities(cells, given={"S": 1})
    >>> res = fp.bound(cfg, "P(P = 1 | Y = 0 & A = 0)", table, D=0.0)
    >>> round(res.lower, 6), round(res.upper, 6)
    (0.2, 0.2)
    >>> counted = fp.ObservedTable.from_probabilities(cells, given={"S": 1}, n=400)
    >>> res = fp.bound(cfg, "P(P = 1 | Y = 0 & A = 0)", counted, D=0.0, ci=0.95, resamples=200, progress=False)
    >>> res.interval.lower < 0.2 < res.interval.upper
    True
    """
    from fairprobe.core.uncertainty import interval_options, require_counts, sampling_interval

    interval = interval_options(ci, ci_method=ci_method, resamples=resamples, seed=seed, stratify=stratify)
    opts = run_options(backend=backend, time_limit=time_limit, gap=gap, solver_options=solver_options, n_jobs=n_jobs,
                       progress=progress, reduce=reduce, compile_options=compile_options, options=options)
    parameters = merge_fixed(fixed, parameters)
    sensitivity_values(D, parameters)
    config = resolve_bias(bias)  # resolved once (a JSON file is read once); BoundProblem declares unmeasured
    try:
        at = resolve_parameters(config, D, parameters)  # the parameters do not depend on the declaration
    except ConfigError:
        at = None  # reported below, after the data and the metric are checked, as before
    # One value of D: compile each program once at it (a sweep compiles twice and moves the rows).
    problem = BoundProblem(config, metric, data, unmeasured=unmeasured, fixed=at, compile_options=opts.compile)
    params = problem.parameter_values(D, **parameters)
    if interval is not None:
        require_counts(problem.table, interval)  # before any solve: the interval cannot be had without counts
    result = problem.solve(params, progress=opts.progress, **opts.solve_kwargs())
    if interval is not None:
        result.interval = sampling_interval(problem, params, result, interval, n_jobs=opts.n_jobs,
                                            progress=opts.progress, solve_kwargs=opts.point_kwargs())
    if result.observed is None:
        result.set_observed(functools.partial(_observed_of, config, metric, data, unmeasured, opts))
    return result


def _observed_of(config: BiasConfig, metric: Any, data: Any, unmeasured: Any, opts: RunOptions) -> ObservedValue:
    """The metric with no bias for :func:`bound` (compiled at 0, solved with the same options)."""
    zero = {p: 0.0 for p in config.parameters}
    problem = BoundProblem(config, metric, data, unmeasured=unmeasured, fixed=zero, compile_options=opts.compile)
    return problem.observed(**opts.point_kwargs())

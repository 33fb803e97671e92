"""Bounds of a maximum of absolute terms: ``max_i |q_i|`` and the family ranges ``max_f (max_a q_a - min_b q_b)``.

The upper bound of a maximum is the largest of its pieces' certified upper bounds, solved one by
one (:func:`max_abs_bounds` from the terms' own bounds; :func:`solve_families` over the ordered pairs
of each family's rates, in decreasing order of their cheap bound, until no unsolved pair can beat a
value already attained). The lower bound is one joint program (``min t`` with every piece in
``[-t, t]``, or each family's rates in a window of width ``t``), which separate solves cannot give.
:class:`~fairprobe.core.engine.BoundProblem` calls these with its compiled programs.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from typing import Any, Protocol

from fairprobe.backends.base import SolveOptions, SolveResult
from fairprobe.core.compiled import CompiledProgram, rate_key
from fairprobe.core.config import BiasConfig
from fairprobe.core.decompose import BlockPlan
from fairprobe.core.inputs import MetricSpec, labelled_event
from fairprobe.core.parametric import ParametricProgram
from fairprobe.core.results import BoundResult
from fairprobe.core.solving import (
    REDUCTION_NOTE,
    Side,
    achieved_gap,
    bound_windows,
    check_defined,
    check_results,
    excluded_notes,
    few_units_by_event,
    final_status,
    inside_bounds,
    joint_achieved,
    joint_solve_options,
    labelled_error,
    on_fast_path,
    parity_searchable,
    parity_side,
    prepared_program,
    read_off_pair,
    reduction_of,
    solve_compiled,
    solve_reduced,
    solve_sense,
    tighten_ratio_bounds,
)
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import UndefinedMetricError

__all__ = ["FamilyProblem", "max_abs_bounds", "solve_families"]

#: An ordered pair of a family's rates: (family, i, j) for ``q_i - q_j``.
PairKey = tuple[int, int, int]
#: One solved side: certified bound, achieved value (None: no model verified), the solver's result.
SolvedSide = tuple[float, float | None, SolveResult]


class FamilyProblem(Protocol):
    """What the family solver reads of a problem (a :class:`~fairprobe.core.engine.BoundProblem`)."""

    metric: MetricSpec
    config: BiasConfig
    table: ObservedTable
    joint_program: ParametricProgram | None

    def compiled_rate(self, f: int, i: int, joint: CompiledProgram, params: dict[str, float],
                      reduce: Any = None, model: Any = None) -> CompiledProgram:
        """Rate ``i`` of family ``f`` at ``params``, read off ``joint`` where it can be."""

    def compiled_pair(self, key: PairKey, params: dict[str, float], be: Any, options: SolveOptions,
                      checked: dict[str, bool]) -> CompiledProgram:
        """The pair ``key`` compiled on its own at ``params``, its conditioning events checked."""


class _PairSides:
    """The ordered pairs' sides, each pair compiled (or read off the joint program) once for both senses."""

    def __init__(self, problem: FamilyProblem, joint: CompiledProgram, params: dict[str, float], be: Any,
                 options: SolveOptions, checked: dict[str, bool], floors: Mapping[str, float]) -> None:
        self.problem, self.joint, self.params, self.be, self.options = problem, joint, params, be, options
        self.checked, self.floors, self.label = checked, floors, problem.metric.label
        # a pair's program, and what a global solver takes of it (None until the exact search declines)
        self.prepared: dict[PairKey, tuple[CompiledProgram, tuple | None]] = {}
        self.read_off: set[PairKey] = set()  # pairs read off the joint program (for the exact search)

    def _compiled_pair(self, key: PairKey) -> CompiledProgram:
        return self.problem.compiled_pair(key, self.params, self.be, self.options, self.checked)

    def _first_program(self, key: PairKey) -> CompiledProgram:
        # on the fast path the exact search takes the pair read off the joint program (compiled with every
        # rate); a global solver gets the pair compiled on its own (merged for it)
        family = self.problem.metric.families[key[0]]
        searching = on_fast_path(self.be, self.joint.program)
        compiled = read_off_pair(self.joint, family[key[1]], family[key[2]]) if searching else None
        if compiled is None:
            return self._compiled_pair(key)
        # (its events are the rates', checked before: this finds them checked)
        check_defined(compiled, self.be, self.options, self.label, self.problem.config, self.problem.table,
                      self.params, self.checked)
        self.read_off.add(key)
        return compiled

    def side(self, f: int, i: int, j: int) -> SolvedSide:
        """``sup (q_i - q_j)`` of family ``f``: its certified bound, achieved value and result."""
        key, sense = ((f, i, j), "max") if i < j else ((f, j, i), "min")
        if key not in self.prepared:
            self.prepared[key] = (self._first_program(key), None)  # prepared for the global solver on demand
        compiled, ready = self.prepared[key]
        searchable = parity_searchable(compiled, self.be)
        side = parity_side(compiled, self.be, self.options, self.label, sense, self.floors) if searchable else None
        if side is None:  # not a parity of two rates, or the search declined it: the global solver's way
            if ready is None:
                if key in self.read_off:
                    compiled = self._compiled_pair(key)
                self.prepared[key] = (compiled, prepared_program(compiled, self.be, self.options))
            side = solve_sense(*self.prepared[key], self.be, self.options, self.label, sense, global_only=searchable)
        bound_, achieved, res = side
        if sense == "min":  # sup (q_j - q_i) = -inf (q_i - q_j)
            bound_, achieved = -bound_, None if achieved is None else -achieved
        return bound_, achieved, res

    def dropped(self) -> list[int]:
        """Variables left out by each reduced pair program."""
        return [ready[1].dropped for _, ready in self.prepared.values() if ready is not None and ready[1] is not None]


def _as_probability(side: Side, rate: str) -> Side:
    """A range of a rate that is one probability ``P(E | F)`` within [0, 1], where outward rounding can put a
    certified end a hair outside; any other rate (a plugin's sum of rates, say) as it is."""
    # (a cheap pair bound of 1 + 4e-16 would otherwise beat an attained 1 and send the search through every pair)
    if rate_key(rate) is None:
        return side
    return dataclasses.replace(side, lower=max(side.lower, 0.0), upper=min(side.upper, 1.0))


def _in_window_order(joint: CompiledProgram, families: Any, ranges: list[list[Side]]) -> list[list[Side]] | None:
    """The rates' ranges by the joint program's windows (matched by the rates' events), None where one is not
    found; the compiler numbers the windows in the order the terms name the rates, not the metric's."""
    if not joint.window_keys:
        return ranges  # no windows: nothing is narrowed
    position = {frozenset(rate_key(q) for q in family): f for f, family in enumerate(families)}
    found = [position.get(frozenset(tuple(key) for key in window)) for window in joint.window_keys]
    return None if None in found else [ranges[f] for f in found]


def _candidates(ranges: list[list[Side]]) -> list[tuple[float, int, int, int]]:
    """Every ordered pair's cheap upper bound ``sup q_i - inf q_j`` and key, largest first."""
    return sorted(((family[i].upper - family[j].lower, f, i, j)
                   for f, family in enumerate(ranges)
                   for i in range(len(family)) for j in range(len(family)) if i != j), reverse=True)


def _search_pairs(pairs: _PairSides, candidates: list[tuple[float, int, int, int]],
                  results: list[SolveResult]) -> tuple[list[SolvedSide], dict[PairKey, float], float]:
    """Solve the pairs in order until the next one's cheap bound cannot beat a value already attained.

    Returns the solved sides (a prefix of ``candidates``), their bounds by pair and the best achieved value;
    each solver result is appended to ``results``.
    """
    solved: list[SolvedSide] = []
    solved_pairs: dict[PairKey, float] = {}
    best_achieved = -math.inf
    while len(solved) < len(candidates) and candidates[len(solved)][0] > best_achieved:
        _, f, i, j = candidates[len(solved)]
        bound_, achieved, res = pairs.side(f, i, j)
        solved.append((bound_, achieved, res))
        solved_pairs[(f, i, j)] = bound_
        results.append(res)
        if achieved is not None:
            best_achieved = max(best_achieved, achieved)
    return solved, solved_pairs, best_achieved


def _joint_lower(joint: CompiledProgram, program: Any, be: Any, options: SolveOptions, label: str,
                 separate: float) -> tuple[float, float | None, SolveResult, Any]:
    """The joint program's certified minimum (at least ``separate``), its achieved value, result and reduction."""
    red = reduction_of(program, be, options)
    joint_options = joint_solve_options(options)
    lo = solve_reduced(program, be, joint_options, "min", red)
    check_results([lo], label, joint, None, be, joint_options)
    return max(lo.objective_bound, separate), joint_achieved(joint, lo), lo, red


def _family_details(families: list[list[str]], ranges: list[list[Side]], candidates: list[tuple[float, int, int, int]],
                    solved_pairs: dict[PairKey, float], separate: float, lo_res: SolveResult) -> dict[str, Any]:
    """The result's details: each rate's range, the pairs solved and the pieces of each end."""
    # each ordered pair's sup (q_a - q_b): solved, or the rates' cheap bound where it could not matter
    pair_upper = {(f, i, j): cheap for cheap, f, i, j in candidates}
    pair_upper.update(solved_pairs)
    return {
        "rates": [{"query": q, "lower": side.lower, "upper": side.upper}
                  for qs, family in zip(families, ranges, strict=True)
                  for q, side in zip(qs, family, strict=True)],
        "pairs_solved": len(solved_pairs), "pairs_total": len(candidates),
        "separate_lower": separate, "joint_lower": lo_res.objective_bound,
        "pieces": {
            "lower": [family[i].lower - family[j].upper for family in ranges
                      for i in range(len(family)) for j in range(len(family)) if i != j],
            "upper": [pair_upper[key] for key in sorted(pair_upper)],
            "joint": lo_res.objective_bound, "floor": 0.0},
    }


def _family_notes(joint: CompiledProgram, solved: int, total: int, dropped: list[int], joint_red: Any,
                  excluded: list[str]) -> list[str]:
    """The result's notes: the joint program's, the pairs solved, the blocks left out, the excluded events."""
    notes = list(joint.notes)
    notes.append(f"upper bound: {solved} of {total} ordered pairs solved; the others cannot "
                 "exceed a value already attained (bounded by the rates' own ranges)")
    if joint_red is not None or dropped:
        notes.append(REDUCTION_NOTE.format(max([*dropped, joint_red.dropped if joint_red else 0])))
    return notes + excluded_notes(excluded)


def solve_families(problem: FamilyProblem, params: dict[str, float], be: Any, options: SolveOptions,
                   checked: dict[str, bool], start: float) -> BoundResult:
    """A max of family ranges, ``max_f (max_a q_a - min_b q_b)``, bounded sharply with few solves.

    Upper: the ordered pairs' ``sup (q_a - q_b)``, solved in decreasing order of their cheap bound
    ``sup q_a - inf q_b`` until none can beat a value attained (the rest enter with their cheap bound).
    Lower: one joint program with each family's rates in a window of width ``t``.

    Parameters
    ----------
    problem : FamilyProblem
        The problem (its rate programs and joint program compiled).
    params : dict of str to float
        The sensitivity values.
    be : TimeBudget
        The call's backend (its deadline around the router).
    options : SolveOptions
        Solver options of every solve.
    checked : dict of str to bool
        Conditioning events checked so far (see :func:`~fairprobe.core.solving.check_defined`); filled in.
    start : float
        ``time.perf_counter()`` at the start of the call (for the wall time).

    Returns
    -------
    BoundResult
    """
    label = problem.metric.label
    try:
        joint = problem.joint_program.at(params)
        model = joint.window_model()
        # every rate reads its own group's block: each other block's least use of a shared budget solved once
        reduce = BlockPlan(model, be, options).reduce if model is not None else None
        rates = [[problem.compiled_rate(f, i, joint, params, reduce, model) for i in range(len(family))]
                 for f, family in enumerate(problem.metric.families)]
    except UndefinedMetricError as exc:
        raise labelled_error(exc, label) from None
    floors: dict[str, float] = {}  # verified least P(F) by event, for the pairs' parity searches
    for family in rates:
        for c in family:
            check_defined(c, be, options, label, problem.config, problem.table, params, checked, event_minima=floors)
    ranges = [[_as_probability(solve_compiled(c, be, options, label), q) for c, q in zip(family, queries, strict=True)]
              for family, queries in zip(rates, problem.metric.families, strict=True)]
    results = [r for family in ranges for side in family for r in (side.lo, side.hi)]
    candidates = _candidates(ranges)
    pairs = _PairSides(problem, joint, params, be, options, checked, floors)
    solved, solved_pairs, best_achieved = _search_pairs(pairs, candidates, results)
    upper = max([b for b, _, _ in solved] + [c[0] for c in candidates[len(solved):]] + [0.0])
    up_ach = best_achieved if math.isfinite(best_achieved) else None
    hi_res = max(solved, key=lambda t: t[0])[2] if solved else ranges[0][0].hi
    separate = max(max(0.0, max(s.lower for s in family) - min(s.upper for s in family)) for family in ranges)
    program = tighten_ratio_bounds(joint, be, options)
    by_window = _in_window_order(joint, problem.metric.families, ranges)
    if by_window is not None:  # (narrowing the windows only speeds the solve up)
        program = bound_windows(program, by_window, separate, upper)
    lower, low_ach, lo_res, joint_red = _joint_lower(joint, program, be, options, label, separate)
    results.append(lo_res)
    excluded = [labelled_event(event, problem.config, problem.table) for event, partial in checked.items() if partial]
    notes = _family_notes(joint, len(solved), len(candidates), pairs.dropped(), joint_red, excluded)
    details = _family_details(problem.metric.families, ranges, candidates, solved_pairs, separate, lo_res)
    low_ach, up_ach = inside_bounds(low_ach, lower, upper), inside_bounds(up_ach, lower, upper)
    width_gap = achieved_gap(lower, upper, low_ach, up_ach)
    return BoundResult(
        lower=lower, upper=upper, lower_achieved=low_ach, upper_achieved=up_ach,
        status=final_status(results, options.rel_gap, width_gap, notes),
        gap=width_gap, min_result=lo_res, max_result=hi_res, kind=joint.kind,
        stats_before=joint.stats_before, stats_after=joint.stats_after, metric=label, parameters=params,
        backend=be.name, wall_time=time.perf_counter() - start, notes=notes, details=details,
        excluded_events=excluded, nonnegative=True,
        few_units=few_units_by_event([c for family in rates for c in family], problem.config, problem.table),
    )


def max_abs_bounds(joint: CompiledProgram, sides: list[Side], be: Any, options: SolveOptions,
                   metric: MetricSpec) -> tuple:
    """Bounds of ``max_i |q_i|`` from each term's certified bounds (upper) and one joint program (lower).

    Parameters
    ----------
    joint : CompiledProgram
        The joint program ``min t`` with every term in ``[-t, t]``, at the call's sensitivity values.
    sides : list of Side
        Each term's certified bounds (:func:`~fairprobe.core.solving.solve_compiled`).
    be : TimeBudget
        The call's backend.
    options : SolveOptions
        Solver options (the joint solve adds the ``"joint"`` profile).
    metric : MetricSpec
        The metric (its label and terms).

    Returns
    -------
    tuple
        ``(lower, upper, lower_achieved, upper_achieved, min_result, max_result, details)``.
    """
    # Upper: sup max_i |q_i| = max_i max(-inf q_i, sup q_i), exact from the separate bounds.
    upper = max(max(-s.lower, s.upper) for s in sides)
    best = max(range(len(sides)), key=lambda i: max(-sides[i].lower, sides[i].upper))
    ach = [abs(a) for s in sides for a in (s.lower_achieved, s.upper_achieved) if a is not None]
    up_ach = max(ach) if ach else None
    # Lower: separate runs only give max_i dist(0, [lo_i, hi_i]); the joint program is sharp.
    separate = max(max(0.0, s.lower, -s.upper) for s in sides)
    program = tighten_ratio_bounds(joint, be, options)
    lower, low_ach, lo, _ = _joint_lower(joint, program, be, options, metric.label, separate)
    details = {
        "terms": [{"query": q, "lower": s.lower, "upper": s.upper} for q, s in zip(metric.queries, sides,
                                                                                   strict=True)],
        "separate_lower": separate, "joint_lower": lo.objective_bound,
        # the smooth components whose maximum is each end (the sampling interval's band is over these)
        "pieces": {"lower": [v for s in sides for v in (s.lower, -s.upper)],
                   "upper": [v for s in sides for v in (-s.lower, s.upper)],
                   "joint": lo.objective_bound, "floor": 0.0},
    }
    return lower, upper, low_ach, up_ach, lo, sides[best].hi, details

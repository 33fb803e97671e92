"""The engine: :class:`BoundProblem`, a bias, a metric and a table compiled once and bounded at any sensitivity value.

A problem resolves and checks its inputs when made, compiles its programs when asked
(:meth:`BoundProblem.compile`) and bounds them with the solving steps of :mod:`fairprobe.core.solving`
(one program) and :mod:`fairprobe.core.families` (a maximum of absolute terms or of family ranges). The
drivers (:func:`fairprobe.core.bound.bound`, the sweeps, the breakdown point, the intervals) call it.

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
import time
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from fairprobe.backends.base import SolveOptions
from fairprobe.core.budget import DEFAULT_TIME_LIMIT, TimeBudget, reporting_progress
from fairprobe.core.compiler import CompiledProgram, RateFamilies, compile_program, rate_key
from fairprobe.core.config import BiasConfig
from fairprobe.core.families import max_abs_bounds, solve_families
from fairprobe.core.identify import absorbable_nodes
from fairprobe.core.inputs import (
    as_table,
    declare_unmeasured,
    fit_cardinalities,
    labelled_event,
    resolve_bias,
    resolve_metric,
    resolve_parameters,
    unmeasured_names,
)
from fairprobe.core.metric_range import metric_range
from fairprobe.core.options import DEFAULT_GAP, CompileOptions
from fairprobe.core.parametric import ParametricProgram, affine_in_parameters
from fairprobe.core.rebind import Resampler
from fairprobe.core.results import BoundResult, ObservedValue, PointOutcome
from fairprobe.core.routing import Router, route_label
from fairprobe.core.solving import (
    ACHIEVED_SLACK,
    RANGE_SLACK,
    achieved_gap,
    check_defined,
    excluded_notes,
    few_units_by_event,
    final_status,
    inside_bounds,
    labelled_error,
    snapped,
    solve_compiled,
)
from fairprobe.core.table import ObservedTable
from fairprobe.core.validate import sweep_grid
from fairprobe.exceptions import (
    ConfigError,
    DataError,
    InfeasibleError,
    UndefinedMetricError,
)

__all__ = ["BoundProblem", "family_order", "sweep_points"]


def _compile_at(config: BiasConfig, table: ObservedTable, queries: Any, options: CompileOptions, max_abs: bool,
                params: Mapping[str, float]) -> CompiledProgram:
    # module level (not a closure) so problems pickle to worker processes, with the caller's options
    return compile_program(config, table, queries, params, max_abs=max_abs, options=options)


def _compile_on(config: BiasConfig, queries: Any, options: CompileOptions, max_abs: bool,
                params: Mapping[str, float], table: ObservedTable) -> CompiledProgram:
    # the table last, for DataRebinder's compile_fn(table); module level so problems pickle
    return compile_program(config, table, queries, params, max_abs=max_abs, options=options)


def family_order(families: Any, terms: Any) -> tuple[tuple[str, ...], ...] | None:
    """A family metric's families in the order its pair terms ``"q_a - (q_b)"`` first name the rates, or None
    unless the terms are exactly every pair of every family.

    The order is the one the compiler gives the windows of the terms themselves, so a joint program compiled
    from the rates is the same program. None (a plugin's terms that compare other pairs, or write them
    another way) keeps the metric to its terms: the families would bound another quantity.

    Parameters
    ----------
    families : sequence of sequence of str
        The rates of each family (``MetricSpec.families``).
    terms : sequence of str
        The metric's terms (``MetricSpec.queries``).

    Returns
    -------
    tuple of tuple of str or None

    Examples
    --------
    >>> family_order([["a", "b", "c"]], ["b - (a)", "b - (c)", "a - (c)"])
    (('b', 'a', 'c'),)
    >>> family_order([["a", "b", "c"]], ["a - (b)"]) is None  # not every pair
    True
    """
    pair_of = {f"{a} - ({b})": (a, b) for family in families for a in family for b in family if a != b}
    seen: dict[str, None] = {}
    pairs = set()
    for term in terms:
        if term not in pair_of:
            return None
        seen.update(dict.fromkeys(pair_of[term]))
        pairs.add(frozenset(pair_of[term]))
    if any(len(family) < 2 for family in families) or \
            len(pairs) != len(terms) or len(pairs) != sum(len(f) * (len(f) - 1) // 2 for f in families):
        return None
    first = {rate: k for k, rate in enumerate(seen)}
    ordered = [tuple(sorted(family, key=first.__getitem__)) for family in families]
    return tuple(sorted(ordered, key=lambda family: first[family[0]]))


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

    #: The compiled programs: one per term and the joint program of a maximum (:meth:`compile`); a maximum of
    #: family ranges has no term programs (its rates and pairs are read off the joint program).
    term_programs = _CompiledOnUse()
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
        build = self._build
        self._pair_programs: dict[tuple[int, int, int], ParametricProgram] = {}
        self._rate_programs: dict[tuple[int, int], ParametricProgram] = {}
        try:
            if self.by_families:
                terms = []  # the rates and pairs are read off the joint program (or compiled when they cannot be)
                joint: ParametricProgram | None = build(self._joint_query(), max_abs=True)
            elif self.metric.max_abs:
                terms = [build(q) for q in self.metric.queries]
                joint = build(list(self.metric.queries), max_abs=True)
            else:
                terms, joint = [build(self.metric.query)], None
        except UndefinedMetricError as exc:
            raise labelled_error(exc, self.metric.label) from None
        # (term_programs last: it marks the problem compiled)
        self.joint_program, self.term_programs = joint, terms

    @property
    def by_families(self) -> bool:
        """Whether the metric is bounded as a maximum of family ranges
        (:func:`~fairprobe.core.families.solve_families`): its terms are every pair of its families
        (:func:`family_order`) and the rate ranges are on.

        Returns
        -------
        bool
        """
        return bool(self.metric.max_abs and self.compile_options.uses("rate_ranges")
                    and self._family_order is not None)

    @functools.cached_property
    def _family_order(self) -> tuple[tuple[str, ...], ...] | None:
        # the metric's terms read once per problem, not at every solve of a sweep or a bootstrap
        return family_order(self.metric.families, self.metric.queries)

    def _joint_query(self) -> RateFamilies | list[str]:
        """The joint program's query: the families' rates when the windows are on and each is one ``P(E | F)``."""
        order = self._family_order
        if order is not None and self.compile_options.uses("windows") and \
                all(rate_key(q) is not None for family in order for q in family):
            return RateFamilies(order)  # k rates per family parsed and grouped, not its k (k - 1) / 2 pair terms
        return list(self.metric.queries)

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
        for name in ("term_programs", "joint_program", "_built", "_pair_programs", "_rate_programs"):
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
        # a family metric's pair terms read exactly its rates' nodes: k rates parsed, not k (k - 1) / 2 pairs
        queries = {q for family in self.metric.families for q in family} or self.metric.queries
        read |= {v for q in queries for v in parse_expression(q).variables}
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
        ach = [snapped(a, low, high, RANGE_SLACK) for a in (result.lower_achieved, result.upper_achieved)]
        if clipped or ach != [result.lower_achieved, result.upper_achieved]:
            result.lower_achieved = inside_bounds(ach[0], result.lower, result.upper)
            result.upper_achieved = inside_bounds(ach[1], result.lower, result.upper)
            result.gap = achieved_gap(result.lower, result.upper, result.lower_achieved, result.upper_achieved)
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
        if self.metric.max_abs and self._family_order is not None:
            # |q_a - q_b| <= max(sup q_a - inf q_b, sup q_b - inf q_a): from each rate's range, not each pair's
            highest = 0.0
            for family in self.metric.families:
                ranges = [metric_range((q,), False, two_valued) for q in family]
                highest = max([highest, *(hi - lo for i, (_, hi) in enumerate(ranges)
                                          for j, (lo, _) in enumerate(ranges) if i != j)])
            return 0.0, highest
        return metric_range(tuple(self.metric.queries), bool(self.metric.max_abs), two_valued)

    def _solve(self, params: dict[str, float], be: TimeBudget, options: SolveOptions, start: float,
               n_jobs: int) -> BoundResult:
        label = self.metric.label
        try:
            compiled = [pp.at(params) for pp in self.term_programs]
        except UndefinedMetricError as exc:
            raise labelled_error(exc, label) from None
        checked: dict[str, bool] = {}
        minima: list[dict] = []
        if self.by_families:
            return solve_families(self, params, be, options, checked, start)
        for c in compiled:
            minima.append({})
            check_defined(c, be, options, label, self.config, self.table, params, checked, minima[-1])
        excluded = [labelled_event(event, self.config, self.table) for event, partial in checked.items() if partial]
        sides = [solve_compiled(c, be, options, label, n_jobs=n_jobs, minima=m)
                 for c, m in zip(compiled, minima, strict=True)]
        notes = list(compiled[0].notes) + sides[0].notes
        notes += excluded_notes(excluded)
        if self.joint_program is None:
            side, main = sides[0], compiled[0]
            results = [side.lo, side.hi]
            lower, upper = side.lower, side.upper
            low_ach, up_ach = side.lower_achieved, side.upper_achieved
            lo_res, hi_res, details = side.lo, side.hi, {}
        else:
            main = self.joint_program.at(params)
            bounds = max_abs_bounds(main, sides, be, options, self.metric)
            lower, upper, low_ach, up_ach, lo_res, hi_res, details = bounds
            results = [r for s in sides for r in (s.lo, s.hi)] + [lo_res]
            notes.append("lower bound: one joint program min t s.t. t >= |term_i| (sharp); upper bound: "
                         "max over terms of the separate certified bounds of |term_i| (sharp)")
        low_ach, up_ach = inside_bounds(low_ach, lower, upper), inside_bounds(up_ach, lower, upper)
        width_gap = achieved_gap(lower, upper, low_ach, up_ach)
        status = final_status(results, options.rel_gap, width_gap, notes)
        return BoundResult(
            lower=lower, upper=upper, lower_achieved=low_ach, upper_achieved=up_ach, status=status,
            gap=width_gap, min_result=lo_res, max_result=hi_res, kind=main.kind,
            stats_before=main.stats_before, stats_after=main.stats_after, metric=label,
            parameters=params, backend=be.name, wall_time=time.perf_counter() - start, notes=notes,
            details=details, excluded_events=excluded, nonnegative=bool(self.metric.max_abs),
            few_units=few_units_by_event(compiled, self.config, self.table),
        )

    def rate_program(self, f: int, i: int) -> ParametricProgram:
        """Rate ``i`` of family ``f`` of the metric compiled on its own, on first use.

        Parameters
        ----------
        f, i : int
            The family and the position of the rate in it.

        Returns
        -------
        ParametricProgram
        """
        self.compile()
        if (f, i) not in self._rate_programs:
            self._rate_programs[(f, i)] = self._build(self.metric.families[f][i])
        return self._rate_programs[(f, i)]

    def compiled_rate(self, f: int, i: int, joint: CompiledProgram, params: dict[str, float],
                      reduce: Any = None, model: Any = None) -> CompiledProgram:
        """Rate ``i`` of family ``f`` at ``params``: read off ``joint`` (this problem's joint program at ``params``),
        or compiled on its own where it cannot be.

        Parameters
        ----------
        f, i : int
            The family and the position of the rate in it.
        joint : CompiledProgram
            :attr:`joint_program` at ``params``.
        params : dict of str to float
            The sensitivity values.
        reduce, model : optional
            As for :meth:`CompiledProgram.window_rate <fairprobe.core.compiled.CompiledProgram.window_rate>`.

        Returns
        -------
        CompiledProgram
        """
        key = rate_key(self.metric.families[f][i])
        read_off = joint.window_rate(key, reduce, model) if key is not None else None
        if read_off is not None:
            return read_off
        try:
            return self.rate_program(f, i).at(params)
        except UndefinedMetricError as exc:
            raise labelled_error(exc, self.metric.label) from None

    def pair_program(self, f: int, i: int, j: int) -> ParametricProgram:
        """``rate_i - rate_j`` of family ``f`` (``i < j``) of the metric, compiled on first use.

        Parameters
        ----------
        f, i, j : int
            The family and the positions of its two rates.

        Returns
        -------
        ParametricProgram
        """
        key = (f, i, j)
        self.compile()
        if key not in self._pair_programs:
            family = self.metric.families[f]
            self._pair_programs[key] = self._build(f"{family[i]} - ({family[j]})")
        return self._pair_programs[key]

    def compiled_pair(self, key: tuple[int, int, int], params: dict[str, float], be: Any, options: SolveOptions,
                      checked: dict[str, bool]) -> CompiledProgram:
        """The pair ``key`` (see :meth:`pair_program`) compiled on its own at ``params``, its events checked.

        Parameters
        ----------
        key : (int, int, int)
            The family and the positions of its two rates.
        params : dict of str to float
            The sensitivity values.
        be : TimeBudget
            The call's backend (for the definedness check).
        options : SolveOptions
            Solver options of the check.
        checked : dict of str to bool
            Conditioning events checked so far (:func:`~fairprobe.core.solving.check_defined`); filled in.

        Returns
        -------
        CompiledProgram
        """
        try:
            compiled = self.pair_program(*key).at(params)
        except UndefinedMetricError as exc:
            raise labelled_error(exc, self.metric.label) from None
        check_defined(compiled, be, options, self.metric.label, self.config, self.table, params, checked)
        return compiled



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

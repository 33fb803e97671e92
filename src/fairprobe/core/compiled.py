"""A compiled bound problem and its records: :class:`CompiledProgram`, the query's conditioning events
(:class:`Condition`), rate keys and the messages of undefined metrics.

:mod:`fairprobe.core.compiler` writes these; the engine, the rebinder and the parametric programs read them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fairprobe.core.config import BiasConfig
from fairprobe.core.data_rows import RATIO_EPSILON, DataRow, EventKey
from fairprobe.core.query import Atom, ParsedExpression, parse_expression
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import DataError
from fairprobe.program.model import Constraint, PolynomialProgram
from fairprobe.program.polynomial import Poly, poly_add, poly_mul

__all__ = ["CompiledProgram", "Condition", "RateFamilies", "by_name", "detect_kind", "event_key", "event_text",
           "named_value", "rate_key", "ratio_rows", "undefined_metric_message", "warn_tiny_cells"]


def warn_tiny_cells(probs: Mapping[Any, float], stacklevel: int = 2) -> None:
    """Warn when cells have probability in (0, 1e-8): at solvers' tolerance, they can read as infeasible.

    Parameters
    ----------
    probs : mapping
        Cell probabilities.
    stacklevel : int, optional
        As for :func:`warnings.warn`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_tiny_cells({(0,): 0.5, (1,): 1e-9})
    >>> len(caught)
    1
    """
    tiny = [p for p in probs.values() if 0 < p < 1e-8]
    if tiny:
        warnings.warn(
            f"{len(tiny)} table cell(s) have probability below 1e-8, at the numerical tolerance of "
            "floating-point solvers; set them to 0 (or use counts) if a solver reports the data as "
            "infeasible.", RuntimeWarning, stacklevel=stacklevel)

@dataclass(frozen=True)
class Condition:
    """A conditioning event ``F`` of the query (``P(E | F)``) and its probability ``P(F)``.

    Parameters
    ----------
    event : str
        The event, e.g. ``"Y = 1 & A = 1"``.
    atoms : tuple of Atom
    poly : dict
        ``P(F)`` as a polynomial over the program's variable indices.
    observed : float or None
        ``P(F)`` when the data pin it (then it is the same, positive, in every model).

    Examples
    --------
    See :func:`~fairprobe.core.compiler.compile_program`, whose result's ``conditions`` these are.
    """

    event: str
    atoms: tuple[Atom, ...]
    poly: Poly
    observed: float | None = None


def event_text(atoms: Sequence[Atom]) -> str:
    """An event's atoms joined by ``&``, as messages and :class:`Condition` show it.

    Parameters
    ----------
    atoms : sequence of Atom

    Returns
    -------
    str

    Examples
    --------
    >>> from fairprobe.core.query import Atom
    >>> event_text([Atom("Y", 1), Atom("A", 0)])
    'Y = 1 & A = 0'
    """
    return " & ".join(str(a) for a in atoms)


def undefined_metric_message(config: BiasConfig, table: ObservedTable, atoms: Sequence[Atom], where: str,
                             label: str | None = None) -> str:
    """Message of an :class:`~fairprobe.exceptions.UndefinedMetricError`: the event, its group, the fix.

    Parameters
    ----------
    config : BiasConfig
        The bias (its attribute node and name appear in the message).
    table : ObservedTable
        The data, used to name the group's label and to say when no row has the event.
    atoms : sequence of Atom
        The conditioning event.
    where : str
        Completes "has probability 0 in every model the bias admits ...", e.g. ``"at D = 0"``.

    label : str, optional
        Name of the metric.

    Returns
    -------
    str
    """
    event = event_text(atoms)
    attr = config.attribute_node
    groups = [a for a in atoms if a.var == attr and not a.intervention]
    group = ""
    if groups:
        a = groups[0]
        labels = table.categories.get(attr, [])
        name = f" ({labels[int(a.value)]!r})" if str(a.value).isdigit() and int(a.value) < len(labels) else ""
        group = (f" (everyone but group {attr} = {a.value}{name})" if a.negated
                 else f" (group {attr} = {a.value}{name})")
    # the hint reads the data at the event's plain atoms (a union A != a is left out: still sound)
    seen = [a for a in atoms if not a.intervention and not a.negated and a.var in table.nodes]
    hint = ""
    if seen and len({a.var for a in seen}) == len(seen):
        try:
            if table.prob({a.var: int(a.value) for a in seen}) == 0.0:
                hint = f"; the table has no row with {', '.join(str(a) for a in seen)}"
        except (ValueError, DataError):
            pass
    bias = f"the bias {config.name!r}" if config.name else "the bias"
    what = f"The metric {label!r}" if label else "The metric"
    return (f"{what} is undefined: it conditions on {event}{group}, which has probability 0 in every "
            f"model {bias} admits {where}{hint}. Choose groups in which the event can occur (e.g. both "
            "groups with positives for FNR/TPR), a metric that does not condition on it, or a bias or "
            "sensitivity value that allows it.")


@dataclass(frozen=True)
class RateFamilies:
    """A max of family ranges, ``max_f (max_a q_a - min_b q_b)``, given by its rates ``P(E | F)``.

    The query of a window program compiled from each family's k rates, not its k (k - 1) / 2 pair terms.

    Parameters
    ----------
    families : tuple of tuple of str
        Each family's rates, each one conditional probability (:func:`rate_key` is not None).

    Examples
    --------
    >>> RateFamilies((("P(P = 1 | Y = 0 & A = 0)", "P(P = 1 | Y = 0 & A = 1)"),)).rates
    ('P(P = 1 | Y = 0 & A = 0)', 'P(P = 1 | Y = 0 & A = 1)')
    """

    families: tuple[tuple[str, ...], ...]

    @property
    def rates(self) -> tuple[str, ...]:
        """Every rate once, in the order of the families."""
        return tuple(dict.fromkeys(q for family in self.families for q in family))


@dataclass
class CompiledProgram:
    """A compiled bound problem (minimisation form of the query).

    Parameters
    ----------
    program : PolynomialProgram
        The program; its objective is the query (``sense`` "min"; ``with_sense("max")`` for the upper bound).
    kind : {"linear", "linear_fractional", "polynomial"}
        Structure detected after reductions.
    stats_before, stats_after : dict
        Size of the naive response-function program and of the reduced one.
    notes : list of str
        Reductions applied and relaxations made.
    ratios : list of str
        Names of auxiliary ratio variables.
    terms : list of dict
        Max-abs terms ``q_i`` over variable *names*, so an incumbent's metric value can be re-evaluated.
    conditions : list of Condition
        Conditioning events ``F`` of the query, with ``P(F)`` over the program's variables.
    query_rows : frozenset of str
        Names of the rows that encode the query; without them the feasible set is the models the bias admits.
    windows : list of list of (dict, dict or None)
        Max-abs families written as ranges: each member rate as (numerator, denominator or None) over names.
    data_rows : tuple of DataRow
        How each observed cell entered the program before the reductions (:mod:`fairprobe.core.rebind`).
    window_keys : list of list of tuple
        Each window member's rate as ``(key of E & F, key of F)``, laid out as ``windows`` (:func:`rate_key`).

    Examples
    --------
    See :func:`~fairprobe.core.compiler.compile_program`.
    """

    program: PolynomialProgram
    kind: str
    stats_before: dict[str, int]
    stats_after: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    ratios: list[str] = field(default_factory=list)
    terms: list[dict[tuple[str, ...], float]] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    query_rows: frozenset[str] = frozenset()
    windows: list[list[tuple[dict, dict | None]]] = field(default_factory=list)
    data_rows: tuple[DataRow, ...] = ()
    window_keys: list[list[tuple[EventKey, EventKey | None]]] = field(default_factory=list)

    def term_values(self, point: Mapping[str, float]) -> list[float]:
        """Values of the max-abs terms at a point given by variable names (family ranges for windows).

        Parameters
        ----------
        point : mapping of str to float
            Variable name -> value (absent variables count as 0).

        Returns
        -------
        list of float
            One value per term (per family: the largest minus the smallest member rate).
        """
        if self.windows:
            # A rate whose P(F) sits at the 1e-9 floor is 0/0 up to solver tolerances: it is read as
            # the model's window says (clipped to [L, U]), as the ratio variables are read otherwise.
            out = []
            for f, family in enumerate(self.windows):
                low, high = point.get(f"window{f}_low", 0.0), point.get(f"window{f}_high", 0.0)
                rates = []
                for num, den in family:
                    d = 1.0 if den is None else named_value(den, point)
                    rate = named_value(num, point) / d if d > 0 else low
                    rates.append(min(max(rate, low), high))
                out.append(max(rates) - min(rates))
            return out
        return [named_value(term, point) for term in self.terms]

    def window_pair(self, first: tuple, second: tuple) -> CompiledProgram | None:
        """``rate(first) - rate(second)`` over this max-abs program's models, without compiling again.

        The rows outside the query are the models the bias admits, in variables that tell every rate apart;
        with the pair's ratio definitions and floors they are the pair's program up to how finely response
        types are merged (exact either way).

        Parameters
        ----------
        first, second : tuple
            The two rates ``P(E | F)`` by their keys (:func:`rate_key`): the members of one window
            family with exactly these events ``E & F`` and ``F``.

        Returns
        -------
        CompiledProgram or None
            None when a key names no member (or more than one), the two are in different families, a
            rate's denominator is pinned by the data (the pair is then linear: compile it), or the
            program is not laid out as the compiler's window objective writes it.
        """
        out = self.window_model() if first != second else None
        if out is None:
            return None
        index = {v.name: k for k, v in enumerate(out.variables)}
        chosen = [self._window_member(key, index) for key in (first, second)]
        if chosen[0] is None or chosen[1] is None or chosen[0][0] != chosen[1][0]:
            return None
        objective, rows = {}, set()
        for k, ((_, num, den, _), weight) in enumerate(zip(chosen, (1.0, -1.0), strict=True)):
            name = f"query_r{k}"
            definition, floor = ratio_rows(out.n_variables, num, den, name)
            if floor is None:
                return None
            r = out.add_variable(name, 0.0, 1.0)
            out.constraints += [definition, floor]
            rows |= {f"{name}_def", f"{name}_pos"}
            objective[(r,)] = weight
        out.objective = objective
        return self._read_off(out, "a parity of two of the metric's rates", ["query_r0", "query_r1"],
                              [chosen[0][3], chosen[1][3]], frozenset(rows))

    def window_model(self) -> PolynomialProgram | None:
        """The models a window program admits: its variables and rows without the windows (None: another layout).

        Returns
        -------
        PolynomialProgram or None
            Without an objective; its rows are this program's own (what :meth:`window_rate` programs share).

        Examples
        --------
        See :meth:`window_rate`.
        """
        layout = self._window_layout()
        if layout is None:
            return None
        end, model_rows = layout
        return PolynomialProgram(sense="min", name=self.program.name, variables=list(self.program.variables[:end]),
                                 constraints=model_rows)

    def window_rate(self, key: tuple, reduce: Callable[[PolynomialProgram], Any] | None = None,
                    model: PolynomialProgram | None = None) -> CompiledProgram | None:
        """The rate ``key`` of a window program as a linear-fractional program over its models, without compiling.

        Its rows are :meth:`window_model`'s with ``P(E & F) / P(F)`` as objective (exact, as :meth:`window_pair`).

        Parameters
        ----------
        key : tuple
            The rate ``P(E | F)`` by its key (:func:`rate_key`).
        reduce : callable, optional
            Takes the rate's program and returns a smaller one with the same bounds as a
            :class:`~fairprobe.core.decompose.Reduction` (or None), e.g.
            :meth:`BlockPlan.reduce <fairprobe.core.decompose.BlockPlan.reduce>` of :meth:`window_model`.
        model : PolynomialProgram, optional
            :meth:`window_model` of this program, when the caller holds it (every rate of a bound starts from
            the one model instead of laying it out again); left unchanged.

        Returns
        -------
        CompiledProgram or None
            None as for :meth:`window_pair` (no such member, a denominator the data pin, another layout),
            or when the model's rows are nonlinear (the rate compiled on its own writes its ratio its own way).

        Examples
        --------
        >>> import pandas as pd
        >>> from fairprobe.core.bound import BoundProblem
        >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
        ...                       "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
        >>> joint = BoundProblem("proxy_label", "equalized_odds", cells).joint_program.at({"D": 0.05})
        >>> rate = joint.window_rate(rate_key("P(P = 1 | Z = 0 & A = 1)"))
        >>> rate.kind, [c.event for c in rate.conditions], rate.query_rows
        ('linear_fractional', ['Z = 0 & A = 1'], frozenset())
        >>> model = joint.window_model()  # the same rows, without an objective
        >>> model.n_variables < joint.program.n_variables, model.objective
        (True, {})
        """
        out = self.window_model() if model is None else \
            PolynomialProgram(sense="min", name=model.name, variables=list(model.variables),
                              constraints=list(model.constraints))
        if out is None:
            return None
        index = {v.name: k for k, v in enumerate(out.variables)}
        member = self._window_member(key, index)
        if member is None:
            return None
        _, num, den, condition = member
        out.objective, out.objective_denominator = dict(num), dict(den)
        if out.max_degree > 1:
            return None
        red = reduce(out) if reduce is not None else None
        if red is not None:
            names = [v.name for v in out.variables]
            out = red.program
            condition = replace(condition, poly=_indexed(by_name(condition.poly, names),
                                                                     {v.name: k for k, v in enumerate(out.variables)}))
        return self._read_off(out, "a rate of the metric", [], [condition], frozenset())

    def _read_off(self, out: PolynomialProgram, what: str, ratios: list[str], conditions: list[Condition],
                  rows: frozenset[str]) -> CompiledProgram:
        """``out``, a program read off this window program, as a compiled program (its notes, stats, data rows)."""
        notes = [*(n for n in self.notes if not n.startswith("max over pairs")),
                 f"{what}, read off its joint program (the models it admits)"]
        return CompiledProgram(out, detect_kind(out), dict(self.stats_before), out.stats().to_dict(), notes,
                               ratios, [], conditions, rows, [], self.data_rows)


    def _window_layout(self) -> tuple[int, list[Constraint]] | None:
        """(index of ``max_abs``, the model's rows) of a window program laid out as the compiler writes it."""
        prog = self.program
        names = [v.name for v in prog.variables]
        if not self.windows or len(self.window_keys) != len(self.windows) or "max_abs" not in names:
            return None
        end = names.index("max_abs")  # the windows' own variables come after the model's
        if any(n != "max_abs" and not n.startswith("window") for n in names[end:]):
            return None
        model_rows = [c for c in prog.constraints if c.name not in self.query_rows]
        if any(k >= end for c in model_rows for mono in c.poly for k in mono):
            return None
        return end, model_rows

    def _window_member(self, key: tuple, index: Mapping[str, int]) -> tuple[int, Poly, Poly, Condition] | None:
        """(family, numerator, denominator, condition) of the one member with rate key ``key``, else None."""
        found = [(f, k) for f, keys in enumerate(self.window_keys) for k, member in enumerate(keys) if member == key]
        if len(found) != 1 or len(self.window_keys[found[0][0]]) != len(self.windows[found[0][0]]):
            return None
        f, k = found[0]
        num, den = self.windows[f][k]
        if den is None or key[1] is None:
            return None
        den_poly = _indexed(den, index)
        condition = next((c for c in self.conditions
                          if c.poly == den_poly and c.observed is None and event_key(c.atoms) == key[1]), None)
        if condition is None:
            return None
        return f, _indexed(num, index), den_poly, condition


def _indexed(named: Mapping[tuple[str, ...], float], index: Mapping[str, int]) -> Poly:
    """A polynomial over variable names over the indices of ``index``."""
    out: Poly = {}
    for mono, coef in named.items():
        if any(n not in index for n in mono):
            continue  # a variable presolved away (forced to 0), as term_values reads it
        key = tuple(index[n] for n in mono)
        out[key] = out.get(key, 0.0) + coef
    return out


def by_name(
poly: Poly, names: Sequence[str]) -> dict[tuple[str, ...], float]:
    """``poly`` over variable names instead of indices (robust to presolve renumbering).

    Parameters
    ----------
    poly : dict
        Monomials over variable indices.
    names : sequence of str
        The program's variable names, by index.

    Returns
    -------
    dict

    Examples
    --------
    >>> by_name({(0, 1): 2.0, (): 1.0}, ["x", "y"])
    {('x', 'y'): 2.0, (): 1.0}
    """
    return {tuple(names[i] for i in mono): coef for mono, coef in poly.items()}


def named_value(poly: Mapping[tuple[str, ...], float], point: Mapping[str, float]) -> float:
    """Value of a polynomial over variable names at a point (absent variables are 0).

    Parameters
    ----------
    poly : mapping of tuple of str to float
        Monomials over variable names.
    point : mapping of str to float
        Variable values by name.

    Returns
    -------
    float

    Examples
    --------
    >>> named_value({("x",): 2.0, ("x", "y"): 1.0, (): 0.5}, {"x": 0.5, "y": 4.0})
    3.5
    """
    total = 0.0
    for names, coef in poly.items():
        value = coef
        for name in names:
            value *= point.get(name, 0.0)
        total += value
    return total


def event_key(atoms: Sequence[Atom]) -> EventKey:
    """The key of an event: its atoms, deduplicated and sorted (the order they are written in does not count).

    Parameters
    ----------
    atoms : sequence of Atom

    Returns
    -------
    tuple of Atom

    Examples
    --------
    >>> from fairprobe.core.query import Atom
    >>> event_key([Atom("Y", 1), Atom("A", 0)]) == event_key([Atom("A", 0), Atom("Y", 1), Atom("A", 0)])
    True
    """
    return tuple(sorted(set(atoms), key=lambda a: (a.var, a.intervention, a.negated, str(a.value))))


def rate_key(rate: str | ParsedExpression) -> tuple[EventKey, EventKey] | None:
    """``(key of E & F, key of F)`` of a rate written exactly as one conditional probability ``P(E | F)``.

    How a window program knows its members (:attr:`CompiledProgram.window_keys`); None for anything else.

    Parameters
    ----------
    rate : str or ParsedExpression
        The rate, e.g. ``"P(P = 1 | Y = 0 & A = 0)"``.

    Returns
    -------
    tuple or None

    Examples
    --------
    >>> rate_key("P(P = 1 | A = 0 & Y = 0)") == rate_key("P(P = 1 | Y = 0 & A = 0)")
    True
    >>> rate_key("1 - P(P = 0 | Y = 0 & A = 0)") is None, rate_key("P(P = 1)") is None
    (True, True)
    """
    parsed = rate if isinstance(rate, ParsedExpression) else parse_expression(rate)
    if len(parsed.atoms) != 1 or len(parsed.symbols) != 1 or parsed.parameters:
        return None
    if parsed.expr != parsed.symbols[0] or not parsed.atoms[0].given:
        return None
    atom = parsed.atoms[0]
    return event_key(atom.event + atom.given), event_key(atom.given)


def ratio_rows(r: int, num: Poly, den: Poly, name: str) -> tuple[Constraint, Constraint | None]:
    """Ratio variable ``r = num / den``'s rows: ``r den - num == 0`` and the floor ``den >= 1e-9``.

    Parameters
    ----------
    r : int
        Index of the ratio variable.
    num, den : dict
        Numerator and denominator over the program's variables.
    name : str
        The rows are ``{name}_def`` and ``{name}_pos``.

    Returns
    -------
    (Constraint, Constraint or None)
        The definition and the floor (None when ``den`` is a constant).

    Examples
    --------
    >>> definition, floor = ratio_rows(2, {(0,): 1.0}, {(0,): 1.0, (1,): 1.0}, "r")
    >>> definition.name, floor.name, floor.rhs
    ('r_def', 'r_pos', 1e-09)
    """
    body = {m: v for m, v in den.items() if m}
    floor = Constraint(body, ">=", RATIO_EPSILON - den.get((), 0.0), f"{name}_pos") if body else None
    return Constraint(poly_add(poly_mul({(r,): 1.0}, den), num, -1.0), "==", 0.0, f"{name}_def"), floor


def detect_kind(prog: PolynomialProgram) -> str:
    """``"linear"``, ``"linear_fractional"`` or ``"polynomial"``: the structure of a program.

    Parameters
    ----------
    prog : PolynomialProgram

    Returns
    -------
    str

    Examples
    --------
    >>> prog = PolynomialProgram(sense="min")
    >>> x = prog.add_variable("x", 0.0, 1.0)
    >>> prog.objective = {(x,): 1.0}
    >>> detect_kind(prog)
    'linear'
    """
    if prog.max_degree <= 1:
        return "linear_fractional" if prog.is_fractional else "linear"
    return "polynomial"

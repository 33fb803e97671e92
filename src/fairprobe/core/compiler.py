"""Compile bias + observed table + query into a :class:`PolynomialProgram`.

Pipeline (all exact unless stated):

1. **Latent projection** of the bias DAG and c-components (:mod:`fairprobe.core.dag`).
2. **Response types** per c-component (:mod:`fairprobe.core.response`); every probability the
   program mentions (table cells, constraint atoms, query atoms) becomes a sum over completions of
   products of per-component type masks. Variables without latent parents that no event
   intervenes on are **absorbed slice by slice** there into the c-component whose members all
   read them (see :class:`~fairprobe.core.response.Component`): the product ``q_A(a) q_C(r)``
   becomes one joint over ``(a, slice types)``, exact because the slices are disjoint response
   coordinates, and the size grows linearly in the slices. It is what keeps the selection
   programs linear and many groups or covariate levels cheap. When the table pins their law (an
   unconditioned table with those columns), variables that only *some* members read are absorbed
   too, provided the other members all read the same subset ``T`` of the slice variables (e.g. a
   covariate ``X`` read by ``Z`` and ``P`` but not by the proxy ``Y``): those members' restricted
   response types are shared by the slices that agree on ``T``, so their conditional law must be
   the same in all of them (**glue rows**, linear because ``P(slice)`` is data). Exact: the slice
   variables are independent of the latent types, so every true model satisfies the rows; and any
   per-slice laws with equal conditional marginals come from one model (draw the shared types,
   then each slice's own coordinates given them: the marginal problem on a star is consistent).
3. **Fixing**: a root variable without latent parents whose law the (unconditioned) table
   reports gets its observed probabilities as constants.
4. **Absorbing roots** (only when slicing is off, ``CompileOptions(slicing=False)``, the previous engine kept
   as the benchmark baseline): the same absorption after enumerating every response type.
5. **Merging types**: joint types that no event in the program distinguishes are merged into one
   variable (their total probability). Exact: every polynomial depends on the types only through
   these sums.
6. **Polynomials** are built directly as sparse dicts; sympy only parses the strings.
7. **Ratios**: a query that is affine in one conditional probability becomes a *fractional
   objective* (``num / den``); the driver turns a linear-fractional program into one LP
   (Charnes-Cooper). Other ratios get an auxiliary variable ``r`` in [0, 1] with the bilinear
   equality ``r * P(F) = P(E & F)`` and ``P(F) >= 1e-9`` (bounds hold over all models in which
   the conditioning events have probability at least 1e-9). Every conditioning event ``F`` of the
   query is recorded in :attr:`CompiledProgram.conditions`; the driver checks that some admitted
   model gives it probability at least 1e-9 (else the metric is undefined, an
   :class:`~fairprobe.exceptions.UndefinedMetricError`) and reports when some models give it less.
   A conditioning event forced to probability 0 by the table's zero cells is reported here, at
   compile time.
8. **Presolve**: variables forced to zero by data cells of probability zero are removed.

Independent latent distributions that meet in one probability (several non-fixed components in a
term) are encoded as products: the program is then sharp and genuinely polynomial, and goes to a
global solver.

*Independence inside one c-component is relaxed.* When several latent variables confound the
members of one c-component (``U``, ``V``, ``Q``, ``W`` in ``proxy_label_and_selection``), the
program uses one arbitrary joint distribution over the component's response types, the standard
canonical parametrisation. It does not encode that those latents are mutually independent, so the
bounds are outer (sound) and may be wider than the sharp bounds under that extra independence.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np
import sympy

from fairprobe.core.config import BiasConfig
from fairprobe.core.identify import identify_interventions
from fairprobe.core.options import CompileOptions
from fairprobe.core.query import Atom, ParsedExpression, parse_expression
from fairprobe.core.reparametrise import reparametrise
from fairprobe.core.response import EventTerm, ResponseModel, partial_readers, shared_model
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import ConfigError, DataError, InfeasibleError, UndefinedMetricError
from fairprobe.program.model import Constraint, PolynomialProgram
from fairprobe.program.polynomial import Poly, poly_add, poly_mul, poly_scale

__all__ = ["CompiledProgram", "Condition", "DataRow", "compile_program", "named_value", "rate_key",
           "undefined_metric_message", "warn_tiny_cells"]

#: Lower bound imposed on conditioning events of auxiliary ratio variables.
RATIO_EPSILON = 1e-9

EventKey = tuple[Atom, ...]


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
        Its atoms.
    poly : dict
        ``P(F)`` as a polynomial over the program's variable indices.
    observed : float or None
        ``P(F)`` when the data pin it (then it is the same, positive, in every model).

    Attributes
    ----------
    event : str
        The event, e.g. ``"Y = 1 & A = 1"``.
    atoms : tuple of Atom
        Its atoms.
    poly : dict
        ``P(F)`` as a polynomial over the program's variable indices.
    observed : float or None
        ``P(F)`` when the data pin it (then it is the same, positive, in every model).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.core.table import ObservedTable
    >>> table = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [0, 1, 0, 1],
    ...                                                 "n": [30, 10, 20, 40]}))
    >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
    >>> cond = compile_program(cfg, table, "P(P = 1 | Y = 1 & A = 0)", {}).conditions[0]
    >>> cond.event, round(cond.observed, 6)
    ('Y = 1 & A = 0', 0.1)
    """

    event: str
    atoms: tuple[Atom, ...]
    poly: Poly
    observed: float | None = None


def _event_text(atoms: Sequence[Atom]) -> str:
    return " & ".join(str(a) for a in atoms)


def undefined_metric_message(config: BiasConfig, table: ObservedTable, atoms: Sequence[Atom], where: str,
                             label: str | None = None) -> str:
    """Message of an :class:`~fairprobe.exceptions.UndefinedMetricError`: the event, its group, the fix.

    ``where`` completes "has probability 0 in every model the bias admits ...", e.g. "at D = 0".

    Parameters
    ----------
    config : BiasConfig
        The bias (its attribute node and name appear in the message).
    table : ObservedTable
        The data, used to name the group's label and to say when no row has the event.
    atoms : sequence of Atom
        The conditioning event.
    where : str
        End of the sentence, e.g. ``"at D = 0"``.
    label : str, optional
        Name of the metric.

    Returns
    -------
    str
        The message.

    Examples
    --------
    >>> from fairprobe.core.query import Atom
    >>> import pandas as pd
    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.core.table import ObservedTable
    >>> table = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [0, 1, 0, 1],
    ...                                                 "n": [30, 10, 20, 40]}))
    >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
    >>> msg = undefined_metric_message(cfg, table, (Atom("Y", 1), Atom("A", 0), Atom("P", 0)), "at D = 0", label="FNR")
    >>> msg[:95]
    "The metric 'FNR' is undefined: it conditions on Y = 1 & A = 0 & P = 0 (group A = 0), which has "
    >>> "the table has no row with Y = 1, A = 0, P = 0" in msg
    True
    """
    event = _event_text(atoms)
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


@dataclass
class DataRow:
    """How one observed cell entered a compiled program: ``P(cell & given) = p * P(given)``.

    Parameters
    ----------
    name : str
        The row's name (``data{k}``).
    cell : tuple of int
        The cell's codes, in the table's node order.
    poly : dict
        ``P(cell & given)`` (``P(cell)`` for an unconditioned table) over the variables.
    given : dict or None
        ``P(given)`` for a selected table, else None.
    """

    name: str
    cell: tuple[int, ...]
    poly: Poly
    given: Poly | None

    def row(self, prob: float) -> tuple[Poly, float] | None:
        """The row's body and right-hand side for the cell probability ``prob`` (None: no row).

        The arithmetic is the compiler's own, so the row is the one a compilation would write.

        Parameters
        ----------
        prob : float

        Returns
        -------
        (dict, float) or None
            None when every term is a constant (the compiler then writes no row).

        Examples
        --------
        >>> DataRow("data0", (0, 1), {(0,): 1.0, (1,): 1.0}, None).row(0.25)
        ({(0,): 1.0, (1,): 1.0}, 0.25)
        """
        body = dict(self.poly)
        if self.given is not None:
            body = poly_add(body, self.given, -prob)
            rhs = 0.0
        else:
            rhs = prob
        const = body.pop((), 0.0)
        if not body:
            return None
        return body, rhs - const


@dataclass
class CompiledProgram:
    """A compiled bound problem (minimisation form of the query).

    Parameters
    ----------
    program : PolynomialProgram
        The program; its objective is the query.
    kind : str
        ``"linear"``, ``"linear_fractional"`` or ``"polynomial"``.
    stats_before, stats_after : dict
        Size of the naive program and of the reduced one.
    notes : list of str
        Reductions applied and relaxations made.
    ratios : list of str
        Names of auxiliary ratio variables.
    terms : list of dict
        Max-abs terms over variable names.
    conditions : list of Condition
        Conditioning events of the query.
    query_rows : frozenset of str
        Names of the rows that encode the query.
    windows : list of list of (dict, dict or None)
        Max-abs families written as ranges: each member rate as (numerator, denominator or None).

    Attributes
    ----------
    program : PolynomialProgram
        Objective = the query (``sense`` "min"; use ``with_sense("max")`` for the upper bound).
    kind : {"linear", "linear_fractional", "polynomial"}
        Structure detected after reductions.
    stats_before, stats_after : dict
        Size of the naive response-function program and of the reduced one.
    notes : list of str
        Reductions applied and relaxations made, for reports.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.core.table import ObservedTable
    >>> table = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [0, 1, 0, 1],
    ...                                                 "n": [30, 10, 20, 40]}))
    >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
    >>> compiled = compile_program(cfg, table, "P(P = 1 | Y = 1 & A = 0)", {})
    >>> compiled.kind, compiled.program.n_variables, compiled.stats_before["n_variables"]
    ('linear', 4, 18)
    >>> print(compiled.program.to_text())
    minimize
      10*q_A_Y_P.3
    subject to
      simplex_A_Y_P: q_A_Y_P.0 + q_A_Y_P.3 + q_A_Y_P.4 + q_A_Y_P.7 == 1
      data0: q_A_Y_P.0 == 0.3
      data3: q_A_Y_P.3 == 0.1
      data4: q_A_Y_P.4 == 0.2
      data7: q_A_Y_P.7 == 0.4
    bounds
      0 <= q_A_Y_P.0 <= 1
      0 <= q_A_Y_P.3 <= 1
      0 <= q_A_Y_P.4 <= 1
      0 <= q_A_Y_P.7 <= 1
    """

    program: PolynomialProgram
    kind: str
    stats_before: dict[str, int]
    stats_after: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    ratios: list[str] = field(default_factory=list)
    #: For max-abs programs: each term ``q_i`` as a polynomial over variable *names*, so the
    #: metric value of an incumbent can be re-evaluated exactly.
    terms: list[dict[tuple[str, ...], float]] = field(default_factory=list)
    #: Conditioning events of the query (``P(E | F)``: ``F``), with ``P(F)`` over the program's variables.
    conditions: list[Condition] = field(default_factory=list)
    #: Names of the rows that encode the query (ratio definitions and floors, max-abs rows); without
    #: them the program's feasible set is the set of models the bias admits.
    query_rows: frozenset[str] = frozenset()

    #: For max-abs programs written as family ranges: per family, each member rate as (numerator,
    #: denominator or None) over variable names.
    windows: list[list[tuple[dict, dict | None]]] = field(default_factory=list)
    #: How each observed cell entered the program (before the reductions), so the program can be
    #: moved to another table over the same cells without compiling again
    #: (:mod:`fairprobe.core.rebind`, which checks that the reductions left these rows as they were).
    data_rows: tuple[DataRow, ...] = ()
    #: For window programs: each member's rate as ``(event key of E & F, event key of F)``, the same
    #: layout as :attr:`windows` (how :meth:`window_pair` finds a rate; see :func:`rate_key`).
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

        Examples
        --------
        >>> import pandas as pd
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.core.table import ObservedTable
        >>> table = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [0, 1, 0, 1],
        ...                                                 "n": [30, 10, 20, 40]}))
        >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
        >>> compiled = compile_program(cfg, table, ["P(P = 1 | A = 0) - P(P = 1 | A = 1)"], {}, max_abs=True)
        >>> point = {"q_A_Y_P.3": 0.1, "q_A_Y_P.7": 0.4, "window0_low": 0.0, "window0_high": 1.0}
        >>> [round(v, 6) for v in compiled.term_values(point)]  # |0.25 - 0.666667|
        [0.416667]
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

        A max-abs program written as family windows is compiled with every rate of the metric, so its
        rows outside the query (:attr:`query_rows`) are the models the bias admits, in variables that
        tell every rate apart. A parity of two of its rates is those rows with the two ratio
        definitions ``r P(F) = P(E & F)`` and floors ``P(F) >= 1e-9`` a compilation of the pair
        writes: the same program up to how finely the response types are merged (exact either way).
        An all-pairs bound over k groups thus compiles one program instead of one per pair it solves.

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
            program is not laid out as :meth:`Compiler._set_window_objective` writes it.

        Examples
        --------
        >>> import pandas as pd
        >>> from fairprobe.core.bound import BoundProblem
        >>> cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
        ...                       "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
        >>> joint = BoundProblem("proxy_label", "equalized_odds", cells).joint_program.at({"D": 0.05})
        >>> fpr = [rate_key(f"P(P = 1 | Z = 0 & A = {a})") for a in (1, 0)]
        >>> pair = joint.window_pair(*fpr)  # FPR of group 1 minus that of group 0
        >>> pair.kind, pair.ratios, [c.event for c in pair.conditions]
        ('polynomial', ['query_r0', 'query_r1'], ['Z = 0 & A = 1', 'Z = 0 & A = 0'])
        >>> joint.window_pair(fpr[0], rate_key("P(P = 0 | Z = 1 & A = 0)")) is None  # an FPR and a TNR: no pair
        True
        """
        prog = self.program
        names = [v.name for v in prog.variables]
        if (not self.windows or len(self.window_keys) != len(self.windows) or first == second
                or "max_abs" not in names):
            return None
        end = names.index("max_abs")  # the windows' own variables come after the model's
        if any(n != "max_abs" and not n.startswith("window") for n in names[end:]):
            return None
        model_rows = [c for c in prog.constraints if c.name not in self.query_rows]
        if any(k >= end for c in model_rows for mono in c.poly for k in mono):
            return None
        index = {n: k for k, n in enumerate(names[:end])}

        def indexed(named: Mapping[tuple[str, ...], float]) -> Poly:
            out: Poly = {}
            for mono, coef in named.items():
                if any(n not in index for n in mono):
                    continue  # a variable presolved away (forced to 0), as term_values reads it
                key = tuple(index[n] for n in mono)
                out[key] = out.get(key, 0.0) + coef
            return out

        chosen = []
        for key in (first, second):
            found = [(f, k) for f, keys in enumerate(self.window_keys) for k, member in enumerate(keys)
                     if member == key]
            if len(found) != 1 or len(self.window_keys[found[0][0]]) != len(self.windows[found[0][0]]):
                return None
            f, k = found[0]
            num, den = self.windows[f][k]
            if den is None or key[1] is None:
                return None
            den_poly = indexed(den)
            condition = next((c for c in self.conditions
                              if c.poly == den_poly and c.observed is None and _event_key(c.atoms) == key[1]), None)
            if condition is None:
                return None
            chosen.append((f, indexed(num), den_poly, condition))
        if chosen[0][0] != chosen[1][0]:
            return None
        out = PolynomialProgram(sense="min", name=prog.name, variables=list(prog.variables[:end]),
                                constraints=model_rows)
        objective, rows = {}, set()
        for k, ((_, num, den, _), weight) in enumerate(zip(chosen, (1.0, -1.0), strict=True)):
            name = f"query_r{k}"
            definition, floor = _ratio_rows(out.n_variables, num, den, name)
            if floor is None:
                return None
            r = out.add_variable(name, 0.0, 1.0)
            out.constraints += [definition, floor]
            rows |= {f"{name}_def", f"{name}_pos"}
            objective[(r,)] = weight
        out.objective = objective
        notes = [*(n for n in self.notes if not n.startswith("max over pairs")),
                 "a parity of two of the metric's rates, read off its joint program (the models it admits)"]
        return CompiledProgram(out, _detect_kind(out), dict(self.stats_before), out.stats().to_dict(), notes,
                               ["query_r0", "query_r1"], [], [chosen[0][3], chosen[1][3]], frozenset(rows), [],
                               self.data_rows)


def _by_name(poly: Poly, names: Sequence[str]) -> dict[tuple[str, ...], float]:
    """``poly`` over variable names instead of indices (robust to presolve renumbering)."""
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


def _event_key(atoms: Sequence[Atom]) -> EventKey:
    return tuple(sorted(set(atoms), key=lambda a: (a.var, a.intervention, a.negated, str(a.value))))


def rate_key(rate: str | ParsedExpression) -> tuple[EventKey, EventKey] | None:
    """``(key of E & F, key of F)`` of a rate written exactly as one conditional probability ``P(E | F)``.

    The identity under which a compiled window program knows its members
    (:attr:`CompiledProgram.window_keys`); None for anything else (a multiple, a complement
    ``1 - P(...)``, a sum, a parameter, an unconditional probability).

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
    return _event_key(atom.event + atom.given), _event_key(atom.given)


def _ratio_rows(r: int, num: Poly, den: Poly, name: str) -> tuple[Constraint, Constraint | None]:
    """Ratio variable ``r = num / den``'s rows: ``r den - num == 0`` and the floor ``den >= 1e-9`` (None when
    ``den`` is a constant)."""
    body = {m: v for m, v in den.items() if m}
    floor = Constraint(body, ">=", RATIO_EPSILON - den.get((), 0.0), f"{name}_pos") if body else None
    return Constraint(poly_add(poly_mul({(r,): 1.0}, den), num, -1.0), "==", 0.0, f"{name}_def"), floor


def linear_terms(expr: sympy.Expr, symbols: Any) -> tuple[float, dict[sympy.Symbol, float]] | None:
    """``(constant, {symbol: coefficient})`` of an expanded expression that is affine in ``symbols``.

    Read off the expression's terms structurally; None when a term is not a number times at most one
    of the symbols (a product, a power, another symbol), and the caller falls back to ``sympy.Poly``.

    Parameters
    ----------
    expr : sympy.Expr
        An expanded expression whose free symbols are among ``symbols``.
    symbols : iterable of sympy.Symbol

    Returns
    -------
    tuple or None

    Examples
    --------
    >>> import sympy
    >>> a, b = sympy.symbols("a b")
    >>> linear_terms(sympy.expand(2 * a - b / 4 + 0.5), [a, b])
    (0.5, {a: 2.0, b: -0.25})
    >>> linear_terms(a * b, [a, b]) is None
    True
    """
    wanted = set(symbols)
    const = 0.0
    coefs: dict[sympy.Symbol, float] = {}
    for term in sympy.Add.make_args(expr):
        coef, rest = term.as_coeff_Mul()
        if not coef.is_number:
            return None
        if rest == 1:
            const += float(coef)
        elif rest in wanted:
            coefs[rest] = coefs.get(rest, 0.0) + float(coef)
        else:
            return None
    return const, coefs


class _Compiler:
    def __init__(self, config: BiasConfig, table: ObservedTable, params: Mapping[str, float],
                 options: CompileOptions) -> None:
        self.options = options
        self.reduce = options.reduce
        self.config = config
        self.table = table
        self.params = dict(params)
        table.validate_against(config)
        config.check_parameter_values(self.params)
        self.dag = config.dag.latent_projection()
        self.cards = {v: config.cardinality(v) for v in self.dag.endogenous}
        self.model: ResponseModel | None = None  # built in build(), once the interventions are known
        for node in table.nodes:
            top = table.cardinality(node)
            if top > self.cards[node]:
                raise DataError(f"Column {node!r} has {top} values but the config declares {self.cards[node]}.")
        self.terms: dict[EventKey, list[EventTerm]] = {}
        self.intervened: set[str] = set()
        self.notes: list[str] = []
        self.ratio_names: list[str] = []
        self._columns: dict[int, np.ndarray] = {}
        self.conditions: dict[str, Condition] = {}
        self.query_rows: set[str] = set()
        self.floors: dict[str, EventKey] = {}  # floor row of a query ratio -> its conditioning event
        self.given_order: dict[EventKey, tuple[Atom, ...]] = {}
        self.window_fractions: list = []
        self.window_keys: list = []

    def _response_model(self, parsed: Sequence[ParsedExpression]) -> ResponseModel:
        """The response model, with every variable that no event intervenes on allowed as a slice."""
        intervened = {k for expr in parsed for pa in expr.atoms for a in (*pa.event, *pa.given)
                      for k, _ in a.intervention}
        sliceable = [v for v in self.dag.endogenous if v not in intervened] if self.options.uses("slicing") else []
        # glue rows need P(slice) as data: an unconditioned table known exactly, with the slice columns
        pinned = not self.table.given and self.table.region is None and self.options.uses("partial_slices")
        partial = [v for v in sliceable if v in self.table.nodes] if pinned else []
        model = shared_model(self.dag, self.cards, sliceable=sliceable, partial=partial)
        for comp in model.components:
            if not comp.slice_vars:
                continue
            readers, read = partial_readers(comp)
            if readers:
                who = [comp.members[i].name for i in readers]
                shared = f"read only {read}: their response types are shared by the slices with equal {read}" if read \
                    else "read none of them: their response types are shared by every slice"
                self.notes.append(
                    f"absorbed {comp.slice_vars} into c-component {comp.names[len(comp.slice_vars):]} slice by slice; "
                    f"{who} {shared} (equal conditional laws, glued by linear rows; exact)")
            else:
                self.notes.append(f"absorbed {comp.slice_vars} into c-component {comp.names[len(comp.slice_vars):]} "
                                  "slice by slice (exact: every member reads them)")
        return model

    def glue_masks(self, g: int) -> list[tuple[tuple, int, int, np.ndarray]]:
        """(shared-slice key, slice index, partial readers' joint type, mask over the group's types) of group ``g``.

        Empty unless a component of the group has partial readers (see :meth:`_response_model`).
        """
        out: list[tuple[tuple, int, int, np.ndarray]] = []
        for c in self.group_members[g]:
            comp = self.model.components[c]
            readers, read = partial_readers(comp)
            if not readers:
                continue
            k = len(comp.slice_vars)
            slice_cols = comp.types[:, :k].astype(np.int64)
            slice_id = np.zeros(len(comp.types), dtype=np.int64)
            for j, v in enumerate(comp.slice_vars):
                slice_id = slice_id * self.cards[v] + slice_cols[:, j]
            joint = np.zeros(len(comp.types), dtype=np.int64)
            for i in readers:
                joint = joint * comp.members[i].n_types + comp.types[:, k + i]
            shared = [comp.slice_vars.index(v) for v in read]
            for sid, jid in sorted(set(zip(slice_id.tolist(), joint.tolist(), strict=True))):
                row = int(np.flatnonzero(slice_id == sid)[0])
                key = (c, tuple(int(slice_cols[row, j]) for j in shared))
                mask = (slice_id == sid) & (joint == jid)
                _, full = self.final_masks(EventTerm({c: mask}))
                out.append((key, sid, jid, full[g]))
        return out

    def _add_glue_rows(self, prog: PolynomialProgram, g: int, glue: list[tuple[tuple, int, int, np.ndarray]]) -> None:
        """``q(s, j) = P(s) / P(s0) * q(s0, j)`` for every slice ``s`` sharing the partial readers with ``s0``."""
        comp_of = {c: self.model.components[c] for c in self.group_members[g]}
        mass: dict[tuple[int, int], float] = {}

        def slice_mass(c: int, sid: int) -> float:
            if (c, sid) not in mass:
                comp, values, rest = comp_of[c], {}, sid
                for v in reversed(comp.slice_vars):
                    rest, values[v] = divmod(rest, self.cards[v])
                mass[(c, sid)] = float(self.table.prob(values))
            return mass[(c, sid)]

        by_key: dict[tuple, dict[int, dict[int, Poly]]] = {}
        for key, sid, jid, mask in glue:
            ids = np.unique(self.classes[g][mask])
            poly = {(self.var_base[g] + int(k),): 1.0 for k in ids}
            by_key.setdefault(key, {}).setdefault(sid, {})[jid] = poly
        count = 0
        for (c, _shared), slices in by_key.items():
            ref = max(slices, key=lambda sid: (slice_mass(c, sid), -sid))
            p0 = slice_mass(c, ref)
            if p0 <= 0.0:
                continue  # no slice of this key has mass: nothing to glue
            for sid, polys in slices.items():
                ps = slice_mass(c, sid)
                if sid == ref or ps <= 0.0:
                    continue  # an empty slice carries no mass (its data rows force it to 0)
                for jid, poly in polys.items():
                    body = poly_add(poly, slices[ref].get(jid, {}), -ps / p0)
                    prog.constraints.append(Constraint(body, "==", 0.0, f"glue_{c}_{sid}_{jid}"))
                    count += 1
        if count:
            self.notes.append(f"{count} glue rows tie the shared response types' law across slices")

    def _naive_size(self) -> int:
        """Variables of the naive response-function program (one per joint type; never enumerated)."""
        total = 0
        for names in self.dag.c_components():
            total += math.prod(self.cards[v] ** math.prod(self.cards[p] for p in self.dag.observed_parents(v))
                               for v in names)
        return total

    # -- events ---------------------------------------------------------------------------
    def register(self, atoms: Sequence[Atom]) -> EventKey:
        """The key of an event, with its response-type terms.

        An event with ``A != a`` atoms is the disjoint union of the ordinary events of
        :meth:`expand`; its terms are theirs, so its polynomial is the sum of their polynomials and
        every later step (ratio variables, floors, conditions) treats it as any other event.
        """
        key = _event_key(atoms)
        if key not in self.terms:
            self.terms[key] = [t for part in self.expand(key) for t in self.model.event_terms(part)]
            for a in key:
                self.intervened.update(k for k, _ in a.intervention)
        return key

    def expand(self, atoms: Sequence[Atom]) -> list[EventKey]:
        """Disjoint ordinary events whose union is the event ``atoms`` (itself without ``!=`` atoms).

        A variable with ``!=`` atoms takes every value of its cardinality that none of them excludes
        (and that equals its ``=`` atom, if any); the events are the combinations of those values.

        Raises
        ------
        ConfigError
            A ``!=`` value that is not a code of the variable (the message lists its values).
        """
        atoms = tuple(atoms)
        if not any(a.negated for a in atoms):
            return [atoms]
        slots: dict[tuple, list[int]] = {}
        for a in atoms:
            if not a.negated:
                continue
            if a.var not in self.cards:
                raise ConfigError(f"Event names {a.var!r}, which is not an endogenous node of the DAG.")
            k = self.cards[a.var]
            if isinstance(a.value, bool) or not isinstance(a.value, (int, np.integer)) or not 0 <= a.value < k:
                labels = list(self.table.categories.get(a.var) or [])
                shown = f" (labels in code order: {labels})" if labels and labels != list(range(k)) else ""
                raise ConfigError(f"{a} compares {a.var} with {a.value!r}, which is not one of its values: {a.var} "
                                  f"takes the codes 0..{k - 1}{shown}. Write {a.var} != <code>, e.g. {a.var} != 0.")
            allowed = slots.setdefault((a.var, a.intervention), list(range(k)))
            if a.value in allowed:
                allowed.remove(int(a.value))
        plain = [a for a in atoms if not a.negated]
        for a in plain:  # an "=" atom on a variable with "!=" atoms keeps only its own value
            slot = (a.var, a.intervention)
            if slot in slots and isinstance(a.value, (int, np.integer)) and not isinstance(a.value, bool):
                slots[slot] = [v for v in slots[slot] if v == a.value]
        out = []
        for values in product(*slots.values()):
            extra = [Atom(var, v, do) for (var, do), v in zip(slots, values, strict=True)]
            out.append(_event_key([*plain, *extra]))
        return out

    def data_events(self) -> list[tuple[EventKey, float, EventKey | None]]:
        """(cell & given event, observed probability, given event) for every cell of the grid."""
        nodes = self.table.nodes
        given_atoms = tuple(Atom(k, int(v)) for k, v in self.table.given.items())
        given_key = self.register(given_atoms) if given_atoms else None
        probs = self.table.cell_probabilities()
        warn_tiny_cells(probs, stacklevel=5)
        out = []
        for cell in product(*[range(self.cards[v]) for v in nodes]):
            atoms = tuple(Atom(v, c) for v, c in zip(nodes, cell, strict=True)) + given_atoms
            out.append((self.register(atoms), probs.get(cell, 0.0), given_key))
        return out

    # -- reductions -----------------------------------------------------------------------
    def plan_components(self) -> None:
        model = self.model
        table_marginal_known = not self.table.given and self.table.region is None
        self.fixed: dict[int, np.ndarray] = {}
        self.group: dict[int, int] = {c.index: c.index for c in model.components}
        for comp in model.components:
            if len(comp.members) != 1 or comp.members[0].parents or comp.slice_vars:
                continue
            v = comp.members[0].name
            if v in self.intervened:
                continue
            partners = [c for c in model.components if c.index != comp.index
                        and all(v in m.parents for m in c.members)] if self.reduce else []
            if partners:
                # Absorbing beats fixing: types are then merged per slice of v (x(a, slice_a)),
                # instead of per combination of slices.
                target = partners[0]
                self.group[comp.index] = target.index
                self.notes.append(
                    f"absorbed root {v} into c-component {target.names} (exact: every member reads {v})"
                )
            elif table_marginal_known and v in self.table.nodes:
                self.fixed[comp.index] = np.array([self.table.prob({v: a}) for a in range(model.cards[v])])
                self.notes.append(f"fixed P({v}) to the observed marginal")

    def final_masks(self, term: EventTerm) -> tuple[float, dict[int, np.ndarray]]:
        """Apply fixing and absorption to one term: (constant factor, masks per final group)."""
        coef = 1.0
        by_group: dict[int, dict[int, np.ndarray]] = {}
        for c, mask in term.masks.items():
            if c in self.fixed:
                coef *= float(self.fixed[c][mask].sum())
                continue
            by_group.setdefault(self.group[c], {})[c] = mask
        out: dict[int, np.ndarray] = {}
        for g, parts in by_group.items():
            members = self.group_members[g]
            full: np.ndarray | None = None
            for c in members:  # outer product in member order (absorbed roots first)
                n = self.model.components[c].n_types
                m = parts.get(c, np.ones(n, dtype=bool))
                full = m if full is None else np.logical_and.outer(full, m).ravel()
            out[g] = full
        return coef, out

    def build(self, query: str | ParsedExpression | Sequence[str | ParsedExpression],
              max_abs: bool = False) -> CompiledProgram:
        cfg = self.config
        queries = list(query) if isinstance(query, (list, tuple)) else [query]
        parsed_qs = [q if isinstance(q, ParsedExpression) else parse_expression(q) for q in queries]
        counterfactual = any(a.intervention for q in parsed_qs for pa in q.atoms for a in (*pa.event, *pa.given))
        if self.reduce and counterfactual and not self.table.given and self.table.region is None:
            # parentless interventions are conditioning (on margins the data pin)
            margins = self._margins()
            parsed_qs = [identify_interventions(q, self.dag, margins, self.notes) for q in parsed_qs]
        for parsed_q in parsed_qs:
            unknown = sorted(parsed_q.variables - set(self.dag.endogenous))
            if unknown:
                raise ConfigError(
                    f"The metric needs {unknown}, which are not nodes of the bias DAG "
                    f"{self.dag.endogenous}; pick a metric that only uses the bias's nodes, or a "
                    "bias whose DAG has them."
                )
        self.model = self._response_model([*cfg.parsed_constraints, *parsed_qs])
        data = self.data_events()
        cons_atoms = [self._atom_keys(c) for c in cfg.parsed_constraints]
        query_atoms = [self._atom_keys(q) for q in parsed_qs]
        self.plan_components()
        groups = sorted(set(self.group[c.index] for c in self.model.components if c.index not in self.fixed))
        self.group_members = {
            g: sorted([c for c, gg in self.group.items() if gg == g and c not in self.fixed],
                      key=lambda c: (0 if c != g else 1, c))
            for g in groups
        }
        # signature merging per final group
        finals: dict[EventKey, list[tuple[float, dict[int, np.ndarray]]]] = {
            key: [self.final_masks(t) for t in terms] for key, terms in self.terms.items()
        }
        naive_vars = self._naive_size()
        prog = PolynomialProgram(sense="min", name="fairprobe-bound")
        self._add_group_variables(prog, groups, finals)
        naive_terms = self._event_polys(finals)
        self._add_data_rows(prog, data)
        for j, (parsed, keys) in enumerate(zip(cfg.parsed_constraints, cons_atoms, strict=True)):
            self._add_constraint(prog, parsed, keys, f"bias{j}")
        named_terms: list[dict[tuple[str, ...], float]] = []
        if max_abs:
            named_terms = self._set_max_abs_objective(prog, parsed_qs, query_atoms)
        else:
            self._set_objective(prog, parsed_qs[0], query_atoms[0])
        stats_before = {"n_variables": naive_vars, "n_terms": naive_terms,
                        "n_constraints": len(data) + len(cfg.constraints)}
        prog, conditions, named_terms = self._reduced(prog, named_terms)
        return CompiledProgram(prog, _detect_kind(prog), stats_before, prog.stats().to_dict(), self.notes,
                               self.ratio_names, named_terms, conditions, frozenset(self.query_rows),
                               self.window_fractions, tuple(getattr(self, "data_rows", ())), self.window_keys)

    def _margins(self) -> dict[str, dict[int, float]]:
        """Each node's marginal distribution in the table (only which values have mass is read)."""
        columns = self.table.column_arrays()
        out: dict[str, dict[int, float]] = {}
        for v in self.table.nodes:
            values, where = np.unique(columns[v], return_inverse=True)
            out[v] = dict(zip(values.tolist(), np.bincount(where, weights=columns["prob"]).tolist(), strict=True))
        return out

    def _add_group_variables(self, prog: PolynomialProgram, groups: list[int],
                             finals: Mapping[EventKey, list[tuple[float, dict[int, np.ndarray]]]]) -> None:
        """One variable per class of response types with the same signature over every event, per group.

        A group whose member is unconfounded and read atomically gets conditional parameters instead
        (:meth:`_add_conditional_parameters`); ``reduce=False`` keeps one variable per joint type.
        """
        columns: dict[int, list[np.ndarray]] = {g: [] for g in groups}
        for fl in finals.values():
            for _, masks in fl:
                for g, m in masks.items():
                    columns[g].append(m)
        self.classes: dict[int, np.ndarray] = {}
        self.var_base: dict[int, int] = {}
        self.conditional: dict[int, dict[tuple[int, int], int]] = {}
        for g in groups:
            if not columns[g]:
                continue
            glue = self.glue_masks(g)
            if not glue and self.reduce and self._add_conditional_parameters(prog, g, columns[g]):
                continue
            columns[g].extend(m for *_, m in glue)  # classes refine every glued (slice, shared type) cell
            if self.reduce:
                sig = np.packbits(np.stack(columns[g], axis=1), axis=1)
            else:  # baseline: one variable per joint response type, as the reference pipeline
                sig = np.arange(len(columns[g][0]))[:, None]
            _, rep, inv = np.unique(sig, axis=0, return_index=True, return_inverse=True)
            # deterministic class numbering: by first type index
            order = np.argsort(rep)
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            self.classes[g] = rank[inv.ravel()]
            names = "_".join(v for c in self.group_members[g] for v in self.model.components[c].names)
            self.var_base[g] = prog.n_variables
            for k in range(len(rep)):
                prog.add_variable(f"q_{names}.{k}", 0.0, 1.0)
            prog.constraints.append(Constraint(
                {(self.var_base[g] + k,): 1.0 for k in range(len(rep))}, "==", 1.0, f"simplex_{names}"))
            if glue:
                self._add_glue_rows(prog, g, glue)

    def _event_polys(self, finals: Mapping[EventKey, list[tuple[float, dict[int, np.ndarray]]]]) -> int:
        """``self.polys``: each event's probability over the program's variables; returns the naive term count."""
        self.polys: dict[EventKey, Poly] = {}
        naive_terms = 0
        for key, fl in finals.items():
            poly: Poly = {}
            for coef, masks in fl:
                if coef == 0.0:
                    continue
                factors = []
                for g, m in masks.items():
                    naive_terms += int(m.sum())
                    if g in self.conditional:
                        factors.append({(self.conditional[g][self._atomic(g, m)],): 1.0})
                        continue
                    ids = np.unique(self.classes[g][m])
                    factors.append({(self.var_base[g] + int(k),): 1.0 for k in ids})
                term: Poly = {(): coef}
                for f in factors:
                    term = poly_mul(term, f)
                poly = poly_add(poly, term)
            self.polys[key] = poly
        return naive_terms

    def _region_bounds(self) -> dict[tuple[int, ...], tuple[float, float]] | None:
        """Cell -> (lower, upper) probability of a table known only up to a box (``table.region``)."""
        if self.table.region is None:
            return None
        lo, hi = self.table.region
        cells = self.table.cells[self.table.nodes].to_numpy()
        return {tuple(int(x) for x in row): (float(a), float(b)) for row, a, b in zip(cells, lo, hi, strict=True)}

    def _add_data_rows(self, prog: PolynomialProgram, data: list[tuple[EventKey, float, EventKey | None]]) -> None:
        """One row per observed cell (``P(cell & given) = p * P(given)`` for a selected table).

        For a table known only up to a box (``table.region``) each listed cell's probability is a
        variable ``obs.k`` in its box, the variables summing to 1: a bound of this program holds
        for every table in the region. For a selected table ``obs.k`` is the cell's joint mass with
        the selection (``p * P(given)``), which keeps the rows linear. A cell the table does not
        list stays at 0.
        """
        given_poly = self._given_variable(prog, data[0][2]) if data and data[0][2] is not None else None
        region = self._region_bounds()
        cells = list(product(*[range(self.cards[v]) for v in self.table.nodes])) if region is not None else []
        observed: list[int] = []
        grid = list(product(*[range(self.cards[v]) for v in self.table.nodes]))
        self.data_rows: list[DataRow] = []
        for k, (key, prob, given_key) in enumerate(data):
            body = dict(self.polys[key])
            box = region.get(cells[k]) if region is not None else None
            if box is None:
                self.data_rows.append(DataRow(f"data{k}", grid[k], dict(body),
                                              dict(given_poly) if given_key is not None else None))
            if box is not None and given_key is not None:
                # the cell's joint mass m = p * P(given) is the variable (a perspective of p): the box
                # lo <= p <= hi is lo * P(given) <= m <= hi * P(given), and sum p = 1 is sum m = P(given),
                # all linear, where p * P(given) was bilinear (exact: P(given) >= 1e-9)
                pi = prog.add_variable(f"obs.{k}", 0.0, 1.0)
                observed.append(pi)
                for end, sense, tag in ((box[0], ">=", "lo"), (box[1], "<=", "hi")):
                    row = poly_add({(pi,): 1.0}, given_poly, -end)
                    c0 = row.pop((), 0.0)
                    prog.constraints.append(Constraint(row, sense, -c0, f"obs{k}_{tag}"))
                body = poly_add(body, {(pi,): 1.0}, -1.0)
                rhs = 0.0
            elif box is not None:
                pi = prog.add_variable(f"obs.{k}", box[0], box[1])
                observed.append(pi)
                body = poly_add(body, {(pi,): 1.0}, -1.0)
                rhs = 0.0
            elif given_key is not None:
                body = poly_add(body, given_poly, -prob)
                rhs = 0.0
            else:
                rhs = prob
            const = body.pop((), 0.0)
            if not body:
                if abs(const - rhs) > 1e-9:
                    raise DataError(f"The table is inconsistent with the model at cell #{k}.")
                continue
            prog.constraints.append(Constraint(body, "==", rhs - const, f"data{k}"))
        if observed and given_poly is not None:
            row = poly_add({(pi,): 1.0 for pi in observed}, given_poly, -1.0)
            c0 = row.pop((), 0.0)
            prog.constraints.append(Constraint(row, "==", -c0, "obs_simplex"))
        elif observed:
            prog.constraints.append(Constraint({(pi,): 1.0 for pi in observed}, "==", 1.0, "obs_simplex"))
        if self.table.given:
            body = dict(given_poly)
            const = body.pop((), 0.0)
            prog.constraints.append(Constraint(body, ">=", RATIO_EPSILON - const, "selected_positive"))

    def _reduced(self, prog: PolynomialProgram, named_terms: list[dict[tuple[str, ...], float]]
                 ) -> tuple[PolynomialProgram, list[Condition], list[dict[tuple[str, ...], float]]]:
        """The exact presolve and rewrites, with the conditioning events and max-abs terms mapped along."""
        conditions = list(self.conditions.values())
        removed, remap = _presolve_zero_variables(prog, self._undefined) if self.reduce else (0, None)
        if removed:
            self.notes.append(f"presolve removed {removed} variables forced to zero by the data")
            conditions = [Condition(c.event, c.atoms, remap(c.poly), c.observed) for c in conditions]
            self.data_rows = [_mapped_row(r, remap) for r in getattr(self, "data_rows", [])]
        rewrite = reparametrise(prog) if self.options.uses("reparametrise") else None
        if rewrite is not None:
            before = [v.name for v in prog.variables]
            prog = rewrite.program
            index = prog._index

            def moved(poly: Poly) -> Poly:
                return {tuple(sorted(index[n] for n in m)): v
                        for m, v in rewrite.map_named(_by_name(poly, before)).items()}

            conditions = [Condition(c.event, c.atoms, moved(c.poly), c.observed) for c in conditions]
            self.data_rows = [_mapped_row(r, moved) for r in getattr(self, "data_rows", [])]
            named_terms = [rewrite.map_named(t) for t in named_terms]
            self.window_fractions = [[(rewrite.map_named(num), None if den is None else rewrite.map_named(den))
                                      for num, den in family] for family in self.window_fractions]
            self.notes.extend(rewrite.notes)
        for c in conditions:
            if c.observed is None and not {m: v for m, v in c.poly.items() if m}:
                if c.poly.get((), 0.0) < RATIO_EPSILON:  # P(F) is the constant 0
                    self._undefined(c.atoms)
        return prog, conditions, named_terms

    def _given_variable(self, prog: PolynomialProgram, given_key: EventKey) -> Poly:
        """``P(given)`` for the data rows: one variable defined by one row when it has many terms.

        Every row ``P(cell & given) = p * P(given)`` of a selected table repeats ``P(given)``, which
        reads nearly every variable: with k groups that is O(k^2) nonzeros. One variable ``s`` with
        ``s = P(given)`` keeps the rows sparse (exact: a linear substitution).
        """
        poly = self.polys[given_key]
        if not self.reduce or sum(1 for m in poly if m) <= 8:
            return poly
        s = prog.add_variable("p_given", 0.0, 1.0)
        self._append(prog, poly_add({(s,): 1.0}, poly, -1.0), "==", "given_def")
        # every later use (the bias's P(S = 1) >= 1 - D, conditioning events) reads the variable too,
        # so no row sums the same probabilities again with its own rounding
        self.polys[given_key] = {(s,): 1.0}
        return {(s,): 1.0}

    def _undefined(self, key: Sequence[Atom] | str) -> None:
        """Raise: a conditioning event of the query is forced to probability 0 (structurally)."""
        atoms = self.floors[key] if isinstance(key, str) else key
        atoms = self.given_order.get(tuple(atoms), atoms)
        raise UndefinedMetricError(undefined_metric_message(
            self.config, self.table, atoms, "(the table's zero cells and the bias's equality constraints force it)"))

    def _record_condition(self, given: EventKey, known: float | None) -> None:
        atoms = self.given_order.get(given, given)
        text = _event_text(atoms)
        if text not in self.conditions:
            self.conditions[text] = Condition(text, tuple(atoms), dict(self.polys[given]), known)

    def _atomic(self, g: int, mask: np.ndarray) -> tuple[int, int] | None:
        """(parent configuration, value) when ``mask`` is exactly "V(config) = value"."""
        columns = self._columns.get(g)
        if columns is None:  # value of V at each parent configuration, per joint type
            comp = self.model.components[g]
            columns = self._columns[g] = comp.members[0].table[comp.types[:, 0]].T
        first = int(np.argmax(mask))
        for c, col in enumerate(columns):
            v = int(col[first])
            if np.array_equal(mask, col == v):
                return c, v
        return None

    def _add_conditional_parameters(self, prog: PolynomialProgram, g: int, masks: list[np.ndarray]) -> bool:
        """Parametrise an unconfounded variable by its conditional probabilities when exact.

        A c-component with one member ``V`` has no latent parent. When every event reads ``V`` at
        a single parent configuration, probabilities depend on its response types only through
        ``P(V = v | pa = c)``, one free distribution per configuration (response tables have
        independent coordinates per configuration): far fewer variables and bilinear terms.
        """
        if (self.group_members[g] != [g] or len(self.model.components[g].members) != 1
                or self.model.components[g].slice_vars):
            return False
        atoms = set()
        for m in masks:
            a = self._atomic(g, m)
            if a is None:
                return False
            atoms.add(a)
        member = self.model.components[g].members[0]
        index: dict[tuple[int, int], int] = {}
        for c in sorted({c for c, _ in atoms}):
            rest, digits = c, []
            for pc in reversed(member.parent_cards):
                rest, d = divmod(rest, pc)
                digits.append(d)
            cfg = "_".join(f"{p}{d}" for p, d in zip(member.parents, reversed(digits), strict=True))
            ids = []
            for v in range(member.card):
                index[(c, v)] = prog.add_variable(f"p_{member.name}{v}_given_{cfg or 'none'}", 0.0, 1.0)
                ids.append(index[(c, v)])
            prog.constraints.append(Constraint({(i,): 1.0 for i in ids}, "==", 1.0, f"dist_{member.name}_{cfg}"))
        self.conditional[g] = index
        parents = ", ".join(member.parents)
        self.notes.append(f"{member.name} is unconfounded: parametrised by P({member.name} | {parents})")
        return True

    def _atom_keys(self, parsed: ParsedExpression) -> list[tuple[EventKey, EventKey | None]]:
        out = []
        for atom in parsed.atoms:
            if atom.given:
                given = self.register(atom.given)
                self.given_order.setdefault(given, tuple(atom.given))  # as the user wrote it, for messages
                out.append((self.register(atom.event + atom.given), given))
            else:
                out.append((self.register(atom.event), None))
        return out

    def _substituted(self, parsed: ParsedExpression) -> sympy.Expr:
        subs = {}
        for s in parsed.parameters:
            if str(s) not in self.params:
                raise ConfigError(f"No value for parameter {s} in {parsed.source!r}.")
            subs[s] = sympy.Float(self.params[str(s)])
        return sympy.expand(parsed.expr.subs(subs))

    def _poly_of(self, expr: sympy.Expr, symbol_polys: Mapping[sympy.Symbol, Poly]) -> Poly:
        """Evaluate a small polynomial sympy expression with atoms replaced by sparse polys."""
        terms = linear_terms(expr, symbol_polys.keys())
        if terms is not None:  # the common case, without sympy.Poly (whose float domain costs ~3 ms a call)
            const, coefs = terms
            out: Poly = {(): const} if const else {}
            for sym, c in coefs.items():
                out = poly_add(out, symbol_polys[sym], c)
            return out
        p = sympy.Poly(expr, *symbol_polys.keys()) if symbol_polys else None
        if p is None:
            return {(): float(expr)} if float(expr) != 0 else {}
        out: Poly = {}
        for monom, coef in p.terms():
            term: Poly = {(): float(coef)}
            for sym, power in zip(symbol_polys, monom, strict=True):
                for _ in range(power):
                    term = poly_mul(term, symbol_polys[sym])
            out = poly_add(out, term)
        return out

    def _add_constraint(self, prog: PolynomialProgram, parsed: Any, keys: list, name: str) -> None:
        expr = self._substituted(parsed)
        symbols = parsed.symbols
        givens = {keys[k][1] for k, s in enumerate(symbols) if keys[k][1] is not None and s in expr.free_symbols}
        pinned = all(self.observed_probability(g) is not None for g in givens)
        terms = linear_terms(expr, symbols)
        linear = terms is not None or all(sympy.degree(expr, s) <= 1 for s in symbols if s in expr.free_symbols)
        if givens and len(givens) == 1 and linear and not pinned:
            # multiply through by P(F) > 0: conditionals become joint probabilities
            (gkey,) = givens
            pf = self.polys[gkey]
            sym_polys = {}
            for k, s in enumerate(symbols):
                ev, g = keys[k]
                sym_polys[s] = self.polys[ev] if g is not None else poly_mul(self.polys[ev], pf)
            if terms is not None:
                const, coefs = terms
            else:
                const = float(expr.subs({s: 0 for s in symbols}))
                coefs = {s: float(expr.coeff(s)) for s in symbols}
            body = poly_scale(pf, const)
            for s in symbols:
                c = coefs.get(s, 0.0)
                if c:
                    body = poly_add(body, sym_polys[s], c)
            self._append(prog, body, parsed.sense, name)
            return
        sym_polys = {s: self._ratio_poly(prog, keys[k], f"{name}_r{k}") for k, s in enumerate(symbols)}
        self._append(prog, self._poly_of(expr, sym_polys), parsed.sense, name)

    @staticmethod
    def _append(prog: PolynomialProgram, body: Poly, sense: str, name: str) -> None:
        body = dict(body)
        const = body.pop((), 0.0)
        if not body:
            ok = {"<=": const <= 1e-12, ">=": const >= -1e-12, "==": abs(const) <= 1e-12}[sense]
            if not ok:
                raise ConfigError(f"Constraint {name} reduces to the false statement {const} {sense} 0.")
            return
        prog.constraints.append(Constraint(body, sense, -const, name))

    def observed_probability(self, key: EventKey) -> float | None:
        """``P(F)`` when the data pin it: a factual event on table columns of an unconditioned table.

        Every model satisfying the data rows has exactly this value, so a conditional
        ``P(E | F)`` is the linear ``P(E & F) / P(F)``; no ratio variable is needed.
        """
        if self.table.given or not self.reduce or self.table.region is not None:
            return None  # a table known up to a region pins no probability
        if any(a.intervention or a.var not in self.table.nodes for a in key):
            return None
        value = 0.0
        for part in self.expand(key):  # a union (A != a) is pinned when every part is
            event: dict[str, int] = {}
            for a in part:
                if event.get(a.var, a.value) != a.value:
                    return None
                event[a.var] = int(a.value)
            value += self.table.prob(event)
        return value if value > 0 else None

    def _ratio_poly(self, prog: PolynomialProgram, keys: tuple, name: str, query: bool = False) -> Poly:
        """``P(E | F)``: a constant multiple of ``P(E & F)`` when the data pin ``P(F)``, else a ratio variable.

        ``query`` marks the ratios of the metric (not of the bias's constraints): their
        conditioning events are recorded, and one forced to probability 0 is an error.
        """
        ev, given = keys
        if given is None:
            return self.polys[ev]
        known = self.observed_probability(given)
        if query:
            self._record_condition(given, known)
        if known is not None:
            return poly_scale(self.polys[ev], 1.0 / known)
        pf = self.polys[given]
        pf_body = dict(pf)
        const = pf_body.pop((), 0.0)
        if query and not pf_body and const < RATIO_EPSILON:
            self._undefined(given)  # P(F) is the constant 0: the ratio would be free
        r = prog.add_variable(name, 0.0, 1.0)
        self.ratio_names.append(name)
        definition, floor = _ratio_rows(r, self.polys[ev], pf, name)
        prog.constraints.append(definition)
        if query:
            self.query_rows.update({f"{name}_def", f"{name}_pos"})
            self.floors[f"{name}_pos"] = given
        if floor is not None:
            prog.constraints.append(floor)
        self.notes.append(f"conditional probability {name} encoded with P(given) >= {RATIO_EPSILON}")
        return {(r,): 1.0}

    def _set_objective(self, prog: PolynomialProgram, parsed: ParsedExpression, keys: list) -> None:
        expr = self._substituted(parsed)
        symbols = [s for s in parsed.symbols if s in expr.free_symbols]
        conditional = [s for s in symbols if keys[parsed.symbols.index(s)][1] is not None]
        linear_so_far = prog.max_degree <= 1
        if all(self.observed_probability(keys[parsed.symbols.index(s)][1]) is not None for s in conditional):
            for s in conditional:
                given = keys[parsed.symbols.index(s)][1]
                self._record_condition(given, self.observed_probability(given))
            conditional = []  # every conditioning event is pinned by the data: a linear objective
        if len(symbols) == 1 and conditional and sympy.degree(expr, symbols[0]) == 1 and linear_so_far:
            # Linear-fractional: solved exactly as one LP by the driver. (With polynomial
            # constraints a bounded ratio variable below is much easier for global solvers
            # than an unbounded epigraph variable.)
            s = symbols[0]
            ev, given = keys[parsed.symbols.index(s)]
            a = float(expr.coeff(s))
            b = float(expr.subs(s, 0))
            num = poly_add(poly_scale(self.polys[ev], a), self.polys[given], b)
            den = self.polys[given]
            self._record_condition(given, None)
            den_body = {m: v for m, v in den.items() if m}
            if not den_body and den.get((), 0.0) < RATIO_EPSILON:
                self._undefined(given)
            prog.objective = num
            prog.objective_denominator = den
            return
        sym_polys = {}
        for k, s in enumerate(parsed.symbols):
            if s in expr.free_symbols:
                sym_polys[s] = self._ratio_poly(prog, keys[k], f"query_r{k}", query=True)
        prog.objective = self._poly_of(expr, sym_polys)
        prog.objective_denominator = None


    def _window_families(self, parsed: list[ParsedExpression], keys: list[list]) -> list[list[tuple]] | None:
        """The quantities of a max-abs metric grouped in families, when it is a max of family ranges.

        Applies when every term is ``q_a - q_b`` (two conditional probabilities) and the terms of
        each family (quantities linked by terms) are all its pairs: then ``max_i |q_i| = max_f
        (max_{a in f} q_a - min_{b in f} q_b)``. ``None`` when the terms have another form.
        """
        parent: dict[tuple, tuple] = {}

        def root(x: tuple) -> tuple:
            while parent[x] != x:
                x = parent[x]
            return x

        pairs = set()
        for pq, kq in zip(parsed, keys, strict=True):
            coeffs = self._substituted(pq).as_coefficients_dict()
            if len(coeffs) != 2 or sorted(float(v) for v in coeffs.values()) != [-1.0, 1.0]:
                return None
            if any(s not in pq.symbols for s in coeffs):
                return None
            a, b = (tuple(kq[pq.symbols.index(s)]) for s in coeffs)
            if a == b:
                return None
            for x in (a, b):
                parent.setdefault(x, x)
            parent[root(a)] = root(b)
            pairs.add(frozenset((a, b)))
        families: dict[tuple, list[tuple]] = {}
        for x in parent:
            families.setdefault(root(x), []).append(x)
        out = list(families.values())
        if sum(len(f) * (len(f) - 1) // 2 for f in out) != len(pairs):
            return None  # some pair of a family is not a term: not a range
        return out

    def _set_window_objective(self, prog: PolynomialProgram, families: list[list[tuple]]) -> list:
        """Minimise ``t`` subject to every family's quantities lying in a window ``[L_f, U_f]`` of width <= t.

        ``L <= P(E & F) / P(F) <= U`` is written ``P(E & F) >= L d`` and ``P(E & F) <= U d`` with
        ``d = P(F) >= 1e-9``: the only nonconvex products are those of the few window ends with
        the denominators, so a global solver closes the gap by branching on the window ends
        instead of on one ratio per group (O(k) rows for the O(k^2) pairs of k groups).
        """
        t = prog.add_variable("max_abs", 0.0, math.inf)
        fractions = []
        for f, members in enumerate(families):
            low = prog.add_variable(f"window{f}_low", 0.0, 1.0)
            high = prog.add_variable(f"window{f}_high", 0.0, 1.0)
            rows = [f"window{f}_width"]
            self._append(prog, {(t,): 1.0, (high,): -1.0, (low,): 1.0}, ">=", rows[0])
            member_fractions = []
            for j, (ev, given) in enumerate(members):
                tag = f"window{f}_q{j}"
                known = self.observed_probability(given) if given is not None else None
                num = self.polys[ev]
                if given is None or known is not None:
                    if given is not None:
                        self._record_condition(given, known)
                        num = poly_scale(num, 1.0 / known)
                    self._append(prog, poly_add(num, {(low,): 1.0}, -1.0), ">=", f"{tag}_above_low")
                    self._append(prog, poly_add({(high,): 1.0}, num, -1.0), ">=", f"{tag}_below_high")
                    den = None
                else:
                    self._record_condition(given, None)
                    pf = dict(self.polys[given])
                    const = pf.pop((), 0.0)
                    if not pf and const < RATIO_EPSILON:
                        self._undefined(given)
                    d = prog.add_variable(f"{tag}_den", 0.0, 1.0)
                    self._append(prog, poly_add({(d,): 1.0}, self.polys[given], -1.0), "==", f"{tag}_den_def")
                    if pf:
                        prog.constraints.append(Constraint(pf, ">=", RATIO_EPSILON - const, f"{tag}_pos"))
                        self.floors[f"{tag}_pos"] = given
                    self._append(prog, poly_add(num, {(low, d): 1.0}, -1.0), ">=", f"{tag}_above_low")
                    self._append(prog, poly_add({(high, d): 1.0}, num, -1.0), ">=", f"{tag}_below_high")
                    den = self.polys[given]
                    rows += [f"{tag}_den_def", f"{tag}_pos"]
                rows += [f"{tag}_above_low", f"{tag}_below_high"]
                member_fractions.append((num, den))
            self.query_rows.update(rows)
            fractions.append(member_fractions)
        prog.objective = {(t,): 1.0}
        prog.objective_denominator = None
        self.notes.append("max over pairs written as family ranges: each family's rates in a window [L, U], "
                          "t >= U - L (exact)")
        names = [v.name for v in prog.variables]
        return [[(_by_name(num, names), None if den is None else _by_name(den, names)) for num, den in fam]
                for fam in fractions]

    def _set_max_abs_objective(self, prog: PolynomialProgram, parsed: list[ParsedExpression],
                               keys: list[list]) -> list[dict[tuple[str, ...], float]]:
        """Minimise ``t`` subject to ``t >= |q_i|`` for every term: the sharp lower bound of max |q_i|.

        One joint program, so the terms are evaluated on the *same* model; combining separate
        bounds of each term would only give ``max_i dist(0, [lo_i, hi_i])``, which can be lower.
        """
        families = self._window_families(parsed, keys) if self.options.uses("windows") else None
        if families is not None:
            self.window_fractions = self._set_window_objective(prog, families)
            self.window_keys = [[(ev, given) for ev, given in family] for family in families]
            return []
        t = prog.add_variable("max_abs", 0.0, math.inf)
        named = []
        for i, (pq, kq) in enumerate(zip(parsed, keys, strict=True)):
            expr = self._substituted(pq)
            sym_polys = {s: self._ratio_poly(prog, kq[k], f"term{i}_r{k}", query=True)
                         for k, s in enumerate(pq.symbols) if s in expr.free_symbols}
            poly = self._poly_of(expr, sym_polys)
            names = [v.name for v in prog.variables]
            named.append(_by_name(poly, names))
            self._append(prog, poly_add({(t,): 1.0}, poly, -1.0), ">=", f"term{i}_upper")
            self._append(prog, poly_add({(t,): 1.0}, poly, 1.0), ">=", f"term{i}_lower")
            self.query_rows.update({f"term{i}_upper", f"term{i}_lower"})
        prog.objective = {(t,): 1.0}
        prog.objective_denominator = None
        return named


def _presolve_zero_variables(prog: PolynomialProgram, undefined: Any = None) -> tuple[int, Any]:
    """Remove variables forced to 0 by ``sum(positive * x) == 0`` rows over x >= 0.

    Returns the number removed and a function mapping a polynomial to the new indices. A row left
    without variables must hold as a constant: an equality or inequality that fails makes the
    program infeasible; the failing floor ``P(F) >= 1e-9`` of a query ratio calls
    ``undefined(row name)`` (the metric is undefined); that of a bias constraint's ratio is dropped
    (a constraint on a conditional given an impossible event constrains nothing).
    """
    zero: set[int] = set()
    changed = True
    while changed:
        changed = False
        for c in prog.constraints:
            if c.sense != "==" or c.rhs != 0.0:
                continue
            live = {m: v for m, v in c.poly.items() if not (set(m) & zero)}
            if live and all(len(m) == 1 and v > 0 and prog.variables[m[0]].lb >= 0 for m, v in live.items()):
                zero.update(m[0] for m in live)
                changed = True
    if not zero:
        return 0, None
    keep = [i for i in range(prog.n_variables) if i not in zero]
    remap = {old: new for new, old in enumerate(keep)}

    def strip(poly: Poly) -> Poly:
        out: Poly = {}
        for mono, coef in poly.items():
            if set(mono) & zero:
                continue
            key = tuple(remap[i] for i in mono)
            out[key] = out.get(key, 0.0) + coef
        return out

    new_cons = []
    for c in prog.constraints:
        body = strip(c.poly)
        const = body.pop((), 0.0)
        if not body:
            if abs(const - c.rhs) > 1e-9 and c.sense == "==":
                raise InfeasibleError(
                    f"The observed table is inconsistent with the bias model: row {c.name} needs "
                    f"probability {c.rhs - const:g} but zero cells force it to 0. Check the table "
                    "and the DAG (is a column attached to the right node?)."
                )
            if c.name and c.name.endswith("_pos") and "_r" in c.name and c.sense == ">=" and const < c.rhs:
                if undefined is not None and not c.name.startswith("bias"):
                    undefined(c.name)  # a conditioning event of the metric forced to probability 0
                continue
            violated = (c.sense == "<=" and const > c.rhs + 1e-9) or (c.sense == ">=" and const < c.rhs - 1e-9)
            if violated:
                raise InfeasibleError(
                    f"The observed table is inconsistent with the bias model: row {c.name} needs "
                    f"{0 if not const else const:g} {c.sense} {c.rhs:g}, but zero cells force its "
                    "probabilities to 0. Check the table and the DAG (is a column attached to the "
                    "right node?), or allow more bias (a larger D)."
                )
            continue
        new_cons.append(Constraint(body, c.sense, c.rhs - const, c.name))
    prog.objective = strip(prog.objective)
    if prog.objective_denominator is not None:
        prog.objective_denominator = strip(prog.objective_denominator)
    prog.variables = [prog.variables[i] for i in keep]
    prog._index = {v.name: i for i, v in enumerate(prog.variables)}
    prog.constraints = new_cons
    return len(zero), strip


def _mapped_row(row: DataRow, mapping: Any) -> DataRow:
    """A data row's provenance in the variables of a rewritten program (checked by the rebinder)."""
    return DataRow(row.name, row.cell, mapping(row.poly), None if row.given is None else mapping(row.given))


def _detect_kind(prog: PolynomialProgram) -> str:
    if prog.max_degree <= 1:
        return "linear_fractional" if prog.is_fractional else "linear"
    return "polynomial"


def compile_program(
    config: BiasConfig, table: ObservedTable, query: str | ParsedExpression | Sequence[str],
    params: Mapping[str, float], *, reduce: bool = True, max_abs: bool = False,
    options: CompileOptions | None = None,
) -> CompiledProgram:
    """Compile ``query`` under ``config`` and ``table`` at sensitivity ``params``.

    Parameters
    ----------
    config : BiasConfig
        The bias: DAG, roles and constraints.
    table : ObservedTable
        The observed distribution.
    query : str or ParsedExpression or sequence of str
        In the constraint grammar, e.g. ``"P(P = 1 | Y = 0 & A = 0)"`` (a list of terms when ``max_abs``).
    params : mapping
        Values of the sensitivity parameters, e.g. ``{"D": 0.05}``.
    reduce : bool
        Apply the exact reductions (default). ``False`` builds the naive response-function
        program (one variable per joint response type), used as the benchmark baseline.
    max_abs : bool
        ``query`` is a list of terms ``q_i`` and the program minimises ``max_i |q_i|`` (used for
        the sharp lower bound of equalised odds and of max-over-pairs parity).
    options : CompileOptions, optional
        Every compile switch (default: all reductions on, or all off when ``reduce=False``).

    Returns
    -------
    CompiledProgram
        The program (minimisation form) and what the reductions did.

    Raises
    ------
    ConfigError, DataError
        The table does not fit the bias, or the query does not parse.
    InfeasibleError
        The table's zero cells contradict the bias.
    UndefinedMetricError
        The query conditions on an event the data force to probability 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.core.table import ObservedTable
    >>> table = ObservedTable.from_counts(pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [0, 1, 0, 1],
    ...                                                 "n": [30, 10, 20, 40]}))
    >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
    >>> compiled = compile_program(cfg, table, "P(P = 1 | Y = 1 & A = 0)", {})
    >>> compiled.program.objective_value({"q_A_Y_P.0": 0.3, "q_A_Y_P.3": 0.1, "q_A_Y_P.4": 0.2, "q_A_Y_P.7": 0.4})
    1.0
    >>> naive = compile_program(cfg, table, "P(P = 1 | Y = 1 & A = 0)", {}, reduce=False)
    >>> naive.program.n_variables > compiled.program.n_variables
    True
    """
    if options is None:
        options = CompileOptions(reduce=bool(reduce))
    elif not reduce:
        options = dataclasses.replace(options, reduce=False)
    return _Compiler(config, table, params, options).build(query, max_abs=max_abs)


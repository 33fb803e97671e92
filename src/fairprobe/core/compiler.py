"""Compile bias + observed table + query into a :class:`PolynomialProgram`.

Pipeline (all exact unless stated):

1. **Latent projection** of the bias DAG and c-components (:mod:`fairprobe.core.dag`).
2. **Response types** per c-component (:mod:`fairprobe.core.response`): every probability becomes a
   sum of products of per-component type masks. Variables without latent parents that no event
   intervenes on are **absorbed slice by slice** into the c-component that reads them (see
   :class:`~fairprobe.core.response.Component`; exact, linear in the slices). Variables that only some
   members read are absorbed too when the table pins their law, tied across slices by linear
   **glue rows** (exact: the marginal problem on a star is consistent).
3. **Fixing**: a root without latent parents whose law the unconditioned table reports is a constant.
4. **Absorbing roots** (only with ``CompileOptions(slicing=False)``, the benchmark baseline).
5. **Merging types** that no event distinguishes into one variable (exact).
6. **Polynomials** are built directly as sparse dicts; sympy only parses the strings.
7. **Ratios**: a query affine in one conditional probability becomes a fractional objective
   (Charnes-Cooper LP); other ratios get a variable ``r`` in [0, 1] with ``r * P(F) = P(E & F)`` and
   ``P(F) >= 1e-9``. Every conditioning event is recorded in :attr:`CompiledProgram.conditions`; one
   forced to probability 0 by the table's zero cells raises
   :class:`~fairprobe.exceptions.UndefinedMetricError` here.
8. **Presolve**: variables forced to zero by zero-probability cells are removed.

Independent latent distributions that meet in one probability are encoded as products (sharp, polynomial).
*Independence inside one c-component is relaxed*: one joint distribution over the component's response
types, so the bounds are outer (sound) and may be wider than under mutually independent latents.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np
import sympy

from fairprobe.core.compiled import (
    CompiledProgram,
    Condition,
    RateFamilies,
    by_name,
    detect_kind,
    event_key,
    event_text,
    rate_key,
    ratio_rows,
    undefined_metric_message,
    warn_tiny_cells,
)
from fairprobe.core.config import BiasConfig
from fairprobe.core.data_rows import RATIO_EPSILON, DataRow, EventKey, add_data_rows
from fairprobe.core.identify import identify_interventions
from fairprobe.core.options import CompileOptions
from fairprobe.core.presolve import presolve_zero_variables
from fairprobe.core.query import Atom, ParsedExpression, parse_expression
from fairprobe.core.reparametrise import reparametrise
from fairprobe.core.response import EventTerm, ResponseModel, partial_readers, shared_model
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import ConfigError, DataError, UndefinedMetricError
from fairprobe.program.model import Constraint, PolynomialProgram
from fairprobe.program.polynomial import Poly, poly_add, poly_mul, poly_scale

# re-exported for core.engine, core.parametric and core.results (their records live in core.compiled, core.data_rows)
__all__ = ["RATIO_EPSILON", "CompiledProgram", "RateFamilies", "compile_program", "linear_terms", "rate_key"]


def linear_terms(expr: sympy.Expr, symbols: Any) -> tuple[float, dict[sympy.Symbol, float]] | None:
    """``(constant, {symbol: coefficient})`` of an expanded expression that is affine in ``symbols``, else None.

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
        self.data_rows: list[DataRow] = []

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
        """(shared-slice key, slice index, partial readers' joint type, group mask) per partial reader cell of ``g``."""
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
        return sum(math.prod(self.cards[v] ** math.prod(self.cards[p] for p in self.dag.observed_parents(v))
                             for v in names) for names in self.dag.c_components())


    # -- events ---------------------------------------------------------------------------
    def register(self, atoms: Sequence[Atom]) -> EventKey:
        """The key of an event, with its response-type terms (those of its :meth:`expand` parts for ``!=`` atoms)."""
        key = event_key(atoms)
        if key not in self.terms:
            self.terms[key] = [t for part in self.expand(key) for t in self.model.event_terms(part)]
            for a in key:
                self.intervened.update(k for k, _ in a.intervention)
        return key

    def expand(self, atoms: Sequence[Atom]) -> list[EventKey]:
        """Disjoint ordinary events whose union is the event ``atoms`` (itself without ``!=`` atoms).

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
            out.append(event_key([*plain, *extra]))
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
        """The compiled program of ``query`` (a list of terms when ``max_abs``); see :func:`compile_program`."""
        cfg = self.config
        families = query if isinstance(query, RateFamilies) else None
        parsed_qs = self._parsed_queries(families.rates if families is not None else query)
        self.model = self._response_model([*cfg.parsed_constraints, *parsed_qs])
        data = self.data_events()
        cons_atoms = [self._atom_keys(c) for c in cfg.parsed_constraints]
        query_atoms = [self._atom_keys(q) for q in parsed_qs]
        self.plan_components()
        groups = self._plan_groups()
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
        if families is not None:
            position = {rate: k for k, rate in enumerate(families.rates)}
            members = [[tuple(query_atoms[position[rate]][0]) for rate in family] for family in families.families]
            self.window_fractions = self._set_window_objective(prog, members)
            self.window_keys = members
        elif max_abs:
            named_terms = self._set_max_abs_objective(prog, parsed_qs, query_atoms)
        else:
            self._set_objective(prog, parsed_qs[0], query_atoms[0])
        stats_before = {"n_variables": naive_vars, "n_terms": naive_terms,
                        "n_constraints": len(data) + len(cfg.constraints)}
        prog, conditions, named_terms = self._reduced(prog, named_terms)
        return CompiledProgram(prog, detect_kind(prog), stats_before, prog.stats().to_dict(), self.notes,
                               self.ratio_names, named_terms, conditions, frozenset(self.query_rows),
                               self.window_fractions, tuple(self.data_rows), self.window_keys)

    def _parsed_queries(self, query: str | ParsedExpression | Sequence[str | ParsedExpression]
                        ) -> list[ParsedExpression]:
        """The query's terms parsed, parentless interventions read as conditioning, every node checked."""
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
        return parsed_qs

    def _plan_groups(self) -> list[int]:
        """The final groups (components not fixed, absorbed roots with their target) and their members."""
        groups = sorted(set(self.group[c.index] for c in self.model.components if c.index not in self.fixed))
        self.group_members = {
            g: sorted([c for c, gg in self.group.items() if gg == g and c not in self.fixed],
                      key=lambda c: (0 if c != g else 1, c))
            for g in groups
        }
        return groups

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
        """One variable per class of response types with the same signature over every event, per group."""
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

    def _add_data_rows(self, prog: PolynomialProgram, data: list[tuple[EventKey, float, EventKey | None]]) -> None:
        """One row per observed cell (:func:`~fairprobe.core.data_rows.add_data_rows`), ``P(given)`` read once."""
        given_poly = self._given_variable(prog, data[0][2]) if data and data[0][2] is not None else None
        self.data_rows = add_data_rows(prog, data, self.polys, self.table, self.cards, given_poly)

    def _reduced(self, prog: PolynomialProgram, named_terms: list[dict[tuple[str, ...], float]]
                 ) -> tuple[PolynomialProgram, list[Condition], list[dict[tuple[str, ...], float]]]:
        """The exact presolve and rewrites, with the conditioning events and max-abs terms mapped along."""
        conditions = list(self.conditions.values())
        removed, remap = presolve_zero_variables(prog, self._undefined) if self.reduce else (0, None)
        if removed:
            self.notes.append(f"presolve removed {removed} variables forced to zero by the data")
            conditions = [Condition(c.event, c.atoms, remap(c.poly), c.observed) for c in conditions]
            self.data_rows = [r.mapped(remap) for r in self.data_rows]
        rewrite = reparametrise(prog) if self.options.uses("reparametrise") else None
        if rewrite is not None:
            before = [v.name for v in prog.variables]
            prog = rewrite.program
            index = prog._index

            def moved(poly: Poly) -> Poly:
                return {tuple(sorted(index[n] for n in m)): v
                        for m, v in rewrite.map_named(by_name(poly, before)).items()}

            conditions = [Condition(c.event, c.atoms, moved(c.poly), c.observed) for c in conditions]
            self.data_rows = [r.mapped(moved) for r in self.data_rows]
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
        """``P(given)`` for the data rows: one variable defined by one row when it has many terms."""
        # every data row repeats P(given), O(k^2) nonzeros for k groups: one variable keeps them sparse
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
        text = event_text(atoms)
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
        """Parametrise an unconfounded variable by ``P(V = v | pa = c)`` when every event reads it at one config."""
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
        """``P(F)`` when the data pin it (a factual event on an unconditioned table's columns), else None."""
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
        """``P(E | F)``: ``P(E & F) / P(F)`` when the data pin ``P(F)``, else a ratio variable (``query``: recorded)."""
        ev, given = keys
        if given is None:
            return self.polys[ev]
        known = self.observed_probability(given)
        if query:
            self._record_condition(given, known)
        if known is not None:
            return poly_scale(self.polys[ev], 1.0 / known)
        pf = self.polys[given]
        if query:
            self._check_not_zero(given)  # the ratio would be free
        r = prog.add_variable(name, 0.0, 1.0)
        self.ratio_names.append(name)
        definition, floor = ratio_rows(r, self.polys[ev], pf, name)
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
            self._check_not_zero(given)
            prog.objective = num
            prog.objective_denominator = den
            return
        sym_polys = {}
        for k, s in enumerate(parsed.symbols):
            if s in expr.free_symbols:
                sym_polys[s] = self._ratio_poly(prog, keys[k], f"query_r{k}", query=True)
        prog.objective = self._poly_of(expr, sym_polys)
        prog.objective_denominator = None

    def _check_not_zero(self, given: EventKey) -> None:
        """Raise when ``P(given)`` is the constant 0."""
        pf = self.polys[given]
        if set(pf) <= {()} and pf.get((), 0.0) < RATIO_EPSILON:
            self._undefined(given)

    def _window_families(self, parsed: list[ParsedExpression], keys: list[list]) -> list[list[tuple]] | None:
        """The quantities grouped in families when every family's terms ``q_a - q_b`` are all its pairs, else None."""
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
        """Minimise ``t`` subject to every family's quantities lying in a window ``[L_f, U_f]`` of width <= t."""
        # L d <= P(E & F) <= U d with d = P(F): a global solver branches on the few window ends, not per group
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
                    self._check_not_zero(given)
                    pf = dict(self.polys[given])
                    const = pf.pop((), 0.0)
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
        return [[(by_name(num, names), None if den is None else by_name(den, names)) for num, den in fam]
                for fam in fractions]

    def _set_max_abs_objective(self, prog: PolynomialProgram, parsed: list[ParsedExpression],
                               keys: list[list]) -> list[dict[tuple[str, ...], float]]:
        """Minimise ``t`` subject to ``t >= |q_i|`` for every term, all on the same model (sharp)."""
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
            named.append(by_name(poly, names))
            self._append(prog, poly_add({(t,): 1.0}, poly, -1.0), ">=", f"term{i}_upper")
            self._append(prog, poly_add({(t,): 1.0}, poly, 1.0), ">=", f"term{i}_lower")
            self.query_rows.update({f"term{i}_upper", f"term{i}_lower"})
        prog.objective = {(t,): 1.0}
        prog.objective_denominator = None
        return named


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
    query : str or ParsedExpression or sequence of str or RateFamilies
        In the constraint grammar, e.g. ``"P(P = 1 | Y = 0 & A = 0)"`` (a list of terms when ``max_abs``;
        :class:`RateFamilies` for the window program of a max of family ranges).
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
    >>> compiled.kind, compiled.program.n_variables, compiled.stats_before["n_variables"]
    ('linear', 4, 18)
    >>> [(cond.event, round(cond.observed, 6)) for cond in compiled.conditions]
    [('Y = 1 & A = 0', 0.1)]
    >>> compiled.program.objective
    {(1,): 10.0}
    """

    if options is None:
        options = CompileOptions(reduce=bool(reduce))
    elif not reduce:
        options = dataclasses.replace(options, reduce=False)
    return _Compiler(config, table, params, options).build(query, max_abs=max_abs)


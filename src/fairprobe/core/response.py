"""Response-function parametrisation of a semi-Markovian causal model.

Every endogenous variable ``V`` with endogenous parents ``pa(V)`` gets one *response function*
per way of mapping parent values to a value of ``V`` (``card(V) ** prod(card(pa))`` of them).
The latent confounding of a c-component ``C`` is a joint distribution ``q_C`` over the product of
its members' response functions (its *joint response types*); distinct c-components are
independent. The probability of any factual or counterfactual event is then

    P(event) = sum over completions  prod over components  q_C(types consistent with it)

where a *completion* assigns values to every variable the event depends on, in every world
(intervention) the event mentions. This module enumerates joint types and turns events into such
sums of products of type *masks*; :mod:`fairprobe.core.compiler` merges types and builds sparse
polynomials from them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fairprobe.core.dag import DAG
from fairprobe.core.query import Atom
from fairprobe.exceptions import ConfigError

__all__ = ["MAX_JOINT_TYPES", "Component", "EventTerm", "Member", "ResponseModel"]

#: Largest number of joint response types enumerated for one c-component.
MAX_JOINT_TYPES = 2_000_000


@dataclass
class Member:
    """One endogenous variable inside a c-component."""

    name: str
    card: int
    parents: list[str]
    parent_cards: list[int]
    table: np.ndarray = field(repr=False)  # (n_types, n_configs): value per parent configuration

    @property
    def n_types(self) -> int:
        """Number of response functions."""
        return int(self.table.shape[0])

    def config_index(self, parent_values: Sequence[int]) -> int:
        """Row-major index of a parent configuration."""
        idx = 0
        for v, c in zip(parent_values, self.parent_cards, strict=True):
            idx = idx * c + int(v)
        return idx


@dataclass
class Component:
    """A c-component: members and the enumeration of their joint response types."""

    index: int
    members: list[Member]
    types: np.ndarray = field(repr=False)  # (n_joint_types, n_members) member type indices

    @property
    def names(self) -> list[str]:
        """Member names."""
        return [m.name for m in self.members]

    @property
    def n_types(self) -> int:
        """Number of joint response types."""
        return int(self.types.shape[0])


@dataclass
class EventTerm:
    """One completion of an event: ``prod_C sum(q_C[mask_C])`` over the components in ``masks``."""

    masks: dict[int, np.ndarray]


def _response_table(card: int, n_configs: int) -> np.ndarray:
    return np.array(list(itertools.product(range(card), repeat=n_configs)), dtype=np.int8).reshape(-1, n_configs)


class ResponseModel:
    """Joint response types of every c-component of a (projected) DAG.

    Parameters
    ----------
    dag : DAG
        A latent projection (latents are roots).
    cardinalities : mapping
        Node -> number of values (default 2).
    """

    def __init__(self, dag: DAG, cardinalities: Mapping[str, int] | None = None) -> None:
        self.dag = dag
        cards = dict(cardinalities or {})
        self.cards = {v: int(cards.get(v, 2)) for v in dag.endogenous}
        self.components: list[Component] = []
        self.component_of: dict[str, int] = {}
        for k, names in enumerate(dag.c_components()):
            members = []
            for v in names:
                parents = dag.observed_parents(v)
                pcards = [self.cards[p] for p in parents]
                n_configs = math.prod(pcards)
                n_types = self.cards[v] ** n_configs
                if n_types > MAX_JOINT_TYPES:
                    raise ConfigError(
                        f"Variable {v} has {n_types} response functions ({self.cards[v]} values, "
                        f"{n_configs} parent configurations); fairprobe enumerates at most "
                        f"{MAX_JOINT_TYPES}. Reduce its parents or cardinalities."
                    )
                members.append(Member(v, self.cards[v], parents, pcards, _response_table(self.cards[v], n_configs)))
            total = math.prod(m.n_types for m in members)
            if total > MAX_JOINT_TYPES:
                raise ConfigError(
                    f"The c-component {names} has {total} joint response types; fairprobe "
                    f"enumerates at most {MAX_JOINT_TYPES}. Remove latent edges or parents."
                )
            grids = np.meshgrid(*[np.arange(m.n_types) for m in members], indexing="ij")
            types = np.stack([g.ravel() for g in grids], axis=1).astype(np.int32)
            self.components.append(Component(k, members, types))
            for v in names:
                self.component_of[v] = k

    # -- events ---------------------------------------------------------------------------
    def _relevant(self, targets: Sequence[str], do: Mapping[str, int]) -> list[str]:
        """Ancestors of ``targets`` in the graph with edges into ``do`` cut, topological order."""
        seen = self.dag.ancestors(targets, cut=do, endogenous=True)
        return [v for v in self.dag.endogenous if v in seen]

    def event_terms(self, atoms: Sequence[Atom]) -> list[EventTerm]:
        """Completions of a conjunction of (counterfactual) atoms, as products of type masks.

        Raises
        ------
        ConfigError
            An atom names an unknown or latent variable, or a value outside its cardinality.
        """
        worlds: dict[tuple, dict[str, int]] = {}
        for a in atoms:
            for var in (a.var, *(k for k, _ in a.intervention)):
                if var not in self.cards:
                    raise ConfigError(f"Event names {var!r}, which is not an endogenous node of the DAG.")
            for var, val in ((a.var, a.value), *a.intervention):
                if not isinstance(val, (int, np.integer)) or not 0 <= int(val) < self.cards[var]:
                    raise ConfigError(
                        f"Value {val!r} of {var} is outside 0..{self.cards[var] - 1}; use integer "
                        "codes (ObservedTable.categories maps labels to codes)."
                    )
            req = worlds.setdefault(a.intervention, {})
            if a.var in req and req[a.var] != a.value:
                return []  # contradictory: probability zero
            req[a.var] = int(a.value)
        # Per world: relevant variables and the free ones to enumerate.
        plans = []
        for do_items, req in worlds.items():
            do = dict(do_items)
            for var, val in req.items():
                if var in do and do[var] != val:
                    return []  # Y(Y=1) = 0 is impossible
            rel = self._relevant(list(req), do)
            free = [v for v in rel if v not in do and v not in req]
            plans.append((do, req, rel, free))
        terms: list[EventTerm] = []
        choices = [itertools.product(*[range(self.cards[v]) for v in free]) for *_, free in plans]
        for combo in itertools.product(*[list(c) for c in choices]):
            masks: dict[int, np.ndarray] = {}
            ok = True
            for (do, req, rel, free), values in zip(plans, combo, strict=True):
                val = dict(do)
                val.update(req)
                val.update(zip(free, values, strict=True))
                for v in rel:
                    if v in do:
                        continue
                    comp = self.components[self.component_of[v]]
                    pos = comp.names.index(v)
                    member = comp.members[pos]
                    cfg = member.config_index([val[p] for p in member.parents])
                    hit = member.table[comp.types[:, pos], cfg] == val[v]
                    masks[comp.index] = hit if comp.index not in masks else masks[comp.index] & hit
                    if not masks[comp.index].any():
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                terms.append(EventTerm(masks))
        return terms

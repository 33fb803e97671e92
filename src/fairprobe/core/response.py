"""Response-function parametrisation of a semi-Markovian causal model.

Every endogenous variable gets one *response function* per map from its observed parents' values to
its own. A c-component's latent confounding is a joint distribution ``q_C`` over its members' response
functions (its *joint response types*); distinct c-components are independent, so

    P(event) = sum over completions  prod over components  q_C(types consistent with it)

where a *completion* assigns values to every variable the event depends on, in every world it mentions.
This module enumerates joint types and turns events into such sums of type *masks*;
:mod:`fairprobe.core.compiler` merges types and builds sparse polynomials from them.
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

__all__ = ["MAX_JOINT_TYPES", "Component", "EventTerm", "Member", "ResponseModel", "partial_readers", "plan_slices"]

#: Largest number of joint response types enumerated for one c-component.
MAX_JOINT_TYPES = 2_000_000


@dataclass
class Member:
    """One endogenous variable inside a c-component (in a sliced one, its response functions on one slice).

    Parameters
    ----------
    name : str
    card : int
        Its number of values.
    parents : list of str
        Its observed parents, in topological order.
    parent_cards : list of int
        Their numbers of values.
    table : numpy.ndarray
        ``(n_types, n_configs)``: value of each response function per (free) parent configuration.
    free_parents : list of str or None
        Parents outside the slice; ``None`` when every parent is free (unsliced component).

    Examples
    --------
    >>> from fairprobe.core.dag import DAG
    >>> model = ResponseModel(DAG.from_string("A -> Y"))
    >>> y = model.components[1].members[0]
    >>> y
    Member(name='Y', card=2, parents=['A'], parent_cards=[2], free_parents=None)
    >>> y.table.tolist()  # never, identity, negation, always
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """

    name: str
    card: int
    parents: list[str]
    parent_cards: list[int]
    table: np.ndarray = field(repr=False)
    free_parents: list[str] | None = None

    @property
    def n_types(self) -> int:
        """Number of response functions, ``card ** n_configs`` (4 for a binary ``Y`` with one binary parent)."""
        return int(self.table.shape[0])

    def free_index(self, values: Mapping[str, int]) -> int:
        """Row-major index of the free parents' configuration (all parents when unsliced).

        Parameters
        ----------
        values : mapping of str to int
            Values of (at least) the free parents.

        Returns
        -------
        int
            The column of :attr:`table` for those values.

        Examples
        --------
        >>> import numpy as np
        >>> m = Member("Y", 2, ["A", "B"], [3, 2], np.zeros((1, 2), dtype=np.int8), free_parents=["B"])
        >>> m.free_index({"A": 2, "B": 1})
        1
        """
        idx = 0
        for p in self.parents if self.free_parents is None else self.free_parents:
            idx = idx * self.parent_cards[self.parents.index(p)] + int(values[p])
        return idx


@dataclass
class Component:
    """A c-component: members and the enumeration of their joint response types.

    A *sliced* component has absorbed ``slice_vars`` (unconfounded, never intervened on, closed under
    parents, read by every member): its joint types are (slice values, members' response types on that
    slice), linear in the slices instead of exponential. Exact for every event that does not intervene on
    a slice variable, since slices are disjoint coordinates of the response functions.

    Parameters
    ----------
    index : int
        Position among the model's components.
    members : list of Member
        The members other than slice variables.
    types : numpy.ndarray
        ``(n_joint_types, n_slice_vars + n_members)``: slice values, then each member's response type.
    slice_vars : list of str
        The absorbed slice variables.

    Examples
    --------
    >>> from fairprobe.core.dag import DAG
    >>> g = DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U")
    >>> [(c.names, c.n_types) for c in ResponseModel(g).components]
    [(['A'], 2), (['Y', 'P'], 16)]
    >>> [(c.names, c.n_types) for c in ResponseModel(g, sliceable=["A"]).components]
    [(['A', 'Y', 'P'], 8)]
    """

    index: int
    members: list[Member]
    types: np.ndarray = field(repr=False)
    slice_vars: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """Slice variables, then members (see the class example)."""
        return [*self.slice_vars, *(m.name for m in self.members)]

    @property
    def n_types(self) -> int:
        """Number of joint response types: rows of :attr:`types` (see the class example)."""
        return int(self.types.shape[0])


@dataclass
class EventTerm:
    """One completion of an event: ``prod_C sum(q_C[mask_C])`` over the components in ``masks``.

    Parameters
    ----------
    masks : dict of int to numpy.ndarray
        Component index -> boolean mask over its joint types.

    Examples
    --------
    >>> from fairprobe.core.dag import DAG
    >>> from fairprobe.core.query import Atom
    >>> term = ResponseModel(DAG.from_string("A -> Y")).event_terms([Atom("Y", 1, (("A", 1),))])[0]
    >>> {k: m.astype(int).tolist() for k, m in term.masks.items()}  # Y(A=1) = 1: types 1 and 3 of Y
    {1: [0, 1, 0, 1]}
    """

    masks: dict[int, np.ndarray]


def _response_table(card: int, n_configs: int) -> np.ndarray:
    return np.array(list(itertools.product(range(card), repeat=n_configs)), dtype=np.int8).reshape(-1, n_configs)


def plan_slices(dag: DAG, districts: Sequence[Sequence[str]], sliceable: Sequence[str],
                partial: Sequence[str] = ()) -> dict[tuple[str, ...], list[str]]:
    """Slice variables of each c-component of a latent projection (each absorbed by at most one).

    A component is sliced by its own parentless members that every other member reads (confounded
    covariates) and by ``sliceable`` variables alone in their c-component that every remaining member
    reads, closed under parents. Larger components choose first. With ``partial``, a component without
    confounded covariates may also absorb variables only some members read, when those that miss some
    (its *partial readers*, :func:`partial_readers`) all read the same subset.

    Parameters
    ----------
    dag : DAG
        A latent projection.
    districts : sequence of sequence of str
        Its c-components.
    sliceable : sequence of str
        Variables that may be absorbed (never intervened on).
    partial : sequence of str, optional
        Variables of ``sliceable`` that may be absorbed although some members do not read them.

    Returns
    -------
    dict of tuple of str to list of str
        Component (as a tuple of names) -> its slice variables, for the sliced components only.

    Examples
    --------
    >>> from fairprobe.core.dag import DAG
    >>> g = DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U")
    >>> plan_slices(g, g.c_components(), ["A"])
    {('Y', 'P'): ['A']}
    >>> g = DAG.from_string("X->Y, X->P, U->X, U->Y", unob="U")
    >>> plan_slices(g, g.c_components(), ["X"])  # X is a confounded covariate of its own component
    {('X', 'Y'): ['X']}
    >>> g = DAG.from_string("X->A, X->Z, X->P, A->Z, A->P, A->Y, Z->Y, U->Z, U->P, U->Y", unob="U")
    >>> plan_slices(g, g.c_components(), ["X", "A"])  # Y does not read X: only A's component takes X
    {('A',): ['X']}
    >>> plan_slices(g, g.c_components(), ["X", "A"], partial=["X", "A"])
    {('Z', 'P', 'Y'): ['X', 'A']}
    """
    allowed = set(sliceable)
    single = {d[0] for d in districts if len(d) == 1}
    endogenous = dag.endogenous
    position = {v: i for i, v in enumerate(endogenous)}
    parents = {v: set(dag.observed_parents(v)) for v in endogenous}  # sets: linear, not cubic, in the DAG
    candidates = {v for v in endogenous if v in allowed and v in single}
    taken: set[str] = set()
    out: dict[tuple[str, ...], list[str]] = {}
    for names in sorted(districts, key=lambda d: (-len(d), position[d[0]])):
        if len(names) == 1 and names[0] in taken:
            continue
        own = _own_covariates(names, allowed, parents)
        rest = [m for m in names if m not in own]
        # a slice variable is read by every remaining member: it lies in all their parent sets
        common = set.intersection(*(parents[m] for m in rest)) if rest else candidates
        chosen = _closed({v for v in common & candidates if v not in taken and v not in names}, parents, set(own))
        if partial and not own and rest:
            wider = _partial_slice(rest, parents, candidates & set(partial) - taken - set(names), chosen)
            chosen = wider if wider is not None else chosen
        if own or chosen:
            out[tuple(names)] = sorted(chosen | set(own), key=position.__getitem__)
            taken.update(chosen)
    return out


def _own_covariates(names: Sequence[str], allowed: set[str], parents: Mapping[str, set[str]]) -> list[str]:
    """Members of a component without observed parents that every other member reads (its confounded covariates)."""
    if len(names) <= 1:
        return []
    return [r for r in names if r in allowed and not parents[r] and all(r in parents[m] for m in names if m != r)]


def _closed(chosen: set[str], parents: Mapping[str, set[str]], also: set[str] = frozenset()) -> set[str]:
    """The largest subset of ``chosen`` closed under parents (within itself and ``also``); ``chosen`` is trimmed."""
    changed = True
    while changed:
        changed = False
        for v in list(chosen):
            if not parents[v] <= chosen | also:
                chosen.discard(v)
                changed = True
    return chosen


def _partial_slice(members: Sequence[str], parents: Mapping[str, set[str]], candidates: set[str],
                   full: set[str]) -> set[str] | None:
    """Slice variables (beyond ``full``) read by some members, when those that miss some all read the same ones."""
    chosen = _closed({v for v in candidates if any(v in parents[m] for m in members)} | full, parents)
    if chosen <= full:
        return None
    reads = {frozenset(parents[m] & chosen) for m in members if not chosen <= parents[m]}
    return chosen if len(reads) == 1 else None


def partial_readers(component: Component) -> tuple[list[int], list[str]]:
    """The members of a sliced component that do not read every slice variable, and what they read.

    Parameters
    ----------
    component : Component
        A component of a :class:`ResponseModel`.

    Returns
    -------
    (list of int, list of str)
        Positions (in :attr:`Component.members`) of the partial readers, and the slice variables
        they all read; ``([], [])`` when every member reads every slice variable.

    Examples
    --------
    >>> from fairprobe.core.dag import DAG
    >>> g = DAG.from_string("X->A, X->Z, X->P, A->Z, A->P, A->Y, Z->Y, U->Z, U->P, U->Y", unob="U")
    >>> model = ResponseModel(g, sliceable=["X", "A"], partial=["X", "A"])
    >>> comp = model.components[0]
    >>> comp.names, comp.n_types  # 4 slices x 2 (Z) x 2 (P) x 4 (Y, a function of Z)
    (['X', 'A', 'Z', 'P', 'Y'], 64)
    >>> partial_readers(comp)
    ([2], ['A'])
    """
    slices = set(component.slice_vars)
    positions = [i for i, m in enumerate(component.members) if not slices <= set(m.parents)]
    if not positions:
        return [], []
    read = [v for v in component.slice_vars if v in component.members[positions[0]].parents]
    return positions, read


class ResponseModel:
    """Joint response types of every c-component of a (projected) DAG.

    Parameters
    ----------
    dag : DAG
        A latent projection (latents are roots).
    cardinalities : mapping
        Node -> number of values (default 2).
    sliceable : sequence of str
        Variables never intervened on, which components may absorb as slices (see :func:`plan_slices`).
    partial : sequence of str, optional
        Variables of ``sliceable`` whose law the data pin, which a component may absorb although
        some members do not read them (see :func:`plan_slices` and :func:`partial_readers`).

    Raises
    ------
    ConfigError
        A variable or c-component with more than :data:`MAX_JOINT_TYPES` response types.

    Examples
    --------
    >>> from fairprobe.core.dag import DAG
    >>> g = DAG.from_string("X->Y, X->P, U->X, U->Y", unob="U")
    >>> model = ResponseModel(g, {"Y": 3})
    >>> [(c.names, c.n_types) for c in model.components]  # 2 * 3**2 and 2**2
    [(['X', 'Y'], 18), (['P'], 4)]
    >>> model.component_of
    {'X': 0, 'Y': 0, 'P': 1}
    """

    def __init__(self, dag: DAG, cardinalities: Mapping[str, int] | None = None,
                 sliceable: Sequence[str] = (), partial: Sequence[str] = ()) -> None:
        self.dag = dag
        cards = dict(cardinalities or {})
        self.cards = {v: int(cards.get(v, 2)) for v in dag.endogenous}
        self._terms: dict[tuple[Atom, ...], list[EventTerm]] = {}  # event_terms, computed once per event
        self.components: list[Component] = []
        self.component_of: dict[str, int] = {}
        districts = dag.c_components()
        slices = plan_slices(dag, districts, sliceable, partial)
        absorbed = {v for vs in slices.values() for v in vs}
        for names in districts:
            if len(names) == 1 and names[0] in absorbed:
                continue  # lives in the component that absorbed it
            k = len(self.components)
            slice_vars = slices.get(tuple(names), [])
            members = [self._member(v, slice_vars) for v in names if v not in slice_vars]
            n_slices = math.prod(self.cards[v] for v in slice_vars)
            total = n_slices * math.prod(m.n_types for m in members)
            if total > MAX_JOINT_TYPES:
                raise ConfigError(
                    f"The c-component {names} has {total} joint response types; fairprobe "
                    f"enumerates at most {MAX_JOINT_TYPES}. Reduce the number of values of its "
                    "members' parents (group rare categories), or remove latent edges or parents."
                )
            axes = [np.arange(self.cards[v]) for v in slice_vars] + [np.arange(m.n_types) for m in members]
            grids = np.meshgrid(*axes, indexing="ij")
            types = np.stack([g.ravel() for g in grids], axis=1).astype(np.int32)
            self.components.append(Component(k, members, types, list(slice_vars)))
            for v in self.components[-1].names:
                self.component_of[v] = k

    def _member(self, v: str, slice_vars: Sequence[str]) -> Member:
        parents = self.dag.observed_parents(v)
        pcards = [self.cards[p] for p in parents]
        free = [p for p in parents if p not in slice_vars]
        n_configs = math.prod(self.cards[p] for p in free)
        n_types = self.cards[v] ** n_configs
        if n_types > MAX_JOINT_TYPES:
            raise ConfigError(
                f"Variable {v} has {n_types} response functions ({self.cards[v]} values, "
                f"{n_configs} configurations of its parents {free}); fairprobe enumerates at most "
                f"{MAX_JOINT_TYPES}. Reduce the number of values of its parents (group rare categories)."
            )
        return Member(v, self.cards[v], parents, pcards, _response_table(self.cards[v], n_configs),
                      free if slice_vars else None)

    # -- events ---------------------------------------------------------------------------
    def _relevant(self, targets: Sequence[str], do: Mapping[str, int]) -> list[str]:
        """Ancestors of ``targets`` in the graph with edges into ``do`` cut, topological order."""
        seen = self.dag.ancestors(targets, cut=do, endogenous=True)
        return [v for v in self.dag.endogenous if v in seen]

    def event_terms(self, atoms: Sequence[Atom]) -> list[EventTerm]:
        """Completions of a conjunction of (counterfactual) atoms, as products of type masks.

        Parameters
        ----------
        atoms : sequence of Atom
            The conjunction; atoms with an intervention live in that intervention's world.

        Returns
        -------
        list of EventTerm
            One term per completion of the unobserved values; empty for a contradictory event.

        Raises
        ------
        ConfigError
            An atom names an unknown or latent variable, or a value outside its cardinality.

        Examples
        --------
        >>> from fairprobe.core.query import Atom
        >>> from fairprobe.core.dag import DAG
        >>> model = ResponseModel(DAG.from_string("A -> Y"))
        >>> y = model.components[1].members[0]
        >>> terms = model.event_terms([Atom("Y", 1)])  # completions A = 0 and A = 1
        >>> [{k: m.astype(int).tolist() for k, m in t.masks.items()} for t in terms]
        [{0: [1, 0], 1: [0, 0, 1, 1]}, {0: [0, 1], 1: [0, 1, 0, 1]}]
        >>> model.event_terms([Atom("Y", 1), Atom("Y", 0)])
        []
        """
        key = tuple(atoms)
        self._check_atoms(key)  # every call (Atom("Y", 1.0) equals Atom("Y", 1) as a key, not as a value)
        if key not in self._terms:
            terms = self._event_terms(key)
            for term in terms:  # shared by every compilation of this model: nobody may write into them
                for mask in term.masks.values():
                    mask.flags.writeable = False
            if len(self._terms) >= _TERMS_MAX:
                self._terms.clear()
            self._terms[key] = terms
        return [EventTerm(dict(term.masks)) for term in self._terms[key]]  # the caller's own dicts

    def _check_atoms(self, atoms: Sequence[Atom]) -> None:
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

    def _event_terms(self, atoms: Sequence[Atom]) -> list[EventTerm]:
        worlds: dict[tuple, dict[str, int]] = {}
        for a in atoms:
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
                    if pos < len(comp.slice_vars):
                        hit = comp.types[:, pos] == val[v]
                    else:
                        member = comp.members[pos - len(comp.slice_vars)]
                        hit = member.table[comp.types[:, pos], member.free_index(val)] == val[v]
                    masks[comp.index] = hit if comp.index not in masks else masks[comp.index] & hit
                    if not masks[comp.index].any():
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                terms.append(EventTerm(masks))
        return terms


#: Events whose terms a model keeps (cleared past this many: a model's memory stays bounded).
_TERMS_MAX = 4096

#: Models kept by :func:`shared_model` (a handful of biases per process; cleared past this many).
_SHARED_MAX = 64
_shared: dict[tuple, ResponseModel] = {}


def shared_model(dag: DAG, cardinalities: Mapping[str, int], sliceable: Sequence[str] = (),
                 partial: Sequence[str] = ()) -> ResponseModel:
    """One :class:`ResponseModel` per DAG structure, cardinalities and slices, reused by every compilation.

    A model and its event terms never depend on the data, and enumerating events dominates compiling.


    Parameters
    ----------
    dag : DAG
        Compared by its edges and node lists.
    cardinalities : mapping of str to int
    sliceable, partial : sequence of str
        As for :class:`ResponseModel`.

    Returns
    -------
    ResponseModel

    Examples
    --------
    >>> a = shared_model(DAG.from_string("A -> Y"), {"A": 2, "Y": 2})
    >>> a is shared_model(DAG.from_string("A -> Y"), {"Y": 2, "A": 2})
    True
    >>> a is shared_model(DAG.from_string("A -> Y"), {"A": 2, "Y": 3})
    False
    """
    key = (tuple(map(tuple, dag.edges)), tuple(dag.unobserved), tuple(dag.conditioned), tuple(dag.isolated),
           tuple(sorted((k, int(v)) for k, v in cardinalities.items())), tuple(sliceable), tuple(partial))
    model = _shared.get(key)
    if model is None:
        if len(_shared) >= _SHARED_MAX:
            _shared.clear()
        model = _shared[key] = ResponseModel(dag, cardinalities, sliceable=sliceable, partial=partial)
    return model

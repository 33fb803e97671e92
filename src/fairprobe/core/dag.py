"""Causal DAGs: parsing, validation, latent projection and c-components.

A DAG is written as comma-separated edges, ``"A -> Y, A -> P, U -> P, U -> Y"``. Nodes listed as
*unobserved* (``unob``) are latent; nodes keep their first appearance in the edge string, so
programs built from a DAG do not depend on ``PYTHONHASHSEED``.

Latent projection follows Evans (2016), as in the seed paper's Appendix B.2:

1. a latent variable with parents is made exogenous: every parent of ``U`` gets an edge to every
   child of ``U`` and the edges into ``U`` are removed (repeated until all latents are roots);
2. a latent whose children are a subset of another latent's children is removed (its
   dependence is absorbed into the larger one), and so is a latent with at most one child
   (absorbed into that child's response function).

The result is a semi-Markovian graph whose c-components (districts) are the connected components
of "shares a latent parent", computed transitively with union-find.
"""

from __future__ import annotations

import copy
import heapq
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from fairprobe.exceptions import ConfigError

__all__ = ["DAG"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_EDGE_RE = re.compile(rf"^\s*({_NAME})\s*->\s*({_NAME})\s*$")


def _parse_edges(dag_str: str) -> list[tuple[str, str]]:
    """``"A -> B, B -> C"`` as ``[("A", "B"), ("B", "C")]`` without duplicates, or a ConfigError."""
    if not isinstance(dag_str, str):
        raise ConfigError(f"The DAG must be a string of edges like 'A -> Y, U -> Y'; got {type(dag_str).__name__} "
                          f"{dag_str!r}.")
    if not dag_str.strip():
        raise ConfigError("The DAG string is empty; write edges like 'A -> Y, U -> Y'.")
    edges: list[tuple[str, str]] = []
    for k, part in enumerate(dag_str.split(",")):
        if not part.strip():
            raise ConfigError(f"Empty edge #{k + 1} in DAG string {dag_str!r} (a stray comma?).")
        m = _EDGE_RE.match(part)
        if not m:
            raise ConfigError(f"Cannot read edge #{k + 1} {part.strip()!r} of the DAG: write 'Parent -> Child' "
                              "with names made of letters, digits and '_'.")
        a, b = m.group(1), m.group(2)
        if a == b:
            raise ConfigError(f"Self-loop {a} -> {b} in the DAG: a variable cannot cause itself.")
        if (a, b) not in edges:
            edges.append((a, b))
    return edges


def _as_list(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value]


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copied(value: object, memo: dict) -> object:
    """A deep copy of plain containers of names; anything else through :func:`copy.deepcopy`."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is tuple and all(type(v) in _ATOMS for v in value):
        return value
    if id(value) in memo:  # a container met before: shared in the copy as in the original
        return memo[id(value)]
    if kind is list:
        out: object = [v if type(v) in _ATOMS else _copied(v, memo) for v in value]
    elif kind is dict:
        out = {k: v if type(v) in _ATOMS else _copied(v, memo) for k, v in value.items()}
    elif kind is set and all(type(v) in _ATOMS for v in value):
        out = set(value)
    else:
        return copy.deepcopy(value, memo)
    memo[id(value)] = out
    memo.setdefault(id(memo), []).append(value)  # (keeps the original alive for the memo, as deepcopy does)
    return out


@dataclass
class DAG:
    """A causal DAG with observed, unobserved (latent) and conditioned nodes.

    Parameters
    ----------
    edges : list of (str, str)
        Directed edges ``(parent, child)``.
    unobserved : sequence of str
        Latent variables.
    conditioned : sequence of str
        Nodes on which the data are conditioned (e.g. selection ``S = 1``).
    isolated : sequence of str
        Nodes without edges (rare; listed so they still exist).

    Examples
    --------
    >>> g = DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U")
    >>> g.order
    ['A', 'U', 'Y', 'P']
    >>> g.c_components()
    [['A'], ['Y', 'P']]
    """

    edges: list[tuple[str, str]]
    unobserved: list[str] = field(default_factory=list)
    conditioned: list[str] = field(default_factory=list)
    isolated: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # dicts keep first appearance and make every step linear in the DAG's size (1,000-node DAGs)
        self.nodes: list[str] = list(dict.fromkeys([*(v for e in self.edges for v in e), *self.isolated]))
        for kind, names in (("unobserved", self.unobserved), ("conditioned", self.conditioned)):
            unknown = [v for v in names if v not in self.nodes]
            if unknown:
                raise ConfigError(f"{kind.capitalize()} node(s) {unknown} do not appear in the DAG "
                                  f"(nodes: {self.nodes}); fix the name or add the edges.")
        both = [v for v in self.unobserved if v in self.conditioned]
        if both:
            raise ConfigError(f"Node(s) {both} are both unobserved and conditioned on; data cannot be "
                              "conditioned on a variable that is never observed.")
        self._parents: dict[str, list[str]] = {v: [] for v in self.nodes}
        self._children: dict[str, list[str]] = {v: [] for v in self.nodes}
        for a, b in self.edges:
            self._parents[b].append(a)
            self._children[a].append(b)
        self.order = self._topological_order()
        self._position = {v: i for i, v in enumerate(self.order)}
        self._latent = set(self.unobserved)
        self._observed_parents: dict[str, list[str]] = {}

    def __deepcopy__(self, memo: dict) -> DAG:
        # names and edges are immutable: copying the containers is a deep copy, without deepcopy's cost
        out = object.__new__(type(self))
        memo[id(self)] = out
        out.__dict__ = {k: _copied(v, memo) for k, v in self.__dict__.items()}
        return out

    @classmethod
    def from_string(cls, dag_str: str, unob: str | Iterable[str] | None = None,
                    cond: str | Iterable[str] | None = None) -> DAG:
        """Parse the published format (``unob``/``cond`` as lists or comma strings).

        Parameters
        ----------
        dag_str : str
            Comma-separated edges, ``"A -> Y, U -> Y"``.
        unob : str or iterable of str, optional
            Latent nodes.
        cond : str or iterable of str, optional
            Nodes the data are conditioned on.

        Returns
        -------
        DAG

        Raises
        ------
        ConfigError
            An empty string, an unreadable edge, a self-loop, a cycle or an unknown latent or conditioned node.

        Examples
        --------
        >>> g = DAG.from_string("A -> Y, S -> Y", cond="S")
        >>> g.nodes, g.conditioned
        (['A', 'Y', 'S'], ['S'])
        """
        return cls(_parse_edges(dag_str), _as_list(unob), _as_list(cond))

    def _topological_order(self) -> list[str]:
        indeg = {v: len(self._parents[v]) for v in self.nodes}
        rank = {v: i for i, v in enumerate(self.nodes)}
        ready = [rank[v] for v in self.nodes if indeg[v] == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            # Ties broken by first appearance: deterministic, independent of hashing.
            v = self.nodes[heapq.heappop(ready)]
            order.append(v)
            for c in self._children[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    heapq.heappush(ready, rank[c])
        if len(order) != len(self.nodes):
            raise ConfigError(f"The DAG has a cycle: {' -> '.join(self._find_cycle())}. Remove one edge of it.")
        return order

    def _find_cycle(self) -> list[str]:
        state: dict[str, int] = {}
        stack: list[str] = []

        def visit(v: str) -> list[str] | None:
            state[v] = 1
            stack.append(v)
            for c in self._children[v]:
                if state.get(c) == 1:
                    return [*stack[stack.index(c):], c]
                if c not in state:
                    found = visit(c)
                    if found:
                        return found
            stack.pop()
            state[v] = 2
            return None

        for v in self.nodes:
            if v not in state:
                found = visit(v)
                if found:
                    return found
        return []  # pragma: no cover - only called when a cycle exists

    # -- structure ------------------------------------------------------------------------
    def parents(self, v: str) -> list[str]:
        """Parents of ``v`` in edge order.

        Parameters
        ----------
        v : str

        Returns
        -------
        list of str
            Latent ones included.

        Examples
        --------
        >>> DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U").parents("Y")
        ['A', 'U']
        """
        self._check(v)
        return list(self._parents[v])

    def children(self, v: str) -> list[str]:
        """Children of ``v`` in edge order.

        Parameters
        ----------
        v : str

        Returns
        -------
        list of str

        Examples
        --------
        >>> DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U").children("A")
        ['Y', 'P']
        """
        self._check(v)
        return list(self._children[v])

    def _check(self, v: str) -> None:
        if v not in self._parents:
            raise ConfigError(f"Unknown node {v!r}; the DAG has nodes {self.nodes}.")

    @property
    def endogenous(self) -> list[str]:
        """Non-latent nodes in topological order.

        Returns
        -------
        list of str

        Examples
        --------
        >>> DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U").endogenous
        ['A', 'Y', 'P']
        """
        return [v for v in self.order if v not in self.unobserved]

    def observed_parents(self, v: str) -> list[str]:
        """Non-latent parents of ``v`` in topological order.

        Parameters
        ----------
        v : str

        Returns
        -------
        list of str

        Examples
        --------
        >>> DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U").observed_parents("Y")
        ['A']
        """
        self._check(v)
        if v not in self._observed_parents:  # cached: the response model asks for it per pair of nodes
            ps = {p for p in self._parents[v] if p not in self._latent}
            self._observed_parents[v] = sorted(ps, key=self._position.__getitem__)
        return list(self._observed_parents[v])

    def ancestors(self, targets: Iterable[str], *, cut: Iterable[str] = (), endogenous: bool = False) -> set[str]:
        """Ancestors of ``targets``, including themselves.

        Parameters
        ----------
        targets : iterable of str
            The nodes whose ancestors are wanted.
        cut : iterable of str
            Intervened nodes: their incoming edges are removed (they stay in the result).
        endogenous : bool
            Follow only non-latent parents.

        Returns
        -------
        set of str

        Examples
        --------
        >>> g = DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U")
        >>> sorted(g.ancestors(["Y"])), sorted(g.ancestors(["Y"], endogenous=True))
        (['A', 'U', 'Y'], ['A', 'Y'])
        >>> sorted(g.ancestors(["Y"], cut=["Y"]))
        ['Y']
        """
        cut = set(cut)
        out: set[str] = set()
        todo = list(targets)
        while todo:
            v = todo.pop()
            if v in out:
                continue
            self._check(v)
            out.add(v)
            if v not in cut:
                todo.extend(p for p in self._parents[v] if not (endogenous and p in self.unobserved))
        return out

    # -- latent projection ----------------------------------------------------------------
    def latent_projection(self) -> DAG:
        """Semi-Markovian equivalent: every latent a root with >= 2 children, none redundant.

        Returns
        -------
        DAG
            A new DAG over the same observed nodes (see the module docstring for the two steps).

        Examples
        --------
        >>> p = DAG.from_string("A->U, U->Y, U->P, V->Y", unob=["U", "V"]).latent_projection()
        >>> p.to_string(), p.unobserved
        ('U -> Y, U -> P, A -> Y, A -> P', ['U'])
        """
        edges = _exogenous_latents(list(self.edges), [v for v in self.order if v in self.unobserved])
        latents = list(self.unobserved)
        # Step 2: drop latents with <= 1 child or whose children are covered by another latent.
        redundant = _redundant_latent(edges, latents)
        while redundant is not None:
            edges = [(a, b) for a, b in edges if a != redundant and b != redundant]
            latents.remove(redundant)
            redundant = _redundant_latent(edges, latents)
        kept = [v for v in self.nodes if v not in self.unobserved]
        linked = {v for e in edges for v in e}
        isolated = [v for v in kept if v not in linked]
        return DAG(edges, latents, [c for c in self.conditioned], isolated)

    def c_components(self) -> list[list[str]]:
        """Districts: endogenous nodes linked (transitively) through shared latent parents.

        Call on a latent projection (latents must be roots).

        Returns
        -------
        list of list of str
            Each in topological order, ordered by their first node.

        Examples
        --------
        >>> DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U").c_components()
        [['A'], ['Y', 'P']]
        """
        nodes = self.endogenous
        parent = {v: v for v in nodes}

        def find(v: str) -> str:
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        for u in self.unobserved:
            kids = [c for c in self._children[u] if c in parent]
            for a, b in itertools.pairwise(kids):
                parent[find(a)] = find(b)
        groups: dict[str, list[str]] = {}
        for v in nodes:
            groups.setdefault(find(v), []).append(v)
        return sorted(groups.values(), key=lambda g: nodes.index(g[0]))

    def to_string(self) -> str:
        """Edges in the published ``"A -> B, ..."`` form.

        Returns
        -------
        str
            The edge string; :meth:`from_string` reads it back.

        Examples
        --------
        >>> DAG.from_string("A->Y, U->Y", unob="U").to_string()
        'A -> Y, U -> Y'
        """
        return ", ".join(f"{a} -> {b}" for a, b in self.edges)


def _children_in(edges: list[tuple[str, str]], v: str) -> list[str]:
    return [b for a, b in edges if a == v]


def _exogenous_latents(edges: list[tuple[str, str]], latents: list[str]) -> list[tuple[str, str]]:
    """Step 1 of the projection: every latent (in topological order) made a root, its parents joined to its children."""
    for u in latents:
        pas, chs = [a for a, b in edges if b == u], _children_in(edges, u)
        if not pas:
            continue
        edges = [(a, b) for a, b in edges if b != u]
        for p in pas:
            for c in chs:
                if (p, c) not in edges and p != c:
                    edges.append((p, c))
    return edges


def _redundant_latent(edges: list[tuple[str, str]], latents: list[str]) -> str | None:
    """The first latent with <= 1 child or whose children another latent covers (the earlier one on a tie)."""
    for u in latents:
        chs = set(_children_in(edges, u))
        if len(chs) <= 1:
            return u
        for w in latents:
            other = set(_children_in(edges, w))
            if w != u and chs <= other and (chs != other or latents.index(w) < latents.index(u)):
                return u
    return None

"""Fuzz: bias configs with random DAGs (cycles, self-loops, stray names) and random constraints.

A config that is built is confirmed by a topological sort done here (Kahn's algorithm on the edges
the test generated), and by checking that every node its constraints and roles name is in its DAG
and that latent nodes are never conditioned on. A config that is refused must name the problem.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fairprobe as fp
from tests.fuzz.oracle import confirmed, outcome

pytestmark = pytest.mark.fuzz

NODES = ["A", "Y", "P", "Z", "S", "U", "X"]
CONSTRAINTS = ["P(Z = Y) >= 1 - D", "P(S = 1) >= 1 - D", "P(Z = 0 & Y = 1) <= D", "P(U = 1) <= D",
               "P(Q = 1) <= D", "P(Z = 1) >= ", "P(Z = 1 | ) <= D", "D >= 0.1", "P(Y = 1) * P(P = 1) <= D",
               "P(Z = 2) <= D", "P(Y(A=1) = 1) <= D + 0.1"]


def _acyclic(edges: list[tuple[str, str]]) -> bool:
    nodes = {v for e in edges for v in e}
    indegree = {v: 0 for v in nodes}
    for _, b in edges:
        indegree[b] += 1
    ready = [v for v in nodes if indegree[v] == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for a, b in edges:
            if a == v:
                indegree[b] -= 1
                if indegree[b] == 0:
                    ready.append(b)
    return seen == len(nodes)


BASE = [("A", "Y"), ("A", "P"), ("A", "Z"), ("U", "Y"), ("U", "Z"), ("Z", "Y"), ("Y", "S")]
extra_edges = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=4)


@given(edges=st.one_of(extra_edges.filter(bool), extra_edges.map(lambda extra: BASE + extra)),
       unob=st.lists(st.sampled_from(NODES), max_size=2, unique=True),
       cond=st.lists(st.sampled_from(["S", "Z"]), max_size=1),
       constraints=st.lists(st.sampled_from(CONSTRAINTS), max_size=2),
       roles=st.tuples(st.sampled_from(["A", "X"]), st.sampled_from(["Y", "Z"]), st.sampled_from(["P", "Q"])))
def test_configs_are_built_only_when_valid(edges, unob, cond, constraints, roles) -> None:
    attribute, outcome_node, prediction = roles
    spec = {"dag_str": ", ".join(f"{a} -> {b}" for a, b in edges), "unob": unob, "cond_nodes": cond,
            "constraints": constraints, "attribute_node": attribute, "outcome_node": outcome_node,
            "prediction_node": prediction}
    config, error = outcome(lambda: fp.BiasConfig.from_dict(spec))
    if error is not None:
        return
    assert _acyclic(edges), f"a cyclic DAG was accepted: {spec['dag_str']}"
    assert all(a != b for a, b in edges), f"a self-loop was accepted: {spec['dag_str']}"
    nodes = {v for e in edges for v in e}
    assert set(unob) <= nodes and set(cond) <= nodes and not set(unob) & set(cond)
    assert {attribute, outcome_node, prediction} <= nodes - set(unob)
    for parsed in config.parsed_constraints:
        assert parsed.variables <= nodes, (parsed.variables, nodes)
    confirmed()

"""DAG parsing, validation, latent projection and c-components."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fairprobe import ConfigError
from fairprobe.core.dag import DAG

PROXY_AND_SELECTION = "A->Z, A->P, A->Y, A->S, U->P, U->Z, V->P, V->Y, Z->Y, Y->S, Q->Y, Q->S, W->Z, W->S"


def test_parse_and_order() -> None:
    g = DAG.from_string("A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", unob="U", cond=["S"])
    assert g.nodes == ["A", "Y", "P", "S", "U"]
    assert g.order == ["A", "U", "Y", "P", "S"]
    assert g.parents("S") == ["A", "U", "Y"]
    assert g.observed_parents("S") == ["A", "Y"]
    assert g.c_components() == [["A"], ["Y", "P", "S"]]


def test_multi_character_names_and_spaces() -> None:
    g = DAG.from_string(" race -> pred ,race->recid, conf -> pred, conf->recid ", unob=["conf"])
    assert g.order == ["race", "conf", "pred", "recid"]
    assert g.c_components() == [["race"], ["pred", "recid"]]


@pytest.mark.parametrize(
    ("dag", "kwargs", "message"),
    [
        ("A->B, B->C, C->A", {}, r"cycle: A -> B -> C -> A"),
        ("A->A", {}, r"Self-loop A -> A"),
        ("A-B", {}, r"Cannot read edge #1 'A-B'"),
        ("A->B,,B->C", {}, r"Empty edge #2"),
        ("A->B", {"unob": "X"}, r"Unobserved node\(s\) \['X'\] do not appear"),
        ("A->B, U->B", {"unob": "U", "cond": "U"}, r"both unobserved and conditioned"),
        ("", {}, r"DAG string is empty"),
    ],
)
def test_invalid_dags_name_the_culprit(dag: str, kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DAG.from_string(dag, **kwargs)


def test_c_components_are_transitive() -> None:
    # U links P-Z, V links P-Y, Q links Y-S, W links Z-S: one district {Z, P, Y, S}
    g = DAG.from_string(PROXY_AND_SELECTION, unob="U,V,Q,W")
    assert g.c_components() == [["A"], ["P", "Z", "Y", "S"]]


def test_latent_projection_makes_latents_roots() -> None:
    # L has a parent A: A must get edges to L's children, L becomes a root
    g = DAG.from_string("A->L, L->Y, L->P, A->P", unob="L")
    h = g.latent_projection()
    assert ("A", "Y") in h.edges and ("A", "P") in h.edges
    assert h.parents("L") == []
    assert sorted(h.children("L")) == ["P", "Y"]
    assert h.c_components() == [["A"], ["Y", "P"]]


def test_latent_projection_drops_redundant_latents() -> None:
    g = DAG.from_string("U->Y, U->P, V->Y, W->P, X->Y, X->P, A->Y", unob="U,V,W,X")
    h = g.latent_projection()
    # V and W have one child; X duplicates U
    assert h.unobserved == ["U"]
    assert h.c_components() == [["P", "Y"], ["A"]]


def test_latent_chain_projection() -> None:
    # a latent chain U1 -> U2 -> {Y, P}: U2 becomes a root confounding Y and P
    g = DAG.from_string("U1->U2, U2->Y, U2->P, A->Y", unob="U1,U2")
    h = g.latent_projection()
    assert len(h.unobserved) == 1 and sorted(h.children(h.unobserved[0])) == ["P", "Y"]
    assert h.c_components() == [["A"], ["Y", "P"]]


def test_order_does_not_depend_on_hash_seed() -> None:
    code = ("from fairprobe.core.dag import DAG; g = DAG.from_string("
            f"{PROXY_AND_SELECTION!r}, unob='U,V,Q,W'); print(g.order, g.c_components())")
    outs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)
    assert len(outs) == 1


def test_a_deep_copied_dag_is_equal_and_shares_no_container() -> None:
    import copy

    g = DAG.from_string("A -> Y, A -> P, U -> P, U -> Y, Y -> S", unob="U", cond="S")
    g.observed_parents("P")  # (fills a cache, copied too)
    h = copy.deepcopy(g)
    assert h == g and h.__dict__ == g.__dict__
    assert h.c_components() == g.c_components() and h.order == g.order
    for name, value in vars(g).items():
        if isinstance(value, (list, dict, set)):
            assert getattr(h, name) is not value, name
    h._parents["Y"].append("Z")
    h.edges.append(("Z", "Y"))
    h._observed_parents["P"].append("Z")
    assert "Z" not in g._parents["Y"] and ("Z", "Y") not in g.edges and "Z" not in g._observed_parents["P"]


def test_a_deep_copied_dag_keeps_shared_containers_shared() -> None:
    import copy

    g = DAG.from_string("A -> Y, Y -> P")
    g.alias = g.nodes  # two names for one list (a plugin's attribute)
    h = copy.deepcopy(g)
    assert h.alias is h.nodes and h.nodes is not g.nodes and h.nodes == g.nodes

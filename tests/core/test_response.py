"""Response-function model: numbers of response types, slicing and event masks checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from fairprobe.core.dag import DAG
from fairprobe.core.query import Atom
from fairprobe.core.response import MAX_JOINT_TYPES, Member, ResponseModel, plan_slices
from fairprobe.exceptions import ConfigError

CONFOUNDED = DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U")


def _masks(terms: list) -> list[dict[int, list[int]]]:
    return [{k: m.astype(int).tolist() for k, m in t.masks.items()} for t in terms]


def _probability(model: ResponseModel, atoms: list[Atom], q: list[np.ndarray]) -> float:
    """P(event) = sum over completions of the product over components of q_C[mask_C].sum()."""
    return sum(float(np.prod([q[k][mask].sum() for k, mask in term.masks.items()]))
               for term in model.event_terms(atoms))


def test_binary_chain_has_two_and_four_response_types() -> None:
    model = ResponseModel(DAG.from_string("A -> Y"))
    assert [c.names for c in model.components] == [["A"], ["Y"]]
    assert [c.n_types for c in model.components] == [2, 4]
    assert model.component_of == {"A": 0, "Y": 1}
    y = model.components[1].members[0]
    # never, identity, negation, always: value at A = 0, value at A = 1
    assert y.table.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert y.n_types == 4


def test_confounded_component_multiplies_its_members_types() -> None:
    model = ResponseModel(CONFOUNDED)
    assert [(c.names, c.n_types) for c in model.components] == [(["A"], 2), (["Y", "P"], 16)]


def test_cardinalities_give_card_to_the_number_of_parent_configurations() -> None:
    dag = DAG.from_string("X->Y, X->P, U->X, U->Y", unob="U")
    model = ResponseModel(dag, {"Y": 3})
    # X: 2 types, Y: 3 ** 2 = 9 types, joint 18; P separately 2 ** 2 = 4
    assert [(c.names, c.n_types) for c in model.components] == [(["X", "Y"], 18), (["P"], 4)]
    assert model.cards == {"X": 2, "Y": 3, "P": 2}


def test_slicing_absorbs_an_unconfounded_root_linearly() -> None:
    assert plan_slices(CONFOUNDED, CONFOUNDED.c_components(), ["A"]) == {("Y", "P"): ["A"]}
    assert plan_slices(CONFOUNDED, CONFOUNDED.c_components(), []) == {}
    model = ResponseModel(CONFOUNDED, sliceable=["A"])
    (comp,) = model.components
    assert comp.names == ["A", "Y", "P"] and comp.slice_vars == ["A"]
    # one block of 2 * 2 restricted types per value of A, instead of 2 * 16
    assert comp.n_types == 8
    assert comp.types[:, 0].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_config_and_free_index_are_row_major() -> None:
    m = Member("Y", 2, ["A", "B"], [3, 2], np.zeros((1, 6), dtype=np.int8))
    assert [m.free_index({"A": a, "B": b}) for a in range(3) for b in range(2)] == list(range(6))
    assert m.free_index({"A": 2, "B": 1}) == 5
    sliced = Member("Y", 2, ["A", "B"], [3, 2], np.zeros((1, 2), dtype=np.int8), free_parents=["B"])
    assert sliced.free_index({"A": 2, "B": 1}) == 1


def test_factual_event_masks_by_hand() -> None:
    model = ResponseModel(DAG.from_string("A -> Y"))
    # Y = 1: completion A = 0 (Y types 2, 3 output 1 at A = 0) and A = 1 (types 1, 3)
    assert _masks(model.event_terms([Atom("Y", 1)])) == [
        {0: [1, 0], 1: [0, 0, 1, 1]},
        {0: [0, 1], 1: [0, 1, 0, 1]},
    ]
    assert _masks(model.event_terms([Atom("A", 1), Atom("Y", 0)])) == [{0: [0, 1], 1: [1, 0, 1, 0]}]


def test_counterfactual_event_masks_by_hand() -> None:
    model = ResponseModel(DAG.from_string("A -> Y"))
    assert _masks(model.event_terms([Atom("Y", 1, (("A", 1),))])) == [{1: [0, 1, 0, 1]}]
    # Y(A=0) = 1 and Y(A=1) = 1: only the "always" type; A is never read
    both = [Atom("Y", 1, (("A", 0),)), Atom("Y", 1, (("A", 1),))]
    assert _masks(model.event_terms(both)) == [{1: [0, 0, 0, 1]}]


def test_contradictory_events_have_no_terms() -> None:
    model = ResponseModel(DAG.from_string("A -> Y"))
    assert model.event_terms([Atom("Y", 1), Atom("Y", 0)]) == []
    assert model.event_terms([Atom("A", 1, (("A", 0),))]) == []


def test_probabilities_from_masks_match_a_known_model() -> None:
    model = ResponseModel(DAG.from_string("A -> Y"))
    q_a = np.array([0.3, 0.7])  # P(A = 1) = 0.7
    q_y = np.array([0.1, 0.5, 0.15, 0.25])  # never, identity, negation, always
    q = [q_a, q_y]
    # P(Y = 1) = P(A=0)(negation + always) + P(A=1)(identity + always)
    assert _probability(model, [Atom("Y", 1)], q) == pytest.approx(0.3 * 0.4 + 0.7 * 0.75)
    assert _probability(model, [Atom("Y", 1, (("A", 0),))], q) == pytest.approx(0.4)
    total = sum(_probability(model, [Atom("A", a), Atom("Y", y)], q) for a in range(2) for y in range(2))
    assert total == pytest.approx(1.0)


def test_sliced_and_unsliced_models_give_the_same_observational_probability() -> None:
    sliced = ResponseModel(CONFOUNDED, sliceable=["A"])
    plain = ResponseModel(CONFOUNDED)
    # a model: P(A = 1) = 0.6; (Y, P) = identity of A for both (joint type 1 * 4 + 1 = 5)
    q_plain = [np.array([0.4, 0.6]), np.eye(16)[5]]
    comp = sliced.components[0]
    q_sliced = np.zeros(comp.n_types)
    for k, (a, ty, tp) in enumerate(comp.types):
        y = comp.members[0].table[ty, 0]
        p = comp.members[1].table[tp, 0]
        if y == a and p == a:
            q_sliced[k] = 0.6 if a == 1 else 0.4
    assert q_sliced.sum() == pytest.approx(1.0)
    for event in ([Atom("Y", 1), Atom("P", 1)], [Atom("Y", 0), Atom("A", 0)], [Atom("P", 1), Atom("Y", 0)]):
        assert _probability(sliced, event, [q_sliced]) == pytest.approx(_probability(plain, event, q_plain))
    assert _probability(plain, [Atom("Y", 1), Atom("P", 1)], q_plain) == pytest.approx(0.6)


@pytest.mark.parametrize("atom", [Atom("Q", 1), Atom("Y", 2), Atom("U", 0)])
def test_unknown_latent_or_out_of_range_atoms_are_config_errors(atom: Atom) -> None:
    with pytest.raises(ConfigError):
        ResponseModel(CONFOUNDED).event_terms([atom])


def test_too_many_response_types_is_a_config_error() -> None:
    # Y has 2 ** 25 response functions when its parent A has 25 values
    assert 2 ** 25 > MAX_JOINT_TYPES
    with pytest.raises(ConfigError, match="response functions"):
        ResponseModel(DAG.from_string("A -> Y"), {"A": 25})


def test_shared_event_terms_cannot_be_changed_through_a_caller():
    from fairprobe.core.dag import DAG
    from fairprobe.core.query import Atom
    from fairprobe.core.response import shared_model

    model = shared_model(DAG.from_string("A -> Y"), {"A": 2, "Y": 2})
    first = model.event_terms([Atom("Y", 1)])
    first[0].masks.clear()  # the caller's own dict
    again = model.event_terms([Atom("Y", 1)])
    assert len(again) == 2 and all(term.masks for term in again)
    with pytest.raises(ValueError):
        again[0].masks[1][0] = True  # the masks themselves are shared and read-only
    with pytest.raises(ConfigError, match=r"outside 0\.\.1"):
        model.event_terms([Atom("Y", 1.0)])  # a float value is refused whether or not the event is cached

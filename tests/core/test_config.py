"""BiasConfig: the published JSON format, round trips and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairprobe import ConfigError
from fairprobe.core.config import BiasConfig

SELECTION = {
    "dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S",
    "unob": ["U"],
    "cond_nodes": ["S"],
    "attribute_node": "A",
    "outcome_node": "Y",
    "prediction_node": "P",
    "constraints": ["P(S = 1) >= 1 - D"],
}
PROXY_LABEL = {
    "dag_str": "A -> Y, A->P, A -> Z, U->P, U -> Y, U -> Z, Z->Y",
    "unob": "U",
    "cond_nodes": [],
    "attribute_node": "A",
    "outcome_node": "Z",
    "prediction_node": "P",
    "constraints": ["P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1) >= 1 - D"],
}
ECP = {
    "dag_str": "A -> Y, A->P, A -> T, U->P, U -> Y, U -> T, T->Y",
    "unob": ["U"],
    "cond_nodes": [],
    "attribute_node": "A",
    "outcome_node": "Y(T=1)",
    "prediction_node": "P",
    "constraints": ["P(Y(T=1)=1&Y(T=0)=0) + P(Y(T=1)=0&Y(T=0)=1) <= D"],
}


@pytest.mark.parametrize("data", [SELECTION, PROXY_LABEL, ECP], ids=["selection", "proxy", "ecp"])
def test_published_configs_load_and_round_trip(data: dict, tmp_path: Path) -> None:
    cfg = BiasConfig.from_dict(data)
    path = tmp_path / "cfg.json"
    cfg.to_json(path)
    again = BiasConfig.from_json(path)
    assert again == cfg
    assert again.to_dict() == json.loads(path.read_text())
    assert BiasConfig.from_json(cfg.to_json()).to_json() == cfg.to_json()


def test_roles_and_counterfactual_outcome() -> None:
    cfg = BiasConfig.from_dict(ECP)
    assert cfg.parse_outcome(cfg.outcome_node) == ("Y", {"T": 1})
    assert cfg.dag.c_components() == [["A"], ["P", "T", "Y"]]
    assert cfg.parsed_constraints[0].atoms[0].event[0].intervention == (("T", 1),)


def test_extensions_round_trip() -> None:
    data = dict(SELECTION, name="selection3", cardinalities={"A": 3},
                constraints=["P(S = 1) >= 1 - D_sel"], parameters=["D_sel"])
    cfg = BiasConfig.from_dict(data)
    assert cfg.cardinality("A") == 3 and cfg.cardinality("Y") == 2
    assert BiasConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"dag_str": "A->Y, Y->P, P->A, U->Y, Y->S"}, r"cycle: A -> Y -> P -> A"),
        ({"constraints": ["P(Q = 1) >= 1 - D"]}, r"names \['Q'\], which are not nodes"),
        ({"constraints": ["P(S = 1) >= 1 -"]}, r"column 16"),
        ({"constraints": ["P(U = 1) <= D"]}, "unobserved variable"),
        ({"constraints": ["P(S = 1) >= 1 - E"]}, r"\['E'\].*not declared sensitivity parameters"),
        ({"attribute_node": "race"}, "attribute_node 'race' is not a node"),
        ({"unob": ["U", "S"]}, "both unobserved and conditioned"),
        ({"cardinalities": {"A": 1}}, "integer >= 2"),
        ({"colour": "red"}, r"Unknown key\(s\) \['colour'\]"),
    ],
)
def test_bad_configs_name_the_problem(change: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        BiasConfig.from_dict({**SELECTION, **change})


def test_parameter_range_is_checked() -> None:
    cfg = BiasConfig.from_dict(SELECTION)
    cfg.check_parameter_values({"D": 0.05})
    with pytest.raises(ConfigError, match=r"D = 1.5 is outside \[0, 1\]"):
        cfg.check_parameter_values({"D": 1.5})
    with pytest.raises(ConfigError, match=r"No value given.*\['D'\]"):
        cfg.check_parameter_values({})


def test_missing_file_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        BiasConfig.from_json(tmp_path / "nope.json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        BiasConfig.from_json("{not json")

"""Bias configurations: a causal DAG plus constraints with sensitivity parameters.

:class:`BiasConfig` reads the published bias-config JSON format unchanged::

    {
      "dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S",
      "unob": ["U"],
      "cond_nodes": ["S"],
      "attribute_node": "A",
      "outcome_node": "Y",
      "prediction_node": "P",
      "constraints": ["P(S = 1) >= 1 - D"]
    }

Optional keys (fairprobe extensions): ``name``, ``description``, ``cardinalities``
(``{"A": 3}``; default 2 for every variable), ``parameters`` (names of the sensitivity
parameters; default ``["D"]``), ``probability_parameters`` (parameters that are probability
bounds and so must lie in [0, 1]; default: all of them), ``observed_nodes`` (nodes the table
must contain, e.g. a recorded policy).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairprobe.core.dag import DAG
from fairprobe.core.query import ParsedConstraint, parse_constraint
from fairprobe.exceptions import ConfigError

__all__ = ["BiasConfig"]

_REQUIRED = ("dag_str", "constraints")
_KNOWN = {
    "dag_str", "unob", "cond_nodes", "attribute_node", "outcome_node", "prediction_node",
    "constraints", "name", "description", "cardinalities", "parameters", "probability_parameters",
    "observed_nodes",
}
_CF_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def _as_list(value: Any, key: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, Sequence):
        return [str(v).strip() for v in value]
    raise ConfigError(f"'{key}' must be a list of node names or a comma-separated string; got {value!r}.")


@dataclass
class BiasConfig:
    """A bias: causal DAG, node roles and constraints with sensitivity parameters.

    Examples
    --------
    >>> cfg = BiasConfig.from_dict({
    ...     "dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"],
    ...     "cond_nodes": ["S"], "attribute_node": "A", "outcome_node": "Y",
    ...     "prediction_node": "P", "constraints": ["P(S = 1) >= 1 - D"]})
    >>> cfg.dag.c_components()
    [['A'], ['Y', 'P', 'S']]
    >>> BiasConfig.from_json(cfg.to_json()) == cfg
    True
    """

    dag_str: str
    constraints: list[str]
    unob: list[str] = field(default_factory=list)
    cond_nodes: list[str] = field(default_factory=list)
    attribute_node: str = "A"
    outcome_node: str = "Y"
    prediction_node: str = "P"
    name: str | None = None
    description: str | None = None
    cardinalities: dict[str, int] = field(default_factory=dict)
    parameters: list[str] = field(default_factory=lambda: ["D"])
    probability_parameters: list[str] | None = None
    observed_nodes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.unob = _as_list(self.unob, "unob")
        self.cond_nodes = _as_list(self.cond_nodes, "cond_nodes")
        self.parameters = _as_list(self.parameters, "parameters")
        self.observed_nodes = _as_list(self.observed_nodes, "observed_nodes")
        if isinstance(self.constraints, str):
            self.constraints = [self.constraints]
        self.constraints = list(self.constraints)
        self.dag = DAG.from_string(self.dag_str, self.unob, self.cond_nodes)
        for role in ("attribute_node", "prediction_node"):
            node = getattr(self, role)
            if node not in self.dag.nodes:
                raise ConfigError(f"{role} {node!r} is not a node of the DAG {self.dag.nodes}.")
        outcome, intervention = self.parse_outcome(self.outcome_node)
        for node in [outcome, *intervention]:
            if node not in self.dag.nodes:
                raise ConfigError(f"outcome_node {self.outcome_node!r} names {node!r}, which is not in the DAG.")
        for node in self.observed_nodes:
            if node not in self.dag.nodes or node in self.unob:
                raise ConfigError(f"observed_nodes names {node!r}, which is not an observed node of the DAG.")
        for node, card in self.cardinalities.items():
            if node not in self.dag.nodes:
                raise ConfigError(f"cardinalities name {node!r}, which is not a node of the DAG.")
            if not isinstance(card, int) or card < 2:
                raise ConfigError(f"Cardinality of {node!r} must be an integer >= 2; got {card!r}.")
        self.parsed_constraints: list[ParsedConstraint] = []
        for text in self.constraints:
            parsed = parse_constraint(text)
            unknown = sorted(parsed.variables - set(self.dag.nodes))
            if unknown:
                raise ConfigError(
                    f"Constraint {text!r} names {unknown}, which are not nodes of the DAG "
                    f"{self.dag.nodes}."
                )
            latent = sorted(parsed.variables & set(self.unob))
            if latent:
                raise ConfigError(
                    f"Constraint {text!r} names the unobserved variable(s) {latent}; constraints "
                    "may only involve endogenous variables."
                )
            extra = sorted(str(s) for s in parsed.parameters if str(s) not in self.parameters)
            if extra:
                raise ConfigError(
                    f"Constraint {text!r} uses {extra}, which are not declared sensitivity "
                    f"parameters {self.parameters}; add them to 'parameters'."
                )
            self.parsed_constraints.append(parsed)

    # -- roles ----------------------------------------------------------------------------
    @staticmethod
    def parse_outcome(text: str) -> tuple[str, dict[str, int]]:
        """``"Y(T=1)"`` -> ``("Y", {"T": 1})``; ``"Y"`` -> ``("Y", {})``."""
        m = _CF_RE.match(text or "")
        if not m:
            raise ConfigError(f"Cannot read outcome_node {text!r}; write 'Y' or 'Y(T=1)'.")
        do: dict[str, int] = {}
        if m.group(2):
            for part in m.group(2).split(","):
                k, _, v = part.partition("=")
                if not v.strip().isdigit():
                    raise ConfigError(f"Cannot read intervention {part!r} in outcome_node {text!r}.")
                do[k.strip()] = int(v)
        return m.group(1), do

    def cardinality(self, node: str) -> int:
        """Number of values of ``node`` (default 2)."""
        return int(self.cardinalities.get(node, 2))

    def check_parameter_values(self, values: Mapping[str, float]) -> None:
        """Raise when a probability-bound parameter is outside [0, 1] or one is missing."""
        used = {str(s) for c in self.parsed_constraints for s in c.parameters}
        missing = [p for p in self.parameters if p not in values and p in used]
        if missing:
            raise ConfigError(f"No value given for sensitivity parameter(s) {missing}.")
        bounded = self.parameters if self.probability_parameters is None else self.probability_parameters
        for p in bounded:
            if p not in values:
                continue
            v = float(values[p])
            if not 0.0 <= v <= 1.0:
                raise ConfigError(
                    f"Sensitivity parameter {p} = {v} is outside [0, 1]; it bounds a probability "
                    f"in this bias ({self.name or 'config'}), so pick a value between 0 and 1."
                )

    # -- I/O ------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BiasConfig:
        """Build from the published JSON structure (unknown keys are an error)."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"A bias config is a JSON object; got {type(data).__name__}.")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise ConfigError(f"Bias config lacks the required key(s) {missing}.")
        unknown = sorted(set(data) - _KNOWN)
        if unknown:
            raise ConfigError(f"Unknown key(s) {unknown} in bias config; known keys: {sorted(_KNOWN)}.")
        return cls(**dict(data))

    @classmethod
    def from_json(cls, source: str | Path) -> BiasConfig:
        """Load from a JSON file path or a JSON string."""
        text = str(source)
        if not text.lstrip().startswith("{"):
            path = Path(text)
            if not path.exists():
                raise ConfigError(f"Bias config file {path} does not exist.")
            text = path.read_text()
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"Bias config is not valid JSON: {exc}") from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """The JSON structure (published keys first; extensions only when set)."""
        out: dict[str, Any] = {
            "dag_str": self.dag_str, "unob": list(self.unob), "cond_nodes": list(self.cond_nodes),
            "attribute_node": self.attribute_node, "outcome_node": self.outcome_node,
            "prediction_node": self.prediction_node, "constraints": list(self.constraints),
        }
        if self.name is not None:
            out["name"] = self.name
        if self.description is not None:
            out["description"] = self.description
        if self.cardinalities:
            out["cardinalities"] = dict(self.cardinalities)
        if self.parameters != ["D"]:
            out["parameters"] = list(self.parameters)
        if self.probability_parameters is not None:
            out["probability_parameters"] = list(self.probability_parameters)
        if self.observed_nodes:
            out["observed_nodes"] = list(self.observed_nodes)
        return out

    def to_json(self, path: str | Path | None = None, indent: int = 2) -> str:
        """Serialise; also write to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=indent)
        if path is not None:
            Path(path).write_text(text)
        return text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BiasConfig) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

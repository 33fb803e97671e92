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

The optional keys (fairprobe extensions) are the other parameters of :class:`BiasConfig`.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairprobe.core.dag import DAG
from fairprobe.core.query import ParsedConstraint, parse_constraint
from fairprobe.core.templates import expand_constraint
from fairprobe.exceptions import ConfigError

__all__ = ["BiasConfig"]

_REQUIRED = ("dag_str", "constraints")
_KNOWN = frozenset({
    "dag_str", "unob", "cond_nodes", "attribute_node", "outcome_node", "prediction_node",
    "constraints", "name", "description", "cardinalities", "parameters", "probability_parameters",
    "observed_nodes", "cardinality_of",
})
_CF_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")
_PARAM_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _text(value: Any, key: str, example: str, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise ConfigError(f"'{key}' must be a string such as {example}; got {value!r} ({type(value).__name__}).")


def _response_types(config: BiasConfig) -> None:
    """Refuse cardinalities whose response types (:class:`~fairprobe.core.response.ResponseModel`, counted in
    logarithms) exceed ``MAX_JOINT_TYPES`` per node or c-component, before anything is built."""
    from fairprobe.core.response import MAX_JOINT_TYPES, plan_slices

    cards = config.cardinalities
    big = {n: k for n, k in cards.items() if k > MAX_JOINT_TYPES}
    if big:
        raise ConfigError(
            f"cardinalities {big} exceed what fairprobe can enumerate (at most {MAX_JOINT_TYPES:,} response "
            "types per c-component); merge values (e.g. group rare categories) to use at most a few dozen.")
    try:
        dag = config.dag.latent_projection()
        components = dag.c_components()
    except ConfigError:
        return  # reported where the DAG is used
    # optimistic: covariates read by some members only are sliced when the table pins their law
    slices = plan_slices(dag, components, dag.endogenous, dag.endogenous)
    absorbed = {v for vs in slices.values() for v in vs}
    limit = math.log(MAX_JOINT_TYPES)
    for names in components:
        if len(names) == 1 and names[0] in absorbed:
            continue
        sliced = slices.get(tuple(names), [])
        total = sum(math.log(config.cardinality(v)) for v in sliced)
        for v in [n for n in names if n not in sliced]:
            free = [p for p in dag.observed_parents(v) if p not in sliced]
            configs = math.prod(config.cardinality(p) for p in free)
            k = config.cardinality(v)
            size = configs * math.log(k)
            total += size
            if size > limit or total > limit:
                declared = {n: cards[n] for n in [v, *dag.observed_parents(v)] if n in cards}
                raise ConfigError(
                    f"With cardinalities {declared or cards}, node {v!r} ({k} values, {configs} configurations "
                    f"of its parents {free}) or its c-component {names} has more than {MAX_JOINT_TYPES:,} "
                    "response types, beyond what fairprobe enumerates; lower those cardinalities (merge values) "
                    f"or remove parents of {v!r}.")


def _as_dict(value: Any, key: str, what: str) -> dict[str, Any]:
    """A mapping option of the config as a plain dict (``None`` is empty), or a ConfigError."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"'{key}' must be a dict of {what}; got {value!r}.")
    return dict(value)


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

    Parameters
    ----------
    dag_str : str
        Comma-separated edges, ``"A -> Y, U -> Y"``.
    constraints : list of str
        Constraints on the observed variables, e.g. ``"P(S = 1) >= 1 - D"`` (``forall`` templates allowed).
    unob : list of str
        Unobserved (latent) nodes.
    cond_nodes : list of str
        Nodes the data are conditioned on (selection).
    attribute_node, outcome_node, prediction_node : str
        The protected attribute, the outcome (possibly counterfactual, ``"Y(T=1)"``) and the prediction.
    name, description : str, optional
        Label and free text.
    cardinalities : dict of str to int
        Number of values of nodes that do not take 2 (the attribute takes as many as the table has).
    parameters : list of str
        Names of the sensitivity parameters (default ``["D"]``).
    probability_parameters : list of str, optional
        Parameters that must lie in [0, 1] (default: all of them).
    observed_nodes : list of str
        The measured nodes, when some are unmeasured; the table must contain them.
    cardinality_of : dict of str to str
        Nodes whose number of values follows another node's, e.g. ``{"Z": "Y"}``.

    Raises
    ------
    ConfigError
        Any inconsistency: unknown nodes, a cycle, bad constraints or parameters, too many response types.

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
    cardinality_of: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _text(self.dag_str, "dag_str", "'A -> Y, A -> P, U -> P, U -> Y'")
        for role, example in (("attribute_node", "'A'"), ("prediction_node", "'P'"), ("outcome_node", "'Y'")):
            _text(getattr(self, role), role, example)
        _text(self.name, "name", "'my_bias'", optional=True)
        _text(self.description, "description", "'Selection on S'", optional=True)
        self.unob = _as_list(self.unob, "unob")
        self.cond_nodes = _as_list(self.cond_nodes, "cond_nodes")
        self.parameters = _as_list(self.parameters, "parameters")
        self.observed_nodes = _as_list(self.observed_nodes, "observed_nodes")
        self._check_parameters()
        self._check_constraint_list()
        self.cardinalities = _as_dict(self.cardinalities, "cardinalities", "node -> number of values, e.g. {'A': 3}")
        self.dag = DAG.from_string(self.dag_str, self.unob, self.cond_nodes)
        self._check_roles()
        for node in self.observed_nodes:
            if node not in self.dag.nodes or node in self.unob:
                raise ConfigError(f"observed_nodes names {node!r}, which is not an observed node of the DAG.")
        self._check_cardinalities()
        self._check_cardinality_of()
        _response_types(self)
        self.parsed_constraints = self._parse_constraints()

    def _check_parameters(self) -> None:
        """Parameter names usable and listed once; probability parameters among them."""
        for p in self.parameters:
            if not _PARAM_RE.match(p) or p == "P":
                raise ConfigError(f"Sensitivity parameter name {p!r} is not usable; name parameters with letters, "
                                  "digits and '_' (not starting with a digit, and not 'P'), e.g. 'D' or 'D_sel'.")
        if len(set(self.parameters)) != len(self.parameters):
            raise ConfigError(f"'parameters' lists a name twice: {self.parameters}; list each parameter once.")
        if self.probability_parameters is not None:
            self.probability_parameters = _as_list(self.probability_parameters, "probability_parameters")
            extra = [p for p in self.probability_parameters if p not in self.parameters]
            if extra:
                raise ConfigError(f"probability_parameters names {extra}, which are not in 'parameters' "
                                  f"{self.parameters}; list only declared parameters.")

    def _check_constraint_list(self) -> None:
        """``constraints`` as a list of strings (one string is a list of one)."""
        if isinstance(self.constraints, str):
            self.constraints = [self.constraints]
        if self.constraints is None or isinstance(self.constraints, (Mapping, bytes)) or \
                not isinstance(self.constraints, Sequence):
            raise ConfigError(
                f"'constraints' must be a list of constraint strings such as ['P(S = 1) >= 1 - D'] (or [] for "
                f"none); got {self.constraints!r}.")
        self.constraints = list(self.constraints)
        for text in self.constraints:
            if not isinstance(text, str):
                raise ConfigError(f"Constraint {text!r} is a {type(text).__name__}; each constraint is a string "
                                  "such as 'P(S = 1) >= 1 - D'.")

    def _check_roles(self) -> None:
        """The role nodes are observed nodes of the DAG (the outcome's intervention nodes too)."""
        for role in ("attribute_node", "prediction_node"):
            node = getattr(self, role)
            if node not in self.dag.nodes:
                raise ConfigError(f"{role} {node!r} is not a node of the DAG {self.dag.nodes}.")
        outcome, intervention = self.parse_outcome(self.outcome_node)
        for node in [outcome, *intervention]:
            if node not in self.dag.nodes:
                raise ConfigError(f"outcome_node {self.outcome_node!r} names {node!r}, which is not in the DAG.")
        for role, node in (("attribute_node", self.attribute_node), ("outcome_node", outcome),
                           ("prediction_node", self.prediction_node)):
            if node in self.unob:  # a metric reads its roles: a latent node is projected out of the model
                raise ConfigError(f"{role} {node!r} is declared latent (unob), but a metric reads it. Drop it from "
                                  "unob; a node with no column in the data is declared unmeasured instead "
                                  "(observed_nodes, or unmeasured=[...] in fp.bound).")

    def _check_cardinalities(self) -> None:
        """Declared cardinalities name nodes of the DAG and are integers >= 2."""
        for node, card in self.cardinalities.items():
            if node not in self.dag.nodes:
                raise ConfigError(f"cardinalities name {node!r}, which is not a node of the DAG.")
            if isinstance(card, bool) or not isinstance(card, numbers.Integral) or card < 2:
                raise ConfigError(f"Cardinality of {node!r} must be an integer >= 2; got {card!r}. Give the number "
                                  f"of values the node takes, e.g. cardinalities={{'{node}': 3}}.")
            self.cardinalities[node] = int(card)

    def _parse_constraints(self) -> list[ParsedConstraint]:
        """The constraints, ``forall`` templates expanded, parsed and checked against the DAG and parameters."""
        parsed_constraints: list[ParsedConstraint] = []
        known = set(self.dag.nodes)
        expanded = [t for text in self.constraints
                    for t in expand_constraint(text, lambda n: self.cardinality(n) if n in known else None)]
        for text in expanded:
            parsed = parse_constraint(text)
            unknown = sorted(parsed.variables - set(self.dag.nodes))
            if unknown:
                raise ConfigError(f"Constraint {text!r} names {unknown}, which are not nodes of the DAG "
                                  f"{self.dag.nodes}.")
            latent = sorted(parsed.variables & set(self.unob))
            if latent:
                raise ConfigError(f"Constraint {text!r} names the unobserved variable(s) {latent}; constraints "
                                  "may only involve endogenous variables.")
            extra = sorted(str(s) for s in parsed.parameters if str(s) not in self.parameters)
            if extra:
                raise ConfigError(f"Constraint {text!r} uses {extra}, which are not declared sensitivity "
                                  f"parameters {self.parameters}; add them to 'parameters'.")
            parsed_constraints.append(parsed)
        return parsed_constraints

    # -- roles ----------------------------------------------------------------------------
    @staticmethod
    def parse_outcome(text: str) -> tuple[str, dict[str, int]]:
        """``"Y(T=1)"`` -> ``("Y", {"T": 1})``; ``"Y"`` -> ``("Y", {})``.

        Parameters
        ----------
        text : str
            An outcome node, possibly with an intervention.

        Returns
        -------
        tuple of (str, dict of str to int)
            The node and the intervened values.

        Raises
        ------
        ConfigError
            The text is not of the form ``Y`` or ``Y(T=1, ...)``.

        Examples
        --------
        >>> BiasConfig.parse_outcome("Y(T=1)"), BiasConfig.parse_outcome("Y")
        (('Y', {'T': 1}), ('Y', {}))
        """
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

    def recorded_node(self, node: str, columns: Iterable[str]) -> str:
        """The column ``node``'s values come from: itself, or the node it follows (``cardinality_of``), transitively.

        Parameters
        ----------
        node : str
            A DAG node.
        columns : iterable of str
            The nodes the data have.

        Returns
        -------
        str
            ``node`` when it is a column or follows none; else the first column along ``cardinality_of``.

        Examples
        --------
        >>> from fairprobe.core.bound import resolve_bias
        >>> resolve_bias("proxy_attribute").recorded_node("B", ["A", "Y", "P"])
        'A'
        """
        columns, seen = set(columns), set()
        while node not in columns and node in self.cardinality_of and node not in seen:
            seen.add(node)
            node = self.cardinality_of[node]
        return node

    def cardinality(self, node: str) -> int:
        """Number of values of ``node``: declared, else that of the node it follows (``cardinality_of``), else 2.

        Parameters
        ----------
        node : str
            A node of the DAG.

        Returns
        -------
        int

        Examples
        --------
        >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": [],
        ...                             "cardinalities": {"Y": 3}, "cardinality_of": {"P": "Y"}})
        >>> cfg.cardinality("Y"), cfg.cardinality("P"), cfg.cardinality("A")
        (3, 3, 2)
        """
        seen = {node}
        while node not in self.cardinalities and node in self.cardinality_of:
            node = self.cardinality_of[node]
            if node in seen:
                break
            seen.add(node)
        return int(self.cardinalities.get(node, 2))

    def _check_cardinality_of(self) -> None:
        self.cardinality_of = _as_dict(self.cardinality_of, "cardinality_of", "node -> node, e.g. {'Z': 'Y'}")
        for node, other in self.cardinality_of.items():
            if node not in self.dag.nodes or other not in self.dag.nodes:
                raise ConfigError(f"cardinality_of maps {node!r} to {other!r}; both must be nodes of the DAG "
                                  f"{self.dag.nodes}.")

    def check_parameter_values(self, values: Mapping[str, float]) -> None:
        """Raise when a probability-bound parameter is outside [0, 1] or one is missing.

        Parameters
        ----------
        values : mapping of str to float
            Sensitivity parameter name -> value.

        Raises
        ------
        ConfigError
            A parameter used by a constraint has no value, a value is not a finite number, or a probability
            parameter lies outside [0, 1].

        Examples
        --------
        >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U",
        ...                             "constraints": ["P(Y = 1) >= 1 - D"]})
        >>> cfg.check_parameter_values({"D": 0.1})
        >>> cfg.check_parameter_values({"D": 1.5})
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.ConfigError: Sensitivity parameter D = 1.5 is outside [0, 1]; ...
        """
        used = {str(s) for c in self.parsed_constraints for s in c.parameters}
        missing = [p for p in self.parameters if p not in values and p in used]
        if missing:
            raise ConfigError(f"No value given for sensitivity parameter(s) {missing}.")
        for p, v in values.items():
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
                raise ConfigError(f"Sensitivity parameter {p} = {v!r} is not a finite number; give a number such "
                                  f"as {p}=0.05.")
        bounded = self.parameters if self.probability_parameters is None else self.probability_parameters
        for p in bounded:
            if p not in values:
                continue
            v = float(values[p])
            if not 0.0 <= v <= 1.0:
                raise ConfigError(f"Sensitivity parameter {p} = {v} is outside [0, 1]; it bounds a probability "
                                  f"in this bias ({self.name or 'config'}), so pick a value between 0 and 1.")

    # -- I/O ------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BiasConfig:
        """Build from the published JSON structure (unknown keys are an error).

        Parameters
        ----------
        data : mapping of str to Any
            The config's keys (``dag_str`` and ``constraints`` are required).

        Returns
        -------
        BiasConfig

        Raises
        ------
        ConfigError
            Not a mapping, a missing required key, an unknown key, or an invalid config.

        Examples
        --------
        >>> BiasConfig.from_dict({"dag_str": "A->Y, A->P", "constraints": []}).dag.nodes
        ['A', 'Y', 'P']
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"A bias config is a JSON object ({{\"dag_str\": ..., \"constraints\": [...]}}); got "
                              f"{type(data).__name__}.")
        bad_keys = [k for k in data if not isinstance(k, str)]
        if bad_keys:
            raise ConfigError(f"Bias config keys must be strings; got {bad_keys}. Known keys: {sorted(_KNOWN)}.")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise ConfigError(f"Bias config lacks the required key(s) {missing}.")
        unknown = sorted(set(data) - _KNOWN)
        if unknown:
            raise ConfigError(f"Unknown key(s) {unknown} in bias config; known keys: {sorted(_KNOWN)}.")
        return cls(**dict(data))

    @classmethod
    def from_json(cls, source: str | Path) -> BiasConfig:
        """Load from a JSON file path or a JSON string.

        Parameters
        ----------
        source : str or Path
            A path to a JSON file, or the JSON text itself.

        Returns
        -------
        BiasConfig

        Raises
        ------
        ConfigError
            As :meth:`read_json` and :meth:`from_dict`.

        Examples
        --------
        >>> BiasConfig.from_json('{"dag_str": "A->Y, A->P", "constraints": [], "name": "toy"}').name
        'toy'
        """
        return cls.from_dict(cls.read_json(source))

    @staticmethod
    def read_json(source: str | Path) -> Any:
        """The parsed JSON of a bias config file path or JSON string (errors as :class:`ConfigError`).

        Parameters
        ----------
        source : str or Path
            A path to a JSON file, or the JSON text itself (recognised by its leading ``{``).

        Returns
        -------
        Any
            The decoded JSON (normally a dict); not validated.

        Raises
        ------
        ConfigError
            A missing or unreadable file, a folder, or invalid JSON.

        Examples
        --------
        >>> BiasConfig.read_json('{"dag_str": "A->Y"}')
        {'dag_str': 'A->Y'}
        """
        if not isinstance(source, (str, Path)):
            raise ConfigError(f"from_json needs a file path or a JSON string; got {type(source).__name__} (use "
                              "from_dict for a dict).")
        text = str(source)
        if not text.lstrip().startswith("{"):
            path = Path(text)
            if not text.strip() or not path.exists():
                raise ConfigError(f"Bias config file {text!r} does not exist; give the path of a JSON file or a "
                                  "JSON string.")
            if path.is_dir():
                raise ConfigError(f"Bias config path {path} is a folder; give the path of a JSON file.")
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"Cannot read the bias config {path}: {exc}; give a readable UTF-8 JSON file.") \
                    from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"Bias config is not valid JSON: {exc}; check the quotes, commas and brackets.") \
                from None
        except RecursionError:
            raise ConfigError("Bias config JSON is nested too deeply to read; a bias config is one flat object.") \
                from None
        return data

    def to_dict(self) -> dict[str, Any]:
        """The JSON structure that :meth:`from_dict` reads back (published keys first; extensions only when set).

        Returns
        -------
        dict of str to Any

        Examples
        --------
        >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P", "constraints": [], "cardinalities": {"Y": 3}})
        >>> cfg.to_dict()["cardinalities"], "name" in cfg.to_dict()
        ({'Y': 3}, False)
        """
        out: dict[str, Any] = {
            "dag_str": self.dag_str, "unob": list(self.unob), "cond_nodes": list(self.cond_nodes),
            "attribute_node": self.attribute_node, "outcome_node": self.outcome_node,
            "prediction_node": self.prediction_node, "constraints": list(self.constraints),
        }
        bounded = self.probability_parameters
        extensions = {"name": self.name, "description": self.description,
                      "cardinalities": dict(self.cardinalities) if self.cardinalities else None,
                      "parameters": list(self.parameters) if self.parameters != ["D"] else None,
                      "probability_parameters": None if bounded is None else list(bounded),
                      "observed_nodes": list(self.observed_nodes) if self.observed_nodes else None,
                      "cardinality_of": dict(self.cardinality_of) if self.cardinality_of else None}
        return {**out, **{key: value for key, value in extensions.items() if value is not None}}

    def to_json(self, path: str | Path | None = None, indent: int = 2) -> str:
        """Serialise; also write to ``path`` when given.

        Parameters
        ----------
        path : str or Path, optional
            File to write the JSON to.
        indent : int
            Indentation of the JSON text.

        Returns
        -------
        str

        Examples
        --------
        >>> BiasConfig.from_dict({"dag_str": "A->Y, A->P", "constraints": []}).to_json(indent=None)[:30]
        '{"dag_str": "A->Y, A->P", "uno'
        """
        text = json.dumps(self.to_dict(), indent=indent)
        if path is not None:
            Path(path).write_text(text)
        return text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BiasConfig) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

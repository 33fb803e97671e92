"""The bias workshop's logic, without Streamlit: text fields, configs from fields, constraint checks, DAG drawing.

Nothing a user types is evaluated as code; constraints go through
:func:`fairprobe.core.query.parse_constraint`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import fairprobe as fp
from fairprobe.core.query import parse_constraint
from fairprobe.core.templates import expand_constraint
from fairprobe.exceptions import ConfigError

__all__ = ["FIELDS", "ConstraintIssue", "config_dict_from_fields", "config_from_fields", "constraint_issues", "dag_dot",
           "fields_from_config", "format_mapping", "parse_mapping", "split_lines", "split_names"]

#: The widget fields of the bias workshop, in the order of :meth:`BiasConfig.to_dict`.
FIELDS = ("name", "description", "dag_str", "unob", "cond_nodes", "observed_nodes", "attribute_node",
          "outcome_node", "prediction_node", "cardinalities", "cardinality_of", "parameters", "constraints")


# -- text fields ---------------------------------------------------------------------------------------
def split_names(text: str) -> list[str]:
    """Node or parameter names from a comma- or space-separated text field.

    Parameters
    ----------
    text : str
        E.g. ``"U, V"``.

    Returns
    -------
    list of str
        The names, in order, without blanks.

    Examples
    --------
    >>> split_names("U, V  W")
    ['U', 'V', 'W']
    >>> split_names("")
    []
    """
    return [t for t in re.split(r"[,\s]+", text or "") if t]


def split_lines(text: str) -> list[str]:
    """The non-blank lines of a text area, stripped (one constraint per line).

    Parameters
    ----------
    text : str
        The text area's content.

    Returns
    -------
    list of str
        Stripped lines, blank ones dropped.

    Examples
    --------
    >>> split_lines("P(S = 1) >= 1 - D\\n\\n  P(Y = 1) <= 0.5 ")
    ['P(S = 1) >= 1 - D', 'P(Y = 1) <= 0.5']
    """
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def parse_mapping(text: str, *, integer: bool = False) -> dict[str, Any]:
    """``"A=3, X=4"`` as a dict (values as int when ``integer``); a malformed entry is a ConfigError.

    Parameters
    ----------
    text : str
        Comma-separated ``key=value`` pairs.
    integer : bool
        Convert the values to integers.

    Returns
    -------
    dict
        Keys to values, in order.

    Raises
    ------
    ConfigError
        An entry without ``=``, a key given twice, or a value that is not an integer when ``integer``.

    Examples
    --------
    >>> parse_mapping("A=3, X = 4", integer=True)
    {'A': 3, 'X': 4}
    >>> parse_mapping("Z=Y")
    {'Z': 'Y'}
    """
    out: dict[str, Any] = {}
    for item in (t.strip() for t in (text or "").split(",")):
        if not item:
            continue
        key, sep, value = (s.strip() for s in item.partition("="))
        if not sep or not key or not value:
            raise ConfigError(f"Cannot read {item!r}: write node=value pairs separated by commas, e.g. 'A=3, X=4'.")
        if integer:
            if not re.fullmatch(r"\d+", value):
                raise ConfigError(f"Cannot read {item!r}: the number of values must be an integer, e.g. '{key}=3'.")
            value = int(value)
        if key in out:  # the last value silently kept would hide a typo
            raise ConfigError(f"{text.strip()!r} gives {key} twice ({key}={out[key]}, {key}={value}); "
                              "give each name once.")
        out[key] = value
    return out


def format_mapping(mapping: Mapping[str, Any]) -> str:
    """The inverse of :func:`parse_mapping`.

    Parameters
    ----------
    mapping : mapping
        Keys to values.

    Returns
    -------
    str
        ``"k=v, k=v"``.

    Examples
    --------
    >>> format_mapping({"A": 3, "X": 4})
    'A=3, X=4'
    """
    return ", ".join(f"{k}={v}" for k, v in mapping.items())


# -- bias configs --------------------------------------------------------------------------------------
def fields_from_config(config: fp.BiasConfig | Mapping[str, Any]) -> dict[str, str]:
    """The workshop's text fields for a config (or its dict form).

    Parameters
    ----------
    config : BiasConfig or mapping
        The config to edit.

    Returns
    -------
    dict of str to str
        One string per field of :data:`FIELDS`.

    Examples
    --------
    >>> cfg = fp.get_registry().biases["selection"]().config()
    >>> f = fields_from_config(cfg)
    >>> f["unob"], f["cond_nodes"], f["constraints"]
    ('U', 'S', 'P(S = 1) >= 1 - D')
    """
    d = dict(config.to_dict() if isinstance(config, fp.BiasConfig) else config)
    return {
        "name": str(d.get("name") or ""), "description": str(d.get("description") or ""),
        "dag_str": str(d.get("dag_str", "")), "unob": ", ".join(d.get("unob", [])),
        "cond_nodes": ", ".join(d.get("cond_nodes", [])), "observed_nodes": ", ".join(d.get("observed_nodes", [])),
        "attribute_node": str(d.get("attribute_node", "A")), "outcome_node": str(d.get("outcome_node", "Y")),
        "prediction_node": str(d.get("prediction_node", "P")),
        "cardinalities": format_mapping(d.get("cardinalities", {})),
        "cardinality_of": format_mapping(d.get("cardinality_of", {})),
        "parameters": ", ".join(d.get("parameters", ["D"])),
        "constraints": "\n".join(d.get("constraints", [])),
    }


def config_dict_from_fields(fields: Mapping[str, str], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The config's dict form from the workshop's fields (keys the fields lack come from ``base``).

    Parameters
    ----------
    fields : mapping of str to str
        The text fields (see :func:`fields_from_config`).
    base : mapping, optional
        The loaded config's dict; keys the workshop does not edit (``probability_parameters``) are kept.

    Returns
    -------
    dict
        Input for :meth:`BiasConfig.from_dict` (not validated yet).

    Examples
    --------
    >>> d = config_dict_from_fields({"dag_str": "A -> Y, A -> P", "constraints": "", "parameters": "D"})
    >>> d["dag_str"], d["constraints"], "parameters" in d
    ('A -> Y, A -> P', [], False)
    """
    out: dict[str, Any] = {k: v for k, v in (base or {}).items() if k not in FIELDS}
    get = fields.get
    out["dag_str"] = (get("dag_str") or "").strip()
    for key in ("unob", "cond_nodes"):
        out[key] = split_names(get(key) or "")
    for key, default in (("attribute_node", "A"), ("outcome_node", "Y"), ("prediction_node", "P")):
        out[key] = (get(key) or "").strip() or default
    out["constraints"] = split_lines(get("constraints") or "")
    for key in ("name", "description"):
        if (get(key) or "").strip():
            out[key] = (get(key) or "").strip()
    cards = parse_mapping(get("cardinalities") or "", integer=True)
    if cards:
        out["cardinalities"] = cards
    params = split_names(get("parameters") or "") or ["D"]
    if params != ["D"]:
        out["parameters"] = params
    observed = split_names(get("observed_nodes") or "")
    if observed:
        out["observed_nodes"] = observed
    card_of = parse_mapping(get("cardinality_of") or "")
    if card_of:
        out["cardinality_of"] = card_of
    return out


def config_from_fields(fields: Mapping[str, str], base: Mapping[str, Any] | None = None) -> fp.BiasConfig:
    """A validated :class:`~fairprobe.BiasConfig` from the workshop's fields.

    Parameters
    ----------
    fields : mapping of str to str
        The text fields.
    base : mapping, optional
        The loaded config's dict (see :func:`config_dict_from_fields`).

    Returns
    -------
    BiasConfig

    Raises
    ------
    ConfigError
        A cyclic DAG, an unknown node, a bad constraint, ... (BiasConfig's own message).

    Examples
    --------
    >>> cfg = fp.get_registry().biases["selection"]().config()
    >>> config_from_fields(fields_from_config(cfg), cfg.to_dict()) == cfg
    True
    >>> config_from_fields({"dag_str": "A -> Y, Y -> A", "constraints": ""})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: ...cycle...
    """
    return fp.BiasConfig.from_dict(config_dict_from_fields(fields, base))


@dataclass
class ConstraintIssue:
    """A constraint line that does not parse.

    Parameters
    ----------
    line : int
        Line number in the text area (1-based, blank lines counted).
    text : str
        The line.
    message : str
        The parser's message (with the column).

    Examples
    --------
    >>> issue = constraint_issues("P(S = 1) >= 1 - D\\nP(S = 1 >= D")[0]
    >>> issue.line, issue.text
    (2, 'P(S = 1 >= D')
    """

    line: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def constraint_issues(text: str, nodes: Sequence[str] | None = None) -> list[ConstraintIssue]:
    """Parse every constraint line before solving; return the lines that fail, with the parser's message.

    ``forall X: ...`` templates are expanded with two values per node first. With ``nodes``, a
    constraint naming a node the DAG lacks is flagged as well.

    Parameters
    ----------
    text : str
        The constraints text area (one constraint per line).
    nodes : sequence of str, optional
        The DAG's nodes, when the DAG is valid.

    Returns
    -------
    list of ConstraintIssue
        Empty when every line parses.

    Examples
    --------
    >>> constraint_issues("P(S = 1) >= 1 - D\\nP(Y = 1 <= D")[0].line
    2
    >>> print(constraint_issues("P(Y = 1 <= D")[0])
    line 1: Cannot parse 'P(Y = 1 <= D' at column 9: expected ), found '<=' (at '<= D').
    >>> constraint_issues("P(Q = 1) <= D", nodes=["A", "Y"])[0].message
    "Constraint 'P(Q = 1) <= D' names ['Q'], which are not nodes of the DAG ['A', 'Y']."
    """

    issues = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            for expanded in expand_constraint(line, lambda n: 2):
                parsed = parse_constraint(expanded)
                unknown = sorted(parsed.variables - set(nodes)) if nodes is not None else []
                if unknown:
                    raise ConfigError(f"Constraint {expanded!r} names {unknown}, which are not nodes of the DAG "
                                      f"{list(nodes or [])}.")
        except ConfigError as exc:
            issues.append(ConstraintIssue(number, line, str(exc)))
    return issues


_EDGE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*->\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _dot_id(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dag_dot(dag_str: str, unob: Sequence[str] = (), cond_nodes: Sequence[str] = (),
            roles: Mapping[str, str] | None = None) -> str:
    """A Graphviz DOT drawing of the DAG as typed (latent nodes dashed, conditioned nodes boxed).

    Edges that do not read as ``X -> Y`` are left out of the drawing (the config check names them).

    Parameters
    ----------
    dag_str : str
        Comma-separated edges.
    unob, cond_nodes : sequence of str
        Latent and conditioned-on nodes.
    roles : mapping of str to str, optional
        Role label by node, e.g. ``{"A": "attribute"}`` (shown under the name).

    Returns
    -------
    str
        A ``digraph``.

    Examples
    --------
    >>> dot = dag_dot("A -> Y, U -> Y", unob=["U"], roles={"A": "attribute"})
    >>> '"U" [style=dashed' in dot, '"A" -> "Y"' in dot
    (True, True)
    """
    roles = dict(roles or {})
    edges, nodes = [], []
    for part in (dag_str or "").split(","):
        m = _EDGE.match(part)
        if m:
            edges.append(m.groups())
            nodes.extend(n for n in m.groups() if n not in nodes)
    for n in [*unob, *cond_nodes, *roles]:
        if n and n not in nodes and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n):
            nodes.append(n)
    lines = ["digraph {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
    for n in nodes:
        label = n if n not in roles else f"{n}\\n({roles[n]})"
        attrs = [f'label="{label}"']
        if n in unob:
            attrs.insert(0, "style=dashed")
            attrs.append('color="grey40"')
        if n in cond_nodes:
            attrs.append("shape=box, peripheries=2")
        lines.append(f"  {_dot_id(n)} [{', '.join(attrs)}];")
    for a, b in edges:
        style = " [style=dashed]" if a in unob else ""
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)}{style};")
    lines.append("}")
    return "\n".join(lines)

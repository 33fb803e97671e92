"""Combine several biases into one causal model.

``bias=["proxy_label", "selection"]`` builds one DAG and one program in which *both* biases may
be present at once:

* **Nodes are identified by name**: ``selection``'s ``Y -> S`` attaches selection to the
  observed proxy label ``Y`` of ``proxy_label``.
* **Roles.** When the biases name different nodes for a role, one refines the other only when a
  bias records the other's node as the measured proxy of its own unmeasured one (``proxy_label``'s
  ``Z`` refines ``Y``) or is its counterfactual (``ecp``'s ``Y(T=1)`` refines ``Y``). Any other
  disagreement is an error unless the user says which (``outcome="Y(T=1)"``).
* **Latent confounders are kept apart** (``U`` of ``selection`` becomes ``U_selection``).
* **Measured nodes**: a node is measured when some bias measures it (its ``observed_nodes``, or
  all its non-latent, non-conditioning nodes).
* **Each bias keeps its own sensitivity parameter** (``D`` of ``selection`` becomes ``D_selection``).

The combined model contains every model of each single bias (the other biases' parameters at 0),
so its bounds are never tighter than either single bias's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fairprobe.core.config import BiasConfig
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError, FairprobeError

__all__ = ["combine_biases", "rename_parameters"]

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\(|\)|[^A-Za-z_()]+")


def rename_parameters(text: str, mapping: dict[str, str]) -> str:
    """Rename parameter symbols in a constraint, leaving node names inside ``P(...)`` alone.

    Parameters
    ----------
    text : str
        A constraint in the constraint grammar, e.g. ``"P(S = 1) >= 1 - D"``.
    mapping : dict of str to str
        Old parameter name -> new parameter name.

    Returns
    -------
    str

    Examples
    --------
    >>> rename_parameters("P(D = 1) >= 1 - D", {"D": "D_sel"})
    'P(D = 1) >= 1 - D_sel'
    """
    out: list[str] = []
    depth = 0  # depth inside P( ... )
    tokens = _TOKEN.findall(text)
    for i, tok in enumerate(tokens):
        if tok == "(":
            if depth or (i and tokens[i - 1] == "P"):
                depth += 1
        elif tok == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and tok in mapping and not (i + 1 < len(tokens) and tokens[i + 1] == "("):
            tok = mapping[tok]
        out.append(tok)
    return "".join(out)


def _edges(config: BiasConfig, latent_names: dict[str, str]) -> list[tuple[str, str]]:
    edges = []
    for part in config.dag_str.split(","):
        if "->" not in part:
            continue
        a, b = (x.strip() for x in part.split("->"))
        edges.append((latent_names.get(a, a), latent_names.get(b, b)))
    return edges


def _measured(config: BiasConfig) -> list[str]:
    return config.observed_nodes or [n for n in config.dag.nodes if n not in config.unob and n not in config.cond_nodes]


def _resolve_role(role: str, configs: Sequence[BiasConfig], labels: Sequence[str], chosen: str | None = None) -> str:
    values = [getattr(c, role) for c in configs]
    distinct = list(dict.fromkeys(values))
    short = role.replace("_node", "")
    detail = ", ".join(f"{lab}: {getattr(c, role)}" for lab, c in zip(labels, configs, strict=True))
    if chosen is not None:
        if chosen not in distinct:
            raise ConfigError(f"{short}={chosen!r} is not the {short} of any of the combined biases ({detail}); "
                              f"choose one of {distinct}.")
        return chosen
    if len(distinct) == 1:
        return distinct[0]

    def base(v: str) -> str:
        return BiasConfig.parse_outcome(v)[0]

    # the two cases of the module docstring; a counterfactual target is never replaced by another node
    def refines(v: str, w: str) -> bool:
        if v != base(v):
            return w == base(v)
        if w != base(w) or base(w) == v:
            return False
        return any(getattr(c, role) == v and w in _measured(c) and v not in _measured(c) for c in configs)

    winners = [v for v in distinct if all(v == w or refines(v, w) for w in distinct)]
    if len(winners) != 1:
        owners = {v: [lab for lab, c in zip(labels, configs, strict=True) if getattr(c, role) == v] for v in distinct}
        which = " or ".join(f"{v!r} (of {', '.join(owners[v])})" for v in distinct)
        example = dumps({"combine": list(labels), short: distinct[0]})
        raise ConfigError(f"The biases disagree on the {short} ({detail}) and none is a proxy or the counterfactual "
                          "of the others, so combining them would change which node the metric is about. Say which: "
                          f"{short}= {which}, e.g. the bias {example} (or combine_biases(..., "
                          f"{short}={distinct[0]!r})); or rename the nodes so the same quantity has the same name in "
                          "every bias.")
    return winners[0]


def combine_biases(configs: Sequence[BiasConfig], names: Sequence[str] | None = None, *,
                   attribute: str | None = None, outcome: str | None = None,
                   prediction: str | None = None) -> BiasConfig:
    """One :class:`BiasConfig` containing every bias, with one sensitivity parameter per bias.

    Parameters
    ----------
    configs : sequence of BiasConfig
        The biases to combine (e.g. from :func:`fairprobe.core.bound.resolve_bias`).
    names : sequence of str, optional
        Labels used in parameter names (default: each config's ``name``).
    attribute, outcome, prediction : str, optional
        The role node of the combination when the biases name different ones that do not refine
        each other (e.g. ``outcome="Y(T=1)"`` for ``proxy_label`` with ``ecp``).

    Returns
    -------
    BiasConfig
        Parameters ``D_<name>`` (or ``<param>_<name>`` for other parameter names).

    Examples
    --------
    >>> from fairprobe.core.bound import resolve_bias
    >>> cfg = combine_biases([resolve_bias("proxy_label"), resolve_bias("selection")])
    >>> cfg.outcome_node, cfg.parameters, cfg.constraints[1]
    ('Z', ['D_proxy_label', 'D_selection'], 'P(S = 1) >= 1 - D_selection')
    """
    labels = list(names) if names is not None else [c.name or f"bias{i}" for i, c in enumerate(configs)]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"The same bias appears twice in the combination {labels}; list each bias once.")
    chosen = {"attribute_node": attribute, "outcome_node": outcome, "prediction_node": prediction}
    roles = {r: _resolve_role(r, configs, labels, chosen[r]) for r in chosen}
    edges: list[tuple[str, str]] = []
    unob: list[str] = []
    cond: list[str] = []
    constraints: list[str] = []
    parameters: list[str] = []
    probability_parameters: list[str] = []
    cards: dict[str, int] = {}
    follows: dict[str, str] = {}
    measured: list[str] = []
    for label, cfg in zip(labels, configs, strict=True):
        _extend_new(measured, _measured(cfg))
        latent = {u: f"{u}_{label}" for u in cfg.unob}
        _extend_new(edges, _edges(cfg, latent))
        unob += list(latent.values())
        _extend_new(cond, cfg.cond_nodes)
        mapping = {p: f"{p}_{label}" for p in cfg.parameters}
        constraints += [rename_parameters(c, mapping) for c in cfg.constraints]
        parameters += list(mapping.values())
        bounded = cfg.parameters if cfg.probability_parameters is None else cfg.probability_parameters
        probability_parameters += [mapping[p] for p in bounded]
        _merge_cardinalities(cfg, cards, follows)
    data = {"dag_str": ", ".join(f"{a} -> {b}" for a, b in edges), "unob": unob, "cond_nodes": cond,
            **roles, "constraints": constraints, "name": "+".join(labels),
            "description": "Combination of the biases " + ", ".join(labels) + ", each with its own parameter.",
            "parameters": parameters, "probability_parameters": probability_parameters}
    measured = [n for n in measured if n not in cond]
    optional = {"cardinalities": cards, "cardinality_of": follows, "observed_nodes": measured}
    data.update({key: value for key, value in optional.items() if value})
    try:
        return BiasConfig.from_dict(data)
    except FairprobeError as exc:
        raise ConfigError(f"The biases {labels} cannot be combined: {exc}") from None


def _extend_new(target: list, items: Sequence) -> None:
    """Append the items not already in ``target`` (as it was before the call)."""
    target += [x for x in items if x not in target]


def _merge_cardinalities(cfg: BiasConfig, cards: dict[str, int], follows: dict[str, str]) -> None:
    """Add a bias's declared cardinalities to ``cards`` and ``follows``; the biases must agree."""
    for node, k in cfg.cardinalities.items():
        if cards.get(node, k) != k:
            raise ConfigError(f"The biases give node {node!r} different cardinalities ({cards[node]} and {k}).")
        cards[node] = k
    for node, other in cfg.cardinality_of.items():
        if follows.get(node, other) != other:
            raise ConfigError(f"The biases make node {node!r} follow the cardinality of both {follows[node]!r} "
                              f"and {other!r}; declare its cardinality with 'cardinalities'.")
        follows[node] = other

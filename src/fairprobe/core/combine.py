"""Combine several biases into one causal model.

``bias=["proxy_label", "selection"]`` builds one DAG and one program in which *both* biases may
be present at once:

* **Nodes are identified by name.** The built-ins share the role names ``A`` (attribute), ``P``
  (prediction) and ``Y`` (observed outcome), so ``selection``'s ``Y -> S`` attaches selection to
  the observed proxy label of ``proxy_label``.
* **Roles.** When the biases name different nodes for a role, the more specific one wins: a
  bias that has the other's role node as an ordinary node explains it (``proxy_label`` has ``Y``
  as a proxy of its outcome ``Z``, so the combined target outcome is ``Z``). Two roles that do
  not explain each other (``Z`` in one bias, ``Y(T=1)`` in another, neither knowing the other's
  node) are a conflict, reported as an error.
* **Latent confounders are kept apart** (``U`` of ``selection`` becomes ``U_selection``); latent
  variables confounding several members end up in one c-component anyway, whose joint response
  law is unrestricted.
* **Measured nodes.** A node is measured (must be a table column) when some bias measures it: a
  bias's ``observed_nodes``, or all its non-latent, non-conditioning nodes when it has none. The
  others (``Z`` of ``proxy_label``) stay declared unmeasured.
* **Each bias keeps its own sensitivity parameter**: ``D`` of ``selection`` becomes
  ``D_selection`` in its constraints, so the parameters can be swept separately (2-D sweeps).

The combined model contains every model of each single bias (set the other biases' parameters
to 0, i.e. no such bias), so its bounds are never tighter than either single bias's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fairprobe.core.config import BiasConfig
from fairprobe.exceptions import ConfigError, FairprobeError

__all__ = ["combine_biases", "rename_parameters"]

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\(|\)|[^A-Za-z_()]+")


def rename_parameters(text: str, mapping: dict[str, str]) -> str:
    """Rename parameter symbols in a constraint, leaving node names inside ``P(...)`` alone."""
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


def _resolve_role(role: str, configs: Sequence[BiasConfig], labels: Sequence[str]) -> str:
    values = [getattr(c, role) for c in configs]
    distinct = list(dict.fromkeys(values))
    if len(distinct) == 1:
        return distinct[0]

    def base(v: str) -> str:
        return BiasConfig.parse_outcome(v)[0]

    # v explains w when the bias declaring v has w's node as one of its nodes, as a proxy of v
    # (Z explains Y in proxy_label) or as the factual version of a counterfactual v (Y(T=1)
    # explains Y in ecp).
    def explains(v: str, w: str) -> bool:
        owners = [c for c in configs if getattr(c, role) == v]
        refines = base(w) != base(v) or (v != base(v) and w == base(w))
        return any(base(w) in c.dag.nodes and refines for c in owners)

    winners = [v for v in distinct if all(v == w or explains(v, w) for w in distinct)]
    if len(winners) != 1:
        detail = ", ".join(f"{lab}: {getattr(c, role)}" for lab, c in zip(labels, configs, strict=True))
        raise ConfigError(
            f"The biases disagree on the {role.replace('_node', '')} ({detail}) and neither explains "
            "the other; rename the nodes so the same quantity has the same name in every bias, or "
            "combine biases whose roles agree."
        )
    return winners[0]


def combine_biases(configs: Sequence[BiasConfig], names: Sequence[str] | None = None) -> BiasConfig:
    """One :class:`BiasConfig` containing every bias, with one sensitivity parameter per bias.

    Parameters
    ----------
    configs : sequence of BiasConfig
    names : sequence of str, optional
        Labels used in parameter names (default: each config's ``name``).

    Returns
    -------
    BiasConfig
        Parameters ``D_<name>`` (or ``<param>_<name>`` for other parameter names).

    Examples
    --------
    >>> from fairprobe.core.bound import resolve_bias
    >>> cfg = combine_biases([resolve_bias("proxy_label"), resolve_bias("selection")])
    >>> cfg.outcome_node, cfg.parameters
    ('Z', ['D_proxy_label', 'D_selection'])
    >>> cfg.constraints[1]
    'P(S = 1) >= 1 - D_selection'
    """
    labels = list(names) if names is not None else [c.name or f"bias{i}" for i, c in enumerate(configs)]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"The same bias appears twice in the combination {labels}; list each bias once.")
    roles = {r: _resolve_role(r, configs, labels) for r in ("attribute_node", "outcome_node", "prediction_node")}
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
        own = cfg.observed_nodes or [n for n in cfg.dag.nodes if n not in cfg.unob and n not in cfg.cond_nodes]
        measured += [n for n in own if n not in measured]
        latent = {u: f"{u}_{label}" for u in cfg.unob}
        edges += [e for e in _edges(cfg, latent) if e not in edges]
        unob += list(latent.values())
        cond += [c for c in cfg.cond_nodes if c not in cond]
        mapping = {p: f"{p}_{label}" for p in cfg.parameters}
        constraints += [rename_parameters(c, mapping) for c in cfg.constraints]
        parameters += list(mapping.values())
        bounded = cfg.parameters if cfg.probability_parameters is None else cfg.probability_parameters
        probability_parameters += [mapping[p] for p in bounded]
        for node, k in cfg.cardinalities.items():
            if cards.get(node, k) != k:
                raise ConfigError(f"The biases give node {node!r} different cardinalities ({cards[node]} and {k}).")
            cards[node] = k
        for node, other in cfg.cardinality_of.items():
            if follows.get(node, other) != other:
                raise ConfigError(f"The biases make node {node!r} follow the cardinality of both {follows[node]!r} "
                                  f"and {other!r}; declare its cardinality with 'cardinalities'.")
            follows[node] = other
    data = {
        "dag_str": ", ".join(f"{a} -> {b}" for a, b in edges), "unob": unob, "cond_nodes": cond,
        **roles, "constraints": constraints, "name": "+".join(labels),
        "description": "Combination of the biases " + ", ".join(labels) + ", each with its own parameter.",
        "parameters": parameters, "probability_parameters": probability_parameters,
    }
    if cards:
        data["cardinalities"] = cards
    if follows:
        data["cardinality_of"] = follows
    measured = [n for n in measured if n not in cond]
    if measured:
        data["observed_nodes"] = measured
    try:
        return BiasConfig.from_dict(data)
    except FairprobeError as exc:
        raise ConfigError(f"The biases {labels} cannot be combined: {exc}") from None

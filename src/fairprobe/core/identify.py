"""Counterfactual probabilities that the data identify, rewritten as ordinary ones before compiling.

An intervention on a node ``X`` with no parents at all (observed or latent) is the same as
conditioning on it, ``P(E(X=x) | F(X=x)) = P(E | F & X = x)``, and a factual ``X = x'`` in the
conditioning event drops out (``P(Y(A=1) = 1 | A = 0) = P(Y = 1 | A = 1)``): one LP instead of
a program over counterfactual worlds. The rule applies only where the data pin ``P(X = x)`` (and
every factual ``X`` event it drops) to a positive value, so the rewritten ratio is defined exactly
when the original is.

Examples
--------
>>> from fairprobe.core.query import parse_expression
>>> dag = DAG.from_string("A->Y, A->P, U->P, U->Y", unob="U")
>>> q = identify_interventions(parse_expression("P(P(A=1) = 1)"), dag, {"A": {0: 0.4, 1: 0.6}})
>>> [str(a) for a in q.atoms]
['P(P = 1 | A = 1)']
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from fairprobe.core.dag import DAG
from fairprobe.core.query import Atom, ParsedExpression, ProbabilityAtom

__all__ = ["absorbable_nodes", "identify_interventions"]


def _positive(margins: Mapping[str, Mapping[int, float]], var: str, value: Any, negated: bool) -> bool:
    """Whether the data give ``var = value`` (``!=`` when ``negated``) a positive probability."""
    shares = margins.get(var, {})
    share = shares.get(value, 0.0) if isinstance(value, int) else 0.0
    return (sum(shares.values()) - share if negated else share) > 0


def _rewrite(pa: ProbabilityAtom, dag: DAG, margins: Mapping[str, Mapping[int, float]]) -> ProbabilityAtom | None:
    """``pa`` with its one intervention turned into conditioning, or None when the rule does not apply."""
    atoms = (*pa.event, *pa.given)
    worlds = {a.intervention for a in atoms if a.intervention}
    if len(worlds) != 1:
        return None
    (world,) = worlds
    setting = dict(world)
    if not (_settable(setting, dag, margins) and _single_world(pa, setting, margins)):
        return None
    event = tuple(Atom(a.var, a.value, negated=a.negated) for a in pa.event)
    given = tuple(Atom(a.var, a.value, negated=a.negated) for a in pa.given if a.intervention)
    given += tuple(Atom(x, v) for x, v in sorted(setting.items()))
    return ProbabilityAtom(event, given)


def _settable(setting: Mapping[str, Any], dag: DAG, margins: Mapping[str, Mapping[int, float]]) -> bool:
    """Whether every intervened node is a parentless measured node set to a value the data give mass."""
    if any(x not in dag.nodes or dag.parents(x) or x not in margins or not isinstance(v, int)
           for x, v in setting.items()):  # an unknown node is left to the compiler's message
        return False
    # conditioning on X = x is only the same where the data give it mass
    return all(_positive(margins, x, v, False) for x, v in setting.items())


def _single_world(pa: ProbabilityAtom, setting: Mapping[str, Any], margins: Mapping[str, Mapping[int, float]]
                  ) -> bool:
    """Whether ``pa`` reads one world of ``setting``, its factual atoms only given ``X = x'`` with mass."""
    atoms = (*pa.event, *pa.given)
    if not all(_positive(margins, a.var, a.value, a.negated) for a in pa.given if not a.intervention):
        return False  # a factual X = x' dropped from the conditioning must have mass too
    if any(not a.intervention and a.var not in setting for a in atoms):
        return False  # a factual atom of another node: a cross-world event, not identified by this rule
    if any(not a.intervention for a in pa.event):
        return False  # P(E(x) & X = x') is a product, not one probability
    return not any(a.var in setting for a in atoms if a.intervention)  # X(X=x) = v: left to the compiler


def identify_interventions(parsed: ParsedExpression, dag: DAG, margins: Mapping[str, Mapping[int, float]],
                           notes: list[str] | None = None) -> ParsedExpression:
    """``parsed`` with each probability of an intervention on a parentless measured node rewritten.

    Parameters
    ----------
    parsed : ParsedExpression
    dag : DAG
        The bias's DAG (latent nodes included).
    margins : mapping of str to mapping of int to float
        The data's marginal law of each measured node (a table without a selection event), by code.
    notes : list of str, optional
        Receives one line per rewritten probability.

    Returns
    -------
    ParsedExpression
        The same expression over the rewritten probabilities (``parsed`` itself when none applies).

    Examples
    --------
    >>> from fairprobe.core.query import parse_expression
    >>> dag = DAG.from_string("A->Y, U->A, U->Y", unob="U")  # A is confounded: not identified this way
    >>> q = parse_expression("P(Y(A=1) = 1)")
    >>> identify_interventions(q, dag, {"A": {0: 0.5, 1: 0.5}, "Y": {0: 0.5, 1: 0.5}}) is q
    True
    """
    rewritten = [_rewrite(pa, dag, margins) for pa in parsed.atoms]
    if not any(rewritten):
        return parsed
    atoms = []
    for old, new in zip(parsed.atoms, rewritten, strict=True):
        if new is not None and notes is not None:
            notes.append(f"{old} identified as {new} (the intervened node has no parents: setting it is "
                         "conditioning on it)")
        atoms.append(old if new is None else new)
    return ParsedExpression(parsed.expr, atoms, parsed.source)


def absorbable_nodes(config: Any, measured: Collection[str], read: Collection[str]) -> list[str]:
    """Unmeasured nodes that are only noise of one other node, which the model may treat as latent.

    A node qualifies when it has no column, no declared cardinality or role, is named by no
    constraint or query (``read``), has exactly one child, and all its parents qualify too. It then
    reaches the model only as noise of its child, which that child's response functions already
    allow: declaring it latent keeps the bounds sharp and removes its response types.

    Parameters
    ----------
    config : BiasConfig
    measured : collection of str
        Columns of the table.
    read : collection of str
        Nodes named by the bias's constraints or the metric's queries (interventions included).

    Returns
    -------
    list of str
        In topological order.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="X1->X2, X2->Y, W->Y, W->P, A->Y, A->P", constraints=[])
    >>> absorbable_nodes(cfg, measured={"A", "Y", "P"}, read={"A", "Y", "P"})  # W has two children
    ['X1', 'X2']
    """
    dag = config.dag
    outcome, intervened = config.parse_outcome(config.outcome_node)  # "Y(T=1)": Y and T
    roles = {config.attribute_node, outcome, *intervened, config.prediction_node, *config.cond_nodes,
             *config.cardinalities, *config.cardinality_of, *config.cardinality_of.values()}
    latent = set(config.unob)
    out: list[str] = []
    chosen: set[str] = set()
    for node in dag.order:
        if node in latent or node in measured or node in read or node in roles:
            continue
        if len(dag.children(node)) != 1 or not all(p in chosen for p in dag.parents(node)):
            continue
        chosen.add(node)
        out.append(node)
    return out

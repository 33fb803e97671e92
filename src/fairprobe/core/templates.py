"""Constraint templates that follow the data's cardinalities.

Two shorthands of the constraint grammar expand when the cardinalities are known:

* ``forall A: <constraint with {A}>`` is one constraint per value ``a`` of ``A``, with ``{A}``
  replaced by ``a``;
* ``P(Z = Y)`` and ``P(Z != Y)``, with a *variable* on the right, are the probabilities that two
  variables of the same cardinality agree (``sum_c P(Z = c & Y = c)``) or disagree; either side
  may be counterfactual.

Examples
--------
>>> expand_constraint("P(Z = Y) >= 1 - D", {"Z": 3, "Y": 3}.get)
['(P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1) + P(Z = 2 & Y = 2)) >= 1 - D']
"""

from __future__ import annotations

import re
from collections.abc import Callable

from fairprobe.exceptions import ConfigError

__all__ = ["expand_constraint"]

_TERM = r"[A-Za-z_]\w*(?:\([^()]*\))?"
_COMPARE = re.compile(rf"P\(\s*({_TERM})\s*(!=|=)\s*({_TERM})\s*\)")
_FORALL = re.compile(r"^\s*forall\s+([A-Za-z_]\w*)\s*:\s*(.+)$", re.S)


def _variable(term: str) -> str:
    return term.split("(", 1)[0].strip()


def expand_constraint(text: str, cardinality: Callable[[str], int | None]) -> list[str]:
    """The constraints ``text`` stands for, given each node's number of values.

    Parameters
    ----------
    text : str
        A constraint, possibly using ``forall`` or a variable comparison ``P(Z = Y)``.
    cardinality : callable
        Node name -> number of values (``None`` for an unknown node).

    Returns
    -------
    list of str
        The expanded constraints, in the order of the ``forall`` values.

    Raises
    ------
    ConfigError
        ``forall`` over an unknown node, or a comparison of variables of different cardinalities.

    Examples
    --------
    >>> expand_constraint("P(Y(T=1) != Y(T=0)) <= D", {"Y": 2, "T": 2}.get)
    ['(P(Y(T=1) = 0 & Y(T=0) = 1) + P(Y(T=1) = 1 & Y(T=0) = 0)) <= D']
    >>> expand_constraint("forall A: P(P = 1 | A = {A}) >= D", {"A": 3}.get)
    ['P(P = 1 | A = 0) >= D', 'P(P = 1 | A = 1) >= D', 'P(P = 1 | A = 2) >= D']
    """
    match = _FORALL.match(text)
    if match:
        node, body = match.groups()
        k = cardinality(node)
        if k is None:
            raise ConfigError(f"Constraint {text!r} ranges over {node!r}, which is not a node of the DAG; write "
                              "'forall A: ...{A}...' with a node of the bias.")
        if "{" + node + "}" not in body:
            raise ConfigError(f"Constraint {text!r} ranges over {node} but never uses {{{node}}}; put {{{node}}} "
                              f"where the value goes, e.g. 'forall {node}: P(S = 1 | {node} = {{{node}}}) >= 1 - D'.")
        return [out for v in range(k) for out in expand_constraint(body.replace("{" + node + "}", str(v)),
                                                                     cardinality)]
    return [_COMPARE.sub(lambda m: _comparison(m, text, cardinality), text)]


def _comparison(match: re.Match[str], text: str, cardinality: Callable[[str], int | None]) -> str:
    left, op, right = match.group(1).strip(), match.group(2), match.group(3).strip()
    k_left, k_right = cardinality(_variable(left)), cardinality(_variable(right))
    if k_left is None or k_right is None:
        return match.group(0)  # not a comparison of two nodes: the parser reports it
    if k_left != k_right:
        raise ConfigError(f"Constraint {text!r} compares {left} ({k_left} values) with {right} ({k_right} values); "
                          "compared variables need the same number of values (declare it with 'cardinalities' or "
                          "'cardinality_of').")
    pairs = [(a, b) for a in range(k_left) for b in range(k_left) if (a == b) == (op == "=")]
    return "(" + " + ".join(f"P({left} = {a} & {right} = {b})" for a, b in pairs) + ")"

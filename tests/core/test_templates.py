"""Constraint templates: ``forall`` and variable comparisons expand with the cardinalities."""

from __future__ import annotations

import pytest

import fairprobe as fp
from fairprobe.core.templates import expand_constraint


def cards(**k: int):
    return lambda node: k.get(node)


def test_forall_and_comparisons_expand() -> None:
    out = expand_constraint("forall A: P(S = 1 | A = {A}) >= 1 - D", cards(A=3, S=2))
    assert out == [f"P(S = 1 | A = {a}) >= 1 - D" for a in range(3)]
    (agree,) = expand_constraint("P(Z = Y) >= 1 - D", cards(Z=2, Y=2))
    assert agree == "(P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1)) >= 1 - D"
    (differ,) = expand_constraint("P(Y(T=1) != Y(T=0)) <= D", cards(Y=3, T=2))
    assert differ.count("P(") == 6 and "P(Y(T=1) = 2 & Y(T=0) = 0)" in differ
    assert expand_constraint("P(Z = 0 & Y = 1) <= D", cards(Z=2, Y=2)) == ["P(Z = 0 & Y = 1) <= D"]


@pytest.mark.parametrize(("text", "message"), [
    ("forall Q: P(S = 1 | A = {Q}) >= 1 - D", r"ranges over 'Q', which is not a node"),
    ("forall A: P(S = 1) >= 1 - D", r"never uses \{A\}"),
    ("P(A = Y) <= D", r"compares A \(3 values\) with Y \(2 values\)"),
])
def test_bad_templates_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(fp.ConfigError, match=message):
        expand_constraint(text, cards(A=3, Y=2, S=2))


def test_binary_built_ins_expand_to_their_published_constraints() -> None:
    """On binary data the templates are the paper's constraints (same bounds as before)."""
    from fairprobe.core.bound import resolve_bias

    cfg = resolve_bias("proxy_label")
    assert [str(c.expr) for c in cfg.parsed_constraints] == [
        str(c.expr) for c in fp.BiasConfig.from_dict(
            {**cfg.to_dict(), "constraints": ["P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1) >= 1 - D"]}).parsed_constraints]

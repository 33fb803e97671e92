"""The constraint/query grammar."""

from __future__ import annotations

import pytest
import sympy

from fairprobe import ConfigError
from fairprobe.core.query import Atom, ProbabilityAtom, parse_constraint, parse_expression


def test_published_constraints_parse() -> None:
    c = parse_constraint("P(S = 1) >= 1 - D")
    assert c.sense == ">=" and c.atoms == [ProbabilityAtom((Atom("S", 1),))]
    assert sympy.simplify(c.expr - (sympy.Symbol("_p0") - 1 + sympy.Symbol("D"))) == 0

    c = parse_constraint("P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1) >= 1 - D")
    assert [str(a) for a in c.atoms] == ["P(Z = 0 & Y = 0)", "P(Z = 1 & Y = 1)"]

    c = parse_constraint("P(Y(T=1)=1&Y(T=0)=0) + P(Y(T=1)=0&Y(T=0)=1) <= D")
    assert c.atoms[0].event == (Atom("Y", 1, (("T", 1),)), Atom("Y", 0, (("T", 0),)))
    assert c.atoms[0].variables == {"Y", "T"}
    assert {str(s) for s in c.parameters} == {"D"}


def test_query_with_conditionals_and_arithmetic_precedence() -> None:
    q = parse_expression("P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A = 1)")
    assert q.atoms[0].given == (Atom("Z", 0), Atom("A", 0))
    assert q.variables == {"P", "Z", "A"}
    # * binds tighter than - (the original fragile_fair grammar evaluated left to right)
    c = parse_constraint("P(Y = 1) - 0.1 * P(S = 1) == 0")
    p0, p1 = sympy.symbols("_p0 _p1")
    assert sympy.expand(c.expr - (p0 - sympy.Rational(1, 10) * p1)) == 0


def test_repeated_atoms_share_a_symbol_and_named_parameters() -> None:
    c = parse_constraint("P(S = 1) + P(S = 1) * D_selection <= 2 * D_proxy")
    assert len(c.atoms) == 1
    assert {str(s) for s in c.parameters} == {"D_selection", "D_proxy"}


def test_multi_character_names_and_categories() -> None:
    q = parse_expression("P(pred = 1 | race = black & recid = 0)")
    assert q.atoms[0].given == (Atom("race", "black"), Atom("recid", 0))


@pytest.mark.parametrize(
    ("text", "where", "why"),
    [
        ("P(S = 1) >= ", "column 12", "expected a number"),
        ("P(S = 1 >= 1 - D", "column 9", r"expected \)"),
        ("P(S 1) >= 0", "column 5", "expected ="),
        ("P(S = 1) => 0", "column 11", "unexpected character '>'"),
        ("P(S = 1) $ 0", "column 10", "unexpected character"),
        ("P(S = 1 & S = 0) <= D", "column 15", "two values"),
        ("P(S = 0.5) <= D", "column 7", "non-negative integer"),
    ],
)
def test_parse_errors_show_where(text: str, where: str, why: str) -> None:
    with pytest.raises(ConfigError, match=rf"{where}: .*{why}.* \(at ") as info:
        parse_constraint(text)
    assert "\n" not in str(info.value)  # one line, as the command line prints it


def test_query_must_not_compare() -> None:
    with pytest.raises(ConfigError, match="without a comparison"):
        parse_expression("P(S = 1) <= 1")

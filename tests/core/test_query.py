"""The constraint/query grammar."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest
import sympy

import fairprobe as fp
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
        ("P(S != 1 & S = 1) <= D", "column 16", "asks S to be 1 and not 1"),
        ("P(S != ) <= D", "column 8", "expected a value after '!='"),
        ("P(S ! 1) <= D", "column 5", "unexpected character '!'"),
        ("P(S == 1) <= D", "column 5", "expected = or !=, found '=='"),
        ("P(S = 1) != D", "column 10", "expected one of '<=', '>=', '=='"),
    ],
)
def test_parse_errors_show_where(text: str, where: str, why: str) -> None:
    with pytest.raises(ConfigError, match=rf"{where}: .*{why}.* \(at ") as info:
        parse_constraint(text)
    assert "\n" not in str(info.value)  # one line, as the command line prints it


def test_query_must_not_compare() -> None:
    with pytest.raises(ConfigError, match="without a comparison"):
        parse_expression("P(S = 1) <= 1")


# --- "A != a": a variable differs from a constant ------------------------------------------------


def test_not_equal_atoms_parse_and_print_back() -> None:
    q = parse_expression("P(P = 1 | Y = 0 & A != 2) - P(Y(T=1) != 0 & A!=1)")
    rest, cf = q.atoms
    assert rest.given == (Atom("Y", 0), Atom("A", 2, negated=True))
    assert cf.event == (Atom("Y", 0, (("T", 1),), negated=True), Atom("A", 1, negated=True))
    assert [str(a) for a in q.atoms] == ["P(P = 1 | Y = 0 & A != 2)", "P(Y(T=1) != 0 & A != 1)"]
    assert str(Atom("A", 2, negated=True)) == "A != 2" and Atom("A", 2).op == "="
    assert repr(Atom("A", 2, negated=True)) == "Atom(var='A', value=2, negated=True)"
    assert repr(cf.event[0]) == "Atom(var='Y', value=0, intervention=(('T', 1),), negated=True)"
    for atom in q.atoms:  # printing round-trips
        assert parse_expression(str(atom)).atoms == [atom]
    assert Atom("A", 2, negated=True) != Atom("A", 2)
    assert q.variables == {"P", "Y", "A", "T"}


def test_not_equal_and_equal_atoms_on_one_variable() -> None:
    (atom,) = parse_expression("P(A != 1 & A != 2 & B = 0 & A = 0)").atoms
    assert [str(a) for a in atom.event] == ["A != 1", "A != 2", "B = 0", "A = 0"]
    c = parse_constraint("P(Z != 0 | A != 1) <= D")  # also in bias constraints
    assert str(c.atoms[0]) == "P(Z != 0 | A != 1)"


THREE = pd.DataFrame({"A": [0, 0, 1, 1, 2, 2, 2, 0], "Y": [0, 1, 0, 1, 0, 0, 1, 1], "P": [1, 0, 0, 1, 1, 0, 1, 1]})


def three_groups(bias: str = "proxy_label", D: float = 0.1) -> Callable[[str], tuple[float, float]]:
    table = fp.ObservedTable.from_frame(THREE)

    def bounds(query: str) -> tuple[float, float]:
        res = fp.bound(bias, query, table, D=D)
        return res.lower, res.upper

    return bounds


@pytest.mark.parametrize(("query", "same"), [
    ("P(P = 1 & A != 0)", "P(P = 1 & A = 1) + P(P = 1 & A = 2)"),
    ("P(Z = 0 & A != 1 & A != 2)", "P(Z = 0 & A = 0)"),
    ("P(Z = 0 & A = 1 & A != 2)", "P(Z = 0 & A = 1)"),
    ("P(P = 1 & Z != 1)", "P(P = 1 & Z = 0)"),
    ("P(P = 1 | Y = 0 & A != 2)", "P(P = 1 & Y = 0 & A != 2) / 0.25"),  # pinned by the data: 2 of 8 rows
])
def test_not_equal_is_the_union_of_the_other_values(query: str, same: str) -> None:
    bounds = three_groups()
    assert bounds(query) == pytest.approx(bounds(same), abs=1e-7)


def test_rest_rate_equals_its_pooled_definition_at_D0() -> None:
    rest = THREE[(THREE.A != 0) & (THREE.Y == 0)]
    lower, upper = three_groups(D=0.0)("P(P = 1 | Z = 0 & A != 0)")
    assert lower == pytest.approx(rest.P.mean(), abs=1e-7) and upper == pytest.approx(rest.P.mean(), abs=1e-7)


def test_not_equal_to_a_value_outside_the_cardinality_names_the_values() -> None:
    bounds = three_groups()
    with pytest.raises(ConfigError, match=r"A != 3 compares A with 3, which is not one of its values: A takes the "
                                          r"codes 0..2\. Write A != <code>"):
        bounds("P(P = 1 | Y = 0 & A != 3)")
    labelled = fp.ObservedTable.from_frame(THREE.assign(A=THREE.A.map({0: "x", 1: "y", 2: "z"})))
    # against a labelled table a name is a label (issue 23 S1): A != x is everyone outside group x
    by_label = fp.bound("proxy_label", "P(P = 1 | Y = 0 & A != x)", labelled, D=0.1)
    by_code = fp.bound("proxy_label", "P(P = 1 | Y = 0 & A != 0)", labelled, D=0.1)
    assert (by_label.lower, by_label.upper) == pytest.approx((by_code.lower, by_code.upper), abs=1e-9)
    with pytest.raises(ConfigError, match=r"A != w is not a value of A; its labels are \['x', 'y', 'z'\]"):
        fp.bound("proxy_label", "P(P = 1 | Y = 0 & A != w)", labelled, D=0.1)


def test_counterfactual_not_equal() -> None:
    import dataclasses

    from fairprobe.core.bound import resolve_bias
    from fairprobe.testing import RandomSCM

    # the table records the policy T, which the built-in declares unmeasured: declare it measured
    cfg = dataclasses.replace(resolve_bias("ecp"), observed_nodes=["A", "T", "Y", "P"])
    table = RandomSCM(cfg, seed=3, concentration=1.0).table(["A", "T", "Y", "P"])
    differs = fp.bound(cfg, "P(P = 1 | Y(T=1) != 1 & A = 0)", table, D=0.1)
    same = fp.bound(cfg, "P(P = 1 | Y(T=1) = 0 & A = 0)", table, D=0.1)
    assert (differs.lower, differs.upper) == pytest.approx((same.lower, same.upper), abs=1e-7)
    assert differs.width > 0.1


def test_variable_comparison_templates_still_expand() -> None:
    from fairprobe.core.bound import resolve_bias

    config = resolve_bias("proxy_attribute")  # P(A != B) <= D: a variable on the right
    assert config.constraints == ["P(A != B) <= D"]
    assert [str(a) for a in config.parsed_constraints[0].atoms] == ["P(A = 0 & B = 1)", "P(A = 1 & B = 0)"]


def test_a_query_that_is_not_text_is_refused_with_the_form():
    with pytest.raises(ConfigError, match=r"Expected an expression string .*got list"):
        parse_expression(["P(Y = 1)"])

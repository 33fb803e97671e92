"""PolynomialProgram: construction, validation, statistics and the text form."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairprobe import PolynomialProgram
from fairprobe.exceptions import ProgramError

EXAMPLE = """maximize
  x*y - 0.3*x + 0.1*z*y
subject to
  simplex: x + y + z == 1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1
"""


def test_parse_issue_example() -> None:
    prog = PolynomialProgram.from_text(EXAMPLE)
    x, y, z = (prog.index(n) for n in "xyz")
    assert prog.sense == "max"
    assert prog.objective == {tuple(sorted((x, y))): 1.0, (x,): -0.3, tuple(sorted((y, z))): 0.1}
    assert [c.name for c in prog.constraints] == ["simplex"]
    assert prog.constraints[0].poly == {(x,): 1.0, (y,): 1.0, (z,): 1.0}
    assert prog.constraints[0].rhs == 1.0
    stats = prog.stats()
    assert (stats.n_variables, stats.n_constraints, stats.n_terms, stats.max_degree) == (3, 1, 6, 2)
    assert prog.objective_value({"x": 0.35, "y": 0.65, "z": 0.0}) == pytest.approx(0.1225)


def test_text_round_trip_is_exact() -> None:
    prog = PolynomialProgram.from_text(EXAMPLE)
    text = prog.to_text()
    again = PolynomialProgram.from_text(text)
    assert again.to_text() == text
    assert again.objective == prog.objective
    assert again.constraints == prog.constraints
    assert again.variables == prog.variables


def test_powers_scientific_notation_and_fractions() -> None:
    text = """minimize
  (1.5e-3*x^3 - y + 2) / (x + y + 1)
subject to
  x^2*y >= 1e-2
  c2: x - 2 <= -y
bounds
  -inf <= x <= 3
  0 <= y <= inf
"""
    prog = PolynomialProgram.from_text(text)
    x, y = prog.index("x"), prog.index("y")
    assert prog.objective == {(x, x, x): 1.5e-3, (y,): -1.0, (): 2.0}
    assert prog.objective_denominator == {(x,): 1.0, (y,): 1.0, (): 1.0}
    assert prog.constraints[0].poly == {(x, x, y): 1.0}
    assert prog.constraints[0].rhs == pytest.approx(1e-2)
    # "x - 2 <= -y" is normalised to "x + y <= 2"
    assert prog.constraints[1].poly == {(x,): 1.0, (y,): 1.0}
    assert prog.constraints[1].rhs == 2.0
    assert prog.variables[0].lb == -math.inf and prog.variables[1].ub == math.inf
    assert prog.max_degree == 3 and prog.is_fractional
    assert PolynomialProgram.from_text(prog.to_text()).to_text() == prog.to_text()


names = st.sampled_from(["x", "y", "z", "w_1", "p[0]"])
coef = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda c: c != 0)
monomial = st.lists(names, min_size=0, max_size=4).map(tuple)
polys = st.dictionaries(monomial, coef, max_size=6)


@settings(max_examples=150, deadline=None)
@given(obj=polys, cons=st.lists(st.tuples(polys, st.sampled_from(["<=", ">=", "=="]), coef), max_size=4),
       sense=st.sampled_from(["min", "max"]))
def test_round_trip_property(obj, cons, sense) -> None:
    prog = PolynomialProgram(sense=sense)
    for n in ["x", "y", "z", "w_1", "p[0]"]:
        prog.add_variable(n, -2.5, 7.25)
    prog.set_objective(obj)
    for poly, op, rhs in cons:
        prog.add_constraint(poly, op, rhs)
    again = PolynomialProgram.from_text(prog.to_text())
    assert again.sense == prog.sense
    assert again.variables == prog.variables
    assert again.objective == pytest.approx(prog.objective, rel=1e-15)
    for a, b in zip(again.constraints, prog.constraints, strict=True):
        assert a.sense == b.sense and a.rhs == b.rhs
        assert a.poly == pytest.approx(b.poly, rel=1e-15)


def test_undeclared_variable_in_text_is_named() -> None:
    text = "minimize\n  x + w\nbounds\n  0 <= x <= 1\n"
    with pytest.raises(ProgramError, match=r"Line 2: variable 'w' .* not declared.*bounds"):
        PolynomialProgram.from_text(text)


def test_undeclared_variable_in_api() -> None:
    prog = PolynomialProgram()
    prog.add_variable("x", 0, 1)
    with pytest.raises(ProgramError, match=r"Unknown variable 'y' in constraint 'c'"):
        prog.add_constraint({("x", "y"): 1.0}, "<=", 1, name="c")


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_coefficient(bad: float) -> None:
    prog = PolynomialProgram()
    prog.add_variable("x", 0, 1)
    with pytest.raises(ProgramError, match="not finite"):
        prog.set_objective({("x",): bad})
    prog.set_objective({("x",): 1.0})
    prog.objective[(0,)] = bad  # a direct edit is caught by validate()
    with pytest.raises(ProgramError, match="not finite"):
        prog.validate()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("subject to\n x <= 1\n", "no 'minimize' or 'maximize' section"),
        ("minimize\n x\nbounds\n 2 <= x <= 1\n", "lower bound 2.0 above upper bound 1.0"),
        ("minimize\n x\nsubject to\n x < 1\nbounds\n 0 <= x <= 1\n", "exactly one of"),
        ("minimize\n x *\nbounds\n 0 <= x <= 1\n", "ends with an operator"),
        ("minimize\n x^0.5\nbounds\n 0 <= x <= 1\n", "positive integer"),
        ("minimize\n x\nbounds\n 0 <= x <= 1\n 0 <= x <= 2\n", "declared twice"),
        ("minimize\n x $ 2\nbounds\n 0 <= x <= 1\n", "cannot read"),
        ("minimize\n x\nbounds\n 0 <= x <= nan\n", "NaN"),
    ],
)
def test_parse_errors_are_clear(text: str, message: str) -> None:
    with pytest.raises(ProgramError, match=message):
        PolynomialProgram.from_text(text)


def test_evaluation_and_violation() -> None:
    prog = PolynomialProgram.from_text(EXAMPLE)
    assert prog.max_violation({"x": 0.2, "y": 0.3, "z": 0.5}) == 0.0
    assert prog.max_violation({"x": 0.2, "y": 0.3, "z": 0.6}) == pytest.approx(0.1)
    assert prog.max_violation({"x": 1.5, "y": 0.0, "z": -0.5}) == pytest.approx(0.5)


def test_with_sense_copies() -> None:
    prog = PolynomialProgram.from_text(EXAMPLE)
    other = prog.with_sense("min")
    assert other.sense == "min" and prog.sense == "max"
    other.constraints.clear()
    assert len(prog.constraints) == 1


def test_integer_variables_round_trip_and_are_solved_as_integers() -> None:
    import fairprobe as fp

    text = "maximize\n  2*x + y\nsubject to\n  x + y <= 3.7\nbounds\n  0 <= x <= 3 integer\n  0 <= y <= 2.5"
    prog = PolynomialProgram.from_text(text)
    assert prog.has_integers and prog.to_text() == text
    assert prog.max_violation({"x": 2.5, "y": 0.0}) == pytest.approx(0.5)
    res = fp.get_backend("scip").solve(prog)
    assert res.objective_bound == pytest.approx(6.7) and res.incumbent["x"] == pytest.approx(3.0)

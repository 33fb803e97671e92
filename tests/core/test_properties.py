"""Property tests (hypothesis) for the table constructors, the query/constraint parser, BiasConfig
and the shared option checks: valid input gives the exact value, invalid input a FairprobeError of
the documented class, and nothing else ever escapes (no TypeError, OverflowError, RecursionError,
sympy exception)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairprobe.core.config import BiasConfig
from fairprobe.core.query import MAX_DEGREE, ProbabilityAtom, parse_constraint, parse_expression
from fairprobe.core.table import ObservedTable
from fairprobe.core.validate import sensitivity_values, sweep_grid
from fairprobe.exceptions import ConfigError, DataError

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NODES = ["A", "Y", "P"]

# Anything a user might put in a cell of a hand-made frame.
JUNK = st.one_of(
    st.integers(-3, 5), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.text(max_size=3), st.just(1e308), st.sampled_from(["1", "0", "x", ""]),
)


# -- tables --------------------------------------------------------------------------------------
@st.composite
def count_frames(draw: st.DrawFn) -> pd.DataFrame:
    """A valid count frame: 1-3 integer-coded nodes, non-negative counts, at least one positive."""
    k = draw(st.integers(1, 3))
    cards = [draw(st.integers(1, 3)) for _ in range(k)]
    n_rows = draw(st.integers(1, 12))
    data = {NODES[i]: draw(st.lists(st.integers(0, cards[i] - 1), min_size=n_rows, max_size=n_rows))
            for i in range(k)}
    counts = draw(st.lists(st.one_of(st.integers(0, 10**6), st.floats(0, 1e6)), min_size=n_rows, max_size=n_rows))
    if sum(counts) <= 0:
        counts[0] = 1
    return pd.DataFrame({**data, "n": counts})


@FAST
@given(count_frames())
def test_valid_counts_give_count_shares(frame: pd.DataFrame) -> None:
    table = ObservedTable.from_counts(frame)
    nodes = [c for c in frame.columns if c != "n"]
    assert table.nodes == nodes
    assert table.cells.prob.sum() == pytest.approx(1.0, abs=1e-12)
    total = frame.n.astype(float).sum()
    expected = frame.groupby(nodes)["n"].sum().astype(float) / total
    for _, row in table.cells.iterrows():
        key = tuple(int(row[c]) for c in nodes)
        assert row.prob == pytest.approx(expected.loc[key if len(key) > 1 else key[0]], rel=1e-12, abs=1e-15)
    assert len(table.cells) == len(expected)  # one row per distinct cell


@FAST
@given(count_frames(), st.floats(1e300, 1e308))
def test_huge_counts_do_not_overflow(frame: pd.DataFrame, scale: float) -> None:
    """Counts whose total exceeds the float range still give count / total (n is then unknown)."""
    counts = frame.n.astype(float).to_numpy()
    big = frame.assign(n=counts / counts.max() * scale)
    table = ObservedTable.from_counts(big)
    small = ObservedTable.from_counts(frame)
    np.testing.assert_allclose(table.cells.prob.to_numpy(), small.cells.prob.to_numpy(), rtol=1e-9, atol=1e-15)
    assert table.n is None or math.isfinite(table.n)


@FAST
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 1), st.booleans()), min_size=1,
                max_size=40))
def test_from_frame_is_the_empirical_distribution(rows: list[tuple[str, int, bool]]) -> None:
    df = pd.DataFrame(rows, columns=["race", "recid", "pred"])
    table = ObservedTable.from_frame(df, A="race", Y="recid", P="pred")
    assert table.n == len(df)
    assert table.cells.prob.sum() == pytest.approx(1.0)
    assert table.categories["Y"] == [0, 1] and table.categories["P"] == [False, True]  # codes kept
    for _, cell in table.cells.iterrows():
        label = table.categories["A"][int(cell.A)]
        mask = (df.race == label) & (df.recid == int(cell.Y)) & (df.pred == bool(cell.P))
        assert cell.prob == pytest.approx(mask.mean(), abs=1e-12)


@FAST
@given(st.lists(st.tuples(JUNK, JUNK), min_size=0, max_size=6), st.booleans())
def test_any_count_frame_gives_a_table_or_data_error(rows: list[tuple], as_probabilities: bool) -> None:
    frame = pd.DataFrame(rows, columns=["A", "n"]) if rows else pd.DataFrame({"A": [], "n": []})
    try:
        table = (ObservedTable.from_probabilities(frame, prob="n") if as_probabilities
                 else ObservedTable.from_counts(frame))
    except DataError:
        return
    assert table.cells.prob.sum() == pytest.approx(1.0, abs=1e-6)
    assert (table.cells.prob >= 0).all() and pd.api.types.is_integer_dtype(table.cells.A)


@FAST
@given(st.lists(st.tuples(JUNK, JUNK), min_size=0, max_size=6))
def test_any_unit_frame_gives_a_table_or_data_error(rows: list[tuple]) -> None:
    frame = pd.DataFrame(rows, columns=["A", "Y"], dtype=object) if rows else pd.DataFrame({"A": [], "Y": []})
    try:
        table = ObservedTable.from_frame(frame)
    except DataError:
        return
    assert table.n == len(frame) and table.cells.prob.sum() == pytest.approx(1.0)
    for node in ("A", "Y"):  # every code decodes to a label seen in the column
        for code in table.cells[node]:
            assert 0 <= code < len(table.categories[node])


# -- parser --------------------------------------------------------------------------------------
GRAMMAR_CHARS = "P()|&=<>+-*/.,0123456789 AYSDZ_eT^$'\""


@FAST
@given(st.one_of(st.text(alphabet=GRAMMAR_CHARS, max_size=60), st.text(max_size=30)))
def test_random_text_parses_or_raises_config_error(text: str) -> None:
    for parse in (parse_expression, parse_constraint):
        try:
            parsed = parse(text)
        except ConfigError:
            continue
        assert not parsed.expr.has(sympy.zoo, sympy.nan)


ATOM_VARS = ["A", "Y", "P", "S"]


@st.composite
def atoms(draw: st.DrawFn) -> str:
    """A probability in the printer's canonical form, e.g. ``P(Y = 1 | A = 0)``."""
    names = draw(st.lists(st.sampled_from(ATOM_VARS), min_size=1, max_size=3, unique=True))
    split = draw(st.integers(1, len(names)))
    parts = [f"{v} = {draw(st.integers(0, 2))}" for v in names]
    event, cond = " & ".join(parts[:split]), " & ".join(parts[split:])
    return f"P({event} | {cond})" if cond else f"P({event})"


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0, parameters: bool = False) -> tuple[str, sympy.Expr, int]:
    """Random well-formed text, the expression it means (atoms as named symbols) and its degree."""
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        kind = draw(st.sampled_from(["atom", "int", "dec"] + (["param"] if parameters else [])))
        if kind == "atom":
            text = draw(atoms())
            return text, sympy.Symbol(text), 1
        if kind == "int":
            n = draw(st.integers(0, 1000))
            return str(n), sympy.Integer(n), 0
        if kind == "dec":
            n = draw(st.integers(0, 10**6))
            text = f"{n // 1000}.{n % 1000:03d}"
            return text, sympy.Rational(Fraction(text)), 0
        name = draw(st.sampled_from(["D", "D_sel"]))
        return name, sympy.Symbol(name), 0
    op = draw(st.sampled_from(["+", "-", "*", "/", "neg", "paren"]))
    lt, le, ld = draw(expressions(depth + 1, parameters))
    if op == "neg":
        return f"-({lt})", -le, ld
    if op == "paren":
        return f"({lt})", le, ld
    if op == "/":
        n = draw(st.integers(1, 50))
        return f"({lt}) / {n}", le / n, ld
    rt, re_, rd = draw(expressions(depth + 1, parameters))
    if op == "*":
        return f"({lt}) * ({rt})", le * re_, ld + rd
    return f"{lt} {op} ({rt})", (le + re_ if op == "+" else le - re_), max(ld, rd)


def _named(parsed: object) -> sympy.Expr:
    """The parsed expression with each probability symbol renamed to the atom's printed form."""
    subs = {s: sympy.Symbol(str(a)) for s, a in zip(parsed.symbols, parsed.atoms, strict=True)}
    return parsed.expr.xreplace(subs)


@FAST
@given(expressions())
def test_well_formed_queries_parse_to_what_they_mean(case: tuple[str, sympy.Expr, int]) -> None:
    text, expected, degree = case
    if degree > MAX_DEGREE:
        with pytest.raises(ConfigError, match=f"more than {MAX_DEGREE} probabilities"):
            parse_expression(text)
        return
    parsed = parse_expression(text)
    assert sympy.expand(_named(parsed) - expected) == 0
    for atom in parsed.atoms:  # the printer round-trips
        assert isinstance(atom, ProbabilityAtom)
        assert parse_expression(str(atom)).atoms == [atom]


@FAST
@given(expressions(parameters=True), st.sampled_from(["<=", ">=", "=="]), expressions(parameters=True))
def test_well_formed_constraints_parse_to_what_they_mean(lhs: tuple, sense: str, rhs: tuple) -> None:
    (lt, le, ld), (rt, re_, rd) = lhs, rhs
    text = f"{lt} {sense} {rt}"
    if max(ld, rd) > MAX_DEGREE:
        with pytest.raises(ConfigError):
            parse_constraint(text)
        return
    parsed = parse_constraint(text)
    assert parsed.sense == sense
    assert sympy.expand(_named(parsed) - (le - re_)) == 0
    assert {str(s) for s in parsed.parameters} <= {"D", "D_sel"}


@FAST
@given(expressions(parameters=True))
def test_queries_with_parameters_are_refused(case: tuple[str, sympy.Expr, int]) -> None:
    text, expected, degree = case
    names = {str(s) for s in expected.free_symbols} & {"D", "D_sel"}
    if not names or degree > MAX_DEGREE:
        return
    with pytest.raises(ConfigError, match="which are not probabilities"):
        parse_expression(text)


# -- BiasConfig and the option checks ------------------------------------------------------------
BASE = {"dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"], "cond_nodes": ["S"],
        "constraints": ["P(S = 1) >= 1 - D"]}
CONFIG_KEYS = ["dag_str", "unob", "cond_nodes", "attribute_node", "outcome_node", "prediction_node", "constraints",
               "name", "description", "cardinalities", "parameters", "probability_parameters", "observed_nodes"]
VALUES = st.one_of(JUNK, st.lists(JUNK, max_size=3), st.dictionaries(st.sampled_from(["A", "P", "Q", 1]), JUNK,
                                                                     max_size=2),
                   st.sampled_from(["A", "Y", "P(S = 1) >= 1 - D", "A -> Y", ["U"], ["P(S = 1) <= D"], {"A": 3}]))


@FAST
@given(st.dictionaries(st.sampled_from(CONFIG_KEYS), VALUES, max_size=3))
def test_any_config_dict_is_a_config_or_config_error(changes: dict) -> None:
    try:
        cfg = BiasConfig.from_dict({**BASE, **changes})
    except ConfigError:
        return
    assert BiasConfig.from_json(cfg.to_json()) == cfg  # what loads also round-trips


@FAST
@given(st.one_of(JUNK, st.lists(JUNK, max_size=3), st.dictionaries(st.one_of(st.text(max_size=2), JUNK), JUNK,
                                                                    max_size=2)))
def test_any_D_is_accepted_or_a_config_error(D: object) -> None:
    try:
        sensitivity_values(D)
    except ConfigError:
        pass
    try:
        grid = sweep_grid(D)
    except ConfigError:
        return
    values = grid if isinstance(grid, list) else [v for vs in grid.values() for v in vs]
    assert values and all(isinstance(v, float) and math.isfinite(v) for v in values)

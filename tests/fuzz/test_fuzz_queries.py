"""Fuzz: query strings, written every way a user might, on a fully observed model.

With no latent variable and no constraint, every factual query is identified, so its bound is one
number; the test builds each query from a structured description (which group every value means)
and computes that number with pandas on the raw rows. Values are written as labels, quoted labels,
explicit codes (``#1``) or bare numbers; a bare number that is one group's label and another's code
must be refused as ambiguous. Garbage spliced into the text must give a ConfigError.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fairprobe as fp
from fairprobe.exceptions import ConfigError, UndefinedMetricError
from tests.fuzz.oracle import confirmed, outcome

pytestmark = pytest.mark.fuzz

OBSERVED = fp.BiasConfig.from_dict({"dag_str": "A->Y, A->P, Y->P", "constraints": [], "attribute_node": "A",
                                    "outcome_node": "Y", "prediction_node": "P"})
GROUPS = {"ints": [1, 2, 3], "words": ["f", "m", "x"], "codes": [0, 1, 2]}
#: text that breaks a query wherever it is spliced in: characters of no token (inside a quoted label
#: they make a label the data lack), an unknown node, a value no group has
GARBAGE = ["@", "$", "?", "~", "P(Q = 1)", "P(A = 9)", "P(A)"]


def _frame(kind: str) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 300
    return pd.DataFrame({"A": rng.choice(GROUPS[kind], n), "Y": rng.integers(0, 2, n), "P": rng.integers(0, 2, n)})


FRAMES = {kind: _frame(kind) for kind in GROUPS}


def _written(kind: str, code: int, form: str) -> tuple[str, bool]:
    """How group ``code`` is written, and whether that writing is ambiguous."""
    labels = GROUPS[kind]
    label = labels[code]
    if form == "code":
        return f"#{code}", False
    if form == "quoted":
        return f"'{label}'", False
    if kind == "words":
        return (label, False) if form == "bare" else (str(code), False)  # no number is a word label
    if form == "bare":  # a bare number: the label it equals; ambiguous when also another group's code
        return str(label), label in range(len(labels)) and label != code
    return str(label), False


atoms = st.tuples(st.sampled_from(["Y", "P"]), st.integers(0, 1))
groups_ = st.tuples(st.integers(0, 2), st.sampled_from(["code", "quoted", "bare"]), st.booleans())
terms = st.tuples(st.sampled_from([1, -1, 2, 0.5]), atoms, st.lists(atoms, max_size=1), groups_)


@given(kind=st.sampled_from(sorted(GROUPS)), parts=st.lists(terms, min_size=1, max_size=3),
       garbage=st.one_of(st.none(), st.tuples(st.sampled_from(GARBAGE), st.integers(0, 200))))
def test_queries_read_as_written(kind: str, parts, garbage) -> None:
    frame, labels = FRAMES[kind], GROUPS[kind]
    pieces, expected, ambiguous = [], 0.0, False
    for coefficient, (var, value), given_atoms, (code, form, negate) in parts:
        text, unclear = _written(kind, code, form)
        ambiguous |= unclear
        op = "!=" if negate else "="
        condition = " & ".join([*(f"{v} = {x}" for v, x in given_atoms), f"A {op} {text}"])
        pieces.append(f"{coefficient} * P({var} = {value} | {condition})")
        rows = frame[(frame["A"] != labels[code]) if negate else (frame["A"] == labels[code])]
        for v, x in given_atoms:
            rows = rows[rows[v] == x]
        expected += coefficient * ((rows[var] == value).mean() if len(rows) else math.nan)
    query = " + ".join(pieces)
    if garbage is not None:
        junk, at = garbage
        at %= len(query) + 1
        query = query[:at] + junk + query[at:]
    result, error = outcome(lambda: fp.bound(OBSERVED, query, frame, time_limit=10))
    if garbage is not None:
        assert error is not None, f"garbage was accepted: {query!r} gave {result!r}"
        assert isinstance(error, ConfigError), (query, error)
        return
    if error is not None:
        if not ambiguous:
            assert isinstance(error, UndefinedMetricError) and math.isnan(expected), (query, error)
        else:
            assert isinstance(error, ConfigError) and "ambiguous" in str(error), (query, error)
        return
    assert not ambiguous, f"an ambiguous value was read silently: {query!r}"
    assert not math.isnan(expected), (query, result)
    assert result.lower == pytest.approx(expected, abs=1e-7) and result.upper == pytest.approx(expected, abs=1e-7), \
        (query, expected, result)
    confirmed()

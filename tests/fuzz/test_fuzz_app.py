"""Fuzz: uploads to the web app's data page, as bytes, through ``read_upload`` and ``build_table``.

A table that is built is confirmed against pandas on the uploaded rows: each cell's probability is
its share of the units (unit rows), of the counts (a count column, read only when the user says so)
or of the probabilities (a ``prob`` column), and the number of units is the number of rows or the
total count.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairprobe.app import logic
from tests.fuzz.oracle import confirmed, outcome

pytestmark = pytest.mark.fuzz

CELLS = ["0", "1", "2", "", "x", "-1", "0.5", "nan", "1e400"]


def _same_value(value) -> str:
    """One spelling per value: "0", 0 and 0.0 are the same group; words stay words."""
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return str(value)


@st.composite
def uploads(draw):
    kind = draw(st.sampled_from(["units", "counts", "cells"]))
    n = draw(st.integers(0, 12))
    header = ["A", "Y", "P"] + {"units": [], "counts": ["n"], "cells": ["prob"]}[kind]
    if draw(st.booleans()):
        header = [*header, "count"]  # a unit-level variable that only looks like counts
    rows = []
    for _ in range(n):
        row = [draw(st.sampled_from(["0", "1", "f", "m"])), draw(st.sampled_from(["0", "1"])),
               draw(st.sampled_from(["0", "1"]))]
        row += [draw(st.sampled_from(["1", "3", "10", "0"])) for _ in header[3:]]
        if draw(st.integers(0, 5)) == 0:
            row[draw(st.integers(0, len(row) - 1))] = draw(st.sampled_from(CELLS))
        rows.append(row)
    text = "\n".join(",".join(r) for r in [header, *rows]) + "\n"
    says_counts = draw(st.booleans()) if kind != "cells" else False
    return text.encode(), says_counts


@given(upload=uploads(), mapping=st.sampled_from([{"A": "A", "Y": "Y", "P": "P"}, {"A": "A", "P": "P"},
                                                  {"A": "A", "Y": "A"}, {"A": "nope"}]))
def test_uploads_become_the_right_table(upload, mapping) -> None:
    data, says_counts = upload
    frame, error = outcome(lambda: logic.read_upload("upload.csv", data))
    if error is not None:
        return
    kind, error = outcome(lambda: logic.table_kind(frame, counts=says_counts))
    if error is not None:
        return
    table, error = outcome(lambda: logic.build_table(frame, kind, mapping))
    if error is not None:
        return
    nodes = list(mapping)
    columns = [mapping[k] for k in nodes]
    raw = pd.read_csv(pd.io.common.BytesIO(data), dtype=str, keep_default_na=False)
    if kind == "units":
        weights = np.ones(len(raw))
    else:
        column = "prob" if kind == "cells" else logic.count_column(raw)
        weights = pd.to_numeric(raw[column], errors="coerce").to_numpy(float)
    assert np.isfinite(weights).all() and (weights >= 0).all() and weights.sum() > 0, weights
    shares = pd.Series(weights / weights.sum()).groupby([raw[c].map(_same_value) for c in columns]).sum()
    labels = {node: table.categories.get(node) for node in nodes}
    built = {}
    for row in table.cells.itertuples(index=False):
        key = tuple(_same_value(labels[n][int(getattr(row, n))] if labels[n] else int(getattr(row, n))) for n in nodes)
        built[key] = built.get(key, 0.0) + row.prob
    expected = {(k if isinstance(k, tuple) else (k,)): v for k, v in shares.items() if v > 0}
    built = {k: v for k, v in built.items() if v > 0}
    assert set(built) == set(expected), (built, expected)
    for key, prob in expected.items():
        assert math.isclose(built[key], prob, abs_tol=1e-9), (key, built[key], prob)
    if kind == "units":
        assert table.n == len(raw)
    elif kind == "counts":  # fractional counts are weights: no number of units
        assert table.n == (int(weights.sum()) if np.all(weights % 1 == 0) else None)
    confirmed()

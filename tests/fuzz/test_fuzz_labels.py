"""Fuzz: text and odd codings of the label and the prediction, through every reader.

The readers: ``fp.group_rates`` (rows and a table), ``ObservedTable.from_frame``/``from_counts``/
``from_probabilities`` into ``fp.bound``, the command line (``fairprobe bound --data`` on unit rows,
counts and cells, as CSV, TSV or Parquet, with ``--pos-label``) and the web app
(``read_upload``/``build_table``). Codings that say which label means 1 (0/1, False/True, '0'/'1',
'false'/'true') pass; any other (good/bad, 1/2, -1/1, Yes/No) must be refused with a fairprobe error
naming the column and ``pos_label`` unless ``pos_label`` names the label; labels differing only by
spaces or Unicode form must be refused. This module states the rule itself (:func:`_expect`, on the
labels a column holds) and confirms every accepted table's rates against pandas on the raw rows,
with the label that means 1 as the rule says.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import json
import math
import numbers
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import fairprobe as fp
from fairprobe.app import logic
from fairprobe.cli import main
from fairprobe.core.table import ObservedTable
from tests.fuzz.oracle import TALLY, confirmed, outcome

pytestmark = pytest.mark.fuzz

COLUMNS = {"A": "race", "Y": "outcome", "P": "pred"}
#: (negative, positive): codings that say which label means 1 ...
CLEAR = [(0, 1), (False, True), ("0", "1"), ("false", "true"), ("FALSE", "TRUE"), (0.0, 1.0)]
#: ... and codings that do not (both orientations: the positive label is the user's to name)
UNCLEAR = [("bad", "good"), ("good", "bad"), (1, 2), (2, 1), (-1, 1), (1, -1), ("No", "Yes"), ("Yes", "No"),
           ("rejected", "hired"), ("positif", "négatif"), ("N", "Y")]
GROUPS = [("f", "m"), ("Bokmål", "Français"), ("a b", "c")]
#: ways to write a text label that differ only by spaces or Unicode form
VARIANTS = [lambda s: s + " ", lambda s: " " + s, lambda s: unicodedata.normalize("NFD", s),
            lambda s: s.replace(" ", "  ")]
#: rate -> (event, condition) on the 0/1 label (y) and prediction (p)
RATES = {"base_rate": ("y", None), "selection_rate": ("p", None), "tpr": ("p", "y"), "fpr": ("p", "not y"),
         "fnr": ("not p", "y"), "ppv": ("y", "p"), "npv": ("not y", "not p")}


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _is(label, pos) -> bool:
    """Whether ``label`` is the positive label ``pos`` (text typed on a command line matches numbers and booleans)."""
    label, pos = _plain(label), _plain(pos)
    if isinstance(label, str) or not isinstance(pos, str):
        return isinstance(label, str) == isinstance(pos, str) and bool(label == pos)
    if isinstance(label, bool):
        return pos.strip().lower() == str(label).lower()
    try:
        return float(pos.strip()) == float(label)
    except ValueError:
        return False


def _clear(labels: list) -> bool:
    """The rule, on the labels a column holds: 0/1 numbers, booleans, '0'/'1' or 'false'/'true' text."""
    if all(isinstance(v, bool) for v in labels):
        return True
    if all(isinstance(v, numbers.Number) and not isinstance(v, bool) for v in labels):
        return {float(v) for v in labels} <= {0.0, 1.0}
    if all(isinstance(v, str) for v in labels):
        words = {v.strip().lower() for v in labels}
        return words <= {"0", "1"} or words <= {"false", "true"}
    return False


def _standard(label) -> bool:
    """The label that means 1 in a clear coding."""
    label = _plain(label)
    if isinstance(label, str):
        return label.strip().lower() in ("1", "true")
    return bool(float(label) == 1)


def _same_text(s: str) -> str:
    return " ".join(unicodedata.normalize("NFC", s).split())


def _expect(frame: pd.DataFrame, columns: dict[str, str], pos) -> tuple[str, object]:
    """What the rule says of ``frame`` (node -> column ``columns``) with ``pos_label=pos``.

    ``("dup", columns)``: labels differing only by spaces or Unicode form; ``("pos", None)``: a
    ``pos_label`` that names nothing it may apply to; ``("labels", nodes)``: binary nodes whose labels
    do not say which means 1; ``("ok", node -> predicate)``: which labels mean 1.
    """
    present = {node: [_plain(v) for v in pd.unique(frame[col].astype(object))] for node, col in columns.items()}
    dups = [col for node, col in columns.items()
            if len({_same_text(v) for v in present[node] if isinstance(v, str)})
            < len([v for v in present[node] if isinstance(v, str)])]
    if dups:
        return "dup", dups
    chosen: dict = {}
    if isinstance(pos, dict):
        for node, p in pos.items():
            if not any(_is(v, p) for v in present[node]) and len(present[node]) == 2:
                return "pos", None
            chosen[node] = p
    elif pos is not None:
        takers = [n for n in ("Y", "P") if not _clear(present[n]) and any(_is(v, pos) for v in present[n])]
        if not takers:
            return "pos", None
        chosen = dict.fromkeys(takers, pos)
    unresolved = [n for n in ("Y", "P") if n not in chosen and not _clear(present[n])]
    if unresolved:
        return "labels", unresolved
    return "ok", {n: (lambda v, p=chosen[n]: _is(v, p)) if n in chosen else _standard for n in ("Y", "P")}


def _rates(frame: pd.DataFrame, columns: dict[str, str], means1: dict, weight: str | None = None) -> dict:
    """rate -> group label -> value, with pandas on the raw rows (or weighted cells)."""
    y = frame[columns["Y"]].astype(object).map(means1["Y"]).astype(bool)
    p = frame[columns["P"]].astype(object).map(means1["P"]).astype(bool)
    w = frame[weight].astype(float) if weight else pd.Series(1.0, index=frame.index)
    events = {"y": y, "not y": ~y, "p": p, "not p": ~p}
    out: dict = {}
    for rate, (event, cond) in RATES.items():
        for group in pd.unique(frame[columns["A"]].astype(object)):
            rows = (frame[columns["A"]].astype(object) == group) & (events[cond] if cond else True)
            total = float(w[rows].sum())
            value = float(w[rows & events[event]].sum()) / total if total else math.nan
            out.setdefault(rate, {})[_plain(group)] = value
    return out


@st.composite
def rows(draw, category: bool = True):
    """Unit rows with user column names, random codings, sometimes a near-duplicate label or categories."""
    n = draw(st.integers(1, 24))
    groups = draw(st.sampled_from(GROUPS))
    codings = {node: draw(st.sampled_from(CLEAR + UNCLEAR)) for node in ("Y", "P")}
    bits = {node: draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)) for node in ("A", "Y", "P")}
    frame = pd.DataFrame({COLUMNS["A"]: [groups[b] for b in bits["A"]],
                          **{COLUMNS[k]: [codings[k][b] for b in bits[k]] for k in ("Y", "P")}})
    if draw(st.integers(0, 4)) == 0:  # one label written with other spaces or another Unicode form
        column = draw(st.sampled_from(list(COLUMNS.values())))
        at = draw(st.integers(0, n - 1))
        value = frame.at[at, column]
        variant = draw(st.sampled_from(VARIANTS))
        if isinstance(value, str) and variant(value) != value and not _clear([variant(value)]):
            frame[column] = frame[column].astype(object)
            frame.at[at, column] = variant(value)
    if category:
        for column in frame.columns:
            if draw(st.integers(0, 3)) == 0:
                frame[column] = frame[column].astype("category")
    mode = draw(st.sampled_from(["none", "none", "scalar", "dict"]))
    unclear = [k for k in ("Y", "P") if codings[k] in UNCLEAR]
    if mode == "scalar":
        node = unclear[0] if unclear and draw(st.integers(0, 5)) else draw(st.sampled_from(["Y", "P"]))
        pos = codings[node][draw(st.sampled_from([1, 1, 1, 0]))]  # sometimes the 0 of a 0/1 column
    elif mode == "dict":
        named = set(unclear) | set(draw(st.lists(st.sampled_from(["Y", "P"]), max_size=1)))
        pos = {k: codings[k][draw(st.sampled_from([1, 1, 1, 0]))] for k in sorted(named)} or None
    else:
        pos = None
    return frame, pos


def _check_refusal(kind: str, detail, error, columns: dict[str, str], text: str | None = None) -> None:
    message = text if text is not None else str(error)
    if kind == "dup":
        assert "differ only by spaces or Unicode form" in message, message
        assert any(repr(c) in message or repr(n) in message for n, c in columns.items() if c in detail), message
    elif kind == "labels":
        assert "pos_label" in message or "--pos-label" in message, message
        assert any(repr(columns[n]) in message or repr(n) in message for n in detail), (detail, message)
    else:
        assert "pos_label" in message or "--pos-label" in message, message


def _cells(frame: pd.DataFrame, weight: str) -> pd.DataFrame:
    """The rows as cells of the nodes with a count (``n``) or probability (``prob``) column."""
    named = frame.rename(columns={c: n for n, c in COLUMNS.items()})
    cells = named.groupby(list(COLUMNS), observed=True, sort=False).size().rename("n").reset_index()
    return cells if weight == "n" else cells.assign(prob=cells["n"] / cells["n"].sum()).drop(columns="n")


def _confirm_bound(result, error, expected: dict, metric: str, group) -> None:
    value = expected[metric].get(group, math.nan)
    if error is not None:
        assert math.isnan(value), f"a clear coding was refused: {error}"
        return
    assert not math.isnan(value), (metric, group, result)
    assert result.lower == pytest.approx(value, abs=1e-6) and result.upper == pytest.approx(value, abs=1e-6), \
        (metric, group, value, result)
    confirmed()


BOUND_RATES = ["fpr", "tpr", "fnr", "ppv", "selection_rate"]
#: cases this test found: fp.group_rates recodes a 0/1 column by a single pos_label (0 becomes the positive label,
#: where the table readers refuse it); counts and cells take labels 1/2 as codes (the refusal names no pos_label,
#: and the app does not ask); a text column of only 'true' is refused where one of only '1' is read as 1
FOUND_01 = pd.DataFrame({"race": list("ffffmmmm"), "outcome": [1, 1, 0, 0] * 2, "pred": [1, 0, 1, 0, 1, 1, 1, 1]})
FOUND_12 = FOUND_01.assign(pred=FOUND_01.pred + 1)
FOUND_TRUE = FOUND_01.assign(outcome="true", pred=FOUND_01.pred.map({0: "false", 1: "true"}))


@example(case=(FOUND_01, 0), reader="observed", metric="fpr", pick=0)
@example(case=(FOUND_12, None), reader="from_counts", metric="fpr", pick=0)
@example(case=(FOUND_12, None), reader="observed_table", metric="fpr", pick=0)
@example(case=(FOUND_TRUE, None), reader="observed", metric="selection_rate", pick=0)
@given(case=rows(), reader=st.sampled_from(["observed", "observed_table", "from_frame", "from_counts",
                                            "from_probabilities"]),
       metric=st.sampled_from(BOUND_RATES), pick=st.integers(0, 1))
def test_codings_through_the_api(case, reader, metric, pick) -> None:
    frame, pos = case
    if reader == "observed":
        kind, detail = _expect(frame, COLUMNS, pos)
        rates, error = outcome(lambda: fp.group_rates(frame, pos_label=pos, **COLUMNS))
        if kind != "ok":
            assert error is not None, (f"{kind}: accepted {pos=}, fpr by group {rates.by_group['fpr'].to_dict()} "
                                       f"(the table readers refuse it)\n{frame}")
            _check_refusal(kind, detail, error, COLUMNS)
            return
        assert error is None, f"a clear coding was refused: {error}"
        expected = _rates(frame, COLUMNS, detail)
        for rate, by_group in expected.items():
            for group, value in by_group.items():
                got = float(rates.by_group[rate][group])
                assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(value, abs=1e-9), \
                    (rate, group, got, value)
        confirmed()
        return
    if reader == "from_frame":
        columns, data = COLUMNS, frame
        build = lambda: ObservedTable.from_frame(frame, pos_label=pos, **COLUMNS)  # noqa: E731
    else:
        columns = {n: n for n in COLUMNS}
        data = _cells(frame, "prob" if reader == "from_probabilities" else "n")
        build = (lambda: ObservedTable.from_probabilities(data, pos_label=pos)) if reader == "from_probabilities" \
            else (lambda: ObservedTable.from_counts(data, pos_label=pos))
    kind, detail = _expect(data, columns, pos)
    table, error = outcome(build)
    if error is not None:
        assert kind in ("dup", "pos"), f"a table was refused: {error}"
        _check_refusal(kind, detail, error, columns)
        return
    assert kind not in ("dup", "pos"), f"{kind}: built a table for {pos=}\n{data}"
    groups = [_plain(g) for g in pd.unique(frame[COLUMNS["A"]].astype(object))]
    group = sorted(groups, key=str)[pick % len(groups)]
    if reader == "observed_table":
        rates, error = outcome(lambda: fp.group_rates(table))
        result = None if error else float(rates.by_group[metric][group])
    else:
        result, error = outcome(lambda: fp.bound("proxy_label", fp.metric(metric, group=group), table, D=0.0,
                                                 time_limit=5, progress=False))
    if kind != "ok":
        assert error is not None, f"labels {detail} accepted without pos_label ({pos=})"
        _check_refusal(kind, detail, error, columns)
        return
    expected = _rates(frame, COLUMNS, detail)
    if reader == "observed_table":
        assert error is None, error
        value = expected[metric][group]
        assert (math.isnan(result) and math.isnan(value)) or result == pytest.approx(value, abs=1e-9), (result, value)
        confirmed()
        return
    _confirm_bound(result, error, expected, metric, group)


# -- the command line and the app read files ------------------------------------------------------------
FORMATS = {"csv": lambda f, p: f.to_csv(p, index=False), "tsv": lambda f, p: f.to_csv(p, index=False, sep="\t"),
           "parquet": lambda f, p: f.to_parquet(p, index=False)}
#: Parquet needs pyarrow or fastparquet, which a bare install lacks: there the Parquet cases are read as CSV
PARQUET = any(importlib.util.find_spec(m) for m in ("pyarrow", "fastparquet"))
READ_BACK = {"csv": pd.read_csv, "tsv": lambda p: pd.read_csv(p, sep="\t"), "parquet": pd.read_parquet}
_names = itertools.count()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-labels")


def _written(folder: Path, frame: pd.DataFrame, shape: str, fmt: str) -> tuple[Path, pd.DataFrame, dict, str | None]:
    """The file of ``frame`` as unit rows, counts or cells; pandas's own reading of it, its columns, its weight."""
    if shape != "units" and fmt != "parquet":  # text files: categories are plain text anyway
        frame = frame.astype(object)
    data = frame if shape == "units" else _cells(frame, "n" if shape == "counts" else "prob")
    path = folder / f"t{next(_names)}.{fmt}"
    FORMATS[fmt](data, path)
    columns = COLUMNS if shape == "units" else {n: n for n in COLUMNS}
    return path, READ_BACK[fmt](path), columns, {"units": None, "counts": "n", "cells": "prob"}[shape]


def _text(pos) -> str | None:
    if isinstance(pos, dict):
        return ",".join(f"{k}={v}" for k, v in pos.items())
    return None if pos is None else str(pos)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


@example(case=(FOUND_12, None), shape="counts", fmt="csv", metric="fpr", pick=0)
@given(case=rows(), shape=st.sampled_from(["units", "counts", "cells"]), fmt=st.sampled_from(sorted(FORMATS)),
       metric=st.sampled_from(BOUND_RATES), pick=st.integers(0, 1))
def test_codings_through_the_command_line(folder, case, shape, fmt, metric, pick) -> None:
    fmt = fmt if fmt != "parquet" or PARQUET else "csv"
    frame, pos = case
    path, read, columns, weight = _written(folder, frame, shape, fmt)
    pos = _text(pos)
    kind, detail = _expect(read, columns, pos if pos is None or "=" not in pos else dict(
        part.split("=", 1) for part in pos.split(",")))
    groups = sorted((_plain(g) for g in pd.unique(read[columns["A"]].astype(object))), key=str)
    group = groups[pick % len(groups)]
    argv = ["bound", "--bias", "proxy_label", "--metric", metric, "--group", str(group), "--D", "0",
            "--time-limit", "5", "--json", "--data", str(path)]
    if shape == "units":
        argv += ["--columns", ",".join(f"{n}={c}" for n, c in COLUMNS.items())]
    if shape == "counts":  # a count column is read as counts only when named
        argv += ["--counts", weight]
    if pos is not None:
        argv += ["--pos-label", pos]
    code, out, err = _run(argv)
    assert code in (0, 2), f"exit {code} for {argv}: {err[-800:]}"
    assert "Traceback" not in err, err
    if code == 2:
        assert len([ln for ln in err.splitlines() if ln.strip()]) == 1, err
        TALLY["error"] += 1
        if kind != "ok":
            _check_refusal(kind, detail, None, columns, text=err)
            return
        value = _rates(read, columns, detail, weight)[metric].get(group, math.nan)
        assert math.isnan(value), f"a clear coding was refused: {err}"
        return
    assert kind == "ok", f"{kind} {detail}: accepted {argv}\n{read}"
    result = json.loads(out)
    value = _rates(read, columns, detail, weight)[metric][group]
    assert not math.isnan(value), (argv, result)
    assert float(result["lower"]) == pytest.approx(value, abs=1e-6), (argv, value, result)
    assert float(result["upper"]) == pytest.approx(value, abs=1e-6), (argv, value, result)
    confirmed()


@example(case=(FOUND_12, None), shape="cells", fmt="parquet", metric="fpr", pick=0)
@given(case=rows(), shape=st.sampled_from(["units", "counts", "cells"]), fmt=st.sampled_from(sorted(FORMATS)),
       metric=st.sampled_from(BOUND_RATES), pick=st.integers(0, 1))
def test_codings_through_the_app(folder, case, shape, fmt, metric, pick) -> None:
    fmt = fmt if fmt != "parquet" or PARQUET else "csv"
    frame, pos = case
    if isinstance(pos, str) or isinstance(pos, (bool, numbers.Number)):  # the Data page names the label per node
        pos = {n: pos for n in ("Y", "P") if any(_is(v, pos) for v in frame[COLUMNS[n]].astype(object))} or None
    path, _, _, weight = _written(folder, frame, shape, fmt)
    upload, error = outcome(lambda: logic.read_upload(path.name, path.read_bytes()))
    assert error is None, error
    mapping = dict(COLUMNS) if shape == "units" else {n: n for n in COLUMNS}
    kind, detail = _expect(upload, mapping, pos)
    table, error = outcome(lambda: logic.build_table(upload, logic.table_kind(upload, counts=shape == "counts"),
                                                     mapping, pos_label=pos))
    if error is not None:
        assert kind in ("dup", "pos"), f"a table was refused: {error}"
        _check_refusal(kind, detail, error, mapping)
        return
    assert kind not in ("dup", "pos"), f"{kind}: built a table for {pos=}\n{upload}"
    asked = logic.unclear_labels(table, None)
    assert set(asked) == (set(detail) if kind == "labels" else set()), (asked, kind, detail)
    groups = sorted((_plain(g) for g in pd.unique(upload[mapping["A"]].astype(object))), key=str)
    group = groups[pick % len(groups)]
    result, error = outcome(lambda: fp.bound("proxy_label", logic.make_metric(metric, (group, group)), table, D=0.0,
                                             time_limit=5, progress=False))
    if kind != "ok":
        assert error is not None, f"labels {detail} accepted without pos_label ({pos=})"
        _check_refusal(kind, detail, error, mapping)
        return
    _confirm_bound(result, error, _rates(upload, mapping, detail, weight), metric, group)

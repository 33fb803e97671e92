"""Fuzz: ``fairprobe bound`` command lines, valid and not, on a bundled table.

Every run must end with exit code 0 (a result) or 2 (bad input, one line on standard error naming
it), or 3 (a solver failure named as such); exit 1 is an internal error, a raw traceback. A result
of ``proxy_label`` at ``D = 0`` is confirmed against the rate pandas computes on the table's cells;
any other result must be an interval inside the metric's range that holds the observed rate.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairprobe.cli import main
from fairprobe.datasets import load_paper_table
from tests.fuzz.oracle import TALLY, confirmed

pytestmark = pytest.mark.fuzz

RATES = {"fpr": (("P", 1), ("Y", 0)), "fnr": (("P", 0), ("Y", 1)), "ppv": (("Y", 1), ("P", 1)),
         "selection_rate": (("P", 1), None)}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("fuzz-cli")
    cells = folder / "cells.csv"
    load_paper_table().to_csv(cells, index=False)
    broken = folder / "broken.csv"
    broken.write_text("A,Y,P,prob\n0,0,0,0.5\n1,1,x,0.7\n")
    return {"cells": cells, "broken": broken, "missing": folder / "missing.csv"}


def _observed(metric: str, group: int) -> float:
    cells = load_paper_table()
    (var, value), cond = RATES[metric]
    rows = cells[cells["A"] == group]
    if cond is not None:
        rows = rows[rows[cond[0]] == cond[1]]
    return float(rows.loc[rows[var] == value, "prob"].sum() / rows["prob"].sum())


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


#: option -> (valid values, invalid values); each case spoils at most one option
OPTIONS = {
    "bias": (["proxy_label", "selection", "proxy_label_and_selection"], ["nope", "{", ""]),
    "metric": ([*RATES, "fpr_parity", "equalized_odds", "P(P = 1 | A = 0)"], ["P(P = 1 | A = 5)", "P(", "zzz"]),
    "D": (["0", "0.05", "0.2"], ["-1", "2", "abc", "nan", None]),
    "group": ([None, "0", "1"], ["7", "x"]),
    "time_limit": ([None, "5", "none"], ["0", "-3", "abc"]),
    "data": (["cells"], ["broken", "missing"]),
    "columns": ([None, "A=A,Y=Y,P=P"], ["A=A,Y=A", "A=nope", "garbage"]),
}


@st.composite
def command_lines(draw):
    spoiled = draw(st.sampled_from([None, None, None, *OPTIONS]))
    return {name: draw(st.sampled_from(bad if name == spoiled else good)) for name, (good, bad) in OPTIONS.items()}


@given(choice=command_lines(), as_json=st.booleans())
def test_bound_command_lines(files, choice, as_json) -> None:
    bias, metric, D, group = choice["bias"], choice["metric"], choice["D"], choice["group"]
    data, columns = choice["data"], choice["columns"]
    argv = ["bound", "--bias", bias, "--metric", metric, "--data", str(files[data])]
    for option, value in (("--D", D), ("--group", group), ("--time-limit", choice["time_limit"]),
                          ("--columns", columns)):
        if value is not None:
            argv += [option, value]
    if as_json:
        argv.append("--json")
    code, out, err = _run(argv)
    assert code in (0, 2, 3), f"exit {code} (an internal error) for {argv}: {err[-800:]}"
    assert "Traceback" not in err and "Traceback" not in out, argv
    if code != 0:
        assert err.strip(), f"exit {code} without a message: {argv}"
        TALLY["error"] += 1
        return
    if not as_json:
        assert "certified bounds" in out, out
        confirmed()
        return
    result = json.loads(out)
    lower, upper = float(result["lower"]), float(result["upper"])
    assert -1 - 1e-9 <= lower <= upper + 1e-9 and upper <= 1 + 1e-9, result
    if metric in RATES and data == "cells" and columns in (None, "A=A,Y=Y,P=P"):
        observed = _observed(metric, int(group) if group in ("0", "1") else 0)
        assert lower - 1e-7 <= observed <= upper + 1e-7, (argv, observed, result)
        if bias == "proxy_label" and D == "0":
            assert math.isclose(lower, observed, abs_tol=1e-7) and math.isclose(upper, observed, abs_tol=1e-7)
    confirmed()

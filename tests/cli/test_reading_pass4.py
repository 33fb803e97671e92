"""Bad-input pass 4 (issue 44) on the command line: ``--pos-label`` (item 1), ``--encoding`` and CSV files
that are not UTF-8 (item 15), near-duplicate labels (item 16) and missing values named by column (item 18).

Every refusal is exit code 2 with one line on standard error naming the problem and the fix.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.datasets import read_table
from fairprobe.exceptions import DataError
from tests.bad_input import run_cli

# group a: fpr 0.5, group b: fpr 1.0 (the truth when 'hired' means 1)
ROWS = pd.DataFrame({"race": list("aaaabbbb") * 3, "decision": ["hired", "hired", "rejected", "rejected"] * 6,
                     "pred": ["hired", "rejected", "hired", "rejected", "hired", "hired", "hired", "hired"] * 3})
BOUND = ("bound", "--bias", "selection", "--metric", "fpr_parity", "--columns", "A=race,Y=decision,P=pred",
         "--D", "0", "--json")


def _one_line_refusal(argv, capsys) -> str:
    code, _, err = run_cli(list(argv), capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    return err


def _bound(argv, capsys) -> dict:
    code, out, err = run_cli(list(argv), capsys)
    assert code == 0, err
    return json.loads(out)


# -- item 1: --pos-label --------------------------------------------------------------------------------
def test_labels_that_do_not_say_which_is_1_are_refused_with_the_fix(tmp_path: Path, capsys) -> None:
    ROWS.to_csv(tmp_path / "hiring.csv", index=False)
    err = _one_line_refusal((*BOUND, "--data", str(tmp_path / "hiring.csv")), capsys)
    assert "Column 'decision' (node Y) holds the labels ['hired', 'rejected']" in err
    assert "cannot tell which label means 1" in err and "--pos-label" in err


def test_pos_label_gives_the_bound_of_the_api(tmp_path: Path, capsys) -> None:
    ROWS.to_csv(tmp_path / "hiring.csv", index=False)
    res = _bound((*BOUND, "--data", str(tmp_path / "hiring.csv"), "--pos-label", "hired"), capsys)
    table = fp.ObservedTable.from_frame(ROWS, A="race", Y="decision", P="pred", pos_label="hired")
    api = fp.bound("selection", "fpr_parity", table, D=0.0)
    assert res["lower"] == pytest.approx(api.lower, abs=1e-9) and res["upper"] == pytest.approx(api.upper, abs=1e-9)
    assert abs(res["lower"]) == pytest.approx(0.5, abs=1e-6)  # |fpr(a) - fpr(b)| = |0.5 - 1.0|


def test_pos_label_per_node_and_for_numbers(tmp_path: Path, capsys) -> None:
    rows = ROWS.assign(pred=ROWS.pred.map({"hired": "hire", "rejected": "reject"}))
    rows.to_csv(tmp_path / "two.csv", index=False)
    res = _bound((*BOUND, "--data", str(tmp_path / "two.csv"), "--pos-label", "Y=hired,P=hire"), capsys)
    assert abs(res["lower"]) == pytest.approx(0.5, abs=1e-6)
    numbers = ROWS.assign(decision=ROWS.decision.map({"hired": 2, "rejected": 1}),
                          pred=ROWS.pred.map({"hired": 2, "rejected": 1}))
    numbers.to_csv(tmp_path / "numbers.csv", index=False)
    err = _one_line_refusal((*BOUND, "--data", str(tmp_path / "numbers.csv")), capsys)
    assert "holds the labels [1, 2]" in err and "--pos-label" in err
    res = _bound((*BOUND, "--data", str(tmp_path / "numbers.csv"), "--pos-label", "2"), capsys)
    assert abs(res["lower"]) == pytest.approx(0.5, abs=1e-6)


def test_pos_label_for_a_cells_file(tmp_path: Path, capsys) -> None:
    cells = ROWS.rename(columns={"race": "A", "decision": "Y", "pred": "P"}).value_counts().rename("n").reset_index()
    cells.to_csv(tmp_path / "counts.csv", index=False)
    argv = ("bound", "--bias", "selection", "--metric", "fpr_parity", "--D", "0", "--json", "--data",
            str(tmp_path / "counts.csv"), "--counts", "n")
    assert "cannot tell which label means 1" in _one_line_refusal(argv, capsys)
    assert abs(_bound((*argv, "--pos-label", "hired"), capsys)["lower"]) == pytest.approx(0.5, abs=1e-6)


@pytest.mark.parametrize(("value", "problem"), [
    ("Hired", "pos_label='Hired' is not a label of any column"),
    ("Q=hired", "pos_label names the node 'Q', which is not a node of the table"),
    ("Y=", "Cannot read --pos-label 'Y='"),
])
def test_bad_pos_labels_are_one_line(tmp_path: Path, capsys, value: str, problem: str) -> None:
    ROWS.to_csv(tmp_path / "hiring.csv", index=False)
    assert problem in _one_line_refusal((*BOUND, "--data", str(tmp_path / "hiring.csv"), "--pos-label", value),
                                        capsys)


# -- item 15: a CSV that is not UTF-8 -------------------------------------------------------------------
LATIN = ROWS.assign(race=ROWS.race.map({"a": "Bokmål", "b": "Français"}),
                    decision=ROWS.decision.eq("hired").astype(int), pred=ROWS.pred.eq("hired").astype(int))


def test_a_latin1_csv_is_not_called_binary(tmp_path: Path, capsys) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes(LATIN.to_csv(index=False).encode("cp1252"))
    with pytest.raises(DataError) as info:
        read_table(path)
    message = str(info.value)
    assert "binary" not in message and "is not UTF-8 text" in message
    assert "0xe5" in message and "CSV UTF-8" in message and "encoding='cp1252'" in message
    err = _one_line_refusal((*BOUND, "--data", str(path)), capsys)
    assert "is not UTF-8 text" in err and "--encoding cp1252" in err


def test_encoding_reads_it(tmp_path: Path, capsys) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes(LATIN.to_csv(index=False).encode("cp1252"))
    assert read_table(path, encoding="cp1252")["race"].iloc[0] == "Bokmål"
    res = _bound((*BOUND, "--data", str(path), "--encoding", "cp1252"), capsys)
    assert abs(res["lower"]) == pytest.approx(0.5, abs=1e-6) and res["groups"] == ["Bokmål", "Français"]


def test_utf16_is_named_and_readable(tmp_path: Path, capsys) -> None:
    path = tmp_path / "unicode.csv"
    path.write_bytes(LATIN.to_csv(index=False).encode("utf-16"))
    err = _one_line_refusal((*BOUND, "--data", str(path)), capsys)
    assert "UTF-16" in err and "--encoding utf-16" in err and "binary" not in err
    assert read_table(path, encoding="utf-16")["race"].iloc[0] == "Bokmål"


def test_real_binary_files_stay_binary_and_bad_encodings_are_named(tmp_path: Path, capsys) -> None:
    path = tmp_path / "picture.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    assert "a PNG image" in _one_line_refusal((*BOUND, "--data", str(path)), capsys)
    garbage = tmp_path / "garbage.csv"
    garbage.write_bytes(bytes(range(1, 256)) * 8)
    assert "binary" in _one_line_refusal((*BOUND, "--data", str(garbage)), capsys)
    good = tmp_path / "good.csv"
    LATIN.to_csv(good, index=False)
    assert "Unknown --encoding 'klingon'" in _one_line_refusal((*BOUND, "--data", str(good), "--encoding", "klingon"),
                                                                capsys)
    with pytest.raises(DataError, match=r"Unknown encoding 'klingon'.*utf-8, cp1252"):
        read_table(good, encoding="klingon")


def test_every_command_with_data_takes_encoding(capsys) -> None:
    for command in ("bound", "sweep", "breakdown", "riskscore"):
        code, out, _ = run_cli([command, "--help"], capsys)
        assert code == 0 and "--encoding" in out, command


# -- items 16 and 18 on the command line -------------------------------------------------------------------
def test_near_duplicate_labels_and_missing_values_name_the_columns(tmp_path: Path, capsys) -> None:
    rows = LATIN.copy()
    rows.loc[0, "race"] = unicodedata.normalize("NFD", "Bokmål")
    rows.to_csv(tmp_path / "forms.csv", index=False)
    err = _one_line_refusal((*BOUND, "--data", str(tmp_path / "forms.csv")), capsys)
    assert "Column 'race' (node A) holds labels that differ only by spaces or Unicode form" in err
    rows = LATIN.astype({"race": object})
    rows.loc[3, "race"] = None
    rows.to_csv(tmp_path / "holes.csv", index=False)
    err = _one_line_refusal((*BOUND, "--data", str(tmp_path / "holes.csv")), capsys)
    assert "column 'race' (A)" in err and "dropna" in err

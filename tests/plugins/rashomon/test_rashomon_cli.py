"""``fairprobe multiplicity --exact-linear``: time limits, Ctrl-C, --debug and the options its messages name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity, LinearMultiplicityResult
from tests.bad_input import run_cli


def _argv(data: Path, *extra: str) -> list[str]:
    return ["multiplicity", "--data", str(data), "--target", "y", "--model", "logistic_regression", "--n-models", "5",
            "--epsilon", "0.1", "--exact-linear", "--json", *extra]


def _json(out: str) -> dict:
    return json.loads(out[out.index("{"):])


def test_ctrl_c_writes_the_certified_partial_result_and_exits_130(small_csv: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_cli(_argv(small_csv, "--time-limit", "30", "--total-time-limit", "600"), capsys)
    assert code == 0, err
    full = _json(out)
    lower, upper = full["exact_linear_ambiguity"]
    assert lower == upper and full["exact_linear_undecided_rows"] == 0 and full["exact_linear_stopped_by"] is None

    calls = []
    original = ExactLinearMultiplicity._solve_many

    def interrupted(self, programs, *args, **kwargs):  # Ctrl-C during the second round of flip programs
        calls.append(1)
        if len(calls) >= 2:
            raise KeyboardInterrupt
        return original(self, programs, *args, **kwargs)

    monkeypatch.setattr(ExactLinearMultiplicity, "_solve_many", interrupted)
    out_dir = tmp_path / "report"
    code, out, err = run_cli(_argv(small_csv, "--out", str(out_dir)), capsys)
    assert code == 130, err
    assert "interrupted" in err and "Traceback" not in err
    part = _json(out)
    assert part["exact_linear_stopped_by"] == "interrupt" and part["exact_linear_undecided_rows"] > 0
    assert part["exact_linear_ambiguity"][0] <= lower <= part["exact_linear_ambiguity"][1]
    # the partial report is written, and every decided row agrees with the uninterrupted run
    tables = list((out_dir / "tables").glob("s2_results.csv"))  # section 2: the exact linear multiplicity
    assert (out_dir / "index.html").exists() and len(tables) == 1
    status = pd.read_csv(tables[0])["status"]
    assert (status == "undecided").sum() == part["exact_linear_undecided_rows"]
    report = json.loads((out_dir / "report.json").read_text())
    assert "interrupt" in json.dumps(report)

    monkeypatch.setattr(ExactLinearMultiplicity, "_solve_many", original)
    full_dir = tmp_path / "full"
    code, _, err = run_cli(_argv(small_csv, "--out", str(full_dir)), capsys)
    assert code == 0, err
    full_status = pd.read_csv(full_dir / "tables" / "s2_results.csv")["status"]
    decided = status != "undecided"
    assert decided.any() and (status[decided] == full_status[decided]).all()


def test_debug_prints_the_traceback_and_keeps_the_exit_code(small_csv: Path, capsys: pytest.CaptureFixture) -> None:
    bad = ["multiplicity", "--data", str(small_csv), "--target", "nosuchcolumn"]
    code, _, err = run_cli(bad, capsys)
    assert code == 2 and "Traceback" not in err and "nosuchcolumn" in err
    code, _, err = run_cli(["--debug", *bad], capsys)
    assert code == 2 and "Traceback" in err and "nosuchcolumn" in err


def test_time_limit_messages_name_options_that_exist(capsys: pytest.CaptureFixture) -> None:
    code, help_text, _ = run_cli(["multiplicity", "--help"], capsys)
    assert code == 0
    part = LinearMultiplicityResult(
        reference_error=0, error_budget=1.0, reference_optimal=True, reference_weights=np.zeros(2),
        reference_predictions=np.zeros(2, dtype=int), status=np.array(["ambiguous", "undecided"]),
        ambiguity_lower=0.5, ambiguity_upper=1.0)
    with pytest.raises(Exception) as info:
        _ = part.ambiguity
    options = re.findall(r"--[a-z][a-z-]+", str(info.value))
    assert options, f"the message names no command-line option: {info.value}"
    for option in options:
        assert option in help_text, f"{option} is not an option of fairprobe multiplicity"
    source = (Path(__file__).parents[3] / "src/fairprobe/plugins/rashomon/linear_exact.py").read_text()
    for line in re.findall(r".*raise time_limit.*", source, flags=re.I):
        assert "_RAISE_TIME" in line or "--time-limit" in line, line

"""The plain-language conclusion of the causal commands says only what the bounds settle.

Found by an auditor on COMPAS: a single rate was described as a "disparity" whose "sign could
flip"; a metric with no value without bias was said to keep "the observed conclusion"; the
breakdown of a rate tested the empty conclusion "metric > 0"; with a second bias held fixed, the
breakdown called its starting point "without bias"; six races compared codes 0 and 1 silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.datasets import BUNDLED
from tests.bad_input import run_cli

CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")
COLUMNS = "A=race,Y=recid,P=pred"


@pytest.fixture(scope="module")
def races(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three races; race 'c' has a single unit (Y = 1, P = 1), so its FPR has no value without bias."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 900)
    pred = np.where(rng.random(900) < 0.7, y, 1 - y)
    df = pd.DataFrame({"race": np.repeat(["a", "b"], 450), "recid": y, "pred": pred})
    df = pd.concat([df, pd.DataFrame({"race": ["c"], "recid": [1], "pred": [1]})], ignore_index=True)
    path = tmp_path_factory.mktemp("conclusions") / "races.csv"
    df.to_csv(path, index=False)
    return path


def bound_json(capsys: pytest.CaptureFixture, *args: str, columns: tuple[str, ...] = ("--columns", COLUMNS)) -> dict:
    code, out, err = run_cli(["bound", "--bias", "proxy_label", *columns, "--json", *args], capsys)
    assert code == 0, err
    return json.loads(out)


def test_a_rate_is_given_its_range_not_a_sign(races: Path, capsys: pytest.CaptureFixture) -> None:
    res = bound_json(capsys, "--data", str(races), "--metric", "fpr", "--group", "a", "--D", "0.02")
    text = res["conclusion"]
    assert text.startswith("Without bias the data give fpr (A = a) = ") and "(certified)" in text
    assert "disparity" not in text and "flip" not in text
    assert f"[{res['lower']:.4f}, {res['upper']:.4f}]" in text


def test_no_observed_conclusion_when_the_metric_has_no_value_without_bias(races: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    res = bound_json(capsys, "--data", str(races), "--metric", "fpr_parity", "--groups", "c,a", "--D", "0.01")
    assert res["observed"]["lower"] is None and "is undefined" in res["observed"]["error"]  # and why
    assert res["verdict"] == "undetermined"
    text = res["conclusion"]
    assert "has no value" in text and "no observed conclusion to hold or flip" in text
    assert "holds at this much bias" not in text
    assert res["few_units"] == {"Y = 0 & A = c": 0}  # c's FPR rests on its negatives: none


def test_a_signed_disparity_is_compared_with_the_observed_sign(capsys: pytest.CaptureFixture) -> None:
    low = bound_json(capsys, "--data", CELLS, "--metric", "fpr_parity", "--D", "0.001", columns=())
    assert low["observed"]["upper"] < 0 and low["upper"] < 0  # the seed paper's table: FPR gap -0.043
    assert "stays negative: the observed conclusion holds" in low["conclusion"]
    high = bound_json(capsys, "--data", CELLS, "--metric", "fpr_parity", "--D", "0.2", columns=())
    assert high["upper"] >= 0 and "could be 0 or reversed: the conclusion could flip" in high["conclusion"]


def test_six_groups_without_groups_is_an_error(races: Path, capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", str(races),
                              "--columns", COLUMNS, "--D", "0.02"], capsys)
    assert code == 2 and out == ""
    assert "has 3 groups ('a', 'b', 'c')" in err and "--groups 'a,c'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("metric", "flag", "message"), [
    ("fpr_parity", ("--group", "a"), "fpr_parity compares groups"),
    ("fpr", ("--groups", "a,b"), "fpr is the rate of one group"),
])
def test_a_group_flag_the_metric_does_not_use_is_an_error(races: Path, capsys: pytest.CaptureFixture, metric: str,
                                                          flag: tuple[str, str], message: str) -> None:
    code, _, err = run_cli(["bound", "--bias", "proxy_label", "--metric", metric, "--data", str(races),
                            "--columns", COLUMNS, *flag, "--D", "0.02"], capsys)
    assert code == 2 and message in err


def test_breakdown_of_a_rate_needs_a_threshold(races: Path, capsys: pytest.CaptureFixture) -> None:
    args = ["breakdown", "--bias", "proxy_label", "--metric", "fpr", "--group", "a", "--data", str(races),
            "--columns", COLUMNS]
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "default conclusion 'metric > 0' says nothing" in err and "--threshold" in err
    code, out, err = run_cli([*args, "--threshold", "0.2", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["conclusion"].startswith("Without bias the data give fpr (A = a)")


def test_breakdown_with_a_second_bias_held_fixed_says_so(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(["breakdown", "--bias", "proxy_label", "--bias", "selection", "--metric", "fpr_parity",
                              "--data", CELLS, "--parameter", "D_selection", "--param", "D_proxy_label=0.01",
                              "--tolerance", "0.05", "--json"], capsys)
    assert code == 0, err
    res = json.loads(out)
    assert "without bias" not in res["conclusion"].lower()
    assert res["conclusion"].startswith("With D_proxy_label = 0.01 and D_selection = 0 the bounds give")


# -- errors on the command line name command-line options, not only Python keywords -----------------
@pytest.mark.parametrize(("command", "extra", "hint"), [
    ("bound", ("--D", "0.05"), "--param D_proxy_label=0.05 --param D_selection=0.05 instead of --D"),
    ("sweep", ("--D", "0:0.1:3"), "--parameter D_proxy_label --param D_selection=0.05"),
    ("breakdown", (), "--parameter D_proxy_label --param D_selection=0.05"),
])
def test_two_biases_errors_give_command_line_fixes(capsys: pytest.CaptureFixture, command: str,
                                                   extra: tuple[str, ...], hint: str) -> None:
    code, _, err = run_cli([command, "--bias", "proxy_label", "--bias", "selection", "--metric", "fpr_parity",
                            "--data", CELLS, *extra], capsys)
    assert code == 2 and hint in err, err


def test_a_score_in_the_prediction_role_is_told_to_threshold(races: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    df = pd.read_csv(races)
    df["pred"] = np.linspace(0.01, 0.99, len(df)).round(3)
    path = tmp_path / "scores.csv"
    df.to_csv(path, index=False)
    code, _, err = run_cli(["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--groups", "a,b",
                            "--data", str(path), "--columns", COLUMNS, "--D", "0.02"], capsys)
    assert code == 2 and "threshold it first" in err and "(df[col] >= 0.5).astype(int)" in err


def test_group_options_on_a_query_string_are_an_error(capsys: pytest.CaptureFixture) -> None:
    code, _, err = run_cli(["bound", "--bias", "proxy_label", "--metric", "P(P = 1 | Z = 0 & A = 1)",
                            "--groups", "0,1", "--data", CELLS, "--D", "0.02"], capsys)
    assert code == 2 and "do not apply to a query string" in err


def test_a_single_probability_query_is_a_rate(capsys: pytest.CaptureFixture) -> None:
    res = bound_json(capsys, "--data", CELLS, "--metric", "1 - P(P = 0 | Z = 0 & A = 1)", "--D", "0.02", columns=())
    assert "disparity" not in res["conclusion"] and "(certified)" in res["conclusion"]


def test_counterfactual_fairness_is_never_called_positive_or_reversed(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(["bound", "--bias", "ecp", "--metric", "counterfactual_fairness", "--data", CELLS,
                              "--unmeasured", "T", "--D", "0.05", "--json"], capsys)
    if code != 0:
        pytest.skip(f"ecp needs a T column for this table: {err.strip()}")
    text = json.loads(out)["conclusion"]
    assert "stays positive" not in text and "reversed" not in text


def test_a_limit_status_says_the_range_may_be_loose() -> None:
    import dataclasses

    from fairprobe.datasets import load_paper_table

    real = fp.bound("proxy_label", "fpr_parity", load_paper_table(), D=0.1)
    res = dataclasses.replace(real, lower=-0.02, upper=0.3, status="limit")
    res.set_observed(fp.ObservedValue(0.10, 0.10))
    text = res.conclusion().text
    assert "stopped at its limit" in text and "raise the time limit" in text and "could flip" in text
    assert res.conclusion().verdict == "can_flip" and res.conclusion().notes
    res = dataclasses.replace(real, lower=1e-9, upper=0.3)  # solver noise around 0 settles no sign
    res.set_observed(fp.ObservedValue(0.10, 0.10))
    assert "could be 0 or reversed" in res.conclusion().text

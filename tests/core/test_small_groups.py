"""One rule for "too few to say": a rate rests on the units of its denominator, and fewer than
``FEW_UNITS`` of them make no claim, whichever result shows it.

Found by an auditor (issue 45): ``few_units`` counted a group's units, not the units behind each
rate, so a 30-unit group whose FPR rests on 21 negatives got a headline. Issue 44: the observed
rates headlined a gap driven by an 11-person group without naming it, and ``print(fp.group_rates(...))``
showed ``<GroupRates object at 0x...>``.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core import interpret, results
from tests.bad_input import run_cli


def rows(small: int = 30, negatives: int = 21, predicted: int = 12, big: int = 300) -> pd.DataFrame:
    """Group ``s`` of ``small`` units (``negatives`` with Y = 0, ``predicted`` with P = 1) and group ``b``."""
    y = [0] * negatives + [1] * (small - negatives)
    p = [(i % 2) if i < 2 * predicted else 0 for i in range(small)]  # 12 predicted positives, spread over Y
    assert sum(p) == predicted
    half = big // 2
    frame_s = pd.DataFrame({"race": "s", "recid": y, "pred": p})
    frame_b = pd.DataFrame({"race": "b", "recid": [0, 1] * half, "pred": [0, 0, 1, 1] * (half // 2)})
    return pd.concat([frame_b, frame_s], ignore_index=True)


def table(**sizes: int) -> fp.ObservedTable:
    return fp.ObservedTable.from_frame(rows(**sizes), A="race", Y="recid", P="pred")


PAIR = ("s", "b")


def test_the_threshold_is_one_constant_kept_at_30() -> None:
    from fairprobe.core import small_groups

    assert small_groups.FEW_UNITS == 30
    assert results.FEW_UNITS == interpret.FEW_UNITS == small_groups.FEW_UNITS
    assert small_groups.too_few(29) and not small_groups.too_few(30) and not small_groups.too_few(None)


@pytest.mark.parametrize("bias", ["proxy_label", "ecp", "selection"])
def test_a_30_unit_group_whose_fpr_rests_on_21_negatives_is_flagged(bias: str) -> None:
    res = fp.bound(bias, fp.metric("fpr_parity", groups=PAIR), table(), D=0.01)
    assert res.few_units == {"Y = 0 & A = s": 21}
    conclusion = res.conclusion()
    assert conclusion.verdict == "too_few_units"
    assert "Y = 0 & A = s has 21 units, fewer than 30" in conclusion.text
    assert "few units: Y = 0 & A = s: 21" in res.summary() and res.to_dict()["few_units"] == {"Y = 0 & A = s": 21}


@pytest.mark.parametrize(("metric", "expected"), [
    ("fnr_parity", {"Y = 1 & A = s": 9}),
    ("tpr_parity", {"Y = 1 & A = s": 9}),
    ("ppv_parity", {"P = 1 & A = s": 12}),
    ("npv_parity", {"P = 0 & A = s": 18}),
    ("equalized_odds", {"Y = 0 & A = s": 21, "Y = 1 & A = s": 9}),
    ("demographic_parity", {}),  # all 30 units of the group
    ("accuracy_parity", {}),
])
def test_each_rate_counts_the_units_of_its_own_denominator(metric: str, expected: dict[str, int]) -> None:
    res = fp.bound("proxy_label", fp.metric(metric, groups=PAIR), table(), D=0.01)
    assert res.few_units == expected
    assert (res.conclusion().verdict == "too_few_units") == bool(expected)


def test_rates_over_every_unit_of_the_group_flag_a_group_of_29() -> None:
    res = fp.bound("proxy_label", fp.metric("demographic_parity", groups=PAIR), table(small=29, negatives=20), D=0.01)
    assert res.few_units == {"A = s": 29}


def test_the_true_attribute_of_proxy_attribute_counts_the_recorded_groups() -> None:
    res = fp.bound("proxy_attribute", fp.metric("fpr_parity", groups=PAIR), table(), D=0.01)
    assert res.few_units == {"Y = 0 & A = s": 21}


def test_a_sweep_and_a_breakdown_withhold_their_claim_too() -> None:
    metric = fp.metric("fpr_parity", groups=PAIR)
    sweep = fp.sensitivity("proxy_label", metric, table(), D=[0.0, 0.01], progress=False)
    assert sweep.conclusion().verdict == "too_few_units"
    assert "few units: Y = 0 & A = s: 21" in sweep.summary()
    broken = fp.breakdown("proxy_label", metric, table(), xtol=0.01, D_max=0.05)
    assert broken.conclusion().verdict == "too_few_units"


def test_the_command_line_prints_the_same_verdict(tmp_path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "units.csv"
    rows().to_csv(path, index=False)
    code, out, err = run_cli(["bound", "--bias", "proxy_label", "--data", str(path), "--columns",
                              "A=race,Y=recid,P=pred", "--metric", "fpr_parity", "--groups", "s,b", "--D", "0.01",
                              "--json"], capsys)
    assert code == 0, err
    res = json.loads(out)
    assert res["few_units"] == {"Y = 0 & A = s": 21} and res["verdict"] == "too_few_units"
    code, out, err = run_cli(["bound", "--bias", "proxy_label", "--data", str(path), "--columns",
                              "A=race,Y=recid,P=pred", "--metric", "fpr_parity", "--groups", "s,b", "--D", "0.01"],
                             capsys)
    assert code == 0, err
    assert "Y = 0 & A = s has 21 units" in " ".join(out.split())


# -- observed rates ---------------------------------------------------------------------------------------------
def test_observed_rates_count_every_rates_denominator() -> None:
    rates = fp.group_rates(table())
    assert rates.few_units == {"s: tpr": 9, "s: fpr": 21, "s: fnr": 9, "s: tnr": 21, "s: ppv": 12, "s: npv": 18}
    small = fp.group_rates(table(small=29, negatives=20))
    for rate in ("base_rate", "selection_rate", "accuracy"):  # over all 29 units of the group
        assert small.few_units[f"s: {rate}"] == 29


def eleven() -> pd.DataFrame:
    """Group c: 11 people, every one predicted positive; a and b: 400 each, alike (FPR 0.2, TPR 0.5)."""
    alike = pd.DataFrame({"recid": [0] * 200 + [1] * 200, "pred": [1] * 40 + [0] * 160 + [1, 0] * 100})
    frames = [alike.assign(race=g) for g in "ab"]
    frames.append(pd.DataFrame({"race": "c", "recid": [0] * 6 + [1] * 5, "pred": 1}))
    return pd.concat(frames, ignore_index=True)


def test_the_observed_headline_names_the_small_group_behind_a_gap() -> None:
    rates = fp.group_rates(eleven(), A="race", Y="recid", P="pred")
    conclusion = rates.conclusion()
    assert rates.difference()["fpr"] == pytest.approx(0.8)
    text = conclusion.text
    assert "are fpr 0.8000" in text
    assert "the fpr gap rests on c: 6 units" in text and "fewer than 30" in text
    assert conclusion.verdict == "too_few_units"  # the largest gap is no finding
    assert text in rates.summary()
    # a gap between large groups keeps its finding
    big = fp.group_rates(eleven().query("race != 'c'"), A="race", Y="recid", P="pred")
    assert big.conclusion().verdict == "finding" and "rests on" not in big.conclusion().text


def test_printing_the_observed_rates_shows_the_table() -> None:
    rates = fp.group_rates(eleven(), A="race", Y="recid", P="pred")
    shown = repr(rates)
    assert "object at 0x" not in shown and "object at 0x" not in str(rates)
    assert shown.startswith("observed rates by group of A") and str(rates) == shown == rates.summary().as_text()
    assert "fpr" in shown and "rests on c" in shown

"""Results explain themselves: Summary, to_dict, to_frame, HTML, the observed value and the conclusion."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.results import Summary
from fairprobe.datasets import load_paper_table


def _strict(text: str) -> object:
    def refuse(token: str) -> None:
        raise ValueError(f"invalid JSON token {token}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def results() -> dict[str, fp.Explained]:
    table = load_paper_table()
    return {"bound": fp.bound("proxy_label", "fpr_parity", table, D=0.05),
            "sweep": fp.sensitivity("proxy_label", "fpr_parity", table, D=[0.0, 0.05], progress=False),
            "breakdown": fp.breakdown("proxy_label", "fpr_parity", table, xtol=0.01),
            "observed": fp.group_rates(table)}


@pytest.mark.parametrize("kind", ["bound", "sweep", "breakdown", "observed"])
def test_every_result_explains_itself(results: dict, kind: str) -> None:
    res = results[kind]
    assert isinstance(res, fp.Explained)
    summary = res.summary()
    assert isinstance(summary, Summary) and summary.title
    assert "<pre " in res._repr_html_() and "<table" in res._repr_html_()
    assert isinstance(res.to_frame(), pd.DataFrame) and len(res.to_frame()) >= 1
    conclusion = res.conclusion()
    assert isinstance(conclusion, fp.Conclusion) and conclusion.text
    assert conclusion.text in summary  # the summary says what the conclusion says, in the same words
    d = _strict(json.dumps(res.to_dict(), default=str))
    assert d["conclusion"] == conclusion.text


def test_bound_records_its_observed_value() -> None:
    table = load_paper_table()
    res = fp.bound("proxy_label", "fpr_parity", table, D=0.05)
    zero = fp.bound("proxy_label", "fpr_parity", table, D=0.0)
    assert res.observed.point == pytest.approx(0.5 * (zero.lower + zero.upper), abs=1e-9)
    assert zero.observed.lower == zero.lower  # at D = 0 a bound is its own observed value
    frame = res.to_frame()
    assert frame["observed_lower"].iloc[0] == pytest.approx(res.observed.lower)
    copy = pickle.loads(pickle.dumps(fp.bound("proxy_label", "fpr", table, D=0.05)))  # pending: not pickled
    assert copy.upper > 0


def test_observed_value_says_why_it_is_missing() -> None:
    cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1], "Y": [0, 0, 1, 1, 1, 1], "P": [0, 1, 0, 1, 0, 1],
                          "prob": [0.3, 0.1, 0.1, 0.3, 0.1, 0.1]})
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(1, 0)), cells, D=0.05)
    assert not res.observed.defined and "undefined" in res.observed.error
    assert res.conclusion().verdict == "undetermined" and "has no value" in res.conclusion().text


def _with(res: fp.BoundResult, observed: tuple[float, float], **changes) -> fp.BoundResult:
    out = dataclasses.replace(res, **changes)
    out.set_observed(fp.ObservedValue(*observed))
    return out


def test_verdicts_follow_the_metric_kind() -> None:
    table = load_paper_table()
    signed = fp.bound("proxy_label", "fpr_parity", table, D=0.05)
    assert _with(signed, (-0.04, -0.04), lower=-0.2, upper=-0.01).conclusion().verdict == "survives"
    assert _with(signed, (-0.04, -0.04), lower=-0.2, upper=0.1).conclusion().verdict == "can_flip"
    assert _with(signed, (-0.04, -0.04), lower=-0.2, upper=-1e-9).conclusion().verdict == "can_flip"  # noise
    assert _with(signed, (-0.01, 0.02), lower=-0.2, upper=0.1).conclusion().verdict == "undetermined"
    gap = fp.bound("proxy_label", "equalized_odds", table, D=0.05)
    assert gap.metric_kind == "nonnegative"
    assert _with(gap, (0.06, 0.06), lower=0.0, upper=0.3).conclusion().verdict == "could_be_zero"
    assert _with(gap, (0.06, 0.06), lower=0.01, upper=0.3).conclusion().verdict == "survives"
    assert "sign" not in gap.conclusion().text  # a largest gap has no sign
    rate = fp.bound("proxy_label", "fpr", table, D=0.05)
    assert rate.metric_kind == "rate" and rate.conclusion().verdict == "range"
    query = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A = 1)", table, D=0.05)
    assert query.metric_kind == "disparity" and query.conclusion().verdict == signed.conclusion().verdict


def test_sweep_conclusion_finds_where_the_sign_is_lost() -> None:
    table = load_paper_table()
    grid = np.linspace(0, 0.05, 6)
    sweep = fp.sensitivity("proxy_label", "fpr_parity", table, D=grid, progress=False)
    frame = sweep.to_frame()
    kept = frame[frame["upper"] < -1e-6]["D"]
    lost = frame[frame["upper"] >= -1e-6]["D"]
    text = sweep.conclusion().text
    assert f"up to {100 * kept.max():.3g} %" in text and f"at D = {100 * lost.min():.3g} %" in text
    bp = fp.breakdown("proxy_label", "fpr_parity", table, xtol=1e-3)
    assert kept.max() < bp.value <= lost.min() + 1e-3  # the grid brackets the breakdown point
    assert f"below {100 * bp.value:.3g} %" in sweep.conclusion(bp.value).text


def test_observed_group_rates_match_a_direct_count() -> None:
    rng = np.random.default_rng(7)
    rows = pd.DataFrame({"race": rng.choice(["a", "b", "c"], 500), "y": rng.integers(0, 2, 500)})
    rows["pred"] = np.where(rng.random(500) < 0.7, rows["y"], 1 - rows["y"])
    rates = fp.group_rates(rows, A="race", Y="y", P="pred")
    for g, part in rows.groupby("race"):
        row = rates.by_group.loc[g]
        assert row["units"] == len(part) and row["share"] == pytest.approx(len(part) / 500)
        assert row["fpr"] == pytest.approx(part.loc[part.y == 0, "pred"].mean())
        assert row["ppv"] == pytest.approx(part.loc[part.pred == 1, "y"].mean())
        assert row["accuracy"] == pytest.approx((part.y == part.pred).mean())
    assert rates.overall["tpr"] == pytest.approx(rows.loc[rows.y == 1, "pred"].mean())
    fpr = rates.by_group["fpr"]
    assert rates.difference()["fpr"] == pytest.approx(fpr.max() - fpr.min())
    assert rates.ratio()["fpr"] == pytest.approx(fpr.min() / fpr.max())


def test_observed_rates_undefined_and_few_units() -> None:
    rows = pd.DataFrame({"A": ["a"] * 40 + ["b"] * 5, "Y": [0, 1] * 20 + [1] * 5, "P": [0, 1] * 20 + [1, 0, 1, 0, 1]})
    rates = fp.group_rates(rows)
    assert math.isnan(rates.by_group.loc["b", "fpr"])  # no negative in b: undefined, never 0
    assert math.isnan(rates.difference()["fpr"])
    assert "b: tpr" in rates.few_units and rates.few_units["b: tpr"] == 5
    assert "fewer than 30 units" in rates.conclusion().text
    with pytest.raises(fp.DataError, match="A=, Y=, P="):
        fp.group_rates(rows, A="race")

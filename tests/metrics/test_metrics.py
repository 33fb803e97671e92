"""Metric definitions, equalised odds' joint lower bound, multi-valued attributes, causal metrics."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.datasets import load_paper_table
from fairprobe.testing import RandomSCM

CELLS = load_paper_table()  # the seed paper's COMPAS table, bundled


def test_definitions_read_the_right_way_round() -> None:
    cfg = resolve_bias("selection")
    assert fp.metric("npv", group=1).query(cfg) == "P(Y = 0 | P = 0 & A = 1)"
    assert fp.metric("fnr", group=0).query(cfg) == "P(P = 0 | Y = 1 & A = 0)"
    assert fp.metric("ppv_parity").query(cfg) == "P(Y = 1 | P = 1 & A = 0) - (P(Y = 1 | P = 1 & A = 1))"
    assert fp.metric("fpr", group=0).query(resolve_bias("ecp")) == "P(P = 1 | Y(T=1) = 0 & A = 0)"
    registered = set(fp.get_registry().metrics)
    assert {"fpr_parity", "fnr_parity", "ppv_parity", "npv_parity", "demographic_parity", "accuracy_parity",
            "equalized_odds", "counterfactual_fairness", "total_effect", "spurious_effect"} <= registered


def observed_rates(frame: pd.DataFrame, kind: str) -> dict[int, float]:
    out = {}
    for g, sub in frame.groupby("A"):
        p = sub.set_index(["Y", "P"])["prob"]
        out[g] = {"fpr": p[0, 1] / (p[0, 0] + p[0, 1]), "fnr": p[1, 0] / (p[1, 0] + p[1, 1]),
                  "acc": (p[0, 0] + p[1, 1]) / p.sum()}[kind]
    return out


def test_accuracy_parity_observed_value() -> None:
    acc = observed_rates(CELLS, "acc")
    res = fp.bound("proxy_label", "accuracy_parity", CELLS, D=0.0)
    assert res.lower == pytest.approx(acc[0] - acc[1], abs=1e-7) and res.width <= 1e-7


def test_equalized_odds_joint_lower_bound_beats_separate_bounds() -> None:
    D = 0.02
    eo = fp.bound("selection", "equalized_odds", CELLS, D=D)
    fpr = fp.bound("selection", "fpr_parity", CELLS, D=D)
    fnr = fp.bound("selection", "fnr_parity", CELLS, D=D)
    separate = max(max(0.0, r.lower, -r.upper) for r in (fpr, fnr))
    assert eo.details["separate_lower"] == pytest.approx(separate, abs=1e-7)
    assert eo.lower >= separate + 0.01  # measurably higher: both gaps cannot vanish together
    assert eo.lower_achieved is not None and eo.lower <= eo.lower_achieved <= eo.lower + 1e-5
    assert eo.upper == pytest.approx(max(-fpr.lower, fpr.upper, -fnr.lower, fnr.upper), abs=1e-7)
    obs = fp.bound("selection", "equalized_odds", CELLS, D=0.0)
    f, n = observed_rates(CELLS, "fpr"), observed_rates(CELLS, "fnr")
    assert obs.lower == pytest.approx(max(abs(f[0] - f[1]), abs(n[0] - n[1])), abs=1e-6)


@pytest.mark.parametrize(("bias", "seed"), [("proxy_label", 4), ("selection", 12), ("proxy_label", 8)])
def test_equalized_odds_contains_truth(bias: str, seed: int) -> None:
    cfg = resolve_bias(bias)
    scm = RandomSCM(cfg, seed=seed, concentration=3.0)
    table = scm.table(["A", "Y", "P"], given={"S": 1} if cfg.cond_nodes else None)
    m = fp.metric("equalized_odds")
    truth = max(abs(scm.evaluate(q)) for q in m.max_abs_terms(cfg))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = fp.bound(cfg, m, table, D=scm.realised_parameters()["D"], time_limit=10)
    assert res.lower - 1e-6 <= truth <= res.upper + 1e-6


def three_groups() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"A": a, "Y": y, "P": p, "prob": v} for (a, y, p), v in
            zip(itertools.product(range(3), range(2), range(2)), rng.dirichlet(np.full(12, 4.0)), strict=True)]
    return pd.DataFrame(rows)


def test_multi_valued_attribute_pairs_and_max() -> None:
    frame = three_groups()
    f = observed_rates(frame, "fpr")
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(0, 2)), frame, D=0.0)
    assert res.lower == pytest.approx(f[0] - f[2], abs=1e-7)
    worst = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), frame, D=0.0)
    gaps = [abs(f[a] - f[b]) for a, b in itertools.combinations(range(3), 2)]
    assert worst.lower == pytest.approx(max(gaps), abs=1e-6) and worst.upper == pytest.approx(max(gaps), abs=1e-6)
    wide = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), frame, D=0.03)
    pairs = [fp.bound("proxy_label", fp.metric("fpr_parity", groups=g), frame, D=0.03)
             for g in itertools.combinations(range(3), 2)]
    assert wide.upper == pytest.approx(max(max(-r.lower, r.upper) for r in pairs), abs=1e-7)
    assert "max over pairs" in wide.metric
    with pytest.raises(fp.ConfigError, match=r"groups 5 is not a group of the data.*groups are \[0, 1, 2\]"):
        fp.bound("proxy_label", fp.metric("fpr_parity", groups=(0, 5)), frame, D=0.0)


def test_groups_by_their_labels() -> None:
    """Labels of the data name groups everywhere; the codes they map to give the same bounds (to solver
    tolerance: the label table orders the cells differently)."""
    names = np.array(["Caucasian", "African-American", "Hispanic"])
    frame = three_groups()
    labelled = frame.assign(A=names[frame.A.to_numpy()])
    table = fp.ObservedTable.from_probabilities(labelled)
    codes = {label: code for code, label in enumerate(table.categories["A"])}
    by_label = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("Hispanic", "Caucasian")), table, D=0.02)
    by_code = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(codes["Hispanic"], codes["Caucasian"])),
                       table, D=0.02)
    direct = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(2, 0)), frame, D=0.02)
    assert (by_label.lower, by_label.upper) == (by_code.lower, by_code.upper)
    assert by_label.lower == pytest.approx(direct.lower, abs=1e-7)
    assert by_label.upper == pytest.approx(direct.upper, abs=1e-7)
    assert by_label.metric == "fpr_parity (A: Hispanic vs Caucasian)"
    assert "Hispanic vs Caucasian" in by_label.summary() and by_label.to_dict()["metric"] == by_label.metric
    single = fp.bound("proxy_label", fp.metric("fpr", group="African-American"), table, D=0.0)
    assert single.metric == "fpr (A = African-American)"
    with pytest.raises(fp.ConfigError, match=r"group 'Martian' is not a group of the data.*'Caucasian'"):
        fp.bound("proxy_label", fp.metric("fpr", group="Martian"), table, D=0.0)


def test_total_effect_is_identified_when_the_attribute_is_unconfounded() -> None:
    p = CELLS.groupby(["A", "P"])["prob"].sum()
    x, y = p[0, 1] / p[0].sum(), p[1, 1] / p[1].sum()
    te = fp.bound("proxy_label", "total_effect", CELLS, D=0.05)
    assert te.lower == pytest.approx(x - y, abs=1e-5) and te.upper == pytest.approx(x - y, abs=1e-5)
    assert te.lower <= x - y + 1e-9 <= te.upper + 2e-9  # certified: never inside the true value
    se = fp.bound("proxy_label", "spurious_effect", CELLS, D=0.05)
    assert abs(se.lower) <= 1e-5 and abs(se.upper) <= 1e-5
    # P(P(A=0) != P(A=1)) is cross-world: its sharp range given the two marginals is Frechet's
    cf = fp.bound("proxy_label", "counterfactual_fairness", CELLS, D=0.0)
    assert cf.lower == pytest.approx(abs(x - y), abs=1e-5)
    assert cf.upper == pytest.approx(min(x + y, 2 - x - y), abs=1e-5)


def test_causal_metrics_bracket_an_analytic_confounded_model() -> None:
    # U ~ Bern(1/2); A = U xor N, N ~ Bern(0.2); P = A or U; Y = U.
    # TE = P(U = 1) - 1 = -0.5; TV = P(U = 1 | A = 0) - 1 = 0.2 - 1 = -0.8; SE = TV - TE = -0.3;
    # P(P(A=0) != P(A=1)) = P(U = 0) = 0.5.
    rows = {}
    for u, n in itertools.product((0, 1), (0, 1)):
        a = u ^ n
        key = (a, u, a | u)
        rows[key] = rows.get(key, 0.0) + 0.5 * (0.2 if n else 0.8)
    frame = pd.DataFrame([{"A": a, "Y": y, "P": p, "prob": v} for (a, y, p), v in rows.items()])
    cfg = {"dag_str": "U -> A, U -> P, U -> Y, A -> P, A -> Y", "unob": ["U"], "constraints": []}
    truth = {"total_effect": -0.5, "spurious_effect": -0.3, "counterfactual_fairness": 0.5}
    for name, value in truth.items():
        res = fp.bound(cfg, name, frame, time_limit=30)
        assert res.lower - 1e-6 <= value <= res.upper + 1e-6, (name, res)
        assert res.width > 0.05  # confounding: not identified from the data
    tv = fp.bound(cfg, "demographic_parity", frame)
    assert tv.lower == pytest.approx(-0.8, abs=1e-7) and tv.width <= 1e-7

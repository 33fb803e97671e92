"""Audit metrics: a group against the rest, rates within a covariate stratum, standardised rates.

At ``D = 0`` the proxy-label bias forces the true outcome to equal the recorded one, so every
metric's certified bounds collapse to the value computed directly from the data with pandas.
The rest of a group is the query atom ``A != a`` (any number of groups).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import resolve_bias, resolve_metric
from fairprobe.datasets import load_compas
from fairprobe.exceptions import ConfigError

TOL = 1e-6

COVARIATE_BIAS = fp.BiasConfig.from_dict({
    "name": "proxy_label_covariate", "unob": ["U"], "attribute_node": "A", "outcome_node": "Z",
    "prediction_node": "P", "constraints": ["P(Z = Y) >= 1 - D"], "cardinality_of": {"Z": "Y"},
    "dag_str": "X -> A, X -> Y, X -> P, X -> Z, A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y",
    "observed_nodes": ["X", "A", "Y", "P"]})


def synthetic(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Unit rows: three groups a, b, c and a covariate with levels lo, mid, hi that shifts everything."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, n)
    a = (x + rng.integers(0, 3, n)) % 3
    y = (rng.random(n) < 0.2 + 0.1 * x + 0.1 * a).astype(int)
    p = (rng.random(n) < 0.15 + 0.3 * y + 0.1 * a + 0.05 * x).astype(int)
    return pd.DataFrame({"A": np.array(["a", "b", "c"])[a], "Y": y, "P": p, "X": np.array(["lo", "mid", "hi"])[x]})


FRAME = synthetic()
TABLE = fp.ObservedTable.from_frame(FRAME)
X_CODE = {label: code for code, label in enumerate(TABLE.categories["X"])}  # hi, lo, mid in code order


def rate(rows: pd.DataFrame, kind: str) -> float:
    """A rate from unit rows, with pandas."""
    if kind == "fpr":
        return float(rows.loc[rows.Y == 0, "P"].mean())
    if kind == "fnr":
        return float(1 - rows.loc[rows.Y == 1, "P"].mean())
    if kind == "ppv":
        return float(rows.loc[rows.P == 1, "Y"].mean())
    if kind == "selection_rate":
        return float(rows.P.mean())
    assert kind == "accuracy"
    return float((rows.P == rows.Y).mean())


def standardized(frame: pd.DataFrame, group: str, kind: str, covariate: str = "X", attribute: str = "A") -> float:
    """Direct standardisation: sum_x P(X = x) rate(group | X = x)."""
    weights = frame[covariate].value_counts(normalize=True)
    return sum(w * rate(frame[(frame[attribute] == group) & (frame[covariate] == x)], kind) for x, w in weights.items())


def collapses(res: fp.BoundResult, value: float) -> None:
    assert res.lower == pytest.approx(value, abs=TOL) and res.upper == pytest.approx(value, abs=TOL), (
        res.lower, value, res.upper, res.status)


METRIC_OF = {"fpr": "fpr_parity", "fnr": "fnr_parity", "ppv": "ppv_parity", "selection_rate": "demographic_parity",
             "accuracy": "accuracy_parity"}


@pytest.mark.parametrize("kind", list(METRIC_OF))
def test_stratum_collapses_to_the_table_value(kind: str) -> None:
    stratum = FRAME[FRAME.X == "mid"]
    truth = rate(stratum[stratum.A == "a"], kind) - rate(stratum[stratum.A == "c"], kind)
    metric = fp.metric(METRIC_OF[kind], groups=("a", "c"), stratum={"X": X_CODE["mid"]})
    collapses(fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.0), truth)


@pytest.mark.parametrize("kind", ["fpr", "fnr", "selection_rate", "accuracy"])
def test_standardized_collapses_to_the_table_value(kind: str) -> None:
    truth = standardized(FRAME, "b", kind) - standardized(FRAME, "c", kind)
    metric = fp.metric(METRIC_OF[kind], groups=("b", "c"), standardize="X")
    collapses(fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.0), truth)


def test_max_over_pairs_and_equalized_odds_within_a_stratum_or_standardized() -> None:
    fpr = {g: standardized(FRAME, g, "fpr") for g in "abc"}
    res = fp.bound(COVARIATE_BIAS, fp.metric("fpr_parity", groups="all", standardize="X"), TABLE, D=0.0)
    collapses(res, max(abs(fpr[g] - fpr[h]) for g in "abc" for h in "abc"))
    assert res.metric == "fpr_parity (A: max over pairs; standardized over X)"
    low = FRAME[FRAME.X == "lo"]
    gaps = [abs(rate(low[low.A == g], k) - rate(low[low.A == h], k)) for g, h in (("a", "b"), ("a", "c"), ("b", "c"))
            for k in ("fpr", "fnr")]
    eo = fp.bound(COVARIATE_BIAS, fp.metric("equalized_odds", groups="all", stratum={"X": X_CODE["lo"]}), TABLE, D=0.0)
    collapses(eo, max(gaps))


def test_group_rate_and_labels_with_stratum_labels_bound_to_the_table() -> None:
    metric = fp.metric("fpr", group="b", stratum={"X": "mid"}).bind(TABLE.categories["A"], categories=TABLE.categories)
    assert metric.stratum == {"X": X_CODE["mid"]}
    res = fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.0)  # fp.bound binds the attribute again: nothing changes
    assert res.metric == "fpr (A = b; X = mid)"
    collapses(res, rate(FRAME[(FRAME.A == "b") & (FRAME.X == "mid")], "fpr"))
    pair = fp.metric("fpr_parity", groups=("a", "b"), stratum={"X": "hi"}).bind(["a", "b", "c"], TABLE.categories)
    assert resolve_metric(pair, COVARIATE_BIAS).label == "fpr_parity (A: a vs b; X = hi)"
    coded = fp.metric("fpr_parity", groups=("a", "b"), stratum={"X": 0})  # a code is shown by its label
    assert resolve_metric(coded, COVARIATE_BIAS, TABLE).label == "fpr_parity (A: a vs b; X = hi)"
    by_label = fp.bound(COVARIATE_BIAS, fp.metric("fpr", group="b", stratum={"X": "mid"}), TABLE, D=0.0)
    collapses(by_label, rate(FRAME[(FRAME.A == "b") & (FRAME.X == "mid")], "fpr"))


def test_stratum_and_standardisation_together() -> None:
    two = fp.BiasConfig.from_dict({**COVARIATE_BIAS.to_dict(), "name": "two_covariates",
                                   "dag_str": COVARIATE_BIAS.dag_str + ", W -> A, W -> Y, W -> P, W -> Z",
                                   "observed_nodes": ["X", "W", "A", "Y", "P"]})
    query = fp.metric("fpr", group=0, stratum={"W": 1}, standardize="X").query(two)
    assert query == " + ".join(f"P(X = {x} | W = 1) * (P(P = 1 | Z = 0 & A = 0 & W = 1 & X = {x}))" for x in (0, 1))
    frame = FRAME.assign(W=np.random.default_rng(1).integers(0, 2, len(FRAME)))
    inside = frame[frame.W == 1]
    truth = standardized(inside, "a", "fpr") - standardized(inside, "b", "fpr")
    metric = fp.metric("fpr_parity", groups=("a", "b"), stratum={"W": 1}, standardize="X")
    collapses(fp.bound(two, metric, fp.ObservedTable.from_frame(frame), D=0.0), truth)


def test_rest_of_a_two_valued_attribute() -> None:
    vs_rest = FRAME.assign(A=FRAME.A.where(FRAME.A == "a", "rest"))
    table = fp.ObservedTable.from_frame(vs_rest)
    truth = rate(FRAME[FRAME.A == "a"], "fpr") - rate(FRAME[FRAME.A != "a"], "fpr")
    res = fp.bound(COVARIATE_BIAS, fp.metric("fpr_parity", groups=("a", "rest")), table, D=0.0)
    collapses(res, truth)
    assert res.metric == "fpr_parity (A: a vs rest)"
    codes = FRAME.assign(A=(FRAME.A != "a").astype(int))  # no labels: "rest" is the other code
    flipped = fp.bound(COVARIATE_BIAS, fp.metric("fpr_parity", groups=("rest", 0)), fp.ObservedTable.from_frame(codes),
                       D=0.0)
    collapses(flipped, -truth)
    assert flipped.metric == "fpr_parity (A: rest vs 0)"
    eo = fp.bound(COVARIATE_BIAS, fp.metric("equalized_odds", groups=("a", "rest"), stratum={"X": 1}), table, D=0.0)
    low = FRAME[FRAME.X == "lo"]
    collapses(eo, max(abs(rate(low[low.A == "a"], k) - rate(low[low.A != "a"], k)) for k in ("fpr", "fnr")))


@pytest.mark.parametrize("kind", list(METRIC_OF))
def test_rest_of_three_groups_collapses_to_the_table_value(kind: str) -> None:
    truth = rate(FRAME[FRAME.A == "b"], kind) - rate(FRAME[FRAME.A != "b"], kind)
    res = fp.bound(COVARIATE_BIAS, fp.metric(METRIC_OF[kind], groups=("b", "rest")), TABLE, D=0.0)
    collapses(res, truth)
    assert res.metric == f"{METRIC_OF[kind]} (A: b vs rest)"
    flipped = fp.bound(COVARIATE_BIAS, fp.metric(METRIC_OF[kind], groups=("rest", "b")), TABLE, D=0.0)
    collapses(flipped, -truth)
    assert flipped.metric == f"{METRIC_OF[kind]} (A: rest vs b)"


def test_rest_of_three_groups_within_a_stratum_standardized_and_for_equalized_odds() -> None:
    mid = FRAME[FRAME.X == "mid"]
    truth = rate(mid[mid.A == "a"], "fpr") - rate(mid[mid.A != "a"], "fpr")
    collapses(fp.bound(COVARIATE_BIAS, fp.metric("fpr_parity", groups=("a", "rest"), stratum={"X": X_CODE["mid"]}),
                       TABLE, D=0.0), truth)
    weights = FRAME.X.value_counts(normalize=True)
    rest_std = sum(w * rate(FRAME[(FRAME.A != "c") & (FRAME.X == x)], "fnr") for x, w in weights.items())
    collapses(fp.bound(COVARIATE_BIAS, fp.metric("fnr_parity", groups=("c", "rest"), standardize="X"), TABLE, D=0.0),
              standardized(FRAME, "c", "fnr") - rest_std)
    eo = fp.bound(COVARIATE_BIAS, fp.metric("equalized_odds", groups=("a", "rest")), TABLE, D=0.0)
    collapses(eo, max(abs(rate(FRAME[FRAME.A == "a"], k) - rate(FRAME[FRAME.A != "a"], k)) for k in ("fpr", "fnr")))
    assert eo.metric == "equalized_odds (A: a vs rest)"


def test_each_vs_rest_of_three_groups() -> None:
    gaps = {g: rate(FRAME[FRAME.A == g], "fpr") - rate(FRAME[FRAME.A != g], "fpr") for g in "abc"}
    metric = fp.metric("fpr_parity", groups="each_vs_rest")
    three = fp.BiasConfig.from_dict({**COVARIATE_BIAS.to_dict(), "cardinalities": {"A": 3}})
    spec = resolve_metric(metric, three, TABLE)
    assert spec.max_abs and not spec.families and len(spec.queries) == 3
    assert spec.queries[1] == "P(P = 1 | Z = 0 & A = 1) - (P(P = 1 | Z = 0 & A != 1))"
    at0 = fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.0)
    collapses(at0, max(abs(v) for v in gaps.values()))
    assert at0.metric == "fpr_parity (A: each vs rest)"
    eo = fp.bound(COVARIATE_BIAS, fp.metric("equalized_odds", groups="each_vs_rest"), TABLE, D=0.0)
    collapses(eo, max(abs(rate(FRAME[FRAME.A == g], k) - rate(FRAME[FRAME.A != g], k)) for g in "abc"
                      for k in ("fpr", "fnr")))
    assert eo.metric == "equalized_odds (A: each vs rest)"
    wider = fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.03)
    assert wider.lower - TOL <= at0.lower and at0.upper <= wider.upper + TOL and wider.width > 0.01


def test_rest_of_three_groups_matches_recoding_to_two_under_proxy_label() -> None:
    """Under proxy_label (a budget over everyone, saturated given the attribute) pooling the rest by
    ``A != a`` and recoding the attribute to 'a' and 'rest' admit the same values."""
    recoded = fp.ObservedTable.from_frame(FRAME.assign(A=FRAME.A.where(FRAME.A == "a", "rest")))
    metric = fp.metric("fnr_parity", groups=("a", "rest"))
    pooled = fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.03)
    two = fp.bound(COVARIATE_BIAS, metric, recoded, D=0.03)
    assert (pooled.lower, pooled.upper) == pytest.approx((two.lower, two.upper), abs=1e-5)


def test_causal_metrics_take_no_rest_of_many_groups() -> None:
    with pytest.raises(ConfigError, match=r"total_effect intervenes on A.*rest of a is 2 values"):
        fp.bound(COVARIATE_BIAS, fp.metric("total_effect", groups=("a", "rest")), TABLE, D=0.0)
    with pytest.raises(ConfigError, match=r"each_vs_rest' is for the rate metrics"):
        fp.bound(COVARIATE_BIAS, fp.metric("spurious_effect", groups="each_vs_rest"), TABLE, D=0.0)


def test_recoding_groups_that_are_not_compared_keeps_the_bounds() -> None:
    """Why recoding to 'a' and 'rest' is sound under proxy_label: the model is saturated given the
    attribute and the budget sums over everyone, so merging groups the metric does not separate
    leaves the bounds unchanged (here: c merged into d, comparing a with b)."""
    frame = synthetic(seed=3).assign(A=lambda d: d.A.where(d.index % 4 != 0, "d"))
    merged = frame.assign(A=frame.A.where(frame.A != "c", "d"))
    metric = fp.metric("fpr_parity", groups=("a", "b"))
    for D in (0.02, 0.05):
        fine = fp.bound(COVARIATE_BIAS, metric, fp.ObservedTable.from_frame(frame), D=D)
        coarse = fp.bound(COVARIATE_BIAS, metric, fp.ObservedTable.from_frame(merged), D=D)
        assert (fine.lower, fine.upper) == pytest.approx((coarse.lower, coarse.upper), abs=1e-6)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: fp.metric("fpr_parity", groups=("rest", "rest")), r"compares the rest with itself.*\('African"),
    (lambda: fp.metric("fpr_parity", groups="rest"), r"needs the group compared with the rest.*each_vs_rest"),
    (lambda: fp.metric("fpr_parity", groups="each"), r"or 'all'; got 'each'\. Use 'each_vs_rest'"),
    (lambda: fp.metric("fpr_parity", stratum={"X": 1}, standardize="X"), r"both a stratum and standardised"),
    (lambda: fp.metric("fpr_parity", stratum="X = 1"), r"stratum must map covariate nodes"),
    (lambda: fp.metric("fpr_parity", standardize=["X", "X"]), r"names a node twice"),
    (lambda: fp.metric("fpr_parity", standardize=3), r"standardize takes a covariate node"),
])
def test_bad_options_at_construction(make: Callable[[], fp.Metric], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make()


@pytest.mark.parametrize(("metric", "message"), [
    (fp.metric("fpr_parity", groups=("a", "b"), stratum={"W": 1}),
     r"stratum names 'W', which is not a node of the bias's DAG; covariates of this bias: \['X', 'Y'\]"),
    (fp.metric("fpr_parity", groups=("a", "b"), standardize="U"), r"standardize names 'U', which is not a node"),
    (fp.metric("fpr_parity", groups=("a", "b"), stratum={"X": 5}),
     r"X = 5 is not in the data; X takes the values \['hi', 'lo', 'mid'\] \(or their codes 0..2\)"),
    (fp.metric("fpr_parity", groups=("a", "b"), stratum={"A": 0}), r"'A', the attribute of the metric"),
    (fp.metric("fpr_parity", groups=("a", "b"), standardize="Z"), r"'Z', the outcome of the metric"),
    (fp.metric("total_effect", groups=("a", "b"), stratum={"X": 0}), r"total_effect takes no stratum"),
])
def test_bad_strata_name_the_problem(metric: fp.Metric, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.0)


def test_stratum_label_not_in_the_data() -> None:
    with pytest.raises(ConfigError, match=r"X = 'huge' is not in the data; X takes the values \['hi', 'lo', 'mid'\]"):
        fp.metric("fpr", stratum={"X": "huge"}).bind(TABLE.categories["A"], categories=TABLE.categories)


def test_positive_sensitivity_contains_the_value_and_widens() -> None:
    for metric in (fp.metric("fpr_parity", groups=("a", "c"), stratum={"X": X_CODE["hi"]}),
                   fp.metric("fpr_parity", groups=("a", "c"), standardize="X")):
        at0 = fp.bound(COVARIATE_BIAS, metric, TABLE, D=0.0)
        widths = []
        for D in (0.01, 0.03):
            res = fp.bound(COVARIATE_BIAS, metric, TABLE, D=D)
            assert res.lower - TOL <= at0.lower and at0.upper <= res.upper + TOL
            widths.append(res.width)
        assert 0.01 < widths[0] < widths[1]


# --- COMPAS, six races -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    frame = load_compas().frame
    return frame.assign(pred=(frame.decile_score >= 5).astype(int), many_priors=frame.priors_count > 3)


def compas_table(frame: pd.DataFrame) -> fp.ObservedTable:
    return fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred", X="many_priors")


def compas_rate(rows: pd.DataFrame) -> float:
    return float(rows.loc[rows.two_year_recid == 0, "pred"].mean())


def test_compas_african_american_against_the_rest(compas: pd.DataFrame) -> None:
    metric = fp.metric("fpr_parity", groups=("African-American", "rest"))
    black = compas.race == "African-American"
    truth = compas_rate(compas[black]) - compas_rate(compas[~black])
    recoded = compas.assign(race=compas.race.where(black, "rest"))
    for frame in (compas, recoded):  # six races (A != 0) or the attribute recoded to two values
        at0 = fp.bound(COVARIATE_BIAS, metric, compas_table(frame), D=0.0)
        collapses(at0, truth)
        assert at0.metric == "fpr_parity (A: African-American vs rest)"
    wider = fp.bound(COVARIATE_BIAS, metric, compas_table(compas), D=0.02)
    assert wider.lower < truth - 0.01 and truth + 0.01 < wider.upper
    recoded_wider = fp.bound(COVARIATE_BIAS, metric, compas_table(recoded), D=0.02)
    assert (wider.lower, wider.upper) == pytest.approx((recoded_wider.lower, recoded_wider.upper), abs=1e-5)


# --- COMPAS without a covariate: each group against the rest ---------------------------------------


@pytest.fixture(scope="module")
def races() -> tuple[pd.DataFrame, fp.ObservedTable]:
    frame = load_compas().frame.assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    return frame, fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")


def timed_bound(*args: object, **kwargs: object) -> fp.BoundResult:
    start = time.perf_counter()
    res = fp.bound(*args, **kwargs)
    print(f"{res.metric} at {res.parameters}: [{res.lower:.6f}, {res.upper:.6f}] in {time.perf_counter() - start:.2f}s")
    return res


def test_compas_six_races_african_american_vs_rest(races: tuple[pd.DataFrame, fp.ObservedTable]) -> None:
    frame, table = races
    black = frame.race == "African-American"
    truth = compas_rate(frame[black]) - compas_rate(frame[~black])
    metric = fp.metric("fpr_parity", groups=("African-American", "rest"))
    at0 = timed_bound("proxy_label", metric, table, D=0.0)
    collapses(at0, truth)
    assert at0.metric == "fpr_parity (A: African-American vs rest)"
    wider = timed_bound("proxy_label", metric, table, D=0.05)
    assert wider.lower - TOL <= truth <= wider.upper + TOL and wider.width > 0.1
    # the same metric written by hand: the rest is A != 0 (African-American is code 0)
    assert table.categories["A"][0] == "African-American"
    by_hand = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A != 0)", table, D=0.05)
    assert (by_hand.lower, by_hand.upper) == pytest.approx((wider.lower, wider.upper), abs=1e-6)
    six = fp.BiasConfig.from_dict({**resolve_bias("proxy_label").to_dict(), "cardinalities": {"A": 6}})
    assert resolve_metric(metric, six, table).queries == ("P(P = 1 | Z = 0 & A = 0) - (P(P = 1 | Z = 0 & A != 0))",)


def test_compas_rest_rate_by_query_string(races: tuple[pd.DataFrame, fp.ObservedTable]) -> None:
    frame, table = races
    rest = compas_rate(frame[frame.race != "African-American"])
    for D in (0.0, 0.05):
        query = fp.bound("proxy_label", "P(P = 1 | Y = 0 & A != 0)", table, D=D)  # Y recorded: pinned by the data
        collapses(query, rest)
    rest_true = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A != 0)", table, D=0.0)
    collapses(rest_true, rest)
    metric = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("African-American", "rest")), table, D=0.05)
    group = fp.bound("proxy_label", fp.metric("fpr", group="African-American"), table, D=0.05)
    rest_wide = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A != 0)", table, D=0.05)
    # the gap's bounds lie within those of the difference of the separate rates
    assert group.lower - rest_wide.upper - TOL <= metric.lower and metric.upper <= group.upper - rest_wide.lower + TOL


def test_compas_each_vs_rest(races: tuple[pd.DataFrame, fp.ObservedTable]) -> None:
    frame, table = races
    gaps = {r: compas_rate(frame[frame.race == r]) - compas_rate(frame[frame.race != r]) for r in table.categories["A"]}
    metric = fp.metric("fpr_parity", groups="each_vs_rest")
    at0 = timed_bound("proxy_label", metric, table, D=0.0)
    collapses(at0, max(abs(v) for v in gaps.values()))
    assert at0.metric == "fpr_parity (A: each vs rest)"
    wider = timed_bound("proxy_label", metric, table, D=0.05)
    assert wider.lower - TOL <= at0.lower and at0.upper <= wider.upper + TOL and wider.width > 0.1


def test_compas_rest_of_a_value_the_attribute_does_not_take(races: tuple[pd.DataFrame, fp.ObservedTable]) -> None:
    _, table = races
    with pytest.raises(ConfigError, match=r"A != 7 is neither a label nor a code of A: its labels are "
                                          r"\['African-American', 'Asian'.*its codes 0..5"):
        fp.bound("proxy_label", "P(P = 1 | Y = 0 & A != 7)", table, D=0.0)
    with pytest.raises(ConfigError, match=r"groups 'Martian' is not a group of the data"):
        fp.bound("proxy_label", fp.metric("fpr_parity", groups=("Martian", "rest")), table, D=0.0)


# --- soundness with four groups ---------------------------------------------------------------------


def four_group_model(seed: int) -> tuple[pd.DataFrame, float, float]:
    """A random proxy-label model with four groups and a latent U -> P, Z, Y (as ``proxy_model`` of
    ``tests/core/test_scale_soundness.py``, with a proxy that errs at most 15% of the time so that the
    bounds are informative): observed cells over (A, Y, P), the true P(Z != Y) and the true
    FPR(0) - FPR(rest of 0) (FPR on the hidden true outcome Z)."""
    rng = np.random.default_rng(seed)
    k_u, k_a = 3, 4
    p_u = rng.dirichlet(np.ones(k_u))
    p_a = rng.dirichlet(np.ones(k_a))
    p_p = rng.dirichlet(np.full(2, 1.5), size=(k_u, k_a))
    p_z = rng.dirichlet(np.full(2, 1.5), size=(k_u, k_a))
    flip = rng.uniform(0.0, 0.15, size=(k_u, k_a, 2))  # P(Y != Z | U, A, Z)
    p_y = np.stack([np.where(np.arange(2) == z, 1 - flip[..., z, None], flip[..., z, None]) for z in range(2)], axis=2)
    joint = np.einsum("u,a,uap,uaz,uazy->apzy", p_u, p_a, p_p, p_z, p_y)
    full = pd.DataFrame([dict(A=a, P=p, Z=z, Y=y, prob=joint[a, p, z, y])
                         for a, p, z, y in itertools.product(range(k_a), range(2), range(2), range(2))])
    disagree = float(full[full.Z != full.Y].prob.sum())

    def fpr(rows: pd.DataFrame) -> float:
        return float(rows[(rows.Z == 0) & (rows.P == 1)].prob.sum() / rows[rows.Z == 0].prob.sum())

    truth = fpr(full[full.A == 0]) - fpr(full[full.A != 0])
    return full.groupby(["A", "Y", "P"], as_index=False).prob.sum(), disagree, truth


@pytest.mark.parametrize("seed", range(6))
def test_four_groups_true_gap_to_the_rest_inside_certified_bounds(seed: int) -> None:
    cells, disagree, truth = four_group_model(seed)
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(0, "rest")), cells, D=min(disagree + 1e-9, 1.0),
                   time_limit=60)
    assert res.lower - 1e-6 <= truth <= res.upper + 1e-6, (res.lower, truth, res.upper, res.status)
    assert res.width < 1.5  # informative bounds, not [-1, 1]


def test_compas_fpr_parity_among_people_with_more_than_three_priors(compas: pd.DataFrame) -> None:
    table = compas_table(compas)
    assert table.categories["X"] == [False, True]
    many = compas[compas.many_priors]
    truth = compas_rate(many[many.race == "African-American"]) - compas_rate(many[many.race == "Caucasian"])
    metric = fp.metric("fpr_parity", groups=("African-American", "Caucasian"), stratum={"X": True})
    at0 = fp.bound(COVARIATE_BIAS, metric, table, D=0.0)
    collapses(at0, truth)
    assert at0.metric == "fpr_parity (A: African-American vs Caucasian; X = True)"
    wider = fp.bound(COVARIATE_BIAS, metric, table, D=0.02)
    assert wider.lower < truth - 0.01 and truth + 0.01 < wider.upper
    std = fp.bound(COVARIATE_BIAS, fp.metric("fpr_parity", groups=("African-American", "Caucasian"),
                                             standardize="X"), table, D=0.0)
    weights = compas.many_priors.value_counts(normalize=True)
    std_rate = {race: sum(w * compas_rate(compas[(compas.race == race) & (compas.many_priors == x)])
                          for x, w in weights.items()) for race in ("African-American", "Caucasian")}
    collapses(std, std_rate["African-American"] - std_rate["Caucasian"])


# --- command line ------------------------------------------------------------------------------


def test_cli_groups_against_the_rest(compas: pd.DataFrame, tmp_path: Path) -> None:
    def run(path: Path, groups: str = "African-American,rest") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "fairprobe.cli", "bound", "--bias", "proxy_label", "--metric",
                               "fpr_parity", "--data", str(path), "--columns", "A=race,Y=two_year_recid,P=pred",
                               "--groups", groups, "--D", "0", "--json"],
                              capture_output=True, text=True, timeout=300)

    rows = compas[["race", "two_year_recid", "pred"]]
    two = tmp_path / "two.csv"
    rows.assign(race=rows.race.where(rows.race == "African-American", "rest")).to_csv(two, index=False)
    out = run(two)
    assert out.returncode == 0, out.stderr
    assert "African-American vs rest" in out.stdout
    six = tmp_path / "six.csv"
    rows.to_csv(six, index=False)
    out = run(six)
    assert out.returncode == 0, out.stderr
    assert "African-American vs rest" in out.stdout
    black = rows.race == "African-American"
    truth = compas_rate(rows[black]) - compas_rate(rows[~black])
    assert json.loads(out.stdout)["lower"] == pytest.approx(truth, abs=TOL)
    each = run(six, "each_vs_rest")
    assert each.returncode == 0, each.stderr
    result = json.loads(each.stdout)
    assert result["metric"] == "fpr_parity (A: each vs rest)"
    gaps = [compas_rate(rows[rows.race == r]) - compas_rate(rows[rows.race != r]) for r in rows.race.unique()]
    assert result["lower"] == pytest.approx(max(map(abs, gaps)), abs=TOL)

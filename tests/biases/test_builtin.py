"""Built-in biases: packaged configs, documented stories, closed forms and ground truth."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.biases.builtin import BUILTIN_BIASES, EcpBias, SelectiveLabelsBias
from fairprobe.biases.closed_forms import one_sided_proxy_bounds
from fairprobe.core.bound import resolve_bias
from fairprobe.datasets import load_paper_table
from fairprobe.testing import RandomSCM

CELLS = load_paper_table()  # the seed paper's COMPAS table, bundled


def group_cells(g: int) -> np.ndarray:
    p = np.zeros((2, 2))
    for row in CELLS[CELLS.A == g].itertuples():
        p[row.Y, row.P] = row.prob
    return p


def test_every_builtin_is_registered_documented_and_loads() -> None:
    registry = fp.get_registry().biases
    for cls in BUILTIN_BIASES:
        assert registry[cls.name] is cls
        assert cls.__doc__ and len(cls.__doc__) > 60, cls.name
        cfg = cls().config()
        assert cfg.parameters == ["D"] and cfg.description
    expected = {"selection", "proxy_label", "proxy_attribute", "ecp", "ecp_monotone", "proxy_label_and_selection",
                "selective_labels", "proxy_label_missed_positives", "proxy_label_missed_positives_no_edge",
                "proxy_label_false_positives", "proxy_label_false_positives_no_edge"}
    assert expected <= set(registry)


@pytest.mark.parametrize("bias", ["selection", "proxy_label", "proxy_attribute", "ecp", "ecp_monotone",
                                  "proxy_label_missed_positives", "proxy_label_false_positives"])
def test_no_bias_identifies_the_observed_rate(bias: str) -> None:
    p = group_cells(1)
    res = fp.bound(bias, fp.metric("fpr", group=1), CELLS, D=0.0)
    assert res.lower == pytest.approx(p[0, 1] / p[0].sum(), abs=1e-7)
    assert res.upper == pytest.approx(p[0, 1] / p[0].sum(), abs=1e-7)


@pytest.mark.parametrize("variant", ["missed_positives", "missed_positives_no_edge", "false_positives",
                                     "false_positives_no_edge"])
@pytest.mark.parametrize("metric", ["fpr", "fnr", "ppv"])
def test_one_sided_proxy_biases_match_closed_forms(variant: str, metric: str) -> None:
    for group in (0, 1):
        for D in (0.0, 0.02, 0.08):
            lo, hi = one_sided_proxy_bounds(group_cells(group), D, metric, variant)
            res = fp.bound(f"proxy_label_{variant}", fp.metric(metric, group=group), CELLS, D=D, gap=1e-9)
            assert res.lower == pytest.approx(lo, abs=1e-5), (group, D)
            assert res.upper == pytest.approx(hi, abs=1e-5), (group, D)
            assert res.lower <= lo + 1e-9 and res.upper >= hi - 1e-9  # certified: outer side


def test_ecp_options() -> None:
    plain = fp.bound("ecp", "fpr", CELLS, D=0.05)
    mono = fp.bound(EcpBias(monotone=True), "fpr", CELLS, D=0.05)
    assert mono.lower >= plain.lower - 1e-9 and mono.upper <= plain.upper - 0.01  # monotonicity bites
    with pytest.raises(fp.DataError, match=r"needs the column\(s\) \['T'\]"):
        fp.bound(EcpBias(observed_policy=True), "fpr", CELLS, D=0.05)
    factual = fp.bound("ecp", fp.metric("fpr", outcome="Y"), CELLS, D=0.05)
    assert factual.width <= 1e-6  # the factual outcome is observed: no sensitivity


@pytest.mark.parametrize("seed", [0, 2, 6])
def test_ecp_with_recorded_policy_contains_truth_and_is_tighter(seed: int) -> None:
    cfg = EcpBias(observed_policy=True).config()
    scm = RandomSCM(cfg, seed=seed, concentration=3.0)
    D = scm.realised_parameters()["D"]
    truth = scm.evaluate(fp.metric("fpr").query(cfg))
    with_t = fp.bound(cfg, "fpr", scm.table(["A", "Y", "P", "T"]), D=D)
    without = fp.bound("ecp", "fpr", scm.table(["A", "Y", "P"]), D=D)
    assert with_t.lower - 1e-6 <= truth <= with_t.upper + 1e-6
    assert with_t.width <= without.width + 1e-6


@pytest.mark.parametrize("seed", [0, 1, 4, 7])
@pytest.mark.parametrize("metric", ["fpr_parity", "ppv"])
def test_proxy_attribute_contains_truth(seed: int, metric: str) -> None:
    cfg = resolve_bias("proxy_attribute")
    scm = RandomSCM(cfg, seed=seed, concentration=3.0)
    m = fp.metric(metric)
    truth = scm.evaluate(m.query(cfg))
    assert "B = 0" in m.query(cfg)  # metrics are about the true attribute
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = fp.bound(cfg, m, scm.table(["A", "Y", "P"]), D=scm.realised_parameters()["D"], time_limit=10)
    assert res.lower - 1e-6 <= truth <= res.upper + 1e-6


def selective_frame(seed: int, n: int = 20_000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    u = rng.random(n)
    p = (u + 0.2 * a + 0.1 * rng.standard_normal(n) > 0.6).astype(int)
    s = ((p == 0) | (rng.random(n) < 0.3)).astype(int)  # outcome seen for released (P = 0) + some others
    y = (rng.random(n) < 0.2 + 0.5 * u).astype(int)  # depends on u: missing not at random
    return pd.DataFrame({"A": a, "P": p, "S": s, "Y": np.where(s == 1, y, np.nan), "Y_true": y})


def test_selective_labels_contains_truth_and_widens() -> None:
    df = selective_frame(0)
    table = SelectiveLabelsBias.table(df.drop(columns="Y_true"))
    truth = {}
    for g in (0, 1):
        sub = df[df.A == g]
        truth[g] = ((sub.P == 1) & (sub.Y_true == 0)).sum() / (sub.Y_true == 0).sum()
        lab, unl = sub[sub.S == 1], sub[sub.S == 0]
        gap = abs(unl.Y_true.mean() - lab.Y_true.mean())
        res = fp.bound("selective_labels", fp.metric("fpr", group=g), table, D=gap + 1e-9, time_limit=20)
        assert res.lower - 1e-6 <= truth[g] <= res.upper + 1e-6, (g, truth[g], res)
    narrow = fp.bound("selective_labels", "fpr", table, D=0.05)
    wide = fp.bound("selective_labels", "fpr", table, D=0.2)
    assert wide.lower <= narrow.lower and wide.upper >= narrow.upper and wide.width > narrow.width


def test_selective_labels_table_errors() -> None:
    df = selective_frame(1, 200)
    df.loc[df.index[df.S == 1][0], "Y"] = np.nan
    with pytest.raises(fp.DataError, match="missing for selected rows"):
        SelectiveLabelsBias.table(df)


def test_json_bias_written_by_a_user(tmp_path) -> None:
    path = tmp_path / "my_bias.json"
    resolve_bias("proxy_label").to_json(str(path))
    a = fp.bound(str(path), "fpr", CELLS, D=0.03)
    b = fp.bound("proxy_label", "fpr", CELLS, D=0.03)
    assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), abs=1e-9)


@pytest.mark.parametrize("monotone", [False, True])
@pytest.mark.parametrize("observed_policy", [False, True])
def test_each_ecp_config_is_the_callers_own(monotone: bool, observed_policy: bool) -> None:
    """The variants are built once per process; every call hands out an independent copy."""
    bias = EcpBias(monotone=monotone, observed_policy=observed_policy)
    first, second = bias.config(), bias.config()
    assert first == second and first is not second
    assert first.name == "ecp" + ("_monotone" if monotone else "") + ("_observed_policy" if observed_policy else "")
    assert len(first.constraints) == 1 + monotone
    assert ("T" in first.observed_nodes) == observed_policy
    first.constraints.append("P(Y = 1) <= 1")
    first.dag.edges.append(("P", "A"))
    first.unob.append("Q")
    third = bias.config()
    assert third == second and len(third.constraints) == 1 + monotone
    assert ("P", "A") not in third.dag.edges and "Q" not in third.unob


def test_a_subclass_of_ecp_reads_its_own_config_file() -> None:
    class PolicyBias(EcpBias):  # a plugin's variant of ECP on another packaged config
        name = "policy_proxy"
        resource = "proxy_label.json"

    assert PolicyBias().config().constraints == ["P(Z = Y) >= 1 - D"]
    assert EcpBias().config().constraints == ["P(Y(T=1) != Y(T=0)) <= D"]

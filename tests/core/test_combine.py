"""Combining biases: merged DAG, one parameter per bias, and bounds never tighter than a part."""

from __future__ import annotations

import warnings

import pytest

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.core.combine import combine_biases, rename_parameters
from fairprobe.datasets import load_paper_table
from fairprobe.testing import RandomSCM

CELLS = load_paper_table()  # the seed paper's COMPAS table, bundled


def test_rename_parameters_leaves_node_names_alone() -> None:
    assert rename_parameters("P(D = 1 & Y = 0) <= D * 2 - P(D = 0)", {"D": "D_x"}) == \
        "P(D = 1 & Y = 0) <= D_x * 2 - P(D = 0)"


def test_combined_config_roles_and_parameters() -> None:
    cfg = resolve_bias(["proxy_label", "selection"])
    assert (cfg.attribute_node, cfg.outcome_node, cfg.prediction_node) == ("A", "Z", "P")
    assert cfg.parameters == ["D_proxy_label", "D_selection"]
    assert cfg.cond_nodes == ["S"]
    assert set(cfg.unob) == {"U_proxy_label", "U_selection"}
    assert ("Y", "S") in {tuple(e.replace(" ", "").split("->")) for e in cfg.dag_str.split(",")}
    ecp_sel = resolve_bias(["ecp", "selection"])
    assert ecp_sel.outcome_node == "Y(T=1)"  # the counterfactual target explains the factual Y


@pytest.mark.parametrize("metric", ["fpr", "fnr_parity", "ppv"])
@pytest.mark.parametrize(("d_proxy", "d_sel"), [(0.0, 0.0), (0.02, 0.0), (0.0, 0.03), (0.02, 0.03)])
def test_combined_bounds_never_tighter_than_a_single_bias(metric: str, d_proxy: float, d_sel: float) -> None:
    both = fp.bound(["proxy_label", "selection"], metric, CELLS, D_proxy_label=d_proxy, D_selection=d_sel)
    proxy = fp.bound("proxy_label", metric, CELLS, D=d_proxy)
    sel = fp.bound("selection", metric, CELLS, D=d_sel)
    for single in (proxy, sel):
        assert both.lower <= single.lower + 1e-6
        assert both.upper >= single.upper - 1e-6
    if d_proxy == d_sel == 0.0:  # no bias at all: the observed value
        assert both.width <= 1e-6


@pytest.mark.parametrize("seed", [1, 4, 9])
def test_truth_of_a_random_model_lies_within_combined_bounds(seed: int) -> None:
    cfg = resolve_bias(["proxy_label", "selection"])
    scm = RandomSCM(cfg, seed=seed)
    table = scm.table(["A", "Y", "P"], given={"S": 1})
    params = scm.realised_parameters()
    for metric in ("fpr", "ppv"):
        m = fp.metric(metric, group=0)
        truth = scm.evaluate(m.query(cfg))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = fp.bound(cfg, m, table, D=params, time_limit=5)
        assert res.lower - 1e-6 <= truth <= res.upper + 1e-6


def test_two_dimensional_sweep_and_heatmap() -> None:
    import matplotlib

    matplotlib.use("Agg")
    res = fp.sensitivity(["proxy_label", "selection"], "fpr", CELLS,
                         D={"D_proxy_label": [0.0, 0.02], "D_selection": [0.0, 0.02, 0.04]}, progress=False)
    frame = res.to_frame()
    assert len(frame) == 6 and set(frame.status) == {"optimal"}
    widths = frame.set_index(["D_proxy_label", "D_selection"]).eval("upper - lower")
    assert widths[(0.0, 0.0)] <= 1e-6
    assert widths[(0.02, 0.04)] > widths[(0.02, 0.0)] > 0.01
    ax = res.plot_heatmap()
    assert ax.get_xlabel() == "D_proxy_label"


def test_conflicting_roles_are_an_error() -> None:
    other = {"dag_str": "A->W, A->P, U->W, U->P", "unob": ["U"], "outcome_node": "W", "name": "other",
             "constraints": ["P(W = 1) <= D"]}
    with pytest.raises(fp.ConfigError, match=r"disagree on the outcome .*none is a proxy or the counterfactual"):
        fp.bound(["selection", other], "fpr", CELLS, D_selection=0.1, D_other=0.1)
    with pytest.raises(fp.ConfigError, match="appears twice"):
        combine_biases([resolve_bias("selection"), resolve_bias("selection")])
    with pytest.raises(fp.ConfigError, match="list of biases is empty"):
        fp.bound([], "fpr", CELLS, D=0.1)
    with pytest.raises(fp.ConfigError, match=r"pass D as a dict"):
        fp.bound(["proxy_label", "selection"], "fpr", CELLS, D=0.1)


def test_a_combination_that_would_change_the_outcome_is_an_error_naming_the_biases() -> None:
    """proxy_label + selection + ecp took proxy_label's Z as the outcome and dropped ecp's Y(T=1)."""
    for combo in (["proxy_label", "selection", "ecp"], ["proxy_label", "ecp"]):
        with pytest.raises(fp.ConfigError, match=r"disagree on the outcome \(proxy_label: Z.*ecp: Y\(T=1\)\)") as info:
            resolve_bias(combo)
        assert '"outcome": "Z"' in str(info.value)  # the fix, as a bias the user can paste


def test_refinements_stay_allowed() -> None:
    assert resolve_bias(["proxy_label", "selection"]).outcome_node == "Z"  # Y is proxy_label's recorded Z
    assert resolve_bias(["selection", "ecp"]).outcome_node == "Y(T=1)"  # the counterfactual of Y
    assert resolve_bias(["proxy_attribute", "selection"]).attribute_node == "B"


def test_the_user_says_which_outcome() -> None:
    cfg = resolve_bias({"combine": ["proxy_label", "selection", "ecp"], "outcome": "Y(T=1)"})
    assert cfg.outcome_node == "Y(T=1)"
    assert combine_biases([resolve_bias("proxy_label"), resolve_bias("ecp")], outcome="Z").outcome_node == "Z"
    with pytest.raises(fp.ConfigError, match=r"outcome='W' is not the outcome of any"):
        resolve_bias({"combine": ["proxy_label", "ecp"], "outcome": "W"})
    with pytest.raises(fp.ConfigError, match=r"drop \['outcome_node'\]"):
        resolve_bias({"combine": ["proxy_label", "ecp"], "outcome_node": "Z"})
    cells = CELLS
    res = fp.bound({"combine": ["proxy_label", "ecp"], "outcome": "Y(T=1)"}, "fpr", cells,
                   D_proxy_label=0.0, D_ecp=0.0)
    observed = cells[(cells.A == 0) & (cells.Y == 0)]
    fpr = observed[observed.P == 1].prob.sum() / observed.prob.sum()
    assert res.lower == pytest.approx(fpr, abs=1e-6) and res.upper == pytest.approx(fpr, abs=1e-6)

"""Determinism, naming, roles and bad input of the bound driver."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, resolve_bias
from fairprobe.core.compiler import compile_program
from fairprobe.exceptions import UnknownPluginError
from fairprobe.testing import RandomSCM

TABLE = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})


def test_same_program_and_bounds_whatever_the_hash_seed() -> None:
    code = (
        "import pandas as pd, fairprobe as fp, hashlib\n"
        "from fairprobe.core.bound import resolve_bias\n"
        "from fairprobe.core.compiler import compile_program\n"
        f"t = fp.ObservedTable.from_probabilities(pd.DataFrame({TABLE.to_dict('list')!r}), given={{'S': 1}})\n"
        "cfg = resolve_bias('proxy_label_and_selection')\n"
        "q = fp.metric('fpr_parity').query(cfg)\n"
        "c = compile_program(cfg, t, q, {'D': 0.05})\n"
        "r = fp.bound(cfg, 'fpr_parity', t, D=0.05)\n"
        "print(hashlib.sha256(c.program.to_text().encode()).hexdigest(), round(r.lower, 7), round(r.upper, 7))\n"
    )
    outs = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        outs.add(out.stdout)
    assert len(outs) == 1


def test_multi_character_names_and_roles_are_honoured() -> None:
    """The same selection model with other node names gives the same bounds."""
    base = resolve_bias("selection")
    renamed = fp.BiasConfig.from_dict({
        "dag_str": "race->recid, race->pred, race->sel, conf->pred, conf->recid, conf->sel, recid->sel",
        "unob": ["conf"], "cond_nodes": ["sel"], "attribute_node": "race", "outcome_node": "recid",
        "prediction_node": "pred", "constraints": ["P(sel = 1) >= 1 - D"],
    })
    t1 = fp.ObservedTable.from_probabilities(TABLE, given={"S": 1})
    t2 = fp.ObservedTable.from_probabilities(TABLE.rename(columns={"A": "race", "Y": "recid", "P": "pred"}),
                                             given={"sel": 1})
    for metric in ("fpr", "ppv_parity", "demographic_parity"):
        a = fp.bound(base, metric, t1, D=0.1)
        b = fp.bound(renamed, metric, t2, D=0.1)
        assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), abs=1e-7)
    # the attribute role is used, not the letter "A": swapping group codes flips the parity sign
    flipped = fp.bound(renamed, fp.metric("fpr_parity", groups=(1, 0)), t2, D=0.1)
    straight = fp.bound(renamed, "fpr_parity", t2, D=0.1)
    # both sides come from SCIP's nonconvex solves, each within SCIP's own tolerances (about 1e-6 in a row,
    # a few 1e-6 in a rate): equal to 1e-5, opposite in sign
    assert flipped.lower == pytest.approx(-straight.upper, abs=1e-5) and straight.upper > 0.04


def test_four_chained_latents_compile_and_solve() -> None:
    cfg = resolve_bias("proxy_label_and_selection")
    assert cfg.dag.latent_projection().c_components() == [["A"], ["P", "Z", "Y", "S"]]
    scm = RandomSCM(cfg, seed=1)
    table = scm.table(["A", "Y", "P"], given={"S": 1})
    D = scm.realised_parameters()["D"]
    res = fp.bound(cfg, "fpr", table, D=D)
    assert res.contains(scm.evaluate(fp.metric("fpr").query(cfg)), tol=1e-6)
    assert res.stats_before["n_variables"] > 4000 > 100 > res.stats_after["n_variables"]


def test_query_string_metric_equals_registered_metric() -> None:
    t = fp.ObservedTable.from_probabilities(TABLE)
    a = fp.bound("proxy_label", "P(P = 1 | Z = 0 & A = 0)", t, D=0.05)
    b = fp.bound("proxy_label", fp.metric("fpr", group=0), t, D=0.05)
    assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), abs=1e-9)
    assert "certified bounds" in a.summary() and a.to_dict()["status"] == "optimal"


@pytest.mark.parametrize(
    ("bias", "exc", "message"),
    [
        (dict(dag_str="A->Y, Y->P, P->A", constraints=[]), fp.ConfigError, r"cycle: A -> Y -> P -> A"),
        (dict(dag_str="A->Y, A->P", constraints=["P(Y = 1) <= D +"]), fp.ConfigError, r"column 16: expected a number"),
        (dict(dag_str="A->Y, A->P", constraints=["P(Q = 1) <= D"]), fp.ConfigError, r"\['Q'\], which are not nodes"),
    ],
)
def test_bad_configs(bias: dict, exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        fp.bound(bias, "fpr", fp.ObservedTable.from_probabilities(TABLE), D=0.1)


def test_table_inconsistent_with_dag() -> None:
    bad = fp.ObservedTable.from_probabilities(TABLE.rename(columns={"P": "pred"}))
    with pytest.raises(fp.DataError, match=r"Table column 'pred' is not a node"):
        fp.bound("proxy_label", "fpr", bad, D=0.1)
    with pytest.raises(fp.DataError, match=r"given=\{'S': 1\}"):
        fp.ObservedTable.from_probabilities(TABLE).validate_against(resolve_bias("selection"))


def test_table_without_selection_column_is_taken_as_selected() -> None:
    plain = fp.bound("selection", "fpr", fp.ObservedTable.from_probabilities(TABLE), D=0.1)
    explicit = fp.bound("selection", "fpr", fp.ObservedTable.from_probabilities(TABLE, given={"S": 1}), D=0.1)
    assert (plain.lower, plain.upper) == pytest.approx((explicit.lower, explicit.upper), abs=1e-9)
    assert plain.upper - plain.lower > 0.05  # selection at D = 0.1 leaves the FPR open


@pytest.mark.parametrize("D", [-0.1, 1.5])
def test_D_outside_unit_interval(D: float) -> None:
    with pytest.raises(fp.ConfigError, match=r"outside \[0, 1\]"):
        fp.bound("proxy_label", "fpr", fp.ObservedTable.from_probabilities(TABLE), D=D)


def test_infeasible_assumptions_raise_with_advice() -> None:
    cfg = {"dag_str": "A->Y, A->P, U->Y, U->P", "unob": ["U"], "constraints": ["P(P = 1) <= D"]}
    with pytest.raises(fp.InfeasibleError, match=r"inconsistent with the bias assumptions.*Increase D"):
        fp.bound(cfg, "fpr", fp.ObservedTable.from_probabilities(TABLE), D=0.1)


def test_unknown_names() -> None:
    t = fp.ObservedTable.from_probabilities(TABLE)
    with pytest.raises(UnknownPluginError, match="Unknown bias 'proxy'"):
        fp.bound("proxy", "fpr", t, D=0.1)
    with pytest.raises(UnknownPluginError, match="Unknown metric 'fpx'"):
        fp.bound("proxy_label", "fpx", t, D=0.1)
    with pytest.raises(fp.ConfigError, match=r"needs \['W'\], which are not nodes of the bias DAG"):
        compile_program(resolve_bias("proxy_label"), t, "P(W = 1)", {"D": 0.1})


def test_time_limit_keeps_bounds_certified() -> None:
    cfg = resolve_bias("proxy_label_and_selection")
    scm = RandomSCM(cfg, seed=7)
    table = scm.table(["A", "Y", "P"], given={"S": 1})
    D = scm.realised_parameters()["D"]
    truth = scm.evaluate(fp.metric("ppv_parity").query(cfg))
    # the global solver (the parity's exact search finishes in a few ms, under any limit worth testing)
    with pytest.warns(RuntimeWarning, match="stopped at a limit"):
        res = BoundProblem(cfg, "ppv_parity", table).solve({"D": D}, time_limit=0.01, lp_fast_path=False)
    assert res.status == "limit"
    assert res.contains(truth, tol=1e-6)


def test_two_processes_give_the_same_bounds() -> None:
    t = fp.ObservedTable.from_probabilities(TABLE, given={"S": 1})
    one = fp.bound("selection", "ppv_parity", t, D=0.05)
    two = fp.bound("selection", "ppv_parity", t, D=0.05, n_jobs=2)
    assert (two.lower, two.upper) == pytest.approx((one.lower, one.upper), abs=1e-9)
    assert two.status == one.status == "optimal"


def test_a_misnamed_sensitivity_value_is_refused_not_dropped() -> None:
    """A D dict keyed by bias names (or a typo such as xxtol=) used to be taken silently, leaving the real
    parameters without a value or the option unused."""
    from fairprobe.datasets import load_paper_table

    table = load_paper_table()
    with pytest.raises(fp.ConfigError, match=r"unknown sensitivity parameter\(s\) \['proxy_label', 'selection'\]; "
                                             r"this bias has \['D_proxy_label', 'D_selection'\]"):
        fp.bound(["proxy_label", "selection"], "fpr_parity", table, D={"proxy_label": 0.02, "selection": 0.02})
    with pytest.raises(fp.ConfigError, match=r"\['xxtol'\]"):
        fp.breakdown("proxy_label", "fpr", table, threshold=0.2, xxtol=0.01, D_max=0.1)


@pytest.mark.parametrize("query", ["-1 * P@(Y = 0 | Y = 0 & A = 0)", "P[Y = 0 | A = 0)", "1 - (P(Y = 0)"])
def test_a_garbled_query_gets_the_parsers_message_not_unknown_metric(query: str) -> None:
    """Text that tries to be a query (found by the fuzz test: '@' typed after P) was looked up as a metric name."""
    frame = pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "P": [0, 1, 1, 0]})
    with pytest.raises(fp.ConfigError, match=r"Cannot parse .* at column \d+"):
        fp.bound("proxy_label", query, frame, D=0.01)

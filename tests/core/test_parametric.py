"""Compile once: the affine update of a program equals a fresh compilation at every D."""

from __future__ import annotations

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, resolve_bias
from fairprobe.core.compiler import compile_program
from fairprobe.core.parametric import ParametricProgram, affine_in_parameters

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})
BIASES = ["selection", "proxy_label", "proxy_attribute", "ecp", "ecp_monotone", "proxy_label_missed_positives",
          "proxy_label_false_positives_no_edge"]


def same_program(a: fp.PolynomialProgram, b: fp.PolynomialProgram) -> None:
    assert [v.name for v in a.variables] == [v.name for v in b.variables]
    assert [c.name for c in a.constraints] == [c.name for c in b.constraints]
    for ca, cb in zip(a.constraints, b.constraints, strict=True):
        keys = set(ca.poly) | set(cb.poly)
        assert max(abs(ca.poly.get(k, 0.0) - cb.poly.get(k, 0.0)) for k in keys) <= 1e-12, ca.name
        assert ca.rhs == pytest.approx(cb.rhs, abs=1e-12), ca.name
        assert ca.sense == cb.sense


@pytest.mark.parametrize("bias", BIASES)
@pytest.mark.parametrize("metric", ["fpr", "fnr_parity"])
def test_affine_update_equals_fresh_compilation(bias: str, metric: str) -> None:
    problem = BoundProblem(bias, metric, CELLS)
    pp = problem.term_programs[0]
    assert pp.affine
    for D in (0.0, 0.013, 0.2, 1.0):
        fresh = compile_program(problem.config, problem.table, problem.metric.query, {"D": D})
        same_program(pp.at({"D": D}).program, fresh.program)


def test_non_affine_constraint_falls_back_to_recompiling() -> None:
    cfg = fp.BiasConfig.from_dict({
        "dag_str": "A->Y, A->P, A->Z, U->P, U->Y, U->Z, Z->Y", "unob": ["U"], "outcome_node": "Z",
        "constraints": ["P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1) >= 1 - D * D"],
        "observed_nodes": ["A", "Y", "P"]})  # Z, the true outcome, is unmeasured
    assert not affine_in_parameters(cfg)
    problem = BoundProblem(cfg, "fpr", CELLS)
    assert not problem.term_programs[0].affine
    res = problem.solve({"D": 0.3})
    ref = fp.bound("proxy_label", "fpr", CELLS, D=0.09)  # same constraint with D**2 = 0.09
    assert (res.lower, res.upper) == pytest.approx((ref.lower, ref.upper), abs=1e-7)


def test_fixed_parameter_change_recompiles() -> None:
    cfg = resolve_bias(["proxy_label", "selection"])
    problem = BoundProblem(cfg, "fpr", CELLS, fixed={"D_selection": 0.02})
    pp: ParametricProgram = problem.term_programs[0]
    assert list(pp.slopes) == ["D_proxy_label"]
    moved = pp.at({"D_proxy_label": 0.05, "D_selection": 0.04})
    fresh = compile_program(problem.config, problem.table, problem.metric.query,
                            {"D_proxy_label": 0.05, "D_selection": 0.04})
    same_program(moved.program, fresh.program)

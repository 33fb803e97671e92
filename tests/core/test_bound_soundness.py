"""Soundness of certified bounds against ground truth from random structural causal models.

For random SCMs on each built-in DAG (random latent laws and structural functions, so random
response-type distributions), the observed table, the true metric value and the realised
sensitivity parameter are computed exactly by :class:`fairprobe.testing.RandomSCM`, which does not
use the compiler. Bounding at the realised ``D`` must contain the truth.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.core.compiler import compile_program
from fairprobe.testing import RandomSCM

OBSERVED = {
    "selection": (["A", "Y", "P"], {"S": 1}),
    "proxy_label": (["A", "Y", "P"], None),
    "ecp": (["A", "T", "Y", "P"], None),
    "proxy_label_and_selection": (["A", "Y", "P"], {"S": 1}),
}
METRICS = ["fpr", "fnr", "ppv", "npv", "selection_rate", "fpr_parity", "fnr_parity", "ppv_parity",
           "demographic_parity"]


def scenario(bias: str, seed: int, concentration: float):
    cfg = resolve_bias(bias)
    nodes, given_event = OBSERVED[bias]
    if cfg.observed_nodes and set(nodes) - set(cfg.observed_nodes):
        # the table records a node the built-in declares unmeasured (ECP's policy T): declare it measured
        cfg = dataclasses.replace(cfg, observed_nodes=list(nodes))
    scm = RandomSCM(cfg, seed=seed, concentration=concentration)
    return cfg, scm, scm.table(nodes, given=given_event)


@pytest.mark.parametrize("bias", sorted(OBSERVED))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate], derandomize=True)
@given(seed=st.integers(0, 10_000), concentration=st.sampled_from([0.3, 1.0, 3.0]),
       metric=st.sampled_from(METRICS), group=st.integers(0, 1))
def test_truth_lies_within_bounds_at_realised_D(bias: str, seed: int, concentration: float, metric: str,
                                                group: int) -> None:
    cfg, scm, table = scenario(bias, seed, concentration)
    # a rate of group ``group``, or a parity metric in the order (group, other)
    m = fp.metric(metric, groups=(group, 1 - group)) if "parity" in metric else fp.metric(metric, group=group)
    try:
        truth = scm.evaluate(m.query(cfg))
    except ZeroDivisionError:
        assume(False)
    # Realistic tables: cells are either 0 or at least 1e-6 (a table of counts has cells >= 1/n);
    # probabilities near 1e-9 sit at floating-point solvers' tolerances.
    cells = table.cells.prob.to_numpy()
    assume(cells[cells > 0].min() >= 1e-6)
    D = scm.realised_parameters()["D"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a time limit keeps bounds certified
        res = fp.bound(cfg, m, table, D=D, time_limit=1)
    assert res.lower - 1e-6 <= truth <= res.upper + 1e-6, (truth, res)
    if res.lower_achieved is not None:
        assert res.lower - 1e-6 <= res.lower_achieved
    if res.upper_achieved is not None:
        assert res.upper_achieved <= res.upper + 1e-6


NESTED_CASES = [(b, m) for b in sorted(OBSERVED) for m in ("fpr", "ppv")] + [
    (b, m) for b in ("proxy_label", "selection") for m in ("fpr_parity", "demographic_parity")]


@pytest.mark.parametrize(("bias", "metric"), NESTED_CASES)
def test_bounds_are_nested_in_D(bias: str, metric: str) -> None:
    cfg, _, table = scenario(bias, seed=11, concentration=1.0)
    previous = None
    for D in (0.0, 0.02, 0.05, 0.1, 0.2):
        try:
            res = fp.bound(cfg, metric, table, D=D)
        except fp.InfeasibleError:
            assert previous is None  # infeasible only below the realised D, never above
            continue
        if previous is not None:
            assert res.lower <= previous.lower + 1e-6
            assert res.upper >= previous.upper - 1e-6
        previous = res
    assert previous.parameters["D"] == 0.2  # the largest D is always feasible


@pytest.mark.parametrize("metric", ["fpr", "fnr", "ppv", "fpr_parity", "demographic_parity"])
@pytest.mark.parametrize("seed", [1, 2])
def test_selection_collapses_to_observed_at_D0(metric: str, seed: int) -> None:
    cfg, _, table = scenario("selection", seed=seed, concentration=1.0)
    # at D = 0 the whole population is selected: the metric is its value on the table itself
    full = fp.BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->Y, U->P", "unob": ["U"],
                                    "constraints": [], "outcome_node": "Y"})
    observed_table = fp.ObservedTable.from_probabilities(table.cells)
    observed = fp.bound(full, metric, observed_table, D=None)
    assert observed.width < 1e-7  # identified without selection
    res = fp.bound(cfg, metric, table, D=0.0)
    assert res.lower == pytest.approx(observed.lower, abs=1e-6)
    assert res.upper == pytest.approx(observed.lower, abs=1e-6)


@pytest.mark.parametrize("bias", ["selection", "proxy_label", "ecp"])
def test_random_feasible_points_stay_inside_bounds(bias: str) -> None:
    """Brute force on the compiled LP: vertices and their mixtures never leave [lower, upper]."""
    cfg, scm, table = scenario(bias, seed=5, concentration=1.0)
    D = min(1.0, scm.realised_parameters()["D"] + 0.05)
    query = fp.metric("fpr", group=0).query(cfg)
    compiled = compile_program(cfg, table, query, {"D": D})
    assert compiled.kind == "linear_fractional"
    prog = compiled.program
    res = fp.bound(cfg, query, table, D=D)
    n = prog.n_variables
    a_ub, b_ub, a_eq, b_eq = [], [], [], []
    for c in prog.constraints:
        row = np.zeros(n)
        for mono, coef in c.poly.items():
            row[mono[0]] += coef
        if c.sense == "==":
            a_eq.append(row)
            b_eq.append(c.rhs)
        elif c.sense == "<=":
            a_ub.append(row)
            b_ub.append(c.rhs)
        else:
            a_ub.append(-row)
            b_ub.append(-c.rhs)
    rng = np.random.default_rng(0)
    vertices = []
    for _ in range(60):
        out = linprog(rng.normal(size=n), A_ub=np.array(a_ub) if a_ub else None, b_ub=b_ub or None,
                      A_eq=np.array(a_eq), b_eq=b_eq, bounds=[(0, 1)] * n, method="highs")
        assert out.status == 0
        vertices.append(out.x)
    values = []
    for k in range(300):
        w = rng.dirichlet(np.ones(3))
        point = sum(wi * vertices[j] for wi, j in zip(w, rng.choice(len(vertices), 3), strict=True))
        if k < len(vertices):
            point = vertices[k]
        assert prog.max_violation(list(point)) < 1e-7
        den = sum(coef * point[m[0]] if m else coef for m, coef in (prog.objective_denominator or {}).items())
        if den > 1e-9:
            values.append(prog.objective_value(list(point)))
    assert values
    assert min(values) >= res.lower - 1e-7 and max(values) <= res.upper + 1e-7
    # the achieved values are attained by feasible points of the program
    assert res.lower_achieved == pytest.approx(res.lower, abs=1e-7)
    assert res.upper_achieved == pytest.approx(res.upper, abs=1e-7)


def test_polynomial_incumbents_are_feasible_and_attain_the_achieved_values() -> None:
    cfg, scm, table = scenario("selection", seed=3, concentration=1.0)
    D = scm.realised_parameters()["D"]
    query = fp.metric("fpr_parity").query(cfg)
    compiled = compile_program(cfg, table, query, {"D": D})
    assert compiled.kind == "polynomial"
    res = fp.bound(cfg, query, table, D=D)
    for side, achieved in ((res.min_result, res.lower_achieved), (res.max_result, res.upper_achieved)):
        assert compiled.program.max_violation(side.incumbent) <= 1e-6
        # the achieved value is the metric at SCIP's point repaired into a model (every row to 1e-9): within
        # SCIP's tolerance of the point's own value, and inside the certified bounds
        assert compiled.program.objective_value(side.incumbent) == pytest.approx(achieved, abs=1e-4)
        assert res.lower <= achieved <= res.upper
    assert res.details["max_violation"] <= 1e-9
    assert res.gap <= 5e-5
    assert math.isfinite(res.lower) and math.isfinite(res.upper)

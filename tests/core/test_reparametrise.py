"""Structural-zero and reciprocal rewrites: exact on known programs, sound against simulated truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.backends.base import SolveOptions
from fairprobe.core.registry import get_backend
from fairprobe.core.reparametrise import reparametrise
from fairprobe.program.model import PolynomialProgram

MEASUREMENT = """
minimize
  x - 0.5*u
subject to
  dist: y + z == 1
  data: x*y == 0.2
  other: x*z + u == 0.3
  budget: x*z <= 0.1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1
  0 <= u <= 1
"""


def solve_both(prog: PolynomialProgram) -> tuple[float, float]:
    be = get_backend("scip")
    opts = SolveOptions(rel_gap=1e-9, abs_gap=1e-9)
    return tuple(be.solve(prog.with_sense(s), opts).objective_bound for s in ("min", "max"))


def test_reciprocal_rewrite_is_linear_and_keeps_the_optimum() -> None:
    prog = PolynomialProgram.from_text(MEASUREMENT)
    rw = reparametrise(prog)
    assert rw is not None and rw.program.max_degree == 1
    # by hand: x = 0.2 w, x*z = 0.2 (w - 1) <= 0.1 so w <= 1.5; u = 0.5 - 0.2 w; objective 0.3 w - 0.25
    assert solve_both(rw.program) == pytest.approx((0.05, 0.2), abs=1e-9)
    assert solve_both(prog) == pytest.approx((0.05, 0.2), abs=1e-6)
    # the point u = 0.3, w = 1 of the new program is y = 1 / w, z = 1 - y, x = 0.2 w of the old one
    assert prog.max_violation({"u": 0.3, "x": 0.2, "y": 1.0, "z": 0.0}) <= 1e-12
    assert rw.map_named({("x", "z"): 2.0, ("u",): 1.0}) == pytest.approx({("inv_y",): 0.4, (): -0.4, ("u",): 1.0})


def test_structural_zero_fixes_a_parameter_and_its_sibling() -> None:
    prog = PolynomialProgram.from_text("""
minimize
  r
subject to
  dist: y0 + y1 == 1
  zero: a*y0 + b*y0 == 0
  d1: a*y1 + c == 0.5
  d2: b*y1 + r == 0.4
bounds
  0 <= a <= 1
  0 <= b <= 1
  0 <= c <= 1
  0 <= r <= 1
  0 <= y0 <= 1
  0 <= y1 <= 1
""")
    rw = reparametrise(prog)
    assert [v.name for v in rw.program.variables] == ["a", "b", "c", "r"]
    # by hand: y0 = 0 and y1 = 1, so d1: a + c = 0.5 and d2: b + r = 0.4; min/max r over b in [0, 1]
    assert sorted(str(c).strip() for c in rw.program.to_text().split("subject to")[1].split("bounds")[0]
                  .strip().splitlines()) == ["d1: a + c == 0.5", "d2: b + r == 0.4"]
    assert solve_both(rw.program) == pytest.approx((0.0, 0.4), abs=1e-9)
    assert rw.program.max_degree == 1
    assert prog.max_violation({"a": 0.1, "b": 0.2, "c": 0.4, "r": 0.2, "y0": 0.0, "y1": 1.0}) <= 1e-12


def test_no_rewrite_when_a_sibling_meets_an_unforced_partner() -> None:
    # y1 * d is not forced to 0: fixing y0 = 0 (y1 = 1) would cut off points with d > 0 and y0 > 0
    prog = PolynomialProgram.from_text("""
minimize
  r
subject to
  dist: y0 + y1 == 1
  zero: a*y0 == 0
  d1: a*y1 + d*y1 + r == 0.5
  d2: d*y0 + c == 0.3
bounds
  0 <= a <= 1
  0 <= c <= 1
  0 <= d <= 1
  0 <= r <= 1
  0 <= y0 <= 1
  0 <= y1 <= 1
""")
    assert reparametrise(prog) is None


def test_no_reciprocal_when_the_parameter_meets_a_non_partner() -> None:
    prog = PolynomialProgram.from_text(MEASUREMENT.replace("other: x*z + u == 0.3", "other: x*z + u*y == 0.3"))
    assert reparametrise(prog) is None


def one_sided_world(k: int, seed: int, variant: str) -> tuple[pd.DataFrame, dict, float]:
    """Observed table, true rates per group and realised D of a one-sided proxy without the edge.

    ``q[a, z, p] = P(Z = z, P = p | A = a)`` is arbitrary (the latent confounder of Z and P); the
    proxy errs on one side only, with a probability that depends on the group alone.
    """
    rng = np.random.default_rng(seed)
    pa = rng.dirichlet(np.full(k, 2.0))
    q = rng.dirichlet(np.ones(4), size=k).reshape(k, 2, 2)
    err = rng.uniform(0.0, 0.4, size=k)
    rows, used = [], 0.0
    for a in range(k):
        law = np.zeros((2, 2, 2))  # [z, y, p]
        if variant == "false_positives":  # Z = 1 => Y = 1; Z = 0 => Y = 1 with prob err
            law[1, 1] = q[a, 1]
            law[0, 1], law[0, 0] = q[a, 0] * err[a], q[a, 0] * (1 - err[a])
            used += pa[a] * q[a, 0].sum() * err[a]
        else:  # Z = 0 => Y = 0; Z = 1 => Y = 0 with prob err
            law[0, 0] = q[a, 0]
            law[1, 0], law[1, 1] = q[a, 1] * err[a], q[a, 1] * (1 - err[a])
            used += pa[a] * q[a, 1].sum() * err[a]
        for y in (0, 1):
            for p in (0, 1):
                rows.append({"A": a, "Y": y, "P": p, "prob": pa[a] * law[:, y, p].sum()})
    rates = {"fpr": q[:, 0, 1] / q[:, 0].sum(axis=1), "fnr": q[:, 1, 0] / q[:, 1].sum(axis=1),
             "ppv": q[:, 1, 1] / q[:, :, 1].sum(axis=1)}
    return pd.DataFrame(rows), rates, float(used)


@pytest.mark.parametrize("variant", ["false_positives", "missed_positives"])
@pytest.mark.parametrize("k", [2, 3])
def test_truth_lies_within_bounds_of_one_sided_proxies(variant: str, k: int) -> None:
    checked = 0
    for seed in range(6):
        table, rates, D = one_sided_world(k, seed, variant)
        for name in ("fpr", "fnr", "ppv"):
            truth = rates[name][0] - rates[name][k - 1]
            res = fp.bound(f"proxy_label_{variant}_no_edge", fp.metric(f"{name}_parity", groups=(0, k - 1)),
                           table, D=D, gap=1e-9)
            assert res.lower - 1e-7 <= truth <= res.upper + 1e-7, (seed, name, res.lower, truth, res.upper)
            checked += 1
        eo = max(abs(rates["fpr"][0] - rates["fpr"][1]), abs(rates["fnr"][0] - rates["fnr"][1]))
        res = fp.bound(f"proxy_label_{variant}_no_edge", fp.metric("equalized_odds", groups=(0, 1)), table, D=D)
        assert res.lower - 1e-7 <= eo <= res.upper + 1e-7, (seed, res.lower, eo, res.upper)
        assert any("1 / P(proxy | latent)" in n for n in res.notes)  # the rewrite really ran
    assert checked == 18


@pytest.mark.parametrize("variant", ["false_positives", "missed_positives"])
@pytest.mark.parametrize("metric", ["fnr_parity", "ppv_parity", "equalized_odds"])
def test_rewrite_agrees_with_the_bilinear_program(variant: str, metric: str) -> None:
    """Same bounds up to the bilinear program's feasibility tolerance, which only widens it."""
    table, _, _ = one_sided_world(2, 11, variant)
    bias = f"proxy_label_{variant}_no_edge"
    new = fp.bound(bias, metric, table, D=0.05)
    old = fp.bound(bias, metric, table, D=0.05, compile_options=fp.CompileOptions(reparametrise=False))
    assert not any("1 / P(proxy | latent)" in n for n in old.notes)
    assert old.lower - 1e-8 <= new.lower <= old.lower + 1e-4
    assert old.upper - 1e-4 <= new.upper <= old.upper + 1e-8


def test_point_identified_rate_is_exact() -> None:
    """Missed positives without the edge: FNR = P(Y = 1, P = 0 | A) / P(Y = 1 | A) exactly (the
    bilinear program was 5e-5 loose here, at the solver's feasibility tolerance)."""
    table, rates, _ = one_sided_world(2, 11, "missed_positives")
    res = fp.bound("proxy_label_missed_positives_no_edge", "fnr_parity", table, D=0.05)
    truth = rates["fnr"][0] - rates["fnr"][1]
    assert res.lower == pytest.approx(truth, abs=1e-8) and res.upper == pytest.approx(truth, abs=1e-8)

"""Built-in biases follow the data's cardinalities: no group, class or counterpart is silently left out.

Each case was observed to narrow the model silently before the constraints were written as
templates (``forall A: ...``, ``P(Z = Y)``, ``P(Y(T=1) != Y(T=0))``) and the latent counterparts
followed their recorded node (``cardinality_of``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem, resolve_bias


def cells(k_a: int = 3, k_y: int = 2, seed: int = 0, extra: dict | None = None) -> pd.DataFrame:
    """A random full-support probability table over A (k_a values), Y (k_y), P (binary)."""
    rng = np.random.default_rng(seed)
    names = ["A", "Y", "P", *(extra or {})]
    sizes = [k_a, k_y, 2, *(extra or {}).values()]
    rows = list(itertools.product(*[range(s) for s in sizes]))
    return pd.DataFrame(rows, columns=names).assign(prob=rng.dirichlet(np.full(len(rows), 4.0)))


def observed_fpr(table: pd.DataFrame, group: int) -> float:
    g = table[(table.A == group) & (table.Y == 0)]
    return g[g.P == 1].prob.sum() / g.prob.sum()


def test_selective_labels_constrains_every_group() -> None:
    """Group 2's outcome gap is bounded by D like groups 0 and 1 (it was free: 0.41 wide against 0.03)."""
    table = cells(extra={"S": 2, "O": 2}).query("not (O == 1 and S == 0)")
    table = table[~((table.S == 1) & (table.O != table.Y))].drop(columns="Y")
    table = table.assign(prob=table.prob / table.prob.sum())
    config = BoundProblem("selective_labels", fp.metric("fpr", group=2), table).config
    texts = [str(c.expr) for c in config.parsed_constraints]
    assert len(texts) == 2 + 2 * 3  # two structural rows and a pair per group
    widths = [fp.bound("selective_labels", fp.metric("fpr", group=g), table, D=0.02).width
              for g in range(3)]
    assert max(widths) < 2.5 * min(widths)


def test_proxy_attribute_true_attribute_has_every_recorded_value() -> None:
    table = cells()
    problem = BoundProblem("proxy_attribute", fp.metric("fpr_parity", groups=(0, 2)), table)
    assert problem.config.cardinality("B") == 3
    res = fp.bound("proxy_attribute", fp.metric("fpr_parity", groups=(0, 2)), table, D=0.0)
    truth = observed_fpr(table, 0) - observed_fpr(table, 2)
    assert res.lower == pytest.approx(truth, abs=1e-6) and res.upper == pytest.approx(truth, abs=1e-6)


def three_class_proxy() -> fp.BiasConfig:
    return fp.BiasConfig.from_dict({**resolve_bias("proxy_label").to_dict(), "cardinalities": {"Y": 3}})


def test_proxy_label_true_outcome_follows_a_three_class_outcome() -> None:
    """Z gets Y's three classes; at D = 0 every metric is the observed one (it was infeasible)."""
    table = cells(k_a=2, k_y=3)
    config = three_class_proxy()
    assert config.cardinality("Z") == 3
    query = "P(P = 1 | Z = 2 & A = 1)"
    res = fp.bound(config, query, table, D=0.0)
    g = table[(table.A == 1) & (table.Y == 2)]
    assert res.lower == pytest.approx(g[g.P == 1].prob.sum() / g.prob.sum(), abs=1e-6)
    assert res.width < 1e-6
    wide = fp.bound(config, query, table, D=0.05)
    assert 0 < wide.width < 0.9


def test_ecp_constraint_covers_every_outcome_class() -> None:
    """P(Y(T=1) != Y(T=0)) <= D sums over all classes (class 2 was left free: FPR parity was [-1, 1])."""
    rng = np.random.default_rng(3)
    rows = list(itertools.product(range(2), range(3), range(2), range(2)))
    table = pd.DataFrame(rows, columns=["A", "Y", "P", "T"]).assign(prob=rng.dirichlet(np.full(len(rows), 4.0)))
    builtin = fp.BiasConfig.from_dict({**resolve_bias("ecp").to_dict(), "cardinalities": {"Y": 3},
                                       "observed_nodes": ["A", "Y", "P", "T"]})  # the table records T
    by_hand = " + ".join(f"P(Y(T=1) = {a} & Y(T=0) = {b})" for a in range(3) for b in range(3) if a != b)
    explicit = fp.BiasConfig.from_dict({**builtin.to_dict(), "constraints": [f"{by_hand} <= D"]})
    res = fp.bound(builtin, "fpr_parity", table, D=0.02)
    ref = fp.bound(explicit, "fpr_parity", table, D=0.02)
    assert (res.lower, res.upper) == pytest.approx((ref.lower, ref.upper), abs=1e-7)
    assert res.width < 1.0

"""selective_labels with many groups: the edge A -> O is exact and keeps the program small.

The recorded outcome O reads S and Y only, so A was not read by every member of the component
{P, S, Y, O}; the engine could not slice it by group, and six COMPAS races were refused (more
than 2,000,000 response types). The bias's first two constraints pin O = S * Y in every group, so
letting O read A admits exactly the same distributions; these tests compare the two DAGs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.core.config import BiasConfig


def selected(groups: list[str], n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    race = rng.choice(groups, n, p=np.linspace(2, 1, len(groups)) / np.linspace(2, 1, len(groups)).sum())
    y = (rng.random(n) < 0.3 + 0.05 * (race == groups[0])).astype(int)
    pred = np.where(rng.random(n) < 0.7, y, 1 - y)
    s = (rng.random(n) < np.where(pred == 1, 0.5, 0.9)).astype(int)
    return pd.DataFrame({"race": race, "pred": pred, "S": s, "O": s * y})


def without_edge() -> BiasConfig:
    config = resolve_bias("selective_labels")
    data = config.to_dict()
    data["dag_str"] = ", ".join(e.strip() for e in data["dag_str"].split(",") if e.strip() != "A -> O")
    return BiasConfig.from_dict(data)


def test_the_builtin_dag_has_the_edge_and_says_why() -> None:
    config = resolve_bias("selective_labels")
    assert ("A", "O") in config.dag.edges
    assert "pin O = S * Y" in config.description
    assert ("A", "O") not in without_edge().dag.edges


@pytest.mark.parametrize("metric", ["fpr_parity", "ppv_parity", "equalized_odds", "demographic_parity"])
@pytest.mark.parametrize("D", [0.0, 0.05])
def test_the_edge_changes_no_bound(metric: str, D: float) -> None:
    table = fp.ObservedTable.from_frame(selected(["a", "b", "c"]), A="race", P="pred", S="S", O="O")
    m = fp.metric(metric, groups=("a", "c"))
    new = fp.bound("selective_labels", m, table, D=D)
    old = fp.bound(without_edge(), m, table, D=D)
    assert new.status == old.status == "optimal"
    assert (new.lower, new.upper) == pytest.approx((old.lower, old.upper), abs=1e-5)


def test_six_groups_are_bounded() -> None:
    races = ["African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other"]
    table = fp.ObservedTable.from_frame(selected(races, n=6000), A="race", P="pred", S="S", O="O")
    res = fp.bound("selective_labels", fp.metric("fpr_parity", groups=("African-American", "Caucasian")), table,
                   D=0.02)
    # without A -> O the component is sliced by A with O's law glued across the six slices (once refused:
    # over 2,000,000 response types); the edge changes no bound, as at three groups
    glued = fp.bound(without_edge(), fp.metric("fpr_parity", groups=("African-American", "Caucasian")), table, D=0.02)
    assert any("glue rows" in n for n in glued.notes)
    assert (glued.lower, glued.upper) == pytest.approx((res.lower, res.upper), abs=1e-7)
    at_zero = fp.bound("selective_labels", fp.metric("fpr_parity", groups=("African-American", "Caucasian")),
                       table, D=0.0)
    assert res.status == "optimal" and res.lower <= at_zero.lower + 1e-7 and at_zero.upper <= res.upper + 1e-7
    every = fp.bound("selective_labels", fp.metric("fpr_parity", groups="all"), table, D=0.02)
    assert every.status == "optimal" and every.upper >= max(abs(res.lower), abs(res.upper)) - 1e-7

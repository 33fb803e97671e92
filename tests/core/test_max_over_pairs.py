"""Max over all pairs of groups: family windows and pruned pairs give the same certified bounds.

``fpr_parity`` with ``groups="all"`` and equalised odds are maxima of rate ranges. The driver
bounds them from each rate's own range, solves only the pairs that can still decide the upper
bound, and writes the lower bound as one program with every family's rates in a window. These
tests check that against the previous formulation (every pair solved, one row pair per term)
and against the true value of random structural models.
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from tests.core.test_scale_soundness import proxy_model


def true_rates(rng: np.random.Generator, k: int) -> tuple[pd.DataFrame, float, dict[str, list[float]]]:
    """A random proxy-label model with ``k`` groups: cells, true P(Z != Y), true FPR and FNR per group."""
    cells, disagree, fpr = proxy_model(rng, k, 1, False)
    return cells, disagree, {"fpr": [fpr[a] for a in range(k)]}


#: Every pair solved on its own and one row pair per term in the joint program.
PREVIOUS_FORMULATION = fp.CompileOptions(windows=False, rate_ranges=False)


def _cells(seed: int, k: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(4 * k, 2.0))
    rows = [dict(A=a, Y=y, P=p, prob=probs[4 * a + 2 * y + p])
            for a, y, p in itertools.product(range(k), range(2), range(2))]
    return pd.DataFrame(rows)


CASES = [(bias, metric, seed) for bias in ("proxy_label", "selection") for metric in ("fpr_parity", "equalized_odds")
         for seed in (1, 2)]


@pytest.mark.parametrize(("bias", "metric", "seed"), CASES)
def test_same_bounds_as_every_pair_solved(bias: str, metric: str, seed: int) -> None:
    cells = _cells(seed, 3)
    data = fp.ObservedTable.from_probabilities(cells, given={"S": 1}) if bias == "selection" else cells
    tight = {"numerics/feastol": 1e-9}  # the default 1e-6 row tolerance moves both by a few 1e-6
    new = fp.bound(bias, fp.metric(metric, groups="all"), data, D=0.05, time_limit=60, solver_options=tight)
    old = fp.bound(bias, fp.metric(metric, groups="all"), data, D=0.05, time_limit=60, solver_options=tight,
                   compile_options=PREVIOUS_FORMULATION)
    assert "pairs_solved" in new.details and "pairs_solved" not in old.details  # both paths really ran
    assert new.status == "optimal" and new.gap <= 1e-5
    if old.status == "optimal":
        assert new.lower == pytest.approx(old.lower, abs=1e-6) and new.upper == pytest.approx(old.upper, abs=1e-6)
    else:  # the previous formulation stopped early: its certified interval must contain the sharp one
        assert old.lower - 1e-6 <= new.lower and new.upper <= old.upper + 1e-6


def test_pairs_that_cannot_decide_the_upper_bound_are_skipped() -> None:
    # Groups far apart in FPR: only the extreme pairs can attain the largest gap.
    rows = []
    for a, fpr in enumerate([0.1, 0.15, 0.2, 0.5, 0.55, 0.9]):
        for y, p in itertools.product(range(2), range(2)):
            rate = fpr if y == 0 else 0.7
            rows.append(dict(A=a, Y=y, P=p, prob=(rate if p else 1 - rate) / 12))
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), pd.DataFrame(rows), D=0.0)
    assert res.lower == pytest.approx(0.8, abs=1e-6) and res.upper == pytest.approx(0.8, abs=1e-6)
    assert res.details["pairs_solved"] < res.details["pairs_total"] == 30


@pytest.mark.parametrize("k", [3, 4, 6])
@pytest.mark.parametrize("rep", range(5))
def test_true_max_gap_inside_certified_bounds(k: int, rep: int) -> None:
    seed = zlib.crc32(f"max-over-pairs-{k}-{rep}".encode())
    cells, disagree, rates = true_rates(np.random.default_rng(seed), k)
    truth = max(rates["fpr"]) - min(rates["fpr"])
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), cells, D=min(disagree + 1e-9, 1.0),
                   time_limit=60)
    assert res.lower - 1e-6 <= truth <= res.upper + 1e-6, (res.lower, truth, res.upper, res.status)


@pytest.mark.slow
def test_compas_all_races_same_as_every_pair_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.datasets import load_compas

    frame = load_compas().frame.assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    table = fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")
    data = fp.ObservedTable(table.cells, given={"S": 1}, categories=table.categories)
    tight = {"numerics/feastol": 1e-9}  # tiny groups magnify the default 1e-6 row tolerance in their rates
    new = fp.bound("selection", fp.metric("fpr_parity", groups="all"), data, D=0.05, solver_options=tight)
    old = fp.bound("selection", fp.metric("fpr_parity", groups="all"), data, D=0.05, solver_options=tight,
                   compile_options=PREVIOUS_FORMULATION)
    assert new.status == old.status == "optimal"
    assert new.lower == pytest.approx(old.lower, abs=1e-6) and new.upper == pytest.approx(old.upper, abs=1e-6)
    assert new.details["pairs_solved"] < new.details["pairs_total"]

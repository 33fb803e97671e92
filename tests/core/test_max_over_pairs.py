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


def _cells(seed: int, k: int, concentration: float = 2.0) -> pd.DataFrame:
    probs = np.random.default_rng(seed).dirichlet(np.full(4 * k, concentration))
    return pd.DataFrame([{"A": a, "Y": y, "P": p, "prob": probs[4 * a + 2 * y + p]}
                         for a in range(k) for y in range(2) for p in range(2)])


class _Youden:
    """A plugin metric whose family rates are sums of two rates (range [0, 2]), over three groups."""

    def label(self, config) -> str:
        return "youden gap"

    @staticmethod
    def rate(a: int) -> str:
        return f"P(P = 1 | Z = 1 & A = {a}) + P(P = 0 | Z = 0 & A = {a})"

    def max_abs_terms(self, config) -> list[str]:
        return [f"{self.rate(a)} - ({self.rate(b)})" for a, b in itertools.combinations(range(3), 2)]

    def max_abs_families(self, config) -> list[list[str]]:
        return [[self.rate(a) for a in range(3)]]


def _first_pair_only():
    base = type(fp.metric("fpr_parity", groups="all"))

    class FirstPairOnly(base):  # families name three groups, the terms compare only the first two
        def max_abs_terms(self, config):
            return super().max_abs_terms(config)[:1]

    return FirstPairOnly(groups="all")


def _fnr_terms_first():
    base = type(fp.metric("equalized_odds", groups="all"))

    class FnrFirst(base):  # the terms name the second family first: the windows come in another order
        def max_abs_terms(self, config):
            terms = super().max_abs_terms(config)
            return terms[1::2] + terms[0::2]

    return FnrFirst(groups="all")


@pytest.mark.parametrize(("make", "seed", "concentration", "D"),
                         [(_Youden, 0, 2.0, 0.05), (_Youden, 1, 0.5, 0.05), (_first_pair_only, 5, 2.0, 0.05),
                          (_fnr_terms_first, 3, 2.0, 0.05)])
def test_plugin_families_bound_what_their_terms_bound(make, seed: int, concentration: float, D: float) -> None:
    """Families whose rates are not probabilities, that name more pairs than the terms, or that the terms name in
    another order: the bound is the terms' own (which the family ranges may only reach, never cut off)."""
    from fairprobe.core.engine import BoundProblem

    table = fp.ObservedTable.from_probabilities(_cells(seed, 3, concentration))
    ours = BoundProblem("proxy_label", make(), table).solve({"D": D}, progress=False)
    terms = BoundProblem("proxy_label", make(), table,
                         compile_options=fp.CompileOptions(rate_ranges=False)).solve({"D": D}, progress=False)
    # the upper ends come from exact searches; the lower ends from SCIP (its tolerance)
    assert ours.upper == pytest.approx(terms.upper, abs=1e-9)
    assert ours.lower <= terms.lower_achieved + 1e-9 and terms.lower <= ours.lower_achieved + 1e-9
    assert ours.lower == pytest.approx(terms.lower, abs=1e-5)

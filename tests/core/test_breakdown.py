"""Breakdown points against closed forms and brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairprobe as fp
from fairprobe.datasets import load_paper_table

CELLS = load_paper_table()  # the seed paper's COMPAS table, bundled
P = CELLS.set_index(["A", "Y", "P"])["prob"]


@pytest.mark.parametrize("t", [0.1, 0.15, 0.2])
def test_breakdown_matches_closed_form(t: float) -> None:
    # missed positives, group 0: lower FPR(D) = (p01 - D) / (N0 - D) for D <= p01, so the
    # conclusion "FPR_0 > t" breaks at D* = (p01 - t N0) / (1 - t).
    p00, p01 = P[0, 0, 0], P[0, 0, 1]
    exact = (p01 - t * (p00 + p01)) / (1 - t)
    res = fp.breakdown("proxy_label_missed_positives", fp.metric("fpr", group=0), CELLS, threshold=t, xtol=1e-5)
    assert res.claim == f"metric > {t:g}"
    assert exact <= res.value <= exact + 1e-5
    assert res.below.lower > t >= res.above.lower
    assert "breakdown point" in res.summary()


def test_breakdown_infinite_and_zero() -> None:
    # demographic parity does not involve the outcome: proxy labels cannot move it
    res = fp.breakdown("proxy_label", "demographic_parity", CELLS, tolerance=0.05)
    assert math.isinf(res.value) and "parity holds" in res.claim
    res = fp.breakdown("proxy_label", "demographic_parity", CELLS, threshold=0.0322)
    assert res.value == 0.0 or res.claim.startswith("metric")
    straddle = fp.breakdown("proxy_label", "demographic_parity", CELLS, threshold=float(
        fp.bound("proxy_label", "demographic_parity", CELLS, D=0).lower))
    assert straddle.value == 0.0 and "undetermined" in straddle.claim


def test_breakdown_agrees_with_a_sweep() -> None:
    res = fp.breakdown("selection", "fpr_parity", CELLS, xtol=1e-4)
    grid = np.linspace(0, 0.05, 26)
    frame = fp.sensitivity("selection", "fpr_parity", CELLS, D=grid, progress=False).to_frame()
    flipped = frame[frame.upper >= 0].D
    assert res.claim == "metric < 0"
    assert flipped.min() - 0.002 - 1e-4 <= res.value <= flipped.min() + 1e-4


def test_breakdown_input_errors() -> None:
    with pytest.raises(fp.ConfigError, match="either threshold= or tolerance="):
        fp.breakdown("selection", "fpr", CELLS, threshold=0.1, tolerance=0.1)
    with pytest.raises(fp.ConfigError, match="parameter="):
        fp.breakdown(["proxy_label", "selection"], "fpr", CELLS)
    res = fp.breakdown(["proxy_label", "selection"], "fpr_parity", CELLS, parameter="D_selection",
                       D_proxy_label=0.0)
    alone = fp.breakdown("selection", "fpr_parity", CELLS)
    assert res.value == pytest.approx(alone.value, abs=2e-4)

"""Multiplicity measures on hand-computed matrices."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fairprobe as fp
from fairprobe.plugins.rashomon import ambiguity_curve, conflict_ratio, delta_ambiguity, rashomon_distance

P = np.array([[0, 1, 1, 0],
              [0, 0, 1, 1],
              [0, 1, 0, 1],
              [0, 1, 1, 0],
              [0, 1, 1, 1]])  # columns: n1 = 0, 4, 4, 3 of 5 models


def test_conflict_ratio_by_hand() -> None:
    np.testing.assert_allclose(conflict_ratio(P), [0.0, 0.2, 0.2, 0.4])
    np.testing.assert_allclose(conflict_ratio(P.astype(bool)), [0.0, 0.2, 0.2, 0.4])
    # three classes: 1 - max share (column 0: labels 0, 1, 2, 2 -> 1 - 2/4)
    np.testing.assert_allclose(conflict_ratio([[0, 2], [1, 2], [2, 2], [2, 1]]), [0.5, 0.25])


def test_delta_ambiguity_and_curve() -> None:
    assert delta_ambiguity(P, 0.0) == 0.75  # standard ambiguity: any disagreement
    assert delta_ambiguity(P, 0.2) == 0.25  # strict inequality
    assert delta_ambiguity(P, 0.4) == 0.0
    _, curve = ambiguity_curve(P, [0.0, 0.1, 0.3, 0.5])
    np.testing.assert_allclose(curve, [0.75, 0.75, 0.25, 0.0])


def test_standard_ambiguity_is_monotone_in_the_models() -> None:
    rng = np.random.default_rng(0)
    models = (rng.random((60, 500)) < rng.random(500)).astype(int)
    values = [delta_ambiguity(models[:k], 0.0) for k in range(1, 61)]
    assert all(b >= a for a, b in itertools.pairwise(values))


def test_distance_by_hand() -> None:
    Q = np.array([[0, 1, 0, 0], [0, 1, 0, 0]])  # conflict ratios 0, 0, 0, 0
    assert rashomon_distance(P, Q) == pytest.approx((0 + 0.2 + 0.2 + 0.4) / 4)
    assert rashomon_distance(P, P) == 0.0


def test_bad_input() -> None:
    with pytest.raises(fp.DataError, match="2-D"):
        conflict_ratio([0, 1, 1])
    with pytest.raises(fp.DataError, match="empty"):
        conflict_ratio(np.zeros((0, 5)))
    with pytest.raises(fp.DataError, match="different numbers of points"):
        rashomon_distance(P, P[:, :3])

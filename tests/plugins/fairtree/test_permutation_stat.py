"""The permutation loop's maximum statistic is exactly the full statistic's maximum."""

from __future__ import annotations

import numpy as np
import pytest

from fairprobe.plugins.fairtree.tests import PermutationSpec, _max_stat, _prefix, _Prepared


@pytest.mark.parametrize("n_levels", [2, 7, 300])
@pytest.mark.parametrize("nominal", [False, True])
def test_max_stat_equals_stat(n_levels: int, nominal: bool) -> None:
    rng = np.random.default_rng(n_levels)
    n = 600
    codes = rng.integers(0, n_levels, n)
    pr = _Prepared(PermutationSpec(codes, n_levels, nominal and n_levels <= 20, min_size=10), n)
    L = rng.normal(size=n) ** 2
    block = rng.permuted(np.broadcast_to(L, (64, n)), axis=1)
    prefix = _prefix(block)
    full = pr.stat(prefix, float(L.sum()))[0]
    fast = _max_stat(pr, prefix, float(L.sum()))
    assert np.array_equal(full, fast)  # bit for bit: the p-values cannot change


def test_no_admissible_boundary_gives_minus_infinity() -> None:
    pr = _Prepared(PermutationSpec(np.r_[np.zeros(5, int), np.ones(95, int)], 2, False, min_size=10), 100)
    assert np.all(_max_stat(pr, _prefix(np.ones((3, 100))), 100.0) == -np.inf)

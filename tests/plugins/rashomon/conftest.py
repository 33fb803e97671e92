"""Fixtures shared by the multiplicity tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    """The 30-row problem of the exact linear tests (x0 predictive, amounts in the thousands)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + rng.normal(0, 1, 30) > 0).astype(int)
    path = tmp_path / "small.csv"
    pd.DataFrame({"x0": X[:, 0], "amount": np.round(1000 + 5000 * np.abs(X[:, 1])), "y": y}).to_csv(path, index=False)
    return path

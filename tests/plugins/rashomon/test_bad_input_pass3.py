"""Bad-input pass 3, T2: a total time limit that has run out is a clear error, not SCIP's ValueError."""

from __future__ import annotations

import numpy as np

from fairprobe.exceptions import SolverError
from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity


def test_tiny_total_time_limit_is_a_clear_error() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    # SCIP stops at once: either a clear "raise the limit" error, or a fit whose points are undecided;
    # before the fix, a negative remaining time reached SCIP and raised its raw ValueError
    try:
        fitted = ExactLinearMultiplicity(total_time_limit=1e-4).fit(X, y)
    except SolverError as err:
        assert "raise time_limit / total_time_limit" in str(err)
    else:
        assert fitted.result_.details.get("stopped_by") == "total_time_limit"

"""Bad-input pass 3: T2, a total time limit that has run out is a clear error, not SCIP's ValueError;
T1, a TreeFARMS penalty that crashes the native library is refused first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fairprobe.exceptions import ConfigError, SolverError
from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity
from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet


def test_tiny_total_time_limit_is_a_clear_error() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    # SCIP stops at once: either a clear "raise the limit" error, or a fit whose points are undecided;
    # before the fix, a negative remaining time reached SCIP and raised its raw ValueError
    try:
        fitted = ExactLinearMultiplicity(total_time_limit=1e-4).fit(X, y_true=y)
    except SolverError as err:
        assert "raise time_limit / total_time_limit" in str(err)
    else:
        assert fitted.result_.details.get("stopped_by") == "total_time_limit"


# -- T1: a penalty per leaf at which TreeFARMS segfaults is refused before the native call ---------

@pytest.mark.parametrize("regularization", [0.5, 0.54, 1.0])
def test_a_penalty_per_leaf_of_half_or_more_is_refused(regularization: float) -> None:
    example = TreeRashomonSet.example()
    trees = TreeRashomonSet(regularization=regularization, depth_budget=3, rashomon_bound_adder=0.05)
    with pytest.raises(ConfigError, match=r"regularization \(lambda\) = .* is too large: at lambda >= 0.5"):
        trees.fit(example.data, **example.roles)


def test_the_command_line_exits_2_with_a_message_instead_of_segfaulting(tmp_path: Path) -> None:
    """Run in a child process: before the fix ``--lambda 1`` killed the interpreter (exit 139)."""
    pytest.importorskip("treefarms", reason='treefarms is not installed (pip install "fairprobe[trees]")')
    data = tmp_path / "trees.csv"
    TreeRashomonSet.example().data.to_csv(data, index=False)
    run = subprocess.run([sys.executable, "-m", "fairprobe.cli", "multiplicity-trees", "--data", str(data),
                          "--target", "y", "--lambda", "1", "--depth-budget", "3"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, (run.returncode, run.stderr[-500:])
    assert "too large" in run.stderr and "below 0.5" in run.stderr

"""The joint programs' global solve (the lower bound of equalised odds): SCIP's settings for it."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.backends.base import SolveOptions
from fairprobe.backends.scip import JOINT_GAP_SHARE, PROFILES, TIGHT_FEASTOL, profiled
from fairprobe.core.solving import joint_solve_options as _joint_options


def test_scip_gets_bound_tightening_and_a_tenth_of_the_gap() -> None:
    options = SolveOptions(rel_gap=1e-6, abs_gap=1e-5, solver_options={"limits/nodes": 10})
    joint = profiled(_joint_options(options))
    assert joint.solver_options == {"limits/nodes": 10, "numerics/feastol": TIGHT_FEASTOL,
                                    "propagating/obbt/freq": 1}
    assert joint.rel_gap == pytest.approx(1e-6 * JOINT_GAP_SHARE)
    assert joint.abs_gap == pytest.approx(1e-5 * JOINT_GAP_SHARE)
    assert JOINT_GAP_SHARE < 1 and joint.profiles == ()


def test_a_callers_own_scip_settings_stand_and_the_engine_names_no_parameters() -> None:
    mine = SolveOptions(solver_options={"propagating/obbt/freq": 0, "numerics/feastol": 1e-6})
    joint = _joint_options(mine)
    assert joint.solver_options == mine.solver_options and joint.profiles == ("joint",)  # core: a name only
    assert profiled(joint).solver_options == {"propagating/obbt/freq": 0, "numerics/feastol": 1e-6}
    assert set(PROFILES["joint"]) == {"numerics/feastol", "propagating/obbt/freq"}


def _cells(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"A": a, "Y": y, "P": p} for a in (0, 1) for y in (0, 1) for p in (0, 1)]
    return pd.DataFrame(rows).assign(prob=rng.dirichlet(np.ones(8)) * 0.96 + 0.005)


@pytest.mark.parametrize("seed", [1, 3, 4])
def test_the_joint_lower_bound_is_the_one_without_bound_tightening(seed: int) -> None:
    """Equalised odds under proxy labels with selection (the programs SCIP proves slowest): the lower
    bound with tightening at every node equals the one with SCIP's root-only default to its gap, and
    lies below the value of a model verified to 1e-9."""
    table = fp.ObservedTable.from_probabilities(_cells(seed), given={"S": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tight = fp.bound("proxy_label_and_selection", "equalized_odds", table, D=0.05)
        root = fp.bound("proxy_label_and_selection", "equalized_odds", table, D=0.05,
                        solver_options={"propagating/obbt/freq": 0})
    assert tight.status == root.status == "optimal"
    assert tight.lower == pytest.approx(root.lower, abs=1e-6)
    # (a caller's own SCIP settings also send the upper bound's pairs to SCIP, solved to its gap)
    assert tight.upper == pytest.approx(root.upper, abs=2e-5) and tight.upper <= root.upper + 1e-9
    assert tight.lower_achieved is not None and tight.lower <= tight.lower_achieved + 1e-9
    assert tight.lower > 0.01  # a program whose lower bound SCIP has to prove (not the trivial 0)

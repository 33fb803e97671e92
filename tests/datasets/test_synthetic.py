"""The synthetic lending scenario: every injected problem has the documented size, and nothing else."""

from __future__ import annotations

import numpy as np
import pytest

import fairprobe as fp
from fairprobe.datasets import make_lending_scenario


@pytest.fixture(scope="module")
def scenario():
    return make_lending_scenario(100_000, seed=11)


def test_proxy_noise_only_in_group_1(scenario) -> None:
    f = scenario.frame
    negatives = f[f.default_true == 0]
    flipped = negatives.default != negatives.default_true
    assert flipped[negatives.group == 0].sum() == 0
    assert flipped[negatives.group == 1].mean() == pytest.approx(0.12, abs=0.005)
    assert (f.default >= f.default_true).all()  # defaults are only ever added


def test_selection_depends_on_risk(scenario) -> None:
    f = scenario.frame
    assert 0.8 < f.selected.mean() < 0.92
    assert f[f.selected == 0].true_risk.mean() > f[f.selected == 1].true_risk.mean() + 0.01
    audit = scenario.audit_frame
    assert len(audit) == f.selected.sum()
    assert not {"default_true", "selected", "true_risk"} & set(audit.columns)


def test_income_model_bias_and_variance(scenario) -> None:
    f = scenario.frame
    resid = np.log(f.income_estimate) - np.log(f.income)
    young, none = f.age < 25, f.education == "none"
    assert resid[young & ~none].mean() == pytest.approx(0.25, abs=0.01)
    assert abs(resid[~young & ~none].mean()) < 0.005
    assert resid[~young & none].std() == pytest.approx(0.3, abs=0.01)
    assert resid[~young & ~none].std() == pytest.approx(0.1, abs=0.005)


def test_scores_calibrated_except_in_the_east(scenario) -> None:
    f = scenario.frame
    east = f.region == "east"
    # the score is the true risk outside the east, shifted by +1.5 on the logit scale inside it
    assert np.allclose(f.score[~east], f.true_risk[~east])
    logit = np.log(f.score / (1 - f.score)) - np.log(f.true_risk / (1 - f.true_risk))
    assert np.allclose(logit[east], 1.5)
    assert (f.decision == (f.score >= 0.3)).all()


def test_reproducible_and_small_n_refused() -> None:
    a, b = make_lending_scenario(500, seed=4), make_lending_scenario(500, seed=4)
    assert a.frame.equals(b.frame) and not a.frame.equals(make_lending_scenario(500, seed=5).frame)
    with pytest.raises(fp.DataError, match="at least 100"):
        make_lending_scenario(50)

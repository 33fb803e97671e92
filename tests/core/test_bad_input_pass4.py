"""Bad-input pass 4 in the causal drivers and results (issue 44: items 2, 3, 10, 11, 12, 14).

* an empty group never yields a bound or an "achieved" value outside the metric's own range;
* a sweep's conclusion keeps its sampling caveat when a breakdown point is given;
* interval options: levels below 0.5, absurd resamples, numpy scalars, a seed without an interval.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.core.registry import registered
from fairprobe.core.uncertainty import IntervalOptions, critical_value, interval_options
from fairprobe.exceptions import ConfigError, FairprobeError
from tests.bad_input import run_cli

# -- item 2: an empty group ------------------------------------------------------------------------
#: the issue's table: one cell of group 0 selected, group 1 absent from the selected units
ISSUE = pd.DataFrame({"A": [0] * 4 + [1] * 4, "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "n": [0, 100, 0, 0, 0, 0, 0, 0]})
#: group 0 with every cell, group 1 empty
EMPTY_1 = pd.DataFrame({"A": [0] * 4 + [1] * 4, "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                        "n": [30, 10, 10, 50, 0, 0, 0, 0]})
#: the same for selective labels (A, P, S, O; O = 0 where S = 0)
EMPTY_1_SELECTIVE = pd.DataFrame({"A": [0] * 6 + [1] * 6, "P": [0, 0, 0, 1, 1, 1] * 2, "S": [0, 1, 1] * 4,
                                  "O": [0, 0, 1] * 4, "n": [20, 15, 5, 10, 10, 40] + [0] * 6})
SELECTED = {"selection", "proxy_label_and_selection"}
#: the values each built-in metric can take in any model at all
RANGES = {"accuracy": (0, 1), "counterfactual_fairness": (0, 1), "equalized_odds": (0, 1),
          **{m: (0, 1) for m in ("fnr", "fpr", "npv", "ppv", "selection_rate", "tnr", "tpr")},
          **{m: (-1, 1) for m in ("accuracy_parity", "demographic_parity", "fnr_parity", "fpr_parity", "npv_parity",
                                  "ppv_parity", "tnr_parity", "tpr_parity", "spurious_effect", "total_effect")}}
#: how far outside the range a value may lie and still be read as its end: a reported model's rows hold to
#: 1e-5 (bound.ACHIEVED_TOLERANCE) and a global solver's certified bound is outward by its tolerance (SCIP put
#: spurious_effect's upper end at 1 + 1.1e-6); the old wrong answers were off by 0.2 to 1
SLACK = 1e-5


def _empty_group_table(bias: str) -> fp.ObservedTable:
    if bias == "selective_labels":
        return fp.ObservedTable.from_counts(EMPTY_1_SELECTIVE)
    if bias in SELECTED:
        return fp.ObservedTable.from_counts(EMPTY_1, given={"S": 1})
    return fp.ObservedTable.from_counts(EMPTY_1)


def _assert_in_range(res: fp.BoundResult, low: float, high: float) -> None:
    assert low - SLACK <= res.lower <= res.upper <= high + SLACK, (res.lower, res.upper)
    for achieved in (res.lower_achieved, res.upper_achieved):
        if achieved is not None:
            assert low - SLACK <= achieved <= high + SLACK, achieved
            assert res.lower - SLACK <= achieved <= res.upper + SLACK, (achieved, res.lower, res.upper)


@pytest.mark.parametrize("bias", ["proxy_label_and_selection", "selection"])
def test_issue_accuracy_parity_of_a_group_without_selected_units(bias: str) -> None:
    # the old code: lower = lower_achieved = -2.0, status 'optimal' (selection: 'gap', -2.0)
    table = fp.ObservedTable.from_counts(ISSUE, given={"S": 1})
    res = fp.bound(bias, "accuracy_parity", table, D=0.03, progress=False)
    _assert_in_range(res, -1.0, 1.0)
    # group 0's selected units are all wrong; group 1 lies wholly among the unselected, where any accuracy goes:
    # accuracy parity reaches -1 (group 0 at 0, group 1 at 1)
    assert res.lower == pytest.approx(-1.0, abs=1e-6)


def test_accuracy_parity_of_an_empty_group_is_sharp_under_selection() -> None:
    # old: certified [-1.224, 0.806], achieved -0.224 ('gap'): the solver let a group's two accuracy terms
    # reach 2 where its share is at the 1e-9 floor
    table = fp.ObservedTable.from_counts(EMPTY_1, given={"S": 1})
    res = fp.bound("selection", "accuracy_parity", table, D=0.03, progress=False)
    _assert_in_range(res, -1.0, 1.0)
    assert res.lower > -0.3 and res.lower_achieved == pytest.approx(res.lower, abs=1e-5)


def test_achieved_accuracy_parity_is_a_real_models_value_under_a_proxy_attribute() -> None:
    # old: lower = lower_achieved = -1.2 with status 'optimal'
    res = fp.bound("proxy_attribute", "accuracy_parity", fp.ObservedTable.from_counts(EMPTY_1), D=0.03,
                   progress=False)
    _assert_in_range(res, -1.0, 1.0)


@pytest.mark.parametrize("metric", sorted(RANGES))
@pytest.mark.parametrize("bias", ["ecp", "ecp_monotone", "proxy_attribute", "proxy_label",
                                  "proxy_label_and_selection", "proxy_label_false_positives",
                                  "proxy_label_false_positives_no_edge", "proxy_label_missed_positives",
                                  "proxy_label_missed_positives_no_edge", "selection", "selective_labels"])
def test_every_builtin_metric_and_bias_with_an_empty_group(bias: str, metric: str) -> None:
    """A clear refusal, or bounds and achieved values inside the metric's own range."""
    assert set(RANGES) == set(registered("metrics")), "a new built-in metric: add its range here"
    table = _empty_group_table(bias)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a solve stopped at its limit says so
        try:
            res = fp.bound(bias, metric, table, D=0.03, progress=False, time_limit=5)
        except FairprobeError as exc:
            message = str(exc)
            assert "undefined" in message and "group" in message and ("Choose" in message or "Pool" in message), \
                message
            return
    _assert_in_range(res, *RANGES[metric])


def test_every_builtin_bias_is_in_the_empty_group_grid() -> None:
    listed = {"ecp", "ecp_monotone", "proxy_attribute", "proxy_label", "proxy_label_and_selection",
              "proxy_label_false_positives", "proxy_label_false_positives_no_edge", "proxy_label_missed_positives",
              "proxy_label_missed_positives_no_edge", "selection", "selective_labels"}
    assert set(registered("biases")) == listed


@pytest.mark.parametrize(("metric", "expected"), [("accuracy", (0.0, 1.0)), ("accuracy_parity", (-1.0, 1.0)),
                                                  ("counterfactual_fairness", (0.0, 1.0)),
                                                  ("fpr_parity", (-1.0, 1.0))])
def test_natural_range_of_sums_of_disjoint_events(metric: str, expected: tuple[float, float]) -> None:
    # old: accuracy (0, 2), accuracy_parity (-2, 2), counterfactual_fairness (0, 2)
    from fairprobe.datasets import load_paper_table

    assert BoundProblem("proxy_label", metric, load_paper_table()).natural_range == expected


# -- item 3: the sampling caveat of a sweep's conclusion ----------------------------------------------
COUNTS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                       "n": [40, 10, 10, 40, 30, 20, 10, 40]})


def test_conclusion_with_a_breakdown_point_keeps_the_sampling_caveat() -> None:
    table = fp.ObservedTable.from_counts(COUNTS.assign(n=COUNTS.n * 10))
    sweep = fp.sensitivity("proxy_label", "fpr_parity", table, D=[0.0, 0.01, 0.02, 0.04, 0.06], ci=0.95,
                           ci_method="projection", progress=False)
    plain = sweep.conclusion()
    caveat = "With sampling error (95 % CI, projection) it holds only up to D = 1 %."
    assert caveat in plain.text and plain.verdict == "survives_bias_only"
    bp = fp.breakdown("proxy_label", "fpr_parity", table, xtol=1e-3, progress=False)
    with_bp = sweep.conclusion(bp.value)
    # old: "It keeps its sign for any D below 6.5 % ... (breakdown point)." and nothing on the sampling error
    assert "breakdown point" in with_bp.text and caveat in with_bp.text
    assert with_bp.verdict == "can_flip"
    # a breakdown point beyond the range searched: the conclusion survives the bias, not the noise
    assert sweep.conclusion(float("inf")).verdict == "survives_bias_only"
    assert caveat in sweep.conclusion(float("inf")).text


# -- item 10: levels below 0.5 ------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bootstrap", "bayes", "projection"])
@pytest.mark.parametrize("level", [0.3, 0.01, 0.4999])
def test_levels_below_one_half_are_refused(method: str, level: float) -> None:
    # old: scipy's "f(a) and f(b) must have different signs" (bootstrap, bayes), an interval (projection)
    with pytest.raises(ConfigError, match=r"ci=0\.\d+ .*below 0\.5.*e\.g\. ci=0\.95"):
        IntervalOptions(level=level, method=method)


def test_level_one_half_and_up_has_a_critical_value() -> None:
    for level in (0.5, 0.6, 0.95, 0.999999):
        for length in (0.0, 0.05, 1.0):
            c = critical_value(length, 0.01, level, 1000)
            assert c >= 0
    with pytest.raises(ConfigError, match=r"below 0\.5"):
        critical_value(1.0, 0.01, 0.3, 1000)


def test_low_level_through_bound_is_a_config_error() -> None:
    table = fp.ObservedTable.from_counts(COUNTS)
    with pytest.raises(ConfigError, match=r"below 0\.5"):
        fp.bound("proxy_label", "fpr", table, D=0.02, ci=0.3, resamples=40, progress=False)


# -- item 11: resamples capped --------------------------------------------------------------------------
@pytest.mark.parametrize("resamples", [10**12, 100_001])
def test_absurd_resamples_are_refused(resamples: int) -> None:
    # old: MemoryError (allocating 58 TiB)
    with pytest.raises(ConfigError, match=r"resamples=.*at most 100,000"):
        fp.bound("proxy_label", "fpr", fp.ObservedTable.from_counts(COUNTS), D=0.02, ci=0.95, resamples=resamples,
                 progress=False)
    assert IntervalOptions(resamples=100_000).resamples == 100_000


# -- item 12: numpy scalars --------------------------------------------------------------------------------
def test_numpy_scalars_are_plain_numbers_in_the_options() -> None:
    opts = IntervalOptions(level=np.float32(0.9), resamples=np.int64(40), seed=np.int64(3), prior=np.float32(0.5))
    assert (opts.level, opts.resamples, opts.seed, opts.prior) == (0.9, 40, 3, 0.5)
    assert type(opts.level) is float and type(opts.resamples) is int and type(opts.seed) is int
    assert type(opts.prior) is float
    assert interval_options(np.float64(0.95)).level == 0.95
    assert interval_options(np.bool_(True)).level == 0.95


def test_numpy_seed_and_level_give_json_safe_results() -> None:
    # old: json.dumps failed on a numpy int64 seed; ci=np.float32(0.9) was "not between 0 and 1"
    table = fp.ObservedTable.from_counts(COUNTS)
    res = fp.bound("proxy_label", "fpr", table, D=0.02, ci=np.float32(0.9), resamples=np.int64(40),
                   seed=np.int64(3), progress=False)
    d = res.to_dict()
    assert d["interval"]["seed"] == 3 and type(d["interval"]["seed"]) is int and d["interval"]["level"] == 0.9
    json.dumps(d)


# -- item 14: a seed without an interval ---------------------------------------------------------------------
def test_seed_without_ci_is_refused_by_every_driver() -> None:
    table = fp.ObservedTable.from_counts(COUNTS)
    for call in (lambda: fp.bound("proxy_label", "fpr", table, D=0.02, seed=5, progress=False),
                 lambda: fp.sensitivity("proxy_label", "fpr", table, D=[0.0, 0.02], seed=5, progress=False),
                 lambda: fp.breakdown("proxy_label", "fpr_parity", table, seed=5, progress=False)):
        with pytest.raises(ConfigError, match=r"seed=5 only appl.* add ci=0\.95"):
            call()
    assert interval_options(None, seed=0) is None  # the default is no request


@pytest.fixture
def counts_csv(tmp_path):
    path = tmp_path / "counts.csv"
    COUNTS.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize(("argv", "problem"), [
    (["bound", "--D", "0.02", "--seed", "5"], r"--seed 5 only appl.*--ci 0\.95"),
    (["sweep", "--D", "0,0.02", "--seed", "5"], r"--seed 5 only appl.*--ci 0\.95"),
    (["breakdown", "--seed", "5"], r"--seed 5 only appl.*--ci 0\.95"),
    (["bound", "--D", "0.02", "--ci", "0.3"], r"--ci 0\.3 is below 0\.5.*--ci 0\.95"),
    (["bound", "--D", "0.02", "--ci", "0.95", "--resamples", "1000000000000"], r"at most 100,000"),
])
def test_cli_interval_options(argv: list[str], problem: str, counts_csv: str, capsys) -> None:
    metric = "fpr_parity" if argv[0] == "breakdown" else "fpr"
    code, _, err = run_cli([*argv, "--bias", "proxy_label", "--metric", metric, "--data", counts_csv,
                            "--counts", "n"], capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, err
    assert __import__("re").search(problem, lines[0]), lines[0]

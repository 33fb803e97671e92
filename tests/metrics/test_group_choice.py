"""Which groups a metric compares: never an arbitrary pick, always by the data's labels.

Found by an auditor on COMPAS's six races: ``fpr_parity`` without ``groups`` silently compared
codes 0 and 1 (African-American vs Asian, a 31-row group); ``--group`` on a parity metric and
``--groups`` on a rate were silently ignored; ``proxy_attribute`` refused group labels; a
categorical column with unused categories crashed; undefined-event notes showed codes; and
nothing said when a group of a handful of units drove the bounds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.exceptions import ConfigError


def units(sizes: dict[str, int], seed: int = 0) -> pd.DataFrame:
    """Unit rows with race labels, an outcome and a prediction correlated with it."""
    rng = np.random.default_rng(seed)
    frames = []
    for race, n in sizes.items():
        y = rng.integers(0, 2, n)
        pred = np.where(rng.random(n) < 0.7, y, 1 - y)
        frames.append(pd.DataFrame({"race": race, "recid": y, "pred": pred}))
    return pd.concat(frames, ignore_index=True)


THREE = units({"a": 400, "b": 300, "c": 200})


def table(df: pd.DataFrame = THREE) -> fp.ObservedTable:
    return fp.ObservedTable.from_frame(df, A="race", Y="recid", P="pred")


@pytest.mark.parametrize("name", ["fpr_parity", "equalized_odds", "demographic_parity"])
def test_a_comparison_of_three_groups_needs_the_groups(name: str) -> None:
    with pytest.raises(ConfigError, match=r"has 3 groups \('a', 'b', 'c'\).*groups=\('a', 'c'\).*groups='all'"):
        fp.bound("proxy_label", name, table(), D=0.02)


def test_a_rate_of_one_of_three_groups_needs_the_group() -> None:
    with pytest.raises(ConfigError, match=r"has 3 groups.*whose fpr.*group='a'"):
        fp.bound("proxy_label", "fpr", table(), D=0.02)


def test_explicit_groups_of_three_are_bounded_and_named() -> None:
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("c", "a")), table(), D=0.02)
    same = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(2, 0)), table(), D=0.02)
    assert res.metric == "fpr_parity (A: c vs a)"
    assert (res.lower, res.upper) == pytest.approx((same.lower, same.upper), abs=1e-9)


def test_two_groups_keep_their_default() -> None:
    two = table(units({"a": 400, "b": 300}))
    res = fp.bound("proxy_label", "fpr_parity", two, D=0.02)
    assert res.metric == "fpr_parity (A: a vs b)"


def test_the_wrong_group_option_is_an_error_not_ignored() -> None:
    with pytest.raises(ConfigError, match=r"fpr_parity compares groups: pass groups=.*not group='a'"):
        fp.metric("fpr_parity", group="a")
    with pytest.raises(ConfigError, match=r"fpr is the rate of one group: pass group=.*fpr_parity"):
        fp.metric("fpr", groups=("a", "b"))


def test_proxy_attribute_takes_group_labels() -> None:
    """The true attribute B takes its labels from the recorded A (``cardinality_of``)."""
    by_label = fp.bound("proxy_attribute", fp.metric("fpr_parity", groups=("b", "c")), table(), D=0.01)
    by_code = fp.bound("proxy_attribute", fp.metric("fpr_parity", groups=(1, 2)), table(), D=0.01)
    assert by_label.metric == "fpr_parity (B: b vs c)"
    assert (by_label.lower, by_label.upper) == pytest.approx((by_code.lower, by_code.upper), abs=1e-9)


def test_categorical_column_with_unused_categories() -> None:
    """Filtering a categorical column leaves its other categories behind; they are not groups."""
    df = units({"a": 200, "b": 200, "c": 50})
    two = df[df.race != "c"].copy()
    two["race"] = pd.Categorical(two.race, categories=["b", "c", "a"])  # user order, 'c' unused
    t = table(two)
    assert t.categories["A"] == ["b", "a"]
    plain = table(two.astype({"race": str}))
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("a", "b")), t, D=0.02)
    ref = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("a", "b")), plain, D=0.02)
    # the same program up to the order of its variables: equal to the nonconvex solves' gap (1e-6)
    assert (res.lower, res.upper) == pytest.approx((ref.lower, ref.upper), abs=1e-6)


def test_partly_undefined_events_name_the_group_by_label() -> None:
    """Group c holds 1 % of the units: at D = 0.02 every one of its recorded labels may be wrong,
    so P(Z = 0 & A = c) can be 0 in some admitted models."""
    small = table(units({"a": 600, "b": 390, "c": 10}))
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), small, D=0.02)
    assert "Z = 0 & A = c" in res.excluded_events
    assert "A = 2" not in " ".join(res.excluded_events) and "A = c" in res.summary()
    assert res.to_dict()["excluded_events"] == res.excluded_events


def test_few_units_behind_a_rate_are_reported() -> None:
    """The FPR of c rests on c's recorded negatives, not on its 10 units (issue 45)."""
    small = table(units({"a": 600, "b": 390, "c": 10}))
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("c", "a")), small, D=0.001)
    negatives = round(small.prob({"A": 2, "Y": 0}) * small.n)
    assert 0 < negatives < 10
    assert res.few_units == {"Y = 0 & A = c": negatives}
    assert f"few units: Y = 0 & A = c: {negatives}" in res.summary()
    assert res.to_dict()["few_units"] == {"Y = 0 & A = c": negatives}
    big = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("b", "a")), small, D=0.001)
    assert big.few_units == {}


def test_few_units_under_selection_count_the_outcome_too() -> None:
    small = table(units({"a": 600, "b": 390, "c": 10}))
    res = fp.bound("selection", fp.metric("fpr_parity", groups=("c", "a")), small, D=0.01)
    zeros = int(((small.cells.A == 2) & (small.cells.Y == 0)).sum())
    assert zeros >= 1
    count = round(small.prob({"A": 2, "Y": 0}) * small.n)
    assert res.few_units == {"Y = 0 & A = c": count}


def test_an_attribute_recorded_as_1_and_2_keeps_the_defaults_as_codes() -> None:
    """The default groups are codes 0 and 1, never the labels 0 and 1 (label 1 is code 0 here)."""
    df = units({"a": 300, "b": 300}).assign(race=lambda d: d.race.map({"a": 1, "b": 2}))
    t = table(df)
    assert t.categories["A"] == [1, 2]
    default = fp.bound("proxy_label", "fpr_parity", t, D=0.02)
    explicit = fp.bound("proxy_label", fp.metric("fpr_parity", groups=(1, 2)), t, D=0.02)
    assert default.metric == explicit.metric == "fpr_parity (A: 1 vs 2)"
    assert (default.lower, default.upper) == pytest.approx((explicit.lower, explicit.upper), abs=1e-9)
    rate = fp.bound("proxy_label", "fpr", t, D=0.02)
    assert rate.metric == "fpr (A = 1)"
    three = table(units({"a": 300, "b": 300, "c": 300}).assign(race=lambda d: d.race.map({"a": 1, "b": 2, "c": 3})))
    assert fp.bound("proxy_label", fp.metric("fpr", group=2), three, D=0.02).metric == "fpr (A = 2)"


@pytest.mark.parametrize(("name", "options"), [
    ("fpr_parity", {}), ("fpr_parity", {"groups": ("a", "rest")}), ("fpr", {"group": "b"}), ("fpr", {}),
    ("equalized_odds", {"groups": "all"}), ("counterfactual_fairness", {"groups": (0, 1)}),
])
def test_get_params_rebuilds_the_metric(name: str, options: dict) -> None:
    m = fp.metric(name, **options)
    again = type(m)(**m.get_params())
    assert again.get_params() == m.get_params()
    assert (again.group, again.groups) == (m.group, m.groups)


def test_sweeps_and_breakdowns_flag_few_units_too() -> None:
    small = table(units({"a": 600, "b": 390, "c": 10}))
    metric = fp.metric("fpr_parity", groups=("c", "a"))
    sweep = fp.sensitivity("proxy_label", metric, small, D=[0.0, 0.001], progress=False)
    negatives = round(small.prob({"A": 2, "Y": 0}) * small.n)  # the units behind c's FPR
    assert f"few units: Y = 0 & A = c: {negatives}" in sweep.summary()
    broken = fp.breakdown("proxy_label", metric, small, tolerance=0.05, D_max=0.05)
    assert f"few units: Y = 0 & A = c: {negatives}" in broken.summary()
    assert "few units" not in fp.sensitivity("proxy_label", fp.metric("fpr_parity", groups=("b", "a")), small,
                                             D=[0.0], progress=False).summary()


def test_few_units_see_a_small_rest() -> None:
    """Comparing the big group with its rest: the rest's negatives (of b and c, 25 units) are flagged."""
    lopsided = table(units({"a": 900, "b": 15, "c": 10}))
    res = fp.bound("proxy_label", fp.metric("fpr_parity", groups=("a", "rest")), lopsided, D=0.001)
    negatives = round((lopsided.prob({"A": 1, "Y": 0}) + lopsided.prob({"A": 2, "Y": 0})) * lopsided.n)
    assert res.few_units == {"Y = 0 & A != a": negatives}

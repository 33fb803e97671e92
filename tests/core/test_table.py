"""ObservedTable constructors and validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairprobe import DataError
from fairprobe.core.config import BiasConfig
from fairprobe.core.table import ObservedTable

SELECTION = {
    "dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"], "cond_nodes": ["S"],
    "attribute_node": "A", "outcome_node": "Y", "prediction_node": "P",
    "constraints": ["P(S = 1) >= 1 - D"],
}
PROXY = {
    "dag_str": "A -> Y, A->P, A -> Z, U->P, U -> Y, U -> Z, Z->Y", "unob": "U",
    "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
    "constraints": ["P(Z = 0 & Y = 0) + P(Z = 1 & Y = 1) >= 1 - D"],
}


def test_from_frame_counts_cells_and_encodes_labels() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"race": rng.choice(["w", "b"], 1000), "recid": rng.integers(0, 2, 1000),
                       "pred": rng.integers(0, 2, 1000), "other": 1})
    t = ObservedTable.from_frame(df, A="race", Y="recid", P="pred")
    assert t.nodes == ["A", "Y", "P"] and t.n == 1000
    assert t.categories["A"] == ["b", "w"]
    assert t.prob({"A": 1}) == pytest.approx((df.race == "w").mean(), abs=1e-12)
    assert t.prob({"A": 0, "Y": 1, "P": 1}) == pytest.approx(
        ((df.race == "b") & (df.recid == 1) & (df.pred == 1)).mean(), abs=1e-12)
    assert t.cells.prob.sum() == pytest.approx(1.0)


def test_from_counts_and_probabilities_agree_and_allow_zero_cells() -> None:
    counts = pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "n": [30, 0, 50, 20]})
    a = ObservedTable.from_counts(counts)
    b = ObservedTable.from_probabilities(counts.assign(prob=counts.n / 100).drop(columns="n"))
    pd.testing.assert_frame_equal(a.cells, b.cells)
    assert a.prob({"A": 0, "P": 1}) == 0.0


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"A": [0, 1], "prob": [0.5, 0.6]}), r"sum to 1.1, not 1"),
        (pd.DataFrame({"A": [0, 1], "prob": [1.2, -0.2]}), "negative"),
        (pd.DataFrame({"A": [0, 1], "prob": [np.nan, 1.0]}), "NaN"),
        (pd.DataFrame({"A": [0.5, 1], "prob": [0.5, 0.5]}), "integer codes"),
    ],
)
def test_bad_probability_tables(frame: pd.DataFrame, message: str) -> None:
    with pytest.raises(DataError, match=message):
        ObservedTable.from_probabilities(frame)


def test_bad_counts_and_frames() -> None:
    with pytest.raises(DataError, match="non-negative"):
        ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [3, -1]}))
    with pytest.raises(DataError, match=r"Column\(s\) \['race'\] are not in the data"):
        ObservedTable.from_frame(pd.DataFrame({"x": [1]}), A="race")
    with pytest.raises(DataError, match="Missing values"):
        ObservedTable.from_frame(pd.DataFrame({"A": [0, None]}))


def test_validate_against_config() -> None:
    proxy = BiasConfig.from_dict(PROXY)
    ok = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "Y": [0, 1], "P": [1, 0], "n": [1, 1]}))
    with pytest.raises(DataError, match=r"needs the column\(s\) \['Z'\].*unmeasured"):
        ok.validate_against(proxy)  # Z is neither latent nor a column nor declared unmeasured
    ok.validate_against(proxy, unmeasured=["Z"])  # declared: fine
    ok.validate_against(BiasConfig.from_dict({**PROXY, "observed_nodes": ["A", "Y", "P"]}))
    extra = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "Q": [0, 1], "n": [1, 1]}))
    with pytest.raises(DataError, match=r"Table column 'Q' is not a node"):
        extra.validate_against(proxy)
    three = ObservedTable.from_counts(pd.DataFrame({"A": [0, 2], "Y": [0, 1], "n": [1, 1]}))
    with pytest.raises(DataError, match=r"code 2, outside the declared cardinality 2"):
        three.validate_against(proxy)
    latent = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "U": [0, 1], "n": [1, 1]}))
    with pytest.raises(DataError, match="declared unobserved"):
        latent.validate_against(proxy)
    selection = BiasConfig.from_dict(SELECTION)
    with pytest.raises(DataError, match=r"given=\{'S': 1\}"):
        ok.validate_against(selection)
    ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "Y": [0, 1], "P": [1, 0], "n": [1, 1]}),
                              given={"S": 1}).validate_against(selection)


def test_a_conditioning_event_added_to_a_table_keeps_its_cells() -> None:
    """``as_table`` adds a bias's conditioning event without coding the cells again: the same table as
    ``dataclasses.replace`` gives (which runs the whole validation), and a bad event is still refused."""
    import dataclasses

    from fairprobe.core.inputs import as_table, resolve_bias

    df = pd.DataFrame({"A": ["b", "a", "a", "b"], "Y": [0, 1, 1, 0], "P": [1, 0, 1, 1]})
    table = ObservedTable.from_frame(df)
    selected = as_table(table, resolve_bias("selection"))
    replaced = dataclasses.replace(table, given={"S": 1})
    assert selected.given == replaced.given == {"S": 1}
    pd.testing.assert_frame_equal(selected.cells, replaced.cells)
    assert selected.categories == replaced.categories and selected.n == replaced.n == 4
    assert table.given == {}  # the caller's table is not changed
    assert selected.prob({"A": 0, "Y": 1}) == replaced.prob({"A": 0, "Y": 1}) == 0.5
    with pytest.raises(DataError):
        table._with_given({"S": 2.5})


@pytest.mark.parametrize("seed", range(40))
def test_cells_are_merged_and_sorted_as_a_group_by_would(seed: int) -> None:
    """Distinct cells are only sorted (no group-by); duplicates are summed; either way the cells are
    exactly ``groupby(nodes, sort=True)[prob].sum()`` of the coded frame, dtypes and order included."""
    rng = np.random.default_rng(seed)
    nodes = ["A", "Y", "P", "X"][: int(rng.integers(1, 5))]
    k = int(rng.integers(1, 12))
    frame = pd.DataFrame({n: rng.integers(0, 3, size=k) for n in nodes})
    if seed % 3 == 0:  # distinct cells in a shuffled order
        frame = frame.drop_duplicates().sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if seed % 4 == 1:  # codes written as floats and booleans
        frame[nodes[0]] = frame[nodes[0]].astype(float)
    if seed % 5 == 2:
        frame[nodes[-1]] = frame[nodes[-1]] > 0
    frame["prob"] = rng.dirichlet(np.ones(len(frame)))
    if seed % 2:  # the probability column first
        frame = frame[["prob", *nodes]]
    table = ObservedTable.from_probabilities(frame)
    coded = frame.assign(**{n: frame[n].astype(float).astype(int) for n in nodes})
    expected = coded.groupby(nodes, as_index=False, sort=True)["prob"].sum().reset_index(drop=True)
    pd.testing.assert_frame_equal(table.cells, expected, check_exact=True)


def test_huge_integer_codes_are_refused_and_negative_integers_are_labels() -> None:
    frame = pd.DataFrame({"A": np.array([0, 2**31], dtype=np.int64), "prob": [0.5, 0.5]})
    with pytest.raises(DataError, match="integer codes >= 0"):
        ObservedTable.from_probabilities(frame)
    # no code is below 0: -1/0 are labels, coded in sorted order as from unit rows
    codes = pd.DataFrame({"A": np.array([0, -1], dtype=np.int64), "prob": [0.25, 0.75]})
    table = ObservedTable.from_probabilities(codes)
    assert table.categories["A"] == [-1, 0] and table.prob({"A": 0}) == 0.75


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 1, 0, 2]])
def test_a_negative_zero_probability_is_zero(order: list[int]) -> None:
    frame = pd.DataFrame({"A": [0, 0, 1, 1], "Y": [0, 1, 0, 1], "prob": [0.5, -0.0, 0.25, 0.25]}).iloc[order]
    probs = ObservedTable.from_probabilities(frame).cells["prob"].to_numpy()
    assert not np.signbit(probs).any() and probs.tolist() == [0.5, 0.0, 0.25, 0.25]


def test_a_node_named_n_is_read_from_units_like_any_other() -> None:
    """The units' counts are a column of their own, not a node's: a node called n once crashed from_frame."""
    frame = pd.DataFrame({"A": [0, 0, 1, 1, 1], "n": [1, 0, 1, 1, 0]})
    table = ObservedTable.from_frame(frame)
    assert table.n == 5 and list(table.nodes) == ["A", "n"]
    probs = table.cells.set_index(["A", "n"])["prob"]
    assert probs[(1, 1)] == pytest.approx(2 / 5) and probs[(0, 0)] == pytest.approx(1 / 5)

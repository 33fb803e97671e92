"""Bad-input pass 3 in the engine: no silent wrong answer from a table (S2, S6, T5)."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import resolve_bias
from fairprobe.exceptions import DataError

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})


def _with_column(name: str) -> fp.ObservedTable:
    """The paper-like cells with an unrelated two-valued column ``name`` (a zip-code flag, say)."""
    doubled = pd.concat([CELLS.assign(**{name: 0}, prob=CELLS.prob * 0.3),
                         CELLS.assign(**{name: 1}, prob=CELLS.prob * 0.7)], ignore_index=True)
    return fp.ObservedTable.from_probabilities(doubled)


@pytest.mark.parametrize(("bias", "column"), [("proxy_label", "Z"), ("proxy_attribute", "B")])
def test_column_named_like_an_unmeasured_node_is_refused(bias: str, column: str) -> None:
    with pytest.raises(DataError, match=f"Table column '{column}' is named like the node '{column}', which the bias "
                                        "declares unmeasured"):
        fp.bound(bias, "P(P = 1 | A = 0)", _with_column(column), D=0.05)


def test_column_named_like_the_selection_node_is_refused() -> None:
    table = _with_column("S")
    with pytest.raises(DataError, match="named like the conditioning node 'S'"):
        fp.bound("selection", "fpr_parity", table, D=0.05)


def test_a_really_measured_node_can_be_declared_measured() -> None:
    """The fix the message names works: ECP's policy T, recorded, is declared measured."""
    cfg = resolve_bias("ecp")
    table = _with_column("T")
    with pytest.raises(DataError, match="declares unmeasured"):
        fp.bound(cfg, fp.metric("fpr", group=0), table, D=0.05)
    measured = dataclasses.replace(cfg, observed_nodes=["A", "T", "Y", "P"])
    res = fp.bound(measured, fp.metric("fpr", group=0), table, D=0.05)
    assert res.lower <= res.upper


def test_one_column_for_two_nodes_is_refused() -> None:
    rows = pd.DataFrame({"race": ["a", "b"] * 20, "recid": [0, 1, 1, 0] * 10})
    with pytest.raises(DataError, match=r"Column 'recid' is mapped to 2 nodes \(Y, P\)"):
        fp.ObservedTable.from_frame(rows, A="race", Y="recid", P="recid")


def test_counts_beyond_the_float_range_are_a_clear_error() -> None:
    counts = pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "n": [10**400, 1, 2, 3]})
    with pytest.raises(DataError, match="beyond the float range"):
        fp.ObservedTable.from_counts(counts)


# -- found by the fuzz suite (tests/fuzz) -----------------------------------------------------------

def test_a_role_node_declared_latent_is_refused() -> None:
    spec = {"dag_str": "A->Y, A->P, U->Y, U->P", "unob": ["A", "U"], "constraints": [],
            "attribute_node": "A", "outcome_node": "Y", "prediction_node": "P"}
    with pytest.raises(fp.ConfigError, match=r"attribute_node 'A' is declared latent \(unob\), but a metric reads it"):
        fp.BiasConfig.from_dict(spec)


def test_a_value_beyond_the_float_range_is_not_a_group() -> None:
    frame = pd.DataFrame({"A": [0.0, float("inf")], "Y": [0, 1], "P": [1, 0]})  # "1e400" in a CSV reads as inf
    with pytest.raises(DataError, match=r"Column 'A' \(node A\) holds the value inf, which is not a finite number"):
        fp.ObservedTable.from_frame(frame)


def test_fractional_counts_are_weights_without_a_number_of_units() -> None:
    """Counts 1 and 0.5 gave n = 2 units: the number of units drives few-units warnings and intervals."""
    table = fp.ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [1, 0.5]}), "n")
    assert table.n is None
    assert table.cells.prob.tolist() == pytest.approx([2 / 3, 1 / 3])
    assert fp.ObservedTable.from_counts(pd.DataFrame({"A": [0, 1], "n": [1, 2]}), "n").n == 3

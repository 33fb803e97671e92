"""Forgotten columns (issue 13, Part B item 2): a missing node is an error unless declared unmeasured.

A table without ``P`` used to give ``[-1, 1]`` with status optimal: the forgotten column silently
became an unmeasured variable. Now every DAG node that is not latent, not conditioned on and not
declared unmeasured (``unmeasured=``, ``--unmeasured`` or the config's ``observed_nodes``) must be
a column, and the error lists the table's columns against the DAG's nodes.
"""

from __future__ import annotations

import json
import re
import warnings

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.exceptions import ConfigError, DataError
from tests.bad_input import run_cli

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})
NO_P = CELLS.groupby(["A", "Y"], as_index=False)["prob"].sum()
LABEL_DELAY = {  # a user's bias: Z (the true outcome) has no column
    "name": "label_delay", "dag_str": "A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y", "unob": ["U"],
    "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
    "constraints": ["P(Z = 1 & Y = 0) <= D", "P(Z = 0 & Y = 1) == 0"],
}
MISSING = r"needs the column\(s\) \['P'\], which the table does not have \(table columns: \['A', 'Y'\]; DAG nodes: "


@pytest.mark.parametrize("bias", ["selection", "proxy_label", ["proxy_label", "selection"]])
def test_table_without_P_is_an_error(bias: object) -> None:
    with pytest.raises(DataError, match=MISSING) as info:
        fp.bound(bias, "fpr_parity", NO_P, D=0.05)
    message = str(info.value)
    assert "'P'" in message.split("DAG nodes:")[1]  # the DAG's nodes are listed against the columns
    assert "--columns P=<column>" in message and "unmeasured=['P']" in message and "observed_nodes" in message


def test_sensitivity_and_breakdown_check_too() -> None:
    with pytest.raises(DataError, match=MISSING):
        fp.sensitivity("proxy_label", "demographic_parity", NO_P, D=[0.0, 0.1], progress=False)
    with pytest.raises(DataError, match=MISSING):
        fp.breakdown("proxy_label", "fpr_parity", NO_P, tolerance=0.05)
    table = fp.ObservedTable.from_probabilities(NO_P)
    with pytest.raises(DataError, match=MISSING):
        table.validate_against(fp.BiasConfig.from_json(fp.get_registry().biases["proxy_label"]().config().to_json()))


def test_declared_unmeasured_nodes_are_accepted() -> None:
    # the built-ins declare their true outcome Z unmeasured (observed_nodes), so Z needs no column
    assert fp.bound("proxy_label", "fpr_parity", CELLS, D=0.05).status == "optimal"
    # a user's config must say so: by argument, or by observed_nodes
    with pytest.raises(DataError, match=r"needs the column\(s\) \['Z'\]"):
        fp.bound(LABEL_DELAY, "fnr", CELLS, D=0.02)
    by_arg = fp.bound(LABEL_DELAY, "fnr", CELLS, D=0.02, unmeasured=["Z"])
    by_config = fp.bound({**LABEL_DELAY, "observed_nodes": ["A", "Y", "P"]}, "fnr", CELLS, D=0.02)
    assert (by_arg.lower, by_arg.upper) == pytest.approx((by_config.lower, by_config.upper), abs=1e-9)
    # declaring P unmeasured on purpose gives the honest (uninformative) answer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = fp.bound("selection", "fpr_parity", fp.ObservedTable.from_probabilities(NO_P, given={"S": 1}),
                       D=0.05, unmeasured="P")
    assert res.lower == pytest.approx(-1, abs=1e-6) and res.upper == pytest.approx(1, abs=1e-6)


def test_unmeasured_argument_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"unmeasured names 'Q', which is not a node"):
        fp.bound("proxy_label", "fpr", CELLS, D=0.05, unmeasured=["Q"])
    with pytest.raises(ConfigError, match=r"declared unmeasured but the table has them as columns"):
        fp.bound("proxy_label", "fpr", CELLS, D=0.05, unmeasured=["P"])


def test_cli_names_the_forgotten_column(tmp_path, capsys: pytest.CaptureFixture) -> None:
    rows = pd.DataFrame({"race": ["a", "a", "b", "b"] * 5, "recid": [0, 1, 0, 1] * 5, "pred": [1, 0, 0, 1] * 5})
    path = tmp_path / "rows.csv"
    rows.to_csv(path, index=False)
    base = ["--bias", "selection", "--metric", "fpr_parity", "--data", str(path), "--columns", "A=race,Y=recid"]
    for command, extra in (("bound", ["--D", "0.05"]), ("sweep", ["--D", "0,0.05"]),
                           ("breakdown", ["--tolerance", "0.05"])):
        code, out, err = run_cli([command, *base, *extra], capsys)
        assert code == 2, (command, out, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert re.search(MISSING, err) and "--columns P=<column>" in err and "--unmeasured P" in err
    code, out, _ = run_cli(["bound", *base[:-1], "A=race,Y=recid,P=pred", "--D", "0.05"], capsys)
    assert code == 0 and "certified bounds" in out
    config = tmp_path / "label_delay.json"
    config.write_text(json.dumps(LABEL_DELAY))
    cells = tmp_path / "cells.csv"
    CELLS.to_csv(cells, index=False)
    code, _, err = run_cli(["bound", "--bias", str(config), "--metric", "fnr", "--data", str(cells), "--D", "0.02"],
                           capsys)
    assert code == 2 and "needs the column(s) ['Z']" in err
    code, out, _ = run_cli(["bound", "--bias", str(config), "--metric", "fnr", "--data", str(cells), "--D", "0.02",
                            "--unmeasured", "Z"], capsys)
    assert code == 0 and "certified bounds" in out


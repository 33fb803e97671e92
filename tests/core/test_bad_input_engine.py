"""Bad input for the causal engine: ``bound``, ``sensitivity``, ``breakdown`` and metric lookup.

Table-driven (see ``tests/bad_input.py``): each case is one realistic mistake around undefined
metrics, missing nodes, and tables or configs that do not match, and asserts the error class and
that the message names the problem and a fix. CLI cases run ``fairprobe bound/sweep/breakdown`` in
process and must exit 2 with one line on stderr; ``{d}`` in an argument is the fixture folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.exceptions import ConfigError, DataError, UndefinedMetricError, UnknownPluginError
from fairprobe.metrics.rates import FPRParity
from tests.bad_input import Case, CliCase, check, check_cli, params

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})
ONLY_A0 = pd.DataFrame({"A": [0, 0, 0, 0], "Y": [0, 0, 1, 1], "P": [0, 1, 0, 1], "prob": [0.3, 0.2, 0.1, 0.4]})
NO_POS_A1 = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1], "Y": [0, 0, 1, 1, 0, 0], "P": [0, 1, 0, 1, 0, 1],
                          "prob": [0.2, 0.1, 0.1, 0.2, 0.2, 0.2]})
NO_PRED1_A1 = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1], "Y": [0, 0, 1, 1, 0, 1], "P": [0, 1, 0, 1, 0, 0],
                            "prob": [0.2, 0.1, 0.1, 0.2, 0.2, 0.2]})
NO_P = CELLS.groupby(["A", "Y"], as_index=False)["prob"].sum()
NO_Y = CELLS.groupby(["A", "P"], as_index=False)["prob"].sum()
LABEL_DELAY = {
    "name": "label_delay", "dag_str": "A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y", "unob": ["U"],
    "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
    "constraints": ["P(Z = 1 & Y = 0) <= D", "P(Z = 0 & Y = 1) == 0"],
}

UNDEFINED = r"is undefined: it conditions on"
CHOOSE = r"Choose groups in which the event can occur"
MISSING = r"needs the column\(s\) \[{}\], which the table does not have \(table columns: .*DAG nodes:"
DECLARE = r"--columns .*unmeasured=.*observed_nodes"


def sel(frame: pd.DataFrame) -> fp.ObservedTable:
    return fp.ObservedTable.from_probabilities(frame, given={"S": 1})


def bound(bias: object, metric: object, data: object, D: object = 0.05, **kw: object) -> Callable[[], object]:
    """A deferred ``fp.bound`` call."""
    return lambda: fp.bound(bias, metric, data, D=D, **kw)


# -- undefined metrics ------------------------------------------------------------------------------
UNDEFINED_CASES = [
    Case("undef-absent-group-selection-fpr-parity", bound("selection", "fpr_parity", sel(ONLY_A0), D=0.0),
         UndefinedMetricError, UNDEFINED + r" Y = 0 & A = 1 \(group A = 1\).*'selection' admits at D = 0", CHOOSE),
    Case("undef-absent-group-selection-demographic", bound("selection", "demographic_parity", sel(ONLY_A0), D=0.0),
         UndefinedMetricError, UNDEFINED + r" A = 1 \(group A = 1\)", CHOOSE),
    Case("undef-absent-group-proxy-any-D", bound("proxy_label", "fpr_parity", ONLY_A0, D=0.3),
         UndefinedMetricError, UNDEFINED + r" Z = 0 & A = 1.*no row with A = 1", CHOOSE),
    Case("undef-absent-group-proxy-equalized-odds", bound("proxy_label", "equalized_odds", ONLY_A0),
         UndefinedMetricError, r"'equalized_odds \(A: 0 vs 1\)' is undefined", CHOOSE),
    Case("undef-no-positives-proxy-fnr-parity", bound("proxy_label", "fnr_parity", NO_POS_A1, D=0.0),
         UndefinedMetricError, UNDEFINED + r" Z = 1 & A = 1 \(group A = 1\).*at D = 0", CHOOSE),
    Case("undef-no-positives-selection-tpr-parity", bound("selection", "tpr_parity", sel(NO_POS_A1), D=0.0),
         UndefinedMetricError, UNDEFINED + r" Y = 1 & A = 1.*no row with Y = 1, A = 1", CHOOSE),
    Case("undef-no-positives-missed-positives-eo",
         bound("proxy_label_missed_positives", "equalized_odds", NO_POS_A1, D=0.0),
         UndefinedMetricError, UNDEFINED + r" Z = 1 & A = 1", CHOOSE),
    Case("undef-no-positive-predictions-ppv-parity", bound("selection", "ppv_parity", sel(NO_PRED1_A1), D=0.0),
         UndefinedMetricError, UNDEFINED + r" P = 1 & A = 1", CHOOSE),
    Case("undef-group-rate-fnr", bound("selection", fp.metric("fnr", group=1), sel(NO_POS_A1), D=0.0),
         UndefinedMetricError, r"'fnr \(A = 1\)' is undefined", CHOOSE),
    Case("undef-query-string", bound("proxy_label", "P(P = 0 | Z = 1 & A = 1)", NO_POS_A1, D=0.0),
         UndefinedMetricError, UNDEFINED + r" Z = 1 & A = 1", CHOOSE),
    Case("undef-counterfactual-query", bound("ecp", "P(P = 1 | Y(T=1) = 1 & A = 1)", ONLY_A0, D=0.0),
         UndefinedMetricError, UNDEFINED + r" Y\(T=1\) = 1 & A = 1", CHOOSE),
    Case("undef-max-over-pairs", bound("selection", fp.metric("fpr_parity", groups="all"), sel(ONLY_A0), D=0.0),
         UndefinedMetricError, r"max over pairs.*is undefined", CHOOSE),
    Case("undef-sweep-every-point", lambda: fp.sensitivity("selection", "fnr_parity", sel(NO_POS_A1), D=[0.0],
                                                            progress=False),
         UndefinedMetricError, UNDEFINED + r" Y = 1 & A = 1", CHOOSE),
    Case("undef-sweep-absent-group", lambda: fp.sensitivity("proxy_label", "tpr_parity", ONLY_A0, D=[0.0, 0.1],
                                                             progress=False),
         UndefinedMetricError, UNDEFINED + r" Z = 1 & A = 1", CHOOSE),
    Case("undef-breakdown", lambda: fp.breakdown("proxy_label", "fnr_parity", NO_POS_A1, tolerance=0.05),
         UndefinedMetricError, UNDEFINED + r" Z = 1 & A = 1.*D = 0", CHOOSE),
    Case("undef-combined-biases", bound(["proxy_label", "selection"], "fnr_parity", NO_POS_A1,
                                        D={"D_proxy_label": 0.0, "D_selection": 0.0}),
         UndefinedMetricError, UNDEFINED + r" Z = 1 & A = 1.*D_proxy_label = 0", CHOOSE),
]

# -- missing (forgotten) nodes and the unmeasured declaration ----------------------------------------
MISSING_CASES = [
    Case("missing-P-selection", bound("selection", "fpr_parity", sel(NO_P)), DataError, MISSING.format("'P'"),
         DECLARE),
    Case("missing-P-proxy-label", bound("proxy_label", "fpr_parity", NO_P), DataError, MISSING.format("'P'"),
         DECLARE),
    Case("missing-Y-proxy-label", bound("proxy_label", "demographic_parity", NO_Y), DataError,
         MISSING.format("'Y'"), r"--columns Y=<column>"),
    Case("missing-P-combined", bound(["proxy_label", "selection"], "fpr_parity", NO_P,
                                     D={"D_proxy_label": 0.01, "D_selection": 0.01}),
         DataError, r"'proxy_label\+selection' " + MISSING.format("'P'"), DECLARE),
    Case("missing-P-sensitivity", lambda: fp.sensitivity("proxy_label", "fpr", NO_P, D=[0.0], progress=False),
         DataError, MISSING.format("'P'"), DECLARE),
    Case("missing-P-breakdown", lambda: fp.breakdown("selection", "fpr_parity", sel(NO_P), tolerance=0.05),
         DataError, MISSING.format("'P'"), DECLARE),
    Case("missing-undeclared-Z-user-config", bound(LABEL_DELAY, "fnr", CELLS), DataError,
         r"'label_delay' " + MISSING.format("'Z'"), r"unmeasured=\['Z'\].*observed_nodes"),
    Case("missing-policy-T-observed-policy", bound(fp.get_registry().biases["ecp"](observed_policy=True), "fpr",
                                                   CELLS),
         DataError, MISSING.format("'T'"), r"--columns T=<column>"),
    Case("missing-S-and-O-selective-labels", bound("selective_labels", "fpr", CELLS), DataError,
         MISSING.format("'S', 'O'"), DECLARE),
    Case("missing-attribute-renamed", bound("proxy_attribute", "fpr", CELLS.rename(columns={"A": "B"})), DataError,
         MISSING.format("'A'"), r"declared unmeasured \['B'\]"),
    Case("unmeasured-not-a-node", bound("proxy_label", "fpr", CELLS, unmeasured=["Q"]), ConfigError,
         r"unmeasured names 'Q', which is not a node", r"fix the name"),
    Case("unmeasured-latent", bound("proxy_label", "fpr", CELLS, unmeasured=["U"]), ConfigError,
         r"'U', which the config already declares latent", r"drop it from unmeasured"),
    Case("unmeasured-conditioning-node", bound("selection", "fpr", sel(CELLS), unmeasured=["S"]), ConfigError,
         r"'S', which the data are conditioned on", r"drop it from unmeasured"),
    Case("unmeasured-but-a-column", bound("proxy_label", "fpr", CELLS, unmeasured="P"), ConfigError,
         r"\['P'\] are declared unmeasured but the table has them", r"drop them from unmeasured"),
    Case("unmeasured-wrong-type", bound("proxy_label", "fpr", CELLS, unmeasured={"Z": 1}), ConfigError,
         r"unmeasured must be a list of node names", r"e\.g\. \['Z'\]"),
    Case("unmeasured-everything", bound("proxy_label", "fpr", NO_P, unmeasured=["A", "Y", "P"]), ConfigError,
         r"leaves no measured node", r"at least one column"),
]

# -- tables and configs that do not match; metric lookup --------------------------------------------
MISMATCH_CASES = [
    Case("table-column-not-a-node", bound("proxy_label", "fpr", CELLS.rename(columns={"P": "pred"})), DataError,
         r"Table column 'pred' is not a node", r"map the columns to node names"),
    Case("table-has-latent-column", bound("proxy_label", "fpr", CELLS.assign(U=0)), DataError,
         r"'U' is declared unobserved \(unob\)", r"drop the column"),
    Case("table-conditioned-but-bias-not", bound("proxy_label", "fpr", sel(CELLS)), DataError,
         r"conditioned on S = 1, but S is not in the bias's cond_nodes", r"without given=.*'selection'"),
    Case("data-not-a-table", bound("proxy_label", "fpr", CELLS.to_dict()), DataError,
         r"data must be an ObservedTable or a pandas DataFrame; got dict", r"ObservedTable\.from_frame"),
    Case("metric-unknown-name", bound("proxy_label", "fpr_party", CELLS), UnknownPluginError,
         r"Unknown metric 'fpr_party'", r"registered metrics.*query string"),
    Case("metric-class-not-instance", bound("proxy_label", FPRParity, CELLS), ConfigError,
         r"not the class FPRParity", r"FPRParity\(\)"),
    Case("metric-not-a-metric", bound("proxy_label", 0.5, CELLS), ConfigError, r"Cannot use float as a metric",
         r"registered name"),
    Case("metric-query-unknown-node", bound("selection", "P(P = 1 | Z = 0 & A = 0)", sel(CELLS)), ConfigError,
         r"needs \['Z'\], which are not nodes of the bias DAG", r"a bias whose DAG has them"),
    Case("metric-outcome-not-in-bias", bound("proxy_label", fp.metric("fpr", outcome="Y(T=1)"), CELLS),
         ConfigError, r"needs \['T'\]", r"pick a metric"),
    Case("metric-group-out-of-range", bound("proxy_label", fp.metric("fpr", group=3), CELLS), ConfigError,
         r"group 3 is not a group of the data", r"the attribute's groups are \[0, 1\]"),
    Case("metric-groups-out-of-range", bound("proxy_label", fp.metric("fpr_parity", groups=(0, 2)), CELLS),
         ConfigError, r"groups 2 is not a group of the data", r"groups are \[0, 1\] \(or their codes 0\.\.1\)"),
    Case("metric-group-label-not-in-data", bound("proxy_label", fp.metric("fnr", group="African-American"), CELLS),
         ConfigError, r"group 'African-American' is not a group of the data", r"groups are \[0, 1\]"),
    Case("metric-group-negative", lambda: fp.metric("fnr", group=-1), ConfigError,
         r"group must be an attribute label or code.*-1", r"integer >= 0"),
    Case("metric-groups-one-value", lambda: fp.metric("fpr_parity", groups=(1,)), ConfigError,
         r"groups must be a pair.*\(1,\)", r"groups=\(0, 1\)"),
    Case("metric-groups-same", lambda: fp.metric("fpr_parity", groups=(1, 1)), ConfigError,
         r"two different attribute values", ""),
    Case("metric-groups-word", lambda: fp.metric("fpr_parity", groups="both"), ConfigError,
         r"groups must be a pair of attribute labels or codes, or 'all'; got 'both'", r"'all'"),
    Case("metric-outcome-empty", lambda: fp.metric("fpr", outcome=""), ConfigError,
         r"outcome must be a node name", r"'Y\(T=1\)'"),
    Case("bias-unknown", bound("proxy_labels", "fpr", CELLS), UnknownPluginError, r"Unknown bias 'proxy_labels'",
         r"registered biases"),
    Case("bias-empty-list", bound([], "fpr", CELLS), ConfigError, r"list of biases is empty", r"at least one"),
    Case("bias-twice-combined", bound(["proxy_label", "proxy_label"], "fpr", CELLS), ConfigError,
         r"appears twice", r"list each bias once"),
    Case("breakdown-threshold-and-tolerance", lambda: fp.breakdown("proxy_label", "fpr", CELLS, threshold=0.1,
                                                                    tolerance=0.1),
         ConfigError, r"either threshold= or tolerance=", ""),
    Case("breakdown-negative-tolerance", lambda: fp.breakdown("proxy_label", "fpr_parity", CELLS, tolerance=-0.1),
         ConfigError, r"tolerance must be >= 0; got -0\.1", r"tolerance=0\.05"),
    Case("breakdown-unknown-parameter", lambda: fp.breakdown("proxy_label", "fpr", CELLS, parameter="E"),
         ConfigError, r"Unknown parameter 'E'", r"parameter="),
    Case("breakdown-combined-without-parameter", lambda: fp.breakdown(["proxy_label", "selection"], "fpr", CELLS),
         ConfigError, r"parameters \['D_proxy_label', 'D_selection'\]", r"parameter='D_proxy_label'.*--parameter"),
    Case("sensitivity-scalar-D", lambda: fp.sensitivity("proxy_label", "fpr", CELLS, D=0.1, progress=False),
         ConfigError, r"Give D as a list", r"np\.linspace"),
    Case("sensitivity-unknown-axis", lambda: fp.sensitivity("proxy_label", "fpr", CELLS, D={"E": [0.1]},
                                                             progress=False),
         ConfigError, r"Unknown sensitivity parameter\(s\) \['E'\]", r"this bias has \['D'\]"),
    Case("sensitivity-grid-two-parameters", lambda: fp.sensitivity_grid([["proxy_label", "selection"]], ["fpr"],
                                                                         {"t": CELLS}, D=[0.1], progress=False),
         ConfigError, r"sweeps one parameter", r"fp\.sensitivity"),
]


@pytest.mark.parametrize("case", params(UNDEFINED_CASES + MISSING_CASES + MISMATCH_CASES))
def test_bad_engine_input(case: Case) -> None:
    check(case)


# -- command line --------------------------------------------------------------------------------
def _argv(command: str, data: str, *extra: str, bias: str = "proxy_label", metric: str = "fpr_parity") -> tuple:
    return (command, "--bias", bias, "--metric", metric, "--data", f"{{d}}/{data}", *extra)


CLI = [
    CliCase("cli-bound-forgotten-P", _argv("bound", "rows.csv", "--columns", "A=race,Y=recid", "--D", "0.05",
                                           bias="selection"),
            MISSING.format("'P'"), r"--columns P=<column>.*--unmeasured P"),
    CliCase("cli-sweep-forgotten-P", _argv("sweep", "rows.csv", "--columns", "A=race,Y=recid", "--D", "0:0.1:3"),
            MISSING.format("'P'"), r"--unmeasured P"),
    CliCase("cli-breakdown-forgotten-P", _argv("breakdown", "rows.csv", "--columns", "A=race,Y=recid",
                                               "--tolerance", "0.05"),
            MISSING.format("'P'"), r"--columns P=<column>"),
    CliCase("cli-bound-undeclared-Z", _argv("bound", "cells.csv", "--D", "0.02", bias="{d}/label_delay.json",
                                            metric="fnr"),
            MISSING.format("'Z'"), r"--unmeasured Z"),
    CliCase("cli-bound-unmeasured-unknown", _argv("bound", "cells.csv", "--D", "0.02", "--unmeasured", "Q"),
            r"unmeasured names 'Q'", r"fix the name"),
    CliCase("cli-bound-unmeasured-present", _argv("bound", "cells.csv", "--D", "0.02", "--unmeasured", "P"),
            r"declared unmeasured but the table has them", r"drop them"),
    CliCase("cli-bound-undefined-fnr-parity", _argv("bound", "nopos.csv", "--D", "0", metric="fnr_parity"),
            UNDEFINED + r" Z = 1 & A = 1", CHOOSE),
    CliCase("cli-sweep-undefined-everywhere", _argv("sweep", "onlya0.csv", "--D", "0,0.1", metric="tpr_parity"),
            UNDEFINED, CHOOSE),
    CliCase("cli-breakdown-undefined", _argv("breakdown", "nopos.csv", "--tolerance", "0.05", metric="fnr_parity"),
            UNDEFINED, CHOOSE),
    CliCase("cli-bound-group-out-of-range", _argv("bound", "cells.csv", "--D", "0.02", "--group", "4", metric="fpr"),
            r"group 4 is not a group of the data", r"groups are \[0, 1\]"),
]


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture files every CLI case refers to as ``{d}/...``."""
    d = tmp_path_factory.mktemp("badengine")
    rows = pd.DataFrame({"race": ["a", "a", "b", "b"] * 5, "recid": [0, 1, 0, 1] * 5, "pred": [1, 0, 0, 1] * 5})
    rows.to_csv(d / "rows.csv", index=False)
    CELLS.to_csv(d / "cells.csv", index=False)
    NO_POS_A1.to_csv(d / "nopos.csv", index=False)
    ONLY_A0.to_csv(d / "onlya0.csv", index=False)
    (d / "label_delay.json").write_text(json.dumps(LABEL_DELAY))
    return d


@pytest.mark.parametrize("case", params(CLI))
def test_bad_engine_command_line(case: CliCase, d: Path, capsys: pytest.CaptureFixture) -> None:
    check_cli(case, capsys, folder=d)


def test_case_counts() -> None:
    """At least 30 distinct cases for these entry points (the brief's target)."""
    cases = UNDEFINED_CASES + MISSING_CASES + MISMATCH_CASES
    assert len(cases) + len(CLI) >= 30
    assert len({c.id for c in cases} | {c.id for c in CLI}) == len(cases) + len(CLI)

"""Bad input for the table constructors, BiasConfig, the query parser and the options of
``bound``/``sensitivity``/``breakdown``; plus codes that do not fit a binary role (issue 13, item 3).

Table-driven (see ``tests/bad_input.py``): each case is one realistic mistake and asserts the error
class and that the message names the problem and a fix. CLI cases run ``fairprobe bound/sweep`` in
process and must exit 2 with one line on stderr; ``{d}`` in an argument is the fixture folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.config import BiasConfig
from fairprobe.core.query import parse_constraint, parse_expression
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import ConfigError, DataError
from tests.bad_input import Case, CliCase, check, check_cli, params

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})
COUNTS = CELLS.assign(n=(CELLS.prob * 100).round().astype(int)).drop(columns="prob")
ROWS = pd.DataFrame({"A": [0, 0, 1, 1] * 5, "Y": [0, 1, 0, 1] * 5, "P": [1, 0, 0, 1] * 5})
SELECTION = {
    "dag_str": "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S", "unob": ["U"], "cond_nodes": ["S"],
    "attribute_node": "A", "outcome_node": "Y", "prediction_node": "P", "constraints": ["P(S = 1) >= 1 - D"],
}
P_THREE = CELLS.assign(P=[0, 1, 0, 2, 0, 1, 0, 1])  # one cell has P = 2
Y_THREE = CELLS.assign(Y=[0, 0, 1, 2, 0, 0, 1, 1])
TESTS = Path(__file__).parent  # an existing folder, for "config path is a folder"


def sel(frame: pd.DataFrame) -> ObservedTable:
    return ObservedTable.from_probabilities(frame, given={"S": 1})


def cfg(**changes: object) -> Callable[[], object]:
    """A deferred BiasConfig.from_dict of the selection config with ``changes``."""
    return lambda: BiasConfig.from_dict({**SELECTION, **changes})


def bound(metric: object = "fpr", data: object = CELLS, **kw: object) -> Callable[[], object]:
    """A deferred ``fp.bound`` under proxy-label bias (D = 0.05 unless given)."""
    kw.setdefault("D", 0.05)
    return lambda: fp.bound("proxy_label", metric, data, **kw)


def sweep(D: object = (0.0, 0.05), **kw: object) -> Callable[[], object]:
    kw.setdefault("progress", False)
    return lambda: fp.sensitivity("proxy_label", "fpr", CELLS, D=D, **kw)


def breakdown(**kw: object) -> Callable[[], object]:
    return lambda: fp.breakdown("proxy_label", "fpr_parity", CELLS, **kw)


NUMBER = r"give .*number|e\.g\."

# -- ObservedTable constructors ---------------------------------------------------------------------
TABLE_CASES = [
    Case("table-frame-not-a-dataframe", lambda: ObservedTable.from_frame([[0, 1], [1, 0]]), DataError,
         r"needs a pandas DataFrame; got list", r"pd\.read_csv"),
    Case("table-frame-zero-rows", lambda: ObservedTable.from_frame(ROWS.iloc[:0]), DataError,
         r"has no rows", r"at least one unit"),
    Case("table-frame-duplicate-columns", lambda: ObservedTable.from_frame(
        pd.DataFrame([[0, 1, 1]], columns=["A", "Y", "A"])), DataError, r"duplicate column names \['A'\]", r"rename"),
    Case("table-frame-mixed-int-and-text", lambda: ObservedTable.from_frame(
        pd.DataFrame({"A": [0, 1, "1", 0], "Y": [0, 1, 1, 0]})), DataError,
         r"Column 'A' .*mixes value types: 0 \(number\), '1' \(text\)", r"astype\(str\)|recode"),
    Case("table-frame-mixed-bool-and-int", lambda: ObservedTable.from_frame(
        pd.DataFrame({"P": [True, 0, 1]}, dtype=object)), DataError, r"mixes value types: True \(bool\), 0",
         r"Convert it to one type"),
    Case("table-frame-missing-values", lambda: ObservedTable.from_frame(ROWS.assign(Y=[np.nan] + [1] * 19)),
         DataError, r"Missing values in node column\(s\) \['Y'\]", r"drop or impute"),
    Case("table-frame-column-absent", lambda: ObservedTable.from_frame(ROWS, A="race"), DataError,
         r"Column\(s\) \['race'\] are not in the data", r"available: \['A', 'Y', 'P'\]"),
    Case("table-frame-integer-column-names", lambda: ObservedTable.from_frame(pd.DataFrame([[0, 1], [1, 0]])),
         DataError, r"Node column names must be strings; got \[0, 1\]", r"Rename the columns"),
    Case("table-frame-node-called-prob", lambda: ObservedTable.from_frame(ROWS, prob="A"), DataError,
         r"'prob' is reserved", r"rename that node"),
    Case("table-frame-given-not-a-dict", lambda: ObservedTable.from_frame(ROWS, given="S"), DataError,
         r"given = 'S' must be a dict", r"given=\{'S': 1\}"),
    Case("table-counts-negative", lambda: ObservedTable.from_counts(COUNTS.assign(n=[5, -1, 5, 5, 5, 5, 5, 5])),
         DataError, r"count column 'n' has negative values \(e\.g\. -1\)", r"non-negative"),
    Case("table-counts-nan", lambda: ObservedTable.from_counts(COUNTS.assign(n=[np.nan] + [1] * 7)), DataError,
         r"count column 'n' has missing values \(NaN\)", r"fill or drop"),
    Case("table-counts-infinite", lambda: ObservedTable.from_counts(COUNTS.assign(n=[np.inf] + [1] * 7)),
         DataError, r"count column 'n' has infinite values", r"finite counts"),
    Case("table-counts-text", lambda: ObservedTable.from_counts(COUNTS.assign(n=["many"] + ["3"] * 7)), DataError,
         r"count column 'n' holds text such as 'many'", r"pd\.to_numeric"),
    Case("table-counts-bool", lambda: ObservedTable.from_counts(COUNTS.assign(n=[True, False] * 4)), DataError,
         r"count column 'n' holds True/False", r"give numbers"),
    Case("table-counts-all-zero", lambda: ObservedTable.from_counts(COUNTS.assign(n=0)), DataError,
         r"Every count in 'n' is 0", r"at least one positive count"),
    Case("table-counts-zero-rows", lambda: ObservedTable.from_counts(COUNTS.iloc[:0]), DataError,
         r"count table has no rows", r"at least one cell"),
    Case("table-counts-no-count-column", lambda: ObservedTable.from_counts(COUNTS, count="count"), DataError,
         r"No count column 'count'", r"count=\.\.\."),
    Case("table-counts-text-and-codes", lambda: ObservedTable.from_counts(COUNTS.assign(A=["a", 1] * 4)),
         DataError, r"Column 'A' \(node A\) mixes value types", r"astype\(str\)"),
    # (whole numbers below 0, such as -1/1, are labels coded in sorted order, as from unit rows)
    Case("table-counts-negative-codes", lambda: ObservedTable.from_counts(COUNTS.assign(A=[-0.5, 0] * 4)),
         DataError, r"Column 'A' must hold integer codes >= 0", r"map them to 0, 1"),
    Case("table-counts-fractional-codes", lambda: ObservedTable.from_counts(COUNTS.assign(Y=[0.5, 1.0] * 4)),
         DataError, r"Column 'Y' must hold integer codes", r"from_frame"),
    Case("table-counts-given-text-value", lambda: ObservedTable.from_counts(COUNTS, given={"S": "yes"}),
         DataError, r"given has the entry 'S': 'yes'", r"integer code"),
    Case("table-probs-do-not-sum-to-1", lambda: ObservedTable.from_probabilities(CELLS.assign(prob=CELLS.prob * 2)),
         DataError, r"Probabilities sum to 2, not 1", r"normalise the table.*from_counts"),
    Case("table-probs-negative", lambda: ObservedTable.from_probabilities(
        CELLS.assign(prob=[0.5, -0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])), DataError,
         r"probability column 'prob' has negative values", r">= 0"),
    Case("table-probs-nan", lambda: ObservedTable.from_probabilities(CELLS.assign(prob=[np.nan] + [1 / 7] * 7)),
         DataError, r"probability column 'prob' has missing values \(NaN\)", r"fill or drop"),
    Case("table-probs-infinite", lambda: ObservedTable.from_probabilities(CELLS.assign(prob=[np.inf] + [0.0] * 7)),
         DataError, r"probability column 'prob' has infinite values", r"finite"),
    Case("table-probs-zero-rows", lambda: ObservedTable.from_probabilities(CELLS.iloc[:0]), DataError,
         r"table has no rows", r"at least one cell"),
    Case("table-probs-no-prob-column", lambda: ObservedTable.from_probabilities(COUNTS), DataError,
         r"No probability column 'prob'", r"use from_counts"),
    Case("table-probs-text", lambda: ObservedTable.from_probabilities(CELLS.assign(prob=["1/8"] * 8)), DataError,
         r"probability column 'prob' holds text such as '1/8'", r"pd\.to_numeric"),
    Case("table-probs-two-prob-columns", lambda: ObservedTable.from_probabilities(
        CELLS.assign(p=CELLS.prob), prob="p"), DataError, r"column 'prob' besides the probability column 'p'",
         r"rename it"),
    Case("table-probs-no-node-columns", lambda: ObservedTable.from_probabilities(pd.DataFrame({"prob": [1.0]})),
         DataError, r"no node columns", r"at least one column per DAG node"),
    Case("table-probs-duplicate-columns", lambda: ObservedTable.from_probabilities(
        pd.DataFrame([[0, 0, 1.0]], columns=["A", "A", "prob"])), DataError, r"duplicate column names", r"rename"),
]

# -- BiasConfig: dict, JSON and keywords -----------------------------------------------------------
CONFIG_CASES = [
    Case("config-constraints-none", cfg(constraints=None), ConfigError, r"'constraints' must be a list",
         r"\[\] for none"),
    Case("config-constraints-number", cfg(constraints=["P(S = 1) >= 1 - D", 5]), ConfigError,
         r"Constraint 5 is a int", r"string such as"),
    Case("config-constraints-keyword-none", lambda: BiasConfig(dag_str="A -> Y, U -> Y, U -> A", constraints=None,
                                                               unob=["U"], prediction_node="Y"),
         ConfigError, r"'constraints' must be a list", r"P\(S = 1\) >= 1 - D"),
    Case("config-cardinalities-list", cfg(cardinalities=[3]), ConfigError, r"'cardinalities' must be a dict",
         r"\{'A': 3\}"),
    Case("config-cardinality-bool", cfg(cardinalities={"A": True}), ConfigError,
         r"Cardinality of 'A' must be an integer >= 2; got True", r"cardinalities=\{'A': 3\}"),
    Case("config-cardinality-one", cfg(cardinalities={"P": 1}), ConfigError, r"integer >= 2; got 1",
         r"number of values"),
    Case("config-cardinality-beyond-compiler", cfg(cardinalities={"Y": 30}), ConfigError,
         r"node 'S' \(2 values, 30 configurations of its parents \['Y'\]\).*more than 2,000,000 response types",
         r"lower those cardinalities"),
    Case("config-cardinality-astronomical", cfg(cardinalities={"A": 10**15}), ConfigError,
         r"exceed what fairprobe can enumerate", r"merge values"),
    Case("config-dag-not-a-string", cfg(dag_str=["A -> Y"]), ConfigError, r"'dag_str' must be a string",
         r"'A -> Y"),
    Case("config-attribute-node-number", cfg(attribute_node=0), ConfigError, r"'attribute_node' must be a string",
         r"such as 'A'"),
    Case("config-outcome-node-list", cfg(outcome_node=["Y"]), ConfigError, r"'outcome_node' must be a string",
         r"such as 'Y'"),
    Case("config-name-number", cfg(name=7), ConfigError, r"'name' must be a string", r"'my_bias'"),
    Case("config-parameter-name-digit", cfg(parameters=["1x"]), ConfigError,
         r"parameter name '1x' is not usable", r"letters, digits and '_'"),
    Case("config-parameter-named-P", cfg(parameters=["P"], constraints=["P(S = 1) >= 1 - P"]), ConfigError,
         r"parameter name 'P' is not usable", r"not 'P'"),
    Case("config-parameter-twice", cfg(parameters=["D", "D"]), ConfigError, r"lists a name twice",
         r"each parameter once"),
    Case("config-probability-parameter-undeclared", cfg(probability_parameters=["E"]), ConfigError,
         r"probability_parameters names \['E'\]", r"only declared parameters"),
    Case("config-keys-not-strings", lambda: BiasConfig.from_dict({**SELECTION, 1: "x"}), ConfigError,
         r"keys must be strings; got \[1\]", r"Known keys"),
    Case("config-not-a-mapping", lambda: BiasConfig.from_dict([SELECTION]), ConfigError,
         r"is a JSON object .*got list", r"dag_str"),
    Case("config-json-invalid", lambda: BiasConfig.from_json('{"dag_str": "A -> Y", constraints: []}'),
         ConfigError, r"not valid JSON", r"quotes, commas"),
    Case("config-json-nested-deeply", lambda: BiasConfig.from_json('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"),
         ConfigError, r"nested too deeply", r"one flat object"),
    Case("config-json-path-is-folder", lambda: BiasConfig.from_json(TESTS), ConfigError, r"is a folder",
         r"path of a JSON file"),
    Case("config-json-missing-file", lambda: BiasConfig.from_json("no_such_bias.json"), ConfigError,
         r"'no_such_bias.json' does not exist", r"path of a JSON file or a JSON string"),
    Case("config-json-not-text", lambda: BiasConfig.from_json(SELECTION), ConfigError,
         r"needs a file path or a JSON string; got dict", r"from_dict"),
    Case("config-json-constraints-null", lambda: BiasConfig.from_json(json.dumps({**SELECTION, "constraints": None})),
         ConfigError, r"'constraints' must be a list", r"\[\] for none"),
    Case("config-constraint-divides-by-parameter", cfg(constraints=["P(S = 1) >= 1 - 0.1 / D"]), ConfigError,
         r"dividing by D is not supported", r"multiply both sides"),
]

# -- query / constraint parser ---------------------------------------------------------------------
QUERY_CASES = [
    Case("query-not-a-string", lambda: parse_expression(None), ConfigError,
         r"Expected an expression string .*got NoneType", r"P\(S = 1\) >= 1 - D"),
    Case("query-divides-by-zero", lambda: parse_expression("P(Y = 1) / 0"), ConfigError, r"division by zero",
         r"column 10"),
    Case("query-divides-by-zero-expression", lambda: parse_expression("P(Y = 1) / (2 - 2)"), ConfigError,
         r"division by zero", r"at '/ \(2 - 2\)'"),
    Case("query-divides-by-probability", lambda: parse_expression("P(Y = 1 & A = 0) / P(A = 0)"), ConfigError,
         r"dividing by a probability is not polynomial", r"P\(Y = 1 \| A = 0\)"),
    Case("query-power", lambda: parse_expression("P(Y = 1)^2"), ConfigError, r"unexpected character '\^'",
         r"column 9"),
    Case("query-deep-parentheses", lambda: parse_expression("(" * 5000 + "P(Y = 1)" + ")" * 5000), ConfigError,
         r"nested more than 100 levels", r"simplify it"),
    Case("query-deep-signs", lambda: parse_expression("-" * 5000 + "P(Y = 1)"), ConfigError,
         r"nested more than 100 levels", r"simplify it"),
    Case("query-too-long", lambda: parse_expression(" + ".join(["P(Y = 1 | A = 0)"] * 2000)), ConfigError,
         r"characters long; fairprobe reads at most 20000", r"Shorten it"),
    Case("query-degree-too-high", lambda: parse_expression("*".join(["P(Y = 1)"] * 12)), ConfigError,
         r"multiplies more than 8 probabilities", r"simplify it"),
    Case("query-huge-number", lambda: parse_expression("1e400 * P(Y = 1)"), ConfigError,
         r"the number 1e400 is too large", r"at most 1e300"),
    Case("query-huge-integer", lambda: parse_expression("9" * 400 + " * P(Y = 1)"), ConfigError,
         r"too large", r"at most 1e300"),
    Case("query-lowercase-p", lambda: parse_expression("p(Y = 1)"), ConfigError,
         r"p\(\.\.\.\) is not a function fairprobe knows", r"capital P"),
    Case("query-uses-parameter", bound("P(P = 1 | Y = 0 & A = 0) + D"), ConfigError,
         r"uses \['D'\], which are not probabilities", r"constraints"),
    Case("query-in-bound-divides-by-zero", bound("P(P = 1 | Y = 0 & A = 0) / 0"), ConfigError,
         r"division by zero", r"column"),
    Case("query-in-bound-ratio", bound("P(P = 1 & Y = 0) / P(Y = 0)"), ConfigError,
         r"not polynomial in probabilities", r"conditional probability"),
    Case("constraint-no-comparison", lambda: parse_constraint("P(S = 1)"), ConfigError,
         r"expected one of '<=', '>=', '=='", r"column 9"),
    Case("constraint-divides-by-zero-parameter", lambda: parse_constraint("P(S = 1) >= 1 / (D - D)"), ConfigError,
         r"division by zero", r"column 15"),
    Case("constraint-not-a-string", lambda: parse_constraint(0.5), ConfigError, r"got float 0\.5",
         r"such as 'P\(S = 1\) >= 1 - D'"),
]

# -- options of bound / sensitivity / breakdown -----------------------------------------------------
OPTION_CASES = [
    Case("bound-D-true", bound(D=True), ConfigError, r"D = True is a bool, not a number", r"D=0\.05"),
    Case("bound-D-text", bound(D="abc"), ConfigError, r"D = 'abc' is a str", r"one number \(D=0\.05\)"),
    Case("bound-D-list", bound(D=[0.05]), ConfigError, r"D = \[0\.05\] is a list", r"fairprobe\.sensitivity"),
    Case("bound-D-nan", bound(D=float("nan")), ConfigError, r"D = nan is not a finite number", NUMBER),
    Case("bound-D-infinite", bound(D=float("inf")), ConfigError, r"D = inf is not a finite number", NUMBER),
    Case("bound-D-complex", bound(D=0.05 + 0j), ConfigError, r"is a complex, not a number", NUMBER),
    Case("bound-D-dict-text", bound(D={"D": "0.05x"}), ConfigError, r"D = '0\.05x' is a str", NUMBER),
    Case("bound-D-dict-key-number", bound(D={0: 0.05}), ConfigError, r"D has the key 0", r"strings"),
    Case("bound-named-parameter-text", lambda: fp.bound(["proxy_label", "selection"], "fpr", sel(CELLS),
                                                        D_proxy_label="0.1", D_selection=0.1), ConfigError,
         r"D_proxy_label = '0\.1' is a str", NUMBER),
    Case("bound-time-limit-zero", bound(time_limit=0), ConfigError, r"time_limit = 0 must be a positive number",
         r"time_limit=60 \(None for no limit\)"),
    Case("bound-time-limit-negative", bound(time_limit=-5), ConfigError, r"time_limit = -5 must be a positive",
         r"time_limit=60"),
    Case("bound-time-limit-nan", bound(time_limit=float("nan")), ConfigError, r"time_limit = nan is not a finite",
         r"None for no limit"),
    Case("bound-time-limit-text", bound(time_limit="60s"), ConfigError, r"time_limit = '60s' is a str",
         r"time_limit=60"),
    Case("bound-gap-negative", bound(gap=-1e-6), ConfigError, r"gap = -1e-06 must be >= 0", r"gap=1e-6"),
    Case("bound-gap-nan", bound(gap=float("nan")), ConfigError, r"gap = nan is not a finite number", r"gap=1e-6"),
    Case("bound-n-jobs-zero", bound(n_jobs=0), ConfigError, r"n_jobs = 0 must be a positive integer",
         r"-1 for all cores"),
    Case("bound-n-jobs-text", bound(n_jobs="2"), ConfigError, r"n_jobs = '2' must be a positive integer",
         r"n_jobs=2"),
    Case("bound-reduce-text", bound(reduce="no"), ConfigError, r"reduce = 'no' must be True or False", r"True"),
    Case("bound-solver-options-list", bound(solver_options=["numerics/feastol", 1e-8]), ConfigError,
         r"solver_options = .* must be a dict", r"numerics/feastol"),
    Case("bound-backend-none", bound(backend=None), ConfigError, r"backend = None must be a backend name",
         r"'scip'"),
    Case("sweep-D-bools", sweep(D=[True, False]), ConfigError, r"D = True is a bool", NUMBER),
    Case("sweep-D-text-values", sweep(D=["0", "0.1"]), ConfigError, r"D = '0' is a str", NUMBER),
    Case("sweep-D-nested", sweep(D=[[0.0, 0.05]]), ConfigError, r"D = \[0\.0, 0\.05\] is a list", NUMBER),
    Case("sweep-D-range-text", sweep(D="0:0.1:11"), ConfigError, r"got '0:0\.1:11'", r"np\.linspace"),
    Case("sweep-D-dict-scalar", sweep(D={"D": 0.1}), ConfigError, r"D = 0\.1 is not a list of sensitivity values",
         r"D=\[0, 0\.02, 0\.05\]"),
    Case("sweep-D-empty-dict", sweep(D={}), ConfigError, r"D is an empty dict", r"at least one parameter"),
    Case("sweep-D-nan", sweep(D=np.array([0.0, np.nan])), ConfigError, r"D = nan is not a finite number", NUMBER),
    Case("sweep-time-limit-nan", sweep(time_limit=float("nan")), ConfigError, r"time_limit = nan",
         r"None for no limit"),
    Case("sweep-n-jobs-zero", sweep(n_jobs=0), ConfigError, r"n_jobs = 0", r"-1 for all cores"),
    Case("sweep-fixed-text", lambda: fp.sensitivity(["proxy_label", "selection"], "fpr", sel(CELLS), D=[0.1],
                                                    parameter="D_selection", D_proxy_label="x", progress=False),
         ConfigError, r"D_proxy_label = 'x' is a str", NUMBER),
    Case("sweep-progress-text", sweep(progress="yes"), ConfigError, r"progress = 'yes' must be True or False",
         r"True"),
    Case("sweep-parameter-number", sweep(parameter=1), ConfigError, r"parameter = 1 must be the name",
         r"e\.g\. 'D'"),
    Case("sweep-grid-D-dict", lambda: fp.sensitivity_grid(["proxy_label"], ["fpr"], {"t": CELLS}, D={"D": [0.1]},
                                                          progress=False),
         ConfigError, r"sweeps one parameter", r"D=\[0, 0\.05\]"),
    Case("breakdown-D-max-negative", breakdown(D_max=-0.5), ConfigError, r"D_max = -0\.5 must be > 0",
         r"D_max=0\.5"),
    Case("breakdown-D-max-nan", breakdown(D_max=float("nan")), ConfigError, r"D_max = nan is not a finite",
         r"D_max=0\.5"),
    Case("breakdown-xtol-zero", breakdown(xtol=0), ConfigError, r"xtol = 0 must be at least 1e-12",
         r"xtol=1e-4"),
    Case("breakdown-xtol-nan", breakdown(xtol=float("nan")), ConfigError, r"xtol = nan is not a finite number",
         r"xtol=1e-4"),
    Case("breakdown-threshold-text", breakdown(threshold="0.1"), ConfigError, r"threshold = '0\.1' is a str",
         r"threshold=0\.0"),
    Case("breakdown-tolerance-nan", breakdown(tolerance=float("nan")), ConfigError,
         r"tolerance = nan is not a finite number", r"tolerance=0\.05"),
    Case("breakdown-time-limit-zero", breakdown(time_limit=0), ConfigError, r"time_limit = 0", r"time_limit=60"),
]

# -- item 3: codes that do not fit a binary role ----------------------------------------------------
BINARY = (r"recode it to 0/1 \(a score: threshold it first.*\), or declare its cardinality with "
          r"cardinalities=\{{'{}': 3\}}")
CODE_CASES = [
    Case("codes-prediction-three-values", bound(data=P_THREE, D=0.0), DataError,
         r"Column 'P' holds values \[0, 1, 2\] but 'P' is the prediction node, which is binary",
         BINARY.format("P")),
    Case("codes-proxy-label-three-values", bound(data=Y_THREE, D=0.0), DataError,
         r"Column 'Y' holds values \[0, 1, 2\] but node 'Y' has no declared cardinality", BINARY.format("Y")),
    Case("codes-outcome-three-values-selection", lambda: fp.bound("selection", "fpr", sel(Y_THREE), D=0.05),
         DataError, r"Column 'Y' holds values \[0, 1, 2\] but 'Y' is the outcome node", BINARY.format("Y")),
    Case("codes-prediction-three-values-sweep", lambda: fp.sensitivity("proxy_label", "fpr", P_THREE, D=[0.0],
                                                                       progress=False),
         DataError, r"Column 'P' holds values \[0, 1, 2\]", BINARY.format("P")),
    Case("codes-prediction-three-values-breakdown", lambda: fp.breakdown("proxy_label", "fpr_parity", P_THREE),
         DataError, r"Column 'P' holds values \[0, 1, 2\]", BINARY.format("P")),
    Case("codes-prediction-labels-1-2", bound(data=ObservedTable.from_frame(ROWS.assign(P=ROWS.P + 1))), DataError,
         r"Column 'P' holds the labels \[1, 2\] but 'P' is the prediction node.*cannot tell which label means 1",
         r"\(df\[col\] == 2\)\.astype\(int\).*cardinalities=\{'P': 2\}"),
    Case("codes-outcome-labels-yes-no", bound(data=ObservedTable.from_frame(
        ROWS.assign(Y=ROWS.Y.map({0: "no", 1: "yes"})))), DataError,
         r"Column 'Y' holds the labels \['no', 'yes'\].*cannot tell which label means 1",
         r"'no' = 0, 'yes' = 1"),
    Case("codes-mixed-labels-in-frame", bound(data=ROWS.assign(A=[0, 1, "1", 0] * 5)), DataError,
         r"Column 'A' \(node A\) mixes value types", r"astype\(str\)"),
]

ALL_CASES = TABLE_CASES + CONFIG_CASES + QUERY_CASES + OPTION_CASES + CODE_CASES


@pytest.mark.parametrize("case", params(ALL_CASES))
def test_bad_input(case: Case) -> None:
    check(case)


# -- command line ----------------------------------------------------------------------------------
CLI = [
    CliCase("cli-bound-prediction-three-values", ("bound", "--bias", "proxy_label", "--metric", "fpr", "--data",
                                                  "{d}/p_three.csv", "--D", "0.05"),
            r"Column 'P' holds values \[0, 1, 2\]", BINARY.format("P")),
    CliCase("cli-sweep-outcome-labels", ("sweep", "--bias", "proxy_label", "--metric", "fpr", "--data",
                                         "{d}/rows_yes_no.csv", "--D", "0,0.1"),
            r"Column 'Y' holds the labels \['no', 'yes'\]", r"recode its column to 0/1"),
    CliCase("cli-bound-D-nan", ("bound", "--bias", "proxy_label", "--metric", "fpr", "--data",
                                "{d}/cells.csv", "--D", "nan"),
            r"D = nan is not a finite number", r"D=0\.05"),
    CliCase("cli-bound-query-divides-by-zero", ("bound", "--bias", "proxy_label", "--metric",
                                                "P(P = 1 | A = 0) / 0", "--data", "{d}/cells.csv", "--D", "0.05"),
            r"division by zero", r"column"),
    CliCase("cli-bound-time-limit-zero", ("bound", "--bias", "proxy_label", "--metric", "fpr", "--data",
                                          "{d}/cells.csv", "--D", "0.05", "--time-limit", "0"),
            r"--time-limit 0 must be a positive number of seconds", r"--time-limit none for no limit"),
]


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture files every CLI case refers to as ``{d}/...``."""
    d = tmp_path_factory.mktemp("badinputs")
    CELLS.to_csv(d / "cells.csv", index=False)
    P_THREE.to_csv(d / "p_three.csv", index=False)
    ROWS.assign(Y=ROWS.Y.map({0: "no", 1: "yes"})).to_csv(d / "rows_yes_no.csv", index=False)
    return d


@pytest.mark.parametrize("case", params(CLI))
def test_bad_input_command_line(case: CliCase, d: Path, capsys: pytest.CaptureFixture) -> None:
    check_cli(case, capsys, folder=d)


def test_case_counts() -> None:
    """At least 60 distinct cases for these entry points (the brief's target)."""
    assert len(ALL_CASES) + len(CLI) >= 60
    assert len({c.id for c in ALL_CASES} | {c.id for c in CLI}) == len(ALL_CASES) + len(CLI)


# -- item 3 (issue 13): behaviour that was silently wrong before ------------------------------------
def test_item3_binary_roles_and_types_are_errors_not_answers() -> None:
    """``P = 2`` is no longer "not 1", ``Y = 2`` no longer asks to increase D, labels are not guessed,
    and bad option types raise ConfigError (no TypeError/ValueError/sympy/SCIP exception)."""
    with pytest.raises(DataError, match=r"Column 'P' holds values \[0, 1, 2\]"):
        fp.bound("proxy_label", "fpr", P_THREE, D=0.0)
    with pytest.raises(DataError, match=r"Column 'Y' holds values \[0, 1, 2\]"):
        fp.bound("proxy_label", "fpr", Y_THREE, D=0.0)
    with pytest.raises(DataError, match="mixes value types"):
        ObservedTable.from_frame(pd.DataFrame({"A": [0, 1, "1", 0], "Y": [0, 1, 1, 0]}))
    with pytest.raises(DataError, match=r"labels \[1, 2\]"):
        fp.bound("proxy_label", "fpr", ObservedTable.from_frame(ROWS.assign(P=ROWS.P + 1)), D=0.05)
    for D in (True, "abc", [0.05]):
        with pytest.raises(ConfigError, match="D = "):
            fp.bound("proxy_label", "fpr", CELLS, D=D)
    for limit in (0, -1, float("nan")):
        with pytest.raises(ConfigError, match="time_limit"):
            fp.bound("proxy_label", "fpr", CELLS, D=0.05, time_limit=limit)
    with pytest.raises(ConfigError, match="response types"):
        BiasConfig.from_dict({**SELECTION, "cardinalities": {"Y": 30}})  # S reads Y: 2 ** 30 response functions
    with pytest.raises(ConfigError, match="'constraints' must be a list"):
        BiasConfig.from_dict({**SELECTION, "constraints": None})
    for query in ("P(P = 1 | A = 0) / 0", "P(P = 1 & A = 0) / P(A = 0)", "(" * 3000 + "P(P = 1)" + ")" * 3000):
        with pytest.raises(ConfigError):
            fp.bound("proxy_label", query, CELLS, D=0.05)


def test_item3_declared_cardinality_is_accepted() -> None:
    """Declaring the cardinality (the fix the message names) makes a three-valued prediction usable."""
    config = {**fp.get_registry().biases["proxy_label"]().config().to_dict(), "cardinalities": {"P": 3}}
    res = fp.bound(config, "P(P = 2 | A = 0)", P_THREE, D=0.0)
    exact = P_THREE.query("A == 0 and P == 2").prob.sum() / P_THREE.query("A == 0").prob.sum()
    assert res.lower == pytest.approx(exact, abs=1e-7) and res.upper == pytest.approx(exact, abs=1e-7)


def test_item4_degenerate_tables_have_their_defined_value() -> None:
    """Overflowing counts give the exact shares; one row is a point mass; 0/1 codes are kept."""
    huge = ObservedTable.from_counts(pd.DataFrame({"A": [0, 1, 1], "n": [1e308, 1e308, 1e308]}))
    assert huge.cells.prob.tolist() == pytest.approx([1 / 3, 2 / 3]) and huge.n is None
    one = ObservedTable.from_frame(pd.DataFrame({"A": ["a"], "P": [1]}))
    assert one.cells.to_dict("list") == {"A": [0], "P": [1], "prob": [1.0]} and one.n == 1
    assert one.categories == {"A": ["a"], "P": [0, 1]}  # P = 1 stays 1 (it was re-coded to 0)

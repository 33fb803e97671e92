"""Bad inputs to FairTree: its parameters, ``fit`` and the ``fairprobe fairtree`` command line.

Each case is one mistake a user could make; it must raise a ``FairprobeError`` subclass whose
message names the problem and a fix (the CLI: exit code 2 and one line on stderr).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.fairtree import FairTree
from tests.bad_input import Case, CliCase, check, check_cli, params

RNG = np.random.default_rng(0)
N = 60
X = pd.DataFrame({"age": RNG.integers(18, 80, N), "sex": RNG.choice(["f", "m"], N)})
Y = RNG.normal(size=N)
P = Y + RNG.normal(0, 0.5, N)


def fit(data, y_true=None, y_pred=None, *, tree: dict | None = None, **kwargs) -> FairTree:
    return FairTree(**(tree or {})).fit(data, y_true=y_true, y_pred=y_pred, **kwargs)


def bad(**params: object) -> Callable[[], FairTree]:
    """Fitting a tree with ``params``: the constructor stores them, ``fit`` checks them."""
    return lambda: fit(X, Y, P, tree=params)


def with_nan(values: np.ndarray, at: int = 3) -> np.ndarray:
    out = np.asarray(values, dtype=float).copy()
    out[at] = np.nan
    return out


CASES = [
    # -- parameters (stored unchanged by the constructor, checked by fit) -----------------------
    Case("test-unknown", bad(test="anova"), ConfigError, r"test must be", r"fluctuation"),
    Case("alpha-zero", bad(alpha=0), ConfigError, r"alpha .*\(0, 1\).*got 0", r"alpha=0\.05"),
    Case("alpha-negative", bad(alpha=-0.05), ConfigError, r"alpha", r"alpha=0\.05"),
    Case("alpha-percent", bad(alpha=5), ConfigError, r"alpha.*got 5", r"alpha=0\.05"),
    Case("alpha-text", bad(alpha="0.05"), ConfigError, r"alpha .*must be a number", r"alpha=0\.05"),
    Case("alpha-nan", bad(alpha=float("nan")), ConfigError, r"alpha.*nan", r"alpha=0\.05"),
    Case("permutations-zero", bad(test="permutation", n_permutations=0), ConfigError,
         r"n_permutations.*>= 1.*got 0", r"n_permutations=999"),
    Case("permutations-negative", bad(n_permutations=-100), ConfigError, r"n_permutations.*-100",
         r"n_permutations=999"),
    Case("permutations-fraction", bad(n_permutations=99.5), ConfigError,
         r"n_permutations .*must be an integer.*got 99\.5", r"e\.g\."),
    Case("min-node-size-zero", bad(min_node_size=0), ConfigError, r"min_node_size.*got 0",
         r"min_node_size=10"),
    Case("min-level-size-zero", bad(min_level_size=0), ConfigError, r"min_level_size.*got 0",
         r"min_level_size=10"),
    Case("max-depth-negative", bad(max_depth=-1), ConfigError, r"max_depth.*got -1", r"None"),
    Case("jobs-zero", bad(n_jobs=0), ConfigError, r"n_jobs=0 runs no worker", r"n_jobs=1"),
    Case("decision-unknown", bad(decision="bias"), ConfigError, r"decision must be", r"bias_only"),
    Case("loss-unknown", bad(loss="hinge"), ConfigError, r"Unknown loss 'hinge'", r"callable"),
    Case("seed-text", bad(random_state="abc"), ConfigError, r"random_state.*'abc'",
         r"random_state=0"),
    Case("seed-negative", bad(random_state=-1), ConfigError, r"random_state.*-1", r"random_state=0"),
    # -- fit: rows ------------------------------------------------------------------------------
    Case("fit-zero-rows", lambda: fit(X.iloc[:0], residuals=[]), DataError, r"got 0 row", r"more rows"),
    Case("fit-one-row", lambda: fit(X.iloc[:1], Y[:1], P[:1]), DataError, r"got 1 row", r"more rows"),
    Case("fit-fewer-rows-than-two-children", lambda: fit(X.iloc[:15], Y[:15], P[:15]), DataError,
         r"15 row.*2 x min_node_size = 20", r"lower min_node_size"),
    # -- fit: outcome ---------------------------------------------------------------------------
    Case("y-true-text", lambda: fit(X, np.where(Y > 0, "yes", "no"), P), DataError,
         r"y_true holds text values such as \['(yes|no)'", r"Recode labels to 0/1"),
    Case("y-pred-text", lambda: fit(X, Y, pd.Series(P).astype(str)), DataError, r"y_pred holds text",
         r"pd\.to_numeric"),
    Case("y-true-nan", lambda: fit(X, with_nan(Y), P), DataError, r"y_true has 1 NaN.*rows \[3\]",
         r"drop those rows"),
    Case("y-pred-infinite", lambda: fit(X, Y, np.where(np.arange(N) == 5, np.inf, P)), DataError,
         r"y_pred has 1 NaN or infinite", r"drop those rows"),
    Case("residuals-nan", lambda: fit(X, residuals=with_nan(P - Y, 0)), DataError, r"residuals has 1 NaN",
         r"drop those rows"),
    Case("residuals-text", lambda: fit(X, residuals=["high"] * N), DataError, r"residuals holds text",
         r"pd\.to_numeric"),
    Case("y-true-datetime", lambda: fit(X, pd.date_range("2020-01-01", periods=N), P), DataError,
         r"y_true has dtype datetime64", r"Convert"),
    Case("y-true-too-short", lambda: fit(X, Y[:-1], P[:-1]), DataError, r"60 rows but y_true has 59",
         r"one value per covariate row"),
    Case("y-pred-length-differs", lambda: fit(X, Y, P[:-2]), DataError, r"y_pred has 58", r"one value per"),
    Case("y-true-two-columns", lambda: fit(X, np.c_[Y, Y], P), DataError, r"y_true must be one value per row",
         r"single column"),
    Case("residuals-and-targets", lambda: fit(X, Y, P, residuals=P - Y), DataError, r"not both",
         r"either residuals= or y_true"),
    Case("only-y-true", lambda: fit(X, Y), DataError, r"Give y_true and y_pred", r"residuals="),
    Case("log-loss-outside-unit-interval", lambda: fit(X, Y, P, tree={"test": "permutation", "loss": "log"}),
         DataError, r"loss='log' needs y_true in \[0, 1\]", r"loss='squared'"),
    Case("loss-needs-targets", lambda: fit(X, residuals=P - Y, tree={"loss": "absolute"}), DataError,
         r"loss='absolute' needs y_true and y_pred", r"pass them"),
    Case("callable-loss-with-residuals", lambda: fit(X, residuals=P - Y, tree={"loss": lambda y, p: abs(y - p)}),
         DataError, r"callable loss needs y_true", r"pass them"),
    Case("loss-values-wrong-length", lambda: fit(X, Y, P, loss_values=np.ones(N - 1)), DataError,
         r"60 rows but loss_values has 59", r"one value per"),
    # -- fit: covariates ------------------------------------------------------------------------
    Case("covariates-none", lambda: fit(X[[]], Y, P), DataError, r"No covariates given", r"pass the columns"),
    Case("covariates-list", lambda: fit([[1, 2]] * N, Y, P), DataError, r"got list", r"pd\.DataFrame"),
    Case("covariates-3d", lambda: fit(np.zeros((N, 2, 2)), Y, P), DataError, r"must be 2-D", r"DataFrame"),
    Case("covariates-text-array", lambda: fit(X.to_numpy(), Y, P), DataError, r"must be numeric",
         r"Pass a DataFrame"),
    Case("covariates-duplicate-column", lambda: fit(pd.concat([X, X.age], axis=1), Y, P), DataError,
         r"\['age'\] appear more than once", r"drop or rename"),
    Case("covariate-missing-values", lambda: fit(X.assign(age=with_nan(X.age)), Y, P), DataError,
         r"'age' has 1 missing value", r"drop or impute"),
    Case("covariate-infinite", lambda: fit(X.assign(age=np.where(X.age > 70, np.inf, X.age)), Y, P), DataError,
         r"'age' has infinite values", r"cap the values"),
]


@pytest.mark.parametrize("case", params(CASES))
def test_bad_input(case: Case) -> None:
    check(case)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("fairtree_bad")
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"age": rng.integers(18, 80, 80), "sex": rng.choice(["f", "m"], 80),
                       "y": rng.normal(size=80)})
    df["yhat"] = df.y + rng.normal(0, 0.5, 80)
    df["label"] = np.where(df.y > 0, "good", "bad")
    df.to_csv(d / "ok.csv", index=False)
    df.assign(y=df.y.where(df.index != 7)).to_csv(d / "nan_target.csv", index=False)
    df.assign(age=df.age.astype(float).where(df.index != 2)).to_csv(d / "nan_covariate.csv", index=False)
    df.iloc[:0].to_csv(d / "header_only.csv", index=False)
    df.iloc[:1].to_csv(d / "one_row.csv", index=False)
    return d


OK = ("fairtree", "--data", "{d}/ok.csv", "--target", "y", "--prediction", "yhat")
CLI_CASES = [
    CliCase("cli-alpha-zero", (*OK, "--covariates", "age", "--alpha", "0"), r"alpha .*got 0", r"alpha=0\.05"),
    CliCase("cli-alpha-percent", (*OK, "--covariates", "age", "--alpha", "5"), r"alpha.*got 5", r"alpha=0\.05"),
    CliCase("cli-permutations-zero", (*OK, "--covariates", "age", "--test", "permutation", "--permutations", "0"),
            r"--permutations.*got 0", r"n_permutations=999"),
    CliCase("cli-min-node-size-zero", (*OK, "--covariates", "age", "--min-node-size", "0"), r"--min-node-size",
            r"min_node_size=10"),
    CliCase("cli-max-depth-negative", (*OK, "--covariates", "age", "--max-depth", "-2"), r"--max-depth.*-2",
            r"no limit"),
    CliCase("cli-jobs-zero", (*OK, "--covariates", "age", "--jobs", "0"), r"--jobs 0 is not a number of workers",
            r"-1 for every core"),
    CliCase("cli-seed-negative", (*OK, "--covariates", "age", "--seed", "-3"), r"--seed.*-3", r"random_state=0"),
    CliCase("cli-covariate-missing", (*OK, "--covariates", "age,income"), r"\['income'\] are not in",
            r"available"),
    CliCase("cli-covariates-empty", (*OK, "--covariates", " , "), r"--covariates names no column",
            r"--covariates age,sex"),
    CliCase("cli-covariate-twice", (*OK, "--covariates", "age,sex,age"), r"\['age'\] more than once",
            r"name each column once"),
    CliCase("cli-target-text", ("fairtree", "--data", "{d}/ok.csv", "--target", "label", "--prediction", "yhat",
                                "--covariates", "age"), r"y_true holds text", r"Recode labels to 0/1"),
    CliCase("cli-residual-text", ("fairtree", "--data", "{d}/ok.csv", "--residual", "sex", "--covariates", "age"),
            r"residuals holds text", r"pd\.to_numeric"),
    CliCase("cli-target-nan", ("fairtree", "--data", "{d}/nan_target.csv", "--target", "y", "--prediction", "yhat",
                               "--covariates", "age"), r"y_true has 1 NaN.*rows \[7\]", r"drop those rows"),
    CliCase("cli-covariate-nan", ("fairtree", "--data", "{d}/nan_covariate.csv", "--target", "y", "--prediction",
                                  "yhat", "--covariates", "age,sex"), r"'age' has 1 missing", r"impute"),
    CliCase("cli-header-only", ("fairtree", "--data", "{d}/header_only.csv", "--target", "y", "--prediction", "yhat",
                                "--covariates", "age"), r"no rows|got 0 row", r"one row per unit|more rows"),
    CliCase("cli-one-row", ("fairtree", "--data", "{d}/one_row.csv", "--target", "y", "--prediction", "yhat",
                            "--covariates", "age"), r"got 1 row", r"more rows"),
    CliCase("cli-residual-and-target", (*OK, "--residual", "y", "--covariates", "age"), r"not both",
            r"Give --residual, or --target and --prediction"),
    CliCase("cli-no-target", ("fairtree", "--data", "{d}/ok.csv", "--covariates", "age"),
            r"Give --target and --prediction", r"--residual"),
    CliCase("cli-log-loss-on-scores", (*OK, "--covariates", "age", "--test", "permutation", "--loss", "log"),
            r"loss='log' needs y_true in \[0, 1\]", r"loss='squared'"),
]


@pytest.mark.parametrize("case", params(CLI_CASES))
def test_bad_command_line(case: CliCase, data_dir: Path, capsys: pytest.CaptureFixture) -> None:
    argv = tuple(a.format(d=data_dir) for a in case.argv)
    check_cli(dataclasses.replace(case, argv=argv), capsys)


def test_fairtree_on_too_few_rows_is_an_error_not_nan(data_dir: Path, capsys: pytest.CaptureFixture) -> None:
    """Item 4: 0 or 1 rows used to print "bias +nan" with exit code 0."""
    from tests.bad_input import run_cli

    for name in ("header_only", "one_row"):
        code, out, err = run_cli(["fairtree", "--data", str(data_dir / f"{name}.csv"), "--target", "y",
                                  "--prediction", "yhat", "--covariates", "age"], capsys)
        assert code == 2 and "nan" not in out.lower() and "row" in err, (name, code, out, err)

"""``fairprobe multiplicity``: a Rashomon set and its per-row conflict ratios from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from fairprobe.cli_io import force_option, out_option, read_table, require_columns
from fairprobe.exceptions import ConfigError, DataError

__all__ = ["multiplicity_command"]

MODELS = {
    "decision_tree": ("sklearn.tree", "DecisionTreeClassifier", {"max_depth": [2, 3, 4, 5, 6, 8, 10],
                                                                 "criterion": ["gini", "entropy"]}),
    "logistic_regression": ("sklearn.linear_model", "LogisticRegression", {"C": [0.01, 0.1, 1.0, 10.0]}),
    "random_forest": ("sklearn.ensemble", "RandomForestClassifier", {"max_depth": [4, 8, None],
                                                                     "n_estimators": [50]}),
}


@click.command("multiplicity")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Training data (CSV or Parquet).")
@click.option("--target", required=True, help="Column of the class label.")
@click.option("--model", type=click.Choice(sorted(MODELS)), default="decision_tree", show_default=True)
@click.option("--n-models", type=int, default=200, show_default=True)
@click.option("--epsilon", type=float, default=0.01, show_default=True)
@click.option("--subsample", type=float, default=1.0, show_default=True, help="Bootstrap size / training size.")
@click.option("--dataset-multiplicity", type=click.Choice(["bootstrap", "subsample", "none"]), default="bootstrap",
              show_default=True, help="How each model's training rows are drawn.")
@click.option("--feature-subsample", type=float, default=None, help="Share of features each model sees.")
@click.option("--feature-noise", type=float, default=None, help="Gaussian noise s.d. on numeric training features.")
@click.option("--exact-linear", is_flag=True,
              help="Also compute the exact ambiguity of linear classifiers by MIP (small data only).")
@click.option("--backend", default="scip", show_default=True, help="Solver for --exact-linear.")
@click.option("--time-limit", type=float, default=None, metavar="SECONDS",
              help="--exact-linear: seconds per program; a program stopped undecided widens the ambiguity interval.")
@click.option("--total-time-limit", type=float, default=None, metavar="SECONDS",
              help="--exact-linear: seconds for all its programs; points not reached stay undecided.")
@click.option("--test", "test_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Rows to report on (default: the training data).")
@click.option("--threshold", type=float, default=0.2, show_default=True, help="Flag rows above this conflict ratio.")
@click.option("--jobs", type=int, default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@out_option(help="Write the report folder.")
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def multiplicity_command(data_path: Path, target: str, model: str, n_models: int, epsilon: float, subsample: float,
                         dataset_multiplicity: str, feature_subsample: float | None, feature_noise: float | None,
                         exact_linear: bool, backend: str, time_limit: float | None, total_time_limit: float | None,
                         test_path: Path | None, threshold: float, jobs: int, seed: int, out_dir: Path | None,
                         as_json: bool) -> None:
    """Build a Rashomon set and report per-row conflict ratios (predictive multiplicity).

    With --exact-linear, also the exact ambiguity and discrepancy of linear classifiers by
    mixed-integer programs; --time-limit bounds each program and --total-time-limit all of them
    (undecided points widen the reported interval). Ctrl-C stops the exact programs: the partial,
    still certified result is printed and written to --out, and the exit code is 130.

    \b
    Example:
      fairprobe multiplicity --data train.csv --target y --model decision_tree --n-models 200 \\
          --epsilon 0.01 --test test.csv
      fairprobe multiplicity --data small.csv --target y --exact-linear --time-limit 10 \\
          --total-time-limit 300 --out multiplicity-report
    """
    import importlib

    from fairprobe.plugins.rashomon.rashomon_set import RashomonSet

    exact_model = None
    if exact_linear:  # fail before training when the solver or a limit cannot be used
        from fairprobe.core.registry import get_backend
        from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity

        exact_model = ExactLinearMultiplicity(epsilon=epsilon, backend=backend, n_jobs=jobs, time_limit=time_limit,
                                              total_time_limit=total_time_limit, progress=False)
        _validate_exact(exact_model)
        get_backend(backend)
    elif time_limit is not None or total_time_limit is not None:
        raise ConfigError("--time-limit and --total-time-limit bound the --exact-linear programs; add --exact-linear "
                          "or drop them (the Rashomon set of --model has no time limit).")
    _check_threshold(threshold)
    train = read_table(data_path)
    require_columns(train, [target], data_path)
    features = [c for c in train.columns if c != target]
    if not features:
        raise DataError(f"{data_path} has no feature columns besides the target {target!r}; add the features the "
                        "models should use.")
    if train[target].isna().any():
        raise DataError(f"The target column {target!r} has {int(train[target].isna().sum())} missing values; drop "
                        "those rows or fill them in.")
    test = read_table(test_path) if test_path else train
    if test_path:
        require_columns(test, features, test_path)
    module, cls, grid = MODELS[model]
    estimator = getattr(importlib.import_module(module), cls)()
    X, Xt, categorical = _encode(train[features], test[features])
    y = train[target].to_numpy()
    rs = RashomonSet(estimator, param_grid=grid, epsilon=epsilon, n_models=n_models, subsample=subsample,
                     dataset_multiplicity=dataset_multiplicity, feature_subsample=feature_subsample,
                     feature_noise=feature_noise, categorical_features=categorical, random_state=seed,
                     n_jobs=jobs).fit(X, y)
    rep = rs.individual_report(Xt, threshold)
    summary = {"n_models": len(rs.scores_), "reference_score": rs.reference_score_, "epsilon": epsilon,
               "ambiguity": rs.delta_ambiguity(Xt, 0.0), "ambiguity_0.4": rs.delta_ambiguity(Xt, 0.4),
               "flagged_rows": int(rep.flagged.sum()), "rows": len(rep)}
    exact, interrupted = None, False
    if exact_model is not None:
        try:
            exact = exact_model.fit(X, y)
        except KeyboardInterrupt:
            exact, interrupted = exact_model.partial_result_, True
            if exact is None:  # stopped in the reference program: nothing certified to report
                raise
        summary.update({"exact_linear_ambiguity": [exact.ambiguity_lower, exact.ambiguity_upper],
                        "exact_linear_discrepancy": exact.discrepancy,
                        "exact_linear_discrepancy_upper": exact.discrepancy_upper,
                        "exact_linear_reference_error": exact.reference_error,
                        "exact_linear_error_budget": exact.error_budget,
                        "exact_linear_undecided_rows": exact.n_undecided,
                        "exact_linear_stopped_by": exact.details.get("stopped_by")})
    if out_dir is not None:
        summary["report"] = rs.report(Xt, str(out_dir), threshold, exact_linear=exact)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        for k, v in summary.items():
            click.echo(f"{k}: {v}")
    if interrupted:
        where = f"; written to {summary['report']}" if out_dir is not None else ""
        click.echo(f"interrupted: the exact linear result above is partial ({summary['exact_linear_undecided_rows']} "
                   f"rows undecided, the rest certified){where}", err=True)
        sys.exit(130)


def _validate_exact(model: object) -> None:
    """The exact model's parameters, with the command-line option names in the message."""
    try:
        model.validate()  # type: ignore[attr-defined]
    except ConfigError as exc:
        text = str(exc)
        for api, option in (("total_time_limit", "--total-time-limit"), ("time_limit", "--time-limit"),
                            ("n_jobs", "--jobs"), ("epsilon", "--epsilon")):
            if text.startswith(api + " "):
                text = option + text[len(api):]
                break
        raise ConfigError(text.replace(" None", " unset")) from None


def _check_threshold(threshold: float) -> None:
    if not 0 <= threshold < 1:  # also rejects NaN
        raise ConfigError(f"--threshold is a conflict ratio, in [0, 0.5] for two classes; got {threshold}. "
                          "Use e.g. --threshold 0.2.")


def _encode(train: object, test: object) -> tuple[object, object, list[int]]:
    """Numeric matrices for scikit-learn: text columns become category codes (shared by train and test)."""
    import pandas as pd

    train, test = pd.DataFrame(train).copy(), pd.DataFrame(test).copy()
    categorical = []
    for j, col in enumerate(train.columns):
        if not pd.api.types.is_numeric_dtype(train[col]):
            levels = pd.Index(pd.concat([train[col], test[col]]).astype(str).unique())
            train[col] = levels.get_indexer(train[col].astype(str))
            test[col] = levels.get_indexer(test[col].astype(str))
            categorical.append(j)
    if train.isna().any().any() or test.isna().any().any():
        raise DataError("The features have missing values; impute or drop them first.")
    for col in train.columns:  # a column numeric in the training data must be numeric in the test data
        if not pd.api.types.is_numeric_dtype(test[col]):
            bad = test[col][pd.to_numeric(test[col], errors="coerce").isna()].astype(str).unique()[:3].tolist()
            raise DataError(f"Column {col!r} is numeric in the training data but holds {bad} in the test data; use "
                            "the same coding in both files.")
    return train.to_numpy(dtype=float), test.to_numpy(dtype=float), categorical

"""``fairprobe multiplicity``: a Rashomon set and its per-row conflict ratios from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import click

from fairprobe.cli_io import force_option, out_option, read_table, require_columns

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
                         exact_linear: bool, backend: str, test_path: Path | None, threshold: float, jobs: int,
                         seed: int, out_dir: Path | None, as_json: bool) -> None:
    """Build a Rashomon set and report per-row conflict ratios (predictive multiplicity).

    \b
    Example:
      fairprobe multiplicity --data train.csv --target y --model decision_tree --n-models 200 \\
          --epsilon 0.01 --test test.csv
    """
    import importlib

    from fairprobe.plugins.rashomon.rashomon_set import RashomonSet

    if exact_linear:  # fail before training when the solver cannot be used
        from fairprobe.core.registry import get_backend

        get_backend(backend)
    train = read_table(data_path)
    require_columns(train, [target], data_path)
    features = [c for c in train.columns if c != target]
    test = read_table(test_path) if test_path else train
    if test_path:
        require_columns(test, features, test_path)
    module, cls, grid = MODELS[model]
    estimator = getattr(importlib.import_module(module), cls)()
    X, Xt, categorical = _encode(train[features], test[features])
    rs = RashomonSet(estimator, param_grid=grid, epsilon=epsilon, n_models=n_models, subsample=subsample,
                     dataset_multiplicity=dataset_multiplicity, feature_subsample=feature_subsample,
                     feature_noise=feature_noise, categorical_features=categorical, random_state=seed,
                     n_jobs=jobs).fit(X, train[target].to_numpy())
    rep = rs.individual_report(Xt, threshold)
    summary = {"n_models": len(rs.scores_), "reference_score": rs.reference_score_, "epsilon": epsilon,
               "ambiguity": rs.delta_ambiguity(Xt, 0.0), "ambiguity_0.4": rs.delta_ambiguity(Xt, 0.4),
               "flagged_rows": int(rep.flagged.sum()), "rows": len(rep)}
    if exact_linear:
        from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity

        exact = ExactLinearMultiplicity(epsilon=epsilon, backend=backend, n_jobs=jobs).fit(X, train[target].to_numpy())
        summary.update({"exact_linear_ambiguity": [exact.ambiguity_lower, exact.ambiguity_upper],
                        "exact_linear_discrepancy": exact.discrepancy,
                        "exact_linear_reference_error": exact.reference_error})
    if out_dir is not None:
        summary["report"] = rs.report(Xt, str(out_dir), threshold)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        for k, v in summary.items():
            click.echo(f"{k}: {v}")


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
        from fairprobe.exceptions import DataError

        raise DataError("The features have missing values; impute or drop them first.")
    return train.to_numpy(dtype=float), test.to_numpy(dtype=float), categorical

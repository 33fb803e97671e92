"""``fairprobe multiplicity``: a Rashomon set and its per-row conflict ratios from the command line.

The features (``--features``, default every column but the target, ``--drop``, ``--id`` and the
protected ``--sensitive`` columns) go through a scikit-learn pipeline: text columns are one-hot
encoded, numeric ones standardised, then the chosen classifier. The report has the individual
report (rows identified by ``--id`` or their row number) and, with ``--sensitive``, the conflict
per group.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from fairprobe.cli.options import (
    data_option,
    force_option,
    jobs_option,
    json_option,
    out_option,
    read_table,
    require_columns,
    seed_option,
)
from fairprobe.core.jsonsafe import dumps
from fairprobe.core.progress import status
from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.rashomon.measures import conflict_by_group
from fairprobe.plugins.rashomon.text import group_table

__all__ = ["build_pipeline", "multiplicity_command"]

MODELS = {
    "decision_tree": ("sklearn.tree", "DecisionTreeClassifier", {"max_depth": [2, 3, 4, 5, 6, 8, 10],
                                                                 "criterion": ["gini", "entropy"]}),
    "logistic_regression": ("sklearn.linear_model", "LogisticRegression", {"C": [0.01, 0.1, 1.0, 10.0]}),
    "random_forest": ("sklearn.ensemble", "RandomForestClassifier", {"max_depth": [4, 8, None],
                                                                     "n_estimators": [50]}),
}


def _names(value: str | None) -> list[str]:
    """A comma-separated option as a list of column names."""
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def build_pipeline(frame: pd.DataFrame, model: str) -> tuple[Any, dict[str, list[Any]]]:
    """The encoding, scaling and classifier pipeline for ``frame``'s columns, and its parameter grid.

    Parameters
    ----------
    frame : DataFrame
        The feature columns.
    model : str
        A key of :data:`MODELS`.

    Returns
    -------
    pipeline : sklearn.pipeline.Pipeline
        One-hot encoding of text columns, standardisation of numeric ones, then the classifier.
    param_grid : dict
        The model's grid, named ``model__<parameter>``.

    Examples
    --------
    >>> import pandas as pd
    >>> pipe, grid = build_pipeline(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}), "logistic_regression")
    >>> [name for name, _ in pipe.steps], sorted(grid)
    (['encode', 'model'], ['model__C'])
    """
    import importlib

    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    module, cls, grid = MODELS[model]
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])
            or isinstance(frame[c].dtype, pd.CategoricalDtype)]
    numeric = [c for c in frame.columns if c not in text]
    encode = ColumnTransformer([("text", OneHotEncoder(handle_unknown="ignore", sparse_output=False), text),
                                ("numeric", StandardScaler(), numeric)])
    estimator = getattr(importlib.import_module(module), cls)()
    return Pipeline([("encode", encode), ("model", estimator)]), {f"model__{k}": v for k, v in grid.items()}


def _groups(frame: pd.DataFrame, sensitive: list[str]) -> pd.Series | None:
    """One group label per row: the protected column's value, or ``a=x & b=y`` for several."""
    if not sensitive:
        return None
    if len(sensitive) == 1:
        return frame[sensitive[0]].astype(str).rename(sensitive[0])
    label = frame[sensitive].astype(str).apply(lambda r: " & ".join(f"{k}={v}" for k, v in r.items()), axis=1)
    return label.rename(" & ".join(sensitive))


@click.command("multiplicity")
@data_option("Training data (CSV or Parquet).")
@click.option("--target", required=True, help="Column of the class label.")
@click.option("--features", default=None, metavar="COLS",
              help="Comma-separated feature columns (default: every column but the target, --id, --drop and "
                   "--sensitive).")
@click.option("--drop", default=None, metavar="COLS", help="Comma-separated columns not to use as features.")
@click.option("--sensitive", default=None, metavar="COLS",
              help="Comma-separated protected columns: a conflict table per group; not features unless "
                   "--use-sensitive.")
@click.option("--use-sensitive", is_flag=True, help="Also use the --sensitive columns as features.")
@click.option("--id", "id_column", default=None, metavar="COL",
              help="Column identifying the rows in the individual report (default: the row number).")
@click.option("--model", type=click.Choice(sorted(MODELS)), default="decision_tree", show_default=True)
@click.option("--n-models", type=int, default=200, show_default=True)
@click.option("--epsilon", type=float, default=0.01, show_default=True)
@click.option("--subsample", type=float, default=1.0, show_default=True, help="Bootstrap size / training size.")
@click.option("--dataset-multiplicity", type=click.Choice(["bootstrap", "subsample", "none"]), default="bootstrap",
              show_default=True, help="How each model's training rows are drawn.")
@click.option("--feature-subsample", type=float, default=None, help="Share of features each model sees.")
@click.option("--feature-noise", type=float, default=None,
              help="Gaussian noise s.d. on the numeric training features (in their own units).")
@click.option("--exact-linear", is_flag=True,
              help="Also compute the exact ambiguity of linear classifiers by MIP (small data only).")
@click.option("--exact-trees", is_flag=True,
              help="The exact Rashomon set of sparse trees instead (TreeFARMS; runs `fairprobe multiplicity-trees` "
                   "with --data, --target, --test, --features, --sensitive, --binarise, --n-thresholds, --out and "
                   "--json, and --epsilon (the additive bound on the penalised objective, 0.05) and --threshold "
                   "(0.1) when given). The sampled set's options (--model, --n-models, ...) are refused with it; "
                   "for --lambda, --depth-budget and the other tree options use `fairprobe multiplicity-trees`.")
@click.option("--binarise", is_flag=True,
              help="--exact-trees: binarise non-0/1 columns (thresholds at quantiles, one column per category).")
@click.option("--n-thresholds", type=int, default=3, show_default=True,
              help="--exact-trees with --binarise: quantile thresholds per numeric column.")
@click.option("--backend", default="scip", show_default=True, help="Solver for --exact-linear.")
@click.option("--time-limit", type=float, default=None, metavar="SECONDS",
              help="--exact-linear: seconds per program; a program stopped undecided widens the ambiguity interval.")
@click.option("--total-time-limit", type=float, default=None, metavar="SECONDS",
              help="--exact-linear: seconds for all its programs; points not reached stay undecided.")
@click.option("--test", "test_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Rows to report on (default: the training data).")
@click.option("--threshold", type=float, default=0.2, show_default=True, help="Flag rows above this conflict ratio.")
@jobs_option()
@seed_option()
@out_option(help="Write the report folder.")
@force_option
@json_option("Print the summary as JSON.")
def multiplicity_command(data_path: Path, target: str, features: str | None, drop: str | None,
                         sensitive: str | None, use_sensitive: bool, id_column: str | None, model: str, n_models: int,
                         epsilon: float, subsample: float, dataset_multiplicity: str, feature_subsample: float | None,
                         feature_noise: float | None, exact_linear: bool, exact_trees: bool, binarise: bool,
                         n_thresholds: int, backend: str, time_limit: float | None,
                         total_time_limit: float | None, test_path: Path | None, threshold: float, jobs: int,
                         seed: int, out_dir: Path | None, as_json: bool) -> None:
    """Build a Rashomon set and report per-row conflict ratios (predictive multiplicity).

    Text columns are one-hot encoded and numeric ones standardised (a scikit-learn pipeline);
    the protected --sensitive columns are left out of the features (unless --use-sensitive) and
    give a conflict table per group. With --exact-linear, also the exact ambiguity and
    discrepancy of linear classifiers by mixed-integer programs; --time-limit bounds each program
    and --total-time-limit all of them (undecided points widen the reported interval). Ctrl-C
    stops the exact programs: the partial, still certified result is printed and written to
    --out, and the exit code is 130.

    The text output says how many of the trained models are in the Rashomon set,
    then the ambiguity of the reported rows and a table per group; --json gives
    the same numbers (n_models_trained, n_models_within_epsilon, ...) and their
    definitions. A status line on stderr announces each long step when progress
    bars are shown (a terminal, or FAIRPROBE_PROGRESS=1; never with --quiet).

    \b
    Example:
      fairprobe multiplicity --data train.csv --target y --model decision_tree --n-models 200 \\
          --epsilon 0.01 --sensitive sex --drop name --test test.csv
      fairprobe multiplicity --data small.csv --target y --exact-linear --time-limit 10 \\
          --total-time-limit 300 --out multiplicity-report
      fairprobe multiplicity --data compas.csv --target two_year_recid --exact-trees --binarise \\
          --sensitive race --test test.csv
    """
    ctx = click.get_current_context()
    if exact_trees:
        _run_exact_trees(ctx, data_path=data_path, target=target, test_path=test_path, features=features,
                         sensitive=sensitive, binarise=binarise, n_thresholds=n_thresholds, out_dir=out_dir,
                         as_json=as_json, epsilon=epsilon, threshold=threshold)
        return
    tree_only = [_option_name(ctx, p) for p in ("binarise", "n_thresholds") if _given(ctx, p)]
    if tree_only:
        one = len(tree_only) == 1
        raise ConfigError(f"{_and(tree_only)} {'applies' if one else 'apply'} only to --exact-trees (the sparse trees "
                          f"need 0/1 features); add --exact-trees or drop {'it' if one else 'them'} (the sampled "
                          "models' pipeline one-hot encodes text columns itself).")
    from fairprobe.plugins.rashomon.rashomon_set import RashomonSet

    exact_model = _exact_model(exact_linear, epsilon, backend, jobs, time_limit, total_time_limit)
    _check_threshold(threshold)
    train, test, columns, protected = _read_data(data_path, target, features, drop, sensitive, use_sensitive,
                                                 id_column, test_path)
    estimator, grid = build_pipeline(train[columns], model)
    if "model__random_state" in estimator.get_params():  # the reference search too: --seed fixes every result
        estimator.set_params(model__random_state=seed)
    rs = RashomonSet(estimator=estimator, param_grid=grid, epsilon=epsilon, n_models=n_models, subsample=subsample,
                     dataset_multiplicity=dataset_multiplicity, feature_subsample=feature_subsample,
                     feature_noise=feature_noise, threshold=threshold, random_state=seed, n_jobs=jobs)
    y = train[target].to_numpy()
    groups = _groups(train, protected)
    n_settings = int(np.prod([len(v) for v in grid.values()])) if grid else 1
    status(f"fitting the reference model on {len(train):,} rows (a {rs.cv}-fold search over {n_settings} {model} "
           f"settings on three quarters of them, the rest held out for scoring), then {n_models} candidate models ...")
    with warnings.catch_warnings(record=True) as caught:  # reported on stderr, in the JSON and in the report
        warnings.simplefilter("always", UserWarning)
        rs.fit(train[columns], y_true=y, sensitive_features=groups)
    notes = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    for note in notes:
        click.echo(f"warning: {note}", err=True)
    rep, by_group = _individual_report(rs, test, columns, protected, threshold, test_path)
    summary = _summary(rs, rep, by_group, epsilon, columns, notes)
    summary["definitions"] = _definitions(model, dataset_multiplicity, epsilon, rs, test_path)
    exact, interrupted = None, False
    if exact_model is not None:
        status(f"solving the exact linear programs on {len(train):,} training rows (one mixed-integer program per "
               "distinct row at most) ...")
        exact, interrupted = _fit_exact(exact_model, estimator, train, columns, y, summary)
    if out_dir is not None:
        summary["report"] = _write_report(out_dir, rs, rep, by_group if test_path else None, notes, exact_model,
                                          exact, interrupted)
    if as_json:
        click.echo(dumps(summary, indent=2))
    else:
        click.echo(_text(summary, by_group, model, dataset_multiplicity, test_path, interrupted))
    if interrupted:
        where = f"; written to {summary['report']}" if out_dir is not None else ""
        click.echo(f"interrupted: the exact linear result above is partial ({summary['exact_linear_undecided_rows']} "
                   f"rows undecided, the rest certified){where}", err=True)
        sys.exit(130)


def _and(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the option ``name`` was set by the user (command line or environment), not left at its default."""
    return ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)


def _option_name(ctx: click.Context, name: str) -> str:
    """The option's longest spelling, e.g. ``--n-models`` for the parameter ``n_models``."""
    for param in ctx.command.params:
        if param.name == name:
            return max(param.opts, key=len)
    return name


#: ``multiplicity`` options that configure the sampled Rashomon set (or --exact-linear) and mean nothing for the
#: exact sparse trees: refused with --exact-trees when given on the command line.
_NOT_FOR_TREES = ("model", "n_models", "subsample", "dataset_multiplicity", "feature_subsample", "feature_noise",
                  "exact_linear", "backend", "time_limit", "total_time_limit", "drop", "id_column", "use_sensitive",
                  "jobs", "seed")


def _run_exact_trees(ctx: click.Context, *, epsilon: float, threshold: float, **options: Any) -> None:
    """``multiplicity --exact-trees``: refuse the sampled set's options, then run ``multiplicity-trees``.

    Separate from the command: which options pass on (and under which name) is one decision.
    """
    from fairprobe.plugins.rashomon.cli_trees import multiplicity_trees_command

    ignored = [_option_name(ctx, name) for name in _NOT_FOR_TREES
               if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE]
    if ignored:
        one = len(ignored) == 1
        raise ConfigError(f"--exact-trees enumerates every sparse tree, so {_and(ignored)} {'does' if one else 'do'} "
                          f"not apply to it; drop {'it' if one else 'them'}, or drop --exact-trees for the sampled "
                          "Rashomon set (tree options such as --lambda and --depth-budget: fairprobe "
                          "multiplicity-trees).")
    # options whose defaults differ between the two commands pass only if given
    extra = {"adder": epsilon} if _given(ctx, "epsilon") else {}
    extra.update({"threshold": threshold} if _given(ctx, "threshold") else {})
    ctx.invoke(multiplicity_trees_command, **options, **extra)


def _definitions(model: str, dataset_multiplicity: str, epsilon: float, rs: Any,
                 test_path: Path | None) -> dict[str, str]:
    """What each number of the summary is (the ``definitions`` of ``--json``)."""
    metric = rs.metric if isinstance(rs.metric, str) else "score"
    rows = "the --test rows" if test_path else "the training rows"
    drawn = {"bootstrap": "a bootstrap sample of the rows", "subsample": "a subsample of the rows",
             "none": "all rows"}
    return {
        "n_models_trained": f"{model} candidates, each fitted on {drawn[dataset_multiplicity]} with a hyperparameter "
                            "setting drawn from its grid",
        "n_models_within_epsilon": f"the Rashomon set: candidates whose held-out {metric} is at least the reference "
                                   f"model's minus epsilon={epsilon:g} (n_models is the same number)",
        "reference_score": f"held-out {metric} of the reference model (the cross-validated best of the grid)",
        "ambiguity": f"share of {rows} on which the Rashomon set's models disagree (conflict ratio > 0)",
        "ambiguity_0.4": f"share of {rows} with conflict ratio > 0.4",
        "exact_linear_ambiguity": "[lower, upper] certified share of the training rows that some linear classifier "
                                  "with at most exact_linear_error_budget training errors (the least-error linear "
                                  "classifier's errors plus epsilon x rows) decides differently from that "
                                  "least-error classifier; a different set of models from the sampled one, so it "
                                  "can be smaller or larger than ambiguity",
    }


def _fill(line: str, indent: str = "") -> str:
    """One paragraph of the text output, wrapped at 100 characters (continuation lines indented two more)."""
    import textwrap

    return textwrap.fill(line, width=100, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False, break_long_words=False)


def _text(summary: dict[str, Any], by_group: pd.DataFrame | None, model: str, dataset_multiplicity: str,
          test_path: Path | None, interrupted: bool) -> str:
    """The summary for people: the Rashomon set, the reported rows, the groups, the exact linear result."""
    s, eps, metric = summary, f"epsilon={summary['epsilon']:g}", summary["metric"]
    rows = f"{s['rows']:,} {'--test' if test_path else 'training'} rows"
    lines = ["Predictive multiplicity (sampled Rashomon set)",
             _fill(f"{s['n_models_within_epsilon']} of {s['n_models_trained']} trained models are within {eps} of "
                   f"the reference model's held-out {metric} {s['reference_score']:.4f} (the cross-validated best "
                   f"{model}; always predicting the majority class scores {s['baseline_score']:.4f}): the Rashomon "
                   "set."),
             _fill(f"On the {rows}: ambiguity {s['ambiguity']:.3f} (share of rows on which the set's models "
                   f"disagree), 0.4-ambiguity {s['ambiguity_0.4']:.3f}; {s['flagged_rows']:,} rows "
                   f"({s['flagged_rows'] / max(s['rows'], 1):.1%}) flagged with conflict ratio > "
                   f"{s['threshold']:g}."),
             _fill(f"Features ({len(s['features'])}): {', '.join(map(str, s['features']))}")]
    if s["reference_score"] <= s["baseline_score"] + 1e-12:  # as RashomonSet.trivial_reference_note
        lines.insert(1, _fill(f"Caution: the reference model scores no better than always predicting the majority "
                              f"class ({s['reference_score']:.4f} <= {s['baseline_score']:.4f}), so near-trivial "
                              "models are near-optimal and the figures below describe a useless model, not this "
                              "data's decisions; use a better model or --metric balanced_accuracy."))
    if by_group is not None:
        label = str(by_group.index.name or "group")
        lines += ["", f"Conflict by {label} ({rows}):", group_table(by_group, label)]
    if "exact_linear_ambiguity" in s:
        lines += ["", *_exact_text(s, model, dataset_multiplicity, interrupted)]
    for note in s.get("warnings", []):
        lines += ["", _fill(f"Warning: {note}")]
    return "\n".join(lines)


def _exact_text(s: dict[str, Any], model: str, dataset_multiplicity: str, interrupted: bool) -> list[str]:
    """The ``--exact-linear`` lines, and why its ambiguity need not match the sampled one."""
    low, high = s["exact_linear_ambiguity"]
    err0, budget = s["exact_linear_reference_error"], s["exact_linear_error_budget"]
    amb = f"{low:.3f}" if low == high else f"in [{low:.3f}, {high:.3f}]"
    found = "" if s["exact_linear_reference_optimal"] else " found"
    lines = ["Exact linear Rashomon set (mixed-integer programs on the training rows):",
             _fill(f"certified ambiguity {amb}: share of the training rows that some linear classifier with at "
                   f"most {int(np.floor(budget + 1e-9))} training errors (budget {err0} + epsilon x rows = "
                   f"{budget:g}) decides differently from the reference, the least-error linear classifier{found} "
                   f"({err0} errors).", "  ")]
    if s.get("exact_linear_discrepancy") is not None:
        lines.append(_fill(f"discrepancy {s['exact_linear_discrepancy']:.3f} (certified upper bound "
                           f"{s['exact_linear_discrepancy_upper']:.3f}): the largest share of decisions one such "
                           "classifier changes.", "  "))
    if s["exact_linear_undecided_rows"]:
        why = s.get("exact_linear_stopped_by") or "a time limit"
        lines.append(_fill(f"{s['exact_linear_undecided_rows']} rows undecided (stopped by {why})"
                           f"{'; a partial result' if interrupted else ''}: the ambiguity is an interval.", "  "))
    how = {"bootstrap": "bootstrap samples", "subsample": "subsamples", "none": "all rows"}[dataset_multiplicity]
    lines.append(_fill(f"Not the same quantity as the sampled ambiguity above: that set holds {model} models trained "
                       f"on {how} and kept for a held-out {s['metric']} within epsilon of the reference model's; "
                       "this one holds every linear classifier within a training-error budget (epsilon is a share "
                       "of training errors here). Different sets of models, so either number can be the larger.",
                       "  "))
    return lines


def _exact_model(exact_linear: bool, epsilon: float, backend: str, jobs: int, time_limit: float | None,
                 total_time_limit: float | None) -> Any:
    """The ``--exact-linear`` model, validated with its backend (None without the flag).

    Separate from the command so that every check of the exact options runs before any data is read.
    """
    if exact_linear:  # fail before training when the solver or a limit cannot be used
        from fairprobe.core.registry import get_backend
        from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity

        exact_model = ExactLinearMultiplicity(epsilon=epsilon, backend=backend, n_jobs=jobs, time_limit=time_limit,
                                              total_time_limit=total_time_limit, progress=False)
        _validate_exact(exact_model)
        get_backend(backend)
        return exact_model
    if time_limit is not None or total_time_limit is not None:
        raise ConfigError("--time-limit and --total-time-limit bound the --exact-linear programs; add --exact-linear "
                          "or drop them (the Rashomon set of --model has no time limit).")
    return None


def _read_data(data_path: Path, target: str, features: str | None, drop: str | None, sensitive: str | None,
               use_sensitive: bool, id_column: str | None,
               test_path: Path | None) -> tuple[pd.DataFrame, pd.DataFrame, list[str], list[str]]:
    """The training and report rows (indexed by ``--id`` or the row number), the feature and protected columns.

    Separate from the command: reading the files and checking the column options is one step that
    either yields consistent tables or raises a ``ConfigError`` / ``DataError`` naming the option.
    """
    train = read_table(data_path)
    protected, dropped, chosen = _names(sensitive), _names(drop), _names(features)
    require_columns(train, [target], data_path)
    require_columns(train, protected + dropped + chosen + ([id_column] if id_column else []), data_path)
    if target in chosen or target in protected:
        raise ConfigError(f"The target {target!r} cannot be a feature or a --sensitive column; remove it from "
                          "--features / --sensitive.")
    excluded = {target, *dropped, *([id_column] if id_column else []), *([] if use_sensitive else protected)}
    columns = [c for c in (chosen or train.columns) if c not in excluded]
    if not columns:
        raise DataError(f"{data_path} has no feature columns besides the target {target!r}"
                        f"{' and the excluded columns' if excluded - {target} else ''}; add the features the "
                        "models should use (or name them with --features).")
    if train[target].isna().any():
        raise DataError(f"The target column {target!r} has {int(train[target].isna().sum())} missing values; drop "
                        "those rows or fill them in.")
    test = read_table(test_path) if test_path else train
    if test_path:
        require_columns(test, columns + ([id_column] if id_column else []), test_path)
    _check_features(train[columns], test[columns])
    if id_column:
        train, test = train.set_index(id_column, drop=False), test.set_index(id_column, drop=False)
    else:  # the row number in the file (an explicit index, so the report's tables keep it)
        train.index = pd.Index(np.arange(len(train)), name="row")
        test.index = pd.Index(np.arange(len(test)), name="row")
    return train, test, columns, protected


def _individual_report(rs: Any, test: pd.DataFrame, columns: list[str], protected: list[str], threshold: float,
                       test_path: Path | None) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The individual report and the conflict per group, of the ``--test`` rows or else the training rows.

    Separate from the command because the ``--test`` rows need their own groups and aggregation.
    """
    if not test_path:
        return rs.to_frame(), rs.by_group_
    rep = rs.individual_report(test[columns], threshold)
    test_groups = _groups(test, protected) if all(c in test.columns for c in protected) else None
    if test_groups is not None:
        rep.insert(0, test_groups.name, test_groups.to_numpy())
    by_group = None if test_groups is None else conflict_by_group(rep, test_groups.name)
    return rep, by_group


def _json_cell(column: str, value: Any) -> int | float | bool:
    """A cell of the per-group table in JSON: ``rows`` a count, ``too_few`` a flag, the rest numbers."""
    if column == "rows":
        return int(value)
    return bool(value) if column == "too_few" else float(value)


def _summary(rs: Any, rep: pd.DataFrame, by_group: pd.DataFrame | None, epsilon: float, columns: list[str],
             notes: list[str]) -> dict[str, Any]:
    """The printed (and JSON) summary of the Rashomon set's results.

    Separate from the command: it only assembles the summary's keys from the fitted results.
    """
    summary: dict[str, Any] = {
        "n_models_trained": len(rs.candidate_scores_), "n_models_within_epsilon": len(rs.scores_),
        "n_models": len(rs.scores_),  # the Rashomon set's size, as before (= n_models_within_epsilon)
        "metric": rs.metric if isinstance(rs.metric, str) else "score",
        "reference_score": rs.reference_score_, "baseline_score": rs.baseline_score_,
        "epsilon": epsilon, "features": columns, "ambiguity": float((rep.conflict_ratio > 0).mean()),
        "ambiguity_0.4": float((rep.conflict_ratio > 0.4).mean()), "threshold": float(rs.threshold),
        "flagged_rows": int(rep.flagged.sum()),
        "rows": len(rep)}
    if by_group is not None:
        summary["conflict_by_group"] = {str(g): {k: _json_cell(k, v) for k, v in r.items()}
                                        for g, r in by_group.iterrows()}
    if notes:
        summary["warnings"] = notes
    return summary


def _fit_exact(exact_model: Any, estimator: Any, train: pd.DataFrame, columns: list[str], y: np.ndarray,
               summary: dict[str, Any]) -> tuple[Any, bool]:
    """Fit the exact model on the encoded training rows; add its results to ``summary``.

    Separate from the command: it owns the Ctrl-C handling (a partial result is kept unless the
    reference program was stopped). Returns the result and whether it was interrupted.
    """
    from sklearn.base import clone

    interrupted = False
    # the same encoding and scaling as the Rashomon set's models (a copy: rs.estimator stays unfitted)
    encode = clone(estimator.named_steps["encode"])
    X_num = pd.DataFrame(encode.fit_transform(train[columns]), index=train.index)
    try:
        exact_model.fit(X_num, y_true=y)
    except KeyboardInterrupt:
        interrupted = True
        if "result_" not in vars(exact_model):  # stopped in the reference program: nothing certified
            raise
    exact = exact_model.result_
    summary.update({"exact_linear_ambiguity": [exact.ambiguity_lower, exact.ambiguity_upper],
                    "exact_linear_discrepancy": exact.discrepancy,
                    "exact_linear_discrepancy_upper": exact.discrepancy_upper,
                    "exact_linear_reference_error": exact.reference_error,
                    "exact_linear_reference_optimal": bool(exact.reference_optimal),
                    "exact_linear_error_budget": exact.error_budget,
                    "exact_linear_undecided_rows": exact.n_undecided,
                    "exact_linear_stopped_by": exact.details.get("stopped_by")})
    return exact, interrupted


def _write_report(out_dir: Path, rs: Any, rep: pd.DataFrame, test_by_group: pd.DataFrame | None, notes: list[str],
                  exact_model: Any, exact: Any, interrupted: bool) -> str:
    """Write the ``--out`` report folder; its path.

    Separate from the command: it only lays out the sections (``test_by_group``: the ``--test``
    rows' conflict per group, None without ``--test``).
    """
    from fairprobe.reporting.report import Report, command_line

    report = Report("Predictive multiplicity", command=command_line())
    sec = rs.report_section(report, "Rashomon set and conflict ratios")
    for note in notes:
        sec.add_note(f"Warning: {note}")
    sec.add_table("individual report", rep)
    if test_by_group is not None:  # without --test the section has the training rows' table
        sec.add_table("conflict by group (test rows)", test_by_group.round(4))
    text = [sec.notes[0]]
    if exact_model is not None:
        exact_model.report_section(report, "Exact multiplicity of linear classifiers (training rows)")
        text.append(exact.summary() + (" (partial: stopped by Ctrl-C; every decided row certified)"
                                       if interrupted else ""))
    report.summary = "\n".join(text)
    return str(report.write(out_dir))


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


def _check_features(train: pd.DataFrame, test: pd.DataFrame) -> None:
    """Missing values, and a column numeric in the training data but text in the test data."""
    if train.isna().any().any() or test.isna().any().any():
        raise DataError("The features have missing values; impute or drop them first (or leave those columns out "
                        "with --drop).")
    for col in train.columns:
        if pd.api.types.is_numeric_dtype(train[col]) and not pd.api.types.is_numeric_dtype(test[col]):
            bad = test[col][pd.to_numeric(test[col], errors="coerce").isna()].astype(str).unique()[:3].tolist()
            raise DataError(f"Column {col!r} is numeric in the training data but holds {bad} in the test data; use "
                            "the same coding in both files.")

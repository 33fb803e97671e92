"""``fairprobe multiplicity-trees``: the exact Rashomon set of sparse decision trees from the command line.

A separate command (rather than ``fairprobe multiplicity --exact-trees``) so it has its own
TreeFARMS options; it prints the set's size, ambiguity and per-group conflict, and with ``--out``
writes the report (individual report, ambiguity curve, per-group conflict).
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from fairprobe.cli.options import data_option, force_option, json_option, out_option, read_table, require_columns
from fairprobe.exceptions import DataError

__all__ = ["multiplicity_trees_command"]


@click.command("multiplicity-trees")
@data_option("Training data (CSV or Parquet).")
@click.option("--target", required=True, help="Column of the 0/1 label.")
@click.option("--test", "test_path", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Rows to measure multiplicity on (default: the training rows).")
@click.option("--features", default=None, metavar="COLS",
              help="Comma-separated feature columns (default: every column but the target and --sensitive).")
@click.option("--sensitive", default=None, metavar="COL", help="Protected column: a conflict table per group.")
@click.option("--regularization", "--lambda", "regularization", type=float, default=0.01, show_default=True,
              help="Penalty per leaf (TreeFARMS' regularization).")
@click.option("--depth-budget", type=int, default=5, show_default=True, help="Maximum depth counting leaves (0: none).")
@click.option("--rashomon-bound-adder", "--epsilon", "adder", type=float, default=None,
              help="Additive bound on the objective (default 0.05 unless --rashomon-bound-multiplier).")
@click.option("--rashomon-bound-multiplier", "multiplier", type=float, default=None,
              help="Multiplicative bound: objective <= (1 + m) x optimum.")
@click.option("--time-limit", type=float, default=0, show_default=True, help="Seconds for the enumeration (0: none).")
@click.option("--binarise", "binarise", is_flag=True,
              help="Binarise non-0/1 columns (thresholds at quantiles, one column per category).")
@click.option("--n-thresholds", type=int, default=3, show_default=True, help="Quantile thresholds per numeric column.")
@click.option("--threshold", type=float, default=0.1, show_default=True, help="Flag rows with conflict above it.")
@click.option("--memory-limit-gb", type=float, default=None, help="Refuse sets needing more memory than this.")
@out_option(help="Write the report folder.")
@force_option
@json_option("Print the summary as JSON.")
def multiplicity_trees_command(data_path: Path, target: str, test_path: Path | None, features: str | None,
                               sensitive: str | None, regularization: float, depth_budget: int, adder: float | None,
                               multiplier: float | None, time_limit: float, binarise: bool, n_thresholds: int,
                               threshold: float, memory_limit_gb: float | None, out_dir: Path | None,
                               as_json: bool) -> None:
    """Enumerate the exact Rashomon set of sparse trees (TreeFARMS) and report its multiplicity.

    Needs the optional enumerator: pip install "fairprobe[trees]". Example:

      fairprobe multiplicity-trees --data compas-binary.csv --target recidivate-within-two-years:1 \\
          --lambda 0.01 --epsilon 0.05 --depth-budget 5 --out trees-report
    """
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    train = read_table(data_path)
    test = read_table(test_path) if test_path is not None else None
    cols = [c.strip() for c in (features or "").split(",") if c.strip()] or \
        [c for c in train.columns if c not in (target, sensitive)]
    require_columns(train, [*cols, target], data_path)
    if test is not None:
        require_columns(test, cols + ([sensitive] if sensitive else []), test_path)  # type: ignore[arg-type]
    elif sensitive:
        require_columns(train, [sensitive], data_path)
    if adder is None and multiplier is None:
        adder = 0.05
    trs = TreeRashomonSet(regularization=regularization, depth_budget=depth_budget, rashomon_bound_adder=adder,
                          rashomon_bound_multiplier=multiplier, time_limit=time_limit,
                          binariser="quantile" if binarise else None, n_thresholds=n_thresholds, threshold=threshold,
                          memory_limit_gb=memory_limit_gb)
    y = train[target].to_numpy()
    if not np.isin(train[target].unique(), [0, 1]).all():
        raise DataError(f"--target {target!r} must hold 0/1 labels.")
    eval_frame = test if test is not None else train
    groups = eval_frame[sensitive].to_numpy() if sensitive else None
    trs.fit(train[cols], y, sensitive_features=groups, X_eval=None if test is None else test[cols])
    summary = {"trees": trs.n_trees_, "complete": trs.complete_, "best_objective": round(trs.reference_objective_, 6),
               "rows": int(trs.conflict_ratio_.size), "ambiguity": round(trs.delta_ambiguity(0.0), 6),
               "ambiguity_0.1": round(trs.delta_ambiguity(0.1), 6),
               "mean_conflict_ratio": round(float(trs.conflict_ratio_.mean()), 6),
               "flagged_rows": int(trs.individual_["flagged"].sum()), "enumeration_seconds": round(trs.fit_seconds_, 3)}
    if trs.by_group_ is not None:
        summary["by_group"] = {str(k): {c: float(v) for c, v in row.items()}
                               for k, row in trs.by_group_.iterrows()}
    if out_dir is not None:
        summary["report"] = str(trs.to_report(out_dir, force=True, title="fairprobe multiplicity-trees"))
    if as_json:
        click.echo(json.dumps(summary, indent=2, default=str))
    else:
        for k, v in summary.items():
            click.echo(f"{k}: {v}")

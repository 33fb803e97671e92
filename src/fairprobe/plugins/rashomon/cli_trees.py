"""``fairprobe multiplicity-trees``: the exact Rashomon set of sparse decision trees from the command line.

A separate command (``fairprobe multiplicity --exact-trees`` runs it with the options the two
share) so it has its own TreeFARMS options; it prints the set's summary and an aligned per-group
table, and with ``--out`` writes the report (individual report, ambiguity curve, per-group conflict).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from fairprobe.cli.options import data_option, force_option, json_option, out_option, read_table, require_columns
from fairprobe.core.jsonsafe import dumps
from fairprobe.core.progress import status
from fairprobe.exceptions import ConfigError, DataError, FairprobeError
from fairprobe.plugins.rashomon.text import group_table

if TYPE_CHECKING:
    import pandas as pd

    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

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

    Needs the optional enumerator: pip install "fairprobe[trees]" (without it the command says so and
    does nothing, with exit status 0). The features must be 0/1
    unless --binarise. The text output is the set's summary and, with --sensitive, a table per
    group; --json gives the same numbers.

    \b
    Example:
      fairprobe multiplicity-trees --data compas-binary.csv --target recidivate-within-two-years:1 \\
          --lambda 0.01 --epsilon 0.05 --depth-budget 5 --out trees-report
      fairprobe multiplicity-trees --data compas.csv --target two_year_recid --binarise \\
          --sensitive race --json
    """
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    train, test, cols = _read_tables(data_path, test_path, target, sensitive, features)
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
    # a plain install: the options and columns were checked above; say which extra runs the rest, do not fail
    if not TreeRashomonSet.availability():
        reason = f"the exact tree Rashomon set is {TreeRashomonSet.availability_reason()}"
        click.echo(dumps({"skipped": True, "reason": reason}, indent=2) if as_json
                   else f"multiplicity-trees skipped: {reason}")
        return
    status(f"enumerating the exact Rashomon set of sparse trees with TreeFARMS on {len(train):,} rows "
            f"({len(cols)} feature columns, depth budget {depth_budget}) ...")
    try:
        trs.fit(train[cols], y_true=y, sensitive_features=groups, X_eval=None if test is None else test[cols])
    except FairprobeError as exc:  # the analysis names its parameters; the user typed options
        text = _option_names(str(exc))
        if text == str(exc):
            raise
        raise type(exc)(text) from exc
    summary = _summary(trs)
    if out_dir is not None:
        summary["report"] = str(trs.to_report(out_dir, force=True, title="fairprobe multiplicity-trees"))
    if as_json:
        click.echo(dumps(summary, indent=2))
        return
    lines = [trs.summary().as_text()]
    if trs.by_group_ is not None:
        rows = f"{summary['rows']:,} {'--test' if test is not None else 'training'} rows"
        lines += ["", f"Conflict by {sensitive} ({rows}):", group_table(trs.by_group_, str(sensitive))]
    click.echo("\n".join(lines))


def _read_tables(data_path: Path, test_path: Path | None, target: str, sensitive: str | None,
                 features: str | None) -> tuple[pd.DataFrame, pd.DataFrame | None, list[str]]:
    """The training and test tables and the feature columns, every column named checked to exist."""
    if sensitive and "," in sensitive:
        raise ConfigError(f"--sensitive takes one protected column for the exact trees; got {sensitive!r}. Name one "
                          "column (or combine them into one column first).")
    train = read_table(data_path)
    test = read_table(test_path) if test_path is not None else None
    cols = [c.strip() for c in (features or "").split(",") if c.strip()] or \
        [c for c in train.columns if c not in (target, sensitive)]
    require_columns(train, [*cols, target], data_path)
    if test is not None:
        require_columns(test, cols + ([sensitive] if sensitive else []), test_path)  # type: ignore[arg-type]
    elif sensitive:
        require_columns(train, [sensitive], data_path)
    return train, test, cols


def _summary(trs: TreeRashomonSet) -> dict[str, Any]:
    """The fitted set's figures, as printed by --json."""
    summary: dict[str, Any] = {
        "trees": trs.n_trees_, "complete": trs.complete_, "best_objective": round(trs.reference_objective_, 6),
        "rows": int(trs.conflict_ratio_.size), "ambiguity": round(trs.delta_ambiguity(0.0), 6),
        "ambiguity_0.1": round(trs.delta_ambiguity(0.1), 6),
        "mean_conflict_ratio": round(float(trs.conflict_ratio_.mean()), 6),
        "flagged_rows": int(trs.individual_["flagged"].sum()), "enumeration_seconds": round(trs.fit_seconds_, 3)}
    if trs.by_group_ is not None:
        summary["by_group"] = {str(k): {c: bool(v) if c == "too_few" else float(v) for c, v in row.items()}
                               for k, row in trs.by_group_.iterrows()}
    return summary


#: TreeRashomonSet's parameter names in its messages, and the options of this command that set them.
_OPTIONS = {"binariser='quantile'": "--binarise", "n_thresholds": "--n-thresholds", "depth_budget": "--depth-budget",
            "rashomon_bound_adder": "--epsilon", "rashomon_bound_multiplier": "--rashomon-bound-multiplier",
            "memory_limit_gb": "--memory-limit-gb", "time_limit": "--time-limit"}
#: Plain words that are parameter names only when a message starts with them ("threshold must be ...").
_LEADING = {"regularization": "--lambda", "threshold": "--threshold"}


def _option_names(message: str) -> str:
    """``message`` with TreeRashomonSet's parameter names replaced by this command's options.

    ``"Pass binariser='quantile' ..."`` becomes ``"Pass --binarise ..."``, ``"threshold must be ..."``
    becomes ``"--threshold must be ..."``; the word "threshold" elsewhere in a sentence is left alone.
    """
    pattern = "|".join(re.escape(k) for k in sorted(_OPTIONS, key=len, reverse=True))
    message = re.sub(rf"(?<![\w-])({pattern})(?!\w)", lambda m: _OPTIONS[m.group(1)], message)
    first = message.split(" ", 1)[0]
    return _LEADING[first] + message[len(first):] if first in _LEADING else message

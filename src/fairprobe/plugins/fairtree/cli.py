"""``fairprobe fairtree``: the subgroup audit from the command line (added through the plugin hook)."""

from __future__ import annotations

from pathlib import Path

import click

from fairprobe.cli.options import (
    PLOT_SUFFIXES,
    data_option,
    file_option,
    force_option,
    jobs_option,
    json_option,
    out_option,
    read_table,
    require_columns,
    save_plot,
    seed_option,
)
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import DataError

__all__ = ["fairtree_command"]


@click.command("fairtree")
@data_option("CSV or Parquet with one row per unit.")
@click.option("--target", default=None, help="Column of observed values.")
@click.option("--prediction", default=None, help="Column of predictions (labels or probabilities).")
@click.option("--residual", default=None, help="Column of signed residuals (instead of target/prediction).")
@click.option("--covariates", required=True, help="Comma-separated covariate columns to audit along.")
@click.option("--test", type=click.Choice(["fluctuation", "permutation"]), default="fluctuation", show_default=True)
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--min-node-size", type=int, default=None,
              help="Smallest child of a split [default: max(10, ceil(0.01 * rows))].")
@click.option("--max-depth", type=int, default=None)
@click.option("--permutations", type=int, default=5000, show_default=True)
@click.option("--loss", type=click.Choice(["squared", "absolute", "zero_one", "log"]), default="squared",
              show_default=True)
@seed_option()
@jobs_option("Parallel workers for permutation tests.")
@file_option("--plot", "plot_path", suffixes=PLOT_SUFFIXES, help="Write the tree plot (PNG/PDF/SVG).")
@file_option("--csv", "out_path", help="Write the splits table (CSV).")
@out_option()
@force_option
@json_option("Print splits and leaves as JSON.")
def fairtree_command(data_path: Path, target: str | None, prediction: str | None, residual: str | None,
                     covariates: str, test: str, alpha: float, min_node_size: int | None, max_depth: int | None,
                     permutations: int, loss: str, seed: int, jobs: int, plot_path: Path | None, out_path: Path | None,
                     out_dir: Path | None, as_json: bool) -> None:
    """Audit model performance across subgroups (FairTree) and classify bias vs variance.

    \b
    Example:
      fairprobe fairtree --data preds.csv --target y --prediction yhat --covariates age,sex,topic
    """
    from fairprobe.plugins.fairtree.tree import FairTree

    if residual and (target or prediction):
        raise DataError("Give --residual, or --target and --prediction, not both (the residual would silently win).")
    if not residual and not (target and prediction):
        raise DataError("Give --target and --prediction, or --residual.")
    cols = [c.strip() for c in covariates.split(",") if c.strip()]
    if not cols:
        raise DataError("--covariates names no column; list the columns to audit along, e.g. --covariates age,sex.")
    twice = sorted({c for c in cols if cols.count(c) > 1})
    if twice:
        raise DataError(f"--covariates lists {twice} more than once; name each column once.")
    df = read_table(data_path)
    require_columns(df, cols + [c for c in (target, prediction, residual) if c], data_path)
    tree = FairTree(test=test, alpha=alpha, min_node_size=min_node_size, max_depth=max_depth,
                    n_permutations=permutations, loss=loss, random_state=seed, n_jobs=jobs)
    if residual:
        tree.fit(df[cols], residuals=df[residual])
    else:
        tree.fit(df[cols], y_true=df[target], y_pred=df[prediction])
    if plot_path is not None:
        save_plot(tree.figures()["tree"], plot_path)
    if out_path is not None:
        tree.splits_.to_csv(out_path, index=False)
    if out_dir is not None:
        from fairprobe.cli.options import write_report

        write_report(out_dir, "FairTree subgroup audit", summary=tree.summary(),
                     parameters={"data": str(data_path), "covariates": covariates, "test": test, "alpha": alpha,
                                 "min node size": tree.min_node_size_, "max depth": max_depth, "seed": seed},
                     figures=tree.figures(), tables=tree.summary().tables)
    if as_json:
        out = {"splits": tree.splits_.to_dict(orient="records"), "leaves": tree.leaves_.to_dict(orient="records"),
               "ranking": tree.covariate_ranking().to_dict(orient="records")}
        # NaN (a nominal split's threshold, the permutation test's p_bias) as null: NaN is not JSON
        click.echo(dumps(out, indent=2))
    else:
        click.echo(tree.summary())

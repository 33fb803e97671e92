"""``fairprobe fairtree``: the subgroup audit from the command line (added through the plugin hook)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
    save_table,
    seed_option,
)
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import DataError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["apply_orders", "fairtree_command", "parse_ordered"]


def parse_ordered(specs: tuple[str, ...] | list[str]) -> dict[str, list[str]]:
    """``--ordered COLUMN=L1,L2,...`` values as ``{column: [levels in order]}``.

    Parameters
    ----------
    specs : sequence of str
        The option's values, one per ``--ordered``.

    Returns
    -------
    dict of str to list of str
        The levels of each column, lowest first (surrounding spaces removed).

    Raises
    ------
    DataError
        A value without ``=``, no column or no level, a level given twice, or a column given twice.

    Examples
    --------
    >>> parse_ordered(["grade=low, mid,high"])
    {'grade': ['low', 'mid', 'high']}
    """
    out: dict[str, list[str]] = {}
    for spec in specs:
        column, sep, text = spec.partition("=")
        column = column.strip()
        levels = [v.strip() for v in text.split(",")]
        if not sep or not column or not any(levels):
            raise DataError(f"--ordered {spec!r} is not COLUMN=LEVEL1,LEVEL2,...; write the column, '=' and its "
                            "levels from lowest to highest, e.g. --ordered education=Preschool,1st-4th,5th-6th.")
        if "" in levels:
            raise DataError(f"--ordered {column}= has an empty level ({text!r}); separate the levels by single "
                            "commas.")
        twice = sorted({v for v in levels if levels.count(v) > 1})
        if twice:
            raise DataError(f"--ordered {column}= lists {twice} more than once; name each level once.")
        if column in out:
            raise DataError(f"--ordered names {column!r} twice; give each column's order once.")
        out[column] = levels
    return out


def apply_orders(df: pd.DataFrame, orders: dict[str, list[str]], covariates: list[str]) -> pd.DataFrame:
    """``df`` with each column of ``orders`` as an ordered ``pandas.Categorical`` (FairTree: ordinal).

    A CSV keeps no order of its categories, so without this an ordered column (education) would
    be nominal and its splits arbitrary sets of levels. Values are matched by their text.

    Parameters
    ----------
    df : DataFrame
        The table read from the data file.
    orders : dict of str to list of str
        From :func:`parse_ordered`.
    covariates : list of str
        The ``--covariates``; every ordered column must be one of them.

    Returns
    -------
    DataFrame
        A copy with the ordered columns converted.

    Raises
    ------
    DataError
        A column not among the covariates, or levels that do not match the column's values
        (naming the values missing from the order and the levels not in the data).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"grade": ["mid", "low", "high"]})
    >>> apply_orders(df, {"grade": ["low", "mid", "high"]}, ["grade"]).grade.cat.categories.tolist()
    ['low', 'mid', 'high']
    """
    import pandas as pd

    out = df.copy()
    for column, levels in orders.items():
        if column not in covariates:
            raise DataError(f"--ordered names {column!r}, which is not in --covariates {covariates}; add it there "
                            "or drop its --ordered.")
        text = out[column].astype(str).str.strip()
        present = list(dict.fromkeys(text))
        missing = sorted(set(present) - set(levels))
        unknown = [v for v in levels if v not in set(present)]
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"its values {missing} are not in the order")
            if unknown:
                parts.append(f"the levels {unknown} are not values of the column")
            raise DataError(f"--ordered {column}=...: {' and '.join(parts)}. List every value of {column!r} once, "
                            f"lowest first; its values are {sorted(present)}.")
        out[column] = pd.Categorical(text, categories=levels, ordered=True)
    return out


@click.command("fairtree")
@data_option("CSV or Parquet with one row per unit.")
@click.option("--target", default=None, help="Column of observed values.")
@click.option("--prediction", default=None, help="Column of predictions (labels or probabilities).")
@click.option("--residual", default=None, help="Column of signed residuals (instead of target/prediction).")
@click.option("--covariates", required=True, help="Comma-separated covariate columns to audit along.")
@click.option("--ordered", "ordered", multiple=True, metavar="COLUMN=L1,L2,...",
              help="Treat a covariate as ordered, levels lowest first (a CSV keeps no order), e.g. "
                   "--ordered education=Preschool,1st-4th,5th-6th; repeat it for several columns.")
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
                     covariates: str, ordered: tuple[str, ...], test: str, alpha: float, min_node_size: int | None,
                     max_depth: int | None, permutations: int, loss: str, seed: int, jobs: int, plot_path: Path | None,
                     out_path: Path | None, out_dir: Path | None, as_json: bool) -> None:
    """Audit model performance across subgroups (FairTree) and classify bias vs variance.

    \b
    Example:
      fairprobe fairtree --data preds.csv --target y --prediction yhat --covariates age,sex,topic
      fairprobe fairtree ... --covariates age,level --ordered level=low,mid,high
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
    orders = parse_ordered(ordered)  # before reading: a malformed option fails fast
    df = read_table(data_path)
    require_columns(df, cols + [c for c in (target, prediction, residual) if c], data_path)
    df = apply_orders(df, orders, cols)
    tree = FairTree(test=test, alpha=alpha, min_node_size=min_node_size, max_depth=max_depth,
                    n_permutations=permutations, loss=loss, random_state=seed, n_jobs=jobs)
    if residual:
        tree.fit(df[cols], residuals=df[residual])
    else:
        tree.fit(df[cols], y_true=df[target], y_pred=df[prediction])
    if plot_path is not None:
        save_plot(tree.figures()["tree"], plot_path)
    if out_path is not None:
        save_table(tree.splits_, out_path)  # atomic: no partial file; a refused write is one line
    if out_dir is not None:
        from fairprobe.cli.options import write_report

        write_report(out_dir, "FairTree subgroup audit", summary=tree.summary(),
                     parameters={"data": str(data_path), "covariates": covariates,
                                 **({"ordered": "; ".join(ordered)} if ordered else {}), "test": test, "alpha": alpha,
                                 "min node size": tree.min_node_size_, "max depth": max_depth, "seed": seed},
                     figures=tree.figures(), tables=tree.summary().tables)
    if as_json:
        out = {"splits": tree.splits_.to_dict(orient="records"), "leaves": tree.leaves_.to_dict(orient="records"),
               "ranking": tree.covariate_ranking().to_dict(orient="records")}
        # NaN (a nominal split's threshold, the permutation test's p_bias) as null: NaN is not JSON
        click.echo(dumps(out, indent=2))
    else:
        click.echo(tree.summary())

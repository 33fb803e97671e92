"""``fairprobe riskscore``: the per-group risk-score audit from the command line."""

from __future__ import annotations

from pathlib import Path

import click
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
from fairprobe.exceptions import ConfigError

__all__ = ["riskscore_command"]


@click.command("riskscore")
@data_option("CSV or Parquet with one row per unit.")
@click.option("--target", required=True, help="Column of binary outcomes (0/1, or see --positive-label).")
@click.option("--positive-label", default=None,
              help="Value of the target column that means 1 (e.g. yes); every other value means 0.")
@click.option("--score", required=True,
              help="Column of risk scores: probabilities in [0, 1]; any real score ranks (calibration is then NaN).")
@click.option("--sensitive", "--groups", "groups", required=True,
              help="Comma-separated sensitive attribute columns (--groups: the earlier name).")
@click.option("--max-intersections", type=int, default=3, show_default=True)
@click.option("--min-group-size", type=int, default=100, show_default=True)
@click.option("--bootstrap", type=int, default=200, show_default=True)
@click.option("--permutations", type=int, default=1000, show_default=True,
              help="Random relabellings for comparing ECE and EUR with random groups of the same size.")
@jobs_option()
@seed_option()
@out_option(help="Write the report folder (HTML, PNG, CSV).")
@force_option
@json_option("Print the results, the differences to all and the dropped groups as JSON.")
def riskscore_command(data_path: Path, target: str, positive_label: str | None, score: str, groups: str,
                      max_intersections: int, min_group_size: int, bootstrap: int, permutations: int, jobs: int,
                      seed: int,
                      out_dir: Path | None, as_json: bool) -> None:
    """Per-group calibration (DRMSCE, ECE), AUROC/AUPRG and under-representation with bootstrap intervals.

    \b
    Example:
      fairprobe riskscore --data scores.csv --target y --score r --sensitive sex,age_group --out report
    """
    from fairprobe.plugins.riskscore.audit import RiskScoreAudit

    cols = [c.strip() for c in groups.split(",") if c.strip()]
    if not cols:
        raise ConfigError(f"--sensitive {groups!r} names no column; give comma-separated columns, e.g. "
                          "--sensitive sex,race.")
    audit = RiskScoreAudit(max_intersections=max_intersections,
                           min_group_size=min_group_size, n_bootstrap=bootstrap, n_permutations=permutations,
                           random_state=seed,
                           n_jobs=None if jobs == 1 else jobs, positive_label=positive_label)
    audit._check_params()  # options first: a bad option fails before the file is read
    df = read_table(data_path)
    require_columns(df, [target, score, *cols], data_path)
    y = df[target]
    if positive_label is not None and pd.api.types.is_numeric_dtype(y):
        try:  # "--positive-label 2" on a numeric column means the number 2
            audit.positive_label = float(positive_label)
            y = y.astype(float)
        except ValueError:
            pass  # the audit names the column's values
    audit.fit(df, y_true=y, y_score=score, sensitive_features=cols)
    if out_dir is not None:
        audit.to_report(out_dir)  # `--out` prints "report written to <page>" on stderr (fairprobe.cli.options)
    if as_json:
        from fairprobe.core.jsonsafe import dumps

        out = {"values": (f"point: the estimate on the full data (null where undefined: see note); median, lower, "
                          f"upper: {audit.ci * 100:g}% bootstrap percentile interval over {audit.n_bootstrap} "
                          "resamples (null when too many resamples are undefined)"),
               "min_group_size": audit.min_group_size,
               "results": audit.results_.to_dict(orient="records"),
               "differences": audit.differences_.to_dict(orient="records"),
               "permutation_tests": audit.permutation_tests_.to_dict(orient="records"),
               "dropped_groups": audit.dropped_groups_.to_dict(orient="records")}
        # undefined values (NaN) as null: NaN is not JSON
        click.echo(dumps(out, indent=2))
    else:
        click.echo(audit.summary())

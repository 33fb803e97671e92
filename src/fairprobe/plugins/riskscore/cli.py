"""``fairprobe riskscore``: the per-group risk-score audit from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import click

from fairprobe.cli_io import read_table, require_columns

__all__ = ["riskscore_command"]


@click.command("riskscore")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="CSV or Parquet with one row per unit.")
@click.option("--target", required=True, help="Column of binary outcomes.")
@click.option("--score", required=True, help="Column of risk scores in [0, 1].")
@click.option("--groups", required=True, help="Comma-separated sensitive attribute columns.")
@click.option("--max-intersections", type=int, default=3, show_default=True)
@click.option("--min-group-size", type=int, default=100, show_default=True)
@click.option("--bootstrap", type=int, default=200, show_default=True)
@click.option("--jobs", type=int, default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the report folder (HTML, PNG, CSV).")
@click.option("--json", "as_json", is_flag=True, help="Print the results table as JSON.")
def riskscore_command(data_path: Path, target: str, score: str, groups: str, max_intersections: int,
                      min_group_size: int, bootstrap: int, jobs: int, seed: int, out_dir: Path | None,
                      as_json: bool) -> None:
    """Per-group calibration (DRMSCE), AUROC/AUPRG and under-representation with bootstrap intervals.

    \b
    Example:
      fairprobe riskscore --data scores.csv --target y --score r --groups sex,age_group --out report
    """
    from fairprobe.plugins.riskscore.audit import RiskScoreAudit

    df = read_table(data_path)
    cols = [c.strip() for c in groups.split(",") if c.strip()]
    require_columns(df, [target, score, *cols], data_path)
    audit = RiskScoreAudit(sensitive_features=cols, max_intersections=max_intersections,
                           min_group_size=min_group_size, n_bootstrap=bootstrap, random_state=seed, n_jobs=jobs)
    audit.fit(df[target], df[score], df[cols])
    if out_dir is not None:
        page = audit.report(str(out_dir))
        click.echo(f"report written to {page}", err=as_json)
    if as_json:
        click.echo(json.dumps(audit.results_.to_dict(orient="records"), indent=2, default=str))
    else:
        click.echo(audit.summary())

"""``fairprobe study``: the fragility study across data sets, classifiers and constraints."""

from __future__ import annotations

from pathlib import Path

import click

from fairprobe.cli.options import jobs_option


@click.command("study")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder (tables, figures, report); a folder holding the same study is resumed.")
@jobs_option("Local worker processes (-1 = all cores).", default=1)
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on this Dask scheduler (e.g. tcp://10.0.0.5:8786) instead of local workers.")
@click.option("--force", is_flag=True, help="Start over in a folder that holds a study.")
@click.option("--no-report", is_flag=True, help="Write the tables only (no figures, no HTML report).")
def study_command(spec: Path, out_dir: Path, jobs: int, scheduler: str | None, force: bool, no_report: bool) -> None:
    """Fragility study: train, evaluate and bound every model of a spec (YAML or JSON).

    Every (data set, classifier, constraint) is trained and evaluated on held-out rows; every
    parity metric is bounded under every bias at every level D. Finished units are written at
    once, so a stopped study resumes when the same command runs again.

    \b
    Example:
      fairprobe study examples/study/paper.yaml --out study-out --jobs 2
      fairprobe study spec.yaml --out study-out --scheduler tcp://scheduler:8786
    """
    from fairprobe.core.progress import is_quiet
    from fairprobe.studies import study

    client = None
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise click.UsageError('--scheduler needs Dask: pip install "fairprobe[dask]"') from None
        client = Client(scheduler)
    try:
        res = study(spec, out_dir, n_jobs=jobs, client=client, progress=not is_quiet(), force=force,
                    report=not no_report)
    finally:
        if client is not None:
            client.close()
    click.echo(res.summary())
    click.echo(f"tables: {out_dir / 'results.csv'}, {out_dir / 'ranking.csv'}")

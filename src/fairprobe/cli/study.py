"""``fairprobe study``: the fragility study across data sets, classifiers and constraints."""

from __future__ import annotations

from pathlib import Path

import click

from fairprobe.cli.options import force_callback, forced, jobs_option

#: The study's own --force (not the report commands' text: the study never replaces report/ as a whole).
study_force_option = click.option(
    "--force", is_flag=True, is_eager=True, expose_value=False, callback=force_callback,
    help="Start over: remove the files the study wrote in the folder (listed in its spec.json: models/, units/, "
         "tables, figures, report files) before running, and accept a folder holding other files. Your files are "
         "kept, also inside models/, figures/ or report/; only files of the study's names (e.g. results.csv) are "
         "replaced. The spec and data files are never overwritten.")


def _study_out(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    from fairprobe.studies.folder import check_study_folder

    if value is None:
        return None
    check_study_folder(value, force=forced(ctx), option=max(param.opts, key=len))
    return Path(value)


@click.command("study")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=str, callback=_study_out, metavar="FOLDER", required=True,
              help="Output folder (tables, figures, report): new, empty, or a study's. The models and bound units "
                   "already there (a stopped run, or another spec sharing them) are reused; one run at a time.")
@study_force_option
@jobs_option("Train and bound the units in parallel:", default=1)
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on this Dask scheduler (e.g. tcp://10.0.0.5:8786) instead of local workers.")
@click.option("--no-report", is_flag=True, help="Write the tables only (no figures, no HTML report).")
def study_command(spec: Path, out_dir: Path, jobs: int, scheduler: str | None, no_report: bool) -> None:
    """Fragility study: train, evaluate and bound every model of a spec (YAML or JSON).

    Every (data set, classifier, constraint) is trained and evaluated on held-out rows; every
    parity metric is bounded under every bias at every level D. Finished units are written at
    once, so a stopped study resumes when the same command runs again. With --force the study
    starts over (the files it wrote are removed first; other files are kept) and may write into
    a folder holding other files.

    \b
    Example:
      fairprobe study examples/study/paper.yaml --out study-out --jobs 2
      fairprobe study spec.yaml --out study-out --scheduler tcp://scheduler:8786
    """
    from fairprobe.core.progress import is_quiet
    from fairprobe.exceptions import ConfigError
    from fairprobe.studies import load_spec, study
    from fairprobe.studies.folder import UNIT_FILE

    force = forced()
    if jobs is not None and (jobs == 0 or jobs < -1):  # the rule of every --jobs (n_jobs of fp.bound)
        raise ConfigError(f"--jobs {jobs} must be a positive number of workers (or -1 for all cores); give e.g. "
                          "--jobs 2.")
    load_spec(spec)  # a bad spec fails here, before any cluster is reached
    client = None
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise ConfigError('--scheduler needs Dask: pip install "fairprobe[dask]"') from None
        try:
            client = Client(scheduler, timeout="15s")
        except Exception as exc:  # an address that does not parse, or no scheduler there
            raise ConfigError(f"--scheduler {scheduler}: no Dask scheduler could be reached ({type(exc).__name__}: "
                              f"{exc}); give the address a running scheduler prints, e.g. tcp://10.0.0.5:8786.") \
                from None
    try:
        res = study(spec, out_dir, n_jobs=jobs, client=client, progress=not is_quiet(), force=force,
                    report=not no_report)
    except KeyboardInterrupt:
        saved = [sum(1 for f in (out_dir / sub).glob("*.json") if UNIT_FILE.fullmatch(f.name))
                 if (out_dir / sub).is_dir() else 0 for sub in ("models", "units")]
        click.echo(f"stopped: {saved[0]} trained model(s) and {saved[1]} bound unit(s) are saved in {out_dir}; run "
                   "the same command again to resume", err=True)
        raise
    finally:
        if client is not None:
            client.close()
    click.echo(res.summary())
    click.echo(f"tables: {out_dir / 'results.csv'}, {out_dir / 'ranking.csv'}")

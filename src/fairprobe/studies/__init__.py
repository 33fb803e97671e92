"""The fragility study: how robust is the fairness of trained models to bias in their data?

``fp.study(spec, out)`` (``fairprobe study SPEC --out DIR``) trains every classifier under every
fairness constraint on every data set of the spec, evaluates it on held-out rows, and bounds every
parity metric under every bias over the sensitivity levels, as the causal-sensitivity paper's
Figure 5 and Appendix E do. It writes, in ``out``:

* ``results.csv`` (and ``results.parquet`` with pyarrow): one row per model, bias, metric and level;
* ``models.csv``: accuracy and the constraint's note per model;
* ``fragility.csv`` and ``ranking.csv``: the averages with bootstrap intervals, and the metrics
  ranked by fragility with the probability of each rank;
* ``figures/figure5.png`` and ``figures/dataset_<name>.png``;
* ``report/index.html``: all of it, with the spec and the versions;
* ``spec.json``, ``models/`` and ``units/``: what a stopped study resumes from (``spec.json`` also
  marks the folder as a study's and lists the files it wrote).

One run at a time writes a folder (a second run on it is refused with the first one's PID); a
non-empty folder that is not a study's needs ``force``, which removes only the files the study
wrote (a user's own files, also inside ``models/`` or ``figures/``, are kept). See
:mod:`fairprobe.studies.folder`.

See :mod:`fairprobe.studies.spec` for the spec, :mod:`fairprobe.studies.runner` for the execution
(joblib workers or a Dask cluster) and :mod:`fairprobe.studies.outputs` for what is computed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.exceptions import FairprobeError
from fairprobe.studies.spec import StudySpec, load_spec

__all__ = ["StudyResult", "StudySpec", "load_spec", "study"]


@dataclass
class StudyResult:
    """The outputs of a study.

    Parameters
    ----------
    spec : StudySpec
        The study.
    results : pandas.DataFrame
        One row per model, bias, metric and level.
    models : pandas.DataFrame
        One row per trained model.
    fragility : pandas.DataFrame
        Averages per bias, metric and level with bootstrap intervals.
    ranking : pandas.DataFrame
        Metrics ranked by fragility at the largest level, per bias and pooled.
    folder : Path
        Where everything was written.
    """

    spec: StudySpec
    results: pd.DataFrame
    models: pd.DataFrame
    fragility: pd.DataFrame
    ranking: pd.DataFrame
    folder: Path
    paths: dict[str, Path] = field(default_factory=dict)

    def summary(self) -> str:
        """A few lines: size, failures, the pooled ranking and where the report is.

        Returns
        -------
        str
        """
        counts = self.results.status.value_counts().to_dict()
        parts = [f"{counts.pop('optimal', 0):,} sharp"]
        if counts.get("limit"):
            parts.append(f"{counts.pop('limit'):,} stopped at the time limit (certified, possibly wider)")
        parts += [f"{n:,} {status} (see the 'error' column)" for status, n in sorted(counts.items())]
        lines = [f"{self.spec.name}: {len(self.models)} models, {len(self.results):,} bounds: {', '.join(parts)}"]
        pooled = self.ranking[self.ranking.bias == ("all" if "all" in set(self.ranking.bias) else
                                                     self.ranking.bias.iloc[0])] if len(self.ranking) else self.ranking
        if len(pooled):
            from fairprobe.core.small_groups import MIN_MODELS

            n = int(pooled.models.min())
            if n < MIN_MODELS:  # one model: its increases, without an interval or a probability of rank
                lines.append(f"metrics from most robust to most fragile at D = {pooled.D.iloc[0]:g} on {n} model "
                             "(increase of the worst-case |disparity| over the observed; no interval: a bootstrap "
                             f"over models needs at least {MIN_MODELS} models, so this order may not hold for "
                             "other models):")
                for r in pooled.itertuples(index=False):
                    lines.append(f"  {r.rank}. {r.metric:20s} +{r.mean_increase:.4f}")
            else:
                lines.append(f"metrics from most robust to most fragile at D = {pooled.D.iloc[0]:g} (mean increase of "
                             "the worst-case |disparity| over the observed, 95 % bootstrap over models):")
                for r in pooled.itertuples(index=False):
                    lines.append(f"  {r.rank}. {r.metric:20s} +{r.mean_increase:.4f} [{r.lower:.4f}, {r.upper:.4f}]  "
                                 f"P(most robust) {r.p_most_robust:.2f}, P(most fragile) {r.p_most_fragile:.2f}")
        if "report" in self.paths:
            lines.append(f"report: {self.paths['report']}")
        return "\n".join(lines)


def study(spec: str | os.PathLike | Mapping[str, Any] | StudySpec, out: str | os.PathLike, *,
          n_jobs: int | None = 1, client: Any = None, progress: bool = True, force: bool = False,
          report: bool = True) -> StudyResult:
    """Run a fragility study and write its tables, figures and report to ``out``.

    Parameters
    ----------
    spec : path, mapping or StudySpec
        The study spec (YAML or JSON file, or a mapping; see :mod:`fairprobe.studies.spec`).
    out : path
        Output folder. The models and bound units already in it (a stopped run, or another spec
        sharing them) are reused; a non-empty folder that is not a study's needs ``force``, and a
        folder another run is writing is refused.
    n_jobs : int or None
        Local worker processes (``-1``: every core); never more than the units to run nor the cores.
    client : dask.distributed.Client, optional
        Run the units on this Dask cluster (a ``joblib.parallel_config(backend="dask")`` block
        around the call does the same).
    progress : bool
        Progress bars on a terminal.
    force : bool
        Start over: remove the files the study wrote there (models, units, tables, figures,
        report; each listed in ``spec.json``) first, and accept a folder holding other files (kept,
        also inside ``report/``; files of the study's names, such as ``results.csv``, are replaced).
    report : bool
        Write the figures and the HTML report (the tables are always written).

    Returns
    -------
    StudyResult

    Raises
    ------
    ConfigError
        A bad spec (the message names the field), an output folder that cannot take a study or is
        in use, or a file that cannot be written (the message names it and the system's reason).
    DataError
        A data file that cannot be used (no rows, missing columns or groups).

    Examples
    --------
    >>> import tempfile, fairprobe as fp
    >>> spec = {"datasets": [{"name": "german", "subsample": 400}], "classifiers": ["naive_bayes"],
    ...         "constraints": ["none"], "metrics": ["demographic_parity"], "biases": ["selection"], "D": [0.02]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     res = fp.study(spec, tmp, progress=False, report=False)
    >>> res.results[["metric", "D", "status"]].values.tolist()
    [['demographic_parity', 0.0, 'optimal'], ['demographic_parity', 0.02, 'optimal']]
    """
    from fairprobe.studies.runner import check_jobs, study_folder

    source = spec
    spec = load_spec(spec)
    check_jobs(n_jobs)
    with study_folder(spec, out, force=force, source=source) as (folder, plan):
        return _study(spec, folder, plan, n_jobs=n_jobs, client=client, progress=progress, report=report)


def _study(spec: StudySpec, own: Any, plan: Any, *, n_jobs: int | None, client: Any, progress: bool,
           report: bool) -> StudyResult:
    """The study in its locked folder ``own`` (a :class:`~fairprobe.studies.folder.StudyFolder`)."""
    from fairprobe.studies.outputs import fragility_table, metric_ranking
    from fairprobe.studies.runner import execute
    from fairprobe.studies.spec import bias_name

    folder = own.path
    results = execute(spec, own, plan, n_jobs=n_jobs, client=client, progress=progress)
    models = _models_frame(results, folder, plan.model_keys)
    order = {name: i for i, name in enumerate(bias_name(b) for b in spec.biases)}
    fragility = fragility_table(results, seed=spec.seed)
    ranking = metric_ranking(results, seed=spec.seed)

    def spec_order(frame: pd.DataFrame) -> pd.DataFrame:  # the spec's order of the biases ("all" last)
        if not len(frame):
            return frame
        return frame.sort_values("bias", key=lambda b: b.map(lambda v: order.get(v, len(order))), kind="mergesort",
                                 ignore_index=True)

    fragility, ranking = spec_order(fragility), spec_order(ranking)
    # an earlier run's figures, report and Parquet table are never left beside this run's tables (only
    # the files the study wrote: a user's files in figures/ or report/ stay)
    own.remove(name for name in own.written if name.startswith(("figures/", "report/")) or name == "results.parquet")
    try:
        return _write_outputs(spec, own, results, models, fragility, ranking, report)
    except BaseException:
        with contextlib.suppress(FairprobeError):  # what was written, for --force; the first error is the one shown
            own.save_marker(spec.fingerprint(), spec.to_dict())
        raise


def _write_outputs(spec: StudySpec, own: Any, results: pd.DataFrame, models: pd.DataFrame, fragility: pd.DataFrame,
                   ranking: pd.DataFrame, report: bool) -> StudyResult:
    """The tables, figures and report in the study's folder, each listed in its marker."""
    folder = own.path
    paths = {}
    for key, name, frame in (("results", "results.csv", results), ("models", "models.csv", models),
                             ("fragility", "fragility.csv", fragility), ("ranking", "ranking.csv", ranking)):
        paths[key] = own.write(name, lambda p, f=frame: f.to_csv(p, index=False))
    try:
        paths["parquet"] = own.write("results.parquet", lambda p: results.to_parquet(p, index=False))
    except ImportError:  # pyarrow is optional: the CSV holds the same table
        pass
    out_result = StudyResult(spec, results, models, fragility, ranking, folder, paths)
    if report:
        paths.update(_write_report(out_result, own))
    own.save_marker(spec.fingerprint(), spec.to_dict())  # the files written, for --force
    return out_result


def _models_frame(results: pd.DataFrame, folder: Path, keys: list[str]) -> pd.DataFrame:
    """The models of this spec (the folder may keep others for reuse), with accuracy and notes."""
    import json

    wanted = set(map(tuple, results[["dataset", "classifier", "constraint"]].drop_duplicates().to_numpy()))
    rows = {}
    for key in sorted(set(keys)):  # this spec's models, just written or read: never a user's file
        f = folder / "models" / f"{key}.json"
        if not f.is_file():
            continue
        m = json.loads(f.read_text(encoding="utf-8"))
        key = (m["dataset"], m["classifier"], m["constraint"])
        if key in wanted:
            cells = pd.DataFrame(m["cells"])
            rows[key] = {"dataset": key[0], "classifier": key[1], "constraint": key[2],
                         "test_units": int(cells.n.sum()), "accuracy": m["accuracy"], "note": m["note"]}
    frame = pd.DataFrame(list(rows.values()))
    return frame.sort_values(["dataset", "classifier", "constraint"]).reset_index(drop=True) if rows else frame


def _dataset_text(d: Any) -> str:
    if d.builtin:
        text = f"{d.name} (bundled)"
    elif d.label is None:
        text = f"{d.name} ({d.path})"
    else:
        text = (f"{d.name} ({d.path}: label {d.label} = {d.positive!r}, attribute {d.attribute} "
                f"{d.groups[0]!r} vs {d.groups[1]!r})")
    return text + (f", {d.subsample} rows drawn" if d.subsample else "")


def _write_report(res: StudyResult, own: Any) -> dict[str, Path]:
    # The figures draw on their own Agg canvases (studies.outputs): no pyplot, no backend switch.
    import shutil
    import tempfile

    from fairprobe.core.small_groups import MIN_MODELS
    from fairprobe.reporting.report import Report
    from fairprobe.studies.folder import TEMP_PREFIX, writing
    from fairprobe.studies.outputs import dataset_figure, figure5

    figures = res.folder / "figures"
    with writing(figures):
        figures.mkdir(exist_ok=True)
    written: dict[str, Path] = {}
    rep = Report(f"Fragility study: {res.spec.name}", summary=res.summary())
    sec = rep.section("Spec", "The study as run (every field, defaults filled in) and the fingerprint a resumed run "
                              "must match.")
    spec = res.spec.to_dict()
    shown = {k: v for k, v in spec.items() if k not in ("datasets", "classifiers")}
    shown["datasets"] = "; ".join(_dataset_text(d) for d in res.spec.datasets)
    shown["classifiers"] = ", ".join(c.name if c.estimator is None else f"{c.name} ({c.estimator}, {c.params})"
                                     for c in res.spec.classifiers)
    sec.add_parameters({**shown, "fingerprint": res.spec.fingerprint()})
    from fairprobe.studies.spec import bias_name

    order = [bias_name(b) for b in res.spec.biases]
    fig = figure5(res.results, seed=res.spec.seed, order=order, table=res.fragility)  # averages computed once
    written["figure5"] = own.write("figures/figure5.png", lambda p: fig.savefig(p, dpi=130, format="png"))
    sec = rep.section("Figure 5: fragility of each metric under each bias",
                      "The average over the trained models of the worst-case absolute disparity max(|lower|, "
                      "|upper|) of the certified bound, against the sensitivity level D. A metric whose curve "
                      "rises fast is fragile: a little bias in the data could hide a large disparity.")
    sec.add_figure("figure5", fig)
    sec = rep.section("Ranking of the metrics by fragility",
                      "Mean increase of the worst-case |disparity| over the observed one at the largest D; rank 1 "
                      "is the most robust. The probabilities are over a bootstrap of the models.")
    few = len(res.ranking) and int(res.ranking.models.min()) < MIN_MODELS
    if few or (len(res.fragility) and int(res.fragility.models.min()) < MIN_MODELS):
        sec.add_note(f"Some averages rest on fewer than {MIN_MODELS} models: a bootstrap over models needs at "
                         f"least {MIN_MODELS} models, so their intervals and probabilities of rank are left empty and "
                         "their order may not hold for other models.")
    sec.add_table("ranking", res.ranking)
    sec = rep.section("Per data set (Appendix E)")
    for name in sorted(res.results.dataset.unique()):
        fig = dataset_figure(res.results, name, seed=res.spec.seed, order=order)
        written[f"figure_{name}"] = own.write(f"figures/dataset_{name}.png",
                                              lambda p, f=fig: f.savefig(p, dpi=130, format="png"))
        sec.add_figure(f"dataset_{name}", fig)
        rep.section("Models", "Held-out accuracy and how each constraint was met.").add_table("models", res.models)
    rep.section("Averages", "Every bias, metric and level with 95 % bootstrap intervals over the models.").add_table(
        "fragility", res.fragility)
    failed = res.results[~res.results.status.isin(["optimal", "limit"])]
    if len(failed):
        rep.section("Bounds not computed", "Undefined metrics (e.g. no predicted positives in a group) and "
                                           "infeasible points, with the reason.").add_table(
            "failed", failed[["dataset", "classifier", "constraint", "bias", "metric", "D", "status", "error"]])
    # written beside, then moved in file by file and each listed in the marker: a user's files in
    # report/, report/tables/ or report/figures/ are never touched (only a file of the same name is replaced)
    report = res.folder / "report"
    with writing(report):
        tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}report-", suffix=".tmp", dir=res.folder))
    try:
        with writing(report):
            rep.write_files(tmp)
        for path in sorted(p for p in tmp.rglob("*") if p.is_file()):
            own.install(f"report/{path.relative_to(tmp).as_posix()}", path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    written["report"] = report / "index.html"
    return written

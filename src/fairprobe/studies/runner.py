"""Run a study: train every model, then bound every (model, bias, metric) over the levels ``D``.

Both stages are lists of independent units run through joblib: local worker processes
(``n_jobs``), or a Dask cluster, through a ``dask.distributed.Client`` passed as ``client`` or a
``joblib.parallel_config(backend="dask")`` block around the call. Every finished unit is written
at once to the output folder (``models/`` and ``units/``, one small JSON file each, written
atomically under a unique temporary name), named by a hash of everything that decides it (the data
file's bytes, the classifier, the constraint and its options, the seed and split; then the bias,
metric, levels, interval and solver). So a study that is stopped resumes where it stopped, and a
changed spec reuses exactly the units it shares with the old one: nothing stale is ever read, since
a changed input is another name. The results do not depend on the number of workers or on the order
in which units finish: every unit is a deterministic function of its inputs (fixed seeds,
deterministic solvers) and the final table is sorted. One run at a time writes a folder, and
``force`` removes only the files the study wrote (see :mod:`fairprobe.studies.folder`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe import __version__
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError, FairprobeError
from fairprobe.studies.folder import UNIT_FILE, StudyFolder, check_study_folder, open_study_folder, write_json
from fairprobe.studies.spec import ClassifierSpec, DatasetSpec, StudySpec, bias_name, file_digest, load_spec

__all__ = ["check_study_folder", "model_key", "results_frame", "run_study", "unit_key", "worker_count"]

RESULT_COLUMNS = ["dataset", "classifier", "constraint", "bias", "metric", "D", "lower", "upper", "worst",
                  "observed", "status", "error"]


def _key(*parts: Any) -> str:
    return hashlib.sha256(dumps(list(parts), sort_keys=True).encode()).hexdigest()[:24]


def model_key(dataset: DatasetSpec, clf: ClassifierSpec, constraint: str, spec: StudySpec,
              digests: Mapping[str, str]) -> str:
    """The name of a trained model's file: a hash of everything that decides it.

    Examples
    --------
    >>> spec = StudySpec.from_dict({"datasets": ["german"]})
    >>> a = model_key(spec.datasets[0], spec.classifiers[0], "none", spec, {})
    >>> a == model_key(spec.datasets[0], spec.classifiers[0], "none", spec, {}), len(a)
    (True, 24)
    """
    training = {"seed": spec.seed, "test_size": spec.test_size, "eps": spec.reduction_eps,
                "search": [spec.search_candidates, spec.search_accuracy_slack]}
    return _key("model", __version__, dataclasses.asdict(dataset), digests.get(dataset.name, ""),
                dataclasses.asdict(clf), constraint, training)


def unit_key(model: str, bias: Any, metric: str, spec: StudySpec) -> str:
    """The name of a bound unit's file: its model, bias, metric, levels, interval and solver."""
    return _key("unit", model, bias, metric, list(spec.D), spec.ci, spec.backend, spec.time_limit)


def _write_json(path: Path, data: Any) -> None:
    write_json(path, data)  # atomic, under a unique temporary name: a stopped run never leaves half a unit behind


@functools.lru_cache(maxsize=8)
def _data(spec: DatasetSpec, seed: int, digest: str) -> Any:
    """A worker loads each data set once; ``digest`` (the file's bytes) keeps an edited file from being served stale."""
    from fairprobe.studies.data import load_study_data

    return load_study_data(spec, seed)


def _train(task: tuple[DatasetSpec, ClassifierSpec, str, StudySpec, str]) -> dict[str, Any]:
    from fairprobe.studies.training import train_and_evaluate

    dataset, clf, constraint, spec, digest = task
    data = _data(dataset, spec.seed, digest)
    model = train_and_evaluate(data, clf, constraint, spec)
    return {"dataset": dataset.name, "classifier": clf.name, "constraint": constraint, "groups": list(data.groups),
            "accuracy": model.accuracy, "note": model.note, "cells": model.cells.to_dict(orient="list")}


def _bound(task: tuple[dict[str, Any], Any, str, StudySpec]) -> list[dict[str, Any]]:
    """Every level of one (model, bias, metric); a failure is recorded per row, not raised."""
    import fairprobe as fp
    from fairprobe.core.engine import BoundProblem
    from fairprobe.core.results import interval_columns
    from fairprobe.core.uncertainty import IntervalOptions, sampling_interval

    model, bias, metric, spec = task
    base = {"dataset": model["dataset"], "classifier": model["classifier"], "constraint": model["constraint"],
            "bias": bias_name(bias), "metric": metric}
    try:
        table = fp.ObservedTable.from_counts(pd.DataFrame(model["cells"]))
        problem = BoundProblem(bias, fp.metric(metric, groups=tuple(model["groups"])), table)
    except FairprobeError as exc:  # e.g. a metric undefined on this model's table
        return [{**base, "D": d, "status": "error", "error": str(exc)} for d in spec.D]
    rows = []
    for d in spec.D:
        params = {p: d for p in problem.parameters}
        out = problem.solve_point(params, backend=spec.backend, time_limit=spec.time_limit)
        # no timings in the rows: the table is the same whatever the machine, workers or order
        row = {**base, "D": d, "status": out.status, "error": out.error}
        res = out.result
        if res is not None:
            row.update(lower=res.lower, upper=res.upper)
            if spec.ci is not None:
                options = IntervalOptions(level=spec.ci["level"], method=spec.ci["method"],
                                          resamples=spec.ci["resamples"], seed=spec.seed)
                try:
                    interval = sampling_interval(problem, params, res, options, n_jobs=1, progress=False,
                                                 solve_kwargs={"backend": spec.backend, "time_limit": spec.time_limit})
                    row.update(interval_columns(interval))
                except FairprobeError as exc:
                    row["error"] = f"sampling interval: {exc}"
        rows.append(row)
    return rows


def _parallel(fn: Callable[[Any], Any], tasks: list[Any], n_jobs: int | None, client: Any, desc: str,
              progress: bool, on_result: Callable[[Any, Any], None]) -> None:
    """Run ``fn`` on every task; ``on_result(task, result)`` in the parent as each one finishes."""
    from fairprobe.core.progress import progress_bar

    if not tasks:
        return
    bar = progress_bar(total=len(tasks), desc=desc, disable=not progress)
    try:
        on_cluster = client is not None or _dask_configured()  # a cluster's workers, not this machine's cores
        workers = n_jobs if on_cluster else worker_count(n_jobs, len(tasks))
        if not on_cluster and workers == 1:
            for task in tasks:
                on_result(task, fn(task))
                bar.update(1)
            return
        from joblib import Parallel, delayed, parallel_config

        config = parallel_config(backend="dask", client=client) if client is not None else contextlib.nullcontext()
        with config:
            jobs = Parallel(n_jobs=workers if client is None else -1, return_as="generator_unordered")
            for task, result in jobs(delayed(_tagged)(fn, i, task) for i, task in enumerate(tasks)):
                on_result(tasks[task], result)
                bar.update(1)
    finally:
        bar.close()


def _tagged(fn: Callable[[Any], Any], index: int, task: Any) -> tuple[int, Any]:
    return index, fn(task)


def worker_count(n_jobs: int | None, tasks: int) -> int:
    """Local worker processes for ``tasks`` units: ``n_jobs`` (``-1``: every core), never more than the
    units nor than the cores this process may use (joblib's count); 1 means the units run in this process.

    Examples
    --------
    >>> worker_count(1000, tasks=1), worker_count(None, tasks=50), worker_count(2, tasks=0)
    (1, 1, 1)
    """
    from joblib import cpu_count

    cores = max(1, int(cpu_count()))
    wanted = 1 if n_jobs is None else cores if n_jobs < 0 else n_jobs
    return max(1, min(wanted, tasks, cores))


def check_jobs(n_jobs: Any) -> None:
    """``n_jobs`` as :func:`fairprobe.bound` takes it: a positive number of workers, -1 for every core, or None.

    Raises
    ------
    ConfigError
        Any other value (0, -2, 1.5, ...), with the fix.

    Examples
    --------
    >>> check_jobs(-1), check_jobs(None), check_jobs(4)
    (None, None, None)
    """
    from fairprobe.core.validate import check_n_jobs

    check_n_jobs(n_jobs, allow_none=True)


def _dask_configured() -> bool:
    """Whether a ``joblib.parallel_config(backend="dask")`` block is active around the call."""
    try:
        from joblib.parallel import get_active_backend

        backend, _ = get_active_backend()
    except Exception:  # an older joblib: no way to ask; run as told by n_jobs
        return False
    return type(backend).__name__ == "DaskDistributedBackend"


def _load_all(folder: Path, trusted: set[str] | None = None) -> dict[str, Any]:
    """The study's files in ``models/`` or ``units/`` (named by their hash; a user's files there are left alone).

    ``trusted``: the files (relative to the study's folder) its marker listed when the run began;
    a file of a study's name that it does not list (a user's, in a folder written into with
    ``force``) is never read as the study's: the unit is done again and written over it.
    """
    out = {}
    for f in sorted(folder.glob("*.json")):
        if not UNIT_FILE.fullmatch(f.name) or (trusted is not None and f"{folder.name}/{f.name}" not in trusted):
            continue
        try:
            out[f.stem] = json.loads(f.read_text(encoding="utf-8"))
        except ValueError:  # half written by hand, or damaged: done again
            with contextlib.suppress(OSError):
                f.unlink()
        except OSError as exc:
            raise ConfigError(f"cannot read {f}: {exc.strerror or exc}; make the folder readable or choose another "
                              "output folder.") from None
    return out


@dataclasses.dataclass
class StudyPlan:
    """Every model and unit of a spec, named by the hash of what decides it (see :func:`model_key`)."""

    trainings: list[tuple[DatasetSpec, ClassifierSpec, str, StudySpec, str]]
    model_keys: list[str]  # one per training
    units: list[list[tuple[str, Any, str]]]  # per training: (unit key, bias, metric)

    @property
    def files(self) -> list[str]:
        """The files of the plan, relative to the study's folder."""
        return ([f"models/{k}.json" for k in self.model_keys]
                + [f"units/{key}.json" for units in self.units for key, _, _ in units])


def plan_study(spec: StudySpec) -> StudyPlan:
    """Every model and unit of ``spec`` with the name of its file.

    Examples
    --------
    >>> plan = plan_study(StudySpec.from_dict({"datasets": ["german"], "classifiers": ["naive_bayes"],
    ...                                        "constraints": ["none"], "metrics": ["fpr_parity"]}))
    >>> len(plan.model_keys), len(plan.files)
    (1, 4)
    """
    digests = {d.name: file_digest(d.path) for d in spec.datasets if d.path is not None}
    trainings = [(d, c, k, spec, digests.get(d.name, "")) for d in spec.datasets for c in spec.classifiers
                 for k in spec.constraints]
    keys = [model_key(t[0], t[1], t[2], spec, digests) for t in trainings]
    units = [[(unit_key(mkey, bias, metric, spec), bias, metric) for bias in spec.biases for metric in spec.metrics]
             for mkey in keys]
    return StudyPlan(trainings, keys, units)


@contextlib.contextmanager
def study_folder(spec: StudySpec, out: str | os.PathLike, *, force: bool,
                 source: Any = None) -> Any:
    """Check and lock ``out`` for ``spec`` (see :func:`~fairprobe.studies.folder.open_study_folder`).

    Yields
    ------
    (StudyFolder, StudyPlan)
    """
    plan = plan_study(spec)
    inputs = [source] if isinstance(source, (str, os.PathLike)) else []
    inputs += [d.path for d in spec.datasets if d.path is not None]
    with open_study_folder(out, force=force, fingerprint=spec.fingerprint(), spec=spec.to_dict(), files=plan.files,
                           inputs=inputs) as folder:
        yield folder, plan


def run_study(spec: str | os.PathLike | Mapping[str, Any] | StudySpec, out: str | os.PathLike, *,
              n_jobs: int | None = 1, client: Any = None, progress: bool = True, force: bool = False,
              max_units: int | None = None) -> pd.DataFrame:
    """Train, evaluate and bound everything in ``spec``; write each unit to ``out`` as it finishes.

    Parameters
    ----------
    spec : path, mapping or StudySpec
        The study (see :mod:`fairprobe.studies.spec`).
    out : path
        Output folder; the units already in it (from a stopped run, or a spec sharing them) are reused.
        One run at a time: a folder another run is writing is refused.
    n_jobs : int or None
        Local worker processes (``-1``: every core); never more than the units to run nor the cores.
    client : dask.distributed.Client, optional
        Run the units on this Dask cluster instead.
    progress : bool
        Progress bars on a terminal.
    force : bool
        Start over: remove the files the study wrote first (and accept a folder holding other files).
    max_units : int, optional
        Stop after this many new bound units (a partial run, resumed by the next call).

    Returns
    -------
    pandas.DataFrame
        The tidy results (see :data:`RESULT_COLUMNS`), sorted, over every unit in the folder.

    Raises
    ------
    ConfigError
        A bad spec, a bad ``n_jobs``, an output folder that cannot take a study (or is in use), or a
        file that cannot be written.
    """
    source = spec
    spec = load_spec(spec)
    check_jobs(n_jobs)
    with study_folder(spec, out, force=force, source=source) as (folder, plan):
        return execute(spec, folder, plan, n_jobs=n_jobs, client=client, progress=progress, max_units=max_units)


def execute(spec: StudySpec, folder: StudyFolder, plan: StudyPlan, *, n_jobs: int | None = 1, client: Any = None,
            progress: bool = True, max_units: int | None = None) -> pd.DataFrame:
    """Run the models and units of ``plan`` missing from ``folder`` (locked by the caller); the results table."""
    models = _load_all(folder.path / "models", folder.trusted)
    key_of = {id(t): key for t, key in zip(plan.trainings, plan.model_keys, strict=True)}
    todo = [t for t in plan.trainings if key_of[id(t)] not in models]

    def keep_model(task: Any, result: dict[str, Any]) -> None:
        key = key_of[id(task)]
        folder.write_json(f"models/{key}.json", result)
        models[key] = result

    _parallel(_train, todo, n_jobs, client, "training", progress, keep_model)
    units = _load_all(folder.path / "units", folder.trusted)
    wanted, tasks = [], []
    for mkey, unit_list in zip(plan.model_keys, plan.units, strict=True):
        for key, bias, metric in unit_list:
            wanted.append(key)
            if key not in units:
                tasks.append((key, (models[mkey], bias, metric, spec)))
    if max_units is not None:
        tasks = tasks[:max_units]
    keys = {id(t[1]): t[0] for t in tasks}

    def keep_unit(task: Any, rows: list[dict[str, Any]]) -> None:
        key = keys[id(task)]
        folder.write_json(f"units/{key}.json", rows)
        units[key] = rows

    _parallel(_bound, [t[1] for t in tasks], n_jobs, client, "bounding", progress, keep_unit)
    # this spec's units only: the folder may hold others from an earlier spec, which are kept for reuse
    current = {key: models[key] for key in plan.model_keys}
    return results_frame([units[k] for k in wanted if k in units], current.values())


def results_frame(units: Iterable[list[dict[str, Any]]], models: Iterable[dict[str, Any]] = ()) -> pd.DataFrame:
    """The tidy table of bound units, sorted, with ``worst`` and ``observed`` filled in.

    ``worst`` is the worst-case absolute disparity ``max(|lower|, |upper|)`` and ``observed`` its
    value at ``D = 0`` (the model's disparity on the held-out table).

    Parameters
    ----------
    units : iterable of list of dict
        The rows of every bound unit.
    models : iterable of dict
        The trained models (their accuracy joins the table).

    Returns
    -------
    pandas.DataFrame
    """
    frame = pd.DataFrame([row for rows in units for row in rows])
    for column in RESULT_COLUMNS:
        if column not in frame.columns:
            frame[column] = math.nan
    frame["worst"] = frame[["lower", "upper"]].abs().max(axis=1, skipna=False)
    keys = ["dataset", "classifier", "constraint", "bias", "metric"]
    zero = frame[frame.D == 0.0].set_index(keys)["worst"]
    frame["observed"] = [zero.get(tuple(r), math.nan) for r in frame[keys].itertuples(index=False)]
    accuracy = {(m["dataset"], m["classifier"], m["constraint"]): m["accuracy"] for m in models}
    frame["accuracy"] = [accuracy.get(tuple(r), math.nan)
                         for r in frame[["dataset", "classifier", "constraint"]].itertuples(index=False)]
    extra = [c for c in frame.columns if c not in RESULT_COLUMNS and c != "accuracy"]
    frame = frame[[*RESULT_COLUMNS, "accuracy", *sorted(extra)]]
    return frame.sort_values([*keys, "D"], kind="mergesort").reset_index(drop=True)

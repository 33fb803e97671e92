"""Run a study: train every model, then bound every (model, bias, metric) over the levels ``D``.

Both stages are lists of independent units run through joblib: local worker processes
(``n_jobs``), or a Dask cluster, through a ``dask.distributed.Client`` passed as ``client`` or a
``joblib.parallel_config(backend="dask")`` block around the call. Every finished unit is written
at once to the output folder (``models/`` and ``units/``, one small JSON file each, written
atomically), named by a hash of everything that decides it (the data file's bytes, the classifier,
the constraint and its options, the seed and split; then the bias, metric, levels, interval and
solver). So a study that is stopped resumes where it stopped, and a changed spec reuses exactly the
units it shares with the old one: nothing stale is ever read, since a changed input is another
name. The results do not depend on the number of workers or on the order in which units finish:
every unit is a deterministic function of its inputs (fixed seeds, deterministic solvers) and the
final table is sorted.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe import __version__
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError, FairprobeError
from fairprobe.studies.spec import ClassifierSpec, DatasetSpec, StudySpec, bias_name, file_digest, load_spec

__all__ = ["model_key", "results_frame", "run_study", "unit_key"]

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
    tmp = path.with_suffix(".tmp")
    tmp.write_text(dumps(data), encoding="utf-8")
    os.replace(tmp, path)  # atomic: a stopped run never leaves half a unit behind


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
    from fairprobe.core.bound import BoundProblem
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
        if client is None and n_jobs in (None, 1) and not _dask_configured():
            for task in tasks:
                on_result(task, fn(task))
                bar.update(1)
            return
        import contextlib

        from joblib import Parallel, delayed, parallel_config

        config = parallel_config(backend="dask", client=client) if client is not None else contextlib.nullcontext()
        with config:
            jobs = Parallel(n_jobs=n_jobs if client is None else -1, return_as="generator_unordered")
            for task, result in jobs(delayed(_tagged)(fn, i, task) for i, task in enumerate(tasks)):
                on_result(tasks[task], result)
                bar.update(1)
    finally:
        bar.close()


def _tagged(fn: Callable[[Any], Any], index: int, task: Any) -> tuple[int, Any]:
    return index, fn(task)


def _dask_configured() -> bool:
    """Whether a ``joblib.parallel_config(backend="dask")`` block is active around the call."""
    try:
        from joblib.parallel import get_active_backend

        backend, _ = get_active_backend()
    except Exception:  # an older joblib: no way to ask; run as told by n_jobs
        return False
    return type(backend).__name__ == "DaskDistributedBackend"


#: What a study writes in its folder (``force`` removes these, and nothing else).
STUDY_ENTRIES = ("models", "units", "figures", "report", "spec.json", "results.csv", "results.parquet", "models.csv",
                 "fragility.csv", "ranking.csv")


def check_study_folder(out: str | os.PathLike, *, force: bool = False, option: str = "out") -> Path:
    """The output folder as an absolute path, after checking that a study can be written there.

    A missing or empty folder, or one holding a study (its ``spec.json``), is fine; a folder with
    other files needs ``force`` (only the study's own entries are written or removed there).

    Parameters
    ----------
    out : path
        The folder.
    force : bool
        Accept a folder holding other files.
    option : str
        How the folder is named in messages.

    Returns
    -------
    Path

    Raises
    ------
    ConfigError
        An empty name, a file, a path below a file, or a folder holding other files without ``force``.
    """
    if out is None or not str(out).strip():
        raise ConfigError(f"The name given for {option} is empty; give a folder name, e.g. study-out (it is created).")
    path = Path(os.path.abspath(Path(str(out)).expanduser()))
    for above in (path, *path.parents):
        if above.exists() and not above.is_dir():
            raise ConfigError(f"{option} {out}: {above} is a file, not a folder; give the name of a new folder.")
        if above.exists():
            break
    if path.is_dir() and not force and not (path / "spec.json").exists():
        other = sorted(p.name for p in path.iterdir() if p.name not in STUDY_ENTRIES)
        if other:
            raise ConfigError(f"{option} {out} holds files that are not a study's ({', '.join(other[:5])}); choose a "
                              "new or empty folder, or pass --force (force=True in Python) to write the study there "
                              "anyway (only its own entries are written).")
    return path


def _prepare_folder(out: Path, spec: StudySpec, force: bool) -> None:
    check_study_folder(out, force=force)
    out.mkdir(parents=True, exist_ok=True)
    if force:  # start over: the study's own entries only
        for name in STUDY_ENTRIES:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    (out / "models").mkdir(exist_ok=True)
    (out / "units").mkdir(exist_ok=True)
    _write_json(out / "spec.json", {"fingerprint": spec.fingerprint(), "spec": spec.to_dict()})


def _load_all(folder: Path) -> dict[str, Any]:
    out = {}
    for f in sorted(folder.glob("*.json")):
        try:
            out[f.stem] = json.loads(f.read_text(encoding="utf-8"))
        except ValueError:  # unreadable (written by hand?): done again
            f.unlink()
    return out


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
    n_jobs : int or None
        Local worker processes (``-1``: every core).
    client : dask.distributed.Client, optional
        Run the units on this Dask cluster instead.
    progress : bool
        Progress bars on a terminal.
    force : bool
        Start over: remove the study's own entries first (and accept a folder holding other files).
    max_units : int, optional
        Stop after this many new bound units (a partial run, resumed by the next call).

    Returns
    -------
    pandas.DataFrame
        The tidy results (see :data:`RESULT_COLUMNS`), sorted, over every unit in the folder.

    Raises
    ------
    ConfigError
        A bad spec, a bad ``n_jobs``, or an output folder that cannot take a study.
    """
    spec = load_spec(spec)
    if n_jobs == 0 or (n_jobs is not None and not isinstance(n_jobs, int)):
        raise ConfigError(f"n_jobs = {n_jobs!r}: give a number of workers (1, 2, ...) or -1 for every core.")
    folder = Path(out)
    _prepare_folder(folder, spec, force)
    digests = {d.name: file_digest(d.path) for d in spec.datasets if d.path is not None}
    models = _load_all(folder / "models")
    trainings = [(d, c, k, spec, digests.get(d.name, "")) for d in spec.datasets for c in spec.classifiers
                 for k in spec.constraints]
    model_keys = {id(t): model_key(t[0], t[1], t[2], spec, digests) for t in trainings}
    todo = [t for t in trainings if model_keys[id(t)] not in models]

    def keep_model(task: Any, result: dict[str, Any]) -> None:
        key = model_keys[id(task)]
        _write_json(folder / "models" / f"{key}.json", result)
        models[key] = result

    _parallel(_train, todo, n_jobs, client, "training", progress, keep_model)
    units = _load_all(folder / "units")
    wanted, tasks = [], []
    for t in trainings:
        mkey = model_keys[id(t)]
        for bias in spec.biases:
            for metric in spec.metrics:
                key = unit_key(mkey, bias, metric, spec)
                wanted.append(key)
                if key not in units:
                    tasks.append((key, (models[mkey], bias, metric, spec)))
    if max_units is not None:
        tasks = tasks[:max_units]
    keys = {id(t[1]): t[0] for t in tasks}

    def keep_unit(task: Any, rows: list[dict[str, Any]]) -> None:
        key = keys[id(task)]
        _write_json(folder / "units" / f"{key}.json", rows)
        units[key] = rows

    _parallel(_bound, [t[1] for t in tasks], n_jobs, client, "bounding", progress, keep_unit)
    # this spec's units only: the folder may hold others from an earlier spec, which are kept for reuse
    current = {model_keys[id(t)]: models[model_keys[id(t)]] for t in trainings}
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

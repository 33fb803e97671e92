"""Run a study: train every model, then bound every (model, bias, metric) over the levels ``D``.

Both stages are lists of independent units run through joblib: local worker processes
(``n_jobs``), or a Dask cluster, through a ``dask.distributed.Client`` passed as ``client`` or a
``joblib.parallel_config(backend="dask")`` block around the call. Every finished unit is written
at once to the output folder (``models/`` and ``units/``, one small JSON file each, written
atomically), so a study that is stopped resumes where it stopped: a rerun with the same spec and
folder skips what is there. The results do not depend on the number of workers or on the order
in which units finish: every unit is a deterministic function of the spec (fixed seeds,
deterministic solvers) and the final table is sorted.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.exceptions import ConfigError, FairprobeError
from fairprobe.studies.spec import ClassifierSpec, DatasetSpec, StudySpec, load_spec

__all__ = ["bias_name", "run_study"]

RESULT_COLUMNS = ["dataset", "classifier", "constraint", "bias", "metric", "D", "lower", "upper", "worst",
                  "observed", "status", "error"]


def bias_name(bias: Any) -> str:
    """A bias's label in the results: its name, or ``a+b`` for a combination.

    Examples
    --------
    >>> bias_name("selection"), bias_name({"combine": ["proxy_label", "selection"]})
    ('selection', 'proxy_label+selection')
    """
    if isinstance(bias, str):
        return bias
    if "combine" in bias:
        return "+".join(b if isinstance(b, str) else str(b.get("name", "bias")) for b in bias["combine"])
    return str(bias.get("name", "custom_bias"))


def _key(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:20]


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, default=float), encoding="utf-8")
    os.replace(tmp, path)  # atomic: a stopped run never leaves half a unit behind


@functools.lru_cache(maxsize=8)
def _data(spec: DatasetSpec, seed: int) -> Any:
    from fairprobe.studies.data import load_study_data

    return load_study_data(spec, seed)


def _train(task: tuple[DatasetSpec, ClassifierSpec, str, StudySpec]) -> dict[str, Any]:
    from fairprobe.studies.training import train_and_evaluate

    dataset, clf, constraint, spec = task
    data = _data(dataset, spec.seed)
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


def _prepare_folder(out: Path, spec: StudySpec, force: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    marker = out / "spec.json"
    if marker.exists() and not force:
        try:
            held = json.loads(marker.read_text(encoding="utf-8")).get("fingerprint")
        except (OSError, ValueError):
            held = None
        if held != spec.fingerprint():
            raise ConfigError(f"{out} holds a study with another spec; use a new output folder, or force=True "
                              "(--force) to start this one over there.")
    if force:
        for sub in ("models", "units"):
            for f in (out / sub).glob("*.json") if (out / sub).is_dir() else []:
                f.unlink()
    (out / "models").mkdir(exist_ok=True)
    (out / "units").mkdir(exist_ok=True)
    _write_json(marker, {"fingerprint": spec.fingerprint(), "spec": spec.to_dict()})


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
        Output folder; a folder holding the same study's units is resumed.
    n_jobs : int or None
        Local worker processes (``-1``: every core).
    client : dask.distributed.Client, optional
        Run the units on this Dask cluster instead.
    progress : bool
        Progress bars on a terminal.
    force : bool
        Start over in a folder that holds another (or the same) study.
    max_units : int, optional
        Stop after this many new bound units (a partial run, resumed by the next call).

    Returns
    -------
    pandas.DataFrame
        The tidy results (see :data:`RESULT_COLUMNS`), sorted, over every unit in the folder.

    Raises
    ------
    ConfigError
        A bad spec, or a folder with another study.
    """
    spec = load_spec(spec)
    folder = Path(out)
    _prepare_folder(folder, spec, force)
    models = _load_all(folder / "models")
    trainings = [(d, c, k, spec) for d in spec.datasets for c in spec.classifiers for k in spec.constraints]
    todo = [t for t in trainings if _key(t[0].name, t[1].name, t[2]) not in models]

    def keep_model(task: Any, result: dict[str, Any]) -> None:
        key = _key(task[0].name, task[1].name, task[2])
        _write_json(folder / "models" / f"{key}.json", result)
        models[key] = result

    _parallel(_train, todo, n_jobs, client, "training", progress, keep_model)
    units = _load_all(folder / "units")
    tasks = []
    for d, c, k, _ in trainings:
        model = models[_key(d.name, c.name, k)]
        for bias in spec.biases:
            for metric in spec.metrics:
                key = _key(d.name, c.name, k, bias_name(bias), metric)
                if key not in units:
                    tasks.append((key, (model, bias, metric, spec)))
    if max_units is not None:
        tasks = tasks[:max_units]
    keys = {id(t[1]): t[0] for t in tasks}

    def keep_unit(task: Any, rows: list[dict[str, Any]]) -> None:
        key = keys[id(task)]
        _write_json(folder / "units" / f"{key}.json", rows)
        units[key] = rows

    _parallel(_bound, [t[1] for t in tasks], n_jobs, client, "bounding", progress, keep_unit)
    return results_frame(units.values(), models.values())


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

"""Worker processes: how many a parallel step starts, and stopping them when the run is stopped.

``n_jobs`` (``--jobs``) is a positive number of worker processes, or ``-1`` for every core;
:func:`effective_jobs` caps it at the tasks to run and the cores the process may use.
:func:`stop_local_workers` kills joblib's local workers when the command line is stopped, so no
worker outlives the command holding its output pipes open.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["available_cores", "distributed_backend_active", "effective_jobs", "kill_processes", "stop_local_workers"]


def available_cores() -> int:
    """Cores this process may run on (CPU affinity and container limits, as joblib counts them).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        from joblib import cpu_count

        return max(1, int(cpu_count()))
    except Exception:  # joblib missing or unable to tell: the affinity mask, else the machine's count
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except (AttributeError, OSError):
            return max(1, os.cpu_count() or 1)


def effective_jobs(n_jobs: int | None, tasks: int, *, cores: int | None = None) -> int:
    """Worker processes to start for ``tasks`` independent tasks.

    Parameters
    ----------
    n_jobs : int or None
        Workers asked for: a positive number, or ``-1`` / ``None`` for every core.
    tasks : int
        Independent tasks to run (grid points, chunks of resamples, ...).
    cores : int, optional
        Cores available (default :func:`available_cores`).

    Returns
    -------
    int
        ``n_jobs`` capped at ``tasks`` and at the cores; at least 1 (1 means: run in this process).

    Examples
    --------
    >>> effective_jobs(-1, tasks=2, cores=64), effective_jobs(None, tasks=500, cores=4)
    (2, 4)
    >>> effective_jobs(16, tasks=500, cores=4), effective_jobs(3, tasks=0, cores=4)
    (4, 1)
    """
    cores = available_cores() if cores is None else max(1, int(cores))
    wanted = cores if n_jobs is None or n_jobs < 0 else int(n_jobs)
    return max(1, min(wanted, int(tasks), cores))


def distributed_backend_active() -> bool:
    """Whether a ``joblib.parallel_config(backend="dask")`` block is active (:func:`effective_jobs` does not apply).

    Returns
    -------
    bool

    Examples
    --------
    >>> distributed_backend_active()
    False
    """
    if "joblib" not in sys.modules:  # nothing configured joblib yet
        return False
    try:
        from joblib.parallel import get_active_backend

        backend, _ = get_active_backend()
    except Exception:  # an older joblib: no way to ask
        return False
    return type(backend).__name__ == "DaskDistributedBackend"


def stop_local_workers(wait: bool = True) -> None:
    """Kill joblib's local worker processes (the reusable loky executor), if any were started.

    Parameters
    ----------
    wait : bool
        Wait until the workers have ended.

    Examples
    --------
    >>> stop_local_workers()  # no worker running: nothing happens
    """
    module: Any = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None) if module is not None else None
    if executor is None:
        return
    try:
        executor.shutdown(wait=wait, kill_workers=True)
    except Exception:  # already broken or shut down: kill what is left by process id
        kill_processes(list(getattr(executor, "_processes", {}) or {}))


def kill_processes(pids: list[int]) -> None:
    """Send SIGKILL to each process id (those already gone are skipped).

    Parameters
    ----------
    pids : list of int

    Examples
    --------
    >>> kill_processes([])
    """
    import signal

    for pid in pids:
        try:
            os.kill(int(pid), getattr(signal, "SIGKILL", signal.SIGTERM))
        except (ProcessLookupError, PermissionError, ValueError, TypeError):
            pass

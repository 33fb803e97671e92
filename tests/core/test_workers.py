"""Worker processes are capped at the tasks and the cores wherever fairprobe starts them (sweep, bound --ci,
breakdown --ci): ``--jobs 8`` on two tasks starts two, never eight."""

from __future__ import annotations

import joblib
import pytest

import fairprobe as fp
from fairprobe.core.workers import available_cores, effective_jobs
from fairprobe.datasets import BUNDLED

CELLS = BUNDLED / "fragile_fair-fogliato_compas.csv.gz"


def test_effective_jobs() -> None:
    assert effective_jobs(8, tasks=3, cores=16) == 3
    assert effective_jobs(8, tasks=100, cores=4) == 4
    assert effective_jobs(-1, tasks=2, cores=64) == 2
    assert effective_jobs(None, tasks=500, cores=4) == 4
    assert effective_jobs(1, tasks=500, cores=4) == 1
    assert effective_jobs(4, tasks=0, cores=4) == 1
    assert 1 <= available_cores() <= 4096


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The numbers of workers joblib is asked for (by ``Parallel(n_jobs=...)`` or ``parallel_config``)."""
    seen: list[int] = []
    real_parallel, real_config = joblib.Parallel, joblib.parallel_config

    class Spy(real_parallel):  # type: ignore[misc,valid-type]
        def __init__(self, *args, **kwargs):
            if kwargs.get("n_jobs") is not None:
                seen.append(kwargs["n_jobs"])
            super().__init__(*args, **kwargs)

    def config(*args, **kwargs):
        if kwargs.get("n_jobs") is not None:
            seen.append(kwargs["n_jobs"])
        return real_config(*args, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", Spy)
    monkeypatch.setattr(joblib, "parallel_config", config)
    return seen


def test_a_sweep_of_two_points_starts_at_most_two_workers(asked: list[int]) -> None:
    import pandas as pd

    res = fp.sensitivity("proxy_label", "fpr_parity", pd.read_csv(CELLS), D=[0.0, 0.05], n_jobs=8, progress=False)
    assert len(res.points) == 2
    assert asked and all(0 < n <= min(2, available_cores()) for n in asked), asked


def test_a_confidence_interval_starts_at_most_one_worker_per_core(asked: list[int]) -> None:
    import pandas as pd

    cells = pd.read_csv(CELLS)
    cells["n"] = (cells.pop("prob") * 2000).round().astype(int)
    counts = fp.ObservedTable.from_counts(cells)
    res = fp.bound("proxy_label", "fpr_parity", counts, D=0.05, ci=0.95, resamples=40, seed=1, n_jobs=8,
                   progress=False)
    assert asked and all(0 < n <= available_cores() for n in asked), asked
    # the cap changes no number: the interval is a function of the seed, the same on one worker
    one = fp.bound("proxy_label", "fpr_parity", counts, D=0.05, ci=0.95, resamples=40, seed=1, n_jobs=1,
                   progress=False)
    assert (res.interval.lower, res.interval.upper) == (one.interval.lower, one.interval.upper)
    assert res.interval.lower <= res.lower <= res.upper <= res.interval.upper

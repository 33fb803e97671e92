"""Bad input to a study, refused when the spec is read or named plainly (issue 44, items 5, 9, 10, 17)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairprobe as fp
from fairprobe.exceptions import ConfigError, DataError
from fairprobe.studies.spec import load_spec

TINY = {"datasets": [{"name": "german", "subsample": 200}], "classifiers": ["naive_bayes"], "constraints": ["none"],
        "metrics": ["demographic_parity"], "biases": ["selection"], "D": [0.02]}


# -- item 5: a key given twice ----------------------------------------------------------------------
def test_a_duplicated_yaml_key_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("datasets: [german]\nclassifiers: [naive_bayes]\ndatasets: [adult]\n")
    with pytest.raises(ConfigError) as info:
        load_spec(path)
    message = str(info.value)
    assert "line 3" in message and "'datasets'" in message and "line 1" in message and "once" in message


def test_a_duplicated_key_inside_a_data_set_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("datasets:\n  - name: german\n    subsample: 100\n    subsample: 300\n")
    with pytest.raises(ConfigError, match=r"line 4.*'subsample'"):
        load_spec(path)


def test_a_yaml_merge_key_is_not_a_duplicate() -> None:
    import yaml

    from fairprobe.studies.spec import SpecLoader

    data = yaml.load("a: &x {b: 1, c: 2}\nd: {<<: *x, b: 3}\n", Loader=SpecLoader)
    assert data == {"a": {"b": 1, "c": 2}, "d": {"b": 3, "c": 2}}


def test_a_duplicated_json_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"datasets": ["german"], "datasets": ["adult"]}')
    with pytest.raises(ConfigError, match=r"'datasets'.*once"):
        load_spec(path)


# -- item 10: a coverage level the interval code cannot take ---------------------------------------
@pytest.mark.parametrize("level", [0.3, 0.5])
def test_a_ci_level_not_above_one_half_is_refused_at_load(level: float) -> None:
    with pytest.raises(ConfigError, match=r"'ci\.level'.*\(0\.5, 1\).*e\.g\. 0\.95"):
        load_spec({**TINY, "ci": {"level": level}})
    assert load_spec({**TINY, "ci": {"level": 0.9}}).ci["level"] == 0.9


# -- item 17: a seed out of range, a data file without rows ----------------------------------------
@pytest.mark.parametrize("seed", [2**70, 2**32])
def test_a_seed_out_of_range_is_refused_at_load(seed: int) -> None:
    with pytest.raises(ConfigError, match=r"'seed'.*2\*\*32 - 1"):
        load_spec({**TINY, "seed": seed})
    assert load_spec({**TINY, "seed": 2**32 - 1}).seed == 2**32 - 1


def _own_file(tmp_path: Path, text: str) -> dict:
    (tmp_path / "d.csv").write_text(text)
    return {**TINY, "datasets": [{"name": "d", "path": str(tmp_path / "d.csv"), "label": "y", "attribute": "g",
                                  "groups": ["u", "v"]}]}


def test_a_data_file_with_a_header_only_is_named(tmp_path: Path) -> None:
    spec = _own_file(tmp_path, "x,g,y\n")
    with pytest.raises(DataError, match=r"d\.csv has no rows") as info:
        fp.study(spec, tmp_path / "out", progress=False, report=False)
    assert "never takes" not in str(info.value)


def test_an_empty_data_file_is_named(tmp_path: Path) -> None:
    spec = _own_file(tmp_path, "")
    with pytest.raises(DataError, match=r"d\.csv is empty"):
        fp.study(spec, tmp_path / "out", progress=False, report=False)


# -- item 9: the number of workers ----------------------------------------------------------------
def test_jobs_below_minus_one_are_refused_as_bound_does(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"n_jobs = -2 must be a positive integer \(or -1 for all cores\)"):
        fp.study(TINY, tmp_path / "out", n_jobs=-2, progress=False, report=False)
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_workers_are_capped_by_tasks_and_cores(tmp_path: Path, one_worker_spy: list[int | None]) -> None:
    asked = one_worker_spy
    res = fp.study(TINY, tmp_path / "out", n_jobs=1000, progress=False, report=False)  # one model, one unit
    assert len(res.results) == 2
    assert all(n is not None and 0 < n <= 1 for n in asked), asked


def test_the_worker_count() -> None:
    from fairprobe.studies.runner import worker_count

    cores = joblib_cores()
    assert worker_count(1000, 1) == 1 and worker_count(1000, 10_000) == cores
    assert worker_count(-1, 3) == min(3, cores) and worker_count(None, 5) == 1 and worker_count(2, 0) == 1


def joblib_cores() -> int:
    import joblib

    return max(1, joblib.cpu_count())


def test_spec_json_is_still_the_spec(tmp_path: Path) -> None:
    fp.study(TINY, tmp_path, progress=False, report=False)
    assert json.loads((tmp_path / "spec.json").read_text())["spec"]["D"] == [0.0, 0.02]

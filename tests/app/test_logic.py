"""Unit tests of the app's helpers (no Streamlit) and of the ``fairprobe app`` command."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import fairprobe as fp
from fairprobe.app import logic


@pytest.mark.parametrize("name", sorted(fp.get_registry().biases))
def test_fields_round_trip_every_registered_bias(name):
    cfg = fp.get_registry().biases[name]().config()
    again = logic.config_from_fields(logic.fields_from_config(cfg), cfg.to_dict())
    assert again.to_dict() == cfg.to_dict()
    assert fp.BiasConfig.from_dict(json.loads(again.to_json())) == cfg
    assert not logic.constraint_issues("\n".join(cfg.constraints), cfg.dag.nodes)


def test_constraint_issues_position_and_lines():
    issues = logic.constraint_issues("P(S = 1) >= 1 - D\n\nP(S = 1) >> D")
    assert [i.line for i in issues] == [3]
    assert "column" in issues[0].message
    assert not logic.constraint_issues("forall A: P(Y = 1 | A = {A}) <= D")


def test_constraints_are_never_evaluated():
    issues = logic.constraint_issues("__import__('os').system('echo hi') <= D")
    assert len(issues) == 1


def test_dag_dot_latent_dashed_and_conditioned():
    dot = logic.dag_dot("A->Y, U->Y, Y->S, not an edge", unob=["U"], cond_nodes=["S"], roles={"A": "attribute"})
    assert '"U" [style=dashed' in dot and "peripheries=2" in dot and '"U" -> "Y" [style=dashed]' in dot
    assert "not an edge" not in dot


def test_parse_mapping_errors():
    with pytest.raises(fp.ConfigError, match="integer"):
        logic.parse_mapping("A=three", integer=True)
    with pytest.raises(fp.ConfigError, match="node=value"):
        logic.parse_mapping("A", integer=True)


def test_read_upload_never_uses_the_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = logic.read_upload("../evil name.csv", b"A,Y,P\n0,1,1\n1,0,0\n")
    assert frame.shape == (2, 3)
    assert not list(tmp_path.iterdir())
    with pytest.raises(fp.DataError, match=r"'bad\.csv'"):
        logic.read_upload("bad.csv", b"")
    with pytest.raises(fp.DataError, match="larger"):
        logic.read_upload("x.csv", b"A\n1\n", max_bytes=2)


def test_read_upload_reads_parquet():
    # pandas reads Parquet through pyarrow, which the app extra (streamlit) brings; a bare install has none
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (pip install 'fairprobe[app]' brings it)")
    buf = io.BytesIO()
    pd.DataFrame({"A": [0, 1], "prob": [0.5, 0.5]}).to_parquet(buf)
    assert list(logic.read_upload("cells.parquet", buf.getvalue()).columns) == ["A", "prob"]


def test_build_table_and_groups():
    frame, kind = logic.load_bundled("compas")
    table = logic.build_table(frame, kind, {"A": "race", "Y": "two_year_recid", "P": "pred"})
    assert "African-American" in logic.group_labels(table, "A")
    with pytest.raises(fp.ConfigError, match="more than one node"):
        logic.build_table(frame, kind, {"A": "race", "Y": "race"})
    with pytest.raises(fp.DataError, match="no column"):
        logic.build_table(frame, kind, {"A": "nope"})


def test_sweep_job_equals_sensitivity():
    cells, _ = logic.load_bundled("paper")
    grid = logic.d_grid(0, 0.1, 3)
    job = logic.SweepJob("proxy_label", "fpr_parity", cells, grid)
    while not job.done:
        job.step()
    res = job.result()
    api = fp.sensitivity("proxy_label", "fpr_parity", cells, D=grid, progress=False, time_limit=10)
    cols = ["D", "lower", "upper", "lower_achieved", "upper_achieved"]
    np.testing.assert_allclose(res.to_frame()[cols].to_numpy(float), api.to_frame()[cols].to_numpy(float), atol=1e-9)
    assert res.observed.point == pytest.approx(api.observed.point)
    assert "keeps its sign" in logic.conclusion(res)
    assert logic.results_frame(res)["upper"].str.len().min() >= 10


def test_sweep_job_time_limit_always_set():
    cells, _ = logic.load_bundled("paper")
    with pytest.raises(fp.ConfigError, match="time limit"):
        logic.SweepJob("proxy_label", "fpr", cells, [0.0], time_limit=0)


def test_report_zips_have_index():
    cells, _ = logic.load_bundled("paper")
    res = fp.sensitivity("proxy_label", "fpr", cells, D=[0.0, 0.05], progress=False)
    names = zipfile.ZipFile(io.BytesIO(logic.sweep_report_zip([res]))).namelist()
    assert "index.html" in names and any(n.startswith("figures/") for n in names)


def test_role_kinds_of_every_analysis():
    for cls in fp.get_registry().analyses.values():
        kinds = logic.role_kinds(cls)
        assert kinds and set(kinds.values()) <= {"column", "columns", "array"}


def test_cli_app_without_streamlit(monkeypatch):
    from fairprobe.app import hooks
    from fairprobe.cli.main import cli, main

    monkeypatch.setattr(hooks, "streamlit_available", lambda: False)
    cli.reload_plugins()
    with pytest.raises(SystemExit) as exc:
        main(["app", "--no-browser"])
    assert exc.value.code == 2
    result = CliRunner().invoke(cli, ["app", "--help"])
    assert "--no-browser" in result.output and "--host" in result.output


def test_cli_app_runs_streamlit(monkeypatch):
    from fairprobe.app import hooks
    from fairprobe.cli.main import main

    calls = []
    monkeypatch.setattr(hooks, "streamlit_available", lambda: True)
    # the server is never started: run_server is what would start it (and it is tested on its own)
    monkeypatch.setattr(hooks, "run_server", lambda cmd: calls.append(cmd) or 0)
    with pytest.raises(SystemExit) as exc:
        main(["app", "--no-browser", "--port", "8765", "--max-upload-mb", "10"])
    assert exc.value.code == 0
    cmd = calls[0]
    assert cmd[cmd.index("--server.port") + 1] == "8765"
    assert cmd[cmd.index("--server.address") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--server.maxUploadSize") + 1] == "10"


def test_import_and_help_do_not_import_streamlit():
    code = ("import sys, fairprobe\nfrom fairprobe.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "import fairprobe.app, fairprobe.app.hooks, fairprobe.app.logic\n"
            "assert 'streamlit' not in sys.modules, 'streamlit imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=120)


def test_count_table_gives_the_probability_table() -> None:
    """A table of cell counts (column ``n``) reads as the same observed table as its probabilities."""
    from fairprobe.app import logic
    from fairprobe.datasets import load_paper_table

    cells = load_paper_table()
    counts = cells.assign(n=(cells.prob * 10_000).round().astype(int)).drop(columns="prob")
    assert logic.table_kind(counts) == "units"  # never guessed from the name (bad-input S3)
    assert logic.table_kind(counts, counts=True) == "counts" and logic.kind_text("counts") == "cells with counts"
    from_counts = logic.build_table(counts, "counts", {"A": "A", "Y": "Y", "P": "P"})
    expected = counts.n / counts.n.sum()
    np.testing.assert_allclose(from_counts.cells.prob.to_numpy(), expected.to_numpy(), atol=1e-12)
    a = fp.bound("proxy_label", "fpr_parity", from_counts, D=0.05)
    b = fp.bound("proxy_label", "fpr_parity", fp.ObservedTable.from_probabilities(
        counts.assign(prob=expected).drop(columns="n")), D=0.05)
    assert a.lower == pytest.approx(b.lower, abs=1e-6) and a.upper == pytest.approx(b.upper, abs=1e-6)  # solver gap
    with pytest.raises(fp.DataError, match="count column named 'n' or 'count'"):
        logic.build_table(cells.drop(columns="prob"), "counts", {"A": "A"})


@pytest.mark.parametrize("name", ["fairtree", "riskscore", "rashomon"])
def test_analyses_fit_on_a_users_table_of_predictions(name: str) -> None:
    """The app's role mapping fits each analysis on an uploaded table (COMPAS rows with a score and a prediction)."""
    from fairprobe.datasets import load_compas

    frame = load_compas(races=("African-American", "Caucasian")).frame.head(1500).reset_index(drop=True)
    frame = frame.assign(score=frame.decile_score / 10, pred=(frame.decile_score >= 5).astype(int))
    cls = fp.get_registry().analyses[name]
    kinds = logic.role_kinds(cls)
    chosen = {"y_true": "two_year_recid", "y_pred": "pred", "y_score": "score",
              "sensitive_features": ["race", "sex"] if kinds.get("sensitive_features") == "columns" else "race"}
    roles = {role: chosen[role] for role in kinds}
    features = ["age", "priors_count", "sex"] if name != "riskscore" else ["race", "sex"]
    data, kwargs = logic.fit_arguments(frame, kinds, roles, features)
    analysis = cls.example().analysis  # the example's small settings (few models, resamples)
    fitted = analysis.fit(data, **kwargs)
    assert len(fitted.to_frame()) > 0 and str(fitted.summary()).strip()


def test_sweep_job_with_a_sampling_interval_equals_sensitivity():
    counts = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                           "n": [400, 100, 100, 400, 300, 200, 100, 400]})
    table = fp.ObservedTable.from_counts(counts)
    job = logic.SweepJob("proxy_label", "fpr_parity", table, [0.0, 0.04], ci=0.95, ci_method="projection")
    while not job.done:
        job.step()
    frame = job.result().to_frame()
    api = fp.sensitivity("proxy_label", "fpr_parity", table, D=[0.0, 0.04], ci=0.95, ci_method="projection",
                         progress=False).to_frame()
    np.testing.assert_allclose(frame[["ci_lower", "ci_upper"]].to_numpy(float),
                               api[["ci_lower", "ci_upper"]].to_numpy(float), atol=1e-9)
    assert (frame.ci_lower <= frame.lower).all() and (frame.upper <= frame.ci_upper).all()
    cells, _ = logic.load_bundled("paper")  # probabilities: no sample size, refused with the fix
    with pytest.raises(fp.DataError, match="no sample size"):
        logic.SweepJob("proxy_label", "fpr", cells, [0.0], ci=0.95)

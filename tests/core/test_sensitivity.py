"""Sweeps: same numbers as pointwise bounds, parallel and on dask, frames and plots, bad input."""

from __future__ import annotations

import importlib.util

import matplotlib
import numpy as np
import pytest

import fairprobe as fp
from fairprobe.datasets import load_paper_table

matplotlib.use("Agg")
CELLS = load_paper_table()  # the seed paper's COMPAS table, bundled
GRID = list(np.linspace(0, 0.1, 6))


@pytest.mark.parametrize(("bias", "metric"), [("proxy_label", "fpr_parity"), ("selection", "equalized_odds"),
                                              ("ecp", "ppv")])
def test_sweep_matches_pointwise_bounds(bias: str, metric: str) -> None:
    res = fp.sensitivity(bias, metric, CELLS, D=GRID, progress=False)
    frame = res.to_frame()
    assert list(frame.columns[:3]) == ["D", "lower", "upper"]
    assert {"lower_achieved", "upper_achieved", "status", "time"} <= set(frame.columns)
    for d, lo, hi in frame[["D", "lower", "upper"]].itertuples(index=False):
        ref = fp.bound(bias, metric, CELLS, D=d)
        assert (lo, hi) == pytest.approx((ref.lower, ref.upper), abs=2e-6)
    # nested models: the band widens with D
    assert np.all(np.diff(frame["upper"]) >= -1e-6) and np.all(np.diff(frame["lower"]) <= 1e-6)


def test_parallel_sweep_equals_sequential() -> None:
    seq = fp.sensitivity("selection", "fpr_parity", CELLS, D=GRID, progress=False).to_frame()
    par = fp.sensitivity("selection", "fpr_parity", CELLS, D=GRID, n_jobs=2, progress=False).to_frame()
    np.testing.assert_allclose(par[["lower", "upper"]], seq[["lower", "upper"]], atol=1e-7)


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed not installed")
def test_sweep_on_a_local_dask_cluster() -> None:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        res = fp.sensitivity("proxy_label", "fpr", CELLS, D=GRID, parallel_backend="dask", progress=False)
    seq = fp.sensitivity("proxy_label", "fpr", CELLS, D=GRID, progress=False)
    np.testing.assert_allclose(res.to_frame()[["lower", "upper"]], seq.to_frame()[["lower", "upper"]], atol=1e-9)


def test_observed_value_plot_and_json(tmp_path) -> None:
    res = fp.sensitivity("proxy_label", "fpr", CELLS, D=GRID, progress=False)
    p = CELLS.set_index(["A", "Y", "P"])["prob"]
    assert res.observed.point == pytest.approx(p[0, 0, 1] / (p[0, 0, 0] + p[0, 0, 1]), abs=1e-9)
    ax = res.plot()
    assert ax.get_xlabel() == "sensitivity D" and len(ax.collections) >= 1
    text = res.to_json(str(tmp_path / "sweep.json"))
    assert '"observed"' in text and (tmp_path / "sweep.json").exists()
    assert "sensitivity of fpr" in res.summary()


def test_sensitivity_grid_long_frame() -> None:
    out = fp.sensitivity_grid(["proxy_label", "selection"], ["fpr_parity", "demographic_parity"],
                              {"compas": CELLS, "compas_again": CELLS}, D=[0.0, 0.05], progress=False, n_jobs=2)
    assert len(out) == 2 * 2 * 2 * 2
    a = out[out.dataset == "compas"].reset_index(drop=True)
    b = out[out.dataset == "compas_again"].reset_index(drop=True)
    np.testing.assert_allclose(a[["lower", "upper"]], b[["lower", "upper"]], atol=1e-7)


def test_bad_sweep_input() -> None:
    with pytest.raises(fp.ConfigError, match="empty"):
        fp.sensitivity("selection", "fpr", CELLS, D=[], progress=False)
    with pytest.raises(fp.ConfigError, match="list of sensitivity values"):
        fp.sensitivity("selection", "fpr", CELLS, D=0.1, progress=False)
    with pytest.raises(fp.ConfigError, match=r"outside \[0, 1\]"):
        fp.sensitivity("selection", "fpr", CELLS, D=[0.1, 1.5], progress=False)
    with pytest.raises(fp.ConfigError, match="say which to sweep"):
        fp.sensitivity(["proxy_label", "selection"], "fpr", CELLS, D=[0.1], progress=False)
    with pytest.raises(fp.ConfigError, match="needs \\['T'\\]"):
        fp.sensitivity("selection", "P(P = 1 | T = 1)", CELLS, D=[0.1], progress=False)
    with pytest.raises(fp.ConfigError, match="plot_heatmap"):
        fp.sensitivity("selection", "fpr", CELLS, D=[0.0], progress=False).plot_heatmap()


def test_infeasible_points_are_reported_not_raised() -> None:
    cfg = {"dag_str": "A->Y, A->P, U->Y, U->P", "unob": ["U"], "constraints": ["P(P = 1) <= D"]}
    res = fp.sensitivity(cfg, "fpr", CELLS, D=[0.1, 0.9], progress=False)
    frame = res.to_frame()
    assert list(frame.status) == ["infeasible", "optimal"]
    assert "Increase D" in frame.error[0]

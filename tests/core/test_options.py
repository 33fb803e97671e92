"""Engine options are explicit and travel with the problem; the four drivers share one option set."""

from __future__ import annotations

import inspect
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core import compiler
from fairprobe.core import engine as bound_module
from fairprobe.datasets import load_paper_table

SHARED = ("backend", "time_limit", "gap", "reduce", "n_jobs", "solver_options", "unmeasured", "progress",
          "compile_options", "fixed")


def _three_groups(seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(12, 2.0))
    rows = [dict(A=a, Y=y, P=p, prob=probs[4 * a + 2 * y + p]) for a in range(3) for y in range(2) for p in range(2)]
    return pd.DataFrame(rows)


def test_module_flags_are_gone() -> None:
    for module, flag in ((compiler, "SLICING"), (compiler, "WINDOWS"), (compiler, "REPARAMETRISE"),
                         (bound_module, "RATE_RANGES")):
        assert not hasattr(module, flag), f"{module.__name__}.{flag} is a process-wide switch again"


def test_compile_options_are_frozen_and_checked() -> None:
    opts = fp.CompileOptions(windows=False)
    with pytest.raises(AttributeError):
        opts.windows = True  # type: ignore[misc]
    with pytest.raises(fp.ConfigError, match="windows = 'no' must be True or False"):
        fp.CompileOptions(windows="no")  # type: ignore[arg-type]
    assert not fp.CompileOptions(reduce=False).uses("slicing")
    assert pickle.loads(pickle.dumps(opts)) == opts
    with pytest.raises(fp.ConfigError, match="CompileOptions"):
        fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05, compile_options={"windows": False})


def test_compile_options_travel_to_worker_processes() -> None:
    """A sweep in two worker processes compiles as the caller asked, not with the workers' defaults."""
    metric = fp.metric("fpr_parity", groups="all")
    previous = fp.CompileOptions(windows=False, rate_ranges=False)
    old = fp.sensitivity("proxy_label", metric, _three_groups(), D=[0.0, 0.05], n_jobs=2, progress=False,
                         compile_options=previous)
    new = fp.sensitivity("proxy_label", metric, _three_groups(), D=[0.0, 0.05], n_jobs=2, progress=False)
    assert all("pairs_solved" not in pt.result.details for pt in old.points)  # the previous formulation ran
    assert all("pairs_solved" in pt.result.details for pt in new.points)
    np.testing.assert_allclose(old.to_frame()["upper"], new.to_frame()["upper"], atol=1e-5)


def test_the_four_drivers_share_one_option_set() -> None:
    for fn in (fp.bound, fp.sensitivity, fp.sensitivity_grid, fp.breakdown):
        params = inspect.signature(fn).parameters
        missing = [name for name in SHARED if name not in params]
        assert not missing, f"{fn.__name__} lacks {missing}"
        assert all(params[name].kind is inspect.Parameter.KEYWORD_ONLY for name in SHARED), fn.__name__
        assert params["gap"].default == params["gap"].default and params["reduce"].default is True
    defaults = {fn.__name__: {n: inspect.signature(fn).parameters[n].default for n in SHARED}
                for fn in (fp.bound, fp.sensitivity, fp.sensitivity_grid, fp.breakdown)}
    assert len({json.dumps(d, default=str, sort_keys=True) for d in defaults.values()}) == 1, defaults


@pytest.mark.parametrize("driver", ["bound", "sensitivity", "sensitivity_grid", "breakdown"])
def test_one_message_per_bad_option(driver: str) -> None:
    table = load_paper_table()
    calls = {
        "bound": lambda **kw: fp.bound("proxy_label", "fpr_parity", table, D=0.05, **kw),
        "sensitivity": lambda **kw: fp.sensitivity("proxy_label", "fpr_parity", table, D=[0.05], **kw),
        "sensitivity_grid": lambda **kw: fp.sensitivity_grid(["proxy_label"], ["fpr_parity"], {"t": table},
                                                             D=[0.05], **kw),
        "breakdown": lambda **kw: fp.breakdown("proxy_label", "fpr_parity", table, **kw),
    }
    call = calls[driver]
    with pytest.raises(fp.ConfigError, match="n_jobs = 0 must be a positive integer"):
        call(n_jobs=0)
    with pytest.raises(fp.ConfigError, match="gap = -1 must be >= 0"):
        call(gap=-1)
    with pytest.raises(fp.ConfigError, match="solver_options = 3 must be a dict"):
        call(solver_options=3)
    with pytest.raises(fp.ConfigError, match="progress = 'yes' must be True or False"):
        call(progress="yes")


@pytest.mark.parametrize("driver", ["bound", "sensitivity", "sensitivity_grid", "breakdown"])
def test_a_bad_solver_option_is_an_error_in_every_driver(driver: str) -> None:
    """A sweep used to turn it into NaN rows and "2 point(s) not solved to optimality"."""
    table, bad = load_paper_table(), {"no/such/param": 1}
    with pytest.raises(fp.SolverError, match="no/such/param"):
        if driver == "bound":
            fp.bound("proxy_label", "fpr", table, D=0.05, solver_options=bad)
        elif driver == "sensitivity":
            fp.sensitivity("proxy_label", "fpr", table, D=[0.0, 0.05], solver_options=bad, progress=False)
        elif driver == "sensitivity_grid":
            fp.sensitivity_grid(["proxy_label"], ["fpr"], {"t": table}, D=[0.0, 0.05], solver_options=bad,
                                progress=False)
        else:
            fp.breakdown("proxy_label", "fpr_parity", table, solver_options=bad)


def test_infeasible_and_undefined_points_stay_rows() -> None:
    """What a grid point may legitimately be is a row with its reason, by type."""
    # group 1 has positives only: its FPR (conditioned on Z = 0) has no value until the proxy may err
    cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1], "Y": [0, 0, 1, 1, 1, 1], "P": [0, 1, 0, 1, 0, 1],
                          "prob": [0.3, 0.1, 0.1, 0.3, 0.1, 0.1]})
    res = fp.sensitivity("proxy_label", fp.metric("fpr", group=1), cells, D=[0.0, 0.05], progress=False)
    frame = res.to_frame()
    assert frame["status"].tolist() == ["undefined", "optimal"]
    assert "undefined" in frame["error"].iloc[0] and res.conclusion().verdict == "undetermined"


def test_fixed_parameters_mean_the_same_everywhere() -> None:
    table = load_paper_table()
    bias, held = ["proxy_label", "selection"], {"D_proxy_label": 0.01}
    one = fp.bound(bias, "fpr", table, D_selection=0.05, fixed=held)
    sweep = fp.sensitivity(bias, "fpr", table, D=[0.05], parameter="D_selection", fixed=held, progress=False)
    grid = fp.sensitivity_grid([bias], ["fpr"], {"t": table}, D=[0.05], fixed=held, progress=False)
    assert one.upper == pytest.approx(sweep.points[0].result.upper, abs=1e-9)
    assert one.upper == pytest.approx(grid["upper"].iloc[0], abs=1e-9)
    assert grid["D_proxy_label"].iloc[0] == 0.01
    with pytest.raises(fp.ConfigError, match="given both"):
        fp.bound(bias, "fpr", table, D_selection=0.05, D_proxy_label=0.02, fixed=held)


def test_breakdown_search_range_and_bracket_have_one_name_each() -> None:
    table = load_paper_table()
    res = fp.breakdown("proxy_label", "fpr_parity", table, D_max=0.1, xtol=0.01)
    assert res.xtol == 0.01 and res.to_dict()["xtol"] == 0.01 and res.value <= 0.1
    assert "no_bias" in res.to_dict() and res.to_frame()["point"].iloc[0] == "no_bias"
    with pytest.raises(fp.ConfigError, match=r"D = 0\.1 fixes the parameter the breakdown moves; .*D_max=0\.1"):
        fp.breakdown("proxy_label", "fpr_parity", table, D=0.1)  # the old alias of D_max
    with pytest.raises(fp.ConfigError, match=r"unknown sensitivity parameter\(s\) \['tol'\]"):
        fp.breakdown("proxy_label", "fpr_parity", table, tol=0.01)  # the old alias of xtol
    assert not hasattr(res, "tol") and not hasattr(res, "observed")


def test_drivers_take_one_options_object_with_keywords_as_sugar() -> None:
    table = load_paper_table()
    opts = fp.RunOptions(time_limit=30.0, gap=1e-7)
    flat = fp.breakdown("proxy_label", "fpr_parity", table, D_max=0.1, xtol=0.01, time_limit=30.0, gap=1e-7)
    whole = fp.breakdown("proxy_label", "fpr_parity", table, D_max=0.1, xtol=0.01, options=opts)
    assert whole.value == flat.value and whole.no_bias.lower == flat.no_bias.lower
    swept = fp.sensitivity("proxy_label", "fpr_parity", table, D=[0.0, 0.02], options=opts)
    assert swept.to_frame()["upper"].tolist() == fp.sensitivity(
        "proxy_label", "fpr_parity", table, D=[0.0, 0.02], time_limit=30.0, gap=1e-7).to_frame()["upper"].tolist()
    one = fp.bound("proxy_label", "fpr_parity", table, D=0.02, options=opts)
    assert (one.lower, one.upper) == (swept.points[1].result.lower, swept.points[1].result.upper)
    with pytest.raises(fp.ConfigError, match=r"either as options= or as keywords, not both: \['gap'\]"):
        fp.breakdown("proxy_label", "fpr_parity", table, options=opts, gap=1e-3)
    with pytest.raises(fp.ConfigError, match=r"must be a fairprobe RunOptions"):
        fp.sensitivity("proxy_label", "fpr_parity", table, D=[0.0], options={"time_limit": 5})


def test_an_empty_unmeasured_list_declares_nothing() -> None:
    """It used to declare every node unmeasured and then refuse the table."""
    table = load_paper_table()
    assert fp.bound("proxy_label", "fpr", table, D=0.05, unmeasured=[]).upper == \
        pytest.approx(fp.bound("proxy_label", "fpr", table, D=0.05).upper, abs=1e-12)

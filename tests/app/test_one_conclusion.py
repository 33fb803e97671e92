"""One question, one conclusion: the API, the command line (``--json`` and text) and the app print
the same words, because every front end renders the result's own :meth:`conclusion`.

Six benchmark cases (issue 24): equalised odds (a gap with no sign), a rate, a metric undefined
without bias, a time-limited solve, a two-bias breakdown and a six-group table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.datasets import load_compas, load_paper_table
from tests.bad_input import run_cli


@dataclass
class Case:
    """A sweep (or, with ``breakdown``, a breakdown point) asked of all three front ends."""

    name: str
    frame: pd.DataFrame
    kind: str  # the app's table kind: "cells" or "units"
    bias: list[str]
    metric: str
    grid: list[float]
    columns: dict[str, str] = field(default_factory=dict)
    groups: tuple[str, str] | None = None
    time_limit: float = 10.0
    breakdown: str | None = None  # the parameter moved
    fixed: dict[str, float] = field(default_factory=dict)
    verdict: str = ""


def _races() -> pd.DataFrame:
    """Three races; race 'c' has one unit (Y = 1, P = 1): its FPR has no value without bias."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 900)
    pred = np.where(rng.random(900) < 0.7, y, 1 - y)
    df = pd.DataFrame({"race": np.repeat(["a", "b"], 450), "recid": y, "pred": pred})
    return pd.concat([df, pd.DataFrame({"race": ["c"], "recid": [1], "pred": [1]})], ignore_index=True)


def _compas() -> pd.DataFrame:
    frame = load_compas().frame
    return frame.assign(pred=(frame.decile_score >= 5).astype(int))


PAPER = load_paper_table()
CASES = [
    Case("equalized_odds", PAPER, "cells", ["proxy_label"], "equalized_odds", [0.0, 0.05], verdict="could_be_zero"),
    Case("rate", PAPER, "cells", ["proxy_label"], "fpr", [0.0, 0.05], groups=("1", "0"), verdict="range"),
    Case("undefined_without_bias", _races(), "units", ["proxy_label"], "fpr_parity", [0.0, 0.01],
         columns={"A": "race", "Y": "recid", "P": "pred"}, groups=("c", "a"), verdict="undetermined"),
    # (a parity of two rates is now an exact LP search of a few ms; the joint program of equalised odds is
    # still SCIP's, which a 1 ms limit stops every time: a warm process solves it in under 10 ms)
    Case("time_limited", PAPER, "cells", ["proxy_label_and_selection"], "equalized_odds", [0.05],
         time_limit=0.001),
    Case("two_bias_breakdown", PAPER, "cells", ["proxy_label", "selection"], "fpr_parity", [0.0, 0.05],
         breakdown="D_selection", fixed={"D_proxy_label": 0.01}, verdict="can_flip"),
    Case("six_groups", _compas(), "units", ["proxy_label"], "fpr_parity", [0.0, 0.02],
         columns={"A": "race", "Y": "two_year_recid", "P": "pred"}, groups=("African-American", "Caucasian"),
         verdict="survives"),
]


def _api(case: Case) -> fp.Conclusion:
    groups = None if case.groups is None else tuple(int(g) if g.isdigit() else g for g in case.groups)
    table = (fp.ObservedTable.from_frame(case.frame, **case.columns) if case.columns
             else fp.ObservedTable.from_probabilities(case.frame))
    options = {} if groups is None else ({"group": groups[0]} if case.metric == "fpr" else {"groups": groups})
    metric = fp.metric(case.metric, **options)
    bias = case.bias if len(case.bias) > 1 else case.bias[0]
    if case.breakdown:
        return fp.breakdown(bias, metric, table, parameter=case.breakdown, time_limit=case.time_limit,
                            **case.fixed).conclusion()
    return fp.sensitivity(bias, metric, table, D=case.grid, time_limit=case.time_limit, progress=False).conclusion()


def _cli(case: Case, path: Path, capsys: pytest.CaptureFixture, as_json: bool) -> str:
    args = [a for b in case.bias for a in ("--bias", b)] + ["--metric", case.metric, "--data", str(path),
                                                            "--time-limit", str(case.time_limit)]
    if case.columns:
        args += ["--columns", ",".join(f"{k}={v}" for k, v in case.columns.items())]
    if case.groups:
        args += ["--group", case.groups[0]] if case.metric == "fpr" else ["--groups", ",".join(case.groups)]
    args += [a for k, v in case.fixed.items() for a in ("--param", f"{k}={v}")]
    if case.breakdown:
        args = ["breakdown", *args, "--parameter", case.breakdown]
    else:
        args = ["sweep", *args, "--D", ",".join(str(d) for d in case.grid)]
    code, out, err = run_cli([*args, "--json"] if as_json else args, capsys)
    assert code == 0, err
    if as_json:
        return json.loads(out)["conclusion"]
    lines = [line for line in out.splitlines() if line.startswith("conclusion: ")]
    assert len(lines) == 1, out  # printed once
    return lines[0].removeprefix("conclusion: ")


def _app(case: Case, app_test) -> str:
    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.session_state["data_frame"], at.session_state["data_kind"] = case.frame, case.kind
    at.session_state["data_name"], at.session_state["data_token"] = case.name, 100
    at.run()
    for node, column in case.columns.items():
        at.selectbox(key=f"map_{node}_100").set_value(column)
    at.run()
    if case.groups is not None:
        labels = [str(v) for v in at.session_state["table"].categories.get("A", [0, 1])]
        if len(labels) > 2:
            at.radio(key="group_mode_100").set_value("two groups").run()
        for i, g in enumerate(case.groups):
            box = at.selectbox(key=f"group{i}_100")
            box.set_value(next(o for o in box.options if str(o) == g))
        at.run()
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    at.multiselect(key="sw_metrics").set_value([case.metric])
    at.multiselect(key="sw_biases").set_value(case.bias).run()
    if case.breakdown:
        at.radio(key="sw_mode").set_value("1-D sweep").run()
        at.selectbox(key="sw_param").set_value(case.breakdown)
        at.number_input(key="sw_fixed").set_value(next(iter(case.fixed.values())))
        at.checkbox(key="sw_breakdown").check()
    at.number_input(key="sw_start").set_value(case.grid[0])
    at.number_input(key="sw_stop").set_value(case.grid[-1])
    at.number_input(key="sw_n").set_value(len(case.grid))
    at.number_input(key="sw_time_limit").set_value(case.time_limit)
    at.button(key="sw_run").click().run(timeout=300)
    assert not at.exception, at.exception
    assert not [e.value for e in at.error], [e.value for e in at.error]
    if case.breakdown:
        lines = [line for t in at.text for line in t.value.splitlines() if line.startswith("conclusion: ")]
        assert len(lines) == 1
        return lines[0].removeprefix("conclusion: ")
    return at.info[0].value


def _replay_solves(monkeypatch: pytest.MonkeyPatch) -> dict:
    """Record every point the API solves; afterwards, the CLI and the app get the same outcomes.

    A solve stopped by a time limit ends wherever the clock stops it, so three runs of one question
    differ in their last digits. Replaying the API's points makes the three front ends render the
    same numbers; everything but the solver's clock still runs (grid, observed value, conclusion).
    """
    import copy

    recorded: dict = {}
    real = BoundProblem.solve_point

    def record(self, params, **kwargs):
        key = (self.metric.label, tuple(sorted(params.items())))
        if key not in recorded:
            recorded[key] = real(self, params, **kwargs)
        return copy.deepcopy(recorded[key])

    monkeypatch.setattr(BoundProblem, "solve_point", record)
    return recorded


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_conclusion_in_api_cli_and_app(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture,
                                            app_test, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("streamlit", reason="the app's side of the comparison needs the app extra")
    path = tmp_path / f"{case.name}.csv"
    case.frame.to_csv(path, index=False)
    if case.time_limit < 1:
        recorded = _replay_solves(monkeypatch)
    api = _api(case)
    if case.time_limit < 1:
        assert any(o.status == "limit" for o in recorded.values())  # the clock really stopped a solve
    if case.verdict:
        assert api.verdict == case.verdict, api.text
    else:  # the time-limited case: a limit must have been reached and be said
        assert "stopped at its limit" in api.text, api.text
    assert _cli(case, path, capsys, as_json=True) == api.text
    assert _cli(case, path, capsys, as_json=False) == api.text
    assert _app(case, app_test) == api.text


def test_six_groups_without_a_choice_is_refused_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                           app_test) -> None:
    """The app does not pick two of six groups: it asks, and without an answer it refuses as the API does."""
    pytest.importorskip("streamlit", reason="the app's side of the comparison needs the app extra")
    case = CASES[-1]
    table = fp.ObservedTable.from_frame(case.frame, **case.columns)
    with pytest.raises(fp.ConfigError) as api:
        fp.bound("proxy_label", "fpr_parity", table, D=0.01)
    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.session_state["data_frame"], at.session_state["data_kind"] = case.frame, case.kind
    at.session_state["data_name"], at.session_state["data_token"] = case.name, 100
    at.run()
    for node, column in case.columns.items():
        at.selectbox(key=f"map_{node}_100").set_value(column)
    at.run()
    assert at.selectbox(key="group0_100").value is None  # nothing picked for the user
    assert any("does not pick two of 6 groups" in w.value for w in at.warning)
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    at.multiselect(key="sw_biases").set_value(["proxy_label"]).run()
    at.button(key="sw_run").click().run(timeout=120)
    shown = " ".join(e.value for e in at.error)
    assert str(api.value) in shown

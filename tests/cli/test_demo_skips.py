"""``fairprobe demo`` skips an analysis whose optional packages are missing, naming the extra; the plugin
command of such an analysis (``multiplicity-trees`` without treefarms) says so instead of failing."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from fairprobe.backends.base import Availability
from fairprobe.plugins.base import Analysis, Example, Summary
from tests.bad_input import run_cli


class _Share(Analysis):
    """Available: the default demo step fits its example."""

    name = "share_ok"
    description = "share of positive outcomes"

    def fit(self, data, *, y_true):
        self.share_ = float(data[y_true].mean())
        return self

    def summary(self) -> Summary:
        self.check_is_fitted()
        return Summary(f"share {self.share_:.2f}")

    def to_frame(self) -> pd.DataFrame:
        self.check_is_fitted()
        return pd.DataFrame({"share": [self.share_]})

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        return Example(cls(), pd.DataFrame({"y": [0, 1, 1, 1]}), {"y_true": "y"})


class _NeedsAnExtra(_Share):
    name = "needs_extra"
    requires = ("fairprobe_no_such_package_xyz",)
    extra = "nothere"

    @classmethod
    def demo(cls, *args, **kwargs):  # would fail: the demo must not call it
        raise AssertionError("the demo ran an unavailable analysis")


def test_demo_skips_an_unavailable_analysis_with_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.cli import demo

    registry = SimpleNamespace(analyses={"share_ok": _Share, "needs_extra": _NeedsAnExtra}, backends={})
    monkeypatch.setattr(demo, "get_registry", lambda: registry)
    monkeypatch.setattr(demo, "_causal", lambda *a, **k: ({}, pd.DataFrame({"x": [1]}), ["- causal: stubbed"]))
    assert [step[0] for step in demo._analysis_steps()] == ["share_ok"]
    reason = 'not installed (needs fairprobe_no_such_package_xyz); install with: pip install "fairprobe[nothere]"'
    assert demo._unavailable_analyses() == [("needs_extra", reason)]
    echoed: list[str] = []
    result = demo.run_demo(tmp_path / "report", quick=True, echo=echoed.append, progress=False)
    assert f"skipping needs_extra: {reason}" in echoed
    assert f"- needs_extra: skipped, {reason}" in result.summary
    assert "- share_ok (its built-in example): share 0.75" in result.summary  # the available one ran
    assert result.page.is_file() and json.loads((tmp_path / "report" / "summary.json").read_text())["quick"]


@pytest.mark.parametrize("command", [["multiplicity-trees"], ["multiplicity", "--exact-trees"]])
def test_tree_commands_say_which_extra_they_need(command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    monkeypatch.setattr(TreeRashomonSet, "availability", classmethod(lambda cls: Availability.NOT_INSTALLED))
    monkeypatch.setattr(TreeRashomonSet, "missing_requirements", classmethod(lambda cls: ["treefarms"]))
    data = tmp_path / "rows.csv"
    pd.DataFrame({"x": [0, 1, 0, 1], "y": [0, 1, 1, 0]}).to_csv(data, index=False)
    code, out, err = run_cli([*command, "--data", str(data), "--target", "y"], capsys)
    assert code == 0, err
    assert out.strip() == ('multiplicity-trees skipped: the exact tree Rashomon set is not installed (needs '
                           'treefarms); install with: pip install "fairprobe[trees]"')
    code, out, err = run_cli([*command, "--data", str(data), "--target", "y", "--json"], capsys)
    assert code == 0 and json.loads(out) == {"skipped": True, "reason": (
        'the exact tree Rashomon set is not installed (needs treefarms); install with: pip install "fairprobe[trees]"')}


def test_the_solver_cross_check_names_the_solvers_it_could_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.backends.ortools import OrtoolsBackend
    from fairprobe.backends.scip import ScipBackend
    from fairprobe.cli import demo
    from fairprobe.reporting.report import Report

    monkeypatch.setattr(OrtoolsBackend, "availability", classmethod(lambda cls: Availability.NOT_INSTALLED))
    registry = SimpleNamespace(backends={"scip": ScipBackend, "ortools": OrtoolsBackend}, analyses={})
    monkeypatch.setattr(demo, "get_registry", lambda: registry)
    table = pd.DataFrame({"A": [1, 1, 1, 1], "Y": [0, 0, 1, 1], "P": [0, 1, 0, 1]})
    sec = Report("demo").section("causal")
    names, spread = demo._backend_cross_check(sec, table)
    assert names == ["scip"] and spread == 0.0
    cross = sec.tables[-1]
    assert cross.name == "solver cross-check" and list(cross.frame.backend) == ["scip"]
    assert cross.caption.endswith('Not installed, so not run: ortools (pip install "fairprobe[ortools]").')

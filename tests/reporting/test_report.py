"""The shared HTML report: round trip through the folder format, merging, errors, and a browser check."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.reporting.report import Report, combine_reports, load_report

matplotlib.use("Agg")


def make_report(title: str = "Audit <script>alert(1)</script>") -> Report:
    import matplotlib.pyplot as plt

    rep = Report(title, command="fairprobe test --seed 1", summary="two findings")
    sec = rep.section("Bounds", "Certified bounds.\n\nSecond paragraph.")
    sec.add_parameters({"bias": "proxy_label", "D": [0, 0.05]})
    sec.add_table("bounds", pd.DataFrame({"D": [0.0, 0.05], "lower": [-0.1, -0.25], "upper": [-0.1, 0.125]}))
    sec.add_table("by group", pd.DataFrame({"rate": [0.25, 0.5]}, index=pd.Index(["a", "b"], name="group")))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    sec.add_figure("line", fig, "a line")
    sec.add_note("a pre-formatted\nsummary")
    return rep


def test_round_trip_through_the_folder(tmp_path: Path) -> None:
    rep = make_report()
    page = rep.write(tmp_path / "r")
    back = load_report(tmp_path / "r")
    assert back.title == rep.title and back.command == rep.command and back.summary == "two findings"
    sec, orig = back.sections[0], rep.sections[0]
    assert sec.parameters == {"bias": "proxy_label", "D": [0, 0.05]} and sec.notes == orig.notes
    pd.testing.assert_frame_equal(sec.tables[0].frame, orig.tables[0].frame)
    pd.testing.assert_frame_equal(sec.tables[1].frame, orig.tables[1].frame)
    assert sec.figures[0].png == orig.figures[0].png and sec.figures[0].png[:4] == b"\x89PNG"
    html = page.read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html  # text is escaped, no scripts
    assert not re.search(r"""(src|href)=['"]https?:""", html)  # self-contained: nothing fetched
    assert html.count("data:image/png;base64,") == 1
    assert "fairprobe test --seed 1" in html and fp.__version__ in html and "SCIP" in html


def test_combine_and_errors(tmp_path: Path) -> None:
    a, b = make_report("first"), make_report("second")
    merged = combine_reports([a, b], "both", command="fairprobe report a b")
    assert [s.title for s in merged.sections] == ["first: Bounds", "second: Bounds"]
    merged.write(tmp_path / "m")
    assert json.loads((tmp_path / "m" / "report.json").read_text())["title"] == "both"
    with pytest.raises(fp.DataError, match=r"no report\.json"):
        load_report(tmp_path)
    a.write(tmp_path / "a")
    next((tmp_path / "a" / "tables").iterdir()).unlink()
    with pytest.raises(fp.DataError, match="Cannot read the report"):
        load_report(tmp_path / "a")


@pytest.mark.slow
def test_demo_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    """The demo's report opens in Chromium without console errors; the screenshot is kept for a look."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium package is not installed (apt-get install chromium)")
    from fairprobe.cli.demo import run_demo

    res = run_demo(tmp_path / "demo", quick=True, seed=1, echo=lambda *_: None, progress=False)
    shot = tmp_path / "demo" / "screenshot.png"
    out = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--enable-logging=stderr", "--v=0", "--window-size=1280,6000", f"--screenshot={shot}",
                          res.page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    console = [line for line in out.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console
    assert shot.stat().st_size > 100_000
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1280, 6000)
        # the page is not blank: a good share of the screenshot is drawn (text, tables, figures)
        grey = np.asarray(im.convert("L").resize((128, 600)))
        drawn = float(np.mean(grey < 250))
    assert drawn > 0.1


# -- report folders (issue 13, item 7) ------------------------------------------------------------------
def _siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if "fairprobe-" in p.name)


def test_empty_or_impossible_folder_is_refused_before_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.reporting.report import write_report

    monkeypatch.chdir(tmp_path)
    for call in (lambda: make_report().write(""), lambda: write_report("  ", "t")):
        with pytest.raises(fp.ConfigError, match=r"empty.*give a folder name"):
            call()
    assert list(tmp_path.iterdir()) == []  # nothing written into the current folder
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(fp.ConfigError, match=r"notes\.txt is a file, not a folder"):
        make_report().write(tmp_path / "notes.txt")
    with pytest.raises(fp.ConfigError, match=r"notes\.txt is a file.*choose another path"):
        make_report().write(tmp_path / "notes.txt" / "report")


def test_a_folder_with_the_users_files_is_refused_unless_forced(tmp_path: Path) -> None:
    from fairprobe.reporting.report import write_report

    out = tmp_path / "mine"
    out.mkdir()
    (out / "index.html").write_text("<html>my page</html>")
    (out / "notes.txt").write_text("keep me")
    drawn = []
    with pytest.raises(fp.ConfigError, match=r"holds files fairprobe did not write \(index\.html, notes\.txt\).*force"):
        write_report(out, "t", figures={"f": lambda: drawn.append(1)})
    assert not drawn  # refused before any figure was drawn
    assert (out / "index.html").read_text() == "<html>my page</html>"
    page = make_report().write(out, force=True)
    assert "Bounds" in page.read_text() and (out / "notes.txt").read_text() == "keep me"  # only report entries
    with pytest.raises(fp.ConfigError, match="did not write"):  # still the user's folder (notes.txt)
        make_report().write(out)
    assert _siblings(out) == []


def test_rewriting_a_report_folder_replaces_it_as_a_whole(tmp_path: Path) -> None:
    from fairprobe.reporting.report import folder_kind, write_report

    out = tmp_path / "r"
    make_report().write(out)
    assert folder_kind(out) == "fairprobe"
    assert json.loads((out / "report.json").read_text())["generator"] == "fairprobe"
    old_tables = sorted(p.name for p in (out / "tables").iterdir())
    write_report(out, "second analysis", tables={"other": pd.DataFrame({"a": [1]})})
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["s1_other.csv"] != old_tables
    assert list((out / "figures").iterdir()) == []  # the first report's figure is gone
    assert load_report(out).title == "second analysis" and _siblings(out) == []


def test_a_failed_write_leaves_the_previous_report(tmp_path: Path) -> None:
    out = tmp_path / "r"
    make_report("first").write(out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    class Broken(pd.DataFrame):
        def to_csv(self, *args: object, **kwargs: object) -> None:
            raise OSError("disk full")

    from fairprobe.reporting.report import TableItem

    rep = Report("second")
    rep.section("s").tables.append(TableItem("t", Broken({"a": [1]})))
    with pytest.raises(OSError, match="disk full"):
        rep.write(out)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before and _siblings(out) == []


def test_the_current_folder_as_report_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    make_report("one").write(".")
    make_report("two").write(".")  # a fairprobe folder: replaced, the folder itself stays
    assert Path.cwd() == tmp_path and load_report(tmp_path).title == "two"
    own = [".fairprobe-report.id", "figures", "index.html", "report.json", "tables"]
    assert sorted(p.name for p in tmp_path.iterdir()) == own


def test_analysis_reports_follow_the_folder_rules(tmp_path: Path) -> None:
    from sklearn.tree import DecisionTreeClassifier

    from fairprobe.plugins.rashomon import RashomonSet
    from fairprobe.plugins.riskscore import RiskScoreAudit

    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n)})
    r = rng.random(n)
    y = (rng.random(n) < r).astype(int)
    audit = RiskScoreAudit(n_bootstrap=5, metrics=("drmsce",), random_state=0,
                           progress=False).fit(frame, y_true=y, y_score=r, sensitive_features=["sex"])
    X = rng.normal(size=(n, 2))
    rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=2), n_models=4, epsilon=0.2, random_state=0,
                     progress=False).fit(X, y_true=(X[:, 0] > 0).astype(int))
    for write in (lambda out, **kw: audit.to_report(out, **kw), lambda out, **kw: rs.to_report(out, **kw)):
        out = tmp_path / f"r{len(list(tmp_path.iterdir()))}"
        out.mkdir()
        (out / "index.html").write_text("mine")
        with pytest.raises(fp.ConfigError, match="did not write"):
            write(out)
        assert (out / "index.html").read_text() == "mine"
        write(out, force=True)
        assert (out / "index.html").read_text() != "mine"
        write(out)  # now a fairprobe folder: replaced

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
from fairprobe.report import Report, combine_reports, load_report

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
    from fairprobe.demo import run_demo

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

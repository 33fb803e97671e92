"""Polish of the shared report writer: merged headings, None parameters, the recorded command, figures.

Each test pins one auditor finding: a merged heading repeats no title, a parameter that is not set
never reads as Python's ``None``, the recorded command keeps its quotes (``shlex.join``), and a
saved figure holds its whole axis label (``bbox_inches="tight"``).
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from fairprobe.reporting.report import Report, Section, combine_reports, load_report, write_report


def _headings(page: str) -> list[str]:
    return re.findall(r"<h2 id='s\d+'>([^<]*)</h2>", page)


def test_merged_one_section_reports_have_each_heading_once(tmp_path: Path) -> None:
    for name, bias in (("r1", "proxy_label"), ("r2", "selection")):
        write_report(tmp_path / name, "Sensitivity sweep: fpr_parity", parameters={"bias": bias},
                     tables={"bounds": pd.DataFrame({"D": [0.0, 0.1]})}, command="")
    tree = Report("FairTree subgroup audit", command="")
    tree.section("Splits")
    merged = combine_reports([load_report(tmp_path / "r1"), load_report(tmp_path / "r2"), tree], "Audit", command="")
    titles = [s.title for s in merged.sections]
    assert titles == ["Sensitivity sweep: fpr_parity", "Sensitivity sweep: fpr_parity (2)",
                      "FairTree subgroup audit: Splits"]
    headings = _headings(merged.to_html())
    assert headings == titles and len(set(headings)) == len(headings)
    assert not any(h.count("Sensitivity sweep") > 1 for h in headings)


def test_a_parameter_that_is_not_set_is_not_shown_as_python_none() -> None:
    rep = Report("Sweep", command="")
    rep.section("Sweep").add_parameters({"time limit": None, "backend": "scip", "grid": [0.1, None],
                                         "options": {"seed": None}})
    page = rep.to_html()
    assert "None" not in page
    assert "<td>time limit</td><td>none</td>" in page
    assert "<td>grid</td><td>[0.1, none]</td>" in page and "<td>backend</td><td>scip</td>" in page


def test_a_missing_value_in_a_table_is_an_empty_cell_not_none() -> None:
    rep = Report("Sweep", command="")
    errors = pd.Series([None, "time limit"], dtype=object)  # as an analysis's result table holds them
    frame = pd.DataFrame({"D": [0.0, 0.1], "error": errors, "gap": [0.0, float("nan")]})
    rep.section("Sweep").add_table("bounds", frame)
    page = rep.to_html()
    assert "None" not in page and "<td>time limit</td>" in page
    assert frame["error"].iloc[0] is None  # only the page shows it differently; the table is not changed


def test_the_none_parameter_survives_the_manifest_as_null(tmp_path: Path) -> None:
    rep = Report("Sweep", command="")
    rep.section("Sweep").add_parameters({"time limit": None})
    rep.write(tmp_path / "r")
    assert load_report(tmp_path / "r").sections[0].parameters == {"time limit": None}  # the data stay exact
    assert "None" not in (tmp_path / "r" / "index.html").read_text()


def test_the_default_command_keeps_its_quotes(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["/usr/local/bin/fairprobe", "report", "r 1", "--out", "merged", "--title", "COMPAS audit"]
    monkeypatch.setattr(sys, "argv", argv)
    command = Report("Audit").command
    assert command == "fairprobe report 'r 1' --out merged --title 'COMPAS audit'"
    assert shlex.split(command)[1:] == argv[1:]  # it can be copied and re-run


def _png_size(png: bytes) -> tuple[int, int]:
    height, width = plt.imread(io.BytesIO(png)).shape[:2]
    return width, height


def test_a_report_figure_holds_an_axis_label_longer_than_the_figure() -> None:
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.plot([0, 0.1], [0, 1])
    ax.set_ylabel("fpr_parity (race: African-American vs Caucasian), certified bounds")
    png = Section("Sweep").add_figure("bounds", fig, dpi=100).figures[0].png
    _width, height = _png_size(png)
    assert height > 2 * 100  # the image grew to hold the label (a clipped one stays 200 px high)


def test_a_merged_heading_does_not_repeat_the_analysis_name(tmp_path: Path) -> None:
    """Issue 44 item 21: "fairprobe riskscore: riskscore: per-group calibration ..." in `fairprobe report`."""
    import matplotlib.pyplot as plt

    from fairprobe.plugins.riskscore.audit import RiskScoreAudit

    RiskScoreAudit.example().fit().to_report(tmp_path / "risk")
    plt.close("all")
    merged = combine_reports([load_report(tmp_path / "risk")], "Audit", command="")
    title = merged.sections[0].title
    assert "riskscore: riskscore" not in title and title.count("riskscore") == 1, title
    assert title.startswith("fairprobe riskscore: per-group calibration"), title
    # the rule, on plain reports: a section named after its report's last word keeps one copy of it
    rep = Report("fairprobe fairtree", command="")
    rep.section("fairtree: subgroup audit")
    rep.section("Splits")
    other = Report("COMPAS audit", command="")
    other.section("riskscore: calibration")  # another report's name: kept
    titles = [s.title for s in combine_reports([rep, other], "All", command="").sections]
    assert titles == ["fairprobe fairtree: subgroup audit", "fairprobe fairtree: Splits",
                      "COMPAS audit: riskscore: calibration"]

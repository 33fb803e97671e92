"""End-to-end tests of the app in headless Chromium (Playwright, sync API) against a live server.

Skipped when Playwright or a system Chromium is missing. ``FAIRPROBE_SCREENSHOTS=1`` also saves a
screenshot of each page into ``docs/app/``.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

import fairprobe as fp
from tests.app.conftest import SCREENSHOTS, chromium_path

pytest.importorskip("streamlit", reason="the app needs Streamlit (pip install 'fairprobe[app]')")
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="end-to-end tests need Playwright (pip install playwright)")
if chromium_path() is None:
    pytest.skip("end-to-end tests need a system Chromium (/usr/bin/chromium)", allow_module_level=True)

EDGES = "A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S, P->S"
CONSTRAINTS = "P(S = 1) >= 1 - D\nP(S = 1 | A = 0) >= 1 - D"
TIMEOUT = 120_000


def _shot(page, name: str) -> None:
    if os.environ.get("FAIRPROBE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(800)  # let charts and the DAG finish drawing
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def _edited_config() -> fp.BiasConfig:
    d = fp.get_registry().biases["selection"]().config().to_dict()
    d["dag_str"], d["constraints"] = EDGES, CONSTRAINTS.splitlines()
    return fp.BiasConfig.from_dict(d)


@pytest.fixture(scope="module")
def app_browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--headless=new"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def app_page(app_browser, app_server):
    context = app_browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT)
    pg.goto(app_server)
    pg.get_by_label("Constraints (one per line)").wait_for()
    yield pg
    context.close()


def _idle(page) -> None:
    """Wait until the script run the last interaction started has finished (no stale elements left)."""
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]') && "
                           "!document.querySelector('[data-stale=\"true\"]')")


def _set_text(page, label: str, value: str) -> None:
    _idle(page)
    box = page.get_by_label(label)
    box.fill(value)
    box.press("Control+Enter" if box.evaluate("e => e.tagName") == "TEXTAREA" else "Enter")
    _idle(page)


def _goto(page, name: str) -> None:
    _idle(page)
    page.locator('[data-testid="stSidebar"]').get_by_text(name, exact=True).click()
    page.get_by_role("heading", name=name).wait_for()


def test_workshop_edit_error_fix_export(app_page, tmp_path):
    page = app_page
    page.get_by_role("button", name="Load bias").click()
    page.get_by_text("Loaded the registered bias 'selection'").wait_for()
    _set_text(page, "DAG edges (dag_str, comma separated: X -> Y)", EDGES)
    _set_text(page, "Constraints (one per line)", CONSTRAINTS)
    page.get_by_text("Valid bias config: 5 nodes, 2 constraint(s)").wait_for()
    _set_text(page, "Constraints (one per line)", "P(S = 1) >= 1 - D\nP(S = 1 | A = 0 >= 1 - D")
    error = page.get_by_text("Constraint line 2")
    error.wait_for()
    assert "column" in error.inner_text()
    _set_text(page, "Constraints (one per line)", CONSTRAINTS)
    page.get_by_text("Valid bias config: 5 nodes, 2 constraint(s)").wait_for()
    _shot(page, "workshop")
    with page.expect_download() as info:
        page.get_by_role("button", name="Export config (JSON)").click()
    path = tmp_path / "bias.json"
    info.value.save_as(path)
    exported = json.loads(path.read_text())
    assert exported == _edited_config().to_dict()
    assert fp.BiasConfig.from_json(path) == _edited_config()


def test_paper_table(app_page, tmp_path):
    """Upload the bundled COMPAS Fogliato table (the seed paper's) as a user would: the sweep below runs on it."""
    page = app_page
    from fairprobe.datasets import load_paper_table

    path = tmp_path / "fogliato_compas.csv"
    load_paper_table().to_csv(path, index=False)
    _goto(page, "Data")
    page.get_by_text("Upload a file", exact=True).click()
    _idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_role("button", name="Read file").click()
    page.get_by_text("fogliato_compas.csv: 8 rows, cells with probabilities").wait_for()
    page.get_by_role("heading", name="Observed table").wait_for()
    _shot(page, "data")


def _read_table(page) -> list[list[str]]:
    table = page.locator('[data-testid="stTable"] table').first
    table.wait_for()
    return table.evaluate("t => Array.from(t.querySelectorAll('tr')).map(r => "
                          "Array.from(r.querySelectorAll('th,td')).map(c => c.innerText.trim()))")


def test_sweep_matches_api_and_report(app_page, tmp_path, app_browser):
    page = app_page
    from fairprobe.datasets import load_paper_table

    _goto(page, "Sensitivity analysis")
    start = time.perf_counter()
    page.get_by_role("button", name="Run").click()
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
    first_point = time.perf_counter() - start
    page.get_by_text("done: 5 of 5 points in").wait_for()
    rows = _read_table(page)
    header, body = rows[0], rows[1:]
    shown = {name: [float(r[header.index(name)]) for r in body] for name in ("D", "lower", "upper")}
    api = fp.sensitivity(_edited_config(), "fpr_parity", load_paper_table(), D=np.linspace(0, 0.1, 5),
                         progress=False, time_limit=10).to_frame()
    for name in ("D", "lower", "upper"):
        np.testing.assert_allclose(shown[name], api[name].to_numpy(), atol=1e-6)
    assert first_point < 60
    page.get_by_text("keeps its sign").first.wait_for()
    _shot(page, "sensitivity")
    with page.expect_download() as info:
        page.get_by_role("button", name="Report (zip of the HTML folder)").click()
    archive = tmp_path / "report.zip"
    info.value.save_as(archive)
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(tmp_path / "report")
    index = tmp_path / "report" / "index.html"
    assert index.exists()
    viewer = app_browser.new_page()
    problems: list[str] = []
    viewer.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    viewer.on("pageerror", lambda exc: problems.append(str(exc)))
    viewer.goto(Path(index).as_uri())
    viewer.wait_for_load_state("load")
    assert "fpr_parity" in viewer.content()
    viewer.close()
    assert problems == []


def test_analyses_page(app_page):
    page = app_page
    _goto(page, "Other analyses")
    page.get_by_role("button", name="Fit").click()
    page.get_by_role("button", name="Report (zip)").wait_for()
    _shot(page, "analyses")


def test_upload_csv(app_page, tmp_path):
    page = app_page
    from fairprobe.datasets import load_compas

    frame = load_compas(races=("African-American", "Caucasian")).frame
    path = tmp_path / "my audit.csv"
    frame.assign(pred=(frame.decile_score >= 5).astype(int)).head(400).to_csv(path, index=False)
    _goto(page, "Data")
    page.get_by_text("Upload a file", exact=True).click()
    _idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_role("button", name="Read file").click()
    page.get_by_text("my audit.csv: 400 rows, unit rows").wait_for()
    page.get_by_role("heading", name="Observed table").wait_for()
    page.get_by_text("Group compared (a0)").first.wait_for()
    group = page.locator('[data-testid="stSelectbox"]').filter(has_text="Group compared (a0)").first
    sync_api.expect(group.locator("input").first).to_have_value("African-American", timeout=60_000)

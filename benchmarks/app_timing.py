"""Timing of the web app (``fairprobe app``) in headless Chromium, against the API.

Prints: the time from starting the server to a usable page, the time from pressing Run to the
first plotted point, and a 21-point sweep (FPR parity under the selection bias on the paper's
COMPAS table, D from 0 to 0.1, SCIP, 10 s per solve) in the app against ``fp.sensitivity`` with
the same settings. Needs Streamlit, Playwright and a system Chromium (``/usr/bin/chromium``)::

    python benchmarks/app_timing.py
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request

import numpy as np

import fairprobe as fp
from fairprobe.app.logic import streamlit_command
from fairprobe.datasets import load_paper_table

N_POINTS = 21


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_health(port: int, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not answer")


def _idle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]') && "
                           "!document.querySelector('[data-stale=\"true\"]')")


def main() -> None:
    """Run the measurements and print them."""
    from playwright.sync_api import sync_playwright

    chromium = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs a system Chromium (/usr/bin/chromium)")
    port = _free_port()
    env = {**os.environ, "FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD": "1", "MPLBACKEND": "Agg"}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--headless=new"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(300_000)
        start = time.perf_counter()
        proc = subprocess.Popen(streamlit_command(port=port), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            _wait_health(port, proc)
            health = time.perf_counter() - start
            page.goto(f"http://127.0.0.1:{port}")
            page.get_by_label("Constraints (one per line)").wait_for()
            page.get_by_text("Valid bias config").wait_for()
            usable = time.perf_counter() - start
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("Data", exact=True).click()
            page.get_by_role("button", name="Load data set").click()
            page.get_by_role("heading", name="Observed table").wait_for()
            _idle(page)
            sidebar.get_by_text("Sensitivity analysis", exact=True).click()
            page.get_by_role("button", name="Run").wait_for()
            _idle(page)
            points = page.get_by_label("points")
            points.fill(str(N_POINTS))
            points.press("Enter")
            _idle(page)
            t0 = time.perf_counter()
            page.get_by_role("button", name="Run").click()
            page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
            first = time.perf_counter() - t0
            done = page.get_by_text(f"done: {N_POINTS} of {N_POINTS} points")
            done.wait_for()
            app_sweep = time.perf_counter() - t0
            print("page says:", done.inner_text())
            server_side = float(done.inner_text().split(" in ")[-1].split()[0])
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            browser.close()
    config = fp.get_registry().biases["selection"]().config()
    fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05, time_limit=10)  # imports warm, as in the app
    t0 = time.perf_counter()
    fp.sensitivity(config, "fpr_parity", load_paper_table(), D=np.linspace(0, 0.1, N_POINTS), time_limit=10,
                   progress=False)
    api = time.perf_counter() - t0
    print(f"server start -> health endpoint answers:   {health:6.2f} s")
    print(f"server start -> usable page (widgets):     {usable:6.2f} s")
    print(f"Run pressed -> first plotted point:        {first:6.2f} s")
    print(f"{N_POINTS}-point sweep in the app (Run -> done): {app_sweep:6.2f} s")
    print(f"  of which on the server (compile + solves):   {server_side:6.2f} s")
    print(f"{N_POINTS}-point sweep with fp.sensitivity:       {api:6.2f} s")
    for what, value in (("page, Run -> done", app_sweep), ("server side", server_side)):
        verdict = "within" if value <= 1.2 * api else "NOT within"
        print(f"app ({what}) / API: {value / api:.2f} ({verdict} 20 %)")


if __name__ == "__main__":
    main()

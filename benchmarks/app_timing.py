"""Timing of the web app (``fairprobe app``) in headless Chromium, against the API.

Prints: the time from starting the server to a usable page, the time from pressing Run to the
first plotted point, and a 21-point sweep (FPR parity under the selection bias on the paper's
COMPAS table, D from 0 to 0.1, SCIP, 10 s per solve) in the app against ``fp.sensitivity`` with
the same settings: medians of ``--repeats`` app sweeps, each followed by the API sweep in this
process (interleaved, so both see the same machine; single runs vary by tens of per cent here).
Needs Streamlit, Playwright and a system Chromium (``/usr/bin/chromium``)::

    python benchmarks/app_timing.py [--repeats 3]
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
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


def _api_sweep() -> float:
    """Seconds of the same sweep through ``fp.sensitivity`` in this process."""
    config = fp.get_registry().biases["selection"]().config()
    t0 = time.perf_counter()
    fp.sensitivity(config, "fpr_parity", load_paper_table(), D=np.linspace(0, 0.1, N_POINTS), time_limit=10,
                   progress=False)
    return time.perf_counter() - t0


def main(repeats: int = 3) -> None:
    """Run the measurements and print them (sweeps: medians of ``repeats`` interleaved app and API runs)."""
    fp.bound("proxy_label", "fpr", load_paper_table(), D=0.05, time_limit=10)  # imports warm, as in the app
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
            app_runs, server_runs, api_runs = [], [], []
            previous = ""
            for k in range(repeats):
                if k:
                    t0 = time.perf_counter()
                    page.get_by_role("button", name="Run").click()
                # the progress text of this run: "done: 21 of 21 points in ..." and not the previous run's
                page.wait_for_function(
                    "prev => Array.from(document.querySelectorAll('[data-testid=\"stProgress\"]')).some("
                    "e => e.innerText.includes('done: ') && e.innerText !== prev)", arg=previous)
                app_runs.append(time.perf_counter() - t0)
                previous = page.locator('[data-testid="stProgress"]').first.inner_text()
                server_runs.append(float(previous.split(" in ")[-1].split()[0]))
                api_runs.append(_api_sweep())  # interleaved: both see the same machine
                _idle(page)
            print("page says:", previous)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            browser.close()
    app_sweep, server_side, api = (statistics.median(v) for v in (app_runs, server_runs, api_runs))
    print(f"server start -> health endpoint answers:   {health:6.2f} s")
    print(f"server start -> usable page (widgets):     {usable:6.2f} s")
    print(f"Run pressed -> first plotted point:        {first:6.2f} s")
    print(f"{N_POINTS}-point sweep in the app (Run -> done), median of {repeats}: {app_sweep:6.2f} s  "
          f"{[round(v, 2) for v in app_runs]}")
    print(f"  of which on the server (compile + solves):   {server_side:6.2f} s  {[round(v, 2) for v in server_runs]}")
    print(f"{N_POINTS}-point sweep with fp.sensitivity, median:  {api:6.2f} s  {[round(v, 2) for v in api_runs]}")
    for what, value in (("page, Run -> done", app_sweep), ("server side", server_side)):
        verdict = "within" if value <= 1.2 * api else "NOT within"
        print(f"app ({what}) / API: {value / api:.2f} ({verdict} 20 %)")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved app and API sweeps (medians)")
    main(parser.parse_args().repeats)

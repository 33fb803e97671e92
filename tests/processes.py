"""Helpers of the tests that start fairprobe in a process of its own and signal it."""

from __future__ import annotations

import signal
from pathlib import Path

import pandas as pd

from fairprobe.datasets import BUNDLED


def default_signals() -> None:
    """``preexec_fn`` of a started command: INT, TERM and HUP at their default actions.

    A command keeps a signal its parent ignores (the ``nohup`` convention), and a test run started
    with ``nohup`` or in the background of a script ignores HUP or INT; the commands these tests
    signal must not inherit that.
    """
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def session_processes(sid: int) -> list[int]:
    """Live (not zombie) processes whose session id is ``sid``, read from ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, session, ...
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def write_compas_predictions(folder: Path) -> Path:
    """COMPAS's race, recidivism and a thresholded score as a CSV of unit rows in ``folder``."""
    df = pd.read_csv(BUNDLED / "compas-scores-two-years.csv.gz")
    out = pd.DataFrame({"race": df.race, "recid": df.two_year_recid, "pred": (df.decile_score >= 5).astype(int)})
    path = folder / "preds.csv"
    out.to_csv(path, index=False)
    return path

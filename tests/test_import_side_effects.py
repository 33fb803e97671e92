"""Importing fairprobe changes nothing global: matplotlib's backend stays the user's choice.

``fairprobe.studies`` used to call ``matplotlib.use("Agg")`` while writing a study's report, which
switched the backend of the user's whole session (a notebook's inline figures stopped showing).
The figures fairprobe saves itself now draw on an explicit Agg canvas instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd

#: A backend that is always available and is not Agg, so that a switch to Agg shows.
USER_BACKEND = "pdf"

PROBE = """
import json, sys, tempfile
import matplotlib
before = matplotlib.rcParams["backend"]
import fairprobe, fairprobe.studies, fairprobe.reporting, fairprobe.cli, fairprobe.cli.main
import fairprobe.studies.outputs, fairprobe.reporting.report
import fairprobe as fp
fp.bound, fp.study, fp.sensitivity  # the lazy entry points load their modules too
import pandas as pd
from fairprobe.studies.outputs import figure5
rows = [dict(dataset="d", classifier="c", constraint=k, bias="b", metric="m", D=D, status="optimal",
             worst=w, observed=o) for k, o in (("x", .1), ("y", .2)) for D, w in ((0., o), (.1, o + .1))]
fig = figure5(pd.DataFrame(rows), reps=20)
imported = matplotlib.rcParams["backend"]
# a whole (tiny) study with its report, whose figures are saved to files
tiny = {"datasets": [{"name": "german", "subsample": 200}], "classifiers": ["naive_bayes"], "constraints": ["none"],
        "metrics": ["demographic_parity"], "biases": ["selection"], "D": [0.02]}
res = fp.study(tiny, tempfile.mkdtemp() + "/out", progress=False)
import matplotlib.pyplot as plt
print(json.dumps({"before": before, "imported": imported, "after": matplotlib.rcParams["backend"],
                  "report": (res.folder / "figures" / "figure5.png").exists(),
                  "backend": matplotlib.get_backend(), "pyplot_figures": plt.get_fignums(),
                  "canvas": type(fig.canvas).__name__}))
"""


def test_importing_fairprobe_and_writing_a_study_leave_matplotlib_backend_alone() -> None:
    env = {**os.environ, "MPLBACKEND": USER_BACKEND}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"] == USER_BACKEND and seen["imported"] == USER_BACKEND
    assert seen["report"]  # the study wrote its figures ...
    assert seen["after"] == USER_BACKEND and seen["backend"] == USER_BACKEND  # ... on the user's backend
    # a study figure is drawn on its own Agg canvas, not registered with (or switching) pyplot
    assert seen["pyplot_figures"] == [] and seen["canvas"] == "FigureCanvasAgg"


def test_study_figures_save_without_pyplot(tmp_path) -> None:
    from fairprobe.studies.outputs import dataset_figure

    rows = [dict(dataset="d", classifier="c", constraint=k, bias="b", metric="m", D=D, status="optimal",
                 worst=w, observed=o) for k, o in (("x", .1), ("y", .2)) for D, w in ((0., o), (.1, o + .1))]
    fig = dataset_figure(pd.DataFrame(rows), "d", reps=20)
    fig.savefig(tmp_path / "d.png")
    assert (tmp_path / "d.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

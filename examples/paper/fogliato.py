"""Fogliato et al. recreation (seed paper, Figures 3/8): FPR, FNR and PPV bounds on COMPAS.

The classifier's table is ``fragile_fair-fogliato_compas.csv`` (A, Y = recorded re-arrest,
P = prediction). The x-axis is the proxy-error budget ``P(Y_P != Y)``; three assumption panels:

(a) ``proxy_label_missed_positives``: the proxy misses re-offences, never invents one, and the
    error may depend on the features (X -> Y_P);
(b) ``proxy_label_missed_positives_no_edge``: the same without X -> Y_P (FNR is identified);
(c) ``proxy_label_false_positives``: the mirror assumption.

Certified bounds (bands) are computed by fairprobe's programs; the closed forms
(:mod:`fairprobe.biases.closed_forms`) are drawn dashed, and the script checks they agree to 1e-5.
Writes ``output/fogliato.png`` and ``output/fogliato.csv``.

Run: ``python examples/paper/fogliato.py``
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from common import OUT

import fairprobe as fp
from fairprobe.biases.closed_forms import one_sided_proxy_bounds
from fairprobe.datasets import load_paper_table

PANELS = {"(a) missed positives, X->Y_P": "missed_positives",
          "(b) missed positives, no X->Y_P": "missed_positives_no_edge",
          "(c) false positives, X->Y_P": "false_positives"}
METRICS = ["fpr", "fnr", "ppv"]
GRID = np.round(np.linspace(0.0, 0.1, 11), 10)


def main() -> int:
    cells = load_paper_table()
    rows = []
    for panel, variant in PANELS.items():
        for metric in METRICS:
            for group in (0, 1):
                res = fp.sensitivity(f"proxy_label_{variant}", fp.metric(metric, group=group), cells, D=list(GRID),
                                     n_jobs=2, gap=1e-9, progress=True,
                                     solver_options={"numerics/feastol": 1e-8})
                p = np.zeros((2, 2))
                for r in cells[cells.A == group].itertuples():
                    p[r.Y, r.P] = r.prob
                for row in res.to_frame().itertuples():
                    lo, hi = one_sided_proxy_bounds(p, row.D, metric, variant)
                    rows.append({"panel": panel, "metric": metric, "group": group, "D": row.D, "lower": row.lower,
                                 "upper": row.upper, "analytic_lower": lo, "analytic_upper": hi, "status": row.status})
    frame = pd.DataFrame(rows)
    frame["max_abs_diff"] = np.maximum(abs(frame.lower - frame.analytic_lower), abs(frame.upper - frame.analytic_upper))
    OUT.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT / "fogliato.csv", index=False)

    fig, axes = plt.subplots(len(METRICS), len(PANELS), figsize=(12, 9), sharex=True)
    colors = {0: "tab:blue", 1: "tab:orange"}
    for j, panel in enumerate(PANELS):
        for i, metric in enumerate(METRICS):
            ax = axes[i, j]
            for group in (0, 1):
                sub = frame[(frame.panel == panel) & (frame.metric == metric) & (frame.group == group)]
                ax.fill_between(sub.D, sub.lower, sub.upper, alpha=0.25, color=colors[group],
                                label=f"certified, A={group}")
                ax.plot(sub.D, sub.analytic_lower, "--", color=colors[group], lw=1.2)
                ax.plot(sub.D, sub.analytic_upper, "--", color=colors[group], lw=1.2,
                        label=f"analytic, A={group}")
            ax.set_ylim(0, 1)
            if i == 0:
                ax.set_title(panel, fontsize=10)
            if j == 0:
                ax.set_ylabel(metric.upper())
            if i == len(METRICS) - 1:
                ax.set_xlabel("P(Y_P != Y)")
    axes[0, 0].legend(fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(OUT / "fogliato.png", dpi=150)
    worst = frame.max_abs_diff.max()
    print(f"{len(frame)} bounds; largest |certified - analytic| = {worst:.2e}; wrote {OUT / 'fogliato.png'}")
    print(frame.groupby(["panel", "metric"]).max_abs_diff.max().to_string())
    return 0 if worst <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())

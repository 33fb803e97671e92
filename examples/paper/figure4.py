"""Seed paper, Figure 4: equalised odds under proxy labels and selection jointly (Adult).

An equalised-odds predictor (fairlearn's ExponentiatedGradient with an EqualizedOdds
constraint on logistic regression) is trained on half of UCI Adult (sex as attribute) and
evaluated on the other half. The combined bias ``["proxy_label", "selection"]`` gives each bias
its own parameter; the certified upper bound of equalised odds is drawn as a heat map over
``D_proxy_label`` x ``D_selection`` in 0-5 %. Writes ``output/figure4.png`` and ``output/figure4.csv``.

Run: ``python examples/paper/figure4.py`` (about two minutes on 2 cores).
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from common import OUT, load_adult, observed_table, train_predict

import fairprobe as fp

GRID = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]


def main() -> int:
    A, Y, P = train_predict(*load_adult(), "logistic_regression", "equalized_odds")
    table = observed_table(A, Y, P)
    res = fp.sensitivity(["proxy_label", "selection"], "equalized_odds", table,
                         D={"D_proxy_label": GRID, "D_selection": GRID}, n_jobs=2)
    frame = res.to_frame()
    OUT.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT / "figure4.csv", index=False)
    fig, ax = plt.subplots(figsize=(6, 5))
    res.plot_heatmap(ax=ax, value="upper")
    ax.set_title("Certified upper bound of equalised odds (Adult, EO-trained LR)", fontsize=9)
    fig.tight_layout()
    fig.savefig(OUT / "figure4.png", dpi=150)
    grid = frame.pivot_table(index="D_selection", columns="D_proxy_label", values="upper")
    print(f"observed equalised odds: {res.observed.point:.4f}")
    print("upper bound (rows D_selection, columns D_proxy_label):")
    print(grid.round(4).to_string())
    ok = np.all(np.diff(grid.to_numpy(), axis=0) >= -1e-6) and np.all(np.diff(grid.to_numpy(), axis=1) >= -1e-6)
    print(f"monotone in both parameters: {ok}; wrote {OUT / 'figure4.png'}")
    return 0 if ok and (frame.status == "optimal").all() else 1


if __name__ == "__main__":
    sys.exit(main())

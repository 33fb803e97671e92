"""Bias and sampling error on COMPAS: FPR parity under selection, with both bands, for two pairs of races.

African-American vs Caucasian (3,175 and 2,103 people) and Native American vs Caucasian (11 and
2,103 people): the darker band is the certified bounds (bias only, the table taken as the
population), the lighter one the 95 % confidence interval that adds the sampling error
(projection: simultaneous Clopper-Pearson boxes, one certified program per point).

Usage: ``python examples/ci_sweep_compas.py [--out docs/images/ci_sweep_compas.png]``
"""

from __future__ import annotations

import argparse
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import fairprobe as fp
from fairprobe.datasets import load_compas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="ci_sweep_compas.png")
    args = parser.parse_args()
    compas = load_compas().frame
    compas = compas.assign(pred=(compas.decile_score >= 5).astype(int))
    races = fp.ObservedTable.from_frame(compas, A="race", Y="two_year_recid", P="pred")
    grid = [0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), sharey=True, layout="constrained")
    start = time.perf_counter()
    for ax, pair in zip(axes, [("African-American", "Caucasian"), ("Native American", "Caucasian")], strict=True):
        res = fp.sensitivity("selection", fp.metric("fpr_parity", groups=pair), races, D=grid, ci=0.95,
                             ci_method="projection", progress=False)
        res.plot(ax=ax)
        ax.set_title(f"{pair[0]} vs {pair[1]}", fontsize=10)
        print(res.summary().splitlines()[-1][:200])
    fig.suptitle("COMPAS, FPR parity under selection: certified bounds and 95 % CI (projection)", fontsize=10)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()

"""Group rates and their parity differences.

With attribute ``A``, target outcome ``Y`` (the config's ``outcome_node``; for ECP the
counterfactual ``Y(T=1)``) and prediction ``P``:

=====================  ===========================================
``fpr``                FPR_a = P(P = 1 | Y = 0, A = a)
``fnr``                FNR_a = P(P = 0 | Y = 1, A = a)
``tpr``                TPR_a = P(P = 1 | Y = 1, A = a)
``tnr``                TNR_a = P(P = 0 | Y = 0, A = a)
``ppv``                PPV_a = P(Y = 1 | P = 1, A = a)
``npv``                NPV_a = P(Y = 0 | P = 0, A = a)
``selection_rate``     P(P = 1 | A = a)
``accuracy``           P(P = Y | A = a)
=====================  ===========================================

A parity metric is ``rate(a0) - rate(a1)`` for ``groups=(a0, a1)`` (default ``(0, 1)``):
``fpr_parity``, ``fnr_parity``, ``ppv_parity``, ``npv_parity``, ``demographic_parity`` (the
selection-rate difference). Note NPV conditions on the *prediction* ``P = 0``, and FNR on the
*outcome* ``Y = 1`` (the seed paper's appendix swaps them in places).
"""

from __future__ import annotations

from typing import ClassVar

from fairprobe.core.config import BiasConfig
from fairprobe.metrics.base import Metric

__all__ = [
    "FNR",
    "FPR",
    "NPV",
    "PPV",
    "TNR",
    "TPR",
    "AccuracyRate",
    "DemographicParity",
    "FNRParity",
    "FPRParity",
    "NPVParity",
    "PPVParity",
    "SelectionRate",
]


def _rate_query(kind: str, config: BiasConfig, a: int) -> str:
    y, p, attr = config.outcome_node, config.prediction_node, config.attribute_node
    if kind == "accuracy":
        return f"P({p} = 0 & {y} = 0 | {attr} = {a}) + P({p} = 1 & {y} = 1 | {attr} = {a})"
    event, given = {
        "fpr": (f"{p} = 1", f"{y} = 0"),
        "fnr": (f"{p} = 0", f"{y} = 1"),
        "tpr": (f"{p} = 1", f"{y} = 1"),
        "tnr": (f"{p} = 0", f"{y} = 0"),
        "ppv": (f"{y} = 1", f"{p} = 1"),
        "npv": (f"{y} = 0", f"{p} = 0"),
        "selection_rate": (f"{p} = 1", None),
    }[kind]
    cond = f"{given} & {attr} = {a}" if given else f"{attr} = {a}"
    return f"P({event} | {cond})"


class _GroupRate(Metric):
    kind: ClassVar[str] = ""

    def query(self, config: BiasConfig) -> str:
        """``rate(group)`` as a query string."""
        return _rate_query(self.kind, config, self.group)

    def label(self, config: BiasConfig) -> str:
        """E.g. ``fpr (A = 0)``."""
        return f"{self.name} ({config.attribute_node} = {self.group})"


class _Parity(Metric):
    kind: ClassVar[str] = ""

    def query(self, config: BiasConfig) -> str:
        """``rate(a0) - rate(a1)`` as a query string."""
        a0, a1 = self.groups
        return f"{_rate_query(self.kind, config, a0)} - ({_rate_query(self.kind, config, a1)})"


def _make(kind: str, doc: str) -> tuple[type, type]:
    rate = type(kind.upper() if len(kind) == 3 else kind.title().replace("_", ""), (_GroupRate,),
                {"name": kind, "kind": kind, "description": doc, "__doc__": f"Group rate: {doc}."})
    parity = type(f"{rate.__name__}Parity", (_Parity,),
                  {"name": f"{kind}_parity", "kind": kind, "description": f"difference of {doc} between groups",
                   "__doc__": f"Parity: difference of {doc} between two groups."})
    return rate, parity


FPR, FPRParity = _make("fpr", "false-positive rate P(P=1 | Y=0, A=a)")
FNR, FNRParity = _make("fnr", "false-negative rate P(P=0 | Y=1, A=a)")
TPR, _TPRParity = _make("tpr", "true-positive rate P(P=1 | Y=1, A=a)")
TNR, _TNRParity = _make("tnr", "true-negative rate P(P=0 | Y=0, A=a)")
PPV, PPVParity = _make("ppv", "positive predictive value P(Y=1 | P=1, A=a)")
NPV, NPVParity = _make("npv", "negative predictive value P(Y=0 | P=0, A=a)")
SelectionRate, DemographicParity = _make("selection_rate", "selection rate P(P=1 | A=a)")
DemographicParity.name = "demographic_parity"
AccuracyRate, _AccuracyParity = _make("accuracy", "accuracy P(P=Y | A=a)")

BUILTIN_METRICS: tuple[type, ...] = (
    FPR, FNR, TPR, TNR, PPV, NPV, SelectionRate, AccuracyRate,
    FPRParity, FNRParity, PPVParity, NPVParity, DemographicParity,
)

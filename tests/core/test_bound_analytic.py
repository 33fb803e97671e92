"""Analytic agreement: the proxy-label setting of Fogliato et al. (seed paper, Appendix C.1.2).

With p_ij = P(Y_P = i, P = j | A = a), one-sided proxy noise P(Y_P = 1 | Y = 0) = 0 and
alpha_j = P(Y = 1, Y_P = 0, P = j | A = a) with 0 <= alpha_j <= p_0j, alpha_0 + alpha_1 <= D:

    FPR = (p01 - a1) / (p00 + p01 - a0 - a1)
    FNR = (p10 + a0) / (p10 + p11 + a0 + a1)
    PPV = (p11 + a1) / (p01 + p11)

Each is linear-fractional in (a0, a1), so its extremes are at vertices of that polygon. Here the
true outcome is node ``Z`` and the observed proxy is ``Y``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.registry import get_registry

FOGLIATO = {
    "dag_str": "A->Z, A->P, A->Y, U->Z, U->P, U->Y, Z->Y",
    "unob": ["U"],
    "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
    "constraints": ["P(Y = 1 | Z = 0) == 0", "P(Z = 1 & Y = 0 | A = 0) <= D", "P(Z = 1 & Y = 0 | A = 1) <= D"],
    "observed_nodes": ["A", "Y", "P"],  # the true outcome Z is unmeasured
}
# proxy depends on the true outcome only (no edge from the features/latent to the proxy)
FOGLIATO_NO_EDGE = dict(FOGLIATO, dag_str="A->Z, A->P, A->Y, U->Z, U->P, Z->Y")
FOGLIATO_OTHER_SIDE = dict(
    FOGLIATO_NO_EDGE,
    constraints=["P(Y = 0 | Z = 1) == 0", "P(Z = 0 & Y = 1 | A = 0) <= D", "P(Z = 0 & Y = 1 | A = 1) <= D"],
)


def random_table(seed: int) -> tuple[pd.DataFrame, dict[int, np.ndarray]]:
    rng = np.random.default_rng(seed)
    pa = rng.uniform(0.3, 0.7)
    rows, p = [], {}
    for a, weight in ((0, pa), (1, 1 - pa)):
        cond = rng.dirichlet(np.full(4, 2.0)).reshape(2, 2)  # cond[i, j] = P(Y=i, P=j | A=a)
        p[a] = cond
        for i, j in itertools.product((0, 1), (0, 1)):
            rows.append({"A": a, "Y": i, "P": j, "prob": weight * cond[i, j]})
    return pd.DataFrame(rows), p


def polygon_vertices(p: np.ndarray, D: float) -> list[tuple[float, float]]:
    cands = [(0.0, 0.0), (min(D, p[0, 0]), 0.0), (0.0, min(D, p[0, 1])),
             (p[0, 0], min(max(D - p[0, 0], 0.0), p[0, 1])), (min(max(D - p[0, 1], 0.0), p[0, 0]), p[0, 1])]
    return [(a0, a1) for a0, a1 in cands if a0 + a1 <= D + 1e-15]


CLOSED_FORMS = {
    "fpr": lambda p, a0, a1: (p[0, 1] - a1) / (p[0, 0] + p[0, 1] - a0 - a1),
    "fnr": lambda p, a0, a1: (p[1, 0] + a0) / (p[1, 0] + p[1, 1] + a0 + a1),
    "ppv": lambda p, a0, a1: (p[1, 1] + a1) / (p[0, 1] + p[1, 1]),
}


def usable_backends() -> list[str]:
    return [n for n, c in sorted(get_registry().backends.items()) if c.availability()]


@pytest.mark.parametrize("backend", ["scip", "highs", "gurobi", "ortools", "cvxpy"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_rates_match_closed_forms(backend: str, seed: int) -> None:
    if backend not in usable_backends():
        pytest.skip(f"backend {backend} unavailable here")
    frame, p = random_table(seed)
    table = fp.ObservedTable.from_probabilities(frame)
    for D in (0.0, 0.03, 0.1, 0.4):
        for group in (0, 1):
            for name, form in CLOSED_FORMS.items():
                values = [form(p[group], a0, a1) for a0, a1 in polygon_vertices(p[group], D)]
                res = fp.bound(FOGLIATO, fp.metric(name, group=group), table, D=D, backend=backend)
                assert res.kind == ("linear" if name == "ppv" else "linear_fractional")  # PPV: P(P, A) is observed
                assert res.lower == pytest.approx(min(values), abs=1e-5), (name, group, D)
                assert res.upper == pytest.approx(max(values), abs=1e-5), (name, group, D)
                assert res.lower_achieved == pytest.approx(min(values), abs=1e-5)
                assert res.upper_achieved == pytest.approx(max(values), abs=1e-5)


@pytest.mark.parametrize("seed", [0, 3])
def test_fnr_point_identified_without_proxy_edge(seed: int) -> None:
    """Proposition 2: with P(Y_P = 1 | Y = 0) = 0 and no X -> Y_P edge, FNR is identified."""
    frame, p = random_table(seed)
    table = fp.ObservedTable.from_probabilities(frame)
    for D in (0.0, 0.05, 0.2):
        for group in (0, 1):
            observed = p[group][1, 0] / (p[group][1, 0] + p[group][1, 1])
            res = fp.bound(FOGLIATO_NO_EDGE, fp.metric("fnr", group=group), table, D=D)
            assert res.lower == pytest.approx(observed, abs=1e-5)
            assert res.upper == pytest.approx(observed, abs=1e-5)
            # FPR is not identified there once D > 0
            fpr = fp.bound(FOGLIATO_NO_EDGE, fp.metric("fpr", group=group), table, D=D)
            assert (fpr.width > 1e-3) == (D > 0)


@pytest.mark.parametrize("seed", [0, 4])
def test_fpr_point_identified_with_other_one_sided_error(seed: int) -> None:
    """Proposition 3: with P(Y_P = 0 | Y = 1) = 0 instead, FPR is identified."""
    frame, p = random_table(seed)
    table = fp.ObservedTable.from_probabilities(frame)
    for D in (0.0, 0.05, 0.2):
        for group in (0, 1):
            observed = p[group][0, 1] / (p[group][0, 0] + p[group][0, 1])
            res = fp.bound(FOGLIATO_OTHER_SIDE, fp.metric("fpr", group=group), table, D=D)
            assert res.lower == pytest.approx(observed, abs=1e-5)
            assert res.upper == pytest.approx(observed, abs=1e-5)

"""Soundness at the size of real audits: many groups and covariates, with and without confounding.

Random structural causal models with a discrete latent ``U`` generate the full joint law exactly;
the observed table is its margin and the true metric is computed from the hidden true outcome.
The certified bounds at the true amount of bias must contain the true value (tolerance 1e-6).
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.config import BiasConfig


def _cpt(rng: np.random.Generator, shape: tuple[int, ...], k: int) -> np.ndarray:
    """Random conditional probability tables P(child | parents) with full support."""
    return rng.dirichlet(np.full(k, 1.5), size=shape)


def proxy_model(rng: np.random.Generator, k_a: int, k_x: int, confounded_x: bool) -> tuple[pd.DataFrame, float, dict]:
    """Joint law of (U, X, A, P, Z, Y) for proxy labels with a covariate X -> A, P, Z, Y.

    ``confounded_x``: U also drives X (a latent X <-> Y confounder). Returns the observed cells over
    (X, A, Y, P) (or (A, Y, P) without a covariate), the true P(Z != Y) and the true rates.
    """
    k_u = 3
    p_u = rng.dirichlet(np.ones(k_u))
    p_x = _cpt(rng, (k_u,), k_x) if confounded_x else np.tile(rng.dirichlet(np.ones(k_x)), (k_u, 1))
    p_a = _cpt(rng, (k_x,), k_a)
    p_p = _cpt(rng, (k_u, k_x, k_a), 2)
    p_z = _cpt(rng, (k_u, k_x, k_a), 2)
    p_y = _cpt(rng, (k_u, k_x, k_a, 2), 2)
    joint = np.einsum("u,ux,xa,uxap,uxaz,uxazy->xapzy", p_u, p_x, p_a, p_p, p_z, p_y)
    rows = [dict(X=x, A=a, P=p, Z=z, Y=y, prob=joint[x, a, p, z, y])
            for x, a, p, z, y in itertools.product(range(k_x), range(k_a), range(2), range(2), range(2))]
    full = pd.DataFrame(rows)
    disagree = float(full[full.Z != full.Y].prob.sum())
    fpr = {a: float(full[(full.A == a) & (full.Z == 0) & (full.P == 1)].prob.sum()
                    / full[(full.A == a) & (full.Z == 0)].prob.sum()) for a in range(k_a)}
    cols = ["X", "A", "Y", "P"] if k_x > 1 else ["A", "Y", "P"]
    cells = full.groupby(cols, as_index=False).prob.sum()
    return cells, disagree, fpr


def covariate_config(confounded_x: bool) -> BiasConfig:
    dag = "X -> A, X -> Y, X -> P, X -> Z, A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y"
    if confounded_x:
        dag += ", U -> X"
    return BiasConfig.from_dict({"name": "proxy_label_covariate", "dag_str": dag, "unob": ["U"],
                                 "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
                                 "constraints": ["P(Z = Y) >= 1 - D"], "observed_nodes": ["X", "A", "Y", "P"],
                                 "cardinality_of": {"Z": "Y"}})


CASES = ([("groups", k, 1, False) for k in (3, 4, 6, 8)] * 20
         + [("covariate", 2, kx, conf) for kx in (2, 3, 5) for conf in (False, True)] * 15
         + [("covariate", 3, 4, conf) for conf in (False, True)] * 15)  # 200 models


@pytest.mark.parametrize(("kind", "k_a", "k_x", "confounded"), CASES)
def test_true_metric_inside_certified_bounds(kind: str, k_a: int, k_x: int, confounded: bool,
                                             request: pytest.FixtureRequest) -> None:
    seed = zlib.crc32(request.node.callspec.id.encode())  # distinct and reproducible per case
    rng = np.random.default_rng(seed)
    cells, disagree, fpr = proxy_model(rng, k_a, k_x, confounded)
    config = "proxy_label" if kind == "groups" else covariate_config(confounded)
    a0, a1 = 0, k_a - 1
    res = fp.bound(config, fp.metric("fpr_parity", groups=(a0, a1)), cells, D=min(disagree + 1e-9, 1.0),
                   time_limit=60)
    truth = fpr[a0] - fpr[a1]
    assert res.lower - 1e-6 <= truth <= res.upper + 1e-6, (res.lower, truth, res.upper, res.status)

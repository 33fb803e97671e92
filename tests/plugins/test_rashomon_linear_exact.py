"""Exact linear multiplicity MIPs against brute-force enumeration on tiny data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity

GAMMA = 1e-4


def _tiny_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(7, 2))
    y = (X[:, 0] + 0.8 * rng.normal(size=7) > 0).astype(int)
    # a duplicated feature vector with the other label: one unavoidable error
    return np.vstack([X, X[:1]]), np.append(y, 1 - y[0])


def _feasible(points: np.ndarray, sigma: tuple[int, ...]) -> bool:
    """Is there w with ||w||_1 <= 1 and sigma_i w.x_i >= gamma wherever sigma_i != 0?"""
    d = points.shape[1]
    rows = [-s * points[i] for i, s in enumerate(sigma) if s]
    if not rows:
        return True
    # variables [w (d), a (d)]: -s w.x <= -gamma, w - a <= 0, -w - a <= 0, sum a <= 1
    A = [np.concatenate([r, np.zeros(d)]) for r in rows]
    b = [-GAMMA] * len(rows)
    eye = np.eye(d)
    A += list(np.hstack([eye, -eye])) + list(np.hstack([-eye, -eye])) + [np.concatenate([np.zeros(d), np.ones(d)])]
    b += [0.0] * (2 * d) + [1.0]
    res = linprog(np.zeros(2 * d), A_ub=np.array(A), b_ub=np.array(b), bounds=[(-1, 1)] * d + [(0, 1)] * d,
                  method="highs")
    return res.status == 0


def _brute_force(X: np.ndarray, y: np.ndarray, epsilon: float, h0_rows: np.ndarray) -> dict:
    """Enumerate every certified sign pattern (+1, -1 or inside the margin) of the distinct points."""
    Xa = np.hstack([X, np.ones((len(X), 1))])
    points, point_of_row = np.unique(Xa, axis=0, return_inverse=True)
    point_of_row = point_of_row.ravel()
    s = np.where(y == 1, 1, -1)
    h0 = np.array([h0_rows[np.flatnonzero(point_of_row == p)[0]] for p in range(len(points))])
    patterns = [sig for sig in itertools.product((1, -1, 0), repeat=len(points)) if _feasible(points, sig)]
    sig_rows = np.array(patterns)[:, point_of_row]  # (patterns, rows)
    errors = (sig_rows != s).sum(axis=1)
    err0 = int(errors.min())
    budget = err0 + epsilon * len(X)
    good = np.array(patterns)[errors <= budget + 1e-9]
    flipped = good == -h0  # (good patterns, points)
    ambiguous_points = flipped.any(axis=0)
    flips_rows = flipped[:, point_of_row].sum(axis=1)
    return {"err0": err0, "ambiguity": float(ambiguous_points[point_of_row].mean()),
            "discrepancy": float(flips_rows.max() / len(X)), "n_patterns": len(patterns)}


@pytest.mark.parametrize("epsilon", [0.0, 0.125, 0.2, 0.25])  # 0.2 * 8 rows: a fractional error budget
def test_exact_mip_agrees_with_brute_force(epsilon: float) -> None:
    X, y = _tiny_data()
    res = ExactLinearMultiplicity(epsilon=epsilon, margin=GAMMA, progress=False).fit(X, y)
    h0 = np.where(res.reference_predictions == 1, 1, -1)
    truth = _brute_force(X, y, epsilon, h0)
    assert res.reference_error == truth["err0"] >= 1  # the duplicated row forces an error
    assert res.ambiguity_lower == res.ambiguity_upper
    assert res.ambiguity == pytest.approx(truth["ambiguity"], abs=1e-12)
    assert res.discrepancy == pytest.approx(truth["discrepancy"], abs=1e-12)
    assert res.discrepancy <= res.ambiguity  # one model cannot flip a point nobody flips


def test_parallel_flip_programs_give_the_same_answer() -> None:
    X, y = _tiny_data()
    seq = ExactLinearMultiplicity(epsilon=0.125, margin=GAMMA, discrepancy=False, progress=False).fit(X, y)
    par = ExactLinearMultiplicity(epsilon=0.125, margin=GAMMA, discrepancy=False, n_jobs=2, progress=False).fit(X, y)
    assert (par.status == seq.status).all() and par.ambiguity == seq.ambiguity


def test_ambiguity_grows_with_epsilon() -> None:
    X, y = _tiny_data()
    values = [ExactLinearMultiplicity(epsilon=e, margin=GAMMA, discrepancy=False, progress=False).fit(X, y).ambiguity
              for e in (0.0, 0.125, 0.25, 0.5)]
    assert values == sorted(values) and values[-1] > values[0]


def test_exact_ambiguity_bounds_the_ad_hoc_estimate() -> None:
    """Every ad-hoc linear model inside the exact budget is in the exact set, so its conflicts are flips."""
    from sklearn.linear_model import LogisticRegression

    from fairprobe.plugins.rashomon import conflict_ratio

    rng = np.random.default_rng(5)
    X = rng.normal(size=(16, 2))
    y = (X[:, 0] + X[:, 1] + rng.normal(0, 1.0, 16) > 0).astype(int)
    epsilon = 0.125
    res = ExactLinearMultiplicity(epsilon=epsilon, margin=GAMMA, discrepancy=False, progress=False).fit(X, y)
    Xa = np.hstack([X, np.ones((16, 1))])
    s = np.where(y == 1, 1, -1)
    members = []
    for _ in range(200):
        rows = rng.integers(0, 16, 16)
        if np.unique(y[rows]).size < 2:
            continue
        model = LogisticRegression(C=float(rng.choice([0.01, 0.1, 1, 10, 100]))).fit(X[rows], y[rows])
        w = np.append(model.coef_.ravel(), model.intercept_)
        w = w / np.abs(w).sum()
        if np.sum(s * (Xa @ w) < GAMMA) <= res.error_budget:
            members.append((Xa @ w >= 0).astype(int))
    assert len(members) >= 20
    ad_hoc = float(np.mean(conflict_ratio(np.array(members)) > 0))
    assert 0 < ad_hoc <= res.ambiguity


@pytest.mark.parametrize("backend", ["ortools", "gurobi"])
def test_other_backends_agree_with_scip(backend: str) -> None:
    from fairprobe.core.registry import get_backend

    if not get_backend(backend).availability():
        pytest.skip(f"{backend} is not installed (optional extra)")
    X, y = _tiny_data()
    ref = ExactLinearMultiplicity(epsilon=0.25, margin=GAMMA, progress=False).fit(X, y)
    other = ExactLinearMultiplicity(epsilon=0.25, margin=GAMMA, backend=backend, progress=False).fit(X, y)
    assert (other.reference_error, other.ambiguity, other.discrepancy) == (
        ref.reference_error, ref.ambiguity, ref.discrepancy)


def test_bad_input_is_named() -> None:
    X, y = _tiny_data()
    with pytest.raises(DataError, match="binary target"):
        ExactLinearMultiplicity(progress=False).fit(X, np.arange(len(y)) % 3)
    with pytest.raises(DataError, match="one row per label"):
        ExactLinearMultiplicity(progress=False).fit(X, y[:-1])
    with pytest.raises(ConfigError, match="epsilon"):
        ExactLinearMultiplicity(epsilon=2.0, progress=False).fit(X, y)


def test_integer_backend_capability_error() -> None:
    from fairprobe.exceptions import BackendCapabilityError

    pytest.importorskip("cvxpy", reason="cvxpy is an optional extra")
    X, y = _tiny_data()
    with pytest.raises(BackendCapabilityError, match="integer"):
        ExactLinearMultiplicity(backend="cvxpy", progress=False).fit(X, y)


def test_command_line_exact_linear_with_a_text_column(tmp_path) -> None:
    import json
    import subprocess
    import sys

    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + rng.normal(0, 1, 30) > 0).astype(int)
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "site": ["north", "south"] * 15, "y": y})
    frame.to_csv(tmp_path / "small.csv", index=False)
    frame.head(8).to_csv(tmp_path / "tiny.csv", index=False)
    cmd = [sys.executable, "-m", "fairprobe.cli", "multiplicity", "--data", str(tmp_path / "small.csv"), "--target",
           "y", "--model", "logistic_regression", "--n-models", "10", "--epsilon", "0.25", "--exact-linear", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout[out.stdout.index("{"):])
    lower, upper = summary["exact_linear_ambiguity"]
    assert 0 < lower == upper <= 1 and summary["exact_linear_reference_error"] >= 1
    bad = subprocess.run([*cmd[:-1], "--backend", "nosuchsolver"], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "nosuchsolver" in bad.stderr and "Traceback" not in bad.stderr
    tiny = [*cmd[:5], str(tmp_path / "tiny.csv"), *cmd[6:-2]]
    small = subprocess.run(tiny, capture_output=True, text=True, timeout=300)
    assert small.returncode == 2 and "fewer than the cv=5 folds" in small.stderr and "Traceback" not in small.stderr

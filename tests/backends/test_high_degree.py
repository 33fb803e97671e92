"""Bad-input pass 3, H3: a program of huge degree is refused at once by every backend."""

from __future__ import annotations

import time

import pytest

import fairprobe as fp
from fairprobe.backends.base import MAX_DEGREE
from fairprobe.exceptions import BackendCapabilityError

BACKENDS = ["scip", "ortools", "gurobi", "cvxpy", "auto"]


@pytest.mark.parametrize("name", BACKENDS)
def test_huge_power_is_refused_before_the_solver(name: str) -> None:
    backend = fp.get_backend(name) if name in ("scip", "auto") else None
    if backend is None:
        from fairprobe.core.registry import get_registry

        cls = get_registry().backends.get(name)
        if cls is None or not cls.availability():
            pytest.skip(f"backend {name!r} is not installed (optional extra)")
        backend = cls()
    program = fp.PolynomialProgram.from_text("maximize\n  x^100000\nbounds\n  0 <= x <= 1")
    start = time.process_time()
    with pytest.raises(BackendCapabilityError, match=f"degree 100000, beyond the {MAX_DEGREE}"):
        backend.solve(program, fp.SolveOptions(time_limit=5))
    assert time.process_time() - start < 5  # refused, not solved (a work bound, not a speed claim)


def test_the_largest_accepted_degree_solves_on_scip() -> None:
    program = fp.PolynomialProgram.from_text(f"maximize\n  x^{MAX_DEGREE}\nbounds\n  0 <= x <= 1")
    res = fp.get_backend("scip").solve(program, fp.SolveOptions(time_limit=30))
    assert res.objective_bound == pytest.approx(1.0) and res.incumbent_objective == pytest.approx(1.0)

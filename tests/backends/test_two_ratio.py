"""The parity-of-two-rates search (fairprobe.backends.two_ratio): known answers, flat levels, floors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
import fairprobe.backends.two_ratio as two_ratio
from fairprobe.backends.two_ratio import solve_two_ratio

#: ``x/(x+y) - z/(z+w)`` over a simplex with both groups' mass at least 0.2 and ``x <= 0.1 + 2z``.
#: Max 15/16 (y = 0: rate a is 1; x = 0.2 needs z >= 0.05, and z = 0.05, w = 0.75 gives rate b 1/16);
#: min -1 (x = 0, w = 0). Rate b's least value 0 is attained by many models (z = 0, any w >= 0.2),
#: whose rate a reaches at most 1/2 (x <= 0.1, y >= 0.1): h is flat at 0 up to theta = 1/2.
PROGRAM = """
{sense}
  ra - rb
subject to
  s: x + y + z + w == 1
  da: ra*x + ra*y - x == 0
  db: rb*z + rb*w - z == 0
  pa: x + y >= 0.2
  pb: z + w >= 0.2
  link: x - 2*z <= 0.1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1
  0 <= w <= 1
  0 <= ra <= 1
  0 <= rb <= 1
"""


def program(sense: str) -> fp.PolynomialProgram:
    return fp.PolynomialProgram.from_text(PROGRAM.format(sense=sense))


@pytest.mark.parametrize(("sense", "exact"), [("maximize", 15 / 16), ("minimize", -1.0)])
def test_the_search_meets_the_known_optimum_in_few_lps(sense: str, exact: float) -> None:
    res = solve_two_ratio(program(sense))
    assert res.termination.value == "optimal"
    if sense == "maximize":
        assert exact <= res.objective_bound <= exact + 1e-9
    else:
        assert exact - 1e-9 <= res.objective_bound <= exact
    assert abs(res.incumbent_objective - exact) <= 1e-9 and res.extra["gap"] <= 1e-9
    assert res.extra["lp_solves"] <= 7  # 2 denominators, the top, and 2 to 4 evaluations


def test_the_end_of_a_flat_level_is_found_by_its_own_lp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a flat model's own rate to jump to (as when the level's models form a face and the solver
    returns one on the theta row), one LP finds the level's end; the bound is the same."""
    calls = []
    evaluate, flat_end = two_ratio._Search.evaluate, two_ratio._Search.flat_end

    def no_jump(self, theta):
        e = evaluate(self, theta)
        if e is not None:
            e.rate_a = math.nan
        return e

    def counted(self, lam, tol):
        out = flat_end(self, lam, tol)
        calls.append(out)
        return out

    monkeypatch.setattr(two_ratio._Search, "evaluate", no_jump)
    monkeypatch.setattr(two_ratio._Search, "flat_end", counted)
    res = solve_two_ratio(program("maximize"))
    assert calls and calls[0] == pytest.approx(0.5, abs=1e-9)  # rate a's largest value where rate b is 0
    assert 15 / 16 <= res.objective_bound <= 15 / 16 + 1e-9 and res.extra["gap"] <= 1e-9


def test_given_denominator_floors_replace_their_lps() -> None:
    """A verified floor of a denominator (as the definedness check finds it) stands in for its LP; a floor
    of another polynomial, or one that is not positive, is ignored."""
    highs = fp.get_backend("highs")
    prog = program("maximize")
    x, y, z, w = (prog.index(v) for v in "xyzw")
    plain = highs.solve_two_ratio_pair(prog)
    floors = {frozenset({(x,): 1.0, (y,): 1.0}.items()): 0.2, frozenset({(z,): 1.0, (w,): 1.0}.items()): 0.2}
    floored = highs.solve_two_ratio_pair(prog, den_floors=floors)
    lps = [sum(r.extra["lp_solves"] for r in pair) for pair in (plain, floored)]
    assert lps[1] == lps[0] - 2
    for a, b in zip(plain, floored, strict=True):
        assert a.objective_bound == pytest.approx(b.objective_bound, abs=1e-12)
    ignored = {frozenset({(x,): 2.0, (y,): 2.0}.items()): 0.4, frozenset({(z,): 1.0, (w,): 1.0}.items()): 0.0}
    unused = highs.solve_two_ratio_pair(prog, den_floors=ignored)
    assert sum(r.extra["lp_solves"] for r in unused) == lps[0]


def test_a_tiny_denominator_elsewhere_does_not_loosen_a_flat_interval() -> None:
    """FPR parity under proxy labels on a table where one group's negatives can almost vanish (the least
    denominator is the 1e-9 floor): an interval whose bound rests on a flat evaluation's certificate
    alone is not charged the rising end's rounding over that floor (it was, 4e-7 of gap)."""
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(8))
    while probs.min() < 0.005:
        probs = rng.dirichlet(np.ones(8))
    cells = pd.DataFrame([{"A": a, "Y": y, "P": p} for a in (0, 1) for y in (0, 1) for p in (0, 1)]).assign(prob=probs)
    res = fp.bound("proxy_label", "fpr_parity", fp.ObservedTable.from_probabilities(cells), D=0.05)
    assert res.status == "optimal"
    assert res.upper - res.upper_achieved <= 1e-9 and res.lower_achieved - res.lower <= 1e-9


def test_a_slack_the_caller_would_decline_is_split_away() -> None:
    """A table with near-empty cells: after the jump to the flat level's end, one interval's slack (a
    rising end's rounding over a denominator that reaches 1e-7) was 2e-5, beyond what the search's caller
    accepts; the search stopped and SCIP answered with a gap. It now splits that interval and closes."""
    rng = np.random.default_rng(510)
    probs = rng.dirichlet(np.ones(8) * rng.choice([0.3, 1.0, 3.0]))
    probs[rng.integers(8)] = 10.0 ** -rng.uniform(3, 7)
    cells = pd.DataFrame([{"A": a, "Y": y, "P": p} for a in (0, 1) for y in (0, 1) for p in (0, 1)])
    res = fp.bound("proxy_label", "tpr_parity", cells.assign(prob=probs / probs.sum()), D=0.05)
    assert res.status == "optimal" and "two-ratio" in res.max_result.message
    assert res.upper - res.upper_achieved <= 1e-9 and abs(res.upper - 0.7718036049) <= 1e-9

"""The LP fast path: a bound's linear programs on HiGHS, verified, sharp against closed forms to 1e-9."""

from __future__ import annotations

from fractions import Fraction

import pytest

import fairprobe as fp
from fairprobe.backends.base import Limit
from fairprobe.core.bound import BoundProblem
from fairprobe.core.registry import get_registry
from fairprobe.datasets import load_paper_table
from tests.core.test_bound_analytic import CLOSED_FORMS, FOGLIATO, polygon_vertices, random_table

pytestmark = pytest.mark.skipif(not get_registry().backends["highs"].availability(),
                                reason="needs highspy (a fairprobe dependency)")


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rates_equal_closed_forms_to_1e9_with_achieved_values_inside(seed: int) -> None:
    frame, p = random_table(seed)
    table = fp.ObservedTable.from_probabilities(frame)
    for D in (0.01, 0.05, 0.1):
        for group in (0, 1):
            for name, form in CLOSED_FORMS.items():
                values = [Fraction(form(p[group], a0, a1)) for a0, a1 in polygon_vertices(p[group], D)]
                res = fp.bound(FOGLIATO, fp.metric(name, group=group), table, D=D)
                assert res.min_result.solver == res.max_result.solver == "highs"
                assert res.min_result.extra["verified"] and res.max_result.extra["verified"]
                assert abs(res.lower - float(min(values))) <= 1e-9 and abs(res.upper - float(max(values))) <= 1e-9
                # the achieved values are models' values: inside the verified interval, at the true distance
                assert res.lower <= res.lower_achieved <= res.upper_achieved <= res.upper
                assert res.gap == max(res.lower_achieved - res.lower, res.upper - res.upper_achieved) >= 0
                assert res.details["max_violation"] <= 1e-9


def test_fast_path_agrees_with_the_global_solver_on_every_program_kind() -> None:
    table = load_paper_table()
    for bias, metric in [("proxy_label", "ppv_parity"), ("proxy_label", "fpr"), ("selection", "fpr_parity"),
                         ("ecp", "demographic_parity")]:
        problem = BoundProblem(bias, metric, table)
        fast = problem.solve({"D": 0.05})
        slow = problem.solve({"D": 0.05}, lp_fast_path=False)
        assert fast.lower == pytest.approx(slow.lower, abs=1e-5) and fast.upper == pytest.approx(slow.upper, abs=1e-5)
        # SCIP's bounds carry its 1e-6 feasibility tolerance; the verified ones are never looser
        assert fast.lower >= slow.lower - 1e-9 and fast.upper <= slow.upper + 1e-9
        if fast.kind in ("linear", "linear_fractional"):
            assert any("solved by highs with verified" in note for note in fast.notes)
            # SCIP's bound is HiGHS's up to SCIP's own tolerance; the verified one is never inside it by more
            assert fast.lower <= slow.lower + 1e-9 and fast.upper >= slow.upper - 1e-9


def test_solver_options_keep_every_program_on_the_named_backend() -> None:
    res = fp.bound("proxy_label", "ppv_parity", load_paper_table(), D=0.05, solver_options={"numerics/feastol": 1e-9})
    assert res.min_result.solver == "scip"
    assert not any("HiGHS" in note for note in res.notes)


def test_a_router_passes_solver_options_unchanged_and_the_engine_adds_only_profile_names() -> None:
    """The router hands the caller's options to whichever backend the hook chose; the engine's own settings
    for its global solves are the profile name "engine", which SCIP maps and HiGHS ignores."""
    from fairprobe.backends.base import SolveOptions
    from fairprobe.core.routing import Router

    lp = fp.PolynomialProgram.from_text("maximize\n  x + y\nsubject to\n  x + 2*y <= 1.5\n"
                                        "bounds\n  0 <= x <= 1\n  0 <= y <= 1")
    router = Router("scip")
    stopped = router.solve(lp, SolveOptions(solver_options={"simplex_iteration_limit": 0}))
    assert stopped.termination is fp.Termination.LIMIT and stopped.solver == "highs"  # HiGHS read the option
    res = router.solve(lp, SolveOptions(profiles=("engine", "joint")))  # unknown to HiGHS: ignored
    assert res.termination is fp.Termination.OPTIMAL and abs(res.objective_bound - 1.25) < 1e-9
    assert res.extra["route"] == "LP" and router.lp_solves == 2
    cubic = fp.PolynomialProgram.from_text("maximize\n  x*y*x\nsubject to\n  x + y <= 1\n"
                                           "bounds\n  0 <= x <= 1\n  0 <= y <= 1")
    glob = router.solve(cubic)  # declined by the exact search: the global solver, with the engine's profile
    assert glob.solver == "scip" and router.main_solves == 1 and router.two_ratio_solves == 0
    plain = Router("scip", exact=False)
    assert plain.solve(lp).solver == "scip" and plain.lp_solves == 0


def test_a_parity_search_stopped_by_the_budget_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """The all-pairs parity searches go through the call's time budget: one that stops at the limit
    leaves the note and the status a limit leaves."""
    from fairprobe.backends.highs import HighsBackend
    from fairprobe.datasets import load_compas

    frame = load_compas().frame
    frame = frame.assign(pred=(frame.decile_score >= 5).astype(int))
    table = fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")
    original = HighsBackend.solve_two_ratio

    def out_of_time(self, program, options=None, den_floors=None):
        res = original(self, program, options, den_floors)
        # as if the budget ran out during the search (its bound stays valid)
        return None if res is None else res.with_updates(termination=fp.Termination.LIMIT, limit=Limit.TIME)

    monkeypatch.setattr(HighsBackend, "solve_two_ratio", out_of_time)
    with pytest.warns(RuntimeWarning, match="limit"):
        res = fp.bound("proxy_label", fp.metric("fpr_parity", groups="all"), table, D=0.0, time_limit=100)
    assert res.status == "limit"
    assert any("time limit" in note for note in res.notes)


def test_an_lp_backend_that_only_solves_still_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin may replace the ``highs`` backend with one that has only ``solve``: the engine then
    takes its plain routes (no exact search, minima or pairs) and gives the same bounds."""
    import fairprobe.core.registry as registry
    from fairprobe.backends.highs import HighsBackend

    class SolveOnly:
        name = "highs"

        def __init__(self) -> None:
            self._inner = HighsBackend()

        @staticmethod
        def availability():
            return HighsBackend.availability()

        def solve(self, program, options=None):
            return self._inner.solve(program, options)

    table = load_paper_table()
    expected = {m: fp.bound("proxy_label", m, table, D=0.05) for m in ("fpr_parity", "ppv_parity")}
    real = registry.registered

    def with_solve_only(kind, *args, **kwargs):
        found = real(kind, *args, **kwargs)
        return {**found, "highs": SolveOnly} if kind == "backends" else found

    monkeypatch.setattr(registry, "registered", with_solve_only)
    for metric, ref in expected.items():
        res = fp.bound("proxy_label", metric, table, D=0.05)
        assert res.lower == pytest.approx(ref.lower, abs=1e-5) and res.upper == pytest.approx(ref.upper, abs=1e-5)
        assert res.status == "optimal"

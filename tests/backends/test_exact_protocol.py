"""The declared protocol of the engine's exact routes (ExactBackend): a third-party backend joins the fast
path through the hooks alone, and the contract check fails one that claims the protocol and breaks it."""

from __future__ import annotations

import collections

import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.backends.base import ExactBackend, SolveOptions
from fairprobe.backends.highs import HighsBackend
from fairprobe.core.registry import get_plugin_manager
from fairprobe.testing import check_backend_contract

pytestmark = pytest.mark.skipif(not HighsBackend.availability(), reason="needs highspy (a fairprobe dependency)")

CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 1] * 4, "P": [0, 0, 1, 1] * 2,
                      "prob": [.2, .05, .05, .2, .15, .1, .05, .2]})

CALLS: collections.Counter[str] = collections.Counter()


class Wrapped(ExactBackend):
    """HiGHS under another name, as a plugin package would ship it (it subclasses the protocol, not HiGHS)."""

    name = "wrapped_highs"
    install_hint = "pip install highspy"
    capabilities = HighsBackend.capabilities

    def __init__(self) -> None:
        self.inner = HighsBackend()

    @classmethod
    def availability(cls):
        return HighsBackend.availability()

    def check_program(self, program):
        self.inner.check_program(program)

    def _solve(self, program, options):
        CALLS["solve"] += 1
        return self.inner.solve(program, options).with_updates(solver=self.name)

    def solves_exactly(self, program):
        return self.inner.solves_exactly(program)

    def solve_parity(self, program, options=None, den_floors=None):
        CALLS["solve_parity"] += 1
        res = self.inner.solve_parity(program, options, den_floors)
        return None if res is None else res.with_updates(solver=self.name)

    def solve_parity_pair(self, program, options=None, den_floors=None):
        CALLS["solve_parity_pair"] += 1
        pair = self.inner.solve_parity_pair(program, options, den_floors)
        return None if pair is None else tuple(r.with_updates(solver=self.name) for r in pair)

    def verified_minima(self, program, objectives, options=None):
        CALLS["verified_minima"] += 1
        return self.inner.verified_minima(program, objectives, options)

    def solve_fractional_pair(self, program, options=None):
        CALLS["solve_fractional_pair"] += 1
        pair = self.inner.solve_fractional_pair(program, options)
        return None if pair is None else tuple(r.with_updates(solver=self.name) for r in pair)


class WrappedPlugin:
    """Registers the backend and routes a bound's continuous programs to it (the one router: the hook)."""

    @fp.hookimpl
    def fairprobe_register_backends(self):
        return [Wrapped]

    @fp.hookimpl
    def fairprobe_select_backend(self, program, available, requested):
        if requested is not None and program is not None and not program.has_integers and Wrapped.name in available:
            return Wrapped.name
        return None


@pytest.fixture
def wrapped_plugin():
    pm = get_plugin_manager()
    plugin = WrappedPlugin()
    pm.register(plugin, name="test-wrapped-highs")
    CALLS.clear()
    try:
        yield
    finally:
        if pm.is_registered(plugin):
            pm.unregister(plugin)


def test_a_third_party_exact_backend_joins_the_fast_path(wrapped_plugin) -> None:
    table = fp.ObservedTable.from_probabilities(CELLS)
    parity = fp.bound("proxy_label", "fpr_parity", table, D=0.05)  # a parity of two rates: the exact search
    assert parity.min_result.solver == parity.max_result.solver == Wrapped.name
    assert parity.details["answered_by"]["max"] == "wrapped_highs (parity search, verified)"
    assert "answered by wrapped_highs (parity search, verified)" in str(parity.summary())
    assert CALLS["solve_parity_pair"] >= 1 and CALLS["verified_minima"] >= 1
    ratio = fp.bound("proxy_label", "ppv", table, D=0.05)  # linear-fractional: the pair route
    assert ratio.min_result.solver == ratio.max_result.solver == Wrapped.name
    assert CALLS["solve"] + CALLS["solve_fractional_pair"] >= 1
    assert any("solved by wrapped_highs with verified" in note for note in ratio.notes)


def test_the_third_party_backend_gives_the_built_in_bounds(wrapped_plugin) -> None:
    table = fp.ObservedTable.from_probabilities(CELLS)
    ours = fp.bound("proxy_label", "fpr_parity", table, D=0.05)
    get_plugin_manager().unregister(name="test-wrapped-highs")
    builtin = fp.bound("proxy_label", "fpr_parity", table, D=0.05)
    assert builtin.max_result.solver == "highs"
    assert (ours.lower, ours.upper) == (builtin.lower, builtin.upper)


def test_the_summary_names_the_solver_that_answered() -> None:
    """Issue 46: COMPAS, selection, FPR parity between two races: SCIP was named, HiGHS answered."""
    from fairprobe.datasets import load_compas

    frame = load_compas().frame.assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    table = fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")
    races = fp.ObservedTable(table.cells, given={"S": 1}, categories=table.categories)
    res = fp.bound("selection", fp.metric("fpr_parity", groups=("African-American", "Caucasian")), races, D=0.02)
    assert res.backend == "scip" and res.max_result.solver == "highs"
    text = str(res.summary())
    assert "backend scip (answered by highs (parity search, verified))" in text


class Lying(Wrapped):
    """Claims the protocol; its parity search reports a bound on the wrong side of the optimum."""

    name = "lying_highs"

    def solve_parity(self, program, options=None, den_floors=None):
        res = self.inner.solve_parity(program, options, den_floors)
        if res is None:
            return None
        shift = 0.1 if program.sense == "min" else -0.1  # inwards: no longer a bound
        return res.with_updates(objective_bound=res.objective_bound + shift)


class WrongMinima(Wrapped):
    name = "wrong_minima"

    def verified_minima(self, program, objectives, options=None):
        found = self.inner.verified_minima(program, objectives, options)
        return None if found is None else [None if v is None else v + 0.25 for v in found]


class Silent(Wrapped):
    """Claims the protocol but takes nothing (every route None): solves_exactly says otherwise."""

    name = "silent"

    def solve_parity(self, program, options=None, den_floors=None):
        return None

    def solve_parity_pair(self, program, options=None, den_floors=None):
        return None


def test_the_contract_passes_highs_and_the_honest_wrapper() -> None:
    report = check_backend_contract(HighsBackend())
    assert report["exact:parity"] == report["exact:minima"] == report["exact:fractional_pair"] == "ok"
    assert check_backend_contract(Wrapped())["exact:parity_pair"] == "ok"


@pytest.mark.parametrize("backend, rule", [(Lying(), "wrong side"), (WrongMinima(), "above the true minimum"),
                                           (Silent(), "solves_exactly")])
def test_the_contract_fails_a_backend_that_claims_the_protocol_and_breaks_it(backend, rule) -> None:
    with pytest.raises(AssertionError, match=rule):
        check_backend_contract(backend)


def test_the_protocol_is_declared_not_probed() -> None:
    """A class with the methods but without the declaration is not an exact backend (no duck typing)."""

    class Lookalike:
        solve_parity = Wrapped.solve_parity

    assert not isinstance(Lookalike(), ExactBackend) and isinstance(Wrapped(), ExactBackend)
    assert set(ExactBackend.__abstractmethods__) >= {"solve_parity", "solve_parity_pair", "verified_minima",
                                                     "solve_fractional_pair", "solves_exactly"}
    assert SolveOptions(profiles=("engine",)).profiles == ("engine",)

"""Registry: listing, backend lookup and its errors."""

from __future__ import annotations

import pytest

import fairprobe as fp
from fairprobe.backends.base import Availability
from fairprobe.exceptions import BackendUnavailableError


def test_list_plugins_lists_the_four_backends_with_state() -> None:
    table = fp.list_plugins()
    backends = table[table.kind == "backends"].set_index("name")
    assert set(backends.index) == {"scip", "highs", "gurobi", "ortools", "cvxpy"}
    assert bool(backends.loc["scip", "available"]) is True
    for name in backends.index:
        cls = fp.get_registry().backends[name]
        assert backends.loc[name, "available"] == bool(cls.availability())
        assert backends.loc[name, "status"] == cls.availability_reason()


def test_unknown_backend_names_choices() -> None:
    with pytest.raises(BackendUnavailableError, match=r"Unknown backend 'cplex'.*'scip'"):
        fp.get_backend("cplex")


def test_unavailable_backend_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairprobe.backends.ortools import OrtoolsBackend

    monkeypatch.setattr(OrtoolsBackend, "availability", classmethod(lambda cls: Availability.NOT_INSTALLED))
    with pytest.raises(BackendUnavailableError) as err:
        fp.get_backend("ortools")
    msg = str(err.value)
    assert "'ortools' is unavailable: not installed" in msg
    assert 'pip install "fairprobe[ortools]"' in msg
    assert "scip" in msg  # names what is usable instead


def test_availability_is_falsy_exactly_when_unusable() -> None:
    assert Availability.AVAILABLE and Availability.LIMITED_LICENSE
    for bad in (Availability.NOT_INSTALLED, Availability.BAD_VERSION, Availability.BAD_LICENSE):
        assert not bad

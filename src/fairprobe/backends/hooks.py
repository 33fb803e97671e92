"""Registers the built-in backends, exactly as an external plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_backends() -> Sequence[type]:
    """The four built-in backends: SCIP (default), Gurobi, OR-Tools and cvxpy."""
    from fairprobe.backends.cvxpy import CvxpyBackend
    from fairprobe.backends.gurobi import GurobiBackend
    from fairprobe.backends.ortools import OrtoolsBackend
    from fairprobe.backends.scip import ScipBackend

    return [ScipBackend, GurobiBackend, OrtoolsBackend, CvxpyBackend]


@hookimpl(trylast=True)
def fairprobe_select_backend(program, available):
    """Default choice: SCIP (any degree, global), else the first global backend available."""
    if "scip" in available:
        return "scip"
    return available[0] if available else None

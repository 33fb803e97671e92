"""Registers the built-in backends, exactly as an external plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_backends() -> Sequence[type]:
    """The five built-in backends: SCIP (default), HiGHS, Gurobi, OR-Tools and cvxpy."""
    from fairprobe.backends.auto import builtin_backends

    return builtin_backends()


@hookimpl(trylast=True)
def fairprobe_select_backend(program, available, requested):
    """Built-in choice by measured structure (:func:`fairprobe.backends.auto.choose_backend`).

    A bound's programs (``requested`` named): continuous ones to HiGHS's exact routes first when SCIP
    or auto was named, the rest to the named backend. ``backend="auto"``: continuous linear and
    linear-fractional programs to HiGHS (else OR-Tools); nonlinear and mixed-integer ones to Gurobi
    when its licence accepts them; otherwise, and without a program, SCIP.
    """
    from fairprobe.backends.auto import choose_backend

    return choose_backend(program, available, requested)

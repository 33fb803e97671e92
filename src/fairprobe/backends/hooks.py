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
    """The built-in choice by measured structure: see :func:`fairprobe.backends.auto.choose_backend`."""
    from fairprobe.backends.auto import choose_backend

    return choose_backend(program, available, requested)

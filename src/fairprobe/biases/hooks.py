"""Registers the built-in biases, exactly as an external plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_biases() -> Sequence[type]:
    """The built-in biases."""
    from fairprobe.biases.builtin import BUILTIN_BIASES

    return list(BUILTIN_BIASES)

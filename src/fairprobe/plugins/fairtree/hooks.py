"""Registers FairTree, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The FairTree analysis."""
    from fairprobe.plugins.fairtree.tree import FairTree

    return [FairTree]

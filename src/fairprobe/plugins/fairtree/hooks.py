"""Registers FairTree, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The FairTree analysis."""
    from fairprobe.plugins.fairtree.tree import FairTree

    return [FairTree]


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe fairtree``."""
    from fairprobe.plugins.fairtree.cli import fairtree_command

    cli.add_command(fairtree_command)  # type: ignore[attr-defined]

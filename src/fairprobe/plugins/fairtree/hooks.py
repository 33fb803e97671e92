"""Registers FairTree, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The FairTree analysis."""
    from fairprobe.plugins.fairtree.tree import FairTree

    return [FairTree]


#: Commands of this plugin: name -> (module:attribute, short help).
COMMANDS = {
    "fairtree": ("fairprobe.plugins.fairtree.cli:fairtree_command",
        "Audit model performance across subgroups (FairTree) and classify bias vs variance."),
}


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe fairtree``."""
    from fairprobe.cli.hooks import add_commands  # lazily: listed by --help without importing the analysis

    add_commands(cli, COMMANDS)


"""Registers the Rashomon analysis, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The Rashomon-set analysis, the exact multiplicity of linear classifiers and the exact tree set."""
    from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity
    from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    return [RashomonSet, ExactLinearMultiplicity, TreeRashomonSet]


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe multiplicity`` and ``fairprobe multiplicity-trees``."""
    from fairprobe.plugins.rashomon.cli import multiplicity_command
    from fairprobe.plugins.rashomon.cli_trees import multiplicity_trees_command

    cli.add_command(multiplicity_command)  # type: ignore[attr-defined]
    cli.add_command(multiplicity_trees_command)  # type: ignore[attr-defined]

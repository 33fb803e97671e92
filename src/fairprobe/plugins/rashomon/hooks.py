"""Registers the Rashomon analysis, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The Rashomon-set analysis and the exact multiplicity of linear classifiers."""
    from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity
    from fairprobe.plugins.rashomon.rashomon_set import RashomonSet

    return [RashomonSet, ExactLinearMultiplicity]


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe multiplicity``."""
    from fairprobe.plugins.rashomon.cli import multiplicity_command

    cli.add_command(multiplicity_command)  # type: ignore[attr-defined]

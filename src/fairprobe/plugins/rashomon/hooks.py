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


#: Commands of this plugin: name -> (module:attribute, short help).
COMMANDS = {
    "multiplicity": ("fairprobe.plugins.rashomon.cli:multiplicity_command",
        "Build a Rashomon set and report per-row conflict ratios (predictive multiplicity)."),
    "multiplicity-trees": ("fairprobe.plugins.rashomon.cli_trees:multiplicity_trees_command",
        "Enumerate the exact Rashomon set of sparse trees (TreeFARMS) and report its multiplicity."),
}


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe multiplicity`` and ``fairprobe multiplicity-trees``."""
    from fairprobe.cli.hooks import add_commands  # lazily: listed by --help without importing the analysis

    add_commands(cli, COMMANDS)


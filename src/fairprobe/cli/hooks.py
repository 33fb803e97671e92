"""Registers the built-in commands, exactly as a plugin adds its own."""

from __future__ import annotations

from typing import Any

from fairprobe.hookspecs import hookimpl

#: name -> (module:attribute, the first line of its help): listed by ``fairprobe --help`` without
#: importing the modules (numpy, pandas, sympy); ``tests/cli/test_main.py`` checks the lines match.
COMMANDS = {
    "plugins": ("fairprobe.cli.commands:plugins_command",
                "List registered biases, metrics, backends and analyses with their availability."),
    "solve": ("fairprobe.cli.commands:solve_command", "Solve a program written in fairprobe's LP-like text form."),
    "demo": ("fairprobe.cli.commands:demo_command",
             "Run the whole tour on built-in synthetic data and write a report folder."),
    "report": ("fairprobe.cli.commands:report_command",
               "Combine saved reports (folders written with --out) into one HTML report."),
    "bound": ("fairprobe.cli.causal:bound_command",
              "Certified bounds of a fairness metric under a bias at one sensitivity value."),
    "sweep": ("fairprobe.cli.causal:sweep_command",
              "Certified bounds over a grid of sensitivity values (progress on stderr)."),
    "breakdown": ("fairprobe.cli.causal:breakdown_command",
                  "Smallest sensitivity value at which the fairness conclusion can flip."),
    "study": ("fairprobe.cli.study:study_command",
              "Fragility study: train, evaluate and bound every model of a spec (YAML or JSON)."),
}


def add_commands(cli: Any, commands: dict[str, tuple[str, str]]) -> None:
    """Add ``commands`` to ``cli``: lazily where the group supports it (fairprobe's root group), else imported.

    Parameters
    ----------
    cli : click.Group
        The group.
    commands : dict
        Name -> (``"module:attribute"``, short help).

    Examples
    --------
    >>> import click
    >>> group = click.Group("plain")
    >>> add_commands(group, {"solve": COMMANDS["solve"]})
    >>> group.commands["solve"].name
    'solve'
    """
    import importlib

    for name, (target, short_help) in commands.items():
        if hasattr(cli, "add_lazy_command"):
            cli.add_lazy_command(name, target, short_help)
        else:
            module, _, attr = target.partition(":")
            cli.add_command(getattr(importlib.import_module(module), attr), name)


@hookimpl
def fairprobe_add_cli_commands(cli: Any) -> None:
    """``plugins``, ``solve``, ``demo``, ``report``, ``bound``, ``sweep``, ``breakdown`` and ``study``."""
    add_commands(cli, COMMANDS)

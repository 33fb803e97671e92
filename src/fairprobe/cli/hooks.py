"""Registers the built-in commands, exactly as a plugin adds its own."""

from __future__ import annotations

from typing import Any

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_add_cli_commands(cli: Any) -> None:
    """``plugins``, ``solve``, ``demo``, ``report``, ``bound``, ``sweep`` and ``breakdown``."""
    from fairprobe.cli.causal import bound_command, breakdown_command, sweep_command
    from fairprobe.cli.commands import demo_command, plugins_command, report_command, solve_command

    for command in (plugins_command, solve_command, demo_command, report_command, bound_command, sweep_command,
                    breakdown_command):
        cli.add_command(command)

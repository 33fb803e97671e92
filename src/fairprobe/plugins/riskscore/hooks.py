"""Registers the risk-score audit, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The risk-score audit."""
    from fairprobe.plugins.riskscore.audit import RiskScoreAudit

    return [RiskScoreAudit]


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe riskscore``."""
    from fairprobe.plugins.riskscore.cli import riskscore_command

    cli.add_command(riskscore_command)  # type: ignore[attr-defined]

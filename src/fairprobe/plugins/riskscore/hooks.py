"""Registers the risk-score audit, exactly as an external analysis plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    """The risk-score audit."""
    from fairprobe.plugins.riskscore.audit import RiskScoreAudit

    return [RiskScoreAudit]


#: Commands of this plugin: name -> (module:attribute, short help).
COMMANDS = {
    "riskscore": ("fairprobe.plugins.riskscore.cli:riskscore_command",
        "Per-group calibration (DRMSCE, ECE), AUROC/AUPRG and under-representation with bootstrap intervals."),
}


@hookimpl
def fairprobe_add_cli_commands(cli: object) -> None:
    """``fairprobe riskscore``."""
    from fairprobe.cli.hooks import add_commands  # lazily: listed by --help without importing the analysis

    add_commands(cli, COMMANDS)


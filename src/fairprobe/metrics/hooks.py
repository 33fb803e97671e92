"""Registers the built-in metrics, exactly as an external plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_metrics() -> Sequence[type]:
    """Group rates and parity metrics."""
    from fairprobe.metrics.rates import BUILTIN_METRICS

    return list(BUILTIN_METRICS)

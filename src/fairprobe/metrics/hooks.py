"""Registers the built-in metrics, exactly as an external plugin would."""

from __future__ import annotations

from collections.abc import Sequence

from fairprobe.hookspecs import hookimpl


@hookimpl
def fairprobe_register_metrics() -> Sequence[type]:
    """Group rates, parity metrics, equalised odds, causal metrics."""
    from fairprobe.metrics.causal import CAUSAL_METRICS
    from fairprobe.metrics.rates import BUILTIN_METRICS

    return [*BUILTIN_METRICS, *CAUSAL_METRICS]

"""The plugin module named by the ``fairprobe`` entry point: one bias, one metric, one analysis, one command."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import click
import pandas as pd

import fairprobe
from fairprobe.biases.base import Bias
from fairprobe.core.config import BiasConfig
from fairprobe.metrics.base import Metric
from fairprobe.metrics.rates import rate_query


class LabelDelayBias(Bias):
    """Outcomes not yet observed look negative: ``Y`` can miss a positive ``Z``, never add one."""

    name = "label_delay"
    description = "recorded label misses at most a share D of outcomes, never adds one: P(Z = 1, Y = 0) <= D"

    def config(self) -> BiasConfig:
        return BiasConfig.from_dict({
            "name": self.name,
            "dag_str": "A -> Y, A -> P, A -> Z, U -> P, U -> Y, U -> Z, Z -> Y",
            "unob": ["U"],
            "observed_nodes": ["A", "Y", "P"],  # Z, the true outcome, is unmeasured (not a forgotten column)
            "attribute_node": "A", "outcome_node": "Z", "prediction_node": "P",
            "constraints": ["P(Z = 1 & Y = 0) <= D", "P(Z = 0 & Y = 1) == 0"],
            "description": self.description,
        })


class FalseOmissionRateParity(Metric):
    """``FOR_a0 - FOR_a1`` with ``FOR_a = P(Y = 1 | P = 0, A = a)``: missed positives among the negatives."""

    name: ClassVar[str] = "for_parity"
    description: ClassVar[str] = "false omission rate difference P(Y=1 | P=0, A=a0) - P(Y=1 | P=0, A=a1)"

    def query(self, config: BiasConfig) -> str:
        a0, a1 = self.pairs(config)[0]
        y = self.outcome_of(config)
        one = rate_query("npv", config, a0, y).replace(f"P({y} = 0 |", f"P({y} = 1 |")
        two = rate_query("npv", config, a1, y).replace(f"P({y} = 0 |", f"P({y} = 1 |")
        return f"{one} - ({two})"


class BaseRateAudit:
    """Per-group outcome rates with Wilson confidence intervals.

    Parameters
    ----------
    alpha : float
        One minus the confidence level.
    """

    name: ClassVar[str] = "base_rates"
    description: ClassVar[str] = "per-group outcome rates with Wilson intervals"

    def __init__(self, alpha: float = 0.05) -> None:
        self.alpha = alpha

    def fit(self, frame: pd.DataFrame, target: str, group: str) -> BaseRateAudit:
        from statsmodels.stats.proportion import proportion_confint

        missing = [c for c in (target, group) if c not in frame.columns]
        if missing:
            raise fairprobe.DataError(f"Columns {missing} are not in the data; available: {list(frame.columns)}.")
        counts = frame.groupby(group)[target].agg(["sum", "count"])
        low, high = proportion_confint(counts["sum"], counts["count"], alpha=self.alpha, method="wilson")
        self.results_ = pd.DataFrame({"n": counts["count"], "rate": counts["sum"] / counts["count"],
                                      "lower": low, "upper": high})
        return self


@click.command("base-rates")
@click.option("--data", "path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--target", required=True, help="0/1 outcome column.")
@click.option("--group", required=True, help="Group column.")
def base_rates_command(path: str, target: str, group: str) -> None:
    """Per-group outcome rates with 95 % Wilson intervals.

    \b
    Example:
      fairprobe base-rates --data rows.csv --target y --group race
    """
    audit = BaseRateAudit().fit(pd.read_csv(path), target, group)
    click.echo(audit.results_.round(4).to_string())


@fairprobe.hookimpl
def fairprobe_register_biases() -> Sequence[type]:
    return [LabelDelayBias]


@fairprobe.hookimpl
def fairprobe_register_metrics() -> Sequence[type]:
    return [FalseOmissionRateParity]


@fairprobe.hookimpl
def fairprobe_register_analyses() -> Sequence[type]:
    return [BaseRateAudit]


@fairprobe.hookimpl
def fairprobe_add_cli_commands(cli: Any) -> None:
    cli.add_command(base_rates_command)

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
from fairprobe.plugins.base import Analysis, Example, Summary


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


class BaseRateAudit(Analysis):
    """Per-group outcome rates with Wilson confidence intervals.

    Parameters
    ----------
    alpha : float
        One minus the confidence level.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "race": ["a", "a", "a", "b", "b", "b"]})
    >>> audit = BaseRateAudit().fit(rows, y_true="y", sensitive_features="race")
    >>> audit.results_["rate"].round(3).tolist()
    [0.667, 0.333]
    """

    name: ClassVar[str] = "base_rates"
    description: ClassVar[str] = "per-group outcome rates with Wilson intervals"

    def __init__(self, *, alpha: float = 0.05) -> None:
        self.alpha = alpha

    def fit(self, data: pd.DataFrame, *, y_true: str, sensitive_features: str) -> BaseRateAudit:
        """Rates of ``y_true`` (a 0/1 column) per value of the ``sensitive_features`` column; returns ``self``."""
        from statsmodels.stats.proportion import proportion_confint

        missing = [c for c in (y_true, sensitive_features) if c not in data.columns]
        if missing:
            raise fairprobe.DataError(f"Columns {missing} are not in the data; available: {list(data.columns)}.")
        if not 0 < self.alpha < 1:
            raise fairprobe.ConfigError(f"alpha must be in (0, 1), e.g. 0.05; got {self.alpha!r}.")
        counts = data.groupby(sensitive_features)[y_true].agg(["sum", "count"])
        low, high = proportion_confint(counts["sum"], counts["count"], alpha=self.alpha, method="wilson")
        self.results_ = pd.DataFrame({"n": counts["count"], "rate": counts["sum"] / counts["count"],
                                      "lower": low, "upper": high})
        return self

    def summary(self) -> Summary:
        """Rates per group with their intervals."""
        self.check_is_fitted()
        lines = [f"{g}: {r.rate:.3f} [{r.lower:.3f}, {r.upper:.3f}] (n = {r.n})" for g, r in self.results_.iterrows()]
        return Summary("\n".join(lines), title="Base rates", tables={"rates": self.results_})

    def to_frame(self) -> pd.DataFrame:
        """One row per group: n, rate, lower, upper."""
        self.check_is_fitted()
        return self.results_.copy()

    def figures(self) -> dict[str, Any]:
        """The rates with their intervals."""
        self.check_is_fitted()
        return {"rates": self.plot_rates}

    def plot_rates(self, *, ax: Any = None) -> Any:
        """Rates per group with Wilson intervals."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3))
        r = self.results_
        ax.errorbar(range(len(r)), r.rate, yerr=[r.rate - r.lower, r.upper - r.rate], fmt="o")
        ax.set_xticks(range(len(r)), [str(g) for g in r.index])
        ax.set_ylabel("outcome rate")
        return ax

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        """Outcomes of 400 people in two groups with different base rates."""
        import numpy as np

        rng = np.random.default_rng(seed)
        group = rng.choice(["a", "b"], size=400)
        y = (rng.random(400) < np.where(group == "a", 0.3, 0.5)).astype(int)
        return Example(cls(), pd.DataFrame({"y": y, "group": group}), {"y_true": "y", "sensitive_features": "group"})


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
    audit = BaseRateAudit().fit(pd.read_csv(path), y_true=target, sensitive_features=group)
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

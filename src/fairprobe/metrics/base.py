"""The Metric interface: a fairness metric is a query on the causal model.

A metric plugin is a class with a unique ``name`` and a :meth:`Metric.query` method that writes
the metric as a query string in the constraint grammar, using the bias config's roles
(``attribute_node``, ``outcome_node``, which may be counterfactual such as ``Y(T=1)``, and
``prediction_node``). Instances carry options such as the groups compared.

A metric of the form ``max_i |q_i|`` (equalised odds, the largest parity gap over all pairs of
groups) implements :meth:`Metric.max_abs_terms` instead; the driver then bounds it sharply:
the upper bound from the separate bounds of each ``q_i``, the lower bound from one joint program.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from fairprobe.core.config import BiasConfig
from fairprobe.exceptions import ConfigError

__all__ = ["Metric"]


def _code(value: Any, what: str) -> int:
    """An attribute code (an integer >= 0) from ``value``; a ConfigError for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
        raise ConfigError(f"{what} must be an attribute code (an integer >= 0, as in ObservedTable.categories); "
                          f"got {value!r}.")
    return int(value)


class Metric:
    """Base class of metric plugins.

    Parameters
    ----------
    group : int
        Attribute code of the group (group rates).
    groups : (int, int) or "all"
        The two attribute codes compared by parity metrics: value = rate(first) - rate(second).
        ``"all"`` compares every pair of the attribute's values and reports the largest
        absolute gap, ``max_{g < h} |rate(g) - rate(h)|`` (for multi-valued attributes).
    outcome : str, optional
        Outcome the metric is about, overriding the bias's ``outcome_node``: e.g. ``"Y"`` for the
        factual outcome under the ``ecp`` bias, whose default target is ``Y(T=1)``.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    formula: ClassVar[str] = ""

    def __init__(self, *, group: int = 0, groups: tuple[int, int] | str = (0, 1), outcome: str | None = None) -> None:
        self.group = _code(group, "group")
        if outcome is not None and (not isinstance(outcome, str) or not outcome.strip()):
            raise ConfigError(f"outcome must be a node name such as 'Y' or 'Y(T=1)'; got {outcome!r}.")
        self.outcome = outcome
        if isinstance(groups, str):
            if groups != "all":
                raise ConfigError(f"groups must be a pair of attribute codes or 'all'; got {groups!r}.")
            self.groups: tuple[int, int] | str = "all"
        else:
            if not isinstance(groups, (tuple, list)) or len(groups) != 2:
                raise ConfigError(f"groups must be a pair of attribute codes, e.g. groups=(0, 1), or 'all'; "
                                  f"got {groups!r}.")
            a, b = (_code(groups[0], "groups"), _code(groups[1], "groups"))
            if a == b:
                raise ConfigError(f"groups must name two different attribute values; got {groups!r}.")
            self.groups = (a, b)

    def query(self, config: BiasConfig) -> str:
        """The metric as a query string for ``config``'s node roles."""
        raise ConfigError(f"{type(self).__name__} defines neither query() nor max_abs_terms().")

    def max_abs_terms(self, config: BiasConfig) -> list[str] | None:
        """Terms ``q_i`` when the metric is ``max_i |q_i|``; ``None`` for an ordinary query."""
        return None

    def pairs(self, config: BiasConfig) -> list[tuple[int, int]]:
        """Attribute pairs compared (one pair, or all pairs for ``groups="all"``)."""
        k = config.cardinality(config.attribute_node)
        if self.groups == "all":
            return list(combinations(range(k), 2))
        for g in self.groups:
            self.check_group(config, g)
        return [self.groups]

    @staticmethod
    def check_group(config: BiasConfig, g: int) -> None:
        """Raise when ``g`` is not a code of the attribute."""
        k = config.cardinality(config.attribute_node)
        if not 0 <= g < k:
            raise ConfigError(
                f"Group {g} is not a value of the attribute {config.attribute_node} (values 0..{k - 1}); use the "
                "attribute's integer codes (ObservedTable.categories maps labels to codes)."
            )

    def label(self, config: BiasConfig) -> str:
        """Readable label, e.g. ``fpr_parity (A: 0 vs 1)``."""
        if self.groups == "all":
            return f"{self.name} ({config.attribute_node}: max over pairs)"
        return f"{self.name} ({config.attribute_node}: {self.groups[0]} vs {self.groups[1]})"

    def get_params(self) -> dict[str, Any]:
        """Options of this instance."""
        return {"group": self.group, "groups": self.groups, "outcome": self.outcome}

    def outcome_of(self, config: BiasConfig) -> str:
        """The outcome this metric is about (its own ``outcome`` or the bias's)."""
        return self.outcome or config.outcome_node

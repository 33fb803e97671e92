"""The Metric interface: a fairness metric is a query on the causal model.

A metric plugin is a class with a unique ``name`` and a :meth:`Metric.query` method that writes
the metric as a query string in the constraint grammar, using the bias config's roles
(``attribute_node``, ``outcome_node``, which may be counterfactual such as ``Y(T=1)``, and
``prediction_node``). Instances carry options such as the groups compared.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from fairprobe.core.config import BiasConfig

__all__ = ["Metric"]


class Metric(ABC):
    """Base class of metric plugins.

    Parameters
    ----------
    group : int
        Attribute code of the group (group rates).
    groups : (int, int)
        The two attribute codes compared by parity metrics: value = rate(first) - rate(second).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    formula: ClassVar[str] = ""

    def __init__(self, *, group: int = 0, groups: tuple[int, int] = (0, 1)) -> None:
        self.group = int(group)
        self.groups = (int(groups[0]), int(groups[1]))

    @abstractmethod
    def query(self, config: BiasConfig) -> str:
        """The metric as a query string for ``config``'s node roles."""

    def label(self, config: BiasConfig) -> str:
        """Readable label, e.g. ``fpr_parity (A: 0 vs 1)``."""
        return f"{self.name} ({config.attribute_node}: {self.groups[0]} vs {self.groups[1]})"

    def get_params(self) -> dict[str, Any]:
        """Options of this instance."""
        return {"group": self.group, "groups": self.groups}

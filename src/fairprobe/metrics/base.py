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

import copy
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from fairprobe.core.config import BiasConfig
from fairprobe.exceptions import ConfigError

__all__ = ["Metric"]


def _value(value: Any, what: str) -> Any:
    """A group as given: an attribute code (integer >= 0) or a label of the table (text, number)."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, tuple, dict, set)):
        raise ConfigError(f"{what} must be an attribute label (e.g. 'Caucasian') or code (an integer >= 0); "
                          f"got {value!r}.")
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, (int, np.integer)):
        if value < 0:
            raise ConfigError(f"{what} must be an attribute label or code (an integer >= 0); got {value!r}.")
        return int(value)
    if isinstance(value, str) and not value.strip():
        raise ConfigError(f"{what} must be an attribute label or code; got an empty string.")
    return value


def _same(label: Any, value: Any) -> bool:
    return label == value or str(label) == str(value)


class Metric:
    """Base class of metric plugins.

    Parameters
    ----------
    group : int or label
        The group (group rates): a label of the attribute as recorded in the data (``"Caucasian"``),
        or its integer code (``ObservedTable.categories`` lists the labels in code order).
    groups : (value, value) or "all"
        The two groups compared by parity metrics, as labels or codes: value = rate(first) -
        rate(second). ``"all"`` compares every pair of the attribute's values and reports the
        largest absolute gap, ``max_{g < h} |rate(g) - rate(h)|`` (for multi-valued attributes).
    outcome : str, optional
        Outcome the metric is about, overriding the bias's ``outcome_node``: e.g. ``"Y"`` for the
        factual outcome under the ``ecp`` bias, whose default target is ``Y(T=1)``.

    Notes
    -----
    A value that is one of the table's labels is read as that label; any other integer is read
    as a code. Labels are resolved against the table by :meth:`bind` (``fp.bound`` does it).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    formula: ClassVar[str] = ""

    def __init__(self, *, group: Any = 0, groups: tuple[Any, Any] | str = (0, 1), outcome: str | None = None) -> None:
        self.group = _value(group, "group")
        self.labels: list[Any] | None = None  # the attribute's labels in code order, once bound to a table
        if outcome is not None and (not isinstance(outcome, str) or not outcome.strip()):
            raise ConfigError(f"outcome must be a node name such as 'Y' or 'Y(T=1)'; got {outcome!r}.")
        self.outcome = outcome
        if isinstance(groups, str):
            if groups != "all":
                raise ConfigError(f"groups must be a pair of attribute labels or codes, or 'all'; got {groups!r}.")
            self.groups: tuple[Any, Any] | str = "all"
        else:
            if not isinstance(groups, (tuple, list)) or len(groups) != 2:
                raise ConfigError(f"groups must be a pair of attribute labels or codes, e.g. groups=(0, 1) or "
                                  f"groups=('African-American', 'Caucasian'), or 'all'; got {groups!r}.")
            a, b = (_value(groups[0], "groups"), _value(groups[1], "groups"))
            if _same(a, b):
                raise ConfigError(f"groups must name two different attribute values; got {groups!r}.")
            self.groups = (a, b)

    def bind(self, labels: list[Any] | None) -> Metric:
        """A copy whose groups are codes of a table whose attribute has ``labels`` (in code order).

        Raises
        ------
        ConfigError
            A group that is neither one of the labels nor a valid code.
        """
        out = copy.copy(self)
        out.labels = list(labels) if labels else None
        out.group = out._to_code(self.group, "group")
        if self.groups != "all":
            out.groups = (out._to_code(self.groups[0], "groups"), out._to_code(self.groups[1], "groups"))
            if out.groups[0] == out.groups[1]:
                raise ConfigError(f"groups {self.groups!r} name the same group twice; choose two different groups.")
        return out

    def _to_code(self, value: Any, what: str) -> int:
        labels = self.labels or []
        for code, label in enumerate(labels):
            if _same(label, value):
                return code
        if isinstance(value, int) and (not labels or 0 <= value < len(labels)):
            return value
        shown = labels if len(labels) <= 20 else [*labels[:20], "..."]
        raise ConfigError(f"{what} {value!r} is not a group of the data; the attribute's groups are {shown} "
                          f"(or their codes 0..{max(len(labels) - 1, 0)}).")

    def query(self, config: BiasConfig) -> str:
        """The metric as a query string for ``config``'s node roles."""
        raise ConfigError(f"{type(self).__name__} defines neither query() nor max_abs_terms().")

    def max_abs_terms(self, config: BiasConfig) -> list[str] | None:
        """Terms ``q_i`` when the metric is ``max_i |q_i|``; ``None`` for an ordinary query."""
        return None

    def max_abs_families(self, config: BiasConfig) -> list[list[str]] | None:
        """Rates whose ranges make up the metric, when it is ``max_f (max_a q_a - min_b q_b)``.

        A max-abs metric whose terms are all pairwise gaps ``q_a - q_b`` of some families of rates
        (the largest FPR gap over all pairs: one family, the FPR of each group) may list the
        families; the driver then bounds it from the rates' own ranges and solves only the pairs
        that can still decide the upper bound. ``None``: bound the terms one by one.
        """
        return None

    def pairs(self, config: BiasConfig) -> list[tuple[int, int]]:
        """Attribute pairs compared, as codes (one pair, or all pairs for ``groups="all"``)."""
        k = config.cardinality(config.attribute_node)
        if self.groups == "all":
            return list(combinations(range(k), 2))
        for g in self.groups:
            self.check_group(config, g)
        return [self.groups]

    @staticmethod
    def check_group(config: BiasConfig, g: Any) -> None:
        """Raise when ``g`` is not a code of the attribute."""
        k = config.cardinality(config.attribute_node)
        if not isinstance(g, int):
            raise ConfigError(f"Group {g!r} is a label; give the data (fp.bound does) or Metric.bind(labels) so it "
                              "can be turned into the attribute's code.")
        if not 0 <= g < k:
            raise ConfigError(
                f"Group {g} is not a value of the attribute {config.attribute_node} (values 0..{k - 1}); use one "
                "of the data's labels or codes (ObservedTable.categories lists the labels in code order)."
            )

    def group_name(self, code: Any) -> str:
        """How a group is shown: its label when the data have labels, else its code."""
        if self.labels and isinstance(code, int) and 0 <= code < len(self.labels):
            return str(self.labels[code])
        return str(code)

    def pair_name(self, pair: tuple[Any, Any]) -> str:
        """``"first vs second"`` with labels."""
        return f"{self.group_name(pair[0])} vs {self.group_name(pair[1])}"

    def label(self, config: BiasConfig) -> str:
        """Readable label, e.g. ``fpr_parity (A: African-American vs Caucasian)``."""
        if self.groups == "all":
            return f"{self.name} ({config.attribute_node}: max over pairs)"
        return f"{self.name} ({config.attribute_node}: {self.pair_name(self.groups)})"

    def get_params(self) -> dict[str, Any]:
        """Options of this instance."""
        return {"group": self.group, "groups": self.groups, "outcome": self.outcome}

    def outcome_of(self, config: BiasConfig) -> str:
        """The outcome this metric is about (its own ``outcome`` or the bias's)."""
        return self.outcome or config.outcome_node

"""The Metric interface: a fairness metric is a query on the causal model.

A metric plugin is a class with a unique ``name`` and a :meth:`Metric.query` method that writes
the metric as a query string in the constraint grammar, using the bias config's roles
(``attribute_node``, ``outcome_node``, which may be counterfactual such as ``Y(T=1)``, and
``prediction_node``). Instances carry options such as the groups compared.

A metric of the form ``max_i |q_i|`` (equalised odds, the largest parity gap over all pairs of
groups) implements :meth:`Metric.max_abs_terms` instead; the driver then bounds it sharply:
the upper bound from the separate bounds of each ``q_i``, the lower bound from one joint program.

Audit options shared by the rate metrics: ``groups=(a, "rest")`` compares a group with everyone
else (the rest's rate conditions on ``A != a``), ``groups="each_vs_rest"`` takes the largest such
gap over the groups, ``stratum={"X": x}`` conditions every rate on a covariate value and
``standardize="X"`` averages the rates over the covariate's distribution (see :class:`Metric`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from fairprobe.core.config import BiasConfig
from fairprobe.exceptions import ConfigError

__all__ = ["EACH_VS_REST", "REST", "Metric", "Rest"]

#: The ``groups`` value that stands for every attribute value but the other group compared.
REST = "rest"
#: The ``groups`` value that compares every group with the rest and keeps the largest absolute gap.
EACH_VS_REST = "each_vs_rest"


@dataclass(frozen=True)
class Rest:
    """Every value of the attribute but ``of``, as one pooled group (the event ``A != of``).

    Parameters
    ----------
    of : int
        The code of the group left out.

    Attributes
    ----------
    of : int
        The code of the group left out.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.metrics.base import Rest
    >>> from fairprobe.metrics.rates import rate_query
    >>> cfg3 = BiasConfig(dag_str="A->P, A->Y", constraints=[], cardinalities={"A": 3})
    >>> rate_query("fpr", cfg3, Rest(0))
    'P(P = 1 | Y = 0 & A != 0)'
    """

    of: int


Group = int | Rest


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


def _is_rest(value: Any) -> bool:
    return isinstance(value, str) and value == REST


def _stratum(stratum: Any) -> dict[str, Any]:
    """``{"X": value}`` as given: node names mapped to a label or code each."""
    if stratum is None:
        return {}
    if not isinstance(stratum, Mapping):
        raise ConfigError(f"stratum must map covariate nodes to one value each, e.g. stratum={{'X': 1}} or "
                          f"stratum={{'X': 'high'}}; got {stratum!r}.")
    out: dict[str, Any] = {}
    for node, value in stratum.items():
        if not isinstance(node, str) or not node.strip():
            raise ConfigError(f"stratum keys must be node names such as 'X'; got {node!r}.")
        if isinstance(value, (bool, np.bool_)):
            out[node] = bool(value)  # a True/False column is coded False = 0, True = 1
        else:
            out[node] = _value(value, f"stratum value of {node}")
    return out


def _standardize(standardize: Any) -> tuple[str, ...]:
    """Nodes whose distribution the rates are averaged over."""
    if standardize is None:
        return ()
    nodes = (standardize,) if isinstance(standardize, str) else standardize
    if not isinstance(nodes, Sequence) or not nodes or not all(isinstance(n, str) and n.strip() for n in nodes):
        raise ConfigError(f"standardize takes a covariate node or a list of nodes, e.g. standardize='X'; got "
                          f"{standardize!r}.")
    if len(set(nodes)) != len(nodes):
        raise ConfigError(f"standardize names a node twice: {list(nodes)!r}; name each node once.")
    return tuple(nodes)


class Metric:
    """Base class of metric plugins.

    Parameters
    ----------
    group : int or label, optional
        The group (group rates): a label of the attribute as recorded in the data (``"Caucasian"``),
        or its integer code (``ObservedTable.categories`` lists the labels in code order). Default:
        code 0, accepted only for a two-valued attribute; an error for a comparison metric.
    groups : (value, value), "all" or "each_vs_rest", optional
        Default: codes ``(0, 1)``, accepted only for a two-valued attribute; an error for a rate.
        The two groups compared by parity metrics, as labels or codes: value = rate(first) -
        rate(second). ``"all"`` compares every pair of the attribute's values and reports the
        largest absolute gap, ``max_{g < h} |rate(g) - rate(h)|`` (for multi-valued attributes).
        ``"rest"`` in a pair (``("African-American", "rest")``) stands for every other value of
        the attribute pooled: rate(a) - rate(A != a). ``"each_vs_rest"`` compares every group with
        its rest and reports the largest absolute gap, ``max_a |rate(a) - rate(A != a)|``.
    outcome : str, optional
        Outcome the metric is about, overriding the bias's ``outcome_node``: e.g. ``"Y"`` for the
        factual outcome under the ``ecp`` bias, whose default target is ``Y(T=1)``.
    stratum : dict, optional
        Covariate values every rate is conditioned on, e.g. ``{"X": 2}``: ``FPR_a = P(P = 1 | Y = 0,
        A = a, X = 2)``. Values are codes, or labels once bound to the table's categories
        (``bind(labels, categories=table.categories)``); ``True``/``False`` are the codes 1/0.
    standardize : str or list of str, optional
        Covariate node(s) the rates are directly standardised over: ``rate_a^std = sum_x P(X = x)
        rate(a | X = x)`` (within the stratum, with weights ``P(X = x | stratum)``, when both are
        given). Parity compares the standardised rates.

    Notes
    -----
    A value that is one of the table's labels is read as that label; any other integer is read
    as a code. Labels are resolved against the table by :meth:`bind` (``fp.bound`` does it for the
    attribute).

    The pooled rate of all groups but ``a``, ``P(P = 1 | Y = 0 & A != a)``, conditions on a union of
    attribute values; the compiler writes ``P(Y = 0 & A != a)`` as the sum of the groups'
    probabilities, so it is bounded like any other conditional probability. With a two-valued
    attribute the rest is the other value. The causal metrics (interventions on the attribute)
    take no rest with three or more groups: an intervention sets one value.

    Examples
    --------
    Metrics are usually made by name (``fp.metric("fpr_parity", groups=...)``) and turned into a
    query for a bias:

    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.metrics.rates import FPRParity
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
    >>> m = FPRParity(stratum={"X": 1})
    >>> m.query(cfg)
    'P(P = 1 | Y = 0 & A = 0 & X = 1) - (P(P = 1 | Y = 0 & A = 1 & X = 1))'
    >>> m.label(cfg)
    'fpr_parity (A: 0 vs 1; X = 1)'
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    formula: ClassVar[str] = ""

    #: Whether the metric is the rate of one group (``group=``) rather than a comparison of groups (``groups=``).
    compares_one_group: ClassVar[bool] = False
    #: Whether the metric is never negative (a share of units, a largest absolute gap): its sign says nothing.
    nonnegative: ClassVar[bool] = False

    def __init__(self, *, group: Any = None, groups: tuple[Any, Any] | str | None = None, outcome: str | None = None,
                 stratum: Mapping[str, Any] | None = None, standardize: str | Sequence[str] | None = None) -> None:
        self._check_group_options(group, groups)
        # the defaults (group 0, groups (0, 1)) are only unambiguous for a two-valued attribute
        self.implicit_group, self.implicit_groups = group is None, groups is None
        group = 0 if group is None else group
        groups = (0, 1) if groups is None else groups
        self.group = _value(group, "group")
        self.labels: list[Any] | None = None  # the attribute's labels in code order, once bound to a table
        self.categories: dict[str, list[Any]] = {}  # labels of other nodes (strata), once bound
        self.stratum = _stratum(stratum)
        self.standardize = _standardize(standardize)
        both = sorted(set(self.stratum) & set(self.standardize))
        if both:
            raise ConfigError(f"{both} is both a stratum and standardised over; a node is either fixed "
                              f"(stratum={{{both[0]!r}: value}}) or averaged over (standardize={both[0]!r}).")
        if outcome is not None and (not isinstance(outcome, str) or not outcome.strip()):
            raise ConfigError(f"outcome must be a node name such as 'Y' or 'Y(T=1)'; got {outcome!r}.")
        self.outcome = outcome
        if isinstance(groups, str):
            if groups == REST:
                raise ConfigError("groups='rest' needs the group compared with the rest: groups=(group, 'rest'), "
                                  "e.g. groups=('African-American', 'rest'); or groups='each_vs_rest' for every "
                                  "group against its rest.")
            if groups not in ("all", EACH_VS_REST):
                raise ConfigError(f"groups must be a pair of attribute labels or codes, or 'all'; got {groups!r}. "
                                  "Use 'each_vs_rest' to compare every group with the rest.")
            self.groups: tuple[Any, Any] | str = groups
        else:
            if not isinstance(groups, (tuple, list)) or len(groups) != 2:
                raise ConfigError(f"groups must be a pair of attribute labels or codes, e.g. groups=(0, 1) or "
                                  f"groups=('African-American', 'Caucasian'), or 'all' or 'each_vs_rest'; got "
                                  f"{groups!r}.")
            if _is_rest(groups[0]) and _is_rest(groups[1]):
                raise ConfigError("groups=('rest', 'rest') compares the rest with itself; name one group and the "
                                  "rest, e.g. groups=('African-American', 'rest').")
            a, b = (_value(groups[0], "groups"), _value(groups[1], "groups"))
            if _same(a, b):
                raise ConfigError(f"groups must name two different attribute values; got {groups!r}.")
            self.groups = (a, b)

    def _check_group_options(self, group: Any, groups: Any) -> None:
        """Refuse ``groups=`` for a one-group rate and ``group=`` for a comparison (it would be ignored)."""
        name = getattr(self, "name", type(self).__name__)
        if self.compares_one_group and groups is not None:
            raise ConfigError(f"{name} is the rate of one group: pass group=... (--group), not groups={groups!r} "
                              f"(--groups). For the difference between two groups use {name}_parity.")
        if not self.compares_one_group and group is not None:
            raise ConfigError(f"{name} compares groups: pass groups=(a, b) (--groups a,b), 'all' or (a, 'rest'), "
                              f"not group={group!r} (--group), which it would ignore.")

    def _check_explicit(self, config: BiasConfig) -> None:
        """With three or more groups the default groups (codes 0 and 1) would be an arbitrary choice: refuse it."""
        k = config.cardinality(config.attribute_node)
        implicit = self.implicit_group if self.compares_one_group else self.implicit_groups
        if k <= 2 or not implicit:
            return
        labels = self.labels if self.labels and len(self.labels) == k else list(range(k))
        shown = ", ".join(map(repr, labels[:8])) + (", ..." if k > 8 else "")
        name = getattr(self, "name", type(self).__name__)
        if self.compares_one_group:
            raise ConfigError(f"The attribute {config.attribute_node} has {k} groups ({shown}); say whose {name} to "
                              f"bound: group={labels[0]!r} (--group {labels[0]!s}).")
        raise ConfigError(f"The attribute {config.attribute_node} has {k} groups ({shown}); {name} compares two, "
                          f"and fairprobe will not pick them for you. Pass groups=({labels[0]!r}, {labels[-1]!r}) "
                          f"(--groups '{labels[0]!s},{labels[-1]!s}'), groups='all' (largest gap over all pairs), "
                          f"groups=({labels[0]!r}, 'rest') or groups='each_vs_rest'.")

    def bind(self, labels: list[Any] | None, categories: Mapping[str, Sequence[Any]] | None = None) -> Metric:
        """A copy whose groups (and strata) are codes of a table.

        Parameters
        ----------
        labels : list or None
            The attribute's labels in code order (``table.categories["A"]``).
        categories : dict, optional
            Labels of other nodes in code order (``table.categories``): stratum values given by
            label become codes. Binding a bound metric again with the same labels changes nothing.

        Raises
        ------
        ConfigError
            A group or stratum value that is neither one of the labels nor a valid code.

        Returns
        -------
        Metric
            A shallow copy with codes in place of labels; ``self`` is unchanged.

        Examples
        --------
        >>> from fairprobe.metrics.rates import FPRParity
        >>> m = FPRParity(groups=("b", "rest"), stratum={"X": "high"})
        >>> bound = m.bind(["a", "b", "c"], categories={"X": ["low", "high"]})
        >>> bound.groups, bound.stratum, m.groups
        ((1, 'rest'), {'X': 1}, ('b', 'rest'))
        """
        labels = list(labels) if labels else None
        out = copy.copy(self)
        new = {k: list(v) for k, v in (categories or {}).items() if v is not None and len(v)}
        out.categories = {**self.categories, **new}
        out.stratum = {node: value if node not in new or new[node] == self.categories.get(node)  # bound already
                       else out._stratum_code(node, value, new[node]) for node, value in self.stratum.items()}
        if self.labels is not None and labels == self.labels:
            return out  # groups are codes already (a numeric label could be mistaken for one)
        out.labels = labels
        # only the option the metric uses, and only when given: a default is a code (0, or (0, 1)),
        # never a label (an attribute recorded as 1/2 would otherwise read the default as label 1)
        if self.compares_one_group and not self.implicit_group:
            out.group = out._to_code(self.group, "group")
        if not self.compares_one_group and not self.implicit_groups and not isinstance(self.groups, str):
            out.groups = (out._group_code(self.groups[0]), out._group_code(self.groups[1]))
            if out.groups[0] == out.groups[1]:
                raise ConfigError(f"groups {self.groups!r} name the same group twice; choose two different groups.")
        return out

    def _group_code(self, value: Any) -> Any:
        """A group's code; ``"rest"`` stays, unless the attribute has a group labelled "rest"."""
        if _is_rest(value) and not any(_same(label, value) for label in self.labels or []):
            return REST
        return self._to_code(value, "groups")

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

    @staticmethod
    def _stratum_code(node: str, value: Any, labels: list[Any] | None) -> Any:
        """A stratum value as a code of ``node`` with ``labels`` (unchanged when they are not known)."""
        if not labels:
            return value
        for code, label in enumerate(labels):
            if isinstance(value, bool):  # True/False match only True/False labels
                if isinstance(label, (bool, np.bool_)) and bool(label) == value:
                    return code
            elif _same(label, value):
                return code
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(labels):
            return value
        shown = labels if len(labels) <= 20 else [*labels[:20], "..."]
        raise ConfigError(f"stratum value {node} = {value!r} is not in the data; {node} takes the values {shown} "
                          f"(or their codes 0..{len(labels) - 1}).")

    def query(self, config: BiasConfig) -> str:
        """The metric as a query string for ``config``'s node roles.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Returns
        -------
        str
            A query in the constraint grammar, e.g. ``"P(P = 1 | Y = 0 & A = 0) - (...)"``.

        Raises
        ------
        ConfigError
            In the base class: a subclass defines either this or :meth:`max_abs_terms`.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.metrics.rates import FPRParity
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
        >>> FPRParity().query(cfg)
        'P(P = 1 | Y = 0 & A = 0) - (P(P = 1 | Y = 0 & A = 1))'
        """
        raise ConfigError(f"{type(self).__name__} defines neither query() nor max_abs_terms().")

    def max_abs_terms(self, config: BiasConfig) -> list[str] | None:
        """Terms ``q_i`` when the metric is ``max_i |q_i|``; ``None`` for an ordinary query.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Returns
        -------
        list of str or None
            The terms whose largest absolute value is the metric.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.metrics.rates import FPRParity
        >>> cfg3 = BiasConfig(dag_str="A->P, A->Y", constraints=[], cardinalities={"A": 3})
        >>> for term in FPRParity(groups="all").max_abs_terms(cfg3):
        ...     print(term)
        P(P = 1 | Y = 0 & A = 0) - (P(P = 1 | Y = 0 & A = 1))
        P(P = 1 | Y = 0 & A = 0) - (P(P = 1 | Y = 0 & A = 2))
        P(P = 1 | Y = 0 & A = 1) - (P(P = 1 | Y = 0 & A = 2))
        >>> FPRParity().max_abs_terms(cfg3) is None  # an ordinary query
        True
        """
        return None

    def max_abs_families(self, config: BiasConfig) -> list[list[str]] | None:
        """Rates whose ranges make up the metric, when it is ``max_f (max_a q_a - min_b q_b)``.

        A max-abs metric whose terms are all pairwise gaps ``q_a - q_b`` of some families of rates
        (the largest FPR gap over all pairs: one family, the FPR of each group) may list the
        families; the driver then bounds it from the rates' own ranges and solves only the pairs
        that can still decide the upper bound. ``None``: bound the terms one by one.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Returns
        -------
        list of list of str or None
            Each family's rates, one query string per group.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.metrics.rates import FPRParity
        >>> cfg3 = BiasConfig(dag_str="A->P, A->Y", constraints=[], cardinalities={"A": 3})
        >>> FPRParity(groups="all").max_abs_families(cfg3)
        [['P(P = 1 | Y = 0 & A = 0)', 'P(P = 1 | Y = 0 & A = 1)', 'P(P = 1 | Y = 0 & A = 2)']]
        """
        return None

    def pairs(self, config: BiasConfig) -> list[tuple[Group, Group]]:
        """Attribute pairs compared, as codes (one pair, all pairs for ``groups="all"``, every group
        and its rest for ``groups="each_vs_rest"``).

        ``"rest"`` becomes the other value of a two-valued attribute, and :class:`Rest` (the event
        ``A != a``) with three or more values.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Raises
        ------
        ConfigError
            A group that is not a code of the attribute.

        Returns
        -------
        list of (group, group)
            Pairs of codes or :class:`Rest`.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.metrics.rates import FPRParity
        >>> cfg3 = BiasConfig(dag_str="A->P, A->Y", constraints=[], cardinalities={"A": 3})
        >>> FPRParity(groups="all").pairs(cfg3)
        [(0, 1), (0, 2), (1, 2)]
        >>> FPRParity(groups=(1, "rest")).pairs(cfg3)
        [(1, Rest(of=1))]
        """
        self._check_explicit(config)
        k = config.cardinality(config.attribute_node)
        if self.groups == "all":
            return list(combinations(range(k), 2))
        if self.groups == EACH_VS_REST:
            return [(0, 1)] if k == 2 else [(a, Rest(a)) for a in range(k)]
        if any(_is_rest(g) for g in self.groups):
            rest_first = _is_rest(self.groups[0])
            other = self.groups[1] if rest_first else self.groups[0]
            self.check_group(config, other)
            rest: Group = 1 - other if k == 2 else Rest(other)
            return [(rest, other)] if rest_first else [(other, rest)]
        for g in self.groups:
            self.check_group(config, g)
        return [self.groups]

    def conditions(self, config: BiasConfig) -> tuple[dict[str, int], tuple[str, ...]]:
        """The stratum as codes and the nodes standardised over, checked against ``config``.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Raises
        ------
        ConfigError
            A node that is not an observed-side node of the DAG, a node the metric already uses
            (the attribute, the prediction, the outcome), or a stratum value that is not a code.

        Returns
        -------
        given : dict of str to int
            Stratum node -> code.
        standardize : tuple of str
            Nodes the rates are standardised over.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.metrics.rates import FPRParity
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
        >>> FPRParity(stratum={"X": 1}).conditions(cfg)
        ({'X': 1}, ())
        >>> FPRParity(standardize="X").conditions(cfg)
        ({}, ('X',))
        """
        if not self.stratum and not self.standardize:
            return {}, ()
        nodes = [n for n in config.dag.nodes if n not in config.unob]
        roles = {config.attribute_node: "the attribute", config.prediction_node: "the prediction",
                 self.outcome_of(config).split("(")[0].strip(): "the outcome"}
        for node, what in [*[(n, "stratum") for n in self.stratum], *[(n, "standardize") for n in self.standardize]]:
            if node not in nodes:
                covariates = [n for n in nodes if n not in roles] or ["(none: add a covariate node such as X)"]
                raise ConfigError(f"{what} names {node!r}, which is not a node of the bias's DAG; covariates of "
                                  f"this bias: {covariates}. Use a DAG node (e.g. X) and map it to a data column "
                                  "(ObservedTable.from_frame(..., X='priors_bin')).")
            if node in roles:
                raise ConfigError(f"{what} names {node!r}, {roles[node]} of the metric; strata and standardisation "
                                  "are over covariates (compare groups with groups=...).")
        given: dict[str, int] = {}
        for node, value in self.stratum.items():
            k = config.cardinality(node)
            if isinstance(value, bool):
                value = int(value)
            if not isinstance(value, int):
                raise ConfigError(
                    f"stratum value {node} = {value!r} is a label; give its code (table.categories[{node!r}] "
                    f"lists the labels in code order) or bind the labels: metric.bind(table.categories[attribute], "
                    "categories=table.categories).")
            if not 0 <= value < k:
                raise ConfigError(f"stratum value {node} = {value} is not a value of {node} (codes 0..{k - 1}); use "
                                  f"one of the data's values of {node}.")
            given[node] = value
        return given, self.standardize

    def condition_text(self) -> str:
        """The stratum and standardisation as shown in labels, e.g. ``"; X = 2"`` (empty without).

        Returns
        -------
        str
            ``"; X = high; standardized over Z"`` style suffix for labels.

        Examples
        --------
        >>> from fairprobe.metrics.rates import FPRParity
        >>> FPRParity(stratum={"X": 1}, standardize="Z").condition_text()
        '; X = 1; standardized over Z'
        >>> FPRParity().condition_text()
        ''
        """
        parts = [f"{node} = {self.value_name(node, value)}" for node, value in self.stratum.items()]
        if self.standardize:
            parts.append(f"standardized over {', '.join(self.standardize)}")
        return "".join(f"; {p}" for p in parts)

    def value_name(self, node: str, value: Any) -> str:
        """How a stratum value is shown: its label when bound to the table's categories, else as given.

        Parameters
        ----------
        node : str
            The stratum node.
        value : object
            Its value (a code once bound).

        Returns
        -------
        str
            The label of code ``value`` when known, else ``str(value)``.

        Examples
        --------
        >>> from fairprobe.metrics.rates import FPRParity
        >>> m = FPRParity(stratum={"X": 1}).bind(None, categories={"X": ["low", "high"]})
        >>> m.value_name("X", 1), m.value_name("Z", 1)
        ('high', '1')
        """
        labels = self.categories.get(node)
        if labels and isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(labels):
            return str(labels[value])
        return str(value)

    @staticmethod
    def check_group(config: BiasConfig, g: Any) -> None:
        """Raise when ``g`` is not a code of the attribute.

        Parameters
        ----------
        config : BiasConfig
            The bias (the attribute's cardinality).
        g : object
            The group to check.

        Returns
        -------
        None

        Raises
        ------
        ConfigError
            ``g`` is a label (not bound yet) or outside ``0 .. k - 1``.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.exceptions import ConfigError
        >>> from fairprobe.metrics.base import Metric
        >>> cfg = BiasConfig(dag_str="A->P, A->Y", constraints=[])
        >>> Metric.check_group(cfg, 1)
        >>> try:
        ...     Metric.check_group(cfg, 2)
        ... except ConfigError as err:
        ...     print(str(err).split(";")[0])
        Group 2 is not a value of the attribute A (values 0..1)
        """
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
        """How a group is shown: its label when the data have labels, else its code (``"rest"`` for a :class:`Rest`).

        Parameters
        ----------
        code : int or Rest
            A group code.

        Returns
        -------
        str
            The group's label, its code, or ``"rest"``.

        Examples
        --------
        >>> from fairprobe.metrics.base import Rest
        >>> from fairprobe.metrics.rates import FPRParity
        >>> m = FPRParity(groups=("a", "b")).bind(["a", "b"])
        >>> m.group_name(1), m.group_name(Rest(0)), FPRParity().group_name(1)
        ('b', 'rest', '1')
        """
        if isinstance(code, Rest):
            return REST
        if self.labels and isinstance(code, int) and 0 <= code < len(self.labels):
            return str(self.labels[code])
        return str(code)

    def pair_name(self, pair: tuple[Any, Any]) -> str:
        """``"first vs second"`` with labels.

        Parameters
        ----------
        pair : (group, group)
            Two group codes (or :class:`Rest`).

        Returns
        -------
        str
            ``"<label of first> vs <label of second>"``.

        Examples
        --------
        >>> from fairprobe.metrics.rates import FPRParity
        >>> FPRParity().bind(["women", "men"]).pair_name((0, 1))
        'women vs men'
        """
        return f"{self.group_name(pair[0])} vs {self.group_name(pair[1])}"

    def label(self, config: BiasConfig) -> str:
        """Readable label, e.g. ``fpr_parity (A: African-American vs Caucasian; X = 2)``.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Returns
        -------
        str
            Metric name, attribute, compared groups and conditions.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> from fairprobe.metrics.rates import FPRParity
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
        >>> FPRParity(groups="all", stratum={"X": 1}).label(cfg)
        'fpr_parity (A: max over pairs; X = 1)'
        >>> FPRParity().bind(["women", "men"]).label(cfg)
        'fpr_parity (A: women vs men)'
        """
        if self.groups == "all":
            return f"{self.name} ({config.attribute_node}: max over pairs{self.condition_text()})"
        if self.groups == EACH_VS_REST:
            return f"{self.name} ({config.attribute_node}: each vs rest{self.condition_text()})"
        return f"{self.name} ({config.attribute_node}: {self.pair_name(self.groups)}{self.condition_text()})"

    def get_params(self) -> dict[str, Any]:
        """Options of this instance.

        Returns
        -------
        dict
            ``group``, ``groups``, ``outcome``, ``stratum`` and ``standardize``, as passed to the
            constructor.

        Examples
        --------
        >>> from fairprobe.metrics.rates import FPRParity
        >>> FPRParity(stratum={"X": 1}).get_params()
        {'group': None, 'groups': None, 'outcome': None, 'stratum': {'X': 1}, 'standardize': None}
        >>> FPRParity(groups=("a", "b")).get_params()["groups"]
        ('a', 'b')
        """
        # None for an option the metric does not use or that was left at its default, so that
        # type(m)(**m.get_params()) rebuilds the metric
        group = None if self.implicit_group or not self.compares_one_group else self.group
        groups = None if self.implicit_groups or self.compares_one_group else self.groups
        return {"group": group, "groups": groups, "outcome": self.outcome, "stratum": dict(self.stratum),
                "standardize": self.standardize or None}

    def outcome_of(self, config: BiasConfig) -> str:
        """The outcome this metric is about (its own ``outcome`` or the bias's).

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles (attribute, outcome, prediction) and cardinalities.

        Returns
        -------
        str
            A node name, possibly counterfactual (``"Y(T=1)"``).

        Examples
        --------
        >>> from fairprobe.biases.builtin import EcpBias
        >>> from fairprobe.metrics.rates import FPRParity
        >>> ecp = EcpBias().config()
        >>> FPRParity().outcome_of(ecp), FPRParity(outcome="Y").outcome_of(ecp)
        ('Y(T=1)', 'Y')
        """
        return self.outcome or config.outcome_node

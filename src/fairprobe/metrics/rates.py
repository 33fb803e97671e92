"""Group rates and their parity differences.

With attribute ``A``, target outcome ``Y`` (the config's ``outcome_node``; for ECP the
counterfactual ``Y(T=1)``, which makes every metric below its counterfactual version) and
prediction ``P``:

=====================  ===========================================
``fpr``                FPR_a = P(P = 1 | Y = 0, A = a)
``fnr``                FNR_a = P(P = 0 | Y = 1, A = a)
``tpr``                TPR_a = P(P = 1 | Y = 1, A = a)
``tnr``                TNR_a = P(P = 0 | Y = 0, A = a)
``ppv``                PPV_a = P(Y = 1 | P = 1, A = a)
``npv``                NPV_a = P(Y = 0 | P = 0, A = a)
``selection_rate``     P(P = 1 | A = a)
``accuracy``           P(P = Y | A = a)
=====================  ===========================================

A parity metric is ``rate(a0) - rate(a1)`` for ``groups=(a0, a1)`` (default ``(0, 1)`` for a
two-valued attribute; with three or more groups ``groups=`` must be given):
``fpr_parity``, ``fnr_parity``, ``tpr_parity``, ``tnr_parity``, ``ppv_parity`` (positive predictive
parity), ``npv_parity``, ``demographic_parity`` (the selection-rate difference) and
``accuracy_parity``. With ``groups="all"`` it is the largest absolute gap over all pairs of
attribute values. ``equalized_odds`` is ``max(|FPR_a0 - FPR_a1|, |FNR_a0 - FNR_a1|)``.

Audit options (every rate and parity metric, and ``equalized_odds``), with covariate ``X``:

* ``groups=(a, "rest")``: group ``a`` against everyone else, e.g. FPR_a - P(P = 1 | Y = 0, A != a)
  (the query's ``A != a`` is the union of the other groups).
* ``groups="each_vs_rest"``: the largest absolute gap ``max_a |rate(a) - rate(A != a)|``.
* ``stratum={"X": x}``: every rate within the stratum, e.g. FPR_a = P(P = 1 | Y = 0, A = a, X = x).
* ``standardize="X"``: direct standardisation, rate_a^std = sum_x P(X = x) rate(a | X = x); with a
  stratum as well the weights are P(X = x | stratum).

Note NPV conditions on the *prediction* ``P = 0`` (``P(Y = 0 | P = 0)``), and FNR on the
*outcome* ``Y = 1`` (``P(P = 0 | Y = 1)``); the seed paper's appendix misprints both (NPP as
``P(Y = 1 | P = 0)``, FNR parity with the roles of ``P`` and ``Y`` swapped).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import ClassVar

from fairprobe.core.config import BiasConfig
from fairprobe.metrics.base import EACH_VS_REST, Group, Metric, Rest

__all__ = [
    "FNR",
    "FPR",
    "NPV",
    "PPV",
    "TNR",
    "TPR",
    "AccuracyParity",
    "AccuracyRate",
    "DemographicParity",
    "EqualizedOdds",
    "FNRParity",
    "FPRParity",
    "NPVParity",
    "PPVParity",
    "SelectionRate",
    "TNRParity",
    "TPRParity",
]


def _event(atoms: Mapping[str, int]) -> str:
    return " & ".join(f"{node} = {value}" for node, value in atoms.items())


def rate_query(kind: str, config: BiasConfig, a: Group, outcome: str | None = None, *,
               given: Mapping[str, int] | None = None, standardize: Sequence[str] = ()) -> str:
    """Query string of a group rate (``kind`` one of fpr, fnr, ... accuracy) for group ``a``.

    Parameters
    ----------
    kind, config, a, outcome
        The rate, the bias (node roles and cardinalities), the group (a code, or :class:`Rest`
        for everyone but a group: ``A != a`` in the query) and the outcome node (default: the
        bias's ``outcome_node``).
    given : dict, optional
        Stratum: node -> code added to the rate's conditioning event, e.g. ``{"X": 2}``.
    standardize : sequence of str
        Nodes the rate is directly standardised over: ``sum_x P(X = x | given) * rate(a | given, X = x)``.

    Returns
    -------
    str
        The rate in the constraint grammar.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
    >>> from fairprobe.metrics.base import Rest
    >>> from fairprobe.metrics.rates import rate_query
    >>> rate_query("fpr", cfg, 0)
    'P(P = 1 | Y = 0 & A = 0)'
    >>> rate_query("fpr", cfg, Rest(0), given={"X": 1})
    'P(P = 1 | Y = 0 & A != 0 & X = 1)'
    >>> rate_query("selection_rate", cfg, 0, standardize=["X"])
    'P(X = 0) * (P(P = 1 | A = 0 & X = 0)) + P(X = 1) * (P(P = 1 | A = 0 & X = 1))'
    """
    given = dict(given or {})
    if standardize:
        terms = []
        for cell in product(*(range(config.cardinality(node)) for node in standardize)):
            at = dict(zip(standardize, cell, strict=True))
            weight = f"P({_event(at)} | {_event(given)})" if given else f"P({_event(at)})"
            terms.append(f"{weight} * ({rate_query(kind, config, a, outcome, given={**given, **at})})")
        return " + ".join(terms)
    y, p, attr = outcome or config.outcome_node, config.prediction_node, config.attribute_node
    group = f"{attr} != {a.of}" if isinstance(a, Rest) else f"{attr} = {a}"
    if given:
        group = f"{group} & {_event(given)}"
    if kind == "accuracy":
        return f"P({p} = 0 & {y} = 0 | {group}) + P({p} = 1 & {y} = 1 | {group})"
    event, cond = {
        "fpr": (f"{p} = 1", f"{y} = 0"),
        "fnr": (f"{p} = 0", f"{y} = 1"),
        "tpr": (f"{p} = 1", f"{y} = 1"),
        "tnr": (f"{p} = 0", f"{y} = 0"),
        "ppv": (f"{y} = 1", f"{p} = 1"),
        "npv": (f"{y} = 0", f"{p} = 0"),
        "selection_rate": (f"{p} = 1", None),
    }[kind]
    return f"P({event} | {cond} & {group})" if cond else f"P({event} | {group})"


def gap_query(kind: str, config: BiasConfig, a0: Group, a1: Group, outcome: str | None = None, *,
              given: Mapping[str, int] | None = None, standardize: Sequence[str] = ()) -> str:
    """``rate(a0) - rate(a1)`` as a query string (options as in :func:`rate_query`).

    Parameters
    ----------
    kind : str
        The rate: ``"fpr"``, ``"fnr"``, ``"tpr"``, ``"tnr"``, ``"ppv"``, ``"npv"``,
        ``"selection_rate"`` or ``"accuracy"``.
    config : BiasConfig
        The bias (node roles and cardinalities).
    a0, a1 : int or Rest
        The two groups compared.
    outcome : str, optional
        The outcome node (default: the bias's ``outcome_node``).
    given : dict, optional
        Stratum: node -> code.
    standardize : sequence of str
        Nodes the rates are directly standardised over.

    Returns
    -------
    str
        The difference of the two rates in the constraint grammar.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
    >>> from fairprobe.metrics.rates import gap_query
    >>> gap_query("tpr", cfg, 0, 1)
    'P(P = 1 | Y = 1 & A = 0) - (P(P = 1 | Y = 1 & A = 1))'
    """
    one = rate_query(kind, config, a0, outcome, given=given, standardize=standardize)
    return f"{one} - ({rate_query(kind, config, a1, outcome, given=given, standardize=standardize)})"


def metric_rate(metric: Metric, config: BiasConfig, a: Group, kind: str) -> str:
    """The ``kind`` rate of group ``a`` with ``metric``'s outcome, stratum and standardisation.

    Parameters
    ----------
    metric : Metric
        Supplies the outcome, the stratum and the nodes standardised over.
    config : BiasConfig
        The bias (node roles and cardinalities).
    a : int or Rest
        The group.
    kind : str
        The rate (``"fpr"``, ``"fnr"``, ...; see :func:`rate_query`).

    Returns
    -------
    str
        The rate in the constraint grammar.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
    >>> from fairprobe.metrics.rates import FPRParity, metric_rate
    >>> metric_rate(FPRParity(stratum={"X": 1}), cfg, 0, "fnr")
    'P(P = 0 | Y = 1 & A = 0 & X = 1)'
    """
    given, standardize = metric.conditions(config)
    return rate_query(kind, config, a, metric.outcome, given=given, standardize=standardize)


class _GroupRate(Metric):
    kind: ClassVar[str] = ""
    compares_one_group: ClassVar[bool] = True

    def query(self, config: BiasConfig) -> str:
        """``rate(group)`` as a query string."""
        self._check_explicit(config)
        self.check_group(config, self.group)
        return self.rate(config, self.group)

    def rate(self, config: BiasConfig, a: int) -> str:
        """The rate of group ``a`` with this metric's outcome, stratum and standardisation."""
        return metric_rate(self, config, a, self.kind)

    def label(self, config: BiasConfig) -> str:
        """E.g. ``fpr (A = 0)``, ``fpr (A = 0; X = 2)``."""
        return f"{self.name} ({config.attribute_node} = {self.group_name(self.group)}{self.condition_text()})"


class _Parity(Metric):
    kind: ClassVar[str] = ""

    def rate(self, config: BiasConfig, a: Group) -> str:
        """The rate of group ``a`` (a code or :class:`Rest`) with this metric's outcome, stratum and standardisation."""
        return metric_rate(self, config, a, self.kind)

    def query(self, config: BiasConfig) -> str:
        """``rate(a0) - rate(a1)`` as a query string."""
        a0, a1 = self.pairs(config)[0]  # "all" and "each_vs_rest" go through max_abs_terms instead
        return f"{self.rate(config, a0)} - ({self.rate(config, a1)})"

    def max_abs_terms(self, config: BiasConfig) -> list[str] | None:
        """All pairwise gaps for ``groups="all"``, every group against its rest for ``"each_vs_rest"``;
        otherwise an ordinary query."""
        if self.groups not in ("all", EACH_VS_REST):
            return None
        return [f"{self.rate(config, a0)} - ({self.rate(config, a1)})" for a0, a1 in self.pairs(config)]

    def max_abs_families(self, config: BiasConfig) -> list[list[str]] | None:
        """One family for ``groups="all"``: the rate of every group (the terms are all their pairs).

        ``None`` otherwise; the terms of ``"each_vs_rest"`` are not all pairs of one family.
        """
        if self.groups != "all":
            return None
        return [[self.rate(config, a) for a in _groups_in(self.pairs(config))]]


def _groups_in(pairs: list[tuple[Group, Group]]) -> list[Group]:
    """The groups of some pairs, codes first and then rests, each once."""
    groups = {g for pair in pairs for g in pair}
    return sorted(groups, key=lambda g: (isinstance(g, Rest), g.of if isinstance(g, Rest) else g))


def _make(kind: str, doc: str, rate_name: str, parity_name: str) -> tuple[type, type]:
    rate = type(rate_name, (_GroupRate,),
                {"name": kind, "kind": kind, "description": doc, "__doc__": f"Group rate: {doc}.",
                 "__module__": __name__})
    parity = type(parity_name, (_Parity,),
                  {"name": f"{kind}_parity", "kind": kind, "description": f"difference of {doc} between groups",
                   "__doc__": f"Parity: difference of {doc} between two groups.", "__module__": __name__})
    return rate, parity


FPR, FPRParity = _make("fpr", "false-positive rate P(P=1 | Y=0, A=a)", "FPR", "FPRParity")
FNR, FNRParity = _make("fnr", "false-negative rate P(P=0 | Y=1, A=a)", "FNR", "FNRParity")
TPR, TPRParity = _make("tpr", "true-positive rate P(P=1 | Y=1, A=a)", "TPR", "TPRParity")
TNR, TNRParity = _make("tnr", "true-negative rate P(P=0 | Y=0, A=a)", "TNR", "TNRParity")
PPV, PPVParity = _make("ppv", "positive predictive value P(Y=1 | P=1, A=a)", "PPV", "PPVParity")
NPV, NPVParity = _make("npv", "negative predictive value P(Y=0 | P=0, A=a)", "NPV", "NPVParity")
SelectionRate, DemographicParity = _make("selection_rate", "selection rate P(P=1 | A=a)", "SelectionRate",
                                         "DemographicParity")
DemographicParity.name = "demographic_parity"
AccuracyRate, AccuracyParity = _make("accuracy", "accuracy P(P=Y | A=a)", "AccuracyRate", "AccuracyParity")


class EqualizedOdds(Metric):
    """Equalised odds: ``max(|FPR_a0 - FPR_a1|, |FNR_a0 - FNR_a1|)`` (0 = equalised odds hold).

    Bounded sharply: the upper bound is the largest of the separate bounds of the two absolute
    gaps (exact, because the sup of a max is the max of the sups); the lower bound solves one
    joint program ``min t`` s.t. ``t >= |FPR gap|`` and ``t >= |FNR gap|`` on the same model, which
    is higher than what separate FPR and FNR bounds imply whenever the two gaps cannot vanish
    together. With ``groups="all"`` the gaps of every pair of groups enter the max, with
    ``groups="each_vs_rest"`` those of every group against its rest.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
    >>> from fairprobe.metrics.rates import EqualizedOdds
    >>> for term in EqualizedOdds().max_abs_terms(cfg):
    ...     print(term)
    P(P = 1 | Y = 0 & A = 0) - (P(P = 1 | Y = 0 & A = 1))
    P(P = 0 | Y = 1 & A = 0) - (P(P = 0 | Y = 1 & A = 1))
    """

    name = "equalized_odds"
    description = "max of the absolute FPR and FNR differences between groups"

    def max_abs_terms(self, config: BiasConfig) -> list[str]:
        """FPR and FNR gaps for each compared pair.

        Parameters
        ----------
        config : BiasConfig
            The bias (node roles and cardinalities).

        Returns
        -------
        list of str
            The FPR gap and the FNR gap of each pair, in that order.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
        >>> from fairprobe.metrics.rates import EqualizedOdds
        >>> len(EqualizedOdds().max_abs_terms(cfg))
        2
        """
        return [f"{metric_rate(self, config, a0, kind)} - ({metric_rate(self, config, a1, kind)})"
                for a0, a1 in self.pairs(config) for kind in ("fpr", "fnr")]

    def max_abs_families(self, config: BiasConfig) -> list[list[str]] | None:
        """Two families: the FPR and the FNR of every compared group (``None`` for ``"each_vs_rest"``,
        whose terms are not all pairs of the groups and rests).

        Parameters
        ----------
        config : BiasConfig
            The bias (node roles and cardinalities).

        Returns
        -------
        list of list of str or None
            The FPR of each group, then the FNR of each group.

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, X->P, X->Y", constraints=[])  # binary A, P, Y, X
        >>> from fairprobe.metrics.rates import EqualizedOdds
        >>> EqualizedOdds().max_abs_families(cfg)[1]
        ['P(P = 0 | Y = 1 & A = 0)', 'P(P = 0 | Y = 1 & A = 1)']
        """
        if self.groups == EACH_VS_REST:
            return None
        groups = _groups_in(self.pairs(config))
        return [[metric_rate(self, config, a, kind) for a in groups] for kind in ("fpr", "fnr")]


BUILTIN_METRICS: tuple[type, ...] = (
    FPR, FNR, TPR, TNR, PPV, NPV, SelectionRate, AccuracyRate,
    FPRParity, FNRParity, TPRParity, TNRParity, PPVParity, NPVParity, DemographicParity, AccuracyParity,
    EqualizedOdds,
)

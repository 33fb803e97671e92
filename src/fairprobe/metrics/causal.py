"""Causal and counterfactual fairness metrics (interventions on the attribute).

With attribute ``A``, prediction ``P`` and ``groups=(a0, a1)``; ``P(A=a)`` is the prediction
had the attribute been set to ``a`` (a counterfactual of the causal model):

==========================  ===========================================================
``counterfactual_fairness``  P(P(A=a0) != P(A=a1)): share of units whose prediction would
                             change with their attribute (0 = counterfactually fair).
``total_effect``             P(P(A=a0) = 1) - P(P(A=a1) = 1): interventional difference in
                             selection rates.
``spurious_effect``          TV - TE, with TV = P(P = 1 | A = a0) - P(P = 1 | A = a1) the observed
                             disparity: the part of the disparity due to confounding of A
                             (Zhang & Bareinboim's decomposition, Exp-SE_a0 - Exp-SE_a1).
==========================  ===========================================================

``counterfactual_fairness`` involves both worlds at once and is not identified from data
even without bias; the bounds are then its sharp range over all models.

``groups=(a, "rest")`` works as for the rate metrics with a two-valued attribute; with more
groups it is refused, as is ``groups="each_vs_rest"``: an intervention sets the attribute to one
value, and "everyone else" is not one value. Strata and
standardisation (``stratum=``, ``standardize=``) are not defined for these metrics and raise a
:class:`~fairprobe.exceptions.ConfigError`.
"""

from __future__ import annotations

from itertools import product

from fairprobe.core.config import BiasConfig
from fairprobe.exceptions import ConfigError
from fairprobe.metrics.base import EACH_VS_REST, Metric, Rest

__all__ = ["CounterfactualFairness", "SpuriousEffect", "TotalEffect"]


class _Causal(Metric):
    def _pair(self, config: BiasConfig) -> tuple[str, str, int, int]:
        if self.stratum or self.standardize:
            raise ConfigError(f"{self.name} takes no stratum or standardize option (they are defined for the rate "
                              "and parity metrics, e.g. fpr_parity, equalized_odds); drop them.")
        if self.groups == EACH_VS_REST:
            raise ConfigError(f"{self.name} compares two groups and intervenes on the attribute; groups="
                              "'each_vs_rest' is for the rate metrics (fpr_parity, ...). Give groups=(a0, a1).")
        a0, a1 = self.pairs(config)[0]
        if isinstance(a0, Rest) or isinstance(a1, Rest):
            attr, k = config.attribute_node, config.cardinality(config.attribute_node)
            name = self.group_name(a1.of if isinstance(a1, Rest) else a0.of)
            raise ConfigError(f"{self.name} intervenes on {attr}, which sets it to one value; the rest of {name} is "
                              f"{k - 1} values, so groups=({name!r}, 'rest') is not an intervention. Compare two "
                              "groups (groups=(a0, a1)), or use a rate metric (fpr_parity, demographic_parity, ...) "
                              "against the rest.")
        return config.prediction_node, config.attribute_node, a0, a1


class CounterfactualFairness(_Causal):
    """Probability that the prediction changes when the attribute is switched.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, U->P, U->Y", unob=["U"], constraints=[])
    >>> from fairprobe.metrics.causal import CounterfactualFairness
    >>> CounterfactualFairness(groups=(0, 1)).query(cfg)
    'P(P(A=0) = 0 & P(A=1) = 1) + P(P(A=0) = 1 & P(A=1) = 0)'
    """

    nonnegative = True  # a share of units: at least 0, its sign says nothing
    name = "counterfactual_fairness"
    description = "P(P(A=a0) != P(A=a1)), share of units whose prediction depends on their attribute"

    def query(self, config: BiasConfig) -> str:
        """Sum over unequal prediction pairs of the joint counterfactual probability.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles and cardinalities.

        Returns
        -------
        str
            The query in the constraint grammar (counterfactual terms ``P(A=a)``).

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, U->P, U->Y", unob=["U"], constraints=[])
        >>> from fairprobe.metrics.causal import CounterfactualFairness
        >>> CounterfactualFairness().query(cfg)
        'P(P(A=0) = 0 & P(A=1) = 1) + P(P(A=0) = 1 & P(A=1) = 0)'
        """
        p, a, a0, a1 = self._pair(config)
        k = config.cardinality(p)
        terms = [f"P({p}({a}={a0}) = {v} & {p}({a}={a1}) = {w})" for v, w in product(range(k), repeat=2) if v != w]
        return " + ".join(terms)


class TotalEffect(_Causal):
    """Interventional difference of selection rates.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, U->P, U->Y", unob=["U"], constraints=[])
    >>> from fairprobe.metrics.causal import TotalEffect
    >>> TotalEffect(groups=(0, 1)).query(cfg)
    'P(P(A=0) = 1) - P(P(A=1) = 1)'
    """

    name = "total_effect"
    description = "P(P(A=a0) = 1) - P(P(A=a1) = 1)"

    def query(self, config: BiasConfig) -> str:
        """Difference of the two interventional selection rates.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles and cardinalities.

        Returns
        -------
        str
            The query in the constraint grammar (counterfactual terms ``P(A=a)``).

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, U->P, U->Y", unob=["U"], constraints=[])
        >>> from fairprobe.metrics.causal import TotalEffect
        >>> TotalEffect().query(cfg)
        'P(P(A=0) = 1) - P(P(A=1) = 1)'
        """
        p, a, a0, a1 = self._pair(config)
        return f"P({p}({a}={a0}) = 1) - P({p}({a}={a1}) = 1)"


class SpuriousEffect(_Causal):
    """Observed disparity minus total effect (the confounded part of the disparity).

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig(dag_str="A->P, A->Y, U->P, U->Y", unob=["U"], constraints=[])
    >>> from fairprobe.metrics.causal import SpuriousEffect
    >>> SpuriousEffect(groups=(0, 1)).query(cfg)
    'P(P = 1 | A = 0) - P(P(A=0) = 1) - P(P = 1 | A = 1) + P(P(A=1) = 1)'
    """

    name = "spurious_effect"
    description = "TV - TE: the part of the observed selection-rate disparity not caused by A"

    def query(self, config: BiasConfig) -> str:
        """``[P(P=1|A=a0) - P(P(A=a0)=1)] - [P(P=1|A=a1) - P(P(A=a1)=1)]``.

        Parameters
        ----------
        config : BiasConfig
            The bias: node roles and cardinalities.

        Returns
        -------
        str
            The query in the constraint grammar (counterfactual terms ``P(A=a)``).

        Examples
        --------
        >>> from fairprobe.core.config import BiasConfig
        >>> cfg = BiasConfig(dag_str="A->P, A->Y, U->P, U->Y", unob=["U"], constraints=[])
        >>> from fairprobe.metrics.causal import SpuriousEffect
        >>> SpuriousEffect().query(cfg)
        'P(P = 1 | A = 0) - P(P(A=0) = 1) - P(P = 1 | A = 1) + P(P(A=1) = 1)'
        """
        p, a, a0, a1 = self._pair(config)
        return (f"P({p} = 1 | {a} = {a0}) - P({p}({a}={a0}) = 1) - P({p} = 1 | {a} = {a1}) "
                f"+ P({p}({a}={a1}) = 1)")


CAUSAL_METRICS: tuple[type, ...] = (CounterfactualFairness, TotalEffect, SpuriousEffect)

"""Built-in biases, each a packaged JSON config (see ``configs/``) with its causal story.

Every built-in uses the role names ``A`` (protected attribute, as recorded), ``Y`` (outcome as
recorded), ``P`` (prediction), so biases combine by name (``bias=["proxy_label", "selection"]``).
The sensitivity parameter ``D`` is always a probability in [0, 1]; ``D = 0`` means "no such
bias", where every built-in point-identifies the usual metrics from the table.

Adding a bias needs no code: write the JSON file (same keys as these) and pass its path as
``bias=``, or subclass :class:`~fairprobe.biases.base.JsonBias` and register the class from a
plugin's ``fairprobe_register_biases`` hook (see ``docs/plugins.md``).
"""

from __future__ import annotations

import copy
import functools

import pandas as pd

from fairprobe.biases.base import Bias, JsonBias, packaged_bias
from fairprobe.core.config import BiasConfig
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import DataError

__all__ = [
    "EcpBias",
    "EcpMonotoneBias",
    "ProxyAttributeBias",
    "ProxyLabelAndSelectionBias",
    "ProxyLabelBias",
    "ProxyLabelFalsePositivesBias",
    "ProxyLabelFalsePositivesNoEdgeBias",
    "ProxyLabelMissedPositivesBias",
    "ProxyLabelMissedPositivesNoEdgeBias",
    "SelectionBias",
    "SelectiveLabelsBias",
]


class SelectionBias(JsonBias):
    """Selection bias: the data describe only the selected units.

    DAG ``A -> Y, A -> P, A -> S, U -> {P, Y, S}, Y -> S``; the table is ``P(A, Y, P | S = 1)``
    and ``P(S = 1) >= 1 - D``. Appropriate when whether a unit enters the data (arrested,
    hired, screened) may depend on its outcome, attribute and on unmeasured factors shared with
    the prediction; ``D`` is the largest unselected share of the population considered.

    Examples
    --------
    >>> from fairprobe.biases.builtin import SelectionBias
    >>> cfg = SelectionBias().config()
    >>> cfg.constraints, cfg.cond_nodes, cfg.unob
    (['P(S = 1) >= 1 - D'], ['S'], ['U'])
    """

    name = "selection"
    description = "data observed only for selected units; P(S = 1) >= 1 - D"
    resource = "selection.json"


class ProxyLabelBias(JsonBias):
    """Proxy labels: the recorded outcome ``Y`` stands in for the true outcome ``Z``.

    DAG ``A -> {Y, P, Z}, U -> {P, Y, Z}, Z -> Y``; metrics are about ``Z``;
    ``P(Z = Y) >= 1 - D``. Appropriate when the label is a measurement of the target (re-arrest
    for re-offence, diagnosis for disease) whose errors may depend on the attribute and on
    unmeasured features; ``D`` bounds the share of mislabelled units.

    Examples
    --------
    >>> from fairprobe.biases.builtin import ProxyLabelBias
    >>> cfg = ProxyLabelBias().config()
    >>> cfg.constraints, cfg.observed_nodes
    (['P(Z = Y) >= 1 - D'], ['A', 'Y', 'P'])
    """

    name = "proxy_label"
    description = "observed label Y is a proxy of the true outcome Z; P(Z = Y) >= 1 - D"
    resource = "proxy_label.json"


class ProxyAttributeBias(JsonBias):
    """Proxy attribute: the recorded attribute ``A`` is a noisy version of the true ``B``.

    DAG ``B -> {Y, P, A}, A -> P, U -> {P, Y, A}``; metrics compare groups of the *true*
    attribute ``B``; ``P(A != B) <= D``. Appropriate when the protected attribute is inferred
    (from names, addresses) or self-reported with errors; the classifier may use ``A``.

    Examples
    --------
    >>> from fairprobe.biases.builtin import ProxyAttributeBias
    >>> cfg = ProxyAttributeBias().config()
    >>> cfg.constraints, cfg.attribute_node
    (['P(A != B) <= D'], 'B')
    """

    name = "proxy_attribute"
    description = "recorded attribute A is a proxy of the true attribute B; P(A != B) <= D"
    resource = "proxy_attribute.json"


class EcpBias(JsonBias):
    """Extra-classificatory policy: a treatment ``T`` applied after the prediction.

    DAG ``A -> {Y, P, T}, U -> {P, Y, T}, T -> Y``; the target outcome is ``Y(T=1)``, what
    would happen under the policy (e.g. everyone supervised); ``P(Y(T=1) != Y(T=0)) <= D``.
    Appropriate when the recorded outcome is shaped by an intervention (bail, treatment,
    credit limits) that differs between units. Metrics under this bias are *counterfactual*:
    ``fpr`` is ``P(P = 1 | Y(T=1) = 0, A = a)``.

    Parameters
    ----------
    monotone : bool
        Also assume the policy never lowers the outcome, ``Y(T=1) >= Y(T=0)``.
    observed_policy : bool
        The table records the policy ``T`` (columns A, Y, P, T); the program then uses it and
        a table without ``T`` is an error.

    Examples
    --------
    >>> from fairprobe.biases.builtin import EcpBias
    >>> EcpBias().config().constraints
    ['P(Y(T=1) != Y(T=0)) <= D']
    >>> len(EcpBias(monotone=True).config().constraints)
    2
    >>> cfg = EcpBias(observed_policy=True).config()
    >>> cfg.name, cfg.observed_nodes
    ('ecp_observed_policy', ['A', 'Y', 'P', 'T'])
    """

    name = "ecp"
    description = "a policy T changes outcomes; target Y(T=1); P(Y(T=1) != Y(T=0)) <= D"
    resource = "ecp.json"

    def __init__(self, *, monotone: bool = False, observed_policy: bool = False) -> None:
        self.monotone = bool(monotone)
        self.observed_policy = bool(observed_policy)

    def config(self) -> BiasConfig:
        """The ECP config with the chosen options.

        Returns
        -------
        BiasConfig
            The packaged ECP config (its monotone variant when ``monotone``), with ``T`` observed
            when ``observed_policy``.

        Examples
        --------
        >>> from fairprobe.biases.builtin import EcpBias
        >>> EcpBias(monotone=True).config().constraints[1]
        'P(Y(T=1)=0&Y(T=0)=1) == 0'
        """
        resource = "ecp_monotone.json" if self.monotone else self.resource  # (a subclass may name its own)
        return copy.deepcopy(_ecp_config(resource, self.observed_policy))  # the caller's own copy


@functools.cache
def _ecp_config(resource: str, observed_policy: bool) -> BiasConfig:
    # the packaged config as every built-in bias reads it (parsed once per process); the observed-policy
    # variant built from it once (fp.bound resolves the bias at every call)
    config = packaged_bias(resource)
    if not observed_policy:
        return config
    data = config.to_dict()
    data["observed_nodes"] = ["A", "Y", "P", "T"]
    data["name"] = data["name"] + "_observed_policy"
    return BiasConfig.from_dict(data)


class EcpMonotoneBias(JsonBias):
    """ECP with a monotone policy effect, ``Y(T=1) >= Y(T=0)`` (see :class:`EcpBias`).

    Examples
    --------
    >>> from fairprobe.biases.builtin import EcpMonotoneBias
    >>> cfg = EcpMonotoneBias().config()
    >>> cfg.constraints
    ['P(Y(T=1) != Y(T=0)) <= D', 'P(Y(T=1)=0&Y(T=0)=1) == 0']
    """

    name = "ecp_monotone"
    description = "ECP where the policy never lowers the outcome; P(Y(T=1) != Y(T=0)) <= D"
    resource = "ecp_monotone.json"


class ProxyLabelAndSelectionBias(JsonBias):
    """Proxy labels observed only for selected units, one budget ``D`` for both.

    Four chained latent confounders (``U``: P-Z, ``V``: P-Y, ``Q``: Y-S, ``W``: Z-S). To give
    each bias its own parameter use ``bias=["proxy_label", "selection"]`` instead.

    Examples
    --------
    >>> from fairprobe.biases.builtin import ProxyLabelAndSelectionBias
    >>> cfg = ProxyLabelAndSelectionBias().config()
    >>> cfg.constraints, cfg.unob
    (['P(Z = Y) >= 1 - D', 'P(S = 1) >= 1 - D'], ['U', 'V', 'Q', 'W'])
    """

    name = "proxy_label_and_selection"
    description = "proxy label and selection together, one budget D"
    resource = "proxy_label_and_selection.json"


class SelectiveLabelsBias(JsonBias):
    """Selective labels: the outcome is recorded only for selected units, missing not at random.

    DAG ``A -> {P, S, Y, O}, U -> {P, S, Y, O}, P -> S, {S, Y} -> O`` (``A -> O`` is exact: the
    constraints pin ``O = S * Y``; it lets the engine slice by group): ``S`` is the decision that
    reveals the outcome (loan granted, defendant released), ``O`` the recorded outcome
    (``Y`` where ``S = 1``, else 0, enforced by two equality constraints). Within each group the
    outcome rate of the unlabelled differs from that of the labelled by at most ``D``:
    ``|P(Y = 1 | S = 0, A = a) - P(Y = 1 | S = 1, A = a)| <= D``; ``D = 0`` is "missing at
    random within groups". Build the table with :meth:`table`.

    Examples
    --------
    >>> from fairprobe.biases.builtin import SelectiveLabelsBias
    >>> cfg = SelectiveLabelsBias().config()
    >>> cfg.observed_nodes, cfg.parameters
    (['A', 'P', 'S', 'O'], ['D'])
    """

    name = "selective_labels"
    description = "outcome recorded only where S = 1; unlabelled outcome rate within D of labelled, per group"
    resource = "selective_labels.json"

    @staticmethod
    def table(df: pd.DataFrame, *, A: str = "A", P: str = "P", S: str = "S", Y: str = "Y") -> ObservedTable:
        """Observed table (A, P, S, O) from unit rows whose outcome is missing where ``S = 0``.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per unit; the outcome column may be missing (NaN) where ``S = 0``.
        A, P, S, Y : str
            Column names of the attribute, prediction, selection decision and outcome.

        Returns
        -------
        ObservedTable
            Empirical law of ``(A, P, S, O)`` with ``O = Y`` where ``S = 1`` and 0 elsewhere.

        Raises
        ------
        DataError
            A column is missing, or the outcome is missing for a selected row.

        Examples
        --------
        >>> import pandas as pd
        >>> from fairprobe.biases.builtin import SelectiveLabelsBias
        >>> rows = pd.DataFrame({"A": [0, 0, 1, 1], "P": [1, 0, 1, 0], "S": [1, 0, 1, 1],
        ...                      "Y": [1, None, 0, 1]})
        >>> table = SelectiveLabelsBias.table(rows)
        >>> table.cells.columns.tolist()
        ['A', 'P', 'S', 'O', 'prob']
        >>> len(table.cells)
        4
        """
        for col in (A, P, S, Y):
            if col not in df.columns:
                raise DataError(f"Column {col!r} is not in the data; available: {list(df.columns)}.")
        selected = df[S].astype(int) == 1
        if df.loc[selected, Y].isna().any():
            raise DataError(f"Outcome {Y!r} is missing for selected rows ({S} = 1); drop or impute them.")
        frame = pd.DataFrame({"A": df[A], "P": df[P], "S": df[S].astype(int),
                              "O": df[Y].where(selected, 0).astype(int)})
        return ObservedTable.from_frame(frame)


def _proxy_variant(class_name: str, name: str, doc: str) -> type:
    return type(class_name, (JsonBias,), {
        "name": name, "resource": f"{name}.json", "__doc__": doc, "__module__": __name__,
        "description": doc.splitlines()[0].rstrip("."),
    })


_MISSED = ("one-sided proxy error: P(Y = 1 | Z = 0) = 0, the proxy Y never reports a positive "
           "that the true outcome Z lacks")
_FALSE = "one-sided proxy error: P(Y = 0 | Z = 1) = 0, the proxy Y never misses a true positive"
ProxyLabelMissedPositivesBias = _proxy_variant(
    "ProxyLabelMissedPositivesBias", "proxy_label_missed_positives",
    f"Proxy label with {_MISSED}; P(Y != Z) <= D.\n\nFogliato et al. (2020)'s setting (recorded "
    "re-arrest implies re-offence). The proxy error may depend on the latent features (X -> Y_P).")
ProxyLabelMissedPositivesNoEdgeBias = _proxy_variant(
    "ProxyLabelMissedPositivesNoEdgeBias", "proxy_label_missed_positives_no_edge",
    f"Proxy label with {_MISSED}, error independent of the features; P(Y != Z) <= D.\n\n"
    "No X -> Y_P edge: the proxy depends only on (Z, A); then FNR is point-identified.")
ProxyLabelFalsePositivesBias = _proxy_variant(
    "ProxyLabelFalsePositivesBias", "proxy_label_false_positives",
    f"Proxy label with {_FALSE}; P(Y != Z) <= D.\n\nThe mirror image of Fogliato et al.'s "
    "assumption; the proxy error may depend on the latent features.")
ProxyLabelFalsePositivesNoEdgeBias = _proxy_variant(
    "ProxyLabelFalsePositivesNoEdgeBias", "proxy_label_false_positives_no_edge",
    f"Proxy label with {_FALSE}, error independent of the features; P(Y != Z) <= D.\n\n"
    "No X -> Y_P edge: the proxy depends only on (Z, A).")

BUILTIN_BIASES: tuple[type[Bias], ...] = (
    SelectionBias, ProxyLabelBias, ProxyAttributeBias, EcpBias, EcpMonotoneBias, ProxyLabelAndSelectionBias,
    SelectiveLabelsBias, ProxyLabelMissedPositivesBias, ProxyLabelMissedPositivesNoEdgeBias,
    ProxyLabelFalsePositivesBias, ProxyLabelFalsePositivesNoEdgeBias,
)

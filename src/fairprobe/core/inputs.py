"""Input resolution of the causal drivers: the bias, the metric, the data and the sensitivity values."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.core.config import BiasConfig
from fairprobe.core.query import query_in_codes, show_value
from fairprobe.core.registry import registered
from fairprobe.core.table import ObservedTable
from fairprobe.core.validate import check_codes
from fairprobe.exceptions import ConfigError, DataError, UnknownPluginError

__all__ = ["MetricSpec", "as_table", "declare_unmeasured", "fit_cardinalities", "labelled_event", "metric_kind",
           "resolve_bias", "resolve_metric", "resolve_parameters", "unmeasured_names"]


@dataclass(frozen=True)
class MetricSpec:
    """A resolved metric: its label and its query (or, for max-abs metrics, its terms).

    Parameters
    ----------
    label : str
        Readable name of the metric, used in reports.
    queries : tuple of str
        The query (one) or, for a max-abs metric, the terms whose largest absolute value is bounded.
    max_abs : bool, optional
        Whether the metric is ``max_i |queries[i]|`` (default False).
    families : tuple of tuple of str, optional
        For max-abs metrics that are ranges of rates: the rate queries of each family.
    kind : str, optional
        "rate", "nonnegative" or "disparity" (see :func:`metric_kind`).

    Examples
    --------
    >>> spec = MetricSpec("fpr (A = 0)", ("P(P = 1 | Y = 0 & A = 0)",))
    >>> spec.max_abs, spec.query
    (False, 'P(P = 1 | Y = 0 & A = 0)')
    """

    label: str
    queries: tuple[str, ...]
    max_abs: bool = False
    families: tuple[tuple[str, ...], ...] = ()
    kind: str = "disparity"

    @property
    def query(self) -> str:
        """The single query of an ordinary metric (``queries[0]``).

        Returns
        -------
        str

        Examples
        --------
        >>> MetricSpec("selection rate", ("P(P = 1 | A = 0)",)).query
        'P(P = 1 | A = 0)'
        """
        return self.queries[0]


def resolve_bias(bias: Any) -> BiasConfig:
    """A BiasConfig from a config, dict, JSON path/string, Bias instance, registered name, or a list.

    Parameters
    ----------
    bias : BiasConfig, dict, str, path, Bias or list
        A config; a config dict (or ``{"combine": [...], "outcome": ...}``); a JSON file or JSON text;
        an object with a ``config()`` method; a registered bias name; or a list of any of these, combined
        with one sensitivity parameter per bias (:func:`fairprobe.core.combine.combine_biases`).

    Returns
    -------
    BiasConfig

    Raises
    ------
    UnknownPluginError
        ``bias`` is a name no bias is registered under.
    ConfigError
        ``bias`` cannot be read as a bias (an empty list, an unsupported type, a bad config).

    Examples
    --------
    >>> config = resolve_bias("proxy_label")
    >>> config.name, config.parameters, config.constraints
    ('proxy_label', ['D'], ['P(Z = Y) >= 1 - D'])
    >>> resolve_bias(["proxy_label", "selection"]).parameters
    ['D_proxy_label', 'D_selection']
    >>> resolve_bias(config.to_dict()).outcome_node
    'Z'
    """
    if isinstance(bias, BiasConfig):
        return bias
    if isinstance(bias, Mapping) and "combine" in bias:
        return _combined(bias)
    if isinstance(bias, Mapping):
        return BiasConfig.from_dict(bias)
    if isinstance(bias, (list, tuple)):
        from fairprobe.core.combine import combine_biases

        if not bias:
            raise ConfigError("The list of biases is empty; give at least one bias name.")
        if len(bias) == 1:
            return resolve_bias(bias[0])
        return combine_biases([resolve_bias(b) for b in bias])
    if hasattr(bias, "config") and callable(bias.config):
        return bias.config()
    if isinstance(bias, Path) or (isinstance(bias, str) and (bias.endswith(".json") or bias.lstrip().startswith("{"))):
        data = BiasConfig.read_json(bias)  # read once: a config or a combination of biases
        return _combined(data) if isinstance(data, Mapping) and "combine" in data else BiasConfig.from_dict(data)
    if isinstance(bias, str):
        biases = registered("biases")
        if bias not in biases:
            raise UnknownPluginError(f"Unknown bias {bias!r}; registered biases: {sorted(biases)}.")
        return biases[bias]().config()
    raise ConfigError(f"Cannot use {type(bias).__name__} as a bias; give a name, a BiasConfig or a JSON path.")


def _combined(spec: Mapping[str, Any]) -> BiasConfig:
    """``{"combine": [bias, ...], "outcome": node, ...}``: several biases with chosen role nodes."""
    from fairprobe.core.combine import combine_biases

    extra = sorted(set(spec) - {"combine", "attribute", "outcome", "prediction"})
    if extra:
        raise ConfigError(f"A combination of biases takes the keys 'combine', 'attribute', 'outcome' and "
                          f"'prediction'; drop {extra}.")
    members = spec["combine"]
    if not isinstance(members, (list, tuple)) or len(members) < 2:
        raise ConfigError(f"'combine' needs a list of at least two biases; got {members!r}.")
    return combine_biases([resolve_bias(b) for b in members], attribute=spec.get("attribute"),
                          outcome=spec.get("outcome"), prediction=spec.get("prediction"))


def _node_labels(config: BiasConfig, table: ObservedTable, node: str) -> list[Any] | None:
    """Labels of ``node`` (or of the recorded node it follows) in code order; None if unknown."""
    labels = table.categories.get(config.recorded_node(node, table.categories))
    return list(labels) if labels else None


def _attribute_labels(config: BiasConfig, table: ObservedTable) -> list[Any]:
    """The attribute's labels in code order (codes when the data have none)."""
    return _node_labels(config, table, config.attribute_node) or list(
        range(config.cardinality(config.attribute_node)))


_ATOM = re.compile(r"\b([A-Za-z_]\w*)\s*(!=|=)\s*(\d+)\b")


def labelled_event(event: str, config: BiasConfig, table: ObservedTable) -> str:
    """``event`` with codes of labelled nodes written as their labels (``A = 1`` -> ``A = Asian``).

    Parameters
    ----------
    event : str
        Atoms ``node = code`` (or ``!=``) joined by ``&``.
    config : BiasConfig
    table : ObservedTable

    Returns
    -------
    str

    Examples
    --------
    >>> t = ObservedTable.from_frame(pd.DataFrame({"A": ["x", "y"], "Y": [0, 1], "P": [1, 0]}))
    >>> labelled_event("Y = 0 & A = 1", resolve_bias("proxy_label"), t)
    'Y = 0 & A = y'
    """

    def label(match: re.Match[str]) -> str:
        node, op, code = match.group(1), match.group(2), int(match.group(3))
        base = node.split("(")[0]
        return f"{node} {op} {show_value(code, _node_labels(config, table, base))}"
    return _ATOM.sub(label, event)


def metric_kind(metric: Any, *, max_abs: bool = False) -> str:
    """``"rate"``, ``"nonnegative"`` or ``"disparity"`` for a resolved metric.

    Parameters
    ----------
    metric : str or Metric
        A query string or a metric instance.
    max_abs : bool
        The metric is a largest absolute value (never negative).

    Returns
    -------
    str

    Examples
    --------
    >>> metric_kind("P(P = 1 | A = 0)"), metric_kind("P(P = 1 | A = 0) - P(P = 1 | A = 1)")
    ('rate', 'disparity')
    """
    if max_abs:
        return "nonnegative"
    if isinstance(metric, str):
        return "rate" if metric.replace(" ", "").count("P(") == 1 else "disparity"
    if getattr(metric, "compares_one_group", False):
        return "rate"
    return "nonnegative" if getattr(metric, "nonnegative", False) else "disparity"


def resolve_metric(metric: Any, config: BiasConfig, table: ObservedTable | None = None) -> MetricSpec:
    """A :class:`MetricSpec` from a registered name, a Metric instance or a query string.

    Parameters
    ----------
    metric : str or Metric
        Registered metric name, configured metric (e.g. ``fp.metric("fpr", group=1)``) or a query
        string containing ``P(``.
    config : BiasConfig
        The bias; it names the attribute, outcome and prediction nodes the metric refers to.
    table : ObservedTable, optional
        The data; with it, groups given by label become the table's codes.

    Returns
    -------
    MetricSpec

    Raises
    ------
    UnknownPluginError
        ``metric`` is a name no metric is registered under.
    ConfigError
        ``metric`` is a class instead of an instance, or not a metric at all.

    Examples
    --------
    >>> import fairprobe as fp
    >>> config = resolve_bias("proxy_label")
    >>> resolve_metric("fpr", config)
    MetricSpec(label='fpr (A = 0)', queries=('P(P = 1 | Z = 0 & A = 0)',), max_abs=False, families=(), kind='rate')
    >>> resolve_metric(fp.metric("fpr", group=1), config).query
    'P(P = 1 | Z = 0 & A = 1)'
    >>> resolve_metric("P(P = 1 | A = 0)", config).label
    'P(P = 1 | A = 0)'
    """
    if isinstance(metric, type):
        raise ConfigError(f"Give a metric instance, not the class {metric.__name__}: e.g. {metric.__name__}() "
                          "or fp.metric('fpr_parity', groups=(0, 1)).")
    # a query, or text that tries to be one ("P@(Y = 0 | ...)"): parsed, so a typo gets the parser's message
    metrics = registered("metrics") if isinstance(metric, str) else {}
    looks_like_query = isinstance(metric, str) and (
        "P(" in metric.replace(" ", "") or any(ch in metric for ch in "()|=<>"))
    if looks_like_query and metric not in metrics:  # a plugin's name may hold any character
        if table is None:
            return MetricSpec(metric, (metric,), kind=metric_kind(metric))
        # values are labels, as in fp.metric(group=...); the label shown names every labelled value
        labels = {node: _node_labels(config, table, node) for node in config.dag.nodes}
        codes, shown = query_in_codes(metric, {k: v for k, v in labels.items() if v})
        return MetricSpec(shown, (codes,), kind=metric_kind(metric))
    if isinstance(metric, str):
        if metric not in metrics:
            raise UnknownPluginError(
                f"Unknown metric {metric!r}; registered metrics: {sorted(metrics)}, or give a query "
                "string such as 'P(P = 1 | Y = 0 & A = 0)'."
            )
        metric = metrics[metric]()
    if table is not None and hasattr(metric, "bind"):  # groups given by label become the table's codes
        metric = metric.bind(_attribute_labels(config, table), categories=table.categories)  # strata by label too
    terms = metric.max_abs_terms(config) if hasattr(metric, "max_abs_terms") else None
    if terms is not None:
        if not terms:
            raise ConfigError(f"Metric {metric!r} has no terms for this bias.")
        families = metric.max_abs_families(config) if hasattr(metric, "max_abs_families") else None
        return MetricSpec(metric.label(config), tuple(terms), max_abs=True,
                          families=tuple(tuple(f) for f in families or ()), kind="nonnegative")
    if hasattr(metric, "query"):
        return MetricSpec(metric.label(config), (metric.query(config),), kind=metric_kind(metric))
    raise ConfigError(f"Cannot use {type(metric).__name__} as a metric; give a registered name ('fpr_parity'), "
                      "fp.metric('fnr', group=1), or a query string such as 'P(P = 1 | Y = 0 & A = 0)'.")


def resolve_parameters(config: BiasConfig, D: Any, extra: Mapping[str, float]) -> dict[str, float]:
    """Sensitivity values by name from ``D`` (a number or a dict) and keyword values.

    Parameters
    ----------
    config : BiasConfig
        The bias whose parameters are named.
    D : float, dict or None
        The value of the bias's single free parameter, or values by name.
    extra : mapping of str to float
        Values given by keyword (e.g. ``D_selection=0.1``).

    Returns
    -------
    dict of str to float

    Raises
    ------
    ConfigError
        An unknown parameter, a number ``D`` for a bias with several free parameters, or a value
        out of range.

    Examples
    --------
    >>> resolve_parameters(resolve_bias("proxy_label"), 0.05, {})
    {'D': 0.05}
    >>> both = resolve_bias(["proxy_label", "selection"])
    >>> resolve_parameters(both, {"D_proxy_label": 0.05}, {"D_selection": 0.1})
    {'D_selection': 0.1, 'D_proxy_label': 0.05}
    """
    params: dict[str, float] = {str(k): float(v) for k, v in extra.items()}
    unknown = sorted(set(params) - set(config.parameters))
    if unknown:
        raise ConfigError(f"Unknown sensitivity parameter(s) {unknown}; this bias has {config.parameters}.")
    if isinstance(D, Mapping):
        unknown = sorted(str(k) for k in D if str(k) not in config.parameters)
        if unknown:
            raise ConfigError(f"D names unknown sensitivity parameter(s) {unknown}; this bias has "
                              f"{config.parameters} (a combined bias names one per bias, e.g. "
                              f"D={{{', '.join(repr(p) + ': 0.05' for p in config.parameters)}}}).")
        params.update({str(k): float(v) for k, v in D.items()})
    elif D is not None:
        free = [p for p in config.parameters if p not in params]
        if len(free) != 1:
            raise ConfigError(
                f"The bias has parameters {config.parameters}; pass D as a dict, e.g. "
                f"D={{{', '.join(repr(p) + ': 0.05' for p in config.parameters)}}} (command line: "
                f"{' '.join('--param ' + p + '=0.05' for p in config.parameters)} instead of --D)."
            )
        params[free[0]] = float(D)
    config.check_parameter_values(params)
    return params


def as_table(data: Any, config: BiasConfig) -> ObservedTable:
    """An ObservedTable for ``config`` from a table or a data frame.

    Parameters
    ----------
    data : ObservedTable or pandas.DataFrame
        A table, a frame of cell probabilities (with a ``prob`` column) or a frame of rows.
    config : BiasConfig
        The bias the table is for.

    Returns
    -------
    ObservedTable
        Observed only where the config's conditioning nodes it lacks hold (``given={"S": 1}``).

    Raises
    ------
    DataError
        ``data`` is neither a table nor a data frame.

    Examples
    --------
    >>> from fairprobe.datasets import load_paper_table
    >>> table = as_table(load_paper_table(), resolve_bias("selection"))
    >>> table.nodes, table.given
    (['A', 'Y', 'P'], {'S': 1})
    """
    if isinstance(data, pd.DataFrame):
        data = ObservedTable.from_probabilities(data) if "prob" in data.columns else ObservedTable.from_frame(data)
    if not isinstance(data, ObservedTable):
        raise DataError(f"data must be an ObservedTable or a pandas DataFrame; got {type(data).__name__}. Build "
                        "one with ObservedTable.from_frame(df, A='race', Y='label', P='pred') or pass the frame.")
    missing = {c: 1 for c in config.cond_nodes if c not in data.given and c not in data.nodes}
    if missing:
        data = data._with_given({**data.given, **missing})
    return data


def unmeasured_names(unmeasured: Any) -> list[str]:
    """The node names of an ``unmeasured=`` argument (a list, or one comma-separated string).

    Parameters
    ----------
    unmeasured : list of str, str or None

    Returns
    -------
    list of str
        Empty for None, ``[]`` or ``""``.

    Raises
    ------
    ConfigError
        Anything but node names.

    Examples
    --------
    >>> unmeasured_names("Z, Y"), unmeasured_names([]), unmeasured_names(None)
    (['Z', 'Y'], [], [])
    """
    if unmeasured is None:
        return []
    if isinstance(unmeasured, str):
        return [n.strip() for n in unmeasured.split(",") if n.strip()]
    if isinstance(unmeasured, (list, tuple, set, frozenset)) and all(isinstance(n, str) for n in unmeasured):
        return [n.strip() for n in unmeasured if n.strip()]
    raise ConfigError(f"unmeasured must be a list of node names (e.g. ['Z']); got {unmeasured!r}.")


def declare_unmeasured(config: BiasConfig, unmeasured: Any) -> BiasConfig:
    """``config`` with the nodes ``unmeasured`` declared unmeasured (no column in the table).

    An unmeasured node stays a variable of the model, unlike a latent ``unob`` node, which is
    projected out; the config's ``observed_nodes`` then lists the measured nodes.

    Parameters
    ----------
    config : BiasConfig
    unmeasured : list of str, str or None
        Node names, or one comma-separated string; None (or an empty list) changes nothing.

    Returns
    -------
    BiasConfig
        ``config`` itself when nothing is declared, else a new config with ``observed_nodes`` set.

    Raises
    ------
    ConfigError
        A name that is not a node, is latent, is conditioned on, or leaves no measured node.

    Examples
    --------
    >>> config = resolve_bias("selection")
    >>> declare_unmeasured(config, ["Y"]).observed_nodes
    ['A', 'P']
    >>> declare_unmeasured(config, None) is config
    True
    """
    if unmeasured is None:
        return config
    names = unmeasured_names(unmeasured)
    if not names:
        return config
    dag = config.dag
    for node in names:
        if node not in dag.nodes:
            raise ConfigError(f"unmeasured names {node!r}, which is not a node of the bias DAG {dag.nodes}; "
                              "fix the name (nodes are case-sensitive).")
        if node in dag.unobserved:
            raise ConfigError(f"unmeasured names {node!r}, which the config already declares latent (unob); "
                              "drop it from unmeasured.")
        if node in config.cond_nodes:
            raise ConfigError(f"unmeasured names {node!r}, which the data are conditioned on (cond_nodes); a "
                              "conditioning node is known to hold in every row, so drop it from unmeasured.")
    measured = config.observed_nodes or [n for n in dag.nodes if n not in dag.unobserved and n not in config.cond_nodes]
    keep = [n for n in measured if n not in names]
    if not keep:
        raise ConfigError(f"unmeasured={names} leaves no measured node; the table must have at least one "
                          "column of the bias DAG.")
    return BiasConfig.from_dict({**config.to_dict(), "observed_nodes": keep})


def fit_cardinalities(config: BiasConfig, table: ObservedTable) -> BiasConfig:
    """Widen the config's cardinalities to the table's (e.g. a three-valued attribute).

    Parameters
    ----------
    config : BiasConfig
    table : ObservedTable

    Returns
    -------
    BiasConfig
        ``config`` itself when it already fits.

    Raises
    ------
    DataError
        A code the role of its node does not allow (e.g. ``P = 2`` for a binary prediction).

    Examples
    --------
    >>> t = ObservedTable.from_frame(pd.DataFrame({"A": [0, 1, 2], "Y": [0, 1, 0], "P": [1, 0, 1]}))
    >>> fit_cardinalities(resolve_bias("proxy_label"), t).cardinality("A")
    3
    """
    check_codes(config, table)  # P = 2 in a binary role is an error, not "not 1"
    wider = {n: table.cardinality(n) for n in table.nodes
             if n in config.dag.nodes and table.cardinality(n) > config.cardinality(n)}
    if not wider:
        return config
    return BiasConfig.from_dict({**config.to_dict(), "cardinalities": {**config.cardinalities, **wider}})


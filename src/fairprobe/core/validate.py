"""Argument checks shared by the causal drivers, and the check that a table's codes fit a bias's roles.

Every check raises :class:`~fairprobe.exceptions.ConfigError` (options) or
:class:`~fairprobe.exceptions.DataError` (table codes) naming the argument, the value and a fix.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from fairprobe.exceptions import ConfigError, DataError

if TYPE_CHECKING:
    import pandas as pd

    from fairprobe.core.config import BiasConfig

__all__ = [
    "CodedTable",
    "binary_nodes",
    "check_breakdown_target",
    "check_codes",
    "check_run_options",
    "check_sweep_target",
    "sensitivity_values",
    "sweep_grid",
]

#: Smallest bisection bracket :func:`~fairprobe.breakdown` accepts (about 40 solves from [0, 1]).
MIN_TOL = 1e-12


def _real(name: str, value: Any, example: str) -> float:
    """``value`` as a finite float, or a ConfigError naming ``name``."""
    value = _plain(value)  # np.float64(nan) is shown as nan
    if isinstance(value, bool):
        raise ConfigError(f"{name} = {value!r} is a bool, not a number; give {example}.")
    if not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise ConfigError(f"{name} = {value!r} is a {kind}, not a number; give {example}.")
    try:
        out = float(value)
    except (OverflowError, ValueError):
        raise ConfigError(f"{name} = {value!r} is too large for a float; give {example}.") from None
    if not math.isfinite(out):
        raise ConfigError(f"{name} = {value!r} is not a finite number; give {example}.")
    return out


def _sensitivity_value(name: str, value: Any) -> float:
    """One sensitivity value as a finite float, or a ConfigError naming ``name``."""
    return _real(name, value, f"the sensitivity value as a number such as {name}=0.05")


def sensitivity_values(D: Any, extra: Mapping[str, Any] | None = None) -> None:
    """Check ``D`` of :func:`~fairprobe.bound` and keyword values.

    Parameters
    ----------
    D : Any
        One number, a dict of parameter name -> number, or None.
    extra : mapping of str to Any, optional
        Further sensitivity values given as keywords.

    Raises
    ------
    ConfigError
        A value that is not a finite number, a non-string key, or a list where one value is expected.

    Examples
    --------
    >>> sensitivity_values({"D_a": 0.05}, {"D_b": 0.1})
    >>> sensitivity_values([0.0, 0.1])
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: D = [0.0, 0.1] is a list; bound takes one number ...
    """
    if isinstance(D, Mapping):
        for k, v in D.items():
            if not isinstance(k, str):
                raise ConfigError(f"D has the key {k!r}; name sensitivity parameters by strings, e.g. D={{'D': 0.05}}.")
            _sensitivity_value(k, v)
    elif D is not None:
        if isinstance(D, (str, bytes)) or isinstance(D, Iterable):
            raise ConfigError(
                f"D = {D!r} is a {type(D).__name__}; bound takes one number (D=0.05) or a dict of numbers "
                "(D={'D_a': 0.05, 'D_b': 0.1}); use fairprobe.sensitivity for a list of values.")
        _sensitivity_value("D", D)
    for k, v in (extra or {}).items():
        _sensitivity_value(k, v)


def sweep_grid(D: Any) -> list[float] | dict[str, list[float]]:
    """The grid of :func:`~fairprobe.sensitivity` as a list of floats or a dict of lists (replacing ``D``).

    Parameters
    ----------
    D : Any
        An iterable of values, or a dict of parameter name -> iterable of values.

    Returns
    -------
    list of float or dict of str to list of float

    Raises
    ------
    ConfigError
        A single number, an empty list or dict, or a value that is not a finite number.

    Examples
    --------
    >>> sweep_grid(iter([0, 0.05]))
    [0.0, 0.05]
    >>> sweep_grid({"D_a": (0, 0.1)})
    {'D_a': [0.0, 0.1]}
    """
    def values(name: str, seq: Any) -> list[float]:
        if seq is None or isinstance(seq, (str, bytes, numbers.Number)) or not isinstance(seq, Iterable) \
                or isinstance(seq, Mapping):
            raise ConfigError(
                f"{name} = {seq!r} is not a list of sensitivity values; give a list such as "
                f"{name}=[0, 0.02, 0.05] (or np.linspace(0, 0.1, 11)).")
        out = [_sensitivity_value(name, v) for v in list(seq)]
        if not out:
            raise ConfigError(f"The list of values for {name} is empty; give at least one sensitivity value.")
        return out

    if isinstance(D, Mapping):
        if not D:
            raise ConfigError("D is an empty dict; give {'D_a': [values...]} with at least one parameter.")
        for k in D:
            if not isinstance(k, str):
                raise ConfigError(f"D has the key {k!r}; name sensitivity parameters by strings.")
        return {k: values(k, v) for k, v in D.items()}
    if D is None or isinstance(D, (numbers.Number, str, bytes)):
        raise ConfigError(f"Give D as a list of sensitivity values, e.g. D=np.linspace(0, 0.1, 21); got {D!r}.")
    return values("D", D)


def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
                  low_open: bool = False, optional: bool = False, hint: str = "") -> float | None:
    """A finite real parameter in the given range, or a ConfigError naming it.

    Parameters
    ----------
    name : str
        The argument's name, used in the message.
    value : Any
    low, high : float, optional
        Smallest and largest values allowed.
    low_open : bool
        Exclude ``low`` itself.
    optional : bool
        Accept ``None`` (returned as is).
    hint : str
        Text appended to the requirement in the message, e.g. ``" such as gap=0.01"``.

    Returns
    -------
    float or None

    Raises
    ------
    ConfigError
        Not a finite number, or outside the range.

    Examples
    --------
    >>> check_number("gap", -1, low=0, hint=" such as gap=0.01")
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: gap must be >= 0 such as gap=0.01; got -1.
    """
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ConfigError(f"{name} must be a finite number{hint}; got {value!r}.")
    value = float(value)
    if low is not None and (value < low or (low_open and value == low)):
        raise ConfigError(f"{name} must be {'>' if low_open else '>='} {low:g}{hint}; got {value:g}.")
    if high is not None and value > high:
        raise ConfigError(f"{name} must be <= {high:g}{hint}; got {value:g}.")
    return value


def _time_limit(time_limit: Any) -> None:
    if time_limit is None:
        return
    value = _real("time_limit", time_limit, "seconds as a positive number, e.g. time_limit=60 (None for no limit)")
    if value <= 0:
        raise ConfigError(
            f"time_limit = {time_limit!r} must be a positive number of seconds; give e.g. time_limit=60 "
            "(None for no limit).")


def _common(backend: Any, time_limit: Any, gap: Any, solver_options: Any) -> None:
    if not isinstance(backend, str) or not backend.strip():
        raise ConfigError(f"backend = {backend!r} must be a backend name such as 'scip' (see fairprobe plugins).")
    _time_limit(time_limit)
    g = _real("gap", gap, "a relative optimality gap such as gap=1e-6")
    if g < 0:
        raise ConfigError(f"gap = {gap!r} must be >= 0; give e.g. gap=1e-6.")
    if solver_options is not None and not isinstance(solver_options, Mapping):
        raise ConfigError(
            f"solver_options = {solver_options!r} must be a dict of backend parameters, e.g. "
            "{'numerics/feastol': 1e-8}.")
    if solver_options is not None:
        bad = [k for k in solver_options if not isinstance(k, str)]
        if bad:
            raise ConfigError(f"solver_options has non-string key(s) {bad}; name backend parameters by strings.")


def check_n_jobs(n_jobs: Any, allow_none: bool) -> None:
    """Refuse a worker count that is not a positive whole number or -1 (every core); None passes if ``allow_none``."""
    if n_jobs is None and allow_none:
        return
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise ConfigError(f"n_jobs = {n_jobs!r} must be a positive integer (or -1 for all cores); give e.g. n_jobs=2.")


def _flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} = {value!r} must be True or False.")


def check_run_options(*, backend: Any, time_limit: Any, gap: Any, solver_options: Any, n_jobs: Any,
                      parallel_backend: Any, progress: Any, reduce: Any) -> None:
    """Check the options the causal drivers share.

    Parameters
    ----------
    backend, time_limit, gap, solver_options, n_jobs, parallel_backend, progress, reduce
        As in :class:`~fairprobe.core.options.RunOptions` (``reduce``: a bool).

    Raises
    ------
    ConfigError
        Naming the first bad argument.

    Examples
    --------
    >>> check_run_options(backend="scip", time_limit=None, gap=1e-6, solver_options=None, n_jobs=None,
    ...                   parallel_backend=None, progress="yes", reduce=True)
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: progress = 'yes' must be True or False.
    """
    _common(backend, time_limit, gap, solver_options)
    check_n_jobs(n_jobs, allow_none=True)
    if parallel_backend is not None and not isinstance(parallel_backend, str):
        raise ConfigError(f"parallel_backend = {parallel_backend!r} must be a joblib backend name such as 'loky'.")
    _flag("progress", progress)
    _flag("reduce", reduce)


def check_sweep_target(*, parameter: Any, fixed: Mapping[str, Any]) -> None:
    """The swept (or moved) parameter and the values held fixed.

    Parameters
    ----------
    parameter : str or None
        The parameter swept.
    fixed : mapping of str to Any
        Values of the other sensitivity parameters.

    Raises
    ------
    ConfigError
        Naming the first bad argument.

    Examples
    --------
    >>> check_sweep_target(parameter=3, fixed={})
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: parameter = 3 must be the name of a sensitivity parameter, e.g. 'D'.
    """
    if parameter is not None and not isinstance(parameter, str):
        raise ConfigError(f"parameter = {parameter!r} must be the name of a sensitivity parameter, e.g. 'D'.")
    for k, v in fixed.items():
        _sensitivity_value(k, v)


def check_breakdown_target(*, threshold: Any, tolerance: Any, D_max: Any, xtol: Any) -> None:
    """What :func:`~fairprobe.breakdown` tests and how far and how finely it searches.

    Parameters
    ----------
    threshold : float or None
        Metric value the conclusion compares with.
    tolerance : float or None
        Parity tolerance.
    D_max : float or None
        Largest sensitivity value searched (> 0).
    xtol : float
        Width of the final bisection bracket (at least :data:`MIN_TOL`).

    Raises
    ------
    ConfigError
        Naming the first bad argument.

    Examples
    --------
    >>> check_breakdown_target(threshold=0.0, tolerance=None, D_max=0.5, xtol=1e-4)
    >>> check_breakdown_target(threshold=0.0, tolerance=None, D_max=0.5, xtol=0)
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: xtol = 0 must be at least 1e-12 (bisection stops at that width); ...
    """
    if threshold is not None:
        _real("threshold", threshold, "the metric value the conclusion compares with, e.g. threshold=0.0")
    if tolerance is not None:
        _real("tolerance", tolerance, "a parity tolerance such as tolerance=0.05")
    if threshold is not None and tolerance is not None:
        raise ConfigError("Give either threshold= or tolerance=, not both.")
    if tolerance is not None and tolerance < 0:
        raise ConfigError(f"tolerance must be >= 0; got {tolerance}. It is the largest |metric| that counts as "
                          "parity, e.g. tolerance=0.05.")
    if D_max is not None:
        top = _real("D_max", D_max, "the largest sensitivity value to search, e.g. D_max=0.5")
        if top <= 0:
            raise ConfigError(f"D_max = {D_max!r} must be > 0; give the largest value to search, e.g. D_max=0.5.")
    t = _real("xtol", xtol, "the width of the final bracket, e.g. xtol=1e-4")
    if not t >= MIN_TOL:
        raise ConfigError(f"xtol = {xtol!r} must be at least {MIN_TOL:g} (bisection stops at that width); "
                          "give e.g. xtol=1e-4.")


# -- codes of the table against the roles of the bias -----------------------------------------

def binary_nodes(config: BiasConfig) -> list[str]:
    """The nodes the bias's roles make binary (0/1) unless the config declares their cardinality.

    The outcome, the prediction, the conditioning nodes and every node a constraint names; not
    the attribute (nor the recorded node a latent true attribute follows) and not covariates.

    Parameters
    ----------
    config : BiasConfig

    Returns
    -------
    list of str
        In the DAG's node order.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> binary_nodes(BiasConfig.from_dict({"dag_str": "A->Y, A->P, X->P", "constraints": []}))
    ['Y', 'P']
    """
    attribute = config.attribute_node
    # the recorded counterpart of a latent true attribute (proxy_attribute's A for B) has groups too
    grouped = {attribute, *(v for k, v in config.cardinality_of.items() if k == attribute)}
    # covariates (nodes with no role and in no constraint) take as many values as the data have
    outcome = config.parse_outcome(config.outcome_node)[0]
    in_constraints = {v for c in config.parsed_constraints for v in c.variables}
    roles = {config.prediction_node, outcome, *config.cond_nodes, *in_constraints,
             *(v for k, v in config.cardinality_of.items() if k in (outcome, config.prediction_node))}
    return [n for n in config.dag.nodes if n in roles and n not in grouped and n not in config.cardinalities]


class CodedTable(Protocol):
    """What :func:`check_codes` reads of an :class:`~fairprobe.core.table.ObservedTable` (which imports this module)."""

    cells: pd.DataFrame
    categories: Mapping[str, list[Any]]
    source_columns: Mapping[str, Any]

    @property
    def nodes(self) -> list[str]:
        """Node columns, in order."""
        ...

    def unclear_labels(self, nodes: Iterable[str]) -> dict[str, list[Any]]:
        """The nodes among ``nodes`` whose labels do not say which value is 1, with their labels."""
        ...


def check_codes(config: BiasConfig, table: CodedTable) -> None:
    """Refuse values a node's role cannot take.

    The nodes of :func:`binary_nodes` must hold 0/1 codes (``P = 2`` would count as "not 1") whose
    labels say which one is 1 (not ``[1, 2]`` or ``['no', 'yes']``); other nodes take any number of values.

    Parameters
    ----------
    config : BiasConfig
        The bias, which gives the roles and declared cardinalities.
    table : CodedTable
        The coded table (an :class:`~fairprobe.core.table.ObservedTable`).

    Raises
    ------
    DataError
        Naming the column, its values and the fix (recode, or declare the cardinality).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.config import BiasConfig
    >>> from fairprobe.core.table import ObservedTable
    >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P", "constraints": []})
    >>> check_codes(cfg, ObservedTable.from_frame(pd.DataFrame({"A": [0, 1, 2], "Y": [0, 1, 1], "P": [0, 2, 1]})))
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.DataError: Column 'P' holds values [0, 1, 2] but 'P' is the prediction node, ...
    """
    binary = set(binary_nodes(config))
    for node in table.nodes:
        if node not in binary:
            continue
        labels = table.categories.get(node)
        codes = sorted(int(c) for c in table.cells[node].unique())
        shown = labels if labels is not None else codes
        role = _role(config, node)
        # two codes of a count or probability table that are no 0/1 coding (1/2) are unclear labels
        as_codes = labels is None and len(codes) <= 2 and node in table.unclear_labels([node])
        if len(shown) > 2 or (codes and codes[-1] > 1 and not as_codes):
            raise DataError(
                f"Column {node!r} holds values {_show(shown)} but {role}; recode it to 0/1 (a score: "
                f"threshold it first, e.g. df[col] = (df[col] >= 0.5).astype(int)), or declare its "
                f"cardinality with cardinalities={{'{node}': {max(len(shown), codes[-1] + 1)}}} in the bias "
                "config if it really has that many classes.")
        unclear = table.unclear_labels([node]).get(node)  # one rule: fairprobe.core.table.is_binary_coding
        if unclear is not None:
            column = table.source_columns.get(node, node)
            shown_column = repr(column) if column == node else f"{column!r} (node {node})"
            say = " or ".join(f"pos_label={_plain(v)!r}" for v in unclear[:2])
            flag = " or ".join(f"--pos-label {_plain(v)}" for v in unclear[:2])
            if labels is not None:
                declare = (f"declare cardinalities={{'{node}': {max(len(labels), 2)}}} in the bias config to accept "
                           f"the sorted coding ({', '.join(f'{_plain(v)!r} = {k}' for k, v in enumerate(labels))})")
            else:  # codes of a count or probability table stay codes
                declare = (f"declare cardinalities={{'{node}': {codes[-1] + 1}}} in the bias config if they are "
                           f"codes of a node with {codes[-1] + 1} values")
            raise DataError(
                f"Column {shown_column} holds the labels {_show(unclear)} but {role}: fairprobe cannot tell "
                f"which label means 1. Say which: {say} (pos_label= of ObservedTable.from_frame, from_counts or "
                f"from_probabilities; command line: {flag}; app: choose the positive label on the Data page), or "
                f"recode its column to 0/1 first, e.g. df[col] = (df[col] == {_plain(unclear[-1])!r}).astype(int), "
                f"or {declare}.")


def _role(config: BiasConfig, node: str) -> str:
    """Why ``node`` is binary, as a clause for messages."""
    outcome = config.parse_outcome(config.outcome_node)[0]
    if node == config.prediction_node:
        return f"{node!r} is the prediction node, which is binary (0/1)"
    if node == outcome:
        return f"{node!r} is the outcome node, which is binary (0/1)"
    if node in config.cond_nodes:
        return f"{node!r} is the selection node, which is binary (0/1)"
    return f"node {node!r} has no declared cardinality, so it is binary (0/1)"


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _show(values: list[Any], limit: int = 8) -> str:
    shown = ", ".join(repr(_plain(v)) for v in values[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"

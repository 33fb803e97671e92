"""When a figure rests on too few units to say anything: the one rule every result follows.

* **What counts** is the units behind a rate: those of its denominator, per group (FPR: the
  group's Y = 0; FNR, TPR: Y = 1; PPV: P = 1; NPV: P = 0; accuracy, selection and base rate: all
  its units; equalised odds: both FPR's and FNR's). A latent node counts the recorded node it
  stands for (``proxy_label``'s ``Z`` counts ``Y``); a table without a number of units flags nothing.
* **The threshold**: fewer than :data:`FEW_UNITS` (30) units behind a rate is too few to say. The
  figure is shown with its count and makes no claim (a causal result's verdict is ``"too_few_units"``).
* **Comparisons**: a group is called best (or worst) only when its interval overlaps no other
  group's and it has at least :data:`FEW_UNITS` units (:func:`stands_apart`).
* **Multiplicity** needs at least :data:`MIN_MODELS` models: one model has nothing to disagree with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # the rule reads compiled programs and tables; it imports none of them at run time
    from fairprobe.core.config import BiasConfig
    from fairprobe.core.table import ObservedTable

__all__ = ["FEW_UNITS", "MIN_MODELS", "cannot_tell_apart_text", "few_units", "no_multiplicity_text", "stands_apart",
           "too_few", "too_few_text", "units_behind_rates"]

#: Fewer units than this behind a rate (its denominator, per group) is too few to say anything.
FEW_UNITS = 30

#: A measure of multiplicity (ambiguity, conflict) needs at least this many models to compare.
MIN_MODELS = 2


def too_few(units: float | None) -> bool:
    """Whether ``units`` (behind one rate of one group) are too few for a claim.

    Parameters
    ----------
    units : int or None
        The number of units; None when the data do not say (a table of probabilities).

    Returns
    -------
    bool

    Examples
    --------
    >>> too_few(29), too_few(30), too_few(None)
    (True, False, False)
    """
    return units is not None and units < FEW_UNITS


def few_units(counts: Mapping[str, int | None]) -> dict[str, int]:
    """The entries of ``counts`` that are too few for a claim (:func:`too_few`), in their order.

    Parameters
    ----------
    counts : mapping of str to int or None
        Events, groups or rates and the units behind them.

    Returns
    -------
    dict of str to int

    Examples
    --------
    >>> few_units({"Y = 0 & A = s": 21, "Y = 0 & A = b": 150})
    {'Y = 0 & A = s': 21}
    """
    return {key: int(n) for key, n in counts.items() if too_few(n)}


def too_few_text(shown: str) -> str:
    """The caveat after a figure that rests on too few units: ``shown`` names the units.

    Parameters
    ----------
    shown : str
        What the figure rests on, e.g. ``"2 rows"`` or ``"c: 6 units"``.

    Returns
    -------
    str

    Examples
    --------
    >>> too_few_text("2 rows")
    'rests on 2 rows, fewer than 30: too few to say'
    """
    return f"rests on {shown}, fewer than {FEW_UNITS}: too few to say"


def stands_apart(intervals: Mapping[Any, tuple[float, float]], key: Any, units: float | None = None) -> bool:
    """Whether ``key`` can be told apart from the other groups (no overlap, enough units): only then is it best.

    Parameters
    ----------
    intervals : mapping of key to (lower, upper)
        The compared groups' intervals.
    key
        The group to test.
    units : int, optional
        The units behind its figure (a group of too few is never told apart).

    Returns
    -------
    bool
        False when there is no other group to compare with.

    Examples
    --------
    >>> stands_apart({"a": (0.0, 0.11), "b": (0.05, 0.2)}, "a")
    False
    >>> apart = {"a": (0.0, 0.04), "b": (0.05, 0.2)}
    >>> stands_apart(apart, "a"), stands_apart(apart, "a", units=12)
    (True, False)
    """
    if too_few(units):
        return False
    lower, upper = intervals[key]
    others = [iv for k, iv in intervals.items() if k != key]
    return bool(others) and all(upper < lo or lower > hi for lo, hi in others)


def cannot_tell_apart_text(groups: str) -> str:
    """Why groups are not called best or worst: their intervals overlap, or they rest on too few units.

    Parameters
    ----------
    groups : str
        The groups, e.g. ``"the 5 groups"``.

    Returns
    -------
    str

    Examples
    --------
    >>> cannot_tell_apart_text("the 2 groups")
    'the 2 groups cannot be told apart (their intervals overlap, or rest on fewer than 30 units)'
    """
    return f"{groups} cannot be told apart (their intervals overlap, or rest on fewer than {FEW_UNITS} units)"


def no_multiplicity_text(n_models: int, model: str = "model") -> str:
    """What a set of fewer than :data:`MIN_MODELS` models says: nothing about multiplicity.

    Parameters
    ----------
    n_models : int
        Models in the set.
    model : str
        What a model is called (``"tree"``).

    Returns
    -------
    str

    Examples
    --------
    >>> no_multiplicity_text(1, "tree")
    'the set holds one tree, so there is no multiplicity to measure (an ambiguity of 0 is not a finding)'
    """
    held = "one" if n_models == 1 else str(n_models)
    plural = "" if n_models == 1 else "s"
    return (f"the set holds {held} {model}{plural}, so there is no multiplicity to measure (an ambiguity of 0 is "
            "not a finding)")


def _recorded_atoms(atoms: Iterable[Any], config: BiasConfig, nodes: set[str],
                    given: Mapping[str, int]) -> list[tuple[str, int, bool]]:
    """``(node, code, negated)`` of a conditioning event's atoms on the data's (recorded, not ``given``) nodes."""
    atoms = list(atoms)
    factual = {a.var for a in atoms if not a.intervention and a.var in nodes}
    out: list[tuple[str, int, bool]] = []
    for a in atoms:
        if not isinstance(a.value, (int, np.integer)):
            continue
        var = config.recorded_node(a.var, nodes)
        if var not in nodes or var in given:
            continue
        if (var != a.var or a.intervention) and var in factual:
            continue  # the event names the recorded node itself: its own atom counts
        atom = (var, int(a.value), bool(a.negated))
        if atom not in out:
            out.append(atom)
    return out


def units_behind_rates(programs: Iterable[Any], config: BiasConfig, table: ObservedTable) -> dict[str, int]:
    """The units of the data behind each rate of compiled programs: their conditioning events, counted.

    Parameters
    ----------
    programs : iterable of CompiledProgram
        The metric's programs (their ``conditions`` are the denominators of its rates).
    config : BiasConfig
        The bias (which recorded node a latent one stands for).
    table : ObservedTable
        The data; a table without a number of units (``n``) gives no counts.

    Returns
    -------
    dict of str to int
        Each event, in the table's codes (``"Y = 0 & A = 1"``), and the units it holds.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.core.bound import resolve_bias
    >>> from fairprobe.core.compiler import compile_program
    >>> from fairprobe.core.table import ObservedTable
    >>> t = ObservedTable.from_frame(pd.DataFrame({"A": [0] * 30 + [1] * 30, "Y": [0] * 21 + [1] * 39,
    ...                                            "P": [0, 1] * 30}))
    >>> bias = resolve_bias("proxy_label")
    >>> fpr = compile_program(bias, t, "P(P = 1 | Z = 0 & A = 0)", {"D": 0.01})
    >>> units_behind_rates([fpr], bias, t)  # the true outcome Z counts the recorded label Y
    {'Y = 0 & A = 0': 21}
    """
    if not table.n:
        return {}  # a probability table: the number of units behind it is not known
    columns = table.column_arrays()
    nodes = set(table.nodes)
    out: dict[str, int] = {}
    for program in programs:
        for cond in program.conditions:
            atoms = _recorded_atoms(cond.atoms, config, nodes, table.given)
            if not atoms:
                continue
            event = " & ".join(f"{var} {'!=' if negated else '='} {value}" for var, value, negated in atoms)
            inside = np.ones(len(table.cells), dtype=bool)  # "A != a" is the rest of group a
            for var, value, negated in atoms:
                inside &= (columns[var] != value) if negated else (columns[var] == value)
            out[event] = round(float(columns["prob"][inside].sum()) * table.n)
    return out

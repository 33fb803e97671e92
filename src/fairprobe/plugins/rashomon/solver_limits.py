"""Early stopping of the exact multiplicity's flip programs, kept out of the algorithm's code.

A flip program only asks "is the optimum at most ``cap``?", so a solver may stop as soon as an
incumbent is under the cutoff or its dual bound is above it. :class:`~fairprobe.backends.base.SolveOptions`
has no generic option for that yet, so the solver's own parameter names live here, in one table:
a backend listed in :data:`OBJECTIVE_LIMIT_PARAMETERS` gets them through
``SolveOptions.solver_options``; any other backend runs to optimality (still correct, slower).
When ``SolveOptions`` gains a generic ``objective_limit`` field, :func:`objective_limit_options`
uses it for every backend and this table can go.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fairprobe.backends.base import SolveOptions

__all__ = ["OBJECTIVE_LIMIT_PARAMETERS", "objective_limit_options"]

#: Per backend: the native parameters that stop a *minimisation* once the incumbent is at most the
#: cutoff (primal) and once the dual bound reaches it (dual).
OBJECTIVE_LIMIT_PARAMETERS: dict[str, tuple[str, str]] = {"scip": ("limits/primal", "limits/dual")}


def objective_limit_options(backend: str, cutoff: float) -> dict[str, Any]:
    """Keyword arguments of :class:`~fairprobe.backends.base.SolveOptions` stopping a solve at ``cutoff``.

    Parameters
    ----------
    backend : str
        Backend name.
    cutoff : float
        Stop once an incumbent is ``<= cutoff`` or the bound is ``>= cutoff`` (minimisation).

    Returns
    -------
    dict
        ``{"objective_limit": cutoff}`` when ``SolveOptions`` has that generic field, else
        ``{"solver_options": {...}}`` with the backend's native names, else ``{}``.

    Examples
    --------
    >>> objective_limit_options("ortools", 3.5)
    {}
    >>> sorted(objective_limit_options("scip", 3.5))
    ['solver_options']
    """
    if "objective_limit" in {f.name for f in dataclasses.fields(SolveOptions)}:
        return {"objective_limit": cutoff}
    names = OBJECTIVE_LIMIT_PARAMETERS.get(backend)
    if names is None:
        return {}
    return {"solver_options": {name: cutoff for name in names}}

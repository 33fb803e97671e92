"""The options of the causal drivers, explicit and validated in one place.

Two frozen objects carry every switch, so a worker process compiles and solves exactly as the
caller asked: :class:`CompileOptions` (which exact reductions are on; it travels with the
:class:`~fairprobe.core.bound.BoundProblem`) and :class:`RunOptions` (backend, time limit, gap,
solver parameters, workers, progress), built by :func:`run_options` from the keywords that
:func:`~fairprobe.bound`, :func:`~fairprobe.sensitivity`, :func:`~fairprobe.sensitivity_grid` and
:func:`~fairprobe.breakdown` share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.exceptions import ConfigError

__all__ = ["DEFAULT_GAP", "CompileOptions", "RunOptions", "merge_fixed", "run_options"]

#: Target optimality gap per side of a bound.
DEFAULT_GAP = 1e-6


@dataclass(frozen=True)
class CompileOptions:
    """How a bias + metric + table is compiled into programs.

    Parameters
    ----------
    reduce : bool
        Apply the exact program reductions (default). ``False`` builds the naive response-function
        program and turns every switch below off.
    slicing : bool
        Build c-components slice by slice (many groups and covariate levels in linear size).
    windows : bool
        Write a maximum over all pairs of rate gaps as family windows.
    reparametrise : bool
        Rewrite one-sided measurement laws through structural zeros and reciprocals.
    rate_ranges : bool
        Bound max-over-pairs metrics from the rates' own ranges (few pair solves).
    partial_slices : bool
        Also slice by unconfounded covariates that only some members of a c-component read, glued
        by equal conditional laws across slices (exact; needs an unconditioned table).

    Examples
    --------
    >>> CompileOptions().uses("windows"), CompileOptions(reduce=False).uses("windows")
    (True, False)
    >>> CompileOptions(windows=False).windows, CompileOptions(partial_slices=False).uses("partial_slices")
    (False, False)
    """

    reduce: bool = True
    slicing: bool = True
    windows: bool = True
    reparametrise: bool = True
    rate_ranges: bool = True
    partial_slices: bool = True

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, bool):
                raise ConfigError(f"CompileOptions.{f.name} = {value!r} must be True or False.")

    def uses(self, switch: str) -> bool:
        """Whether the reduction ``switch`` is applied (it is on and ``reduce`` is on).

        Parameters
        ----------
        switch : str
            One of ``"slicing"``, ``"windows"``, ``"reparametrise"``, ``"rate_ranges"``,
            ``"partial_slices"``.

        Returns
        -------
        bool

        Examples
        --------
        >>> CompileOptions(slicing=False).uses("slicing")
        False
        """
        return self.reduce and bool(getattr(self, switch))


def _default_compile_options() -> CompileOptions:
    return CompileOptions()


@dataclass(frozen=True)
class RunOptions:
    """How every point of a causal call is solved, validated once by :func:`run_options`.

    Parameters
    ----------
    backend : str
        Backend name (``"scip"``, ``"gurobi"``, ``"ortools"``, ``"cvxpy"``, ``"auto"``).
    time_limit : float or None
        Seconds per bound (one point of a sweep, one bisection step of a breakdown), shared by all
        its solves; None: no limit.
    gap : float
        Target optimality gap per side.
    solver_options : dict
        Backend-specific parameters.
    n_jobs : int or None
        Worker processes the call may use: the two sides of a polynomial bound, or the points of
        a sweep (``None`` or ``-1``: all cores).
    parallel_backend : str or None
        joblib backend of sweeps (e.g. ``"dask"``).
    progress : bool
        Show progress (a bar in sweeps, status lines in long bounds).
    compile : CompileOptions
        How the problem is compiled.

    Examples
    --------
    >>> opts = run_options(time_limit=5)
    >>> opts.solve_kwargs()["time_limit"], opts.compile.reduce
    (5.0, True)
    """

    backend: str = "scip"
    time_limit: float | None = DEFAULT_TIME_LIMIT
    gap: float = DEFAULT_GAP
    solver_options: dict[str, Any] = field(default_factory=dict)
    n_jobs: int | None = 1
    parallel_backend: str | None = None
    progress: bool = True
    compile: CompileOptions = field(default_factory=_default_compile_options)

    def solve_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :meth:`~fairprobe.core.bound.BoundProblem.solve` for one bound.

        Returns
        -------
        dict
            Backend, time limit, gap, solver options and ``n_jobs`` ("all cores" is 2: one bound has two sides).

        Examples
        --------
        >>> sorted(run_options().solve_kwargs())
        ['backend', 'gap', 'n_jobs', 'solver_options', 'time_limit']
        """
        jobs = self.n_jobs
        return {**self.point_kwargs(), "n_jobs": 2 if jobs in (None, -1) else int(jobs)}

    def point_kwargs(self) -> dict[str, Any]:
        """The solve options of one point of a sweep (its workers are the points, so no ``n_jobs``).

        Returns
        -------
        dict

        Examples
        --------
        >>> sorted(run_options().point_kwargs())
        ['backend', 'gap', 'solver_options', 'time_limit']
        """
        return {"backend": self.backend, "time_limit": self.time_limit, "gap": self.gap,
                "solver_options": dict(self.solver_options)}


def run_options(*, backend: Any = "scip", time_limit: Any = DEFAULT_TIME_LIMIT, gap: Any = DEFAULT_GAP,
                solver_options: Any = None, n_jobs: Any = 1, parallel_backend: Any = None, progress: Any = True,
                reduce: Any = True, compile_options: Any = None, options: Any = None) -> RunOptions:
    """Validate the options the causal drivers share and bundle them.

    Parameters
    ----------
    backend, time_limit, gap, solver_options, n_jobs, parallel_backend, progress
        See :class:`RunOptions`.
    reduce : bool
        Apply the exact reductions (a shortcut for ``CompileOptions(reduce=...)``).
    compile_options : CompileOptions, optional
        Every compile switch (``reduce`` must then be left at True or agree with it).
    options : RunOptions, optional
        The whole set in one object, returned as it is; every keyword above must then be left at its default.

    Returns
    -------
    RunOptions

    Raises
    ------
    ConfigError
        Naming the first bad option and what it accepts.

    Examples
    --------
    >>> run_options(n_jobs=0)
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: n_jobs = 0 must be a positive integer (or -1 for all cores); ...
    >>> run_options(options=RunOptions(time_limit=5.0)).time_limit
    5.0
    >>> run_options(options=RunOptions(), gap=1e-3)
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: Give the run options either as options= or as keywords, not both: ...
    """
    if options is not None:
        keywords = {"backend": backend, "time_limit": time_limit, "gap": gap, "solver_options": solver_options,
                    "n_jobs": n_jobs, "parallel_backend": parallel_backend, "progress": progress, "reduce": reduce,
                    "compile_options": compile_options}
        return _whole_options(options, keywords)
    from fairprobe.core.validate import check_run_options

    check_run_options(backend=backend, time_limit=time_limit, gap=gap, solver_options=solver_options, n_jobs=n_jobs,
                      parallel_backend=parallel_backend, progress=progress, reduce=reduce)
    if compile_options is None:
        compile_options = CompileOptions(reduce=bool(reduce))
    elif not isinstance(compile_options, CompileOptions):
        raise ConfigError(f"compile_options = {compile_options!r} must be a fairprobe CompileOptions, e.g. "
                          "CompileOptions(windows=False).")
    elif not reduce and compile_options.reduce:
        compile_options = dataclasses.replace(compile_options, reduce=False)
    return RunOptions(backend=backend, time_limit=None if time_limit is None else float(time_limit),
                      gap=float(gap), solver_options=dict(solver_options or {}), n_jobs=n_jobs,
                      parallel_backend=parallel_backend, progress=bool(progress), compile=compile_options)


_KEYWORD_DEFAULTS: Mapping[str, Any] = MappingProxyType({
    "backend": "scip", "time_limit": DEFAULT_TIME_LIMIT, "gap": DEFAULT_GAP, "solver_options": None, "n_jobs": 1,
    "parallel_backend": None, "progress": True, "reduce": True, "compile_options": None})


def _whole_options(options: Any, keywords: Mapping[str, Any]) -> RunOptions:
    """``options`` itself, after checking that no keyword also sets a run option (which would be ignored)."""
    if not isinstance(options, RunOptions):
        raise ConfigError(f"options = {options!r} must be a fairprobe RunOptions, e.g. run_options(time_limit=10).")
    also = sorted(name for name, value in keywords.items() if value != _KEYWORD_DEFAULTS[name])
    if also:
        raise ConfigError(f"Give the run options either as options= or as keywords, not both: {also} given as "
                          "keywords too (put them in the RunOptions).")
    return options


def merge_fixed(fixed: Mapping[str, Any] | None, keywords: Mapping[str, Any]) -> dict[str, Any]:
    """Sensitivity values held fixed, given as ``fixed={...}`` and/or by keyword; a name given twice is an error.

    Parameters
    ----------
    fixed : mapping, optional
        Values by name.
    keywords : mapping
        Values passed as keyword arguments (``D_selection=0.02``).

    Returns
    -------
    dict

    Raises
    ------
    ConfigError
        A parameter given both ways.

    Examples
    --------
    >>> merge_fixed({"D_a": 0.1}, {"D_b": 0.2})
    {'D_a': 0.1, 'D_b': 0.2}
    """
    out = dict(fixed or {})
    twice = sorted(set(out) & set(keywords))
    if twice:
        raise ConfigError(f"Sensitivity value(s) {twice} given both in fixed= and as keywords; give each once.")
    out.update(keywords)
    return out

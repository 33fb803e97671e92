"""Low-level HiGHS runs: one LP from arrays (:func:`run_lp`) and an LP kept warm (:class:`WarmLP`).

The :class:`~fairprobe.backends.highs.HighsBackend` and the parametric searches of
:mod:`fairprobe.backends.two_ratio` both solve through these; nothing here knows about programs.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import threading
import time
from typing import Any

import numpy as np

from fairprobe.backends.base import SolveOptions
from fairprobe.exceptions import SolverError
from fairprobe.program.safe_bounds import LinearArrays

__all__ = ["FEASIBILITY_TOLERANCE", "SMALL_LP", "LPRun", "WarmLP", "run_lp"]

#: Primal and dual feasibility tolerances HiGHS runs at unless ``solver_options`` say otherwise
#: (HiGHS's defaults are 1e-7; a rate over 11 people turns a 1e-7 slack into 1e-5).
FEASIBILITY_TOLERANCE = 1e-10

#: Rows x columns up to which an LP is solved without presolve (a bound's programs: presolving them
#: costs more than solving them, 0.5 ms against 0.15 ms).
SMALL_LP = 20_000

_local = threading.local()


@contextlib.contextmanager
def _quiet_stdout():
    """Silence the C-level standard output (HiGHS prints its banner when an instance is made)."""
    try:
        fd = os.dup(1)
    except OSError:  # no standard output at all: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(fd, 1)
        os.close(fd)


def _new_instance() -> Any:
    import highspy

    with _quiet_stdout():  # HiGHS prints its banner when an instance is made
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _instance() -> Any:
    """One HiGHS instance per thread, made quietly and reused (making one costs more than a small LP)."""
    h = getattr(_local, "highs", None)
    if h is None:
        h = _local.highs = _new_instance()
    return h


#: Warm instances kept per thread for :class:`WarmLP` (a parametric search makes two or three).
_SPARE_MAX = 8


def _take_spare() -> Any:
    spares = getattr(_local, "spares", None)
    return spares.pop() if spares else _new_instance()


def _give_back(h: Any) -> None:
    spares = _local.__dict__.setdefault("spares", [])
    if len(spares) < _SPARE_MAX:
        h.clearModel()
        spares.append(h)


class _Pool:
    """The thread count of HiGHS's process-wide scheduler, once known (probed on a one-column LP)."""
    # naming the pool's size saves a third of a small LP over threads = 0; a run asking for another size
    # than the pool's fails, so the first run takes HiGHS's default and a failed run forgets the size

    threads: int | None = None
    probed = False

    @classmethod
    def value(cls) -> int | None:
        if not cls.probed:
            cls.probed = True
            cls.threads = cls._probe()
        return cls.threads

    @staticmethod
    def _probe() -> int | None:
        import highspy

        h = _new_instance()
        h.addVar(0.0, 1.0)
        if h.run() != highspy.HighsStatus.kOk:  # sizes the pool as HiGHS's default would, if nobody has
            return None
        cores = os.cpu_count() or 1
        for k in dict.fromkeys((cores, (cores + 1) // 2, 1, *range(2, cores))):
            h.setOptionValue("threads", k)
            if h.run() == highspy.HighsStatus.kOk:
                return k
        return None

    @classmethod
    def forget(cls) -> None:
        cls.threads = None


def _run(h: Any, pool_named: bool) -> None:
    """``h.run()``; a failure with the pool's size named by fairprobe (``pool_named``) is run again with the default."""
    import highspy

    if h.run() != highspy.HighsStatus.kError or not pool_named:
        return
    h.setOptionValue("threads", 0)
    h.clearSolver()
    if h.run() != highspy.HighsStatus.kError:
        _Pool.forget()


class LPRun:
    """The outcome of one HiGHS run on a minimisation: ``status`` (a short name), primal ``x``, row duals
    ``y``, ``objective``, ``dual_bound`` (MIPs), ``message`` and ``iterations``."""

    def __init__(self, status: str, x: np.ndarray | None, y: np.ndarray | None, objective: float,
                 dual_bound: float, message: str, iterations: int) -> None:
        self.status, self.x, self.y = status, x, y
        self.objective, self.dual_bound, self.message, self.iterations = objective, dual_bound, message, iterations


def _configure(h: Any, options: SolveOptions, integer: bool) -> bool:
    """Reset ``h``'s options to fairprobe's defaults and the caller's ``options``; True when the thread
    count was named from the pool's size (not by the caller)."""
    import highspy

    h.resetOptions()
    h.setOptionValue("output_flag", bool(options.verbose))
    h.setOptionValue("primal_feasibility_tolerance", FEASIBILITY_TOLERANCE)
    h.setOptionValue("dual_feasibility_tolerance", FEASIBILITY_TOLERANCE)
    h.setOptionValue("random_seed", int(options.seed))
    if integer:
        h.setOptionValue("mip_rel_gap", float(options.rel_gap))
        h.setOptionValue("mip_abs_gap", float(options.abs_gap))
        if options.node_limit is not None:
            h.setOptionValue("mip_max_nodes", int(options.node_limit))
    # not set unless asked: HiGHS sizes one thread pool per process at its first run, and a later run
    # asking for another size fails, which would break any other HiGHS user in the same process
    pool_named = False
    if options.threads is not None:
        h.setOptionValue("threads", int(options.threads))
    elif (pool := _Pool.value()) is not None and "threads" not in options.solver_options:
        h.setOptionValue("threads", pool)
        pool_named = True
    for key, value in dict(options.solver_options).items():
        if h.setOptionValue(str(key), value) != highspy.HighsStatus.kOk:
            raise SolverError(f"HiGHS does not accept the option {key!r} = {value!r}; see the HiGHS options list "
                              "(https://ergo-code.github.io/HiGHS/stable/options/definitions/).")
    return pool_named


def _set_deadline(h: Any, deadline: float | None) -> None:
    if deadline is not None:
        # HiGHS compares its time_limit with the instance's run clock, which adds up over every run of the
        # instance (clearModel does not reset it): the limit is that clock plus what this solve may take
        h.setOptionValue("time_limit", h.getRunTime() + max(deadline - time.perf_counter(), 1e-3))


def _pass_model(h: Any, arr: LinearArrays, integer: np.ndarray | None) -> None:
    import highspy

    inf = highspy.kHighsInf
    n, m = arr.n_cols, arr.n_rows
    col_lower = np.where(np.isfinite(arr.lb), arr.lb, -inf)
    col_upper = np.where(np.isfinite(arr.ub), arr.ub, inf)
    row_lower = np.where(np.isfinite(arr.row_lo), arr.row_lo, -inf)
    row_upper = np.where(np.isfinite(arr.row_hi), arr.row_hi, inf)
    kinds = np.zeros(n, dtype=np.int32) if integer is None else np.asarray(integer, dtype=bool).astype(np.int32)
    try:  # the arrays straight in: half the cost of filling a HighsLp's fields one by one
        status = h.passModel(n, m, len(arr.data), int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize),
                             float(arr.c0), np.asarray(arr.c, dtype=float), col_lower, col_upper, row_lower, row_upper,
                             np.asarray(arr.indptr, dtype=np.int32), np.asarray(arr.indices, dtype=np.int32),
                             np.asarray(arr.data, dtype=float), kinds)
        if status != highspy.HighsStatus.kError:
            return
    except TypeError:  # a highspy without that signature
        pass
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = arr.c
    lp.offset_ = arr.c0
    lp.col_lower_, lp.col_upper_ = col_lower, col_upper
    lp.row_lower_, lp.row_upper_ = row_lower, row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.start_ = arr.indptr
    lp.a_matrix_.index_ = arr.indices
    lp.a_matrix_.value_ = arr.data
    if integer is not None:
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in integer]
    h.passModel(lp)


@functools.cache
def _status_names() -> dict:
    import highspy

    S = highspy.HighsModelStatus
    return {S.kOptimal: "optimal", S.kInfeasible: "infeasible", S.kUnbounded: "unbounded",
            S.kUnboundedOrInfeasible: "unbounded_or_infeasible", S.kTimeLimit: "time",
            S.kIterationLimit: "iteration", S.kSolutionLimit: "solution", S.kModelEmpty: "empty",
            S.kInterrupt: "interrupted"}


def _read(h: Any, n: int, m: int, integer: bool) -> LPRun:
    """The outcome of the last ``h.run()``."""

    status = h.getModelStatus()
    text = h.modelStatusToString(status)
    name = _status_names().get(status, "error")
    sol = h.getSolution()
    x = np.asarray(sol.col_value, dtype=float) if sol.value_valid and len(sol.col_value) == n else None
    y = np.asarray(sol.row_dual, dtype=float) if sol.dual_valid and len(sol.row_dual) == m else None
    # single values, not the whole info record (a fifth of reading a small LP's outcome)
    dual_bound = float(_info_value(h, "mip_dual_bound", math.nan)) if integer else math.nan
    iterations = int(_info_value(h, "simplex_iteration_count", 0))
    return LPRun(name, x, y, float(h.getObjectiveValue()), dual_bound, f"HiGHS: {text}", iterations)


def _info_value(h: Any, name: str, default: float) -> float:
    """One value of HiGHS's info record (``default`` when it has none)."""
    status, value = h.getInfoValue(name)
    return value if status == _ok() else default


@functools.cache
def _ok() -> Any:
    import highspy

    return highspy.HighsStatus.kOk


def run_lp(arr: LinearArrays, integer: np.ndarray | None, options: SolveOptions, deadline: float | None) -> LPRun:
    """Minimise ``arr`` with HiGHS (rows and columns as given); a program without rows is solved on its box.

    Parameters
    ----------
    arr : LinearArrays
        The minimisation.
    integer : numpy.ndarray or None
        Integrality flags per column (None: continuous).
    options : SolveOptions
        Tolerances, seed, threads, limits and solver options.
    deadline : float or None
        ``time.perf_counter()`` value to stop at.

    Returns
    -------
    LPRun
        Status name, primal ``x``, row duals ``y``, objective and iterations.
    """
    h = _instance()
    h.clearModel()
    pool_named = _configure(h, options, integer is not None)
    _set_deadline(h, deadline)
    # (options are read first, so a bad one is an error whatever the program)
    if arr.n_cols == 0:  # every variable presolved away: the rows are constants
        feasible = bool(np.all(arr.row_lo <= 1e-12) and np.all(arr.row_hi >= -1e-12))
        return LPRun("optimal" if feasible else "infeasible", np.zeros(0), np.zeros(arr.n_rows), arr.c0, arr.c0,
                    "no variables", 0)
    if arr.n_rows == 0 and integer is None:
        return _run_box(arr)
    presolve_off = arr.n_rows * arr.n_cols <= SMALL_LP and integer is None and "presolve" not in options.solver_options
    if presolve_off:
        h.setOptionValue("presolve", "off")
    _pass_model(h, arr, integer)
    _run(h, pool_named)
    run = _read(h, arr.n_cols, arr.n_rows, integer is not None)
    if integer is None:
        # HiGHS's simplex without presolve can end "Not Set" or "Unknown" on a badly scaled row
        # (x <= 0 written as 1e-7 x <= 0, where 1e-10 feasibility is out of its reach): presolve
        # removes such rows, and the interior-point solver takes what is left; each retry starts
        # afresh (clearSolver), since a run from the failed basis fails the same way
        retries = (("presolve", "on"),) if presolve_off else ()
        if "solver" not in options.solver_options:  # the caller's own choice of solver stays theirs
            retries += (("solver", "ipm"),)
        for key, value in retries:
            if run.status != "error":
                break
            h.clearSolver()
            h.setOptionValue(key, value)
            _run(h, pool_named)
            run = _read(h, arr.n_cols, arr.n_rows, False)
    return run


class WarmLP:
    """A continuous LP kept in its own HiGHS instance, re-solved warm (simplex, presolve off) after changes.


    Parameters
    ----------
    arr : LinearArrays
        The minimisation (at least one row and one column).
    options : SolveOptions
        As for :func:`run_lp`.

    Examples
    --------
    >>> import numpy as np
    >>> from fairprobe.program.model import PolynomialProgram
    >>> from fairprobe.program.safe_bounds import linear_arrays
    >>> from fairprobe.backends.base import SolveOptions
    >>> prog = PolynomialProgram.from_text("minimize\\n  x + y\\nsubject to\\n  c: x + 2*y >= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> lp = WarmLP(linear_arrays(prog), SolveOptions())
    >>> lp.run().objective
    0.5
    >>> lp.set_coefficients(0, [1], [4.0])  # c: x + 4 y >= 1
    >>> lp.run().objective
    0.25
    """

    def __init__(self, arr: LinearArrays, options: SolveOptions) -> None:
        self._h = _take_spare()
        self.options = options
        self._pool_named = _configure(self._h, options, False)
        self._h.setOptionValue("presolve", "off")
        self.n, self.m = arr.n_cols, arr.n_rows
        _pass_model(self._h, arr, None)

    def set_coefficients(self, row: int, cols: Any, values: Any) -> None:
        """Set the coefficients of ``row`` in ``cols`` (other coefficients are kept).

        Parameters
        ----------
        row : int
        cols, values : sequence
        """
        change, row = self._h.changeCoeff, int(row)
        for c, v in zip(np.asarray(cols).tolist(), np.asarray(values, dtype=float).tolist(), strict=True):
            change(row, c, v)

    def set_objective(self, c: np.ndarray, c0: float = 0.0) -> None:
        """Replace the objective by ``c.x + c0`` (the last basis stays: a new cost is a warm re-solve).

        Parameters
        ----------
        c : numpy.ndarray
            One coefficient per column.
        c0 : float, optional
        """
        c = np.asarray(c, dtype=float)
        self._h.changeColsCost(len(c), np.arange(len(c), dtype=np.int32), c)
        self._h.changeObjectiveOffset(float(c0))

    def set_row_bounds(self, row: int, lower: float, upper: float) -> None:
        """Set the bounds of ``row`` (``±inf`` for none).

        Parameters
        ----------
        row : int
        lower, upper : float
        """
        import highspy

        inf = highspy.kHighsInf
        self._h.changeRowBounds(int(row), float(lower) if math.isfinite(lower) else -inf,
                                float(upper) if math.isfinite(upper) else inf)

    def run(self, deadline: float | None = None) -> LPRun:
        """Re-solve from the last basis.

        Parameters
        ----------
        deadline : float, optional
            ``time.perf_counter()`` value to stop at.

        Returns
        -------
        LPRun
        """
        _set_deadline(self._h, deadline)
        _run(self._h, self._pool_named)
        return _read(self._h, self.n, self.m, False)

    def close(self) -> None:
        """Hand the instance back for the next warm LP of this thread (the LP is unusable after)."""
        if self._h is not None:
            _give_back(self._h)
            self._h = None


def _run_box(arr: LinearArrays) -> LPRun:
    """``min c.x + c0`` over a box alone: each variable at the end its cost prefers (exact; no solver)."""
    if np.any((arr.c < 0) & np.isinf(arr.ub)) or np.any((arr.c > 0) & np.isinf(arr.lb)):
        return LPRun("unbounded", None, None, -math.inf, math.nan, "no rows: unbounded on the box", 0)
    x = np.where(arr.c > 0, arr.lb, np.where(arr.c < 0, arr.ub, np.where(np.isfinite(arr.lb), arr.lb,
                                                                           np.where(np.isfinite(arr.ub), arr.ub, 0.0))))
    return LPRun("optimal", x, np.zeros(0), float(arr.c @ x + arr.c0), math.nan, "no rows: optimum on the box", 0)

"""Known optimal bases: an LP re-solved on new data from a basis it had before, without a solver run.

A bootstrap re-solves the same small LPs (a bound's definedness checks and parity searches) on a
thousand resampled tables. The data move the optimum a little; the optimal *basis* (which
variables sit at which bound) mostly stays. HiGHS costs about 100 microseconds a run on these
programs even when its warm start needs no iteration; checking a basis directly costs a fifth.

:class:`~fairprobe.backends.base.BasisMemory` keeps the optimal bases of the **reference solves**
(the program on the problem's own table and on two seeded resamples of it), by site: the check of
one conditioning event, the top of one rate, the evaluations of one parametric search (keyed by
their parameter). A later solve of the same program on another table asks the memory at each site
(``BasisMemory.candidates``) and takes :func:`basic_solution` of a remembered basis where it is
optimal: primal feasible and dual feasible to HiGHS's own tolerances, the two solves accurate (the
basic reduced costs vanish, the primal and dual objectives agree). Elsewhere the solver runs as
usual. The memory is filled once, from the reference tables only, so a re-solve's result depends
on its own table and the reference, never on which tables came before it (a bootstrap gives the
same interval on any number of workers).

Nothing here is trusted: the bounds built from these points and duals are verified afterwards
(:mod:`fairprobe.program.safe_bounds`) exactly as the solver's are. A wrong basis can only be
refused (the solver then runs) or give a looser certificate, never a bound that excludes the
optimum.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BASIC", "LOWER", "UPPER", "Basis", "basic_solution"]

#: HiGHS's basis status codes (``highspy.HighsBasisStatus``), kept as small integers.
LOWER, BASIC, UPPER, ZERO, NONBASIC = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Basis:
    """Status of every column and row of an LP (HiGHS's codes: 0 lower, 1 basic, 2 upper, 3 zero, 4 nonbasic).

    Attributes
    ----------
    cols, rows : numpy.ndarray
        One ``int8`` status per column and per row.
    """

    cols: np.ndarray
    rows: np.ndarray

    @classmethod
    def from_highs(cls, h: Any) -> Basis | None:
        """The basis of a HiGHS instance's last run, or None when it has no valid one."""
        b = h.getBasis()
        if not b.valid:
            return None
        return cls(np.array([int(s) for s in b.col_status], dtype=np.int8),
                   np.array([int(s) for s in b.row_status], dtype=np.int8))

    @functools.cached_property
    def key(self) -> bytes:
        """The statuses as bytes (equal bases, equal keys)."""
        return self.cols.tobytes() + b"|" + self.rows.tobytes()

    @functools.cached_property
    def parts(self) -> _Parts | None:
        """The index sets :func:`basic_solution` reads (computed once per basis), or None when the
        statuses cannot be a basis (counts differ, a row at no bound)."""
        cols, rows = self.cols, self.rows
        in_basis, tight = cols == BASIC, rows != BASIC
        if int(in_basis.sum()) != int(tight.sum()) or np.any(rows[tight] > UPPER):
            return None
        at_lower, at_upper = cols == LOWER, cols == UPPER
        # the sign whose positive part is a dual infeasibility: -d at a lower end, +d at an upper end (0 for
        # basic columns and rows); a nonbasic free column must have d = 0
        sign_cols = np.where(at_upper, 1.0, np.where(at_lower, -1.0, 0.0))
        sign_rows = np.where(rows == UPPER, 1.0, np.where(rows == LOWER, -1.0, 0.0))
        return _Parts(basic=np.flatnonzero(in_basis), tight=np.flatnonzero(tight), at_lower=at_lower,
                      at_upper=at_upper, row_upper=rows == UPPER, sign_cols=sign_cols, sign_rows=sign_rows,
                      free=np.flatnonzero(cols >= ZERO))


@dataclass(frozen=True)
class _Parts:
    basic: np.ndarray  # basic columns
    tight: np.ndarray  # nonbasic rows (their activity at a bound)
    at_lower: np.ndarray
    at_upper: np.ndarray
    row_upper: np.ndarray
    sign_cols: np.ndarray
    sign_rows: np.ndarray
    free: np.ndarray  # nonbasic free columns


def basic_solution(A: np.ndarray, c: np.ndarray, c0: float, lb: np.ndarray, ub: np.ndarray, row_lo: np.ndarray,
                   row_hi: np.ndarray, basis: Basis,
                   tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The vertex of ``basis`` with its duals, when the basis is optimal for ``min c.x + c0``.

    The LP is ``row_lo <= A x <= row_hi``, ``lb <= x <= ub`` (``A`` dense). Nonbasic columns and
    rows sit at the bound their status names; the basic columns solve the square system of the
    nonbasic rows. The basis is optimal when every basic column and row is within ``tol`` of its
    bounds (primal feasible) and every nonbasic reduced cost and row dual has its admissible sign
    to ``tol`` (dual feasible), the same tests HiGHS stops on.

    Parameters
    ----------
    A : numpy.ndarray
        Row coefficients, shape ``(m, n)``.
    c, lb, ub : numpy.ndarray
        Costs and column bounds (``n``).
    c0 : float
        Objective constant.
    row_lo, row_hi : numpy.ndarray
        Row bounds (``m``; ``±inf`` where absent).
    basis : Basis
    tol : float, optional
        Primal and dual feasibility tolerance.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, float) or None
        Primal point, row duals (HiGHS's sign: ``c - A^T y`` are the reduced costs) and objective;
        None when the basis does not fit the LP, is singular, or is not optimal.

    Examples
    --------
    ``min x + y`` subject to ``x + 2 y >= 1`` on ``[0, 1]^2``: ``y`` basic, ``x`` and the row at
    their lower ends.

    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0]])
    >>> basis = Basis(np.array([LOWER, BASIC], dtype=np.int8), np.array([LOWER], dtype=np.int8))
    >>> x, y, obj = basic_solution(A, np.ones(2), 0.0, np.zeros(2), np.ones(2), np.array([1.0]),
    ...                            np.array([np.inf]), basis)
    >>> x.tolist(), y.tolist(), obj
    ([0.0, 0.5], [0.5], 0.5)
    >>> basic_solution(A, np.array([1.0, 3.0]), 0.0, np.zeros(2), np.ones(2), np.array([1.0]),
    ...                np.array([np.inf]), basis) is None  # x is cheaper now: not optimal
    True
    """
    m, n = A.shape
    if len(basis.cols) != n or len(basis.rows) != m:
        return None
    p = basis.parts
    if p is None:
        return None
    x = np.where(p.at_upper, ub, np.where(p.at_lower, lb, 0.0))
    activity = np.where(p.row_upper, row_hi, row_lo)[p.tight]
    if not (np.isfinite(x).all() and np.isfinite(activity).all()):
        return None  # a column or row at an infinite end: no vertex
    # (a NaN from a near-singular solve below passes the feasibility tests and fails the last one)
    rows = A[p.tight]
    if len(p.basic):
        dgesv, dgetrs = _lapack()
        lu, piv, xb, info = dgesv(rows[:, p.basic], activity - rows @ x)
        if info != 0:  # a singular basis: the solver decides
            return None
        y_tight, info = dgetrs(lu, piv, c[p.basic], trans=1)
        if info != 0:
            return None
        x[p.basic] = xb
    else:
        y_tight = np.zeros(0)
    # primal feasibility: every column and row within tol of its ends (the nonbasic ones sit on them)
    if n and np.maximum(lb - x, x - ub).max() > tol:
        return None
    act = A @ x
    if m and np.maximum(row_lo - act, act - row_hi).max() > tol:
        return None
    y = np.zeros(m)
    y[p.tight] = y_tight
    d = c - y @ A  # reduced costs (0 on the basic columns, to rounding)
    # dual feasibility: d >= 0 at a lower end, <= 0 at an upper end, 0 at a free column; a fixed column or
    # row (equal ends) takes either sign; the same for the rows' duals
    if ((p.sign_cols * d > tol) & (lb != ub)).any() or (len(p.free) and (np.abs(d[p.free]) > tol).any()):
        return None
    if ((p.sign_rows * y > tol) & (row_lo != row_hi)).any():
        return None
    # the two solves' accuracy (a near-singular basis loses it, or gives NaN): the basic columns' reduced costs
    # vanish (the dual solve), and the tight rows' activities are their ends, so the dual objective (rows at
    # their active ends, columns at theirs) equals the primal one (the primal solve)
    if len(p.basic) and not np.abs(d[p.basic]).max() <= tol:
        return None
    primal = float(c @ x)
    dual = float(y_tight @ activity + d @ x)
    if not abs(primal - dual) <= 1e-9 * max(1.0, abs(primal)):
        return None
    return x, y, primal + c0


@functools.cache
def _lapack() -> tuple[Any, Any]:
    from scipy.linalg import lapack  # (imported on first use: the command line starts without it)

    return lapack.dgesv, lapack.dgetrs

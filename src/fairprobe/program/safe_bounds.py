"""Verified LP bounds: a rigorous lower bound from an approximate dual, whatever the solver's rounding.

An LP solver's dual ``y`` is optimal only to its tolerances, so its objective can lie on the wrong side
of the optimum. The Neumaier-Shcherbina construction turns *any* ``y`` into a bound valid by weak
duality: for ``min c.x + c0`` over ``lo <= A x <= hi`` and a box ``l <= x <= u``, with ``r = c - A^T y``,

    c.x >= sum_i y_i * (lo_i if y_i > 0 else hi_i) + sum_j min(r_j l_j, r_j u_j)

at every feasible ``x``. A row whose needed side is infinite gets ``y_i = 0``; ``r``, every product and
the sum carry proven error bounds and the result is rounded outward. A column with an infinite box end
whose reduced cost may have the wrong sign makes the bound ``-inf``.

:func:`fractional_lower_bound` verifies a linear-fractional optimum: ``N(x) >= lam * D(x) + beta`` on
the feasible set gives ``N/D >= lam + min(beta, 0) / D_min``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "LinearArrays",
    "TightBounder",
    "charnes_cooper_arrays",
    "exact_lower_bound",
    "fractional_lower_bound",
    "linear_arrays",
    "objective_vector",
    "two_product",
    "verified_lower_bound",
]

#: Unit roundoff of IEEE double precision (2**-53).
_U = 2.0 ** -53


@dataclass(frozen=True)
class LinearArrays:
    """A linear program ``min c.x + c0`` over ``row_lo <= A x <= row_hi``, ``lb <= x <= ub``, as arrays.

    ``A`` is stored row-wise (CSR), as HiGHS and the bounds read it, without a sparse-matrix object.

    Attributes
    ----------
    c : numpy.ndarray
        Objective coefficients.
    c0 : float
        Objective constant.
    indptr, indices, data : numpy.ndarray
        The rows' coefficients (constant terms of the rows moved to their bounds).
    row_lo, row_hi, lb, ub : numpy.ndarray
        Row and column bounds (``-inf``/``inf`` where absent).
    """

    c: np.ndarray
    c0: float
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    row_lo: np.ndarray
    row_hi: np.ndarray
    lb: np.ndarray
    ub: np.ndarray

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return len(self.row_lo)

    @property
    def n_cols(self) -> int:
        """Number of columns."""
        return len(self.c)

    @functools.cached_property
    def row_of(self) -> np.ndarray:
        """The row of each stored coefficient (computed once per instance; read only)."""
        out = np.repeat(np.arange(self.n_rows), np.diff(self.indptr))
        out.flags.writeable = False
        return out

    @functools.cached_property
    def dense(self) -> np.ndarray:
        """``A`` as a dense ``(n_rows, n_cols)`` array (computed once per instance; read only)."""
        out = np.zeros((self.n_rows, self.n_cols))
        np.add.at(out, (self.row_of, self.indices), self.data)  # (a repeated column adds up, as in CSR)
        out.flags.writeable = False
        return out

    @functools.cached_property
    def nonneg_box(self) -> bool:
        """Whether every column's box has a finite upper end and a non-negative lower end."""
        return bool(np.isfinite(self.ub).all() and (self.lb >= 0).all())


def linear_arrays(program, objective=None, sign: float = 1.0) -> LinearArrays:
    """The rows, box and (signed) objective of a linear program, as arrays.

    Parameters
    ----------
    program : PolynomialProgram
        A program whose rows are linear.
    objective : mapping, optional
        A linear polynomial over the program's variables (default: its objective).
    sign : float, optional
        ``-1`` negates the objective (a maximisation posed as a minimisation).

    Returns
    -------
    LinearArrays

    Examples
    --------
    >>> from fairprobe.program.model import PolynomialProgram
    >>> prog = PolynomialProgram.from_text("minimize\\n  x + 2*y + 1\\nsubject to\\n  x + y >= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> arr = linear_arrays(prog)
    >>> arr.c.tolist(), arr.c0, arr.row_lo.tolist(), arr.row_hi.tolist()
    ([1.0, 2.0], 1.0, [1.0], [inf])
    """
    n = program.n_variables
    c, c0 = objective_vector(program.objective if objective is None else objective, n, sign)
    m = len(program.constraints)
    indptr = [0]
    cols: list[int] = []
    vals: list[float] = []
    lo = np.empty(m)
    hi = np.empty(m)
    for i, con in enumerate(program.constraints):
        rhs = con.rhs - con.poly.get((), 0.0)
        row: dict[int, float] = {}
        for mono, coef in con.poly.items():
            if not mono:
                continue
            if len(mono) > 1:
                raise ValueError("linear_arrays needs linear rows")
            row[mono[0]] = row.get(mono[0], 0.0) + coef
        cols.extend(row)
        vals.extend(row.values())
        indptr.append(len(cols))
        lo[i] = rhs if con.sense in (">=", "==") else -math.inf
        hi[i] = rhs if con.sense in ("<=", "==") else math.inf
    lb = np.fromiter((v.lb for v in program.variables), dtype=float, count=n)
    ub = np.fromiter((v.ub for v in program.variables), dtype=float, count=n)
    return LinearArrays(c, c0, np.asarray(indptr, dtype=np.int32), np.asarray(cols, dtype=np.int32),
                        np.asarray(vals, dtype=float), lo, hi, lb, ub)


def with_row(arr: LinearArrays, cols: np.ndarray, vals: np.ndarray, lo: float, hi: float) -> LinearArrays:
    """``arr`` with one more row ``lo <= vals . x[cols] <= hi`` (the objective and box unchanged).

    Parameters
    ----------
    arr : LinearArrays
    cols : numpy.ndarray
        The new row's columns.
    vals : numpy.ndarray
    lo, hi : float
        Its bounds (``-inf``/``inf`` where absent).

    Returns
    -------
    LinearArrays

    Examples
    --------
    >>> from fairprobe.program.model import PolynomialProgram
    >>> arr = linear_arrays(PolynomialProgram.from_text("minimize\\n  x\\nbounds\\n  0 <= x <= 1"))
    >>> more = with_row(arr, np.array([0]), np.array([1.0]), 0.5, np.inf)
    >>> more.n_rows, more.row_lo.tolist()
    (1, [0.5])
    """
    return dataclasses.replace(
        arr, indptr=np.append(arr.indptr, arr.indptr[-1] + len(cols)).astype(np.int32),
        indices=np.concatenate([arr.indices, cols]).astype(np.int32),
        data=np.concatenate([arr.data, np.asarray(vals, dtype=float)]),
        row_lo=np.append(arr.row_lo, lo), row_hi=np.append(arr.row_hi, hi))


def charnes_cooper_arrays(arr: LinearArrays, num: tuple[np.ndarray, float], den: tuple[np.ndarray, float],
                          sign: float = 1.0) -> LinearArrays | None:
    """The Charnes-Cooper LP of ``num / den`` over ``arr``'s rows and box, built from the arrays directly.

    Row for row the LP of :func:`~fairprobe.program.transforms.charnes_cooper` then :func:`linear_arrays`
    (columns ``y`` then ``t``), without the round trip through a polynomial program.

    Parameters
    ----------
    arr : LinearArrays
        The rows and box (its objective is ignored).
    num, den : (numpy.ndarray, float)
        Numerator and denominator as coefficient vectors and constants.
    sign : float, optional
        ``-1`` to maximise the ratio (posed as a minimisation).

    Returns
    -------
    LinearArrays or None
        None when a row has two finite, different sides (a ranged row, which ``charnes_cooper`` would
        write as two; programs compiled from polynomial rows have none).
    """
    lo, hi = arr.row_lo, arr.row_hi
    ranged = np.isfinite(lo) & np.isfinite(hi) & (lo != hi)
    if ranged.any():
        return None
    n = arr.n_cols
    t = n  # the column of t
    rhs = np.where(np.isfinite(lo), lo, hi)
    # row 0: the denominator, homogenised (its constant on t)
    dv, d0 = den
    nz = np.flatnonzero(dv)
    den_cols = np.append(nz, t) if d0 else nz
    den_vals = np.append(dv[nz], d0) if d0 else dv[nz]
    # the rows: a.y - rhs t, the constant only where nonzero (as charnes_cooper writes them)
    lengths = np.diff(arr.indptr)
    has_t = rhs != 0
    row_len = lengths + has_t
    starts = np.concatenate([[0], np.cumsum(row_len)])
    body_cols = np.empty(int(starts[-1]), dtype=np.int32)
    body_vals = np.empty(int(starts[-1]))
    pos = np.repeat(starts[:-1], lengths) + (np.arange(len(arr.indices)) - np.repeat(arr.indptr[:-1], lengths))
    body_cols[pos] = arr.indices
    body_vals[pos] = arr.data
    last = starts[1:][has_t] - 1
    body_cols[last] = t
    body_vals[last] = -rhs[has_t]
    # the box rows: y - lb t >= 0 where lb is finite and not 0; y - ub t <= 0 where ub is finite
    box_cols, box_vals, box_lo, box_hi = [], [], [], []
    for j in range(n):
        lb, ub = arr.lb[j], arr.ub[j]
        if math.isfinite(lb) and lb != 0:
            box_cols.append((j, t))
            box_vals.append((1.0, -lb))
            box_lo.append(0.0)
            box_hi.append(math.inf)
        if math.isfinite(ub):
            box_cols.append((j, t))
            box_vals.append((1.0, -ub))
            box_lo.append(-math.inf)
            box_hi.append(0.0)
    head = len(den_cols)
    indptr = np.concatenate([[0, head], head + starts[1:],
                             head + starts[-1] + 2 * np.arange(1, len(box_cols) + 1)]).astype(np.int32)
    indices = np.concatenate([den_cols, body_cols, np.asarray(box_cols, dtype=np.int32).reshape(-1)]).astype(np.int32)
    data = np.concatenate([den_vals, body_vals, np.asarray(box_vals, dtype=float).reshape(-1)])
    row_lo = np.concatenate([[1.0], np.where(np.isfinite(lo), 0.0, -math.inf), box_lo])
    row_hi = np.concatenate([[1.0], np.where(np.isfinite(hi), 0.0, math.inf), box_hi])
    new_lb = np.append(np.where(arr.lb >= 0, 0.0, -math.inf), 0.0)
    new_ub = np.append(np.where(arr.ub <= 0, 0.0, math.inf), math.inf)
    nv, n0 = num
    c = np.append(nv, n0) * sign
    return LinearArrays(c, 0.0, indptr, indices, data, row_lo, row_hi, new_lb, new_ub)


def objective_vector(poly, n: int, sign: float = 1.0) -> tuple[np.ndarray, float]:
    """``(c, c0)`` of a linear polynomial over ``n`` variables, times ``sign``.

    Parameters
    ----------
    poly : mapping
        A linear polynomial (monomials of degree <= 1).
    n : int
        Number of variables.
    sign : float, optional
        Factor applied to every coefficient.

    Returns
    -------
    (numpy.ndarray, float)

    Examples
    --------
    >>> c, c0 = objective_vector({(1,): 2.0, (): 0.5}, 3, sign=-1.0)
    >>> c.tolist(), c0
    ([0.0, -2.0, 0.0], -0.5)
    """
    c = np.zeros(n)
    c0 = 0.0
    for mono, coef in poly.items():
        if len(mono) > 1:
            raise ValueError("linear_arrays needs a linear objective")
        if mono:
            c[mono[0]] += sign * coef
        else:
            c0 += sign * coef
    return c, c0


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _box_terms(r: np.ndarray, err: np.ndarray, lb: np.ndarray, ub: np.ndarray,
               nonneg: bool = False) -> np.ndarray | None:
    """``min rho * x`` over ``rho`` in ``[r -+ err]``, ``x`` in ``[lb, ub]`` per column; None when unbounded below."""
    if np.isnan(r).any() or np.isnan(err).any():  # a NaN coefficient or dual: nothing is certified
        return None
    rlo, rhi = r - err, r + err
    if nonneg:  # 0 <= lb <= x <= ub < inf: rho * x is least at rho = rlo (the same minimum, exactly)
        with np.errstate(invalid="ignore", over="ignore"):
            out = np.minimum(rlo * lb, rlo * ub)
        if np.isfinite(out).all():
            return out
        # (an infinite reduced cost: the corners below give 0 * inf its value 0, as for any box)
    with np.errstate(invalid="ignore"):  # 0 * inf: the product is 0 when the coefficient is exactly 0
        cand = np.stack([rlo * lb, rlo * ub, rhi * lb, rhi * ub])
    cand = np.where(np.isnan(cand), 0.0, cand)
    out = cand.min(axis=0)
    if np.isneginf(out).any():
        return None
    return out


def _sanitised_duals(y: np.ndarray, row_lo: np.ndarray, row_hi: np.ndarray) -> np.ndarray:
    """``y`` with the multipliers that lean on an infinite side of their row (or are not finite) set to 0."""
    # set to 0, a multiplier still leaves a dual vector
    y = np.asarray(y, dtype=float).copy()
    y[((y > 0) & ~np.isfinite(row_lo)) | ((y < 0) & ~np.isfinite(row_hi)) | ~np.isfinite(y)] = 0.0
    return y


def verified_lower_bound(arr: LinearArrays, y: np.ndarray) -> float:
    """A rigorous lower bound on ``min c.x + c0`` from the (approximate) row duals ``y``.

    Parameters
    ----------
    arr : LinearArrays
        The program (a minimisation).
    y : numpy.ndarray
        Row multipliers, one per row (any vector; the closer to optimal, the tighter the bound).

    Returns
    -------
    float
        At most the true optimum of the LP, rounding included; ``-inf`` when nothing can be certified.

    Examples
    --------
    ``min x + y`` with ``x + y >= 1`` on the unit box; the exact dual is ``y = 1``:

    >>> import numpy as np
    >>> from fairprobe.program.model import PolynomialProgram
    >>> prog = PolynomialProgram.from_text("minimize\\n  x + y\\nsubject to\\n  x + y >= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> arr = linear_arrays(prog)
    >>> b = verified_lower_bound(arr, np.array([1.0]))
    >>> b <= 1.0, 1.0 - b < 1e-14
    (True, True)
    >>> verified_lower_bound(arr, np.array([0.0]))  # the zero dual still bounds: by the box
    0.0
    """
    y = _sanitised_duals(y, arr.row_lo, arr.row_hi)
    n = arr.n_cols
    rows = arr.row_of
    products = arr.data * y[rows]
    r = arr.c - np.bincount(arr.indices, weights=products, minlength=n)
    # |fl(r_j) - r_j| <= gamma_{k+1} * (|c_j| + sum_i |a_ij y_i|), k = nonzeros of column j; 2x margin
    nnz = np.bincount(arr.indices, minlength=n)
    scale = np.abs(arr.c) + np.bincount(arr.indices, weights=np.abs(products), minlength=n)
    err = 2.0 * (nnz + 2) * _U * scale * (1.0 + 1e-10) + 1e-300
    col = _box_terms(r, err, arr.lb, arr.ub, arr.nonneg_box)
    if col is None:
        return -math.inf
    side = np.where(y > 0, arr.row_lo, np.where(y < 0, arr.row_hi, 0.0))
    row = np.where(y != 0, y * side, 0.0)
    terms = np.concatenate([row, col, [arr.c0]])
    if not np.isfinite(terms).all():
        return -math.inf
    total = math.fsum(terms.tolist())
    size = float(np.abs(terms).sum())
    if size == 0.0:  # every term exactly 0: nothing was rounded
        return 0.0
    # each product carries a relative error <= u, fsum rounds once more: 4u * sum|terms| covers both, twice over
    # (the absolute 1e-300 covers products that underflowed)
    return _down(_down(total - (4.0 * _U * size + 1e-300)))


#: Veltkamp's splitting constant for doubles (2**27 + 1).
_SPLIT = 134217729.0

#: Magnitudes beyond which the splitting could overflow: :func:`exact_lower_bound` then falls back.
_SAFE_MAGNITUDE = 1e150


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_product(a: np.ndarray, b: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """``a * b`` as ``p + e`` with both doubles and the sum exact (Dekker's TwoProduct).

    Exact unless a product over- or underflows (magnitudes far beyond those of a probability program).

    Parameters
    ----------
    a, b : numpy.ndarray or float

    Returns
    -------
    p, e : numpy.ndarray
        The rounded product and its rounding error.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> p, e = two_product(np.array([0.1]), np.array([0.3]))
    >>> Fraction(p[0]) + Fraction(e[0]) == Fraction(0.1) * Fraction(0.3)
    True
    """
    a = np.asarray(a, dtype=float)
    b = np.broadcast_to(np.asarray(b, dtype=float), a.shape)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = al * bl - (((p - ah * bh) - al * bh) - ah * bl)
    return p, e


def exact_lower_bound(arr: LinearArrays, y: np.ndarray) -> float:
    """The weak-duality bound of the row duals ``y``, evaluated exactly and rounded down once.

    Like :func:`verified_lower_bound`, with exact products (:func:`two_product`) summed by ``math.fsum``:
    within about 1e-17 of an LP optimum instead of 1e-14, which counts when divided by a tiny group's mass.

    Parameters
    ----------
    arr : LinearArrays
        The program (a minimisation).
    y : numpy.ndarray
        Row multipliers, one per row.

    Returns
    -------
    float
        At most the true optimum of the LP; ``-inf`` when nothing can be certified.

    Examples
    --------
    >>> import numpy as np
    >>> from fairprobe.program.model import PolynomialProgram
    >>> prog = PolynomialProgram.from_text("minimize\\n  x + y\\nsubject to\\n  x + y >= 0.3\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> arr = linear_arrays(prog)
    >>> bool(exact_lower_bound(arr, np.array([1.0])) == np.nextafter(0.3, -1))
    True
    >>> bool(verified_lower_bound(arr, np.array([1.0])) < np.nextafter(0.3, -1))  # a-priori error bounds: below
    True
    >>> bool(TightBounder(arr).bound(arr.c, arr.c0, np.array([1.0])) == np.nextafter(0.3, -1))  # extended precision
    True
    """
    y = _sanitised_duals(y, arr.row_lo, arr.row_hi)
    finite_bounds = np.concatenate([arr.lb[np.isfinite(arr.lb)], arr.ub[np.isfinite(arr.ub)],
                                    arr.row_lo[np.isfinite(arr.row_lo)], arr.row_hi[np.isfinite(arr.row_hi)]])
    sizes = np.concatenate([np.abs(arr.data), np.abs(arr.c), np.abs(y), np.abs(finite_bounds), [abs(arr.c0)]])
    if sizes.size and sizes.max() > _SAFE_MAGNITUDE:
        return verified_lower_bound(arr, y)
    n = arr.n_cols
    rows = arr.row_of
    p, e = two_product(arr.data, y[rows])
    order = np.argsort(arr.indices, kind="stable")
    cols = arr.indices[order]
    neg_p, neg_e = (-p[order]).tolist(), (-e[order]).tolist()
    starts = np.searchsorted(cols, np.arange(n + 1)).tolist()
    c, lb, ub = arr.c.tolist(), arr.lb.tolist(), arr.ub.tolist()
    # each column's exact reduced cost (a list of doubles) times the box end its sign picks; the
    # products of all columns are split exactly in one vectorised TwoProduct
    parts_all: list[float] = []
    ends_all: list[float] = []
    for j in range(n):
        a, b = starts[j], starts[j + 1]
        parts = [c[j], *neg_p[a:b], *neg_e[a:b]]
        r = math.fsum(parts)  # correctly rounded: its sign is the exact reduced cost's
        if math.isnan(r):  # a NaN coefficient or dual: nothing is certified
            return -math.inf
        if r == 0.0:
            continue
        end = ub[j] if r < 0 else lb[j]
        if end == 0.0:
            continue
        if not math.isfinite(end):
            return -math.inf
        parts_all += parts
        ends_all += [end] * len(parts)
    pp, ee = two_product(np.asarray(parts_all, dtype=float), np.asarray(ends_all, dtype=float))
    side = np.where(y > 0, arr.row_lo, np.where(y < 0, arr.row_hi, 0.0))
    mask = y != 0
    rp, re = two_product(y[mask], side[mask])
    terms = [*pp.tolist(), *ee.tolist(), *rp.tolist(), *re.tolist(), float(arr.c0)]
    if not math.isfinite(sum(terms)):  # an infinite or NaN term (or an overflow): nothing certified
        return -math.inf
    total = math.fsum(terms)
    # products below ~1e-292 may have lost their error term to underflow: an absolute margin covers them
    return _down(total - 1e-290 * len(terms))


#: Unit roundoff of ``numpy.longdouble`` (2**-64 for the x87 80-bit format, 2**-113 for quad; where it
#: is plain double, as on Windows, :class:`TightBounder` is :func:`exact_lower_bound`).
_U_EXT = float(np.finfo(np.longdouble).eps) / 2

#: Rows x columns up to which :class:`TightBounder` works on a dense matrix.
_DENSE_MAX = 250_000


class TightBounder:
    """The weak-duality bound of row duals in extended precision, over fixed rows read once for many objectives.

    :func:`exact_lower_bound` to about 1e-18 of the terms' size at a third of its cost, computed in
    ``numpy.longdouble`` with a-priori error bounds; it is :func:`exact_lower_bound` where ``longdouble``
    is plain double, the program is large or a row repeats a column.

    Parameters
    ----------
    arr : LinearArrays
        The fixed rows and box (its objective is not read).
    extra_cols : numpy.ndarray, optional
        The columns of one more row, whose coefficients and bounds are given per call to
        :meth:`bound` (a search's parameter row); distinct. That row is written into the bounder:
        calls with a row are not safe from several threads at once (calls without one are).
    """

    def __init__(self, arr: LinearArrays, extra_cols: np.ndarray | None = None) -> None:
        n, m = arr.n_cols, arr.n_rows
        extra = extra_cols is not None
        self.arr, self.m = arr, m
        self.extra_cols = None if extra_cols is None else np.asarray(extra_cols, dtype=np.int32)
        rows = arr.row_of
        self.exact = (_U_EXT >= _U or n * max(m + extra, 1) > _DENSE_MAX or n == 0
                      or (m > 0 and len(np.unique(rows * n + arr.indices)) != len(arr.indices))
                      or (extra and len(np.unique(self.extra_cols)) != len(self.extra_cols)))
        if self.exact:
            return
        ext = np.longdouble
        self.a = np.zeros((m + extra, n), dtype=ext)
        self.a[rows, arr.indices] = arr.data
        self.abs_a = np.abs(self.a)
        self.lb, self.ub = arr.lb.astype(ext), arr.ub.astype(ext)
        # a box of finite, non-negative ends (probabilities): the least of rho * x over the reduced cost's
        # interval is at its lower end, a fifth of the general case's work
        self.nonneg_box = arr.nonneg_box
        self._set_sides(arr, extra)
        self._zero_lb = self.nonneg_box and not np.any(arr.lb)
        self._set_factors(m + extra, n)

    def _set_sides(self, arr: LinearArrays, extra: bool) -> None:
        self.row_lo = np.append(arr.row_lo, 0.0) if extra else arr.row_lo
        self.row_hi = np.append(arr.row_hi, 0.0) if extra else arr.row_hi
        # a multiplier may lean only on a finite side of its row: the duals are clipped into
        # [y_min, y_max] (0 on the side whose end is infinite), and a row's term reads its finite ends
        lo_ok, hi_ok = np.isfinite(self.row_lo), np.isfinite(self.row_hi)
        self._y_min = np.where(hi_ok, -np.inf, 0.0)
        self._y_max = np.where(lo_ok, np.inf, 0.0)
        self._lo_fin = np.where(lo_ok, self.row_lo, 0.0)
        self._hi_fin = np.where(hi_ok, self.row_hi, 0.0)

    def _set_factors(self, rows: int, n: int) -> None:
        # the error factors of bound() depend only on the sizes (k rows + 2, N terms + 1): once, as it
        # would compute them
        k = rows + 2
        self._err_factor = 2.0 * k * _U_EXT / (1.0 - k * _U_EXT)
        big_n = rows + n + 2
        self._sum_factor = 2.0 * (big_n + 1) * _U_EXT / (1.0 - big_n * _U_EXT)
        self._n_terms = rows + n + 1  # rows, columns, constant

    def without_row(self) -> TightBounder:
        """A bounder over the same rows without the extra one, bounding as ``TightBounder(arr)``, sharing matrices.


        Returns
        -------
        TightBounder
            This bounder when it has no extra row.
        """
        if self.extra_cols is None:
            return self
        if self.exact:  # (the extra row may be what made this one exact)
            return TightBounder(self.arr)
        out, m = object.__new__(TightBounder), self.m
        out.arr, out.m, out.extra_cols, out.exact = self.arr, m, None, False
        out.a, out.abs_a, out.lb, out.ub = self.a[:m], self.abs_a[:m], self.lb, self.ub
        out.nonneg_box, out._zero_lb = self.nonneg_box, self._zero_lb
        out.row_lo, out.row_hi = self.arr.row_lo, self.arr.row_hi
        out._y_min, out._y_max = self._y_min[:m], self._y_max[:m]
        out._lo_fin, out._hi_fin = self._lo_fin[:m], self._hi_fin[:m]
        out._set_factors(m, self.arr.n_cols)
        return out

    def _arrays(self, c: np.ndarray, c0: float, row: tuple | None) -> LinearArrays:
        """The program as :class:`LinearArrays` (with the extra row), for the exact fallback."""
        arr = dataclasses.replace(self.arr, c=np.asarray(c, dtype=float), c0=float(c0))
        return arr if row is None else with_row(arr, self.extra_cols, *row)

    def bound(self, c: np.ndarray, c0: float, y: np.ndarray, row: tuple | None = None) -> float:
        """The verified lower bound on ``min c.x + c0`` from the duals ``y``.

        Parameters
        ----------
        c : numpy.ndarray
            Objective coefficients.
        c0 : float
            Objective constant.
        y : numpy.ndarray
            One multiplier per row (the extra row's last).
        row : tuple, optional
            The extra row as ``(coefficients on extra_cols, lower, upper)``, exactly when the bounder
            was made with ``extra_cols``.

        Returns
        -------
        float
            At most the true optimum; ``-inf`` when nothing can be certified.
        """
        if (row is not None) != (self.extra_cols is not None):
            raise ValueError("the extra row is given exactly when the bounder was made with extra_cols")
        if self.exact:
            return exact_lower_bound(self._arrays(c, c0, row), y)
        ext = np.longdouble
        if row is not None:  # (this bounder's own copies, like the matrix's last row)
            vals, lo, hi = row
            self.a[self.m, self.extra_cols] = vals
            self.abs_a[self.m, self.extra_cols] = np.abs(vals)
            self.row_lo[-1], self.row_hi[-1] = lo, hi
            lo_ok, hi_ok = math.isfinite(lo), math.isfinite(hi)
            self._y_min[-1], self._y_max[-1] = (-math.inf if hi_ok else 0.0), (math.inf if lo_ok else 0.0)
            self._lo_fin[-1], self._hi_fin[-1] = (lo if lo_ok else 0.0), (hi if hi_ok else 0.0)
        y = np.asarray(y, dtype=float)
        if y.shape != self._y_min.shape:  # (clipping would broadcast a short vector silently)
            raise ValueError(f"{len(y)} duals for {len(self._y_min)} rows")
        if np.isfinite(y).all():
            y = np.minimum(np.maximum(y, self._y_min), self._y_max)  # = _sanitised_duals, in two operations
        else:
            y = _sanitised_duals(y, self.row_lo, self.row_hi)
        y_ext = y.astype(ext)
        c_ext = np.asarray(c, dtype=ext)
        r = c_ext - y_ext @ self.a
        # |fl(r_j) - r_j| <= gamma_{m+1} (|c_j| + sum_i |a_ij y_i|), in extended precision; twice over,
        # which also covers the rounding of the bound itself and of r -+ err below
        scale = np.abs(c_ext) + np.abs(y_ext) @ self.abs_a
        err = self._err_factor * scale * (1.0 + 1e-10) + 1e-300
        terms, m = np.empty(self._n_terms, dtype=ext), len(y)  # (per call: a bounder without a row is read only)
        if self.nonneg_box:
            # (a NaN coefficient or dual makes a term NaN: the size check below then certifies nothing)
            low_r = r - err
            if self._zero_lb:  # min(low_r * 0, low_r * ub), up to the sign of a zero
                np.minimum(low_r * self.ub, 0.0, out=terms[m:-1])
            else:
                np.minimum(low_r * self.lb, low_r * self.ub, out=terms[m:-1])
        else:
            col = _box_terms(r, err, self.lb, self.ub)
            if col is None:
                return -math.inf
            terms[m:-1] = col
        # a clipped multiplier leans on a finite side only (and is 0 where it leans on neither)
        np.multiply(y_ext, np.where(y > 0, self._lo_fin, self._hi_fin), out=terms[:m])
        terms[-1] = c0
        size = np.abs(terms).sum()
        if not np.isfinite(size):
            return -math.inf
        total = terms.sum()
        # each product rounds once (u), the sum of N terms by at most gamma_N of their size; twice over
        low = total - (self._sum_factor * size + 1e-300)
        out = float(low)  # to nearest; one step down if that was up
        if ext(out) > low:
            out = math.nextafter(out, -math.inf)
        return out


def fractional_lower_bound(lam: float, beta: float, den_min: float | None) -> float:
    """A verified lower bound on ``min N/D`` from ``N - lam * D >= beta`` and ``D >= den_min > 0``.

    Parameters
    ----------
    lam : float
        The candidate optimum (e.g. the Charnes-Cooper LP's value).
    beta : float
        A verified lower bound on ``min N(x) - lam * D(x)`` over the feasible set.
    den_min : float or None
        A verified positive lower bound on ``D`` over the feasible set; needed only when ``beta < 0``.

    Returns
    -------
    float
        ``lam + min(beta, 0) / den_min``, rounded down; ``-inf`` when ``beta < 0`` and no positive
        ``den_min`` is known.

    Examples
    --------
    >>> fractional_lower_bound(0.5, 0.0, None)
    0.5
    >>> 0.5 - 1e-12 / 0.25 - fractional_lower_bound(0.5, -1e-12, 0.25) < 1e-15
    True
    """
    if not math.isfinite(lam) or math.isnan(beta):
        return -math.inf
    if beta >= 0:
        return lam
    if den_min is None or not den_min > 0 or not math.isfinite(beta):
        return -math.inf
    return _down(_down(lam + _down(beta / den_min)))

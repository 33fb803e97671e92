"""Exact, verified optimum of a difference of two ratios over a polytope (a parity of two rates).

A parity ``rate_a - rate_b`` compiles to linear rows in the model ``q`` plus the two definitions
``r_k * D_k(q) = N_k(q)``: a nonconvex program, but one-dimensional. With ``rho_k = N_k / D_k``
(weights folded in),

    max_q rho_a(q) - rho_b(q)  =  max_theta  theta - h(theta),
    h(theta) = min { rho_b(q) : q in P, N_a(q) - theta * D_a(q) >= 0 },

each ``h(theta)`` one Charnes-Cooper LP (HiGHS); ``h`` is non-decreasing and piecewise Moebius in ``theta``.

**The certificate.** At an evaluated ``theta`` the LP's duals give, verified with outward rounding
(:func:`~fairprobe.program.safe_bounds.verified_lower_bound`), ``N_b - lam * D_b >= beta`` on
``P ∩ {rho_a >= theta}``, with ``nu >= 0`` the multiplier of the ``theta`` row. A convex combination
of the dual vectors of two evaluations ``l < u`` bounds every ``theta`` between them (the weak-duality
bound is concave in the dual vector):

    h(theta) >= lam_l + w(theta) (lam_u - lam_l) + min(beta_l, beta_u, 0) / D_b,min,
    theta(w) = ((1-w) nu_l theta_l + w nu_u theta_u) / ((1-w) nu_l + w nu_u),

a Moebius function whose gap to ``theta`` has a closed-form maximum, equal to ``h`` where one LP basis
spans the interval; so a one-dimensional branch and bound on ``theta`` closes after a few LPs per piece.
The achieved value is ``rho_a - rho_b`` at an LP's primal point (feasible to HiGHS's 1e-10).

:func:`two_ratio_form` recognises the structure; :func:`solve_two_ratio` solves it. Any other shape
is left to the global solver (``None``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairprobe.backends.base import Limit, SolveOptions, SolveResult, Termination
from fairprobe.backends.highs_lp import WarmLP, run_lp
from fairprobe.program.model import Constraint, PolynomialProgram, Variable
from fairprobe.program.safe_bounds import (
    LinearArrays,
    TightBounder,
    charnes_cooper_arrays,
    linear_arrays,
    verified_lower_bound,
    with_row,
)
from fairprobe.program.transforms import charnes_cooper

__all__ = ["TwoRatioForm", "solve_two_ratio", "two_ratio_form"]

#: Evaluations of ``h`` (one LP each) before the search stops with its current, still valid, bound.
MAX_EVALUATIONS = 200

#: Gap between the verified bound and the best model at which the search stops (relative above 1).
SEARCH_GAP = 1e-9

#: Largest slack of the certificate (dual rounding over the smallest denominator) accepted as closed;
#: beyond it the program goes to the global solver.
CERTIFICATE_SLACK = 1e-6

#: Share of the search's gap below which a certificate's slack, divided by the least denominator of all
#: of ``P``, is kept as it is: the LP that finds a larger denominator on a smaller set (and so a smaller
#: slack) runs only where the slack could decide whether the search closes.
SLACK_SHARE = 0.1

_U = 2.0 ** -53


@dataclass(frozen=True)
class TwoRatioForm:
    """A program ``c0 + c_a r_a + c_b r_b`` with ``r_k D_k(q) = N_k(q)`` and linear rows in ``q``.

    Attributes
    ----------
    ratios : tuple of int
        Indices of the two ratio variables in the program.
    weights : tuple of float
        Their objective coefficients ``c_a, c_b``.
    constant : float
        The objective's constant ``c0``.
    base : PolynomialProgram
        The polytope ``P`` over ``q`` alone (the program's linear rows, the ratio boxes as rows).
    keep : tuple of int
        The program index of each variable of ``base``.
    num, den : tuple of (numpy.ndarray, float)
        ``N_k`` and ``D_k`` as coefficient vectors over ``base``'s variables and constants.
    rows : tuple of int
        The program index of each linear row of ``base`` (the ratio boxes follow them).
    """

    ratios: tuple[int, int]
    weights: tuple[float, float]
    constant: float
    base: PolynomialProgram
    keep: tuple[int, ...]
    num: tuple[tuple[np.ndarray, float], tuple[np.ndarray, float]]
    den: tuple[tuple[np.ndarray, float], tuple[np.ndarray, float]]
    rows: tuple[int, ...] = ()


def _definition(program: PolynomialProgram, rows: list[int], r: int,
                ratios: set[int]) -> tuple[int, dict, dict] | None:
    """The row defining ratio ``r`` as ``(row index, N, D)``, or None; ``rows``: those in which ``r`` appears."""
    if len(rows) != 1:
        return None
    con = program.constraints[rows[0]]
    if con.sense != "==":
        return None
    num: dict[tuple[int, ...], float] = {}
    den: dict[tuple[int, ...], float] = {}
    for mono, coef in con.poly.items():
        if r in mono:
            rest = tuple(i for i in mono if i != r)
            if len(mono) != len(rest) + 1 or len(rest) > 1 or any(i in ratios for i in rest):
                return None
            den[rest] = den.get(rest, 0.0) + coef
        else:
            if len(mono) > 1 or any(i in ratios for i in mono):
                return None
            num[mono] = num.get(mono, 0.0) - coef
    if con.rhs:
        num[()] = num.get((), 0.0) + con.rhs
    if not den:
        return None
    return rows[0], num, den


def two_ratio_form(program: PolynomialProgram) -> TwoRatioForm | None:
    """Recognise ``c0 + c_a r_a + c_b r_b`` (``c_a c_b < 0``) over ratio definitions and linear rows.

    Parameters
    ----------
    program : PolynomialProgram

    Returns
    -------
    TwoRatioForm or None
        None when the program has another shape (the global solver then takes it).

    Examples
    --------
    See :func:`solve_two_ratio`, whose example program it recognises.
    """
    used = _two_ratios(program)
    if used is None:
        return None
    obj = program.objective
    ratios = set(used)
    linear, defs = _split_rows(program, used, ratios)
    if defs is None or defs[0][0] == defs[1][0]:
        return None
    weights = (float(obj[(used[0],)]), float(obj[(used[1],)]))
    if weights[0] * weights[1] >= 0:
        return None  # a sum of two ratios: not this method
    keep = tuple(i for i in range(program.n_variables) if i not in ratios)
    if any(not (math.isfinite(program.variables[i].lb) and math.isfinite(program.variables[i].ub)) for i in keep):
        return None  # the verified bounds need a finite box on every model variable
    new = {old: k for k, old in enumerate(keep)}
    base = _base_program(program, keep, new, linear)
    if base is None:
        return None
    nums, dens = [], []
    for r, (_, num, den) in zip(used, defs, strict=True):
        nv, dv = _vector(_remap(num, new), len(keep)), _vector(_remap(den, new), len(keep))
        _add_box_rows(base, program.variables[r], nv, dv)
        nums.append(nv)
        dens.append(dv)
    return TwoRatioForm(ratios=(used[0], used[1]), weights=weights, constant=float(obj.get((), 0.0)), base=base,
                        keep=keep, num=(nums[0], nums[1]), den=(dens[0], dens[1]), rows=tuple(linear))


def _two_ratios(program: PolynomialProgram) -> list[int] | None:
    """The two variables a linear objective reads (no denominator, no integers), else None."""
    if program.objective_denominator is not None or program.has_integers:
        return None
    obj = program.objective
    if any(len(m) > 1 for m in obj):
        return None
    used = [m[0] for m, c in obj.items() if m and c != 0.0]
    return used if len(used) == 2 else None


def _split_rows(program: PolynomialProgram, used: list[int], ratios: set[int]
                ) -> tuple[list[int], list[tuple[int, dict, dict]] | None]:
    """The rows without a ratio, and each ratio's definition (None when one has another shape)."""
    appears: dict[int, list[int]] = {r: [] for r in used}
    linear: list[int] = []
    for i, con in enumerate(program.constraints):
        touched = {j for m in con.poly for j in m if j in ratios}
        for j in touched:
            appears[j].append(i)
        if not touched:
            linear.append(i)
    defs = [_definition(program, appears[r], r, ratios) for r in used]
    return linear, None if any(d is None for d in defs) else defs


def _base_program(program: PolynomialProgram, keep: tuple[int, ...], new: dict[int, int],
                  linear: list[int]) -> PolynomialProgram | None:
    """P: the model variables and the linear rows (None when a row without a ratio is not linear)."""
    base = PolynomialProgram(sense="min", name=program.name,
                             variables=[Variable(program.variables[i].name, program.variables[i].lb,
                                                 program.variables[i].ub) for i in keep])
    for i in linear:  # (a row with a ratio other than its definition was refused above)
        con = program.constraints[i]
        if any(len(m) > 1 for m in con.poly):
            return None
        base.constraints.append(Constraint(_remap(con.poly, new), con.sense, con.rhs, con.name))
    return base


def _vector(poly: dict, n: int) -> tuple[np.ndarray, float]:
    """A remapped linear poly as (coefficients, constant)."""
    v = np.zeros(n)
    for m, c in poly.items():
        if m:
            v[m[0]] += c
    return v, float(poly.get((), 0.0))


def _add_box_rows(base: PolynomialProgram, var: Variable, nv: tuple[np.ndarray, float],
                  dv: tuple[np.ndarray, float]) -> None:
    """The ratio's own box, as rows of P: N - lb * D >= 0 and N - ub * D <= 0 (D > 0 on P)."""
    for bound, sense in ((var.lb, ">="), (var.ub, "<=")):
        if math.isfinite(bound):
            coef = nv[0] - bound * dv[0]
            poly = {(int(k),): float(coef[k]) for k in np.flatnonzero(coef)}
            base.constraints.append(Constraint(poly, sense, -(nv[1] - bound * dv[1]), f"_box_{var.name}"))


def _remap(poly: dict, new: dict[int, int]) -> dict:
    """A linear polynomial (monomials ``()`` or one index) over the program's variables, over ``base``'s."""
    return {((new[m[0]],) if m else ()): c for m, c in poly.items()}


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


@dataclass
class _Eval:
    theta: float
    lam: float  # the Charnes-Cooper LP's value (the candidate h(theta))
    nu: float  # multiplier of the theta row (>= 0)
    beta: float  # verified: N_b - lam D_b >= beta on P ∩ {rho_a >= theta}
    point: np.ndarray
    achieved: float  # rho_a - rho_b at the point
    slope: float  # estimate of h'(theta) from the duals (guides the search only)
    row: tuple[np.ndarray, float] = None  # the theta row (coefficients on the support, constant)
    nudged: bool = False  # placed just right of a kink predicted at the flat end (not to be repeated)
    tangent_of: int | None = None  # id of the evaluation whose tangent predicted this point (a guess)
    flat_end: bool = False  # placed where the flat level was found to end (by a flat point's rate or an LP)
    rate_a: float = math.nan  # rho_a at the point (a flat evaluation's point: h stays flat up to it)


class _Search:
    """``max rho_a - rho_b`` over ``P`` for one orientation (weights folded into ``N_a``, ``N_b``)."""

    def __init__(self, form: TwoRatioForm, a: int, b: int, scale_a: float, scale_b: float,
                 options: SolveOptions, deadline: float | None, shared: dict | None = None) -> None:
        self.options, self.deadline = options, deadline
        base = form.base
        self.na = (form.num[a][0] * scale_a, form.num[a][1] * scale_a)
        self.da = form.den[a]
        self.nb = (form.num[b][0] * scale_b, form.num[b][1] * scale_b)
        self.db = form.den[b]
        shared = {} if shared is None else shared
        if "q_arr" not in shared:  # the polytope's arrays, the same for either sense
            shared["q_arr"] = linear_arrays(base)
        self.q_arr = shared["q_arr"]
        self.support = np.flatnonzero((self.na[0] != 0) | (self.da[0] != 0)).astype(np.int32)
        # the rows read once for every certificate of both senses (each sense's theta row has its own support)
        key = ("bounder", self.support.tobytes())
        if key not in shared:
            shared[key] = TightBounder(self.q_arr, extra_cols=self.support)
        if "bounder" not in shared:  # (the same rows without the theta row: no second read of them)
            shared["bounder"] = shared[key].without_row()
        self.bound_plain, self.bound_row = shared["bounder"], shared[key]
        self.m = len(base.constraints)
        self._base = base
        self._shared, self._ab = shared, (a, b)
        self.cc_arr = self._ratio_lp(1, 1.0)
        self.da_min = -math.inf
        self.slack = 0.0
        self.support_b = np.flatnonzero((self.nb[0] != 0) | (self.db[0] != 0)).astype(np.int32)
        self.forms = np.vstack([self.na[0], self.da[0], self.nb[0], self.db[0]])
        self.form_constants = np.array([self.na[1], self.da[1], self.nb[1], self.db[1]])
        self.lps = 0
        self.warm: WarmLP | None = None
        self.warm_den: WarmLP | None = None
        self.cols: np.ndarray | None = None  # the theta row's columns in the Charnes-Cooper LP
        self._den_cache: dict[tuple[int, int], float] = {}
        self.candidates: list[_Eval] = []  # models found off the evaluations (they bound nothing)

    def close(self) -> None:
        """Hand the warm LPs' HiGHS instances back (the search is over)."""
        for warm in (self.warm, self.warm_den):
            if warm is not None:
                warm.close()
        self.warm = self.warm_den = None

    def _lp(self, arr: LinearArrays) -> Any:
        """One LP of the search (counted)."""
        self.lps += 1
        return run_lp(arr, None, self.options, self.deadline)

    def denominator_min(self, den: tuple[np.ndarray, float], k: int) -> float:
        """A verified lower bound on ``D`` (ratio ``k``'s) over ``P`` (``-inf`` on failure)."""
        arr = dataclasses.replace(self.q_arr, c=den[0].copy(), c0=den[1])
        return _verified(arr, self._lp(arr))

    def ratio_a_top(self) -> tuple[float, float, np.ndarray] | None:
        """Verified upper bound on ``max rho_a`` over ``P``, and a point (with its ``rho_a``) near it."""
        run = self._lp(self._ratio_lp(0, -1.0))
        point = self._cc_point(run)
        if point is None:
            return None
        lam = -run.objective
        mu = run.y[1:1 + self.m] if run.y is not None else np.zeros(self.m)
        # -(N_a - lam D_a) >= beta on P (verified), so rho_a <= lam - beta / D_a,min
        beta = self.bound_plain.bound(-(self.na[0] - lam * self.da[0]), -(self.na[1] - lam * self.da[1]), mu)
        return lam, beta, point

    def _cc_point(self, run: Any) -> np.ndarray | None:
        """The model of a Charnes-Cooper LP's optimum (``y / t``), None without one."""
        if run.status != "optimal" or run.x is None or run.x[-1] <= 0:
            return None
        return np.clip(run.x[:-1] / run.x[-1], self.q_arr.lb, self.q_arr.ub)  # HiGHS leaves -1e-12s

    def _ratio_lp(self, which: int, sign: float) -> LinearArrays:
        """The Charnes-Cooper LP of ``sign * rho_a`` (``which`` 0) or ``sign * rho_b`` (1), built once per
        ratio for both senses (a sense's ``rho_a`` is the other's ``rho_b``; only the objective's sign differs)."""
        key = ("cc", self._ab[which])
        if key not in self._shared:
            num, den = (self.na, self.da) if which == 0 else (self.nb, self.db)
            self._shared[key] = self._charnes_cooper(num, den, 1.0)
        arr = self._shared[key]
        return arr if sign > 0 else dataclasses.replace(arr, c=-arr.c, c0=-arr.c0)

    def _charnes_cooper(self, num: tuple[np.ndarray, float], den: tuple[np.ndarray, float],
                        sign: float) -> LinearArrays:
        """The Charnes-Cooper LP of ``sign * N / D`` over ``P`` (a minimisation)."""
        arr = charnes_cooper_arrays(self.q_arr, num, den, sign)
        if arr is not None:
            return arr
        def poly(vec: tuple[np.ndarray, float]) -> dict:  # a ranged row: through the polynomial program
            out = {(k,): float(v) for k, v in enumerate(vec[0]) if v != 0.0}
            if vec[1]:
                out[()] = vec[1]
            return out

        prog = self._base.copy()
        prog.objective, prog.objective_denominator = poly(num), poly(den)
        return linear_arrays(charnes_cooper(prog), sign=sign)

    def rho(self, point: np.ndarray, num: tuple[np.ndarray, float], den: tuple[np.ndarray, float]) -> float:
        return float((num[0] @ point + num[1]) / (den[0] @ point + den[1]))

    def evaluate(self, theta: float) -> _Eval | None:
        """``h(theta)`` with its verified certificate, or None when the LP has no optimum."""
        coef = self.na[0][self.support] - theta * self.da[0][self.support]
        const = self.na[1] - theta * self.da[1]
        values = np.append(coef, const)
        self.lps += 1
        cc = self.cc_arr
        if self.cols is None:
            self.cols = np.append(self.support, cc.n_cols - 1)
        if self.warm is None:  # the theta row is the last row; only its coefficients change from here on
            self.warm = WarmLP(with_row(cc, self.cols, values, 0.0, math.inf), self.options)
        else:
            self.warm.set_coefficients(cc.n_rows, self.cols, values)
        run = self.warm.run(self.deadline)
        point = self._cc_point(run)
        if point is None or run.y is None:
            return None
        lam = run.objective
        nu = max(float(run.y[-1]), 0.0) if math.isfinite(run.y[-1]) else 0.0
        mu = run.y[1:1 + self.m]
        beta = self.bound_row.bound(self.nb[0] - lam * self.db[0], self.nb[1] - lam * self.db[1], np.append(mu, nu),
                                    (coef, -const, math.inf))
        # the four linear forms at the point in one product (rho_a = N_a / D_a, rho_b = N_b / D_b)
        na, da, nb, db = (self.forms @ point + self.form_constants).tolist()
        rate_a = na / da if da > 0 else math.nan
        if da > 0 and db > 0:
            achieved = rate_a - nb / db
        else:  # a point on the edge of the ratios' domain: no value to report from it
            achieved = -math.inf
        # h'(theta) = nu D_a / D_b at the optimum (envelope theorem on N_b - lam D_b): where to look next
        slope = nu * da / db if db > 0 else math.inf
        return _Eval(theta, lam, nu, beta, point, achieved, slope, (coef, const), rate_a=rate_a)

    def structural_max(self) -> float:
        """``max_j n_j / d_j`` over the columns: ``rho_a`` never exceeds it on ``q >= 0`` (a rate: 1)."""
        (n, n0), (d, d0) = self.na, self.da
        cols = (n != 0) | (d != 0)
        if n0 or d0 or np.any(d[cols] < 0) or np.any(self.q_arr.lb[cols] < 0) or np.any((n != 0) & (d == 0)):
            return math.inf
        ratios = n[cols & (d > 0)] / d[cols & (d > 0)]
        return _up(float(ratios.max())) if ratios.size else math.inf

    def flat_end(self, lam: float, tol: float) -> float | None:
        """``max rho_a`` over the models with ``rho_b <= lam + tol / 10``: where ``h`` leaves its flat level.

        It only places the next evaluation (which certifies it); None when the LP gives no point.
        """
        level = lam + 0.1 * tol  # a little above the level, which the LP found only to its tolerance
        cc = self._ratio_lp(0, -1.0)
        t = cc.n_cols - 1
        coef = self.nb[0][self.support_b] - level * self.db[0][self.support_b]
        cols, vals = np.append(self.support_b, t), np.append(coef, self.nb[1] - level * self.db[1])
        point = self._cc_point(self._lp(with_row(cc, cols, vals, -math.inf, 0.0)))
        if point is None or not (self.da[0] @ point + self.da[1] > 0 and self.db[0] @ point + self.db[1] > 0):
            return None
        rate_a, rate_b = self.rho(point, self.na, self.da), self.rho(point, self.nb, self.db)
        # the LP's model is a candidate for the best value (at the end of the flat level, often the optimum)
        self.candidates.append(_Eval(rate_a, rate_b, 0.0, -math.inf, point, rate_a - rate_b, math.inf))
        return rate_a

    def top_den_min(self, lam: float) -> float:
        """Verified ``min D_a`` over ``P ∩ {rho_a >= lam}`` (at least the min over ``P``)."""
        coef = self.na[0][self.support] - lam * self.da[0][self.support]
        arr = with_row(self.q_arr, self.support, coef, -(self.na[1] - lam * self.da[1]), math.inf)
        arr = dataclasses.replace(arr, c=self.da[0].copy(), c0=self.da[1])
        # (an "infeasible" from HiGHS is not verified: the set may hold models to within its tolerance, so
        # the least denominator of all of P stands in, as for any run without a verified optimum)
        return max(_verified(arr, self._lp(arr)), self.da_min)

    def den_min_between(self, lo: _Eval, hi: _Eval, floor: float, margin: float) -> float:
        """Verified ``min D_b`` over ``P ∩ {rho_a >= lo.theta} ∩ {rho_b <= hi.lam + margin}`` (at least ``floor``).

        A negative ``beta`` needs the least ``D_b`` only over these models, typically a share of the group
        where over all of ``P`` it may reach 1e-9; ``margin`` keeps the set non-empty at the least ``rho_b``.
        """
        key = (id(lo), id(hi))
        if key not in self._den_cache:
            level = hi.lam + margin
            lam_coef = self.nb[0][self.support_b] - level * self.db[0][self.support_b]
            lam_const = self.nb[1] - level * self.db[1]
            arr = with_row(self.q_arr, self.support, lo.row[0], -lo.row[1], math.inf)
            arr = with_row(arr, self.support_b, lam_coef, -math.inf, -lam_const)
            arr = dataclasses.replace(arr, c=self.db[0].copy(), c0=self.db[1])
            self.lps += 1
            if self.warm_den is None:
                self.warm_den = WarmLP(arr, self.options)
            else:
                self.warm_den.set_coefficients(self.m, self.support, lo.row[0])
                self.warm_den.set_row_bounds(self.m, -lo.row[1], math.inf)
                self.warm_den.set_coefficients(self.m + 1, self.support_b, lam_coef)
                self.warm_den.set_row_bounds(self.m + 1, -math.inf, -lam_const)
            # (an unverified "infeasible" proves nothing: the floor of all of P then stands in)
            self._den_cache[key] = max(_verified(arr, self.warm_den.run(self.deadline)), floor)
        return self._den_cache[key]


def _verified(arr: LinearArrays, run: Any) -> float:
    """The verified lower bound of an LP run's duals, ``-inf`` without a verified optimum."""
    return verified_lower_bound(arr, run.y) if run.status == "optimal" and run.y is not None else -math.inf


def _interval_bound(
lo: _Eval, hi: _Eval, eps: float) -> tuple[float, float, bool]:
    """Upper bound on ``theta - h(theta)`` over ``[lo.theta, hi.theta]``, where to split next, and whether
    that is the interior point where the bound is attained (exact when one LP basis spans the interval)."""
    w = hi.theta - lo.theta
    dlam = hi.lam - lo.lam
    end_lo, end_hi = lo.theta - lo.lam, hi.theta - hi.lam
    mid = lo.theta + 0.5 * w
    interior = False
    if lo.nu == 0.0 and hi.nu == 0.0:
        best, split = hi.theta - max(lo.lam, hi.lam), mid
    elif hi.nu == 0.0:
        best, split = max(end_lo, end_hi), mid
    elif lo.nu == 0.0:
        # h flat at lam_l from theta_l, rising to lam_u: the kink, from the tangent at theta_u (Newton)
        best = hi.theta - min(lo.lam, hi.lam)
        split = hi.theta - dlam / hi.slope if hi.slope > 0 and math.isfinite(hi.slope) else mid
    else:
        best = max(end_lo, end_hi)
        # where the two tangents of h cross: the likely change of LP basis
        ds = lo.slope - hi.slope
        split = ((hi.lam - lo.lam + lo.slope * lo.theta - hi.slope * hi.theta) / ds
                 if ds != 0 and math.isfinite(ds) else mid)
        m, k = hi.nu * w, lo.nu - hi.nu
        if dlam > 0 and k < 0:
            s = math.sqrt(dlam * lo.nu * m)
            if lo.nu * w < s < m:
                x = (s - m) / k
                den = m + k * x
                g = lo.theta - lo.lam + x - dlam * lo.nu * x / den
                slope = 1.0 - dlam * lo.nu * m / (den * den)
                # concave here: the tangent at x bounds it on [0, w]
                best = max(best, g + abs(slope) * w)
                split, interior = lo.theta + x, True
    size = abs(lo.theta) + abs(hi.theta) + abs(lo.lam) + abs(hi.lam) + w
    return _up(best + eps + 64 * _U * size), split, interior


def _piece(e1: _Eval, e2: _Eval | None) -> tuple[Any, bool]:
    """A model of ``h`` near ``e1``, and whether it is a tangent (a guess from one point): flat where the
    theta row is slack, else the Moebius curve of the interval bound through ``e1`` and ``e2`` (exact on
    one LP basis), else the tangent at ``e1``."""
    if e1.nu == 0.0:
        return (lambda theta: e1.lam), False
    if e2 is not None and e2.nu > 0.0 and e2.lam != e1.lam:
        def moebius(theta: float) -> float:
            a, b = e1.nu * (theta - e1.theta), e2.nu * (e2.theta - theta)
            return e1.lam + (e2.lam - e1.lam) * a / (a + b) if a + b != 0 else math.nan
        return moebius, False
    if math.isfinite(e1.slope):
        return (lambda theta: e1.lam + e1.slope * (theta - e1.theta)), True
    return None, False


def _breakpoint(before: _Eval | None, lo: _Eval, hi: _Eval, after: _Eval | None) -> tuple[float | None, bool]:
    """Where the LP basis likely changes in ``(lo, hi)`` (the crossing of the models of ``h`` on each
    side), and whether the right side's model is the tangent at ``hi``."""
    (left, _), (right, tangent) = _piece(lo, before), _piece(hi, after)
    if left is None or right is None:
        return None, False

    def gap(theta: float) -> float:
        return left(theta) - right(theta)

    g_lo, g_hi = gap(lo.theta), gap(hi.theta)
    if not (math.isfinite(g_lo) and math.isfinite(g_hi)) or g_lo * g_hi > 0:
        return None, False
    if g_lo == 0:
        return lo.theta, tangent
    a, b = lo.theta, hi.theta
    for _ in range(60):  # bisection on a scalar closed form: cheap next to one LP
        mid = 0.5 * (a + b)
        g = gap(mid)
        if not math.isfinite(g):
            return None, False
        if (g > 0) == (g_lo > 0):
            a = mid
        else:
            b = mid
        if b - a <= 1e-16 * max(1.0, abs(mid)):
            break
    return 0.5 * (a + b), tangent


def _search(s: _Search, theta_lo: float, top: tuple[float, float, np.ndarray], db_min: float,
            tol: float) -> tuple[float, _Eval, int] | None:
    """Branch and bound on ``theta``: (verified upper bound, best evaluation, evaluations) or None."""
    theta_hi = _theta_hi(s, top, tol)
    evals = _first_evaluations(s, theta_lo, top) if theta_hi is not None else None
    if evals is None:
        return None
    kink_tried = False
    while True:
        upper, best, slacks, bounds, heavy, tail = _survey(s, evals, theta_hi, db_min, tol)
        if s.lps >= MAX_EVALUATIONS or not bounds:
            return upper, best, s.lps
        closed = upper - best.achieved <= tol + 2.0 * s.slack and not heavy
        late = s.deadline is not None and time.perf_counter() > s.deadline
        i = None if closed or late else _chosen_interval(slacks, bounds, heavy, tail)
        if i is None:
            return upper, best, s.lps
        lo, hi = evals[i], evals[i + 1]
        plan, nudge, kink_tried = _plan(s, evals, i, bounds[i], kink_tried, tol)
        if hi.theta - lo.theta <= 1e-15 * max(1.0, abs(lo.theta)):
            return upper, best, s.lps
        stale, nudged = _settle(plan, lo, hi, nudge, tol)
        e = s.evaluate(plan.theta)
        if e is None:
            return None
        e.nudged, e.flat_end = nudged, plan.at_end
        e.tangent_of = id(hi) if plan.tangent and not stale else None
        evals.insert(i + 1, e)


def _survey(s: _Search, evals: list[_Eval], theta_hi: float, db_min: float, tol: float
            ) -> tuple[float, _Eval, list[float], list[tuple[float, float, bool]], list[int], float]:
    """(upper bound, best evaluation, slacks, interval bounds, heavy-slack intervals, tail); sets ``s.slack``."""
    last = evals[-1]
    h_last = last.lam - _slack(s, last, last, True, db_min, tol)
    best = max([*evals, *s.candidates], key=lambda e: e.achieved)
    slacks, bounds = _interval_bounds(s, evals, best, db_min, tol)
    s.slack = max([sl for sl, (b, _, _) in zip(slacks, bounds, strict=True) if b >= best.achieved]
                  + [last.lam - h_last])
    tail = _up(theta_hi - h_last)  # [theta_top, theta_hi]: h >= h(theta_top)
    upper = max([b for b, _, _ in bounds] + [tail])
    # a slack beyond what the caller accepts as closed (a rising end's rounding over a denominator that
    # reaches 1e-7 between two evaluations) can shrink with the interval: split the one that carries it
    # rather than stop with a bound the caller then declines
    heavy = [j for j, (sl, (b, _, _)) in enumerate(zip(slacks, bounds, strict=True))
             if b >= best.achieved and sl > CERTIFICATE_SLACK * max(1.0, abs(upper))]
    return upper, best, slacks, bounds, heavy, tail


def _plan(s: _Search, evals: list[_Eval], i: int, bound: tuple[float, float, bool], kink_tried: bool,
          tol: float) -> tuple[_Split, float, bool]:
    """Where to split interval ``i`` (before :func:`_settle`), the nudge off its ends, and whether the LP
    of the flat level's end was tried."""
    lo, hi = evals[i], evals[i + 1]
    _, split, interior = bound
    # a flat lo with a rising hi: the interval's own split is the tangent at hi (Newton)
    plan = _Split(split, tangent=lo.nu == 0.0 and hi.nu > 0.0, interior=interior)
    nudge = min(1e-10 * max(1.0, abs(lo.theta)), 0.25 * (hi.theta - lo.theta))
    if plan.tangent:
        kink_tried = _place_at_flat_end(s, lo, hi, plan, nudge, kink_tried, tol)
    if hi.nu > 0.0 and not plan.interior:
        # where one basis would attain the bound, look there first; otherwise where the LP basis likely changes
        kink, kink_tangent = _breakpoint(evals[i - 1] if i > 0 else None, lo, hi,
                                         evals[i + 2] if i + 2 < len(evals) else None)
        if kink is not None:
            plan.theta, plan.fitted, plan.tangent = kink, True, kink_tangent
    return plan, nudge, kink_tried


@dataclass
class _Split:
    """Where the search evaluates next inside an interval, and how that place was chosen."""

    theta: float
    fitted: bool = False  # placed by a model of h (a kink or the flat level's end), not by bisection
    tangent: bool = False  # placed by the tangent at hi (a guess from one point)
    interior: bool = False  # where the interval's bound is attained, or a flat level's end
    at_end: bool = False  # where the flat level was found to end
    past_end: bool = False  # just past that end, by its own LP


def _theta_hi(s: _Search, top: tuple[float, float, np.ndarray], tol: float) -> float | None:
    """The verified end of the search: no model has ``rho_a`` above it (None when there is none)."""
    lam_top, beta_top, _ = top
    # rho_a <= lam + (-beta) / D_a only where rho_a > lam: divide by the least D_a there, not over all of P
    # (its own LP), unless the least over all of P already makes the excess negligible
    theta_hi = lam_top
    if beta_top < 0:
        excess = -beta_top / s.da_min
        theta_hi += excess if excess <= SLACK_SHARE * tol else -beta_top / s.top_den_min(lam_top)
    theta_hi = min(theta_hi, s.structural_max())
    return _up(_up(theta_hi)) if math.isfinite(theta_hi) else None


def _first_evaluations(s: _Search, theta_lo: float, top: tuple[float, float, np.ndarray]) -> list[_Eval] | None:
    """The evaluations at ``theta_lo`` and just below the top point's ``rho_a`` (where the LP stays feasible)."""
    lam_top, _, point_top = top
    rho_top = s.rho(point_top, s.na, s.da)
    first = s.evaluate(theta_lo)
    if first is None:
        return None
    evals = [first]
    for back in (1e-12, 1e-10, 1e-8):
        theta_top = min(rho_top, lam_top) - back * max(1.0, abs(lam_top))
        if theta_top <= theta_lo:
            break
        e = s.evaluate(theta_top)
        if e is not None:
            evals.append(e)
            break
    return evals


def _slack(s: _Search, lo: _Eval, hi: _Eval, exact: bool, db_min: float, tol: float) -> float:
    """The rounding of the certificates of ``[lo, hi]`` over the least denominator (its own LP when ``exact``)."""
    # a flat lo with a rising hi: the interval's bound rests on lo's certificate alone (h >= h(lo) by
    # monotonicity), so hi's rounding does not enter it
    lo_only = lo.nu == 0.0 and hi.nu > 0.0 and lo.lam <= hi.lam
    worst = lo.beta if lo_only else min(lo.beta, hi.beta)
    if worst >= 0:
        return 0.0
    loose = -worst / db_min  # over the least denominator of all of P: enough when negligible
    if not exact or loose <= SLACK_SHARE * tol:
        return loose
    return -worst / s.den_min_between(lo, hi, db_min, 0.1 * tol)


def _interval_bounds(s: _Search, evals: list[_Eval], best: _Eval, db_min: float, tol: float
                     ) -> tuple[list[float], list[tuple[float, float, bool]]]:
    """Each interval's slack and bound (:func:`_interval_bound`)."""
    # the slack over the least denominator of all of P first; its own LP only where that could matter
    slacks = [_slack(s, evals[i], evals[i + 1], False, db_min, tol) for i in range(len(evals) - 1)]
    bounds = [_interval_bound(evals[i], evals[i + 1], slacks[i]) for i in range(len(evals) - 1)]
    for i, (b, _, _) in enumerate(bounds):
        if slacks[i] > SLACK_SHARE * tol and b > best.achieved + tol:
            slacks[i] = _slack(s, evals[i], evals[i + 1], True, db_min, tol)
            bounds[i] = _interval_bound(evals[i], evals[i + 1], slacks[i])
    return slacks, bounds


def _chosen_interval(slacks: list[float], bounds: list[tuple[float, float, bool]], heavy: list[int],
                     tail: float) -> int | None:
    """The interval to split: the largest slack among ``heavy``, else the largest bound (None: only the tail)."""
    if heavy:
        return max(heavy, key=lambda j: (slacks[j], bounds[j][0]))
    i = max(range(len(bounds)), key=lambda j: bounds[j][0])
    return None if bounds[i][0] < tail else i  # only the sliver above the last point is open: nothing to split


def _place_at_flat_end(s: _Search, lo: _Eval, hi: _Eval, plan: _Split, nudge: float, kink_tried: bool,
                       tol: float) -> bool:
    """Place ``plan`` where h's flat level at ``lo`` ends (h rising at ``hi``); returns whether the LP was tried."""
    # lo's point attains the level (min rho_b over P), so h is flat at least up to its rho_a
    if lo.theta + nudge < lo.rate_a < hi.theta - nudge:
        plan.theta, plan.fitted, plan.tangent, plan.interior, plan.at_end = lo.rate_a, True, False, True, True
    elif not kink_tried:
        # many models attain the level (lo's point is at the theta row): the largest rho_a among
        # them, by its own LP, and the next evaluation just past it, where h has begun to rise
        end = s.flat_end(lo.lam, tol)
        if end is not None and lo.theta - nudge <= end < hi.theta - nudge:
            step = min(0.25 * (hi.theta - max(end, lo.theta)), 0.25 * tol / (1.0 + max(hi.slope, 0.0)))
            plan.theta, plan.fitted, plan.tangent, plan.interior = max(end, lo.theta) + step, True, False, True
            plan.at_end = plan.past_end = True
        return True
    elif lo.flat_end and not lo.nudged:  # flat at the end to within rounding: h rises just right of it
        plan.theta, plan.fitted, plan.tangent, plan.interior = lo.theta, True, False, True
    return kink_tried


def _settle(plan: _Split, lo: _Eval, hi: _Eval, nudge: float, tol: float) -> tuple[bool, bool]:
    """The final place of ``plan`` inside ``(lo, hi)``; returns (a stale tangent, placed just past a kink)."""
    w = hi.theta - lo.theta
    # the same tangent at hi that placed lo predicts lo again: it has nothing new to say (h is not a
    # line there), so bisect instead of nudging; two points on the rising piece then give its Moebius
    stale = plan.tangent and lo.tangent_of == id(hi)
    flat_kink = plan.fitted and plan.theta <= lo.theta + nudge and not lo.nudged and not stale
    if plan.past_end:
        pass  # placed just past the flat level's end
    elif stale:
        plan.theta = lo.theta + 0.5 * w
    elif flat_kink:
        # the kink is at lo.theta to within rounding: look just right of it, close enough to close the gap
        plan.theta = lo.theta + min(0.25 * w, 0.25 * tol / (1.0 + max(hi.slope, 0.0)))
    elif not math.isfinite(plan.theta) or not lo.theta < plan.theta < hi.theta:
        plan.theta = lo.theta + 0.5 * w
    else:
        plan.theta = min(max(plan.theta, lo.theta + nudge), hi.theta - nudge)
    return stale, flat_kink or plan.past_end


def solve_two_ratio(program: PolynomialProgram, form: TwoRatioForm | None = None,
                    options: SolveOptions | None = None, shared: dict | None = None) -> SolveResult | None:
    """Certified optimum of a two-ratio difference program (see the module docstring).

    Parameters
    ----------
    program : PolynomialProgram
        A program :func:`two_ratio_form` recognises.
    form : TwoRatioForm, optional
        Its form (computed when not given).
    options : SolveOptions, optional
        ``time_limit``, ``abs_gap`` and ``rel_gap`` are read.
    shared : dict, optional
        Sense-independent results (the denominators' verified minima) shared by the min and max solves.


    Returns
    -------
    SolveResult or None
        The verified bound and the best model found; None when the method does not apply (the
        caller then uses a global solver).

    Examples
    --------
    ``max x/(x+y) - z/(z+w)`` with each group's mass at least 0.2: the first rate can be 1 and the
    second 0.

    >>> from fairprobe.program.model import PolynomialProgram
    >>> from fairprobe.testing.backends import PARITY_TEXT
    >>> prog = PolynomialProgram.from_text(PARITY_TEXT).with_sense("max")
    >>> form = two_ratio_form(prog)

    >>> form.weights, form.base.n_variables
    ((1.0, -1.0), 4)
    >>> res = solve_two_ratio(prog, form)

    >>> res.termination.value, abs(res.objective_bound - 1.0) < 1e-9, res.objective_bound >= 1.0
    ('optimal', True, True)
    """
    start = time.perf_counter()
    options = options if options is not None else SolveOptions()
    form = form if form is not None else two_ratio_form(program)
    if form is None:
        return None
    shared = {} if shared is None else shared
    return _solve_two_ratio(program, form, options, shared, start)


def _solve_two_ratio(program: PolynomialProgram, form: TwoRatioForm, options: SolveOptions, shared: dict,
                     start: float) -> SolveResult | None:
    deadline = None if options.time_limit is None else start + float(options.time_limit)
    sign = 1.0 if program.sense == "max" else -1.0
    wa, wb = sign * form.weights[0], sign * form.weights[1]
    # maximise rho_a - rho_b, rho_a = |w_a| r_a for the ratio with the positive weight
    a, b = (0, 1) if wa > 0 else (1, 0)
    s = _Search(form, a, b, abs((wa, wb)[a]), abs((wa, wb)[b]), options, deadline, shared)
    for k in (a, b):
        if ("den_min", k) not in shared:  # the same polytope and denominator for either sense
            shared[("den_min", k)] = s.denominator_min(form.den[k], k)
    s.da_min, db_min = shared[("den_min", a)], shared[("den_min", b)]
    if not (s.da_min > 0 and db_min > 0):
        return None  # a denominator that reaches 0 on P: the ratio is not defined everywhere
    top = s.ratio_a_top()
    if top is None:
        return None
    var = program.variables[form.ratios[a]]
    theta_lo = abs((wa, wb)[a]) * var.lb if math.isfinite(var.lb) else -abs((wa, wb)[a])
    if theta_lo > top[0]:
        theta_lo = top[0]
    # the search closes to 1e-9 (or the caller's tighter gap): it is cheap, and a bound is sharp only to it
    tol = min(SEARCH_GAP, max(options.abs_gap, options.rel_gap)) * max(1.0, abs(top[0]))
    try:
        found = _search(s, theta_lo, top, db_min, tol)
    finally:
        s.close()
    if found is None:
        return None
    upper, best, lps = found
    if not math.isfinite(best.achieved):
        return None  # no model with both rates defined was found: the global solver takes it
    # the program's value: c0 + sign * (rho_a - rho_b)
    values = np.empty(program.n_variables)
    values[list(form.keep)] = best.point
    for k, r in enumerate(form.ratios):
        num, den = form.num[k], form.den[k]
        values[r] = float((num[0] @ best.point + num[1]) / (den[0] @ best.point + den[1]))
    incumbent = {v.name: float(values[i]) for i, v in enumerate(program.variables)}
    point = values.tolist()  # (the same values, read by index)
    inc_obj = program.objective_value(point)
    bound = form.constant + upper if sign > 0 else form.constant - upper
    bound = _up(bound) if sign > 0 else math.nextafter(bound, -math.inf)
    gap = upper - best.achieved
    closed = gap <= tol + 2.0 * s.slack + 1e-15 and s.slack <= CERTIFICATE_SLACK * max(1.0, abs(upper))
    if not closed and (deadline is None or time.perf_counter() < deadline):
        return None  # not closed (an unusual program): the global solver takes it
    termination = Termination.OPTIMAL if closed else Termination.LIMIT
    extra = {"verified": True, "two_ratio": True, "lp_solves": lps, "max_violation": program.max_violation(point),
             "certificate_slack": s.slack, "gap": gap, "tol": tol}
    return SolveResult(termination, bound, incumbent_objective=inc_obj, incumbent=incumbent,
                       limit=None if closed else Limit.OTHER, sense=program.sense,
                       message=f"two-ratio parametric search: {lps} HiGHS LPs (exact; verified bound)",
                       solver="highs", wall_time=time.perf_counter() - start, extra=extra)

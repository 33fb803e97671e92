"""An independent sharp computation of a parity bound, for the sharpness tests.

It reads a compiled program's rows directly (not :mod:`fairprobe.backends.two_ratio`'s form),
solves every linear-fractional subproblem with ``scipy.optimize.linprog`` (Charnes-Cooper written
out here), and maximises ``theta - h(theta)`` by a dense grid refined with bounded Brent steps:
a value attained by a model (a lower estimate of the sup), accurate to about 1e-10 where the
maximum is a kink or a smooth peak of the one-dimensional function.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog, minimize_scalar


def _linear(poly: dict, n: int) -> tuple[np.ndarray, float]:
    v = np.zeros(n)
    for mono, coef in poly.items():
        if len(mono) == 1:
            v[mono[0]] += coef
        elif mono:
            raise ValueError("not linear")
    return v, float(poly.get((), 0.0))


class ParityOracle:
    """``sup (w_a r_a + w_b r_b)`` of a two-ratio program, by parametric LPs in scipy."""

    def __init__(self, program) -> None:
        obj = {m[0]: c for m, c in program.objective.items() if m and c}
        (ra, wa), (rb, wb) = sorted(obj.items())
        self.sense = program.sense
        n = program.n_variables
        keep = [i for i in range(n) if i not in (ra, rb)]
        eq, eq_b, ub, ub_b = [], [], [], []
        frac = {}
        for con in program.constraints:
            touches = {i for m in con.poly for i in m}
            if ra in touches or rb in touches:
                r = ra if ra in touches else rb
                den = {tuple(i for i in m if i != r): c for m, c in con.poly.items() if r in m}
                num = {m: -c for m, c in con.poly.items() if r not in m}
                frac[r] = (_linear(num, n), _linear(den, n))
                continue
            v, c0 = _linear(con.poly, n)
            rhs = con.rhs - c0
            if con.sense == "==":
                eq.append(v), eq_b.append(rhs)
            elif con.sense == "<=":
                ub.append(v), ub_b.append(rhs)
            else:
                ub.append(-v), ub_b.append(-rhs)
        for r in (ra, rb):  # the ratio boxes as rows
            (nv, n0), (dv, d0) = frac[r]
            var = program.variables[r]
            if math.isfinite(var.lb):
                ub.append(-(nv - var.lb * dv)), ub_b.append(n0 - var.lb * d0)
            if math.isfinite(var.ub):
                ub.append(nv - var.ub * dv), ub_b.append(-(n0 - var.ub * d0))
        sel = np.array(keep)
        self.A_eq = np.array(eq)[:, sel] if eq else None
        self.b_eq = np.array(eq_b) if eq else None
        self.A_ub = np.array(ub)[:, sel]
        self.b_ub = np.array(ub_b)
        self.bounds = [(program.variables[i].lb, program.variables[i].ub) for i in keep]
        sign = 1.0 if program.sense == "max" else -1.0
        # maximise rho_a - rho_b with rho_a the positively weighted ratio
        (a, wa_s), (b, wb_s) = sorted(((ra, sign * wa), (rb, sign * wb)), key=lambda t: -t[1])
        self.sign = sign
        (na, na0), self.da = frac[a]
        (nb, nb0), self.db = frac[b]
        self.na = (na[sel] * wa_s, na0 * wa_s)
        self.nb = (nb[sel] * -wb_s, nb0 * -wb_s)
        self.da = (self.da[0][sel], self.da[1])
        self.db = (self.db[0][sel], self.db[1])

    def _cc(self, num, den, extra=None, maximise=False):
        """min (or max) N/D over the polytope (plus extra <= rows), by Charnes-Cooper in linprog."""
        n = len(num[0])
        c = np.append(num[0], num[1]) * (-1.0 if maximise else 1.0)
        A_eq = [np.append(den[0], den[1])]
        b_eq = [1.0]
        if self.A_eq is not None:
            A_eq += [np.append(row, -b) for row, b in zip(self.A_eq, self.b_eq, strict=True)]
            b_eq += [0.0] * len(self.b_eq)
        rows = [np.append(row, -b) for row, b in zip(self.A_ub, self.b_ub, strict=True)]
        for j, (lo, hi) in enumerate(self.bounds):
            e = np.zeros(n + 1)
            e[j], e[n] = 1.0, -hi
            rows.append(e)
            if lo:
                e2 = np.zeros(n + 1)
                e2[j], e2[n] = -1.0, lo
                rows.append(e2)
        if extra is not None:
            rows.append(extra)
        res = linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=np.array(A_eq), b_eq=b_eq,
                      bounds=[(0, None)] * (n + 1), method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            return None
        y, t = res.x[:n], res.x[n]
        if not t > 0:
            return None
        lo = np.array([b[0] for b in self.bounds])
        hi = np.array([b[1] for b in self.bounds])
        return np.clip(y / t, lo, hi)

    def _rho(self, q, num, den) -> float:
        d = float(den[0] @ q + den[1])
        return float((num[0] @ q + num[1]) / d) if d > 0 else math.nan

    def value_at(self, theta: float) -> float:
        """``rho_a - rho_b`` at the minimiser of ``rho_b`` given ``rho_a >= theta`` (attained by a model)."""
        row = -np.append(self.na[0] - theta * self.da[0], self.na[1] - theta * self.da[1])  # -(N_a - theta D_a) <= 0
        q = self._cc(self.nb, self.db, extra=row)
        if q is None:
            return -math.inf
        value = self._rho(q, self.na, self.da) - self._rho(q, self.nb, self.db)
        return value if math.isfinite(value) else -math.inf

    def optimum(self, grid: int = 150) -> float:
        """The program's optimum (its own sense and constant), attained by a model."""
        top = self._cc(self.na, self.da, maximise=True)
        low = self._cc(self.na, self.da)
        hi, lo = self._rho(top, self.na, self.da), self._rho(low, self.na, self.da)
        thetas = np.linspace(lo, hi - 1e-12 * max(1.0, abs(hi)), grid)
        values = [self.value_at(t) for t in thetas]
        k = int(np.argmax(values))
        best = values[k]
        a, b = thetas[max(k - 1, 0)], thetas[min(k + 1, grid - 1)]
        if b > a:
            res = minimize_scalar(lambda t: -self.value_at(t), bounds=(a, b), method="bounded",
                                  options={"xatol": 1e-13})
            best = max(best, -res.fun)
        return best if self.sign > 0 else -best


def _lp_value(program) -> float | None:
    """Optimum of a linear or linear-fractional program by ``linprog`` (Charnes-Cooper written out)."""
    n = program.n_variables
    c, c0 = _linear(program.objective, n)
    den = _linear(program.objective_denominator, n) if program.objective_denominator is not None else None
    eq, eq_b, ub, ub_b = [], [], [], []
    for con in program.constraints:
        v, k = _linear(con.poly, n)
        rhs = con.rhs - k
        if con.sense == "==":
            eq.append(v), eq_b.append(rhs)
        elif con.sense == "<=":
            ub.append(v), ub_b.append(rhs)
        else:
            ub.append(-v), ub_b.append(-rhs)
    bounds = [(v.lb, v.ub) for v in program.variables]
    sign = 1.0 if program.sense == "min" else -1.0
    opts = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    if den is None:
        res = linprog(sign * c, A_ub=np.array(ub) if ub else None, b_ub=ub_b or None,
                      A_eq=np.array(eq) if eq else None, b_eq=eq_b or None, bounds=bounds, method="highs",
                      options=opts)
        return None if res.status != 0 else float(c @ res.x + c0)
    rows = [np.append(r, -b) for r, b in zip(ub, ub_b, strict=True)]
    for j, (lo, hi) in enumerate(bounds):
        e = np.zeros(n + 1)
        e[j], e[n] = 1.0, -hi
        rows.append(e)
        if lo:
            e2 = np.zeros(n + 1)
            e2[j], e2[n] = -1.0, lo
            rows.append(e2)
    A_eq = [np.append(den[0], den[1])] + [np.append(r, -b) for r, b in zip(eq, eq_b, strict=True)]
    res = linprog(sign * np.append(c, c0), A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=np.array(A_eq),
                  b_eq=[1.0] + [0.0] * len(eq), bounds=[(0, None)] * (n + 1), method="highs", options=opts)
    if res.status != 0:
        return None
    x = res.x[:n] / res.x[n]
    return float((c @ x + c0) / (den[0] @ x + den[1]))


def sharp_value(program) -> float | None:
    """The optimum of a compiled program, attained by a model, when the oracle covers its shape.

    Linear and linear-fractional programs: one ``linprog``; a parity of two rates (two ratio
    variables defined by bilinear rows, every other row linear): :class:`ParityOracle`. Anything
    else (bilinear data rows): None.
    """
    if program.max_degree <= 1:
        return _lp_value(program)
    ratios = [m[0] for m, c in program.objective.items() if len(m) == 1 and c]
    if program.objective_denominator is not None or len(ratios) != 2 or any(len(m) > 1 for m in program.objective):
        return None
    for con in program.constraints:
        touches = {i for m in con.poly for i in m}
        if any(len(m) > 1 for m in con.poly) and not touches & set(ratios):
            return None  # a bilinear row that is not a ratio definition
    return ParityOracle(program).optimum()

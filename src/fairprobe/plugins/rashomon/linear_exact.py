"""Exact predictive multiplicity of linear classifiers (Marx, Calmon & Ustun, 2020).

The model class is ``h_w(x) = sign(w . x)`` over the features plus a constant column, with the
scale fixed by ``||w||_1 <= 1`` and a margin ``gamma``: ``h_w`` *certifiably* predicts +1 at ``x``
when ``w . x >= gamma`` and -1 when ``w . x <= -gamma``; a point inside the margin band counts
as an error. The training error of ``w`` is therefore ``#{i : y_i w . x_i < gamma}``.

Three mixed-integer linear programs, solved through fairprobe's backends (SCIP by default):

* **ERM**: ``min sum_k n_k z_k`` with ``y_k w . x_k + M_k z_k >= gamma`` (``z_k`` binary,
  ``M_k = gamma + max_j |x_kj|`` bounds ``|w . x_k|`` under the L1 constraint). Its optimum is
  the reference ``h0`` and its error ``err0``.
* **Flip** (one per distinct point ``x_k``): the ERM program plus ``-h0(x_k) w . x_k >= gamma``.
  ``x_k`` is *ambiguous* when the optimum is ``<= err0 + epsilon * n``: some classifier in the
  exact epsilon-Rashomon set decides it differently from ``h0``. Ambiguity is the share of
  training points that are ambiguous.
* **Discrepancy**: ``max sum_i f_i`` over binaries ``f_i`` (``f_i = 1`` forces a certified flip
  of point ``i``) subject to the error budget: the largest share of predictions one
  epsilon-good model changes.

A flip program only has to decide whether its optimum is below the budget, so it stops as soon
as an incumbent is under it or the dual bound is above it; every model found is kept in a pool
that certifies other points without a solve. A solve that hits its time limit undecided leaves
the point *undecided*, and ambiguity is then reported as the certified interval
``[ambiguity_lower, ambiguity_upper]``.

Marx et al. split ``w`` into signed parts with sign binaries to fix ``||w||_1 = 1``; the
relaxation ``||w||_1 <= 1`` used here describes the same classifiers (a feasible ``w`` with
smaller norm can be scaled up, which only widens its margins) with no extra binaries.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.backends.base import SolveOptions, SolveResult, Termination
from fairprobe.core.program import PolynomialProgram
from fairprobe.exceptions import DataError, SolverError

__all__ = ["ExactLinearMultiplicity", "LinearMultiplicityResult"]


@dataclass
class LinearMultiplicityResult:
    """Exact multiplicity of linear classifiers on a training set.

    Attributes
    ----------
    reference_error : int
        Training errors of the empirical risk minimiser ``h0`` (certified optimal unless
        ``reference_optimal`` is False, then the best found).
    error_budget : float
        ``reference_error + epsilon * n``: members of the Rashomon set make at most this many errors.
    reference_predictions : ndarray of {0, 1}
        ``h0`` on the training rows.
    status : ndarray of str
        Per training row: ``"ambiguous"``, ``"not ambiguous"`` or ``"undecided"`` (time limit).
    ambiguity_lower, ambiguity_upper : float
        Certified bounds on the ambiguity (equal when nothing is undecided).
    discrepancy : float or None
        Largest share of training predictions one epsilon-good model changes (None when not asked).
    discrepancy_upper : float or None
        Certified upper bound on the discrepancy (equal to it when solved to optimality).
    n_solves : int
        Flip programs solved (the others were certified by the model pool).
    """

    reference_error: int
    error_budget: float
    reference_optimal: bool
    reference_weights: np.ndarray
    reference_predictions: np.ndarray
    status: np.ndarray
    ambiguity_lower: float
    ambiguity_upper: float
    discrepancy: float | None = None
    discrepancy_upper: float | None = None
    n_solves: int = 0
    solver: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ambiguity(self) -> float:
        """The ambiguity when certified exactly; raises when some point is undecided."""
        if self.ambiguity_lower != self.ambiguity_upper:
            raise SolverError(
                f"Ambiguity is only bounded, in [{self.ambiguity_lower:.4f}, {self.ambiguity_upper:.4f}]: some flip "
                "programs hit the time limit. Raise time_limit to decide them.")
        return self.ambiguity_lower

    def to_frame(self) -> pd.DataFrame:
        """Per training row: the reference prediction and the ambiguity status."""
        return pd.DataFrame({"reference_prediction": self.reference_predictions, "status": self.status})

    def summary(self) -> str:
        """A few readable lines."""
        amb = (f"{self.ambiguity_lower:.3f}" if self.ambiguity_lower == self.ambiguity_upper
               else f"in [{self.ambiguity_lower:.3f}, {self.ambiguity_upper:.3f}]")
        lines = [f"linear classifiers, exact epsilon-Rashomon set ({self.solver}):",
                 f"  reference training errors {self.reference_error}"
                 f"{'' if self.reference_optimal else ' (not proved optimal)'}; budget {self.error_budget:g}",
                 f"  ambiguity {amb} ({self.n_solves} flip programs solved)"]
        if self.discrepancy is not None:
            lines.append(f"  discrepancy {self.discrepancy:.3f} (certified <= {self.discrepancy_upper:.3f})")
        return "\n".join(lines)


class ExactLinearMultiplicity:
    """Ambiguity and discrepancy of the exact epsilon-Rashomon set of linear classifiers.

    Parameters
    ----------
    epsilon : float
        Error tolerance as a share of the training rows: members make at most
        ``err0 + epsilon * n`` training errors.
    margin : float
        ``gamma``; keep it well above the solver's feasibility tolerance (1e-6 for SCIP).
    backend : str
        Any registered backend with integer support (``"scip"``, ``"gurobi"``, ``"ortools"``).
    time_limit : float, optional
        Seconds per program; an undecided program widens the reported ambiguity interval.
    discrepancy : bool
        Also solve the discrepancy program.
    n_jobs : int, optional
        Flip programs solved in parallel (joblib processes, in rounds of ``2 * n_jobs``; every
        classifier found certifies points of later rounds without a solve).
    progress : bool
        Progress bar over the flip programs.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> res = ExactLinearMultiplicity(epsilon=0.25, progress=False).fit(X, y)
    >>> res.reference_error, res.ambiguity
    (0, 0.5)
    """

    def __init__(self, epsilon: float = 0.05, *, margin: float = 1e-4, backend: str = "scip",
                 time_limit: float | None = None, discrepancy: bool = True, n_jobs: int | None = None,
                 progress: bool = True) -> None:
        self.epsilon = epsilon
        self.n_jobs = n_jobs
        self.margin = margin
        self.backend = backend
        self.time_limit = time_limit
        self.discrepancy = discrepancy
        self.progress = progress

    # -- data ------------------------------------------------------------------------------------
    @staticmethod
    def _prepare(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y).ravel()
        if X.ndim != 2 or X.shape[0] != y.size:
            raise DataError(f"X must be 2-D with one row per label; got X {X.shape} and y {y.shape}.")
        if not np.isfinite(X).all():
            raise DataError("X has missing or infinite values; impute or drop them first.")
        labels = np.unique(y)
        if labels.size != 2:
            raise DataError(f"The exact linear MIP needs a binary target; got {labels.size} classes {labels[:5]}.")
        signs = np.where(y == labels[1], 1.0, -1.0)
        return np.hstack([X, np.ones((X.shape[0], 1))]), signs

    # -- programs --------------------------------------------------------------------------------
    def _base_program(self, Xa: np.ndarray, s: np.ndarray, counts: np.ndarray, sense: str) -> PolynomialProgram:
        """Weights with ||w||_1 <= 1 and error indicators z_k; objective: weighted errors."""
        prog = PolynomialProgram(sense=sense, name="linear_multiplicity")
        d = Xa.shape[1]
        w = [prog.add_variable(f"w{j}", -1.0, 1.0) for j in range(d)]
        a = [prog.add_variable(f"a{j}", 0.0, 1.0) for j in range(d)]
        for j in range(d):  # a_j >= |w_j|
            prog.add_constraint({(a[j],): 1.0, (w[j],): -1.0}, ">=", 0.0)
            prog.add_constraint({(a[j],): 1.0, (w[j],): 1.0}, ">=", 0.0)
        prog.add_constraint({(aj,): 1.0 for aj in a}, "<=", 1.0, name="l1")
        gamma = self.margin
        for k in range(Xa.shape[0]):
            z = prog.add_variable(f"z{k}", 0.0, 1.0, integer=True)
            big_m = gamma + float(np.abs(Xa[k]).max())
            poly = {(w[j],): s[k] * Xa[k, j] for j in range(d) if Xa[k, j] != 0.0}
            poly[(z,)] = big_m
            prog.add_constraint(poly, ">=", gamma, name=f"correct{k}")
        prog.set_objective({(prog.index(f"z{k}"),): float(c) for k, c in enumerate(counts)})
        return prog

    def _solve(self, prog: PolynomialProgram, **extra: Any) -> SolveResult:
        from fairprobe.core.registry import get_backend

        options = SolveOptions(time_limit=self.time_limit, **extra)
        return get_backend(self.backend).solve(prog, options)

    def _solve_many(self, programs: list[PolynomialProgram], solver_options: dict[str, Any],
                    jobs: int) -> list[SolveResult]:
        if jobs == 1 or len(programs) == 1:
            return [self._solve(prog, solver_options=solver_options) for prog in programs]
        from joblib import Parallel, delayed

        # processes, not threads: concurrent SCIP instances in one process are unsafe
        return Parallel(n_jobs=jobs)(delayed(self._solve)(prog, solver_options=solver_options) for prog in programs)

    def _weights(self, res: SolveResult, d: int) -> np.ndarray | None:
        if not res.incumbent:
            return None
        return np.array([res.incumbent[f"w{j}"] for j in range(d)])

    # -- fit -------------------------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> LinearMultiplicityResult:
        """Solve the ERM, flip and (optionally) discrepancy programs on ``(X, y)``.

        Parameters
        ----------
        X : array-like (n, d)
            Numeric features (a constant column is added).
        y : array-like (n,)
            Binary labels (the larger label is the positive class).
        """
        from fairprobe.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

        if not 0 <= self.epsilon <= 1:
            raise DataError(f"epsilon is a share of the training rows, in [0, 1]; got {self.epsilon}.")
        Xa, s = self._prepare(X, y)
        n, d = Xa.shape
        # Compress duplicate (x, y) rows: one error indicator per distinct labelled point.
        rows, counts = np.unique(np.hstack([Xa, s[:, None]]), axis=0, return_counts=True)
        Xu, su = rows[:, :-1], rows[:, -1]
        erm = self._solve(self._base_program(Xu, su, counts, "min"))
        w0 = self._weights(erm, d)
        if w0 is None:
            raise SolverError(f"The ERM program found no classifier ({erm.message}); raise time_limit.")
        err0 = round(erm.incumbent_objective)
        budget = err0 + self.epsilon * n
        cap = math.floor(budget + 1e-9)  # error counts are integers: at most `cap` errors are allowed
        gamma = self.margin
        pred0 = np.where(Xa @ w0 >= 0, 1.0, -1.0)

        def certified_flips(w: np.ndarray) -> np.ndarray | None:
            """Rows ``w`` certifiably flips, if ``w`` is within the budget (else None)."""
            margins = Xa @ w
            if np.sum(s * margins < gamma - 1e-9) > cap:
                return None
            return -pred0 * margins >= gamma - 1e-9

        # distinct feature vectors (whatever their labels): one flip program and one h0 decision each
        points, first, point_of_row, multiplicity = np.unique(Xa, axis=0, return_index=True, return_inverse=True,
                                                              return_counts=True)
        point_of_row = point_of_row.ravel()
        h0_point = pred0[first]
        status = np.full(points.shape[0], "", dtype=object)
        pool = [w0]

        def absorb(w: np.ndarray | None) -> None:
            flips = certified_flips(w) if w is not None else None
            if flips is not None:
                status[np.unique(point_of_row[flips])] = "ambiguous"

        absorb(w0)
        n_solves = 0
        if self.n_jobs in (None, 1):
            jobs = 1
        else:
            jobs = (os.cpu_count() or 1) if self.n_jobs < 0 else int(self.n_jobs)
        decided_before = int(np.sum(status != ""))
        bar = tqdm(total=int(np.sum(status == "")), desc="flip programs", disable=not self.progress)
        try:
            while True:
                todo = [p for p in range(points.shape[0]) if status[p] == ""][: 2 * jobs if jobs > 1 else 1]
                if not todo:
                    break
                programs = []
                for p in todo:
                    prog = self._base_program(Xu, su, counts, "min")
                    prog.add_constraint(self._flip_poly(points[p], h0_point[p]), ">=", gamma, name="flip")
                    programs.append(prog)
                # Only "is the optimum <= cap?" matters: SCIP stops at the first incumbent under it.
                results = self._solve_many(programs, self._objective_limit(cap), jobs)
                n_solves += len(results)
                for res in results:  # every classifier found may certify other points
                    w = self._weights(res, d)
                    if w is not None:
                        pool.append(w)
                        absorb(w)
                for p, res in zip(todo, results, strict=True):
                    if status[p]:
                        continue
                    # the optimum is an integer: a dual bound above `cap` (beyond tolerance) rules out `cap` errors
                    if res.termination is Termination.INFEASIBLE or res.objective_bound > cap + 1e-6:
                        status[p] = "not ambiguous"
                    elif res.incumbent_objective is not None and res.incumbent_objective <= cap + 1e-6:
                        status[p] = "ambiguous"  # solver-feasible but not margin-verified: trust the solver
                    else:
                        status[p] = "undecided"
                bar.n = int(np.sum(status != "")) - decided_before
                bar.refresh()
        finally:
            bar.close()
        row_status = status[point_of_row].astype(str)
        lower = float(np.mean(row_status == "ambiguous"))
        upper = float(np.mean(row_status != "not ambiguous"))
        result = LinearMultiplicityResult(
            reference_error=err0, error_budget=budget, reference_optimal=erm.is_optimal, reference_weights=w0,
            reference_predictions=(pred0 > 0).astype(int), status=row_status, ambiguity_lower=lower,
            ambiguity_upper=upper, n_solves=n_solves, solver=erm.solver,
            details={"n_distinct_points": int(points.shape[0]), "pool_size": len(pool)})
        if self.discrepancy:
            result.discrepancy, result.discrepancy_upper = self._discrepancy(Xu, su, counts, points, h0_point,
                                                                             multiplicity, cap)
        return result

    def _objective_limit(self, cap: int) -> dict[str, Any]:
        # SCIP can stop as soon as an incumbent is within the budget or the bound is beyond it;
        # other solvers run to optimality.
        if self.backend != "scip":
            return {}
        return {"limits/primal": cap + 0.5, "limits/dual": cap + 0.5}

    @staticmethod
    def _flip_poly(point: np.ndarray, h0: float) -> dict[tuple[int, ...], float]:
        """``-h0 w . x`` over the weight variables (indices 0..d-1): positive when ``w`` flips ``h0``."""
        return {(j,): -h0 * point[j] for j in range(point.size) if point[j] != 0.0}

    def _discrepancy(self, Xu: np.ndarray, su: np.ndarray, counts: np.ndarray, points: np.ndarray,
                     h0_point: np.ndarray, multiplicity: np.ndarray, cap: int) -> tuple[float, float]:
        n = int(counts.sum())
        prog = self._base_program(Xu, su, counts, "max")
        errors = dict(prog.objective)
        prog.add_constraint(errors, "<=", cap, name="budget")
        gamma = self.margin
        objective = {}
        for p in range(points.shape[0]):
            f = prog.add_variable(f"f{p}", 0.0, 1.0, integer=True)
            big_m = gamma + float(np.abs(points[p]).max())
            poly = self._flip_poly(points[p], h0_point[p])
            poly[(f,)] = -big_m  # f = 1 forces -h0 w.x >= gamma; f = 0 leaves it free
            prog.add_constraint(poly, ">=", gamma - big_m, name=f"flip{p}")
            objective[(f,)] = float(multiplicity[p])
        prog.set_objective(objective)
        res = self._solve(prog)
        if res.incumbent_objective is None:
            raise SolverError(f"The discrepancy program found no solution ({res.message}); raise time_limit.")
        return res.incumbent_objective / n, min(1.0, res.objective_bound / n)

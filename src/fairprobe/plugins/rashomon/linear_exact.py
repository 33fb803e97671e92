"""Exact predictive multiplicity of linear classifiers (Marx, Calmon & Ustun, 2020).

The model class is ``h_w(x) = sign(w . x)`` over the features plus a constant column, with the
scale fixed by ``||w||_1 <= 1`` and a margin ``gamma``: ``h_w`` *certifiably* predicts +1 at ``x``
when ``w . x >= gamma`` and -1 when ``w . x <= -gamma``; a point inside the margin band counts
as an error. The training error of ``w`` is therefore ``#{i : y_i w . x_i < gamma}``.

**Units.** The margin and the L1 bound are measured on internally rescaled features: each column
is divided by the power of two ``2**k`` that brings its largest magnitude into ``[1/2, 1)``
(exact in floating point, so nothing is rounded, and ``w_j / 2**k`` maps a weight back to the
original units). On unscaled data (amounts in the thousands next to 0/1 indicators) the big-M
constants below would otherwise be in the thousands, and the solver's integrality tolerance
(1e-6) times such an M exceeds the margin: an error indicator of 7e-7, counted as 0 errors,
would switch a constraint off. That produced "0 errors, ambiguity 0.63" in issue 13.

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

**Certificates.** A solver's answer is never trusted for an "ambiguous" verdict: every classifier
a solver returns is re-checked in exact rational arithmetic (floats are rationals; a rigorous
floating-point error bound decides most rows and :class:`fractions.Fraction` the rest). It
certifies a flip of ``x_k`` only if, after normalising to ``||w||_1 <= 1``, it makes at most
``floor(err0 + epsilon * n)`` errors counting every row with margin below ``gamma / 2`` as an
error, and decides ``x_k`` against ``h0`` with margin at least ``gamma / 2``. Half the margin
absorbs ordinary solver tolerances (about 1e-6 on the rescaled features); a classifier that
fails is re-solved as a linear program on its error pattern (maximising the margin) and checked
again; if it still fails the point stays *undecided* (``details["rejected_certificates"]``).
"Not ambiguous" rests on the solver's infeasibility or dual bound, which tolerances can only make
more cautious.

A flip program only has to decide whether its optimum is below the budget, so it stops as soon
as an incumbent is under it or the dual bound is above it; every model found is kept in a pool
that certifies other points without a solve. A solve that hits its time limit (``time_limit``
per program, ``total_time_limit`` for the whole fit) undecided leaves the point *undecided*,
and ambiguity is then reported as the certified interval ``[ambiguity_lower, ambiguity_upper]``.
Ctrl-C stops the fit: the partial result (decided points certified, the rest undecided) is kept
in ``partial_result_`` and the ``KeyboardInterrupt`` is re-raised.

Marx et al. split ``w`` into signed parts with sign binaries to fix ``||w||_1 = 1``; the
relaxation ``||w||_1 <= 1`` used here describes the same classifiers (a feasible ``w`` with
smaller norm can be scaled up, which only widens its margins) with no extra binaries.
"""

from __future__ import annotations

import math
import numbers
import os
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.backends.base import Limit, SolveOptions, SolveResult, Termination
from fairprobe.core.validate import check_number
from fairprobe.exceptions import ConfigError, DataError, NotFittedError, SolverError
from fairprobe.plugins.base import Analysis, Example, Summary, columns_by_role, first_finding, positional_roles
from fairprobe.program.model import PolynomialProgram

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ExactLinearMultiplicity", "LinearMultiplicityResult"]

_UNIT = 2.0 ** -53  # unit round-off of float64
_TINY = 2.0 ** -1060  # covers underflow in products of tiny numbers
_clock = time.monotonic  # the fit's clock (a seam for tests of the total time limit)
_RAISE_TIME = ("raise time_limit / total_time_limit (--time-limit / --total-time-limit on the command line)")


def _exact_at_least(A: np.ndarray, w: np.ndarray, t: Fraction) -> np.ndarray:
    """Rows ``i`` with ``A_i . w >= t`` in exact rational arithmetic.

    The float product decides every row whose distance to ``t`` exceeds a rigorous bound on its
    rounding error (``2 d u sum_j |A_ij w_j|``, twice the textbook bound for any summation order);
    the remaining rows are recomputed with :class:`~fractions.Fraction`.
    """
    d = A.shape[1]
    m = A @ w
    err = (2.0 * d * _UNIT) * (np.abs(A) @ np.abs(w)) * (1.0 + 4.0 * d * _UNIT) + d * _TINY
    tf = float(t)
    band = abs(tf) * 2.0 ** -50 + _TINY
    yes = m - err > tf + band
    no = m + err < tf - band
    out = yes.copy()
    for i in np.flatnonzero(~(yes | no)):
        exact = sum((Fraction(float(a)) * Fraction(float(x)) for a, x in zip(A[i], w, strict=True) if a and x),
                    Fraction(0))
        out[i] = exact >= t
    return out


def _l1_ball_weights(prog: PolynomialProgram, d: int) -> list[int]:
    """Add weights ``w`` with ``||w||_1 <= 1`` (through ``a_j >= |w_j|``) to ``prog``; their indices."""
    w = [prog.add_variable(f"w{j}", -1.0, 1.0) for j in range(d)]
    a = [prog.add_variable(f"a{j}", 0.0, 1.0) for j in range(d)]
    for j in range(d):
        prog.add_constraint({(a[j],): 1.0, (w[j],): -1.0}, ">=", 0.0)
        prog.add_constraint({(a[j],): 1.0, (w[j],): 1.0}, ">=", 0.0)
    prog.add_constraint({(aj,): 1.0 for aj in a}, "<=", 1.0, name="l1")
    return w


@dataclass
class LinearMultiplicityResult:
    """Exact multiplicity of linear classifiers on a training set.

    Attributes
    ----------
    reference_error : int
        Training errors of the empirical risk minimiser ``h0`` (certified optimal unless
        ``reference_optimal`` is False, then the best found).
    reference_optimal : bool
        Whether ``reference_error`` is proved optimal.
    error_budget : float
        ``reference_error + epsilon * n``: members of the Rashomon set make at most this many errors.
    reference_weights : ndarray
        Weights of ``h0`` on the original features, the intercept last (``h0(x) = 1`` iff
        ``w . [x, 1] >= 0``).
    reference_predictions : ndarray of {0, 1}
        ``h0`` on the training rows.
    status : ndarray of str
        Per training row: ``"ambiguous"`` (a re-checked classifier within the budget flips it),
        ``"not ambiguous"`` or ``"undecided"`` (time limit, interruption or a rejected certificate).
    ambiguity_lower, ambiguity_upper : float
        Certified bounds on the ambiguity (equal when nothing is undecided).
    discrepancy : float or None
        Largest share of training predictions one epsilon-good model is *certified* to change (a
        re-checked classifier achieves it; None when not asked).
    discrepancy_upper : float or None
        Certified upper bound on the discrepancy (equal to it when solved to optimality).
    n_solves : int
        Flip programs solved (the others were certified by the model pool).
    solver : str
        Name of the solver backend used.
    interrupted : bool
        The fit was stopped by Ctrl-C; undecided points were not examined.
    details : dict
        ``n_distinct_points``, ``pool_size``, ``rejected_certificates`` (solver answers the exact
        check refused), ``feature_scales`` (the powers of two of the internal units),
        ``stopped_by`` (``"total_time_limit"`` or ``"interrupt"`` when the fit stopped early).

    Examples
    --------
    :class:`ExactLinearMultiplicity` builds it; by hand, for four training rows:

    >>> res = LinearMultiplicityResult(
    ...     reference_error=1, error_budget=2.0, reference_optimal=True, reference_weights=np.array([1.0, -0.5]),
    ...     reference_predictions=np.array([0, 1, 1, 0]),
    ...     status=np.array(["not ambiguous", "ambiguous", "not ambiguous", "undecided"]),
    ...     ambiguity_lower=0.25, ambiguity_upper=0.5, n_solves=3, solver="highs")
    >>> res.n_undecided, res.ambiguity_lower, res.ambiguity_upper
    (1, 0.25, 0.5)
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
    interrupted: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def n_undecided(self) -> int:
        """Training rows whose status is ``"undecided"``.

        Returns
        -------
        int

        Examples
        --------
        >>> res = LinearMultiplicityResult(
        ...     reference_error=1, error_budget=2.0, reference_optimal=True, reference_weights=np.array([1.0, -0.5]),
        ...     reference_predictions=np.array([0, 1, 1, 0]),
        ...     status=np.array(["not ambiguous", "ambiguous", "not ambiguous", "undecided"]),
        ...     ambiguity_lower=0.25, ambiguity_upper=0.5, n_solves=3, solver="highs")
        >>> res.n_undecided
        1
        """
        return int(np.sum(self.status == "undecided"))

    @property
    def ambiguity(self) -> float:
        """The ambiguity when certified exactly; raises when some point is undecided.

        Returns
        -------
        float
            Share of training rows some epsilon-good linear classifier flips.

        Raises
        ------
        SolverError
            Some row is undecided, so only bounds are known.

        Examples
        --------
        >>> res = LinearMultiplicityResult(
        ...     reference_error=1, error_budget=2.0, reference_optimal=True, reference_weights=np.array([1.0, -0.5]),
        ...     reference_predictions=np.array([0, 1, 1, 0]),
        ...     status=np.array(["not ambiguous", "ambiguous", "not ambiguous", "undecided"]),
        ...     ambiguity_lower=0.25, ambiguity_upper=0.5, n_solves=3, solver="highs")
        >>> res.ambiguity  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.SolverError: Ambiguity is only bounded, in [0.2500, 0.5000]: 1 training rows ...
        >>> res.ambiguity_upper = 0.25  # once every row is decided
        >>> res.ambiguity
        0.25
        """
        if self.ambiguity_lower != self.ambiguity_upper:
            raise SolverError(
                f"Ambiguity is only bounded, in [{self.ambiguity_lower:.4f}, {self.ambiguity_upper:.4f}]: "
                f"{self.n_undecided} training rows are undecided (time limit or interruption). "
                f"Read ambiguity_lower/ambiguity_upper, or {_RAISE_TIME} to decide them.")
        return self.ambiguity_lower

    def to_frame(self) -> pd.DataFrame:
        """Per training row: the reference prediction and the ambiguity status.

        Returns
        -------
        DataFrame
            Columns ``reference_prediction`` and ``status``, one row per training row.

        Examples
        --------
        >>> res = LinearMultiplicityResult(
        ...     reference_error=1, error_budget=2.0, reference_optimal=True, reference_weights=np.array([1.0, -0.5]),
        ...     reference_predictions=np.array([0, 1, 1, 0]),
        ...     status=np.array(["not ambiguous", "ambiguous", "not ambiguous", "undecided"]),
        ...     ambiguity_lower=0.25, ambiguity_upper=0.5, n_solves=3, solver="highs")
        >>> res.to_frame()["status"].value_counts().to_dict()
        {'not ambiguous': 2, 'ambiguous': 1, 'undecided': 1}
        """
        return pd.DataFrame({"reference_prediction": self.reference_predictions, "status": self.status})

    def to_dict(self) -> dict[str, Any]:
        """The summary figures as JSON-ready values.

        Returns
        -------
        dict
            Reference error, budget, ambiguity and discrepancy bounds, undecided rows, solves and how
            the fit stopped.

        Examples
        --------
        >>> res = LinearMultiplicityResult(
        ...     reference_error=1, error_budget=2.0, reference_optimal=True, reference_weights=np.array([1.0, -0.5]),
        ...     reference_predictions=np.array([0, 1, 1, 0]),
        ...     status=np.array(["not ambiguous", "ambiguous", "not ambiguous", "undecided"]),
        ...     ambiguity_lower=0.25, ambiguity_upper=0.5, n_solves=3, solver="highs")
        >>> d = res.to_dict()
        >>> d["ambiguity"], d["undecided_rows"], d["discrepancy"]
        ([0.25, 0.5], 1, None)
        """
        return {"reference_error": int(self.reference_error), "reference_optimal": bool(self.reference_optimal),
                "error_budget": float(self.error_budget),
                "ambiguity": [float(self.ambiguity_lower), float(self.ambiguity_upper)],
                "discrepancy": None if self.discrepancy is None else [float(self.discrepancy),
                                                                      float(self.discrepancy_upper)],
                "undecided_rows": self.n_undecided, "n_solves": int(self.n_solves),
                "interrupted": bool(self.interrupted),
                "rejected_certificates": int(self.details.get("rejected_certificates", 0)),
                "stopped_by": self.details.get("stopped_by")}

    def summary(self) -> str:
        """A few readable lines.

        Returns
        -------
        str

        Examples
        --------
        >>> res = LinearMultiplicityResult(
        ...     reference_error=1, error_budget=2.0, reference_optimal=True, reference_weights=np.array([1.0, -0.5]),
        ...     reference_predictions=np.array([0, 1, 1, 0]),
        ...     status=np.array(["not ambiguous", "ambiguous", "not ambiguous", "undecided"]),
        ...     ambiguity_lower=0.25, ambiguity_upper=0.5, n_solves=3, solver="highs")
        >>> print(res.summary())
        linear classifiers, exact epsilon-Rashomon set (highs):
          reference training errors 1; budget 2
          ambiguity in [0.250, 0.500] (3 flip programs solved)
        """
        amb = (f"{self.ambiguity_lower:.3f}" if self.ambiguity_lower == self.ambiguity_upper
               else f"in [{self.ambiguity_lower:.3f}, {self.ambiguity_upper:.3f}]")
        lines = [f"linear classifiers, exact epsilon-Rashomon set ({self.solver}):",
                 f"  reference training errors {self.reference_error}"
                 f"{'' if self.reference_optimal else ' (not proved optimal)'}; budget {self.error_budget:g}",
                 f"  ambiguity {amb} ({self.n_solves} flip programs solved)"]
        if self.discrepancy is not None:
            lines.append(f"  discrepancy {self.discrepancy:.3f} (certified <= {self.discrepancy_upper:.3f})")
        stopped = self.details.get("stopped_by")
        if stopped:
            lines.append(f"  stopped early ({stopped}): {self.n_undecided} rows undecided")
        return "\n".join(lines)


@dataclass
class _ExactCheck:
    """Exact error count of a classifier on the distinct labelled rows (a solver's answer is only a candidate).

    A class of its own because the reference's re-check and every certificate of the flip search use it.
    """

    signed_rows: np.ndarray  # y_k x_k for each distinct labelled row
    counts: np.ndarray  # training rows per distinct labelled row
    half: Fraction  # half the margin: the margin a certificate must reach

    def threshold(self, w: np.ndarray) -> Fraction:
        """The margin ``w`` must reach: ``gamma / 2`` after normalising ``w`` to ``||w||_1 <= 1``."""
        # margins of w / ||w||_1 >= gamma/2  <=>  margins of w >= gamma/2 * ||w||_1
        norm = sum((Fraction(abs(float(v))) for v in w), Fraction(0))
        return self.half * max(Fraction(1), norm)

    def errors_of(self, w: np.ndarray) -> int:
        """Training rows ``w`` gets wrong (margin below the threshold), counted exactly."""
        right = _exact_at_least(self.signed_rows, w, self.threshold(w))
        return int(self.counts[~right].sum())


@dataclass
class _FlipSearch:
    """The flip search of one fit: statuses of the distinct points, the certificates and their counters.

    A class of its own so that the steps of ``ExactLinearMultiplicity._fit_result`` (flip rounds,
    verdicts, discrepancy) share this state instead of closures over a long function's locals.
    """

    check: _ExactCheck
    cap: int  # error counts are integers: at most `cap` errors are allowed
    Xu: np.ndarray  # distinct labelled rows (rescaled features and the constant column)
    su: np.ndarray  # their labels, +1 or -1
    d: int  # number of weights
    points: np.ndarray  # distinct feature vectors (whatever their labels)
    h0_point: np.ndarray  # the reference's decision on each point, +1 or -1
    multiplicity: np.ndarray  # training rows per point
    rejected: int = 0  # certificates that failed the exact check
    pool_size: int = 1  # classifiers found that certified a flip (the reference counts)
    n_solves: int = 0  # flip programs solved
    best_flips: int = 0  # the largest certified number of flipped training rows by one classifier
    flip_rows: np.ndarray = field(init=False)
    status: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        """Flip rows ``-h0(x) x`` and empty statuses (no point decided yet)."""
        self.flip_rows = -self.h0_point[:, None] * self.points
        self.status = np.full(self.points.shape[0], "", dtype=object)

    def certify(self, w: np.ndarray | None) -> np.ndarray | None:
        """Distinct points ``w`` certifiably flips, if ``w`` is within the budget when checked exactly."""
        if w is None:
            return None
        if self.check.errors_of(w) > self.cap:
            return None
        flips = _exact_at_least(self.flip_rows, w, self.check.threshold(w))
        self.status[flips] = "ambiguous"
        self.best_flips = max(self.best_flips, int(self.multiplicity[flips].sum()))
        return flips


class ExactLinearMultiplicity(Analysis):
    """Ambiguity and discrepancy of the exact epsilon-Rashomon set of linear classifiers.

    Parameters
    ----------
    epsilon : float
        Error tolerance as a share of the training rows: members make at most
        ``err0 + epsilon * n`` training errors.
    margin : float
        ``gamma`` in the internal units (every feature rescaled into ``[-1, 1)``), in ``[1e-5, 0.1]``:
        well above the solvers' tolerances (1e-6).
    backend : str
        Any registered backend with integer support (``"scip"``, ``"gurobi"``, ``"ortools"``).
    time_limit : float, optional
        Seconds per program; an undecided program widens the reported ambiguity interval.
    total_time_limit : float, optional
        Seconds for the whole fit; programs still to run when it is spent leave their points
        undecided (the discrepancy is then bounded from the classifiers already found).
    discrepancy : bool
        Also solve the discrepancy program.
    n_jobs : int, optional
        Flip programs solved in parallel (joblib processes, in rounds of ``2 * n_jobs``; every
        classifier found certifies points of later rounds without a solve); -1 for all cores.
    progress : bool
        Progress bar over the flip programs.

    Attributes
    ----------
    result_ : LinearMultiplicityResult
        The fitted result (:meth:`summary`, :meth:`to_frame` and :meth:`figures` read it). After a
        Ctrl-C it is the certified partial result (``result_.details["stopped_by"] == "interrupt"``).
    partial_result_ : LinearMultiplicityResult
        Set only after a Ctrl-C during :meth:`fit`: the certified partial result (absent if the
        reference program itself was interrupted).
    row_index_ : pandas.Index
        Row identifiers of the training rows (the index of ``X`` when it is a DataFrame).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> res = ExactLinearMultiplicity(epsilon=0.25, progress=False).fit(X, y_true=y).result_
    >>> res.reference_error, res.ambiguity
    (0, 0.5)
    """

    name: ClassVar[str] = "linear_multiplicity"
    description: ClassVar[str] = "Exact ambiguity and discrepancy of linear classifiers (mixed-integer programs)"
    demo_title: ClassVar[str] = "exact predictive multiplicity of linear classifiers"
    demo_order: ClassVar[int] = 35

    def __init__(self, *, epsilon: float = 0.05, margin: float = 1e-4, backend: str = "scip",
                 time_limit: float | None = None, total_time_limit: float | None = None, discrepancy: bool = True,
                 n_jobs: int | None = None, progress: bool = True) -> None:
        self.epsilon = epsilon
        self.margin = margin
        self.backend = backend
        self.time_limit = time_limit
        self.total_time_limit = total_time_limit
        self.discrepancy = discrepancy
        self.n_jobs = n_jobs
        self.progress = progress

    # -- checks ----------------------------------------------------------------------------------
    def validate(self) -> None:
        """Check the parameters (before any data is read); raises ``ConfigError`` naming the fix.

        Examples
        --------
        >>> ExactLinearMultiplicity(epsilon=0.1).validate()
        """
        check_number("epsilon", self.epsilon, low=0.0, high=1.0,
                      hint=" (a share of the training rows, in [0, 1], e.g. 0.01)")
        check_number("margin", self.margin, low=1e-5, high=0.1,
                      hint=" (the margin in rescaled units, in [1e-5, 0.1]; the default 1e-4 suits most data)")
        for name in ("time_limit", "total_time_limit"):
            check_number(name, getattr(self, name), low=0.0, low_open=True, optional=True,
                          hint=" (seconds; leave it None for no limit)")
        jobs = self.n_jobs
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral)
                                 or (jobs < 1 and jobs != -1)):
            raise ConfigError(f"n_jobs must be a positive integer, -1 (all cores) or None (one process); got {jobs!r}.")
        if not isinstance(self.backend, str) or not self.backend:
            raise ConfigError(f"backend must be a backend name such as 'scip'; got {self.backend!r}.")

    @staticmethod
    def _prepare(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"X must be numeric for the exact linear MIP ({exc}); encode text columns as numbers "
                            "(one-hot or codes) first.") from None
        y = np.asarray(y)
        if y.ndim > 1 and y.size == max(y.shape, default=0):
            y = y.ravel()
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.size:
            raise DataError(f"X must be 2-D with one row per label; got X {X.shape} and y {y.shape}. Pass X as "
                            "(rows, features) and y as one label per row.")
        if X.shape[0] == 0:
            raise DataError("X and y have no rows; the exact linear MIP needs training rows of both classes.")
        if not np.isfinite(X).all():
            raise DataError("X has missing or infinite values; impute or drop them first.")
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise DataError("y has missing labels (NaN); drop those rows or fill them in.")
        try:
            labels = np.unique(y)
        except TypeError:
            raise DataError("y mixes label types (e.g. numbers and text); use one type, e.g. 0/1.") from None
        if labels.size != 2:
            raise DataError(f"The exact linear MIP needs a binary target; got {labels.size} classes "
                            f"{labels[:5].tolist()}. Recode y to two classes (e.g. 0/1).")
        signs = np.where(y == labels[1], 1.0, -1.0)
        return X, signs

    @staticmethod
    def _scales(X: np.ndarray) -> np.ndarray:
        """Powers of two bringing each column's largest magnitude into [1/2, 1) (1 for all-zero columns)."""
        peak = np.abs(X).max(axis=0)
        scale = np.ones(X.shape[1])
        nonzero = peak > 0
        _, exponent = np.frexp(peak[nonzero])
        scale[nonzero] = np.ldexp(1.0, exponent)
        scaled = X / scale
        lost = np.flatnonzero(np.any(scaled * scale != X, axis=0))
        if lost.size:  # only subnormal underflow makes a power-of-two division inexact
            raise DataError(f"Feature column(s) {lost[:5].tolist()} span too many orders of magnitude (values below "
                            "1e-300 next to large ones) to rescale exactly; round tiny values to 0 or rescale them.")
        return scale

    # -- programs --------------------------------------------------------------------------------
    def _base_program(self, Xa: np.ndarray, s: np.ndarray, counts: np.ndarray, sense: str) -> PolynomialProgram:
        """Weights with ||w||_1 <= 1 and error indicators z_k; objective: weighted errors."""
        prog = PolynomialProgram(sense=sense, name="linear_multiplicity")
        d = Xa.shape[1]
        w = _l1_ball_weights(prog, d)
        gamma = float(self.margin)
        for k in range(Xa.shape[0]):
            z = prog.add_variable(f"z{k}", 0.0, 1.0, integer=True)
            big_m = gamma + float(np.abs(Xa[k]).max())  # <= 1 + gamma on the rescaled features
            poly = {(w[j],): s[k] * Xa[k, j] for j in range(d) if Xa[k, j] != 0.0}
            poly[(z,)] = big_m
            prog.add_constraint(poly, ">=", gamma, name=f"correct{k}")
        prog.set_objective({(prog.index(f"z{k}"),): float(c) for k, c in enumerate(counts)})
        return prog

    def _solve(self, prog: PolynomialProgram, time_limit: float | None = None, **extra: Any) -> SolveResult:
        from fairprobe.core.registry import get_backend

        options = SolveOptions(time_limit=time_limit, **extra)
        return get_backend(self.backend).solve(prog, options)

    def _solve_many(self, programs: list[PolynomialProgram], options: dict[str, Any], jobs: int,
                    time_limit: float | None) -> list[SolveResult]:
        """Solve ``programs`` (``options``: extra SolveOptions fields), in parallel processes when ``jobs > 1``."""
        if jobs == 1 or len(programs) == 1:
            return [self._solve(prog, time_limit, **options) for prog in programs]
        from joblib import Parallel, delayed

        # processes, not threads: concurrent SCIP instances in one process are unsafe
        return Parallel(n_jobs=jobs)(delayed(self._solve)(prog, time_limit, **options)
                                     for prog in programs)

    @staticmethod
    def _weights(res: SolveResult, d: int) -> np.ndarray | None:
        if not res.incumbent:
            return None
        return np.array([res.incumbent[f"w{j}"] for j in range(d)], dtype=float)

    def _polish(self, Xu: np.ndarray, su: np.ndarray, keep: np.ndarray, flip: tuple[np.ndarray, float] | None,
                time_limit: float | None) -> np.ndarray | None:
        """The classifier of largest margin on the error pattern ``keep`` (rows that must be right), or None.

        Used when a solver's classifier fails the exact check: the pattern may be right while the
        weights sit just outside tolerance, and a margin-maximising LP moves them inside.
        """
        prog = PolynomialProgram(sense="max", name="linear_multiplicity_polish")
        d = Xu.shape[1]
        w = _l1_ball_weights(prog, d)
        t = prog.add_variable("t", -1.0, 2.0)
        rows = [su[k] * Xu[k] for k in np.flatnonzero(keep)]
        if flip is not None:
            rows.append(-flip[1] * flip[0])
        for r in rows:
            poly = {(w[j],): float(r[j]) for j in range(d) if r[j] != 0.0}
            poly[(t,)] = -1.0
            prog.add_constraint(poly, ">=", 0.0)
        prog.set_objective({(t,): 1.0})
        res = self._solve(prog, time_limit)
        if not res.incumbent or res.incumbent_objective is None or res.incumbent_objective < self.margin / 2:
            return None
        return self._weights(res, d)

    # -- fit -------------------------------------------------------------------------------------
    @positional_roles("y_true")
    def fit(self, data: Any, *, y_true: Any = None) -> ExactLinearMultiplicity:
        """Solve the ERM, flip and (optionally) discrepancy programs on ``(data, y_true)``; store ``result_``.

        Parameters
        ----------
        data : array-like or DataFrame (n, d)
            Numeric features (a constant column is added; columns are rescaled internally by
            powers of two, so their units do not matter). A DataFrame's index identifies the rows
            of :meth:`to_frame`; the column named by ``y_true`` is not a feature.
        y_true : str or array-like (n,)
            Binary labels (the larger label is the positive class): a column name of ``data`` or
            one label per row. ``fit(X, y)`` with positional labels still works, with a
            ``DeprecationWarning``.

        Returns
        -------
        ExactLinearMultiplicity
            ``self``, fitted.

        Raises
        ------
        KeyboardInterrupt
            On Ctrl-C, after storing the certified partial result in ``partial_result_`` (and ``result_``).

        Examples
        --------
        >>> import numpy as np
        >>> m = ExactLinearMultiplicity(epsilon=0.0, progress=False).fit(np.array([[0.0], [1.0]]), y_true=[0, 1])
        >>> m.result_.ambiguity
        0.0
        """
        for attr in self._fitted_attributes():  # a refit starts clean
            delattr(self, attr)
        self.validate()
        if y_true is None:
            raise DataError("ExactLinearMultiplicity.fit needs y_true: a column name of the data or one label per "
                            "row, e.g. fit(X, y_true=y).")
        X, roles = columns_by_role(data, {"y_true": y_true})
        y_true = roles["y_true"]
        index = X.index.copy() if isinstance(X, pd.DataFrame) else None
        names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
        try:
            result = self._fit_result(X, y_true)
        except KeyboardInterrupt:
            partial = getattr(self, "partial_result_", None)
            if partial is not None:  # the certified partial result is usable: summary(), to_report()
                self._store(partial, index, names)
            raise
        self._store(result, index, names)
        return self

    def _store(self, result: LinearMultiplicityResult, index: pd.Index | None, names: list[str] | None) -> None:
        self.result_ = result
        self.row_index_ = index if index is not None else pd.RangeIndex(len(result.status))
        self.feature_names_ = names

    def check_is_fitted(self) -> None:
        """Raise :class:`~fairprobe.exceptions.NotFittedError` unless ``result_`` is set.

        Examples
        --------
        >>> from fairprobe.exceptions import NotFittedError
        >>> try:
        ...     ExactLinearMultiplicity().summary()
        ... except NotFittedError:
        ...     print("not fitted")
        not fitted
        """
        if "result_" not in vars(self):
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet; call "
                                 f"{type(self).__name__}(...).fit(data, y_true=...) before using its results.")

    # -- results ---------------------------------------------------------------------------------
    def summary(self) -> Summary:
        """The result's summary lines (reference errors, budget, ambiguity, discrepancy).

        Returns
        -------
        Summary
            With the table ``"row status"`` (rows per status).

        Examples
        --------
        >>> m = ExactLinearMultiplicity.example().fit()
        >>> "ambiguity" in m.summary()
        True
        """
        self.check_is_fitted()
        counts = pd.Series(self.result_.status).value_counts().rename_axis("status").rename("rows").to_frame()
        return Summary(self.result_.summary(), title="Exact multiplicity of linear classifiers",
                       tables={"row status": counts})

    def to_frame(self) -> pd.DataFrame:
        """Per training row (indexed by its identifier): the reference prediction and the ambiguity status.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> list(ExactLinearMultiplicity.example().fit().to_frame().columns)
        ['reference_prediction', 'status']
        """
        self.check_is_fitted()
        frame = self.result_.to_frame()
        frame.index = self.row_index_
        return frame

    def figures(self) -> dict[str, Callable[..., Any]]:
        """Rows per ambiguity status, and the reference classifier's weights.

        Returns
        -------
        dict of str to callable
            Each ``plot(*, ax=None) -> Axes``.

        Examples
        --------
        >>> sorted(ExactLinearMultiplicity.example().fit().figures())
        ['reference weights', 'row status']
        """
        from fairprobe.plugins.rashomon import plots

        self.check_is_fitted()
        result = self.result_
        names = self.feature_names_ or [f"x{j}" for j in range(len(result.reference_weights) - 1)]
        return {"row status": lambda *, ax=None: plots.plot_status_counts(result.status, ax=ax),
                "reference weights": lambda *, ax=None: plots.plot_weights(result.reference_weights,
                                                                           [*names, "intercept"], ax=ax)}

    @classmethod
    def demo(cls, report: Any, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
             progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
        """The demo's step on the lending scenario itself: 24 applicants, log income and employment.

        An exact certificate needs one mixed-integer program per row, so the demo takes a small
        sample of the lending data (12 defaulters, 12 others) and two features.

        Parameters
        ----------
        report, scenario, facts, quick, seed, n_jobs, progress
            As for :meth:`fairprobe.plugins.base.Analysis.demo`.

        Returns
        -------
        found, table, lines
            No injected problem is claimed; the per-row report; one finding line.

        Examples
        --------
        >>> from fairprobe.datasets import make_lending_scenario
        >>> from fairprobe.reporting.report import Report
        >>> _, table, lines = ExactLinearMultiplicity.demo(Report("demo"), make_lending_scenario(3000, seed=0), {},
        ...                                                quick=True, seed=0, n_jobs=1, progress=False)
        >>> lines[0].startswith("- exact linear multiplicity (24 applicants of the lending data): ")
        True
        """
        audit = scenario.audit_frame
        picked = pd.concat([audit[audit.default == label].sample(n=12, random_state=seed) for label in (1, 0)])
        X = pd.DataFrame({"log_income": np.log(picked.income).round(2).to_numpy(),
                          "employed": picked.employed.astype(float).to_numpy()})
        y = picked.default.to_numpy()
        fitted = cls(epsilon=0.05, progress=False).fit(X, y_true=y)
        sec = fitted.report_section(report, "Exact predictive multiplicity of linear classifiers (lending data)")
        sec.add_note("24 applicants of the demo's lending data (12 recorded defaults, 12 others); features: log "
                     "income and employment; exact: one mixed-integer program per row.")
        return {}, fitted.to_frame(), [f"- exact linear multiplicity (24 applicants of the lending data): "
                                       f"{first_finding(sec.notes)}"]

    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        """24 rows of two overlapping Gaussian classes in two features (a few seconds with SCIP at most).

        Parameters
        ----------
        seed : int
            Seed of the generated data and of the analysis.

        Returns
        -------
        Example

        Examples
        --------
        >>> ExactLinearMultiplicity.example().fit().result_.reference_error >= 0
        True
        """
        rng = np.random.default_rng(seed)
        y = np.repeat([0, 1], 12)
        X = pd.DataFrame({"x0": rng.normal(y, 1.0).round(2), "x1": rng.normal(0.0, 1.0, 24).round(2)})
        return Example(cls(epsilon=0.05, progress=False), X, {"y_true": y})

    def _fit_result(self, X: Any, y: Any) -> LinearMultiplicityResult:
        """The programs of :meth:`fit`; returns the result (stores the partial one on Ctrl-C)."""
        X, s = self._prepare(X, y)
        scale = self._scales(X)
        Xa = np.hstack([X / scale, np.ones((X.shape[0], 1))])  # exact: powers of two
        n, d = Xa.shape
        gamma = float(self.margin)
        deadline = None if self.total_time_limit is None else _clock() + float(self.total_time_limit)

        # Compress duplicate (x, y) rows: one error indicator per distinct labelled point.
        rows, counts = np.unique(np.hstack([Xa, s[:, None]]), axis=0, return_counts=True)
        Xu, su = rows[:, :-1], rows[:, -1]
        check = _ExactCheck(su[:, None] * Xu, counts, Fraction(gamma) / 2)
        erm, w0, err0, rejected = self._reference(Xu, su, counts, d, check, deadline)
        budget = err0 + float(self.epsilon) * n
        cap = math.floor(budget + 1e-9)  # error counts are integers: at most `cap` errors are allowed

        # distinct feature vectors (whatever their labels): one flip program and one h0 decision each
        points, point_of_row, multiplicity = np.unique(Xa, axis=0, return_inverse=True, return_counts=True)
        point_of_row = point_of_row.ravel()
        h0_point = np.where(_exact_at_least(points, w0, Fraction(0)), 1.0, -1.0)  # h0(x) = +1 iff w0.x >= 0
        pred_rows = h0_point[point_of_row]
        search = _FlipSearch(check, cap, Xu, su, d, points, h0_point, multiplicity, rejected=rejected)
        search.certify(w0)
        stopped_by = self._flip_programs(search, deadline)
        discrepancy, discrepancy_upper, stopped_by = self._bound_discrepancy(search, n, stopped_by, deadline)

        row_status = search.status[point_of_row].astype(str)
        lower = float(np.mean(row_status == "ambiguous"))
        upper = float(np.mean(row_status != "not ambiguous"))
        if discrepancy is not None:
            # one model cannot flip a point that no model flips
            discrepancy_upper = upper if discrepancy_upper is None else min(discrepancy_upper, upper)
            discrepancy_upper = max(discrepancy_upper, discrepancy)
        result = LinearMultiplicityResult(
            reference_error=err0, error_budget=budget, reference_optimal=erm.is_optimal,
            reference_weights=np.append(w0[:-1] / scale, w0[-1]),
            reference_predictions=(pred_rows > 0).astype(int), status=row_status, ambiguity_lower=lower,
            ambiguity_upper=upper, discrepancy=discrepancy, discrepancy_upper=discrepancy_upper,
            n_solves=search.n_solves, solver=erm.solver, interrupted=stopped_by == "interrupt",
            details={"n_distinct_points": int(points.shape[0]), "pool_size": search.pool_size,
                     "rejected_certificates": search.rejected, "feature_scales": scale, "stopped_by": stopped_by,
                     "margin": gamma})
        if stopped_by == "interrupt":
            self.partial_result_ = result
            raise KeyboardInterrupt
        return result

    def _time_left(self, deadline: float | None) -> float | None:
        """Seconds for the next program (per-program limit capped by the total), or None.

        A method of its own because every program of a fit asks it (one look at the clock each).
        """
        if deadline is None:
            return self.time_limit
        left = max(deadline - _clock(), 0.0)  # a passed deadline: no time, never a negative limit
        return left if self.time_limit is None else min(left, float(self.time_limit))

    def _reference(self, Xu: np.ndarray, su: np.ndarray, counts: np.ndarray, d: int, check: _ExactCheck,
                   deadline: float | None) -> tuple[SolveResult, np.ndarray, int, int]:
        """The reference ``h0``: the ERM program's solve, weights, error count and rejected certificates (0 or 1).

        Separate from ``_fit_result``: the ERM solve and the exact re-check (with polishing) of its
        classifier are one step that ends in the reference or in a ``SolverError``.
        """
        erm = self._solve(self._base_program(Xu, su, counts, "min"), self._time_left(deadline))
        if erm.limit is Limit.INTERRUPTED:
            raise KeyboardInterrupt
        w0 = self._weights(erm, d)
        if w0 is None:
            raise SolverError(f"The ERM program found no classifier ({erm.message}); {_RAISE_TIME}.")
        err0 = round(erm.incumbent_objective)
        e0 = check.errors_of(w0)
        if e0 <= err0:
            return erm, w0, err0, 0
        # the reference itself failed the exact check: polish it on its pattern
        z = np.array([erm.incumbent[f"z{k}"] for k in range(Xu.shape[0])])
        w0 = self._polish(Xu, su, z < 0.5, None, self._time_left(deadline))
        if w0 is None or check.errors_of(w0) > err0:
            raise SolverError(
                f"The ERM program's classifier makes {e0} errors when re-checked exactly, not the {err0} the "
                f"solver reported: the solver ran into numerical trouble. Try another backend or a larger margin.")
        return erm, w0, err0, 1

    def _flip_programs(self, search: _FlipSearch, deadline: float | None) -> str | None:
        """Solve flip programs in rounds until every point is decided; why it stopped early, or None.

        Separate from ``_fit_result``: the rounds, the progress bar and the Ctrl-C handling form one
        loop; it leaves every point it did not decide ``"undecided"``.
        """
        from fairprobe.core.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

        status = search.status
        if self.n_jobs in (None, 1):
            jobs = 1
        else:
            jobs = (os.cpu_count() or 1) if self.n_jobs < 0 else int(self.n_jobs)
        stopped_by = None
        decided_before = int(np.sum(status != ""))
        bar = tqdm(total=int(np.sum(status == "")), desc="flip programs", disable=not self.progress)
        try:
            while True:
                todo = [p for p in range(search.points.shape[0]) if status[p] == ""][: 2 * jobs if jobs > 1 else 1]
                if not todo:
                    break
                limit = self._time_left(deadline)
                if limit is not None and limit <= 0:
                    stopped_by = "total_time_limit"
                    break
                programs = []
                for p in todo:
                    prog = self._base_program(search.Xu, search.su, search.check.counts, "min")
                    prog.add_constraint(self._flip_poly(search.points[p], search.h0_point[p]), ">=",
                                        float(self.margin), name="flip")
                    programs.append(prog)
                # Only "is the optimum <= cap?" matters: a solver may stop at the first incumbent under it.
                # a flip program only asks whether its optimum is within the budget: stop once that is known
                results = self._solve_many(programs, {"objective_limit": search.cap + 0.5}, jobs, limit)
                search.n_solves += len(results)
                for res in results:  # every classifier found may certify other points
                    if search.certify(self._weights(res, search.d)) is not None:
                        search.pool_size += 1
                for p, res in zip(todo, results, strict=True):
                    if not status[p]:
                        self._settle(search, p, res, deadline)
                bar.n = int(np.sum(status != "")) - decided_before
                bar.refresh()
                if any(res.limit is Limit.INTERRUPTED for res in results):  # SCIP caught the Ctrl-C itself
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            stopped_by = "interrupt"
        finally:
            bar.close()
        status[status == ""] = "undecided"
        return stopped_by

    def _settle(self, search: _FlipSearch, p: int, res: SolveResult, deadline: float | None) -> None:
        """Decide the still-open point ``p`` from its flip program's result ``res``.

        Separate from ``_flip_programs``: the verdict (a claimed flip is polished and re-checked, a
        dual bound rules a flip out, anything else stays undecided) is the subtle part of a round.
        """
        cap = search.cap
        if res.incumbent_objective is not None and res.incumbent_objective <= cap + 0.5:
            # the solver claims a flip its classifier failed to certify: polish the pattern
            search.rejected += 1
            z = np.array([res.incumbent[f"z{k}"] for k in range(search.Xu.shape[0])])
            polished = self._polish(search.Xu, search.su, z < 0.5, (search.points[p], search.h0_point[p]),
                                    self._time_left(deadline))
            flips = search.certify(polished)
            if flips is not None and flips[p]:
                search.rejected -= 1
                search.pool_size += 1
            else:
                search.status[p] = "undecided"
        # the optimum is an integer: a dual bound above `cap` (beyond tolerance) rules out `cap` errors
        elif res.termination is Termination.INFEASIBLE or res.objective_bound > cap + 1e-6:
            search.status[p] = "not ambiguous"
        else:
            search.status[p] = "undecided"

    def _bound_discrepancy(self, search: _FlipSearch, n: int, stopped_by: str | None,
                           deadline: float | None) -> tuple[float | None, float | None, str | None]:
        """Discrepancy (certified value, solver's upper bound or None) and the stop reason; Nones when off.

        Separate from ``_fit_result``: the discrepancy program runs only if time is left and the
        flip search was not stopped, and a Ctrl-C during it still keeps the certified value.
        """
        if not self.discrepancy:
            return None, None, stopped_by
        discrepancy, discrepancy_upper = search.best_flips / n, None
        limit = self._time_left(deadline)
        if stopped_by is None and (limit is None or limit > 0):
            try:
                res = self._discrepancy(search.Xu, search.su, search.check.counts, search.points, search.h0_point,
                                        search.multiplicity, search.cap, limit)
                if search.certify(self._weights(res, search.d)) is not None:
                    search.pool_size += 1
                discrepancy = search.best_flips / n
                if math.isfinite(res.objective_bound):
                    discrepancy_upper = res.objective_bound / n
                if res.limit is Limit.INTERRUPTED:
                    stopped_by = "interrupt"
            except KeyboardInterrupt:
                stopped_by = "interrupt"
        return discrepancy, discrepancy_upper, stopped_by

    @staticmethod
    def _flip_poly(point: np.ndarray, h0: float) -> dict[tuple[int, ...], float]:
        """``-h0 w . x`` over the weight variables (indices 0..d-1): positive when ``w`` flips ``h0``."""
        return {(j,): -h0 * point[j] for j in range(point.size) if point[j] != 0.0}

    def _discrepancy(self, Xu: np.ndarray, su: np.ndarray, counts: np.ndarray, points: np.ndarray,
                     h0_point: np.ndarray, multiplicity: np.ndarray, cap: int,
                     time_limit: float | None) -> SolveResult:
        """Solve the discrepancy program (its classifier is checked by the caller)."""
        prog = self._base_program(Xu, su, counts, "max")
        errors = dict(prog.objective)
        prog.add_constraint(errors, "<=", cap, name="budget")
        gamma = float(self.margin)
        objective = {}
        for p in range(points.shape[0]):
            f = prog.add_variable(f"f{p}", 0.0, 1.0, integer=True)
            big_m = gamma + float(np.abs(points[p]).max())
            poly = self._flip_poly(points[p], h0_point[p])
            poly[(f,)] = -big_m  # f = 1 forces -h0 w.x >= gamma; f = 0 leaves it free
            prog.add_constraint(poly, ">=", gamma - big_m, name=f"flip{p}")
            objective[(f,)] = float(multiplicity[p])
        prog.set_objective(objective)
        return self._solve(prog, time_limit)

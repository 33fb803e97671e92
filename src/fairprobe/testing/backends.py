"""The backend contract: small programs with known answers and the checks every backend passes.

:func:`check_time_limit` checks that a backend stops at its time limit without depending on how
busy the machine is: :class:`Stopwatch` counts the smaller of the wall-clock time and this
process's CPU time, so a solve held back by other work on the machine (wall clock far past the
limit, little CPU used) passes, and a solve that ignores its limit (it keeps computing) fails.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fairprobe.backends.base import (
    Availability,
    Backend,
    Capabilities,
    ExactBackend,
    Limit,
    SolveOptions,
    SolveResult,
    Termination,
)
from fairprobe.program.model import PolynomialProgram

__all__ = [
    "CONTRACT_PROBLEMS",
    "KnownProblem",
    "Stopwatch",
    "check_backend_class",
    "check_backend_contract",
    "check_exact_routes",
    "check_time_limit",
    "declares_capable",
    "dense_lp",
    "hard_standard_quadratic",
]


@dataclass(frozen=True)
class KnownProblem:
    """A program with a known answer.

    Parameters
    ----------
    name : str
        Short identifier, used as the key of :func:`check_backend_contract`'s report.
    text : str
        The program in :meth:`PolynomialProgram.to_text` form.
    termination : Termination
        Expected termination.
    optimum : float or None
        Known optimal value (None unless ``termination`` is OPTIMAL).
    convex : bool
        True when the program is convex (solvable by convex-only backends).
    note : str
        Where the answer comes from.

    Examples
    --------
    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> lp = CONTRACT_PROBLEMS[0]
    >>> lp.name, lp.termination.value, lp.optimum
    ('lp', 'optimal', 11.0)
    """

    name: str
    text: str
    termination: Termination
    optimum: float | None
    convex: bool
    note: str = ""

    @property
    def program(self) -> PolynomialProgram:
        """A fresh parsed program.

        Returns
        -------
        PolynomialProgram
            Parsed from :attr:`text`; a new object on every access.

        Examples
        --------
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> prog = CONTRACT_PROBLEMS[0].program
        >>> prog.sense, prog.max_degree
        ('max', 1)
        """
        return PolynomialProgram.from_text(self.text)


CONTRACT_PROBLEMS: tuple[KnownProblem, ...] = (
    KnownProblem(
        "lp",
        """maximize
  3*x + 2*y
subject to
  c1: x + y <= 4
  c2: x + 3*y <= 6
bounds
  0 <= x <= 3
  0 <= y <= inf""",
        Termination.OPTIMAL, 11.0, True, "vertex x=3, y=1",
    ),
    KnownProblem(
        "lp_degenerate",
        """minimize
  -x
subject to
  a: x + y <= 1
  b: x - y <= 1
  c: x + 2*y <= 1
  d: 2*x + y <= 2
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.OPTIMAL, -1.0, True, "x=1, y=0 with five active constraints (degenerate vertex)",
    ),
    KnownProblem(
        "linear_fractional",
        """maximize
  (2*x + y + 1) / (x + 3*y + 2)
subject to
  c: x + y <= 1
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.OPTIMAL, 1.0, True, "optimum at the vertex (1, 0): 3/3",
    ),
    KnownProblem(
        "linear_fractional_min",
        """minimize
  (2*x + y + 1) / (x + 3*y + 2)
subject to
  c: x + y <= 1
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.OPTIMAL, 0.4, True, "optimum at the vertex (0, 1): 2/5",
    ),
    KnownProblem(
        "bilinear_simplex",
        """maximize
  x*y - 0.3*x + 0.1*y*z
subject to
  simplex: x + y + z == 1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1""",
        Termination.OPTIMAL, 0.1225, False, "z=0, x=0.35, y=0.65: 0.7x - x^2 at x=0.35",
    ),
    KnownProblem(
        "cubic_product",
        """maximize
  x*y*z
subject to
  simplex: x + y + z == 1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1""",
        Termination.OPTIMAL, 1 / 27, False, "AM-GM: x=y=z=1/3",
    ),
    KnownProblem(
        "cubic_two_minima",
        """minimize
  x^3 - 2.5*x
bounds
  -2 <= x <= 2""",
        Termination.OPTIMAL, -3.0, False,
        "local minimum at sqrt(2.5/3) with value -1.52; global minimum -3 at x=-2",
    ),
    KnownProblem(
        "convex_qp",
        """minimize
  x^2 - 2*x + y^2 - 4*y + 5
subject to
  c: x + y <= 2
bounds
  -10 <= x <= 10
  -10 <= y <= 10""",
        Termination.OPTIMAL, 0.5, True, "projection of (1, 2) on x + y <= 2 is (0.5, 1.5)",
    ),
    KnownProblem(
        "infeasible",
        """minimize
  x + y
subject to
  c: x + y >= 3
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.INFEASIBLE, None, True, "x + y <= 2 on the box",
    ),
    KnownProblem(
        "unbounded",
        """maximize
  x + y
subject to
  c: x - y <= 1
bounds
  0 <= x <= inf
  0 <= y <= inf""",
        Termination.UNBOUNDED, None, True, "the ray (1, 1)",
    ),
)


def hard_standard_quadratic(n: int = 60, seed: int = 3) -> PolynomialProgram:
    """``min x'Qx`` on the simplex with an indefinite ``Q``: NP-hard, for time-limit checks of global solvers.

    Parameters
    ----------
    n : int
        Variables.
    seed : int
        Seed of ``Q``.

    Returns
    -------
    PolynomialProgram

    Examples
    --------
    >>> hard_standard_quadratic(5).n_variables
    5
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, n))
    q = (q + q.T) / 2
    prog = PolynomialProgram(sense="min")
    idx = [prog.add_variable(f"x{i}", 0, 1) for i in range(n)]
    prog.set_objective({tuple(sorted((i, j))): float(q[i, j]) for i in idx for j in idx})
    prog.add_constraint({(i,): 1.0 for i in idx}, "==", 1.0, name="simplex")
    return prog


def dense_lp(n: int = 600, seed: int = 0) -> PolynomialProgram:
    """A dense ``n x n`` LP (Clarabel, through cvxpy, needs seconds for n = 600): time-limit checks of LP solvers.

    Parameters
    ----------
    n : int
        Variables and rows.
    seed : int
        Seed of the coefficients.

    Returns
    -------
    PolynomialProgram

    Examples
    --------
    >>> dense_lp(4).n_variables
    4
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    a, c = rng.uniform(0, 1, size=(n, n)), rng.uniform(0, 1, size=n)
    prog = PolynomialProgram(sense="max")
    idx = [prog.add_variable(f"x{i}", 0, 10) for i in range(n)]
    prog.set_objective({(i,): float(c[i]) for i in idx})
    for k in range(n):
        prog.add_constraint({(i,): float(a[k, i]) for i in idx}, "<=", float(a[k].sum()))
    return prog


def declares_capable(capabilities: Capabilities, problem: KnownProblem) -> bool:
    """True when ``capabilities`` say the backend can solve ``problem``.

    Parameters
    ----------
    capabilities : Capabilities
        What a backend declares it can solve.
    problem : KnownProblem
        The problem to check.

    Returns
    -------
    bool
        False when the problem's degree, non-convexity or fractional objective exceeds them.

    Examples
    --------
    >>> from fairprobe.backends.base import Capabilities
    >>> from fairprobe.testing import CONTRACT_PROBLEMS, declares_capable
    >>> linear_only = Capabilities(max_degree=1, fractional_objective=False)
    >>> [p.name for p in CONTRACT_PROBLEMS if declares_capable(linear_only, p)]
    ['lp', 'lp_degenerate', 'infeasible', 'unbounded']
    """
    prog = problem.program
    if capabilities.max_degree is not None and prog.max_degree > capabilities.max_degree:
        return False
    if capabilities.convex_only and not problem.convex:
        return False
    return not (prog.is_fractional and not capabilities.fractional_objective)


def check_backend_class(cls: type[Backend]) -> None:
    """Check the static interface of a backend class (name, capabilities, availability).

    Parameters
    ----------
    cls : type of Backend
        The backend class (not an instance).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        Naming the attribute that is missing or of the wrong type.

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import check_backend_class
    >>> check_backend_class(ScipBackend)
    """
    assert isinstance(cls.name, str) and cls.name, f"{cls!r} needs a non-empty 'name'"
    assert isinstance(cls.capabilities, Capabilities), f"{cls.name}: capabilities must be Capabilities"
    assert cls.install_hint, f"{cls.name}: set install_hint (shown when it is unavailable)"
    state = cls.availability()
    assert isinstance(state, Availability), f"{cls.name}: availability() must return Availability"


def check_backend_contract(
    backend: Backend,
    problems: Iterable[KnownProblem] = CONTRACT_PROBLEMS,
    *,
    tol: float = 1e-6,
    bound_tol: float = 1e-4,
    options: SolveOptions | None = None,
) -> dict[str, str]:
    """Run ``problems`` against ``backend`` and check every declared-solvable one.

    For each problem the backend declares it can solve: the termination must match; for
    optimal ones the incumbent must be feasible (violation <= 1e-5), its value within ``tol`` of
    the optimum, and ``objective_bound`` on the valid side of the optimum (within ``tol``) and
    within ``bound_tol`` of it. Problems outside the backend's capabilities must be refused with
    :class:`~fairprobe.exceptions.BackendCapabilityError`.

    Parameters
    ----------
    backend : Backend
        An instance of the backend to check.
    problems : iterable of KnownProblem
        The problems to run (default :data:`CONTRACT_PROBLEMS`).
    tol : float
        Tolerance on the incumbent's objective value.
    bound_tol : float
        Largest allowed distance between ``objective_bound`` and the optimum.
    options : SolveOptions, optional
        Passed to every ``solve`` call.

    Returns
    -------
    dict
        ``problem name -> "ok" | "refused"``, and for an exact backend ``"exact:<route>" -> "ok" | "not taken"``.

    Raises
    ------
    AssertionError
        On the first problem the backend gets wrong, naming the backend, problem and rule.

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import CONTRACT_PROBLEMS, check_backend_contract
    >>> check_backend_contract(ScipBackend(), CONTRACT_PROBLEMS[:2])
    {'lp': 'ok', 'lp_degenerate': 'ok'}
    """
    from fairprobe.exceptions import BackendCapabilityError

    check_backend_class(type(backend))
    report: dict[str, str] = {}
    for problem in problems:
        prog = problem.program
        if not declares_capable(backend.capabilities, problem):
            try:
                backend.solve(prog, options)
            except BackendCapabilityError:
                report[problem.name] = "refused"
                continue
            raise AssertionError(
                f"{backend.name}: {problem.name} is beyond its declared capabilities but was not "
                "refused with BackendCapabilityError"
            )
        res = backend.solve(prog, options)
        where = f"{backend.name} on {problem.name}"
        assert res.termination is problem.termination, (
            f"{where}: expected {problem.termination.value}, got {res.termination.value} "
            f"({res.message})"
        )
        if problem.optimum is not None:
            opt = problem.optimum
            assert res.incumbent is not None and res.incumbent_objective is not None, f"{where}: no incumbent"
            viol = prog.max_violation(res.incumbent)
            assert viol <= 1e-5, f"{where}: incumbent violates the program by {viol:.2e}"
            assert abs(res.incumbent_objective - opt) <= tol, (
                f"{where}: incumbent {res.incumbent_objective!r} is not within {tol} of {opt!r}"
            )
            b = res.objective_bound
            valid = b <= opt + tol if prog.sense == "min" else b >= opt - tol
            assert valid, f"{where}: bound {b!r} is on the wrong side of the optimum {opt!r}"
            assert abs(b - opt) <= bound_tol, f"{where}: bound {b!r} is not within {bound_tol} of {opt!r}"
        elif problem.termination is Termination.INFEASIBLE:
            assert math.isinf(res.objective_bound), f"{where}: infeasible but finite bound"
        report[problem.name] = "ok"
    if isinstance(backend, ExactBackend):  # it claims the exact routes: each must bound, or say None
        report.update(check_exact_routes(backend, tol=tol, bound_tol=bound_tol, options=options))
    return report


#: A parity of two rates over a polytope (``ra = x / (x + y)``, ``rb = z / (z + w)``): ``ra - rb`` ranges over [-1, 1].
PARITY_TEXT = """
minimize
  ra - rb
subject to
  s: x + y + z + w == 1
  da: ra*x + ra*y - x == 0
  db: rb*z + rb*w - z == 0
  pa: x + y >= 0.2
  pb: z + w >= 0.2
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1
  0 <= w <= 1
  0 <= ra <= 1
  0 <= rb <= 1
"""

#: A linear-fractional program: ``(x + 1) / (y + 1)`` over ``x + y <= 1`` in the unit box ranges over [0.5, 2].
FRACTIONAL_TEXT = "minimize\n  (x + 1) / (y + 1)\nsubject to\n  x + y <= 1\nbounds\n  0 <= x <= 1\n  0 <= y <= 1\n"


def _check_side(where: str, res: SolveResult, sense: str, opt: float, tol: float, bound_tol: float) -> None:
    b = res.objective_bound
    valid = b <= opt + tol if sense == "min" else b >= opt - tol
    assert valid, f"{where}: bound {b!r} is on the wrong side of the optimum {opt!r} ({sense})"
    assert abs(b - opt) <= bound_tol, f"{where}: bound {b!r} is not within {bound_tol} of {opt!r} ({sense})"


def check_exact_routes(backend: ExactBackend, *, tol: float = 1e-6, bound_tol: float = 1e-4,
                       options: SolveOptions | None = None) -> dict[str, str]:
    """Check the exact routes of a backend that declares :class:`~fairprobe.backends.base.ExactBackend`.

    On programs with known ranges: each route returns None ("not taken") or results whose bounds are
    on the valid side of the optimum (within ``tol``) and within ``bound_tol`` of it; a program
    :meth:`~fairprobe.backends.base.ExactBackend.solves_exactly` claims must be taken by
    :meth:`~fairprobe.backends.base.ExactBackend.solve_parity`; verified minima are never above the true
    minimum; a route never raises for a program it does not take (an integer program).

    Parameters
    ----------
    backend : ExactBackend
        An instance of the backend.
    tol, bound_tol : float
        As for :func:`check_backend_contract`.
    options : SolveOptions, optional
        Passed to every call.

    Returns
    -------
    dict
        ``"exact:<route>" -> "ok" | "not taken"``.

    Raises
    ------
    AssertionError
        On the first rule broken, naming the backend, the route and the rule.

    Examples
    --------
    >>> from fairprobe.backends.highs import HighsBackend
    >>> check_exact_routes(HighsBackend())["exact:parity"]
    'ok'
    """
    name = backend.name
    report: dict[str, str] = {}
    parity = PolynomialProgram.from_text(PARITY_TEXT)
    optimum = {"min": -1.0, "max": 1.0}
    claims = backend.solves_exactly(parity)
    taken = False
    for sense in ("min", "max"):
        res = backend.solve_parity(parity.with_sense(sense), options)
        assert res is not None or not claims, (
            f"{name}: solves_exactly() claims the parity program but solve_parity() did not take it")
        if res is not None:
            taken = True
            _check_side(f"{name}.solve_parity", res, sense, optimum[sense], tol, bound_tol)
    report["exact:parity"] = "ok" if taken else "not taken"
    pair = backend.solve_parity_pair(parity, options)
    assert pair is not None or not claims, (
        f"{name}: solves_exactly() claims the parity program but solve_parity_pair() did not take it")
    if pair is not None:
        for sense, res in zip(("min", "max"), pair, strict=True):
            _check_side(f"{name}.solve_parity_pair", res, sense, optimum[sense], tol, bound_tol)
    report["exact:parity_pair"] = "ok" if pair is not None else "not taken"
    rows = PolynomialProgram.from_text("minimize\n  0\nsubject to\n  x + y >= 0.5\nbounds\n  0 <= x <= 1\n"
                                       "  0 <= y <= 1\n")
    truth = [0.5, 0.0]
    minima = backend.verified_minima(rows, [{(0,): 1.0, (1,): 1.0}, {(0,): 1.0}], options)
    if minima is not None:
        assert len(minima) == len(truth), f"{name}.verified_minima: {len(minima)} values for {len(truth)} objectives"
        for low, true in zip(minima, truth, strict=True):
            if low is not None:
                assert low <= true + tol, f"{name}.verified_minima: {low!r} is above the true minimum {true!r}"
                assert true - low <= bound_tol, f"{name}.verified_minima: {low!r} is not within {bound_tol} of {true!r}"
    report["exact:minima"] = "ok" if minima is not None else "not taken"
    fractional = PolynomialProgram.from_text(FRACTIONAL_TEXT)
    both = backend.solve_fractional_pair(fractional, options)
    if both is not None:
        for sense, res, opt in zip(("min", "max"), both, (0.5, 2.0), strict=True):
            _check_side(f"{name}.solve_fractional_pair", res, sense, opt, tol, bound_tol)
    report["exact:fractional_pair"] = "ok" if both is not None else "not taken"
    integer = PolynomialProgram.from_text("maximize\n  x*y\nbounds\n  0 <= x <= 3 integer\n  0 <= y <= 1\n")
    backend.solve_parity(integer, options)  # not a parity: None, and never an exception
    return report


class Stopwatch:
    """Seconds a block used, whatever else the machine runs: the smaller of wall-clock and CPU time.

    On an idle machine a single-threaded block's CPU time is its wall-clock time; a block that
    waits for a core (other processes, other test workers) adds wall-clock time but no CPU time;
    a multi-threaded one adds CPU time faster than wall-clock time. The smaller of the two is
    therefore at most what the block would take alone, and it grows with the work done: a limit
    on it fails a block that computes for too long on any machine and passes one that is only
    held back. (CPU time is this process's, all threads: work in other processes is not counted.)

    Attributes
    ----------
    wall, cpu : float
        Wall-clock and CPU seconds of the block (set when it ends).

    Examples
    --------
    >>> import time
    >>> with Stopwatch() as watch:
    ...     time.sleep(0.2)  # waiting, as for a busy core
    >>> watch.wall >= 0.2, watch.seconds < 0.2
    (True, True)
    """

    wall: float = 0.0
    cpu: float = 0.0

    def __enter__(self) -> Stopwatch:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu

    @property
    def seconds(self) -> float:
        """The smaller of :attr:`wall` and :attr:`cpu`."""
        return min(self.wall, self.cpu)


def check_time_limit(backend: Any, program: PolynomialProgram | None, *, time_limit: float = 1.0,
                     slack: float = 3.0, options: SolveOptions | None = None) -> tuple[SolveResult, Stopwatch]:
    """Solve ``program`` with a time limit and check the backend stopped at it, on a busy machine too.

    Parameters
    ----------
    backend : Backend
        The backend (warm it up first: imports and licence checks are not the solve).
    program : PolynomialProgram
        A program the backend cannot finish within ``time_limit`` on an idle machine, or one it
        finishes (then the check is only that it did not run long).
    time_limit : float
        Seconds given to the solve.
    slack : float
        Seconds past the limit still counted as respected (building the model, reading the answer).
    options : SolveOptions, optional
        Other options of the solve; ``time_limit`` replaces theirs.

    Returns
    -------
    (SolveResult, Stopwatch)
        The result and the solve's times.

    Raises
    ------
    AssertionError
        The solve used more than ``time_limit + slack`` seconds (:attr:`Stopwatch.seconds`), or it
        ended other than optimal or at the time limit.

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import CONTRACT_PROBLEMS, check_time_limit
    >>> res, watch = check_time_limit(ScipBackend(), CONTRACT_PROBLEMS[0].program, time_limit=1.0)
    >>> res.termination.value, watch.seconds < 4.0
    ('optimal', True)
    """
    options = dataclasses.replace(options or SolveOptions(), time_limit=time_limit)
    with Stopwatch() as watch:
        res = backend.solve(program, options)
    name = getattr(backend, "name", type(backend).__name__)
    assert watch.seconds <= time_limit + slack, (
        f"{name} took {watch.seconds:.1f} s (wall clock {watch.wall:.1f} s, CPU {watch.cpu:.1f} s) at a "
        f"{time_limit:g} s limit; at most {time_limit + slack:g} s are allowed")
    assert res.termination in (Termination.LIMIT, Termination.OPTIMAL), \
        f"{name}: {res.termination.value}: {res.message}"
    if res.termination is Termination.LIMIT:
        assert res.limit is Limit.TIME, f"{name} stopped at another limit ({res.limit}): {res.message}"
    return res, watch

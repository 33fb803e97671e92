"""The backend contract: small programs with known answers and the checks every backend passes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from fairprobe.backends.base import Availability, Backend, Capabilities, SolveOptions, Termination
from fairprobe.program.model import PolynomialProgram

__all__ = ["CONTRACT_PROBLEMS", "KnownProblem", "check_backend_class", "check_backend_contract", "declares_capable"]


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
        ``problem name -> "ok" | "refused"``.

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
    return report

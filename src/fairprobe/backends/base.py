"""The one interface every optimisation backend implements.

A backend turns a :class:`~fairprobe.program.model.PolynomialProgram` into a frozen
:class:`SolveResult`. The contract that makes fairprobe's bounds *certified*:

* ``objective_bound`` is always a valid outer bound on the optimum (a lower bound when
  minimising, an upper bound when maximising), ``-inf``/``+inf`` when the solver proved none;
  a backend that is not a global solver must report the infinite bound, never a local optimum.
* Stopping at a time or node limit is a result (``termination=LIMIT``, ``limit`` says which),
  never an exception.
* No solver library is imported at import time: ``availability()`` uses
  ``importlib.util.find_spec`` (and, where a licence matters, a cheap probe), and the import
  happens in ``solve``.
"""

from __future__ import annotations

import enum
import importlib.util
import math
import operator
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar

from fairprobe.exceptions import BackendCapabilityError, BackendUnavailableError
from fairprobe.program.model import PolynomialProgram

__all__ = ["Availability", "Backend", "Capabilities", "ExactBackend", "Limit", "SolveOptions", "SolveResult",
           "Termination"]

#: Solver modules already found by :meth:`Backend._module_installed`.
_FOUND_MODULES: set[str] = set()

#: A constraint ``body sense rhs`` in a solver's own expressions: ``COMPARE[sense](body, rhs)``.
COMPARE = MappingProxyType({"<=": operator.le, ">=": operator.ge, "==": operator.eq})

#: Largest polynomial degree any backend accepts (compiled fairprobe programs stay far below it).
MAX_DEGREE = 400


def check_degree(program: PolynomialProgram) -> None:
    """Refuse a program whose degree exceeds :data:`MAX_DEGREE`, before any solver sees it.

    The solvers' expression trees recurse per factor (OR-Tools and Gurobi raise ``RecursionError``)
    and SCIP's presolve does not honour its time limit on such powers.

    Parameters
    ----------
    program : PolynomialProgram

    Raises
    ------
    BackendCapabilityError
        The degree exceeds :data:`MAX_DEGREE`.

    Examples
    --------
    >>> check_degree(PolynomialProgram.from_text("maximize\\n  x^2\\nbounds\\n  0 <= x <= 1")) is None
    True
    """
    deg = program.max_degree
    if deg > MAX_DEGREE:
        raise BackendCapabilityError(
            f"This program has degree {deg}, beyond the {MAX_DEGREE} any fairprobe backend accepts (solvers "
            "neither finish nor honour a time limit on such powers). Rewrite the high power as a chain of "
            "auxiliary variables (y1 = x^20, y2 = y1^20, ...), each of low degree, or simplify the program.")


class Availability(enum.IntEnum):
    """Whether a backend can be used, and if not why. Falsy exactly when unusable.

    Examples
    --------
    >>> bool(Availability.LIMITED_LICENSE), bool(Availability.NOT_INSTALLED)
    (True, False)
    """

    AVAILABLE = 2
    LIMITED_LICENSE = 1
    NOT_INSTALLED = 0
    BAD_VERSION = -1
    BAD_LICENSE = -2
    ERROR = -3

    def __bool__(self) -> bool:
        return self.value > 0

    @property
    def label(self) -> str:
        """Human-readable label, e.g. ``"not installed"``.

        Examples
        --------
        >>> Availability.LIMITED_LICENSE.label
        'available (size-limited licence)'
        """
        return {
            2: "available",
            1: "available (size-limited licence)",
            0: "not installed",
            -1: "unsupported version",
            -2: "no valid licence",
            -3: "error while probing",
        }[self.value]


class Termination(str, enum.Enum):
    """Why the solver stopped.

    Examples
    --------
    >>> Termination("infeasible") is Termination.INFEASIBLE
    True
    """

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    LIMIT = "limit"
    NUMERICAL_ERROR = "numerical_error"
    ERROR = "error"


class Limit(str, enum.Enum):
    """Which limit stopped a solver (set iff ``termination == LIMIT``).

    Examples
    --------
    >>> res = SolveResult(Termination.LIMIT, 12.5, incumbent_objective=12.0, limit=Limit.TIME, sense="max")
    >>> res.limit.value, res.gap
    ('time', 0.5)
    """

    TIME = "time"
    NODE = "node"
    ITERATION = "iteration"
    SOLUTION = "solution"
    MEMORY = "memory"
    INTERRUPTED = "interrupted"
    OTHER = "other"


@dataclass(frozen=True)
class Capabilities:
    """What a backend can solve.

    Attributes
    ----------
    max_degree : int or None
        Largest polynomial degree accepted (None: any).
    global_bound : bool
        True when ``objective_bound`` certifies the global optimum of nonconvex programs.
    convex_only : bool
        True when only convex programs (linear, convex quadratic) are accepted.
    fractional_objective : bool
        True when ``poly / poly`` objectives are accepted.
    integer_variables : bool
        True when integer (mixed-integer) programs are accepted.

    Examples
    --------
    >>> Capabilities().describe()
    'any degree, nonconvex, integers, global bounds'
    >>> from fairprobe.backends.cvxpy import CvxpyBackend
    >>> CvxpyBackend.capabilities.convex_only
    True
    """

    max_degree: int | None = None
    global_bound: bool = True
    convex_only: bool = False
    fractional_objective: bool = True
    integer_variables: bool = True

    def describe(self) -> str:
        """One line for listings: degree, convexity, integer support and whether bounds are global.

        Returns
        -------
        str

        Examples
        --------
        >>> Capabilities(max_degree=2, convex_only=True, integer_variables=False).describe()
        'degree <= 2, convex only, global bounds'
        """
        deg = "any degree" if self.max_degree is None else f"degree <= {self.max_degree}"
        kind = "convex only" if self.convex_only else "nonconvex"
        cert = "global bounds" if self.global_bound else "no global bounds"
        ints = ", integers" if self.integer_variables else ""
        return f"{deg}, {kind}{ints}, {cert}"


@dataclass(frozen=True)
class SolveOptions:
    """Options common to every backend.

    Parameters
    ----------
    time_limit : float, optional
        Wall-clock seconds; None for no limit.
    rel_gap, abs_gap : float
        Stop when the relative (absolute) gap between incumbent and bound is below this.
    threads : int, optional
        Solver threads; None lets the solver decide.
    seed : int
        Random seed passed to the solver.
    verbose : bool
        Show the solver log.
    node_limit : int, optional
        Branch-and-bound node limit.
    solver_options : mapping
        Passed through to the solver unchanged (names are the solver's own).
    objective_limit : float, optional
        Stop early once the answer to "is the optimum beyond this value?" is known: for a
        minimisation, as soon as an incumbent is at most the limit or the dual bound is at least
        it (mirrored for a maximisation). The result then has ``termination`` LIMIT and a
        certified bound. Backends that cannot stop there solve to optimality (still correct).
    profiles : tuple of str
        Named settings profiles, in order (the bound engine's: ``"engine"``, ``"joint"``, ``"retry"``).
        A backend maps the names it knows to its own parameters (:data:`fairprobe.backends.scip.PROFILES`)
        and ignores the others; ``solver_options`` override them.

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> res = ScipBackend().solve(CONTRACT_PROBLEMS[0].program, SolveOptions(time_limit=10))  # max 3x + 2y
    >>> res.objective_bound
    11.0
    """

    time_limit: float | None = None
    rel_gap: float = 1e-9
    abs_gap: float = 1e-9
    threads: int | None = None
    seed: int = 0
    verbose: bool = False
    node_limit: int | None = None
    solver_options: Mapping[str, Any] = field(default_factory=dict)
    objective_limit: float | None = None
    profiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class SolveResult:
    """Outcome of one solve, in the sense of the program that was solved.

    Attributes
    ----------
    termination : Termination
    limit : Limit or None
        Set iff ``termination is Termination.LIMIT``.
    objective_bound : float
        Valid outer bound (lower bound for min, upper for max); +-inf when none.
    incumbent_objective : float or None
        Objective of the best feasible point found.
    incumbent : dict or None
        That point, ``{variable name: value}``.
    solver, solver_version : str
    wall_time : float
        Seconds spent in ``solve``.
    sense : {"min", "max"}
    message : str
    extra : dict
        Solver-specific details (node counts, statuses).

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> res = ScipBackend().solve(CONTRACT_PROBLEMS[0].program)  # max 3x + 2y, optimum 11
    >>> res.termination.value, res.objective_bound, res.incumbent
    ('optimal', 11.0, {'x': 3.0, 'y': 1.0})
    """

    termination: Termination
    objective_bound: float
    incumbent_objective: float | None = None
    incumbent: Mapping[str, float] | None = None
    limit: Limit | None = None
    solver: str = ""
    solver_version: str = ""
    wall_time: float = 0.0
    sense: str = "min"
    message: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if (self.limit is not None) != (self.termination is Termination.LIMIT):
            raise ValueError("SolveResult.limit must be set exactly when termination is LIMIT.")

    @property
    def gap(self) -> float:
        """``|objective_bound - incumbent_objective|``, inf when either is missing.

        Examples
        --------
        >>> SolveResult(Termination.OPTIMAL, 11.0, incumbent_objective=11.0).gap, stopped(Termination.ERROR, "min").gap
        (0.0, inf)
        """
        if self.incumbent_objective is None or math.isinf(self.objective_bound):
            return math.inf
        return abs(self.objective_bound - self.incumbent_objective)

    @property
    def is_optimal(self) -> bool:
        """True when the solver proved optimality within its tolerances (``termination`` OPTIMAL).

        Examples
        --------
        >>> SolveResult(Termination.OPTIMAL, 11.0).is_optimal
        True
        """
        return self.termination is Termination.OPTIMAL

    def with_updates(self, **changes: Any) -> SolveResult:
        """Copy with fields replaced.

        Parameters
        ----------
        **changes
            Field name -> new value, as for :func:`dataclasses.replace`.

        Returns
        -------
        SolveResult
            A new frozen result; ``self`` is unchanged.

        Examples
        --------
        >>> SolveResult(Termination.OPTIMAL, 11.0).with_updates(message="solved").message
        'solved'
        """
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The result as a dict of plain values; an infinite bound stays a float (JSON writers pass it
        through :func:`fairprobe.core.jsonsafe.jsonable`).

        Returns
        -------
        dict
            Termination, limit, bound, incumbent objective, solver, version, time, sense and message
            (not the incumbent point nor ``extra``).

        Examples
        --------
        >>> d = stopped(Termination.INFEASIBLE, "max").to_dict()
        >>> d["termination"], d["objective_bound"], d["sense"]
        ('infeasible', -inf, 'max')
        """
        return {
            "termination": self.termination.value,
            "limit": self.limit.value if self.limit else None,
            "objective_bound": self.objective_bound,
            "incumbent_objective": self.incumbent_objective,
            "solver": self.solver,
            "solver_version": self.solver_version,
            "wall_time": self.wall_time,
            "sense": self.sense,
            "message": self.message,
        }


def no_bound(sense: str) -> float:
    """The trivial outer bound for ``sense``.

    Parameters
    ----------
    sense : {"min", "max"}

    Returns
    -------
    float
        ``-inf`` for a minimisation, ``+inf`` for a maximisation.

    Examples
    --------
    >>> no_bound("min"), no_bound("max")
    (-inf, inf)
    """
    return -math.inf if sense == "min" else math.inf


def stop_bound(termination: Termination, sense: str) -> float:
    """The certified bound of a solve that stopped with ``termination`` without a dual bound.

    Parameters
    ----------
    termination : Termination
    sense : {"min", "max"}

    Returns
    -------
    float
        After INFEASIBLE the empty set's bound (``+inf`` for a minimisation, ``-inf`` for a maximisation);
        after any other stop the trivial outer bound, :func:`no_bound`.

    Examples
    --------
    >>> stop_bound(Termination.INFEASIBLE, "min"), stop_bound(Termination.ERROR, "min")
    (inf, -inf)
    """
    return -no_bound(sense) if termination is Termination.INFEASIBLE else no_bound(sense)


def stopped(termination: Termination, sense: str, **fields: Any) -> SolveResult:
    """A result without a dual bound (infeasible, unbounded, an error): its bound is :func:`stop_bound`.

    Parameters
    ----------
    termination : Termination
    sense : {"min", "max"}
    **fields
        Further :class:`SolveResult` fields (``solver``, ``message``, ``limit``, ...).

    Returns
    -------
    SolveResult

    Examples
    --------
    >>> res = stopped(Termination.INFEASIBLE, "max", solver="mine", message="no feasible point")
    >>> res.objective_bound, res.incumbent
    (-inf, None)
    """
    return SolveResult(termination, stop_bound(termination, sense), sense=sense, **fields)


class Backend(ABC):
    """Base class of optimisation backends.

    Subclasses set the class attributes and implement :meth:`availability` and :meth:`_solve`.
    Register them through the ``fairprobe_register_backends`` hook.

    Examples
    --------
    >>> import fairprobe as fp
    >>> prog = fp.PolynomialProgram.from_text("maximize\\n  x + y\\nsubject to\\n  x + 2*y <= 1\\nbounds\\n"
    ...                                       "  0 <= x <= 0.5\\n  0 <= y <= 1")
    >>> round(fp.get_backend("scip").solve(prog).objective_bound, 6)
    0.75
    """

    name: ClassVar[str] = ""
    capabilities: ClassVar[Capabilities] = Capabilities()
    install_hint: ClassVar[str] = ""
    description: ClassVar[str] = ""

    @classmethod
    @abstractmethod
    def availability(cls) -> Availability:
        """Whether the backend can run here (truthy exactly when :meth:`solve` can run). Never raises.

        Returns
        -------
        Availability

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> ScipBackend.availability()
        <Availability.AVAILABLE: 2>
        """

    @classmethod
    def availability_reason(cls) -> str:
        """Why the backend is (un)available, for listings.

        Returns
        -------
        str
            The availability label, and the install hint when the backend is unusable.

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> ScipBackend.availability_reason()
        'available'
        """
        status = cls.availability()
        if status:
            return status.label
        hint = f"; install with: {cls.install_hint}" if cls.install_hint else ""
        return f"{status.label}{hint}"

    @staticmethod
    def _module_installed(module: str) -> bool:
        """Whether ``module`` can be imported; found once, it stays found (a missing one is looked for again)."""
        if module in _FOUND_MODULES:
            return True
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            return False
        if found:
            _FOUND_MODULES.add(module)
        return found

    def check_program(self, program: PolynomialProgram) -> None:
        """Raise :class:`BackendCapabilityError` when ``program`` is beyond this backend.

        Parameters
        ----------
        program : PolynomialProgram
            The program to check (validated first).

        Raises
        ------
        BackendCapabilityError
            The degree, integer variables or fractional objective exceed :attr:`capabilities`.
        ProgramError
            The program itself is malformed.

        Examples
        --------
        >>> from fairprobe.backends.cvxpy import CvxpyBackend
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> cubic = CONTRACT_PROBLEMS[5].program  # max x*y*z on the simplex
        >>> try:
        ...     CvxpyBackend().check_program(cubic)
        ... except BackendCapabilityError as err:
        ...     print(err)  # doctest: +ELLIPSIS
        Backend 'cvxpy' accepts polynomials of degree <= 2, but this program has degree 3. ...
        """
        program.validate()
        caps = self.capabilities
        deg = program.max_degree
        check_degree(program)
        if caps.max_degree is not None and deg > caps.max_degree:
            raise BackendCapabilityError(
                f"Backend {self.name!r} accepts polynomials of degree <= {caps.max_degree}, but "
                f"this program has degree {deg}. Use backend='scip' (any degree, global bounds)."
            )
        if program.has_integers and not caps.integer_variables:
            raise BackendCapabilityError(
                f"Backend {self.name!r} does not accept integer variables; use backend='scip'."
            )
        if program.is_fractional and not caps.fractional_objective:
            raise BackendCapabilityError(
                f"Backend {self.name!r} does not accept fractional objectives; use backend='scip'."
            )

    def solve(
        self, program: PolynomialProgram, options: SolveOptions | None = None
    ) -> SolveResult:
        """Solve ``program`` and return a :class:`SolveResult`.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional
            Limits, tolerances and solver options (default ``SolveOptions()``).

        Returns
        -------
        SolveResult
            ``objective_bound`` is a certified outer bound on the optimum.

        Raises
        ------
        BackendUnavailableError
            The solver is not installed or not licensed.
        BackendCapabilityError
            The program is beyond the backend's capabilities (degree, convexity, licence size).

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> res = ScipBackend().solve(CONTRACT_PROBLEMS[5].program, SolveOptions(time_limit=10))
        >>> abs(res.objective_bound - 1 / 27) < 1e-4, res.objective_bound >= 1 / 27 - 1e-9
        (True, True)
        """
        status = self.availability()
        if not status:
            raise BackendUnavailableError(
                f"Backend {self.name!r} is unavailable ({status.label}). "
                f"Install it with: {self.install_hint}"
            )
        self.check_program(program)
        return self._solve(program, options or SolveOptions())

    @abstractmethod
    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        """Solve a program already checked against the capabilities."""

    def routed(self, result: SolveResult, route: str) -> SolveResult:
        """``result``, which another backend's exact ``route`` gave for a program this backend was asked to solve.

        The bound engine calls it on the backend the caller named, which may say so in the result (``auto``
        does). The default returns ``result`` unchanged.

        Parameters
        ----------
        result : SolveResult
            The exact route's result.
        route : str
            Its name, e.g. ``"LP"`` or ``"parity search"``.

        Returns
        -------
        SolveResult

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> res = SolveResult(Termination.OPTIMAL, 1.0, solver="highs")
        >>> ScipBackend().routed(res, "LP") is res
        True
        """
        return result

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


class ExactBackend(Backend):
    """The declared protocol of the bound engine's exact routes: a backend that implements it joins them.

    Before the bound engine hands a program to a global solver, it offers it to the exact routes of the
    backend the ``fairprobe_select_backend`` hook chose, when that backend is an :class:`ExactBackend`
    (``isinstance``, never a probe for methods), as HiGHS (:class:`~fairprobe.backends.highs.HighsBackend`)
    is. The contract, checked by :func:`fairprobe.testing.check_backend_contract`:

    * :meth:`solve` solves continuous linear and linear-fractional programs with an outer bound
      that floating-point error cannot move inwards (verified, outward-rounded).
    * Each route either returns results in the sense of the program it was given, whose
      ``objective_bound`` is a valid outer bound, or None: "not taken" (another shape, or a search
      that could not close), after which the engine sends the program to a global solver. A route
      never raises for a program it does not take.
    * :meth:`solves_exactly` is True for the programs :meth:`solve_parity` takes.

    Examples
    --------
    >>> from fairprobe.backends.highs import HighsBackend
    >>> isinstance(HighsBackend(), ExactBackend), sorted(ExactBackend.__abstractmethods__)[:3]
    (True, ['_solve', 'availability', 'solve_fractional_pair'])
    """

    @abstractmethod
    def solves_exactly(self, program: PolynomialProgram) -> bool:
        """Whether this backend solves ``program`` whole, in milliseconds: an LP, or a program :meth:`solve_parity`
        takes (a parity of two rates over a polytope).

        Parameters
        ----------
        program : PolynomialProgram

        Returns
        -------
        bool
        """

    @abstractmethod
    def solve_parity(self, program: PolynomialProgram, options: SolveOptions | None = None,
                     den_floors: Mapping | None = None) -> SolveResult | None:
        """One side (``program.sense``) of a nonconvex program by an exact search, or None when not taken.

        Parameters
        ----------
        program : PolynomialProgram
            Any program (a parity of two rates ``c_a r_a + c_b r_b`` over ratio definitions and linear
            rows is what HiGHS takes).
        options : SolveOptions, optional
        den_floors : mapping, optional
            Verified lower bounds of linear polynomials over ``program``'s models (rounding included),
            keyed by ``frozenset(poly.items())``: a search may use them for denominators instead of an LP.

        Returns
        -------
        SolveResult or None
        """

    @abstractmethod
    def solve_parity_pair(self, program: PolynomialProgram, options: SolveOptions | None = None,
                          den_floors: Mapping | None = None) -> tuple[SolveResult, SolveResult] | None:
        """The min and the max of :meth:`solve_parity`, sharing their work, or None when not taken.

        Parameters as :meth:`solve_parity`.

        Returns
        -------
        (SolveResult, SolveResult) or None
        """

    @abstractmethod
    def verified_minima(self, program: PolynomialProgram, objectives: list[dict],
                        options: SolveOptions | None = None) -> list[float | None] | None:
        """Verified lower bounds on the minima of linear objectives over ``program``'s rows and box.

        Parameters
        ----------
        program : PolynomialProgram
            A continuous program with linear rows (its objective is ignored).
        objectives : list of dict
            Linear polynomials over its variables.
        options : SolveOptions, optional

        Returns
        -------
        list of float or None, or None
            Per objective a bound at most its true minimum (None where no optimum was found); None when
            the route does not take the program.
        """

    @abstractmethod
    def solve_fractional_pair(self, program: PolynomialProgram,
                              options: SolveOptions | None = None) -> tuple[SolveResult, SolveResult] | None:
        """The min and the max of a continuous linear-fractional program, or None when not taken.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional

        Returns
        -------
        (SolveResult, SolveResult) or None
            As :meth:`solve` gives for ``program.with_sense("min")`` and ``("max")``.
        """

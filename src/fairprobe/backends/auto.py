"""``backend="auto"``: the best certified solver installed here, chosen anew for every program.

:class:`AutoBackend` asks the ``fairprobe_select_backend`` hook which backend should solve each program,
solves it with that backend and says so in the result (``message`` starts with ``auto chose <name>``,
``extra["auto_choice"]`` holds the name, ``solver`` is the solver that ran); one bound solves many
programs, so it can use several backends. The built-in choice is :func:`choose_backend`; a plugin
overrides it by implementing the hook (it runs before the built-in one). A backend that refuses the
program it was given (a licence or capability error) is replaced by SCIP for that program, and the
message says so.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from fairprobe.backends.base import Availability, Backend, Capabilities, SolveOptions, SolveResult, check_degree
from fairprobe.exceptions import BackendCapabilityError, BackendUnavailableError
from fairprobe.program.model import PolynomialProgram

if TYPE_CHECKING:
    import pluggy

__all__ = ["AutoBackend", "choose_backend", "describe_structure"]

#: The backend whose exact routes take continuous programs first (verified LP bounds, the parity search).
EXACT = "highs"

#: Requested backends that get the exact routes in front of them: the global solvers a bound uses by default.
EXACT_IN_FRONT_OF = ("scip", "auto")

#: Backends that accept any program and certify global bounds, in order, for when SCIP is missing.
_GLOBAL_FALLBACKS = ("ortools", "gurobi")


def describe_structure(program: PolynomialProgram) -> str:
    """A few words on the structure :func:`choose_backend` looks at, e.g. ``"linear-fractional"``.

    Parameters
    ----------
    program : PolynomialProgram

    Returns
    -------
    str
        ``"linear"``/``"linear-fractional"`` (prefixed ``"mixed-integer "`` when it has integer
        variables), or the degree and size of a nonlinear program.

    Examples
    --------
    >>> describe_structure(PolynomialProgram.from_text("minimize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1"))
    'degree-2, 2 variables, 0 constraints'
    """
    integer = "mixed-integer " if program.has_integers else ""
    if program.max_degree <= 1:
        return f"{integer}{'linear-fractional' if program.is_fractional else 'linear'}"
    fraction = "fractional " if program.is_fractional else ""
    return (f"{integer}{fraction}degree-{program.max_degree}, {program.n_variables} variables, "
            f"{len(program.constraints)} constraints")


def choose_backend(program: PolynomialProgram | None, available: Sequence[str],
                   requested: str | None = None) -> str | None:
    """The built-in choice of backend for ``program`` among the usable ``available`` ones: the one rule.

    HiGHS's LP bounds are verified with outward rounding, and it solves a linear-fractional objective as one
    exact Charnes-Cooper LP (SCIP would branch on the bilinear epigraph); Gurobi is faster than SCIP on
    nonlinear and mixed-integer programs within its licence (:func:`fairprobe.backends.gurobi.fits_licence`).

    Parameters
    ----------
    program : PolynomialProgram or None
        The program to solve; None asks for one backend for any program (SCIP).
    available : sequence of str
        Names of the usable backends.
    requested : str or None, optional
        The backend the caller of a bound named (the bound engine asks for each of its programs);
        None for ``backend="auto"``'s own choices.

    Returns
    -------
    str or None
        For a bound (``requested`` given): with ``"scip"`` or ``"auto"`` a continuous program goes to
        :data:`EXACT` first (its LP route or, for a nonconvex one, its exact search; declined, it is
        asked about again without it), everything else to ``requested``. For ``backend="auto"``:
        continuous linear programs (LP, linear-fractional) to ``"highs"``, else ``"ortools"``;
        nonlinear and mixed-integer ones to ``"gurobi"`` when its licence accepts the program;
        otherwise, and for ``program=None``, ``"scip"``. None when nothing is available.

    Examples
    --------
    >>> lp = PolynomialProgram.from_text("maximize\\n  x + y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1\\n")
    >>> choose_backend(lp, ["highs", "ortools", "scip"]), choose_backend(lp, ["ortools", "scip"])
    ('highs', 'ortools')
    >>> choose_backend(lp, ["highs", "scip"], requested="scip"), choose_backend(lp, ["scip"], requested="scip")
    ('highs', 'scip')
    >>> choose_backend(lp, ["highs", "gurobi"], requested="gurobi")
    'gurobi'
    """
    avail = set(available)
    if requested is not None:
        continuous = program is not None and not program.has_integers
        return EXACT if requested in EXACT_IN_FRONT_OF and continuous and EXACT in avail else requested
    order = ("scip", *_GLOBAL_FALLBACKS)
    if program is not None and program.max_degree <= 1 and not program.has_integers:
        order = (EXACT, "ortools", *order)
    elif program is not None and "gurobi" in avail:
        from fairprobe.backends.gurobi import fits_licence

        if fits_licence(program):
            return "gurobi"
    return next((name for name in order if name in avail), available[0] if available else None)


class AutoBackend(Backend):
    """Solve each program with the backend the ``fairprobe_select_backend`` hook chooses for it.

    Built by :func:`fairprobe.get_backend` for ``"auto"``; the built-in choice is :func:`choose_backend`.

    Parameters
    ----------
    pm : pluggy.PluginManager, optional
        The plugin manager whose hook chooses (default: the process-wide one).
    backends : mapping of str to type, optional
        The usable backend classes by name (default: every usable registered backend).

    Attributes
    ----------
    choices : collections.Counter
        How many programs each backend solved so far.

    Examples
    --------
    >>> import fairprobe as fp
    >>> prog = PolynomialProgram.from_text("maximize\\n  x*y\\nsubject to\\n  x + y <= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> res = fp.get_backend("auto").solve(prog)
    >>> round(res.objective_bound, 6), res.extra["auto_choice"] in {"gurobi", "scip"}
    (0.25, True)
    """

    name = "auto"
    capabilities = Capabilities()
    install_hint = "pip install pyscipopt  (a required dependency of fairprobe)"
    description = "the best certified backend installed here, chosen for each program"

    def __init__(self, pm: pluggy.PluginManager | None = None, backends: Mapping[str, type] | None = None) -> None:
        # built alone, it chooses among the usable built-ins (a backend never imports the registry)
        self._pm = pm
        if backends is None:
            backends = {cls.name: cls for cls in builtin_backends() if cls.availability()}
        self._classes = dict(backends)
        self._usable = sorted(self._classes)
        self._instances: dict[str, Backend] = {}
        self.choices: collections.Counter[str] = collections.Counter()

    @classmethod
    def availability(cls) -> Availability:
        """Available when some registered backend is.

        Returns
        -------
        Availability
            AVAILABLE or NOT_INSTALLED.

        Examples
        --------
        >>> AutoBackend.availability()  # SCIP, a required dependency, is always there
        <Availability.AVAILABLE: 2>
        """
        usable = any(b.availability() for b in builtin_backends())
        return Availability.AVAILABLE if usable else Availability.NOT_INSTALLED

    def choose(self, program: PolynomialProgram) -> str:
        """The backend the hook chooses for ``program``.

        Parameters
        ----------
        program : PolynomialProgram

        Returns
        -------
        str
            Name of a usable backend.

        Raises
        ------
        BackendUnavailableError
            No plugin chose, or the choice is not a usable backend here.

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> AutoBackend(backends={"scip": ScipBackend}).choose(CONTRACT_PROBLEMS[0].program)  # only SCIP usable
        'scip'
        """
        if self._pm is None:
            chosen = choose_backend(program, list(self._usable))
        else:
            chosen = self._pm.hook.fairprobe_select_backend(program=program, available=list(self._usable),
                                                            requested=None)
        if chosen is None:
            raise BackendUnavailableError(
                f"No fairprobe_select_backend plugin chose a backend for this program; usable backends here: "
                f"{self._usable}. Pass one of them as backend=..., or pip install pyscipopt.")
        if chosen not in self._classes:
            raise BackendUnavailableError(
                f"A fairprobe_select_backend plugin chose {chosen!r}, which is not a usable backend here "
                f"(usable: {self._usable}). Fix or block that plugin (FAIRPROBE_BLOCK_PLUGINS), or pass "
                "backend=... explicitly.")
        return chosen

    def backend(self, name: str) -> Backend:
        """The (cached) instance of the usable backend ``name``.

        Parameters
        ----------
        name : str
            A usable backend name (one of the ``backends`` given to the constructor).

        Returns
        -------
        Backend
            The same instance on every call with the same name.

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> auto = AutoBackend(backends={"scip": ScipBackend})
        >>> auto.backend("scip"), auto.backend("scip") is auto.backend("scip")
        (<ScipBackend name='scip'>, True)
        """
        if name not in self._instances:
            self._instances[name] = self._classes[name]()
        return self._instances[name]

    def check_program(self, program: PolynomialProgram) -> None:
        """Nothing to check here: the chosen backend checks the program against its capabilities.

        Parameters
        ----------
        program : PolynomialProgram
            Ignored.

        Examples
        --------
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> AutoBackend(backends={}).check_program(CONTRACT_PROBLEMS[5].program) is None
        True
        """

    def solve(self, program: PolynomialProgram, options: SolveOptions | None = None) -> SolveResult:
        """Solve ``program`` with the backend chosen for it.

        Parameters
        ----------
        program : PolynomialProgram
        options : SolveOptions, optional
            Passed to the chosen backend.

        Returns
        -------
        SolveResult
            The chosen backend's result, with the choice in ``message`` and ``extra["auto_choice"]``.

        Raises
        ------
        BackendUnavailableError
            The hook chose no usable backend.
        BackendCapabilityError
            The chosen backend refused the program and SCIP is not there to take it over.

        Examples
        --------
        >>> from fairprobe.backends.scip import ScipBackend
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> auto = AutoBackend(backends={"scip": ScipBackend})  # only SCIP usable, whatever is installed
        >>> res = auto.solve(CONTRACT_PROBLEMS[0].program)
        >>> res.message
        'auto chose scip for a linear program: SCIP status: optimal'
        >>> res.objective_bound, auto.choices["scip"]
        (11.0, 1)
        """
        check_degree(program)  # before choose(), which analyses the program
        return self._solve(program, options or SolveOptions())

    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        start = time.perf_counter()
        chosen = self.choose(program)
        note = ""
        try:
            result = self.backend(chosen).solve(program, options)
        except BackendCapabilityError as exc:  # a licence limit included (BackendLicenseError)
            if chosen == "scip" or "scip" not in self._classes:
                raise
            note = f" instead of {chosen}, which refused the program ({exc})"
            chosen = "scip"
            if options.time_limit is not None:
                options = replace(options, time_limit=max(0.0, options.time_limit - (time.perf_counter() - start)))
            result = self.backend("scip").solve(program, options)
        self.choices[chosen] += 1
        extra: dict[str, Any] = {**result.extra, "auto_choice": chosen}
        return result.with_updates(
            message=f"auto chose {chosen} for a {describe_structure(program)} program{note}: {result.message}",
            extra=extra, wall_time=time.perf_counter() - start,
        )

    def routed(self, result: SolveResult, route: str) -> SolveResult:
        """``result`` of another backend's exact route, saying ``auto chose`` it (as :meth:`solve`'s own choices do).

        Parameters
        ----------
        result : SolveResult
        route : str
            As for :meth:`Backend.routed <fairprobe.backends.base.Backend.routed>`.

        Examples
        --------
        >>> from fairprobe.backends.base import SolveResult, Termination
        >>> res = AutoBackend().routed(SolveResult(Termination.OPTIMAL, 1.0, solver="highs", message="ok"), "LP")
        >>> res.message, res.extra["auto_choice"]
        ('auto chose highs (LP, exact): ok', 'highs')
        """
        self.choices[result.solver] += 1
        return result.with_updates(extra={**result.extra, "auto_choice": result.solver},
                                   message=f"auto chose {result.solver} ({route}, exact): {result.message}")

    def __repr__(self) -> str:
        used = ", ".join(f"{n}: {k}" for n, k in sorted(self.choices.items())) or "nothing solved yet"
        return f"<AutoBackend name='auto' ({used})>"


def builtin_backends() -> list[type]:
    """The built-in backend classes (their modules import no solver library until they solve).

    Examples
    --------
    >>> [cls.name for cls in builtin_backends()]
    ['scip', 'highs', 'gurobi', 'ortools', 'cvxpy']
    """
    from fairprobe.backends.cvxpy import CvxpyBackend
    from fairprobe.backends.gurobi import GurobiBackend
    from fairprobe.backends.highs import HighsBackend
    from fairprobe.backends.ortools import OrtoolsBackend
    from fairprobe.backends.scip import ScipBackend

    return [ScipBackend, HighsBackend, GurobiBackend, OrtoolsBackend, CvxpyBackend]

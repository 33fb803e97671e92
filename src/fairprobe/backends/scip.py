"""SCIP through pyscipopt: the default backend, any degree, global bounds.

SCIP's spatial branch-and-bound certifies a dual bound on nonconvex polynomial programs, reported at
every termination, limits included; SCIP's infinity (1e20) is ``math.inf``. The time limit covers
building the model too, but SCIP checks it only between its own steps, and setting up the root
relaxation is one step (long for a dense nonconvex quadratic of 150 variables).
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import math
import os
import re
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from functools import reduce
from operator import mul
from types import MappingProxyType
from typing import Any, ClassVar

from fairprobe.backends.base import (
    COMPARE,
    Availability,
    Backend,
    Capabilities,
    Limit,
    SolveOptions,
    SolveResult,
    Termination,
    stop_bound,
)
from fairprobe.exceptions import SolverError
from fairprobe.program.model import PolynomialProgram

__all__ = ["ScipBackend"]

_SCIP_INF = 1e20

#: SCIP parameters fairprobe sets before the caller's ``solver_options`` (which override them): the
#: multistart heuristic took most of a small ratio program's solve and never found what the LP-based
#: heuristics missed (``benchmarks/scip_defaults.py``). Heuristics change how soon the gap closes, not the bound.
DEFAULT_PARAMS: Mapping[str, Any] = MappingProxyType({"heuristics/multistart/freq": -1})

#: SCIP's feasibility tolerance for the bound engine's joint programs and its last retry: SCIP's default 1e-6
#: row slack is more than 1e-5 in a small group's rate. Not lower: SoPlex then refuses the LP tolerances SCIP
#: asks for (without GMP), and a bilinear program can take a hundred times longer.
TIGHT_FEASTOL = 1e-7

#: A joint program's gap, as a share of the caller's (the ``"joint"`` profile).
JOINT_GAP_SHARE = 0.1

#: The named profiles of :attr:`SolveOptions.profiles <fairprobe.backends.base.SolveOptions>` that SCIP maps to its
#: parameters, applied in the order given and overridden by the caller's ``solver_options`` (the bound is SCIP's
#: dual bound either way; the figures are in benchmarks/RESULTS.md):
#:
#: * ``"engine"``, the bound engine's own global solves: the sub-NLP heuristic off (the LP points at the nodes
#:   find the same optima sooner); programs a user hands to SCIP keep it, as it finds good incumbents early.
#: * ``"joint"``, a max-of-ranges metric's joint program: the tight feasibility tolerance from the start (no
#:   program solved twice) and optimisation-based bound tightening at every node (far fewer nodes); those trees
#:   stop at the gap sooner, so the gap is :data:`JOINT_GAP_SHARE` of the caller's.
PROFILES: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "engine": MappingProxyType({"heuristics/subnlp/freq": -1}),
    "joint": MappingProxyType({"numerics/feastol": TIGHT_FEASTOL, "propagating/obbt/freq": 1}),
})

#: The ``"retry"`` profile: a side the engine solves again after SCIP called it infeasible while a model exists
#: runs at SCIP's own sub-NLP setting, then without presolve, then at a tight tolerance, until one is not
#: infeasible. Each rung overrides the caller's settings.
RETRY_LADDER: tuple[dict[str, Any], ...] = (
    {"heuristics/subnlp/freq": 1},
    {"heuristics/subnlp/freq": 1, "presolving/maxrounds": 0},
    {"heuristics/subnlp/freq": 1, "presolving/maxrounds": 0, "numerics/feastol": TIGHT_FEASTOL},
)


def profiled(options: SolveOptions) -> SolveOptions:
    """``options`` with their named profiles (but ``"retry"``) turned into SCIP parameters and gaps.

    Parameters
    ----------
    options : SolveOptions
        The caller's options; unknown profile names are ignored.

    Returns
    -------
    SolveOptions
        ``solver_options`` = the profiles' parameters, then the caller's; a ``"joint"`` profile's gap a tenth.

    Examples
    --------
    >>> opts = profiled(SolveOptions(profiles=("engine", "joint"), solver_options={"limits/nodes": 10}))
    >>> sorted(opts.solver_options), opts.rel_gap == 1e-9 * JOINT_GAP_SHARE
    (['heuristics/subnlp/freq', 'limits/nodes', 'numerics/feastol', 'propagating/obbt/freq'], True)
    """
    params: dict[str, Any] = {}
    for name in options.profiles:
        params.update(PROFILES.get(name, {}))
    params.update(options.solver_options)
    changes: dict[str, Any] = {"solver_options": params, "profiles": ()}
    if "joint" in options.profiles:
        changes.update(rel_gap=options.rel_gap * JOINT_GAP_SHARE, abs_gap=options.abs_gap * JOINT_GAP_SHARE)
    return dataclasses.replace(options, **changes)


#: One SCIP optimisation at a time per process: two concurrent ``optimizeNogil`` calls crashed in
#: testing, while one that releases the GIL lets other Python threads (the status line of a long
#: bound, a user's GUI) run during a long solve.
_OPTIMIZE_LOCK = threading.Lock()

#: A line SCIP's C code prints to stderr itself (``[solve.c:4216] ERROR: ...``), past ``hideOutput``, or its LP
#: solver SoPlex does (``Cannot set feasibility tolerance to small value 1e-12 without GMP - using 1e-10.``).
_SCIP_LINE = re.compile(r"\[[\w./-]+\.c:\d+\] |Cannot set [\w ]+ to small value \S+ without GMP")


@contextlib.contextmanager
def _stderr_lines() -> Iterator[list[str]]:
    """Collect SCIP's own lines from file descriptor 2 meanwhile (for ``extra["solver_errors"]``), passing the rest on.

    SCIP prints its sub-solvers' errors, after which the main solve goes on, straight to stderr, where they
    look like a failure of the audit. Descriptor 2 is a pipe meanwhile, read by a thread that writes every
    other byte on at once; ``faulthandler`` writes to the real stderr. Nothing is captured when the
    descriptors cannot be set up.
    """
    lines: list[str] = []
    opened: list[int] = []  # the pipe's read and write ends, and the saved stderr
    try:
        sys.stderr.flush()
        opened.extend(os.pipe())
        opened.append(os.dup(2))
        os.dup2(opened[1], 2)
    except (OSError, ValueError, AttributeError):
        for fd in opened:
            os.close(fd)
        opened = []
    if not opened:
        yield lines
        return
    read_fd, write_fd, saved = opened
    os.close(write_fd)  # descriptor 2 holds the pipe's only write end now
    crash_report = faulthandler.is_enabled()
    if crash_report:  # a crash inside SCIP must reach the real stderr, not a pipe nobody reads any more
        with contextlib.suppress(Exception):
            faulthandler.enable(file=saved, all_threads=True)
    reader = threading.Thread(target=_sort_stderr, args=(read_fd, saved, lines), daemon=True)
    reader.start()
    try:
        yield lines
    finally:
        with contextlib.suppress(OSError):
            os.dup2(saved, 2)  # closes the pipe's last write end: the reader sees its end
        if crash_report:
            with contextlib.suppress(Exception):
                faulthandler.enable(file=sys.stderr, all_threads=True)
        reader.join(timeout=5.0)
        with contextlib.suppress(OSError):
            os.close(saved)


def _write_all(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):
        while data:
            data = data[os.write(fd, data):]


def _sort_stderr(read_fd: int, out_fd: int, lines: list[str]) -> None:
    """Read the pipe to its end: SCIP's lines into ``lines``, every other byte on to ``out_fd`` at once."""
    held = b""
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(4096):
            *complete, tail = (held + chunk).split(b"\n")
            held = b""
            for part in complete:
                _route(part, out_fd, lines, b"\n")
            soplex = 0 if tail and b"Cannot set ".startswith(tail) else tail.rfind(b"Cannot set ")
            start = max(tail.rfind(b"["), soplex)
            if start >= 0:  # maybe the start of a SCIP line: what comes before it goes on, the rest waits
                _write_all(out_fd, tail[:start])
                held = tail[start:]
            elif tail:  # a partial line (a progress bar's "\r..."): on at once
                _write_all(out_fd, tail)
    if held:
        _route(held, out_fd, lines, b"")


def _route(part: bytes, out_fd: int, lines: list[str], end: bytes) -> None:
    """One line: a SCIP message in it (after another writer's unfinished line, say) kept, the rest on."""
    text = part.decode("utf-8", "replace")
    found = _SCIP_LINE.search(text)
    if found is None:
        _write_all(out_fd, part + end)
        return
    _write_all(out_fd, text[:found.start()].encode())
    lines.append(text[found.start():])


_STATUS: Mapping[str, tuple[Termination, Limit | None]] = MappingProxyType({
    "optimal": (Termination.OPTIMAL, None),
    "gaplimit": (Termination.OPTIMAL, None),  # the user's gap tolerance was reached
    "infeasible": (Termination.INFEASIBLE, None),
    "unbounded": (Termination.UNBOUNDED, None),
    "inforunbd": (Termination.UNBOUNDED, None),
    "timelimit": (Termination.LIMIT, Limit.TIME),
    "nodelimit": (Termination.LIMIT, Limit.NODE),
    "totalnodelimit": (Termination.LIMIT, Limit.NODE),
    "stallnodelimit": (Termination.LIMIT, Limit.NODE),
    "memlimit": (Termination.LIMIT, Limit.MEMORY),
    "sollimit": (Termination.LIMIT, Limit.SOLUTION),
    "bestsollimit": (Termination.LIMIT, Limit.SOLUTION),
    "userinterrupt": (Termination.LIMIT, Limit.INTERRUPTED),
    "restartlimit": (Termination.LIMIT, Limit.OTHER),
    "primallimit": (Termination.LIMIT, Limit.OTHER),  # limits/primal reached: the incumbent is good enough
    "duallimit": (Termination.LIMIT, Limit.OTHER),  # limits/dual reached: the bound is decisive
    "numerical_error": (Termination.NUMERICAL_ERROR, None),  # not SCIP's: the solve raised
})


def _finite_or_inf(x: float) -> float:
    if x >= _SCIP_INF:
        return math.inf
    if x <= -_SCIP_INF:
        return -math.inf
    return float(x)


class ScipBackend(Backend):
    """Solve with SCIP (pyscipopt). Default backend; any degree; certified global bounds.

    Examples
    --------
    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> res = ScipBackend().solve(CONTRACT_PROBLEMS[0].program)  # max 3x + 2y, optimum 11
    >>> res.termination.value, res.objective_bound, res.incumbent
    ('optimal', 11.0, {'x': 3.0, 'y': 1.0})
    """

    name = "scip"
    capabilities = Capabilities(max_degree=None, global_bound=True, fractional_objective=True)
    install_hint = 'pip install pyscipopt  (a required dependency of fairprobe)'
    description = "SCIP spatial branch-and-bound via pyscipopt"

    @classmethod
    def availability(cls) -> Availability:
        """AVAILABLE when pyscipopt can be found (it is not imported), else NOT_INSTALLED.

        Returns
        -------
        Availability

        Examples
        --------
        >>> ScipBackend.availability()
        <Availability.AVAILABLE: 2>
        """
        return Availability.AVAILABLE if cls._module_installed("pyscipopt") else Availability.NOT_INSTALLED

    #: The profile names SCIP knows (:data:`PROFILES` and ``"retry"``, :data:`RETRY_LADDER`).
    profile_names: ClassVar[tuple[str, ...]] = (*PROFILES, "retry")

    def _solve(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        if not options.profiles:
            return self._solve_once(program, options)
        retry = "retry" in options.profiles
        options = profiled(options)
        if not retry:
            return self._solve_once(program, options)
        deadline = None if options.time_limit is None else time.perf_counter() + float(options.time_limit)
        for extra in RETRY_LADDER:  # (the rungs share the caller's time limit)
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            res = self._solve_once(program, dataclasses.replace(options, time_limit=left,
                                                                solver_options={**options.solver_options, **extra}))
            if res.termination is not Termination.INFEASIBLE:
                break
        return res

    def _solve_once(self, program: PolynomialProgram, options: SolveOptions) -> SolveResult:
        import pyscipopt

        start = time.perf_counter()
        model = pyscipopt.Model(program.name or "fairprobe")
        if not options.verbose:
            model.hideOutput()
        self._set_params(model, options)

        xs = _build_model(model, program)

        if options.time_limit is not None:
            # the limit covers the whole call: building the model counts against it
            model.setParam("limits/time", max(0.0, float(options.time_limit) - (time.perf_counter() - start)))
        failure = None
        errors: list[str] = []
        try:
            with _OPTIMIZE_LOCK, (contextlib.nullcontext(errors) if options.verbose else _stderr_lines()) as errors:
                model.optimizeNogil()
        except Exception as exc:
            # "unresolved numerical troubles in LP" on a badly scaled program: the tree's dual bound is still valid
            failure = str(exc)

        status = "numerical_error" if failure else model.getStatus()
        termination, limit = _STATUS.get(status, (Termination.ERROR, None))
        n_sols = model.getNSols()
        incumbent = incumbent_obj = None
        if n_sols > 0 and termination is not Termination.INFEASIBLE:
            sol = model.getBestSol()
            incumbent = {v.name: float(model.getSolVal(sol, x)) for v, x in zip(program.variables, xs, strict=True)}
            incumbent_obj = program.objective_value(incumbent)
        if termination in (Termination.INFEASIBLE, Termination.UNBOUNDED):
            bound = stop_bound(termination, program.sense)
        else:
            try:
                bound = _finite_or_inf(model.getDualbound())
            except Exception:  # SCIP state unreadable after a failure: no bound
                bound = stop_bound(Termination.ERROR, program.sense)
        return SolveResult(
            termination=termination,
            limit=limit,
            objective_bound=bound,
            incumbent_objective=incumbent_obj,
            incumbent=incumbent,
            solver="scip",
            solver_version=f"SCIP {model.version()} / pyscipopt {pyscipopt.__version__}",
            wall_time=time.perf_counter() - start,
            sense=program.sense,
            message=f"SCIP status: {status}" + (f" ({failure})" if failure else ""),
            extra={"status": status, "n_nodes": model.getNNodes(), "n_solutions": n_sols,
                   **({"solver_errors": errors} if errors else {})},
        )

    @staticmethod
    def _set_params(model: Any, options: SolveOptions) -> None:
        if options.time_limit is not None:
            model.setParam("limits/time", max(0.0, float(options.time_limit)))
        if options.node_limit is not None:
            model.setParam("limits/nodes", int(options.node_limit))
        model.setParam("limits/gap", float(options.rel_gap))
        model.setParam("limits/absgap", float(options.abs_gap))
        model.setParam("randomization/randomseedshift", int(options.seed))
        for key, value in DEFAULT_PARAMS.items():
            if key not in options.solver_options:
                model.setParam(key, value)
        if options.objective_limit is not None:  # SCIP's own "the answer is known" stops
            model.setParam("limits/primal", float(options.objective_limit))
            model.setParam("limits/dual", float(options.objective_limit))
        for key, value in options.solver_options.items():
            try:
                model.setParam(key, value)
            except Exception as exc:
                raise SolverError(f"SCIP rejected parameter {key!r}={value!r}: {exc}") from exc


def _build_model(model: Any, program: PolynomialProgram) -> list[Any]:
    """Variables, rows and objective of ``program`` in the SCIP ``model``; returns the variables in order."""
    import pyscipopt

    xs = [
        model.addVar(
            name=v.name,
            vtype="I" if v.integer else "C",
            lb=None if math.isinf(v.lb) else v.lb,
            ub=None if math.isinf(v.ub) else v.ub,
        )
        for v in program.variables
    ]

    def expr(poly: dict) -> Any:
        return pyscipopt.quicksum(coef * reduce(mul, (xs[i] for i in mono)) if mono else coef
                                  for mono, coef in poly.items())

    for k, c in enumerate(program.constraints):
        model.addCons(COMPARE[c.sense](expr(c.poly), c.rhs), name=c.name or f"c{k}")

    sense = "minimize" if program.sense == "min" else "maximize"
    if program.max_degree <= 1 and not program.is_fractional:
        model.setObjective(expr(program.objective), sense)
    else:
        # SCIP needs a linear objective: optimise an epigraph variable z instead.
        # For poly/den (den > 0 on the feasible set) the epigraph is num - z*den <= 0.
        z = model.addVar(name="__objective", vtype="C", lb=None, ub=None)
        num = expr(program.objective)
        if program.is_fractional:
            gap_expr = num - z * expr(program.objective_denominator)
        else:
            gap_expr = num - z
        model.addCons(COMPARE["<=" if program.sense == "min" else ">="](gap_expr, 0), name="__epigraph")
        model.setObjective(z, sense)
    return xs

"""The solver-neutral polynomial program every backend solves.

A :class:`PolynomialProgram` has named variables with bounds (continuous, or integer when
declared so), an objective that is a sparse polynomial (optionally divided by a second
polynomial, a *fractional* objective), and constraints ``poly <= rhs``, ``poly >= rhs`` or
``poly == rhs``. Backends see only this class: never DAGs, queries or sympy.

The LP-like text form (``to_text`` / ``from_text``) round-trips and is meant for debugging, bug
reports and tests; a bounds line ending in ``integer`` declares an integer variable::

    maximize
      x*y - 0.3*x + 0.1*y*z
    subject to
      simplex: x + y + z == 1
    bounds
      0 <= x <= 1
      0 <= y <= 1
      0 <= z <= 1 integer
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from fairprobe.exceptions import ProgramError
from fairprobe.program.polynomial import Monomial, Poly, degree, evaluate
from fairprobe.program.text import (
    CONSTRAINT_SENSES,
    format_number,
    format_poly,
    parse_constraint,
    parse_objective,
    read_bound,
    read_number,
    split_sections,
)

__all__ = ["Constraint", "PolynomialProgram", "ProgramStats", "Variable", "iter_polys", "point_from_values"]

Sense = Literal["min", "max"]
ConstraintSense = Literal["<=", ">=", "=="]
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\[\]]*$")
_RESERVED = frozenset({"inf", "infinity", "nan", "minimize", "maximize", "bounds", "subject", "to"})


@dataclass(frozen=True)
class Variable:
    """A decision variable with (possibly infinite) bounds; continuous unless ``integer``.

    Parameters
    ----------
    name : str
        Unique name.
    lb, ub : float
        Lower and upper bounds (``-math.inf`` / ``math.inf`` for none).
    integer : bool
        Restrict to integer values.

    Examples
    --------
    >>> Variable("z", 0, 1, integer=True)
    Variable(name='z', lb=0, ub=1, integer=True)
    """

    name: str
    lb: float = 0.0
    ub: float = math.inf
    integer: bool = False


@dataclass
class Constraint:
    """``poly sense rhs`` with ``poly`` a sparse polynomial over variable indices.

    Parameters
    ----------
    poly : Poly
        The left-hand side, without constant term.
    sense : {"<=", ">=", "=="}
    rhs : float
    name : str, optional
        Label shown in the text form.

    Examples
    --------
    >>> prog = PolynomialProgram.from_text("minimize\\n  x\\nsubject to\\n  cap: x + 1 <= 2\\nbounds\\n  0 <= x <= 1")
    >>> prog.constraints
    [Constraint(poly={(0,): 1.0}, sense='<=', rhs=1.0, name='cap')]
    """

    poly: Poly
    sense: ConstraintSense
    rhs: float = 0.0
    name: str | None = None


@dataclass(frozen=True)
class ProgramStats:
    """Cheap size statistics of a program.

    Parameters
    ----------
    n_variables, n_constraints : int
    n_terms : int
        Monomials in the objective (numerator and denominator) and constraints.
    max_degree : int
        Largest total degree.
    fractional_objective : bool
        Whether the objective has a denominator.

    Examples
    --------
    >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> prog.stats()
    ProgramStats(n_variables=2, n_constraints=1, n_terms=4, max_degree=2, fractional_objective=False)
    """

    n_variables: int
    n_constraints: int
    n_terms: int
    max_degree: int
    fractional_objective: bool

    def to_dict(self) -> dict[str, int | bool]:
        """The statistics as a plain dict, field name -> value.

        Returns
        -------
        dict of str to int or bool

        Examples
        --------
        >>> PolynomialProgram.from_text("minimize\\n  x^2\\nbounds\\n  0 <= x <= 1").stats().to_dict()["max_degree"]
        2
        """
        return dict(self.__dict__)


@dataclass
class PolynomialProgram:
    """A polynomial optimisation program over named variables.

    Parameters
    ----------
    sense : {"min", "max"}
        Direction of optimisation.
    name : str, optional
        Label used in messages and reports.
    variables : list of Variable
        Initial variables (normally declared with :meth:`add_variable`).
    objective : Poly
        Objective numerator over variable indices (normally set with :meth:`set_objective`).
    objective_denominator : Poly, optional
        Denominator of a fractional objective.
    constraints : list of Constraint
        Initial constraints (normally added with :meth:`add_constraint`).

    Examples
    --------
    >>> prog = PolynomialProgram(sense="max")
    >>> x = prog.add_variable("x", 0, 1)
    >>> y = prog.add_variable("y", 0, 1)
    >>> prog.set_objective({(x, y): 1.0, (x,): -0.3})
    >>> _ = prog.add_constraint({(x,): 1.0, (y,): 1.0}, "<=", 1.0, name="budget")
    >>> print(prog.to_text())
    maximize
      -0.3*x + x*y
    subject to
      budget: x + y <= 1
    bounds
      0 <= x <= 1
      0 <= y <= 1
    """

    sense: Sense = "min"
    name: str | None = None
    variables: list[Variable] = field(default_factory=list)
    objective: Poly = field(default_factory=dict)
    objective_denominator: Poly | None = None
    constraints: list[Constraint] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.sense not in ("min", "max"):
            raise ProgramError(f"sense must be 'min' or 'max'; got {self.sense!r}.")
        self._index: dict[str, int] = {}
        for i, var in enumerate(self.variables):
            self._check_new_name(var.name)
            self._index[var.name] = i

    # -- construction ---------------------------------------------------------------------
    def _check_new_name(self, name: str) -> None:
        if not isinstance(name, str) or not _NAME_RE.match(name) or name.lower() in _RESERVED:
            raise ProgramError(
                f"Invalid variable name {name!r}: use letters, digits, '_', '.', '[' and ']', "
                "starting with a letter or '_' (and not a keyword such as 'inf')."
            )
        if name in getattr(self, "_index", {}):
            raise ProgramError(f"Variable {name!r} is declared twice; variable names must be unique.")

    def add_variable(self, name: str, lb: float = 0.0, ub: float = math.inf, *, integer: bool = False) -> int:
        """Declare a variable and return its index.

        Parameters
        ----------
        name : str
            Unique name.
        lb, ub : float
            Bounds; ``-math.inf`` / ``math.inf`` for none.
        integer : bool
            Restrict the variable to integer values. Backends without integer support refuse such programs.

        Returns
        -------
        int
            The new variable's index.

        Raises
        ------
        ProgramError
            An invalid or duplicate name, NaN bounds, or ``lb > ub``.

        Examples
        --------
        >>> prog = PolynomialProgram()
        >>> prog.add_variable("x"), prog.add_variable("z", 0, 1, integer=True)
        (0, 1)
        """
        self._check_new_name(name)
        lb, ub = float(lb), float(ub)
        if math.isnan(lb) or math.isnan(ub):
            raise ProgramError(f"Bounds of variable {name!r} are NaN; give numbers or +-inf.")
        if lb > ub:
            raise ProgramError(f"Variable {name!r} has lower bound {lb} above upper bound {ub}.")
        self.variables.append(Variable(name, lb, ub, bool(integer)))
        self._index[name] = len(self.variables) - 1
        return len(self.variables) - 1

    def index(self, name: str) -> int:
        """Index of the variable called ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        int

        Raises
        ------
        ProgramError
            No variable has that name.

        Examples
        --------
        >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
        ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> prog.index("y")
        1
        """
        try:
            return self._index[name]
        except KeyError:
            raise ProgramError(
                f"Unknown variable {name!r}: declare it with add_variable() first."
            ) from None

    def _normalize(self, poly: Mapping, where: str) -> Poly:
        """``poly`` with variables as indices, like monomials merged and zeros dropped; errors name ``where``."""
        out: Poly = {}
        for mono, coef in poly.items():
            if isinstance(mono, (str, int)):
                mono = (mono,)
            idx = []
            for v in mono:
                if isinstance(v, str):
                    if v not in self._index:
                        raise ProgramError(
                            f"Unknown variable {v!r} in {where}: declare it with add_variable() "
                            "(or in the 'bounds' section of the text form) before using it."
                        )
                    idx.append(self._index[v])
                else:
                    i = int(v)
                    if not 0 <= i < len(self.variables):
                        raise ProgramError(
                            f"Unknown variable index {i} in {where}: the program has "
                            f"{len(self.variables)} variables."
                        )
                    idx.append(i)
            try:
                c = float(coef)
            except (TypeError, ValueError):
                raise ProgramError(f"Coefficient {coef!r} in {where} is not a number.") from None
            if not math.isfinite(c):
                raise ProgramError(
                    f"Coefficient {c} in {where} is not finite; NaN and infinite coefficients "
                    "are not allowed (check the data that produced it)."
                )
            key: Monomial = tuple(sorted(idx))
            value = out.get(key, 0.0) + c
            if value == 0.0:
                out.pop(key, None)
            else:
                out[key] = value
        return out

    def set_objective(
        self, poly: Mapping, denominator: Mapping | None = None, sense: Sense | None = None
    ) -> None:
        """Set the objective ``poly`` (or ``poly / denominator``), optionally its sense.

        A fractional objective requires the denominator to be strictly positive on the feasible
        set; backends check this where they rely on it.

        Parameters
        ----------
        poly : mapping
            Monomial -> coefficient; a monomial is a tuple of variable names or indices (a single name
            or index stands for itself).
        denominator : mapping, optional
            Denominator of a fractional objective.
        sense : {"min", "max"}, optional
            New direction of optimisation.

        Raises
        ------
        ProgramError
            Unknown variables, non-finite coefficients, a zero denominator or a bad sense.

        Examples
        --------
        >>> prog = PolynomialProgram()
        >>> x = prog.add_variable("x", 0, 1)
        >>> prog.set_objective({"x": 1.0, (): 1.0}, denominator={(): 2.0}, sense="max")
        >>> prog.is_fractional, prog.sense, prog.objective_value([1.0])
        (True, 'max', 1.0)
        """
        self.objective = self._normalize(poly, "the objective")
        den = None if denominator is None else self._normalize(denominator, "the objective denominator")
        if den == {}:
            raise ProgramError("The objective denominator is identically zero.")
        self.objective_denominator = den
        if sense is not None:
            if sense not in ("min", "max"):
                raise ProgramError(f"sense must be 'min' or 'max'; got {sense!r}.")
            self.sense = sense

    def add_constraint(
        self, poly: Mapping, sense: ConstraintSense, rhs: float = 0.0, name: str | None = None
    ) -> int:
        """Add ``poly sense rhs`` and return the constraint's position; constants of ``poly`` move to ``rhs``.

        Parameters
        ----------
        poly : mapping
            Monomial -> coefficient, as in :meth:`set_objective`.
        sense : {"<=", ">=", "=="}
        rhs : float
        name : str, optional
            Label shown in the text form.

        Returns
        -------
        int
            The constraint's position in :attr:`constraints`.

        Raises
        ------
        ProgramError
            A bad sense, a non-finite right-hand side, an invalid name, unknown variables or non-finite
            coefficients.

        Examples
        --------
        >>> prog = PolynomialProgram()
        >>> x = prog.add_variable("x")
        >>> prog.add_constraint({"x": 2.0, (): 1.0}, ">=", 0.0)
        0
        >>> prog.constraints[0]
        Constraint(poly={(0,): 2.0}, sense='>=', rhs=-1.0, name=None)
        """
        where = f"constraint {name!r}" if name else f"constraint #{len(self.constraints)}"
        if sense not in CONSTRAINT_SENSES:
            raise ProgramError(f"Constraint sense must be one of {CONSTRAINT_SENSES}; got {sense!r} in {where}.")
        rhs = float(rhs)
        if not math.isfinite(rhs):
            raise ProgramError(f"Right-hand side {rhs} of {where} is not finite.")
        if name is not None and not _NAME_RE.match(name):
            raise ProgramError(f"Invalid constraint name {name!r}: use letters, digits and '_'.")
        body = self._normalize(poly, where)
        rhs -= body.pop((), 0.0)  # constants live on the right-hand side
        self.constraints.append(Constraint(body, sense, rhs, name))
        return len(self.constraints) - 1

    # -- queries --------------------------------------------------------------------------
    @property
    def n_variables(self) -> int:
        """Number of variables.

        Examples
        --------
        >>> PolynomialProgram.from_text("minimize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1").n_variables
        2
        """
        return len(self.variables)

    @property
    def max_degree(self) -> int:
        """Largest total degree in the objective (numerator and denominator) and constraints; 0 for constants.

        Examples
        --------
        >>> PolynomialProgram.from_text("minimize\\n  (x^2) / (x + 1)\\nbounds\\n  0 <= x <= 1").max_degree
        2
        """
        return max(map(degree, iter_polys(self)))

    @property
    def has_integers(self) -> bool:
        """True when some variable is restricted to integer values.

        Examples
        --------
        >>> PolynomialProgram.from_text("minimize\\n  x\\nbounds\\n  0 <= x <= 1 integer").has_integers
        True
        """
        return any(v.integer for v in self.variables)

    @property
    def is_fractional(self) -> bool:
        """True when the objective has a denominator.

        Examples
        --------
        >>> PolynomialProgram.from_text("minimize\\n  (x) / (x + 1)\\nbounds\\n  0 <= x <= 1").is_fractional
        True
        """
        return self.objective_denominator is not None

    def is_linear(self) -> bool:
        """True when every polynomial (numerator, denominator, constraints) has degree <= 1.

        Returns
        -------
        bool
            Whether the program is linear (or linear-fractional).

        Examples
        --------
        >>> PolynomialProgram.from_text("minimize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1").is_linear()
        False
        """
        return self.max_degree <= 1

    def stats(self) -> ProgramStats:
        """Size statistics (cheap: one pass over the terms).

        Returns
        -------
        ProgramStats

        Examples
        --------
        >>> s = PolynomialProgram.from_text("minimize\\n  x*y\\nbounds\\n  0 <= x <= 1\\n  0 <= y <= 1").stats()
        >>> s.n_variables, s.n_constraints, s.n_terms
        (2, 0, 1)
        """
        return ProgramStats(n_variables=len(self.variables), n_constraints=len(self.constraints),
                            n_terms=sum(map(len, iter_polys(self))), max_degree=self.max_degree,
                            fractional_objective=self.is_fractional)

    def validate(self) -> None:
        """Re-check every invariant; programs built through ``add_variable``/``add_constraint`` are valid by
        construction, this catches direct edits of the public lists.

        Raises
        ------
        ProgramError
            Duplicate names, invalid bounds, a bad sense, non-finite numbers or undeclared variable indices.

        Examples
        --------
        >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
        ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> prog.validate()
        >>> prog.constraints.append(Constraint({(5,): 1.0}, "<=", 1.0))
        >>> prog.validate()
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.ProgramError: constraint #1 uses variable index 5, which is not declared ...
        """
        n = len(self.variables)
        names = [v.name for v in self.variables]
        if len(set(names)) != n:
            dup = sorted({x for x in names if names.count(x) > 1})
            raise ProgramError(f"Variables declared twice: {dup}.")
        for v in self.variables:
            if math.isnan(v.lb) or math.isnan(v.ub) or v.lb > v.ub:
                raise ProgramError(f"Variable {v.name!r} has invalid bounds [{v.lb}, {v.ub}].")
        polys: list[tuple[str, Poly]] = [("the objective", self.objective)]
        if self.objective_denominator is not None:
            polys.append(("the objective denominator", self.objective_denominator))
        for k, c in enumerate(self.constraints):
            where = f"constraint {c.name!r}" if c.name else f"constraint #{k}"
            if c.sense not in CONSTRAINT_SENSES:
                raise ProgramError(f"{where} has sense {c.sense!r}; use one of {CONSTRAINT_SENSES}.")
            if not math.isfinite(c.rhs):
                raise ProgramError(f"{where} has a non-finite right-hand side {c.rhs}.")
            polys.append((where, c.poly))
        for where, poly in polys:
            for mono, coef in poly.items():
                if not math.isfinite(coef):
                    raise ProgramError(
                        f"Coefficient {coef} in {where} is not finite; NaN and infinite "
                        "coefficients are not allowed."
                    )
                for i in mono:
                    if not (isinstance(i, int) and 0 <= i < n):
                        raise ProgramError(
                            f"{where} uses variable index {i!r}, which is not declared "
                            f"(the program has {n} variables)."
                        )

    def copy(self) -> PolynomialProgram:
        """Deep copy (new polynomial dicts; variables are immutable and shared).

        Returns
        -------
        PolynomialProgram
            An independent program.

        Examples
        --------
        >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
        ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> other = prog.copy()
        >>> other.objective[(0,)] = 5.0
        >>> prog.objective[(0,)]
        -0.3
        """
        # dict() per polynomial instead of copy.deepcopy: monomial keys are tuples of ints and
        # coefficients floats, so this is a full copy, about 20x faster on large programs.
        out = copy.copy(self)
        out.variables = list(self.variables)
        out.objective = dict(self.objective)
        out.objective_denominator = None if self.objective_denominator is None else dict(self.objective_denominator)
        out.constraints = [Constraint(dict(c.poly), c.sense, c.rhs, c.name) for c in self.constraints]
        out._index = dict(self._index)
        return out

    def with_sense(self, sense: Sense) -> PolynomialProgram:
        """Copy of the program optimised in direction ``sense``; the original is unchanged.

        Parameters
        ----------
        sense : {"min", "max"}

        Returns
        -------
        PolynomialProgram

        Examples
        --------
        >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
        ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> prog.with_sense("min").sense, prog.sense
        ('min', 'max')
        """
        out = self.copy()
        out.sense = sense
        return out

    # -- evaluation -----------------------------------------------------------------------
    def _point(self, point: Mapping[str, float] | Sequence[float]) -> Sequence[float]:
        """``point`` (a mapping name -> value or a sequence by index) as a list of floats by index."""
        if isinstance(point, Mapping):
            missing = [v.name for v in self.variables if v.name not in point]
            if missing:
                raise ProgramError(f"Point lacks values for variables {missing[:5]}.")
            return [float(point[v.name]) for v in self.variables]
        if len(point) != len(self.variables):
            raise ProgramError(
                f"Point has {len(point)} values; the program has {len(self.variables)} variables."
            )
        return [float(x) for x in point]

    def objective_value(self, point: Mapping[str, float] | Sequence[float]) -> float:
        """Objective value at ``point`` (numerator / denominator for a fractional objective).

        Parameters
        ----------
        point : mapping of str to float, or sequence of float
            A value for every variable, by name or by index.

        Returns
        -------
        float

        Raises
        ------
        ProgramError
            ``point`` lacks variables or has the wrong length.

        Examples
        --------
        >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
        ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> prog.objective_value({"x": 0.5, "y": 0.5}), prog.objective_value([1.0, 0.0])
        (0.1, -0.3)
        """
        x = self._point(point)
        num = evaluate(self.objective, x)
        if self.objective_denominator is None:
            return num
        return num / evaluate(self.objective_denominator, x)

    def max_violation(self, point: Mapping[str, float] | Sequence[float]) -> float:
        """Largest violation of any bound, integrality or constraint at ``point`` (0 when feasible).

        Parameters
        ----------
        point : mapping of str to float, or sequence of float
            As for :meth:`objective_value`.

        Returns
        -------
        float

        Examples
        --------
        >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
        ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
        >>> prog.max_violation([0.5, 0.5]), round(prog.max_violation([0.8, 0.5]), 6)
        (0.0, 0.3)
        """
        x = self._point(point)
        worst = 0.0
        for v, xi in zip(self.variables, x, strict=True):
            worst = max(worst, v.lb - xi, xi - v.ub)
            if v.integer:
                worst = max(worst, abs(xi - round(xi)))
        for c in self.constraints:
            lhs = evaluate(c.poly, x)
            if c.sense == "<=":
                worst = max(worst, lhs - c.rhs)
            elif c.sense == ">=":
                worst = max(worst, c.rhs - lhs)
            else:
                worst = max(worst, abs(lhs - c.rhs))
        return worst

    # -- text form ------------------------------------------------------------------------
    def to_text(self) -> str:
        """The LP-like text form (see the module docstring); :meth:`from_text` reads it back exactly.

        Returns
        -------
        str

        Examples
        --------
        >>> prog = PolynomialProgram()
        >>> x = prog.add_variable("x", 0, 1)
        >>> prog.set_objective({"x": 2.0})
        >>> print(prog.to_text())
        minimize
          2*x
        bounds
          0 <= x <= 1
        """
        names = [v.name for v in self.variables]
        lines = ["maximize" if self.sense == "max" else "minimize"]
        obj = format_poly(self.objective, names)
        if self.objective_denominator is not None:
            obj = f"({obj}) / ({format_poly(self.objective_denominator, names)})"
        lines.append(f"  {obj}")
        if self.constraints:
            lines.append("subject to")
            for c in self.constraints:
                prefix = f"{c.name}: " if c.name else ""
                lines.append(f"  {prefix}{format_poly(c.poly, names)} {c.sense} {format_number(c.rhs)}")
        if self.variables:
            lines.append("bounds")
            for v in self.variables:
                suffix = " integer" if v.integer else ""
                lines.append(f"  {format_number(v.lb)} <= {v.name} <= {format_number(v.ub)}{suffix}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def from_text(cls, text: str) -> PolynomialProgram:
        r"""Parse the LP-like text form (see the module docstring).

        Parameters
        ----------
        text : str
            The program, as written by :meth:`to_text`.

        Returns
        -------
        PolynomialProgram

        Raises
        ------
        ProgramError
            With the offending line number and the fix, e.g. for a variable that is used but
            not declared in the ``bounds`` section.

        Examples
        --------
        >>> text = "minimize\n  (x + 1) / (y + 1)\nbounds\n  0 <= x <= 1\n  0 <= y <= 1 integer"
        >>> prog = PolynomialProgram.from_text(text)
        >>> prog.is_fractional, prog.has_integers, prog.objective_value([1, 1])
        (True, True, 1.0)
        >>> PolynomialProgram.from_text(prog.to_text()).to_text() == prog.to_text()
        True
        """
        return _parse_program(text)


def _parse_program(text: str) -> PolynomialProgram:
    """Build the program the text describes, section by section (the readers are in :mod:`~fairprobe.program.text`)."""
    sections = split_sections(text)
    prog = PolynomialProgram(sense=sections["sense"][0][1])  # type: ignore[arg-type]
    for lineno, line in sections.get("bounds", []):
        name, lo, hi, integer = read_bound(lineno, line)
        try:  # every error of a declaration (its numbers' included) gets the line number in front
            prog.add_variable(name, read_number(lo, lineno), read_number(hi, lineno), integer=integer)
        except ProgramError as exc:
            raise ProgramError(f"Line {lineno}: {exc}") from None
    index = prog._index
    prog.objective, prog.objective_denominator = parse_objective(sections["objective"], index)
    for lineno, line in sections.get("constraints", []):
        poly, sense, rhs, name = parse_constraint(lineno, line, index)
        prog.constraints.append(Constraint(poly, sense, rhs, name))  # type: ignore[arg-type]
    return prog


def iter_polys(program: PolynomialProgram) -> Iterable[Poly]:
    """Every polynomial of a program: the objective, its denominator (when fractional), the constraint bodies.

    Parameters
    ----------
    program : PolynomialProgram

    Yields
    ------
    Poly

    Examples
    --------
    >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> list(iter_polys(prog))
    [{(0, 1): 1.0, (0,): -0.3}, {(0,): 1.0, (1,): 1.0}]
    """
    yield program.objective
    if program.objective_denominator is not None:
        yield program.objective_denominator
    for c in program.constraints:
        yield c.poly


def point_from_values(program: PolynomialProgram, values: Sequence[float]) -> dict[str, float]:
    """Map a value vector (by index) to ``{name: value}``.

    Parameters
    ----------
    program : PolynomialProgram
        The program whose variables name the values.
    values : sequence of float
        One value per variable, by index.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> prog = PolynomialProgram.from_text("maximize\\n  x*y - 0.3*x\\nsubject to\\n  budget: x + y <= 1\\n"
    ...                                    "bounds\\n  0 <= x <= 1\\n  0 <= y <= 1")
    >>> point_from_values(prog, [0.25, 0.75])
    {'x': 0.25, 'y': 0.75}
    """
    return {v.name: float(x) for v, x in zip(program.variables, values, strict=True)}

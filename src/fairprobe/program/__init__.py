"""The solver-neutral program layer: sparse polynomials, :class:`PolynomialProgram` and its LP-like
text form, and the rewrites every backend may need (Charnes-Cooper, epigraphs, degree reduction).

Backends depend on this layer only (never on DAGs, queries or sympy), and it imports nothing of
fairprobe but :mod:`fairprobe.exceptions`; ``tests/test_layers.py`` enforces both.

Modules: :mod:`~fairprobe.program.polynomial` (monomials as sorted index tuples, polynomials as
dicts), :mod:`~fairprobe.program.model` (variables, constraints, the program, its text form and
size statistics) and :mod:`~fairprobe.program.transforms` (solver-neutral rewrites).
"""

from fairprobe.program.model import (
    Constraint,
    PolynomialProgram,
    ProgramStats,
    Variable,
    iter_polys,
    point_from_values,
)

__all__ = ["Constraint", "PolynomialProgram", "ProgramStats", "Variable", "iter_polys", "point_from_values"]

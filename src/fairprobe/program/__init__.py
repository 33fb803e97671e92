"""The solver-neutral program layer: sparse polynomials (:mod:`~fairprobe.program.polynomial`),
:class:`PolynomialProgram` and its LP-like text form (:mod:`~fairprobe.program.model`), and the rewrites
every backend may need (:mod:`~fairprobe.program.transforms`: Charnes-Cooper, epigraphs, degree reduction).

Backends depend on this layer only (never on DAGs, queries or sympy), and it imports nothing of
fairprobe but :mod:`fairprobe.exceptions`; ``tests/test_layers.py`` enforces both.
"""

from fairprobe.program.model import Constraint, PolynomialProgram, ProgramStats, Variable, iter_polys, point_from_values

__all__ = ["Constraint", "PolynomialProgram", "ProgramStats", "Variable", "iter_polys", "point_from_values"]

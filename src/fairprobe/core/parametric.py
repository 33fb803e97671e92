"""Compile once, solve for many sensitivity values.

When the bias's constraints are affine in its sensitivity parameters (every built-in bias), each
program row is ``poly_0 + sum_p (D_p - b_p) * slope_p``: the compiler runs at a base point ``b`` and
once per parameter at ``b + step * e_p``. Otherwise (``D**2``, ``D_1 * D_2``) the program is
recompiled per point.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import sympy

from fairprobe.core.compiler import CompiledProgram
from fairprobe.core.config import BiasConfig
from fairprobe.exceptions import FairprobeError
from fairprobe.program.model import Constraint
from fairprobe.program.polynomial import Poly

__all__ = ["ParametricProgram", "affine_in_parameters"]

# Base 0 and step 1 keep the slopes exact in floating point (rows are ``c - D * c'``).
_BASE = 0.0
_STEP = 1.0


def affine_in_parameters(config: BiasConfig) -> bool:
    """Whether every constraint is affine in the sensitivity parameters.

    Parameters
    ----------
    config : BiasConfig

    Returns
    -------
    bool

    Examples
    --------
    >>> from fairprobe.core.bound import resolve_bias
    >>> config = resolve_bias("proxy_label")
    >>> config.constraints, affine_in_parameters(config)
    (['P(Z = Y) >= 1 - D'], True)
    >>> affine_in_parameters(BiasConfig.from_dict({**config.to_dict(), "constraints": ["P(Z = Y) >= D * D"]}))
    False
    """
    return _affine(tuple((parsed.expr, tuple(sorted(parsed.parameters, key=str)))
                         for parsed in config.parsed_constraints))


@functools.lru_cache(maxsize=256)
def _affine(exprs: tuple) -> bool:
    # sympy's Poly costs about a millisecond; every compilation of a problem asks the same question
    for expr, params in exprs:
        if not params:
            continue
        poly = sympy.Poly(expr, *params)
        if poly.total_degree() > 1:
            return False
    return True


@dataclass
class ParametricProgram:
    """A compiled program whose constraint rows are affine in the sensitivity parameters (build it with :meth:`build`).

    Parameters
    ----------
    base : CompiledProgram or None
        The program at ``base_params`` (None when the program is recompiled per point).
    base_params : dict of str to float
        Sensitivity values of ``base``.
    slopes : dict
        Parameter -> row name -> ``(polynomial change, right-hand-side change)`` per unit step.
    compile_fn : callable
        Compiles the program at a mapping of sensitivity values (the fallback).
    affine : bool
        Whether :meth:`at` updates ``base`` affinely (else it calls ``compile_fn``).

    Examples
    --------
    >>> from fairprobe.core.bound import as_table, resolve_bias
    >>> from fairprobe.core.compiler import compile_program
    >>> from fairprobe.datasets import load_paper_table
    >>> config = resolve_bias("proxy_label")
    >>> table = as_table(load_paper_table(), config)
    >>> compile_fn = functools.partial(compile_program, config, table, "P(P = 1 | Z = 0 & A = 0)")
    >>> pp = ParametricProgram.build(compile_fn, config, ["D"])
    >>> pp.affine, pp.base_params, list(pp.slopes["D"])
    (True, {'D': 0.0}, ['bias0'])
    """

    base: CompiledProgram | None
    base_params: dict[str, float]
    slopes: dict[str, dict[str, tuple[Poly, float]]]
    compile_fn: Callable[[Mapping[str, float]], CompiledProgram]
    affine: bool

    @classmethod
    def build(cls, compile_fn: Callable[[Mapping[str, float]], CompiledProgram], config: BiasConfig,
              parameters: Sequence[str], fixed: Mapping[str, float] | None = None) -> ParametricProgram:
        """Compile at a base point and one step along each of ``parameters``.

        Parameters
        ----------
        compile_fn : callable
            ``compile_fn(params)`` compiles the program at the sensitivity values ``params``.
        config : BiasConfig
            The bias, to check that its constraints are affine in the parameters.
        parameters : sequence of str
            Names of the sensitivity parameters that vary.
        fixed : mapping of str to float, optional
            Values of parameters that stay constant (compiled in).

        Returns
        -------
        ParametricProgram
            Affine in the swept parameters when possible, else one that recompiles per point.

        Raises
        ------
        FairprobeError
            ``compile_fn`` fails for a structural reason (unknown node, bad table).

        Examples
        --------
        >>> from fairprobe.core.bound import resolve_bias
        >>> squared = BiasConfig.from_dict({**resolve_bias("selection").to_dict(), "constraints": ["P(S = 1) >= D*D"]})
        >>> ParametricProgram.build(lambda params: None, squared, ["D"]).affine  # recompiles per point
        False
        """
        fixed = dict(fixed or {})
        swept = [p for p in parameters if p not in fixed]
        if not affine_in_parameters(config):
            return cls(None, {}, {}, compile_fn, affine=False)
        base_params = {**fixed, **{p: _BASE for p in swept}}
        try:
            base = compile_fn(base_params)
        except FairprobeError:
            # e.g. a constraint false at the base point; a structural error raises here, not at every point
            compile_fn({**fixed, **{p: 0.5 for p in swept}})
            return cls(None, {}, {}, compile_fn, affine=False)
        names = [v.name for v in base.program.variables]
        rows = {c.name: c for c in base.program.constraints}
        slopes: dict[str, dict[str, tuple[Poly, float]]] = {}
        for p in swept:
            try:
                moved = compile_fn({**base_params, p: _BASE + _STEP})
            except FairprobeError:
                return cls(None, {}, {}, compile_fn, affine=False)
            # presolve at the base point may remove variables other values need
            if ([v.name for v in moved.program.variables] != names
                    or [c.name for c in moved.program.constraints] != list(rows)):
                return cls(None, {}, {}, compile_fn, affine=False)
            per_row: dict[str, tuple[Poly, float]] = {}
            for c in moved.program.constraints:
                b = rows[c.name]
                dpoly = {m: (c.poly.get(m, 0.0) - b.poly.get(m, 0.0)) / _STEP for m in set(c.poly) | set(b.poly)}
                dpoly = {m: v for m, v in dpoly.items() if v != 0.0}
                drhs = (c.rhs - b.rhs) / _STEP
                if dpoly or drhs:
                    per_row[c.name] = (dpoly, drhs)
            slopes[p] = per_row
        return cls(base, base_params, slopes, compile_fn, affine=True)

    def at(self, params: Mapping[str, float]) -> CompiledProgram:
        """The compiled program at ``params`` (affine update, or a recompilation).

        Parameters
        ----------
        params : mapping of str to float
            Sensitivity values, by parameter name.

        Returns
        -------
        CompiledProgram
            The same program as compiling at ``params`` directly.

        Examples
        --------
        >>> from fairprobe.core.bound import as_table, resolve_bias
        >>> from fairprobe.core.compiler import compile_program
        >>> from fairprobe.datasets import load_paper_table
        >>> config = resolve_bias("proxy_label")
        >>> table = as_table(load_paper_table(), config)
        >>> compile_fn = functools.partial(compile_program, config, table, "P(P = 1 | Z = 0 & A = 0)")
        >>> moved = ParametricProgram.build(compile_fn, config, ["D"]).at({"D": 0.05})
        >>> moved.program.to_text() == compile_fn({"D": 0.05}).program.to_text()
        True
        """
        if not self.affine or self.base is None:
            return self.compile_fn(params)
        if any(float(params.get(p, v)) != v for p, v in self.base_params.items() if p not in self.slopes):
            return self.compile_fn(params)  # a parameter compiled in as fixed has changed
        shifts = {p: float(params[p]) - self.base_params[p] for p in self.slopes}
        prog = copy.copy(self.base.program)  # rows are rebuilt below; unchanged rows are shared
        new_rows = []
        for c in prog.constraints:
            poly, rhs = c.poly, c.rhs
            for p, per_row in self.slopes.items():
                if c.name in per_row and shifts[p] != 0.0:
                    dpoly, drhs = per_row[c.name]
                    poly = dict(poly)
                    for m, v in dpoly.items():
                        poly[m] = poly.get(m, 0.0) + shifts[p] * v
                    rhs = rhs + shifts[p] * drhs
            new_rows.append(Constraint({m: v for m, v in poly.items() if abs(v) > 1e-15}, c.sense, rhs, c.name)
                            if poly is not c.poly or rhs != c.rhs else c)
        prog.constraints = new_rows
        return replace(self.base, program=prog)

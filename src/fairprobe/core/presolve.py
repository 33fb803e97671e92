"""The exact presolve of a compiled program: variables forced to zero by the data's zero cells are removed."""

from __future__ import annotations

from collections.abc import Callable

from fairprobe.exceptions import InfeasibleError
from fairprobe.program.model import Constraint, PolynomialProgram
from fairprobe.program.polynomial import Poly

__all__ = ["presolve_zero_variables"]


def presolve_zero_variables(prog: PolynomialProgram, undefined: Callable[[str], None] | None = None
                            ) -> tuple[int, Callable[[Poly], Poly] | None]:
    """Remove variables forced to 0 by ``sum(positive * x) == 0`` rows over x >= 0.

    A row left without variables must hold as a constant, else the program is infeasible; a failing floor
    ``P(F) >= 1e-9`` calls ``undefined(row name)`` for a query ratio and is dropped for a bias constraint's.


    Parameters
    ----------
    prog : PolynomialProgram
        Rewritten in place.
    undefined : callable, optional
        Called with the name of a query ratio's floor that no model can meet.

    Returns
    -------
    (int, callable or None)
        The number of variables removed and a function mapping a polynomial to the new indices (None
        when nothing was removed).

    Raises
    ------
    InfeasibleError
        A row the zero cells make false.

    Examples
    --------
    >>> prog = PolynomialProgram(sense="min")
    >>> x, y = prog.add_variable("x", 0.0, 1.0), prog.add_variable("y", 0.0, 1.0)
    >>> prog.constraints = [Constraint({(x,): 1.0}, "==", 0.0, "data0"),
    ...                     Constraint({(x,): 1.0, (y,): 1.0}, "==", 1.0, "s")]
    >>> prog.objective = {(y,): 1.0}
    >>> removed, remap = presolve_zero_variables(prog)
    >>> removed, [v.name for v in prog.variables], prog.constraints[0].poly
    (1, ['y'], {(0,): 1.0})
    """
    zero = _forced_zero(prog)
    if not zero:
        return 0, None
    keep = [i for i in range(prog.n_variables) if i not in zero]
    remap = {old: new for new, old in enumerate(keep)}

    def strip(poly: Poly) -> Poly:
        out: Poly = {}
        for mono, coef in poly.items():
            if set(mono) & zero:
                continue
            key = tuple(remap[i] for i in mono)
            out[key] = out.get(key, 0.0) + coef
        return out

    new_cons = []
    for c in prog.constraints:
        body = strip(c.poly)
        const = body.pop((), 0.0)
        if body:
            new_cons.append(Constraint(body, c.sense, c.rhs - const, c.name))
        else:
            _check_constant_row(c, const, undefined)
    prog.objective = strip(prog.objective)
    if prog.objective_denominator is not None:
        prog.objective_denominator = strip(prog.objective_denominator)
    prog.variables = [prog.variables[i] for i in keep]
    prog._index = {v.name: i for i, v in enumerate(prog.variables)}
    prog.constraints = new_cons
    return len(zero), strip


def _forced_zero(prog: PolynomialProgram) -> set[int]:
    """Variables forced to 0: the fixed point of ``sum(positive * x) == 0`` rows over nonnegative x."""
    zero: set[int] = set()
    changed = True
    while changed:
        changed = False
        for c in prog.constraints:
            if c.sense != "==" or c.rhs != 0.0:
                continue
            live = {m: v for m, v in c.poly.items() if not (set(m) & zero)}
            if live and all(len(m) == 1 and v > 0 and prog.variables[m[0]].lb >= 0 for m, v in live.items()):
                zero.update(m[0] for m in live)
                changed = True
    return zero


def _check_constant_row(c: Constraint, const: float, undefined: Callable[[str], None] | None) -> None:
    """Raise when the row ``const <sense> rhs`` left without variables is false (a failing floor: see above)."""
    if abs(const - c.rhs) > 1e-9 and c.sense == "==":
        raise InfeasibleError(
            f"The observed table is inconsistent with the bias model: row {c.name} needs "
            f"probability {c.rhs - const:g} but zero cells force it to 0. Check the table "
            "and the DAG (is a column attached to the right node?)."
        )
    if c.name and c.name.endswith("_pos") and "_r" in c.name and c.sense == ">=" and const < c.rhs:
        if undefined is not None and not c.name.startswith("bias"):
            undefined(c.name)  # a conditioning event of the metric forced to probability 0
        return
    violated = (c.sense == "<=" and const > c.rhs + 1e-9) or (c.sense == ">=" and const < c.rhs - 1e-9)
    if violated:
        raise InfeasibleError(
            f"The observed table is inconsistent with the bias model: row {c.name} needs "
            f"{0 if not const else const:g} {c.sense} {c.rhs:g}, but zero cells force its "
            "probabilities to 0. Check the table and the DAG (is a column attached to the "
            "right node?), or allow more bias (a larger D)."
        )

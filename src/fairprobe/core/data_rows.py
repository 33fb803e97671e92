"""The data rows of a compiled program: one row per observed cell, and the record of how each entered.

``P(cell) = p`` for an unconditioned table, ``P(cell & given) = p * P(given)`` for a selected one, and
for a table known only up to a box (``ObservedTable.region``) one variable per cell in its box.
:class:`DataRow` records the row before the reductions, so :mod:`fairprobe.core.rebind` can move a
program to another table over the same cells.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from fairprobe.core.query import Atom
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import DataError
from fairprobe.program.model import Constraint, PolynomialProgram
from fairprobe.program.polynomial import Poly, poly_add

__all__ = ["RATIO_EPSILON", "DataRow", "EventKey", "add_data_rows"]

#: Lower bound imposed on conditioning events of auxiliary ratio variables.
RATIO_EPSILON = 1e-9

#: An event as its sorted atoms.
EventKey = tuple[Atom, ...]


@dataclass
class DataRow:
    """How one observed cell entered a compiled program: ``P(cell & given) = p * P(given)``.

    Parameters
    ----------
    name : str
        The row's name (``data{k}``).
    cell : tuple of int
        The cell's codes, in the table's node order.
    poly : dict
        ``P(cell & given)`` (``P(cell)`` for an unconditioned table) over the variables.
    given : dict or None
        ``P(given)`` for a selected table, else None.
    """

    name: str
    cell: tuple[int, ...]
    poly: Poly
    given: Poly | None

    def row(self, prob: float) -> tuple[Poly, float] | None:
        """The row's body and right-hand side for the cell probability ``prob`` (None: no row).

        The arithmetic is the compiler's own, so the row is the one a compilation would write.

        Parameters
        ----------
        prob : float

        Returns
        -------
        (dict, float) or None
            None when every term is a constant (the compiler then writes no row).

        Examples
        --------
        >>> DataRow("data0", (0, 1), {(0,): 1.0, (1,): 1.0}, None).row(0.25)
        ({(0,): 1.0, (1,): 1.0}, 0.25)
        """
        body = dict(self.poly)
        if self.given is not None:
            body = poly_add(body, self.given, -prob)
            rhs = 0.0
        else:
            rhs = prob
        const = body.pop((), 0.0)
        if not body:
            return None
        return body, rhs - const

    def mapped(self, mapping: Callable[[Poly], Poly]) -> DataRow:
        """The row in the variables of a rewritten program (checked by the rebinder).

        Parameters
        ----------
        mapping : callable
            Maps a polynomial to the rewritten program's variables.

        Returns
        -------
        DataRow

        Examples
        --------
        >>> DataRow("data0", (0,), {(2,): 1.0}, None).mapped(lambda p: {(k[0] - 1,): v for k, v in p.items()}).poly
        {(1,): 1.0}
        """
        return DataRow(self.name, self.cell, mapping(self.poly), None if self.given is None else mapping(self.given))


def _region_bounds(table: ObservedTable) -> dict[tuple[int, ...], tuple[float, float]] | None:
    """Cell -> (lower, upper) probability of a table known only up to a box (``table.region``), else None."""
    if table.region is None:
        return None
    lo, hi = table.region
    cells = table.cells[table.nodes].to_numpy()
    return {tuple(int(x) for x in row): (float(a), float(b)) for row, a, b in zip(cells, lo, hi, strict=True)}


def add_data_rows(prog: PolynomialProgram, data: Sequence[tuple[EventKey, float, EventKey | None]],
                  polys: Mapping[EventKey, Poly], table: ObservedTable, cards: Mapping[str, int],
                  given_poly: Poly | None) -> list[DataRow]:
    """Add one row per observed cell (``P(cell & given) = p * P(given)`` for a selected table).

    For a table known up to a box (``table.region``) each listed cell's probability is a variable ``obs.k``
    in its box (its joint mass with the selection for a selected table), summing to 1: a bound then holds
    for every table in the region. A cell the table does not list stays at 0.


    Parameters
    ----------
    prog : PolynomialProgram
        The program being built (rows and ``obs.k`` variables are added to it).
    data : sequence of (event key, float, event key or None)
        Per cell of the grid: the event ``cell & given``, its observed probability, the given event.
    polys : mapping
        Each event's probability over the program's variables.
    table : ObservedTable
    cards : mapping of str to int
        Cardinality of each node.
    given_poly : dict or None
        ``P(given)`` for a selected table.

    Returns
    -------
    list of DataRow
        How each cell known exactly entered the program.

    Raises
    ------
    DataError
        A cell whose row reduces to a false constant.
    """
    region = _region_bounds(table)
    grid = list(product(*[range(cards[v]) for v in table.nodes]))
    observed: list[int] = []
    rows: list[DataRow] = []
    for k, (key, prob, given_key) in enumerate(data):
        body = dict(polys[key])
        given = given_poly if given_key is not None else None
        box = region.get(grid[k]) if region is not None else None
        if box is None:
            rows.append(DataRow(f"data{k}", grid[k], dict(body), dict(given) if given is not None else None))
            if given is not None:
                body, rhs = poly_add(body, given, -prob), 0.0
            else:
                rhs = prob
        else:
            pi = _box_variable(prog, k, box, given)
            observed.append(pi)
            body, rhs = poly_add(body, {(pi,): 1.0}, -1.0), 0.0
        _add_cell_row(prog, k, body, rhs)
    _add_observed_simplex(prog, observed, given_poly)
    if table.given:
        body = dict(given_poly)
        const = body.pop((), 0.0)
        prog.constraints.append(Constraint(body, ">=", RATIO_EPSILON - const, "selected_positive"))
    return rows


def _box_variable(prog: PolynomialProgram, k: int, box: tuple[float, float], given: Poly | None) -> int:
    """The variable ``obs.k`` of a cell known up to ``box`` (its joint mass with the selection when ``given``)."""
    if given is None:
        return prog.add_variable(f"obs.{k}", box[0], box[1])
    # the cell's joint mass m = p * P(given) is the variable (a perspective of p): the box
    # lo <= p <= hi is lo * P(given) <= m <= hi * P(given), and sum p = 1 is sum m = P(given),
    # all linear, where p * P(given) was bilinear (exact: P(given) >= 1e-9)
    pi = prog.add_variable(f"obs.{k}", 0.0, 1.0)
    for end, sense, tag in ((box[0], ">=", "lo"), (box[1], "<=", "hi")):
        row = poly_add({(pi,): 1.0}, given, -end)
        c0 = row.pop((), 0.0)
        prog.constraints.append(Constraint(row, sense, -c0, f"obs{k}_{tag}"))
    return pi


def _add_cell_row(prog: PolynomialProgram, k: int, body: Poly, rhs: float) -> None:
    """Row ``data{k}``: ``body == rhs`` (a constant body must already hold)."""
    const = body.pop((), 0.0)
    if not body:
        if abs(const - rhs) > 1e-9:
            raise DataError(f"The table is inconsistent with the model at cell #{k}.")
        return
    prog.constraints.append(Constraint(body, "==", rhs - const, f"data{k}"))


def _add_observed_simplex(prog: PolynomialProgram, observed: list[int], given_poly: Poly | None) -> None:
    """The box variables sum to 1 (to ``P(given)`` for a selected table)."""
    if observed and given_poly is not None:
        row = poly_add({(pi,): 1.0 for pi in observed}, given_poly, -1.0)
        c0 = row.pop((), 0.0)
        prog.constraints.append(Constraint(row, "==", -c0, "obs_simplex"))
    elif observed:
        prog.constraints.append(Constraint({(pi,): 1.0 for pi in observed}, "==", 1.0, "obs_simplex"))

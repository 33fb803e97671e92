"""Compile once, solve on many tables: move a compiled program to new cell probabilities.

A bootstrap bounds one bias and metric on a thousand tables over the same cells, and compiling each
costs more than its LPs. In most programs the data enter only through the rows ``P(cell & given) =
p * P(given)``; :class:`DataRebinder` rewrites just those rows with the compiler's own arithmetic
(:meth:`~fairprobe.core.data_rows.DataRow.row`), so the moved program is the one a compilation writes.

That is checked once, not assumed: reductions that read the data (a fixed marginal, a pinned
conditioning event, a presolve of zero cells, glue rows) change other rows too, so the rebinder
compiles at two more tables with the same support and accepts only if everything but the data rows is
identical and every data row is what its cell's probability gives. Otherwise, or when a new table's
zero cells differ from the first's, the caller compiles as before.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairprobe.core.compiled import CompiledProgram, warn_tiny_cells
from fairprobe.core.data_rows import DataRow
from fairprobe.core.parametric import ParametricProgram
from fairprobe.core.table import ObservedTable
from fairprobe.exceptions import FairprobeError
from fairprobe.program.model import Constraint

__all__ = ["DataRebinder", "Resampler"]

#: Seed of the probe tables (the check is deterministic).
_PROBE_SEED = 20261204


def _probe_tables(table: ObservedTable) -> list[ObservedTable]:
    """Two tables with the table's support and probabilities moved by up to about 30 %."""
    rng = np.random.default_rng(_PROBE_SEED)
    p = table.column_arrays()["prob"]
    out = []
    for _ in range(2):
        moved = p * np.exp(0.3 * rng.standard_normal(len(p)))
        out.append(table.with_probabilities(moved / moved.sum()))
    return out


def _same_structure(a: CompiledProgram, b: CompiledProgram, data_names: set[str]) -> bool:
    """Everything but the data rows is identical (variables, rows, objective, conditions, query)."""
    pa, pb = a.program, b.program
    if (pa.variables != pb.variables or pa.objective != pb.objective
            or pa.objective_denominator != pb.objective_denominator or pa.sense != pb.sense
            or len(pa.constraints) != len(pb.constraints)):
        return False
    if (a.kind != b.kind or a.ratios != b.ratios or a.query_rows != b.query_rows or a.terms != b.terms
            or a.windows != b.windows or a.conditions != b.conditions):
        return False
    for ca, cb in zip(pa.constraints, pb.constraints, strict=True):
        if ca.name != cb.name or ca.sense != cb.sense:
            return False
        if ca.name not in data_names and (ca.poly != cb.poly or ca.rhs != cb.rhs):
            return False
    return True


def _rows_match(compiled: CompiledProgram, rows: dict[str, DataRow], probs: dict[tuple[int, ...], float]) -> bool:
    """Every data row of ``compiled`` is its cell's row at ``probs`` (bit for bit), and no other is missing."""
    written = set()
    for c in compiled.program.constraints:
        if c.name in rows:
            expect = rows[c.name].row(probs.get(rows[c.name].cell, 0.0))
            if expect is None or expect[0] != c.poly or expect[1] != c.rhs or c.sense != "==":
                return False
            written.add(c.name)
    # a provenance row the compiler did not write is one with only constants: it must stay so
    return all(rows[name].row(probs.get(rows[name].cell, 0.0)) is None for name in set(rows) - written)


@dataclass
class DataRebinder:
    """A compiled program that moves to other tables over the same cells without compiling.

    Build it with :meth:`build`; :meth:`at` gives the program for a table.

    Parameters
    ----------
    base : CompiledProgram
        The program compiled at the first table.
    rows : dict of str to DataRow
        The data rows by name.
    positions : dict of str to int
        Each data row's position among the program's rows.
    support : frozenset of tuple of int
        The cells with positive probability in the first table.
    """

    base: CompiledProgram
    rows: dict[str, DataRow]
    positions: dict[str, int]
    support: frozenset[tuple[int, ...]]

    @classmethod
    def build(cls, compile_fn: Callable[[ObservedTable], CompiledProgram], table: ObservedTable,
              base: CompiledProgram | None = None,
              known: Sequence[tuple[ObservedTable, CompiledProgram]] = ()) -> DataRebinder | None:
        """Compile at ``table`` and probe tables; a rebinder when the data enter only the data rows.

        Parameters
        ----------
        compile_fn : callable
            ``compile_fn(table)`` compiles the program at a table.
        table : ObservedTable
            The first table (its zero cells stay zero in every table :meth:`at` accepts).
        base : CompiledProgram, optional
            The program already compiled at ``table``.
        known : sequence of (ObservedTable, CompiledProgram), optional
            Other tables over the same cells, already compiled: one with the first table's support stands
            in for one of the two random probes (checked first, so a refusal compiles no probe).

        Returns
        -------
        DataRebinder or None
            None when the program reads the data elsewhere (then compile per table).
        """
        if table.region is not None:
            return None
        base = base if base is not None else compile_fn(table)
        rows = {r.name: r for r in base.data_rows}
        if not rows:
            return None
        probs = table.cell_probabilities()
        support = frozenset(cell for cell, p in probs.items() if p > 0)
        # (probabilities, program) pairs to check: the first table, then at most one known table over its
        # support with other probabilities (it stands in for one random probe)
        checks = [(probs, base)]
        for t, compiled in known:
            other = t.cell_probabilities()
            if t.region is None and other != probs and frozenset(c for c, p in other.items() if p > 0) == support:
                checks.append((other, compiled))
                break

        def consistent(probabilities: dict, compiled: CompiledProgram) -> bool:
            return _same_structure(base, compiled, set(rows)) and _rows_match(compiled, rows, probabilities)

        if not all(consistent(*check) for check in checks):
            return None
        try:
            probes = [(t.cell_probabilities(), compile_fn(t)) for t in _probe_tables(table)[:3 - len(checks)]]
        except FairprobeError:
            return None  # a probe table the bias rejects: the data matter beyond the rows
        if not all(consistent(*probe) for probe in probes):
            return None
        positions = {c.name: i for i, c in enumerate(base.program.constraints) if c.name in rows}
        return cls(base, rows, positions, support)

    def at(self, table: ObservedTable) -> CompiledProgram | None:
        """The program at ``table`` (same cells), or None when its zero cells are not the first table's.

        Parameters
        ----------
        table : ObservedTable
            A table over the same nodes, conditioning event and cells.

        Returns
        -------
        CompiledProgram or None
        """
        if table.region is not None:
            return None  # the cells are variables there: a program of another shape
        probs = table.cell_probabilities()
        if frozenset(cell for cell, p in probs.items() if p > 0) != self.support:
            # the compiler reads which cells are zero (a presolve, an intervention identified only where
            # its value has data, a ratio floor dropped where zeros force P(F) = 0): another support
            # compiles, in either direction
            return None
        warn_tiny_cells(probs, stacklevel=4)  # as the compiler would have
        prog = self.base.program
        constraints = list(prog.constraints)
        for name, row in self.rows.items():
            written = row.row(probs.get(row.cell, 0.0))
            k = self.positions.get(name)
            if k is None:
                if written is not None:
                    return None  # a row the first table did not need; compile
                continue
            if written is None:
                return None
            constraints[k] = Constraint(written[0], "==", written[1], name)
        moved = copy.copy(prog)  # variables and objective are shared; only the rows are new
        moved.constraints = constraints
        return dataclasses.replace(self.base, program=moved)


class Resampler:
    """One problem moved to other tables over the same cells (a bootstrap's reuse, handed to its workers).

    Each program's first move builds its :class:`DataRebinder`; later moves rewrite only its data rows
    where exact and compile it where not. A moved program is the compiled one, bit for bit, and all reuse
    lives in this object: a problem's bounds never depend on earlier problems.

    Parameters
    ----------
    problem : BoundProblem
        The problem on its first table (compiled here when it was not).

    Attributes
    ----------
    table : ObservedTable
        The first table.
    rebinders : dict

        By program (:meth:`BoundProblem.program_key <fairprobe.core.bound.BoundProblem.program_key>`):
        its checked rebinder, or None where the program is compiled per table.

    Examples
    --------
    >>> from fairprobe.core.bound import BoundProblem
    >>> from fairprobe.datasets import load_paper_table
    >>> problem = BoundProblem("proxy_label", "fpr", load_paper_table(), fixed={"D": 0.05})
    >>> resampler = Resampler(problem)
    >>> p = problem.table.cells["prob"].to_numpy()
    >>> moved = resampler.at(problem.table.with_probabilities((p + 0.1) / (p + 0.1).sum()))
    >>> round(moved.solve({"D": 0.05}).upper, 4), moved.resampler is resampler, len(resampler.rebinders)
    (0.4422, True, 1)
    """

    def __init__(self, problem: Any) -> None:
        self.problem = problem.compile()
        self.table: ObservedTable = problem.table
        self.rebinders: dict[tuple, DataRebinder | None] = {}
        # the first table's programs by key, each read once as its rebinder's known program
        self._first: dict[tuple, ParametricProgram] = problem.programs_by_key()

    def at(self, table: ObservedTable, *, fixed: Mapping[str, float] | None = None) -> Any:
        """The problem on ``table`` (same cells), its programs moved from the first table where exact.

        Parameters
        ----------
        table : ObservedTable
            Same nodes, conditioning event and cells as the first table (new probabilities).
        fixed : mapping of str to float, optional
            Sensitivity values compiled in as constants (default: the problem's). Programs move
            only when every parameter is fixed.

        Returns
        -------
        BoundProblem

        Raises
        ------
        DataError
            ``table`` is not an :class:`~fairprobe.core.table.ObservedTable`, or is over other cells.
        """
        return self.problem.with_table(table, fixed=fixed, resampler=self)

    def program(self, key: tuple, table: ObservedTable, params: Mapping[str, float],
                compile_on: Callable[[ObservedTable], CompiledProgram],
                compile_at: Callable[[Mapping[str, float]], CompiledProgram],
                affine: bool) -> ParametricProgram | None:
        """The program ``key`` on ``table`` at the fixed ``params``, moved from the first table; None: compile it.

        Parameters
        ----------
        key : tuple
            The program's key.
        table : ObservedTable
            The table it is wanted on.
        params : mapping of str to float
            Every sensitivity value (all fixed).
        compile_on : callable
            Compiles the program at ``params`` on a table.
        compile_at : callable
            Compiles the program on ``table`` at a mapping of sensitivity values.
        affine : bool
            Whether the bias's rows are affine in its parameters (else the program is compiled per
            point, and no table's own compilation is read before the probes).

        Returns
        -------
        ParametricProgram or None
        """
        params = dict(params)
        compiled = None
        if key not in self.rebinders:
            # the first table's program as its problem compiled it, and this table's: two real tables the
            # check reads before (and instead of one of) its random probes; a program that reads the data
            # beyond its data rows is then refused at the cost of this table's own compilation
            origin = self._first.pop(key, None)  # (read once: moved problems do not carry it on)
            base = origin.base if origin is not None and origin.affine and origin.base_params == params else None
            known = []
            if affine:
                try:
                    compiled = compile_at(params)
                except FairprobeError:
                    return None  # this table's own error, reported by its compilation; a later table builds it
                known = [(table, compiled)]
            try:
                self.rebinders[key] = DataRebinder.build(compile_on, self.table, base=base, known=known)
            except FairprobeError:
                self.rebinders[key] = None  # e.g. undefined on the first table: each table is compiled (and reports)
        rebinder = self.rebinders[key]
        if compiled is None:
            compiled = rebinder.at(table) if rebinder is not None else None
        if compiled is None:
            return None
        return ParametricProgram(compiled, params, {}, compile_at, affine=True)

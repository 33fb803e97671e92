"""Whether a table fits a bias, from the table's plain facts (the checks behind
:meth:`ObservedTable.validate_against <fairprobe.core.table.ObservedTable.validate_against>`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from fairprobe.exceptions import DataError

if TYPE_CHECKING:
    from fairprobe.core.config import BiasConfig

__all__ = ["check_table_fits"]


def check_table_fits(config: BiasConfig, nodes: Sequence[str], top_codes: Mapping[str, int],
                     given: Mapping[str, int], unmeasured: Iterable[str] = ()) -> None:
    """Check a table's columns fit a bias config: observed DAG nodes in range, none forgotten.

    Parameters
    ----------
    config : BiasConfig
    nodes : sequence of str
        The table's node columns.
    top_codes : mapping of str to int
        The largest code of each node column.
    given : mapping of str to int
        The table's conditioning event, e.g. ``{"S": 1}``.
    unmeasured : iterable of str
        Nodes declared unmeasured.

    Raises
    ------
    DataError
        As :meth:`ObservedTable.validate_against <fairprobe.core.table.ObservedTable.validate_against>`.

    Examples
    --------
    >>> from fairprobe.core.config import BiasConfig
    >>> cfg = BiasConfig.from_dict({"dag_str": "A->Y, A->P, U->P, U->Y", "unob": "U", "constraints": []})
    >>> check_table_fits(cfg, ["A", "P"], {"A": 1, "P": 1}, {})
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.DataError: The bias needs the column(s) ['Y'], which the table does not have ...
    >>> check_table_fits(cfg, ["A", "P"], {"A": 1, "P": 1}, {}, unmeasured=["Y"])
    """
    unmeasured = list(unmeasured)
    _check_columns(config, nodes, top_codes)
    _check_none_forgotten(config, nodes, given, unmeasured)
    _check_column_names(config, nodes, unmeasured)
    _check_given(config, nodes, given)


def _check_columns(config: BiasConfig, nodes: Sequence[str], top_codes: Mapping[str, int]) -> None:
    """Each column is an observed node of the DAG whose codes fit its cardinality."""
    dag = config.dag
    for node in nodes:
        if node not in dag.nodes:
            raise DataError(f"Table column {node!r} is not a node of the DAG {dag.nodes}; drop it or map "
                            "the columns to node names (from_frame(df, A='race', ...); command line: "
                            "--columns A=race,Y=label,P=pred).")
        if node in dag.unobserved:
            raise DataError(f"Table column {node!r} is declared unobserved (unob) in the bias config; drop the "
                            "column, or remove the node from 'unob' if it is in fact measured.")
        card = config.cardinality(node)
        top = top_codes[node]
        if top >= card:
            raise DataError(f"Column {node!r} has code {top}, outside the declared cardinality {card}; set "
                            f"'cardinalities': {{'{node}': {top + 1}}} in the config.")


def _check_none_forgotten(config: BiasConfig, nodes: Sequence[str], given: Mapping[str, int],
                          unmeasured: list[str]) -> None:
    """Every measured node is a column: a forgotten column is never taken for an unmeasured variable."""
    dag = config.dag
    measured = config.observed_nodes or [n for n in dag.nodes if n not in dag.unobserved
                                         and n not in config.cond_nodes]
    absent = [n for n in measured if n not in nodes and n not in given and n not in unmeasured]
    if not absent:
        return
    bias = f"The bias {config.name!r}" if config.name else "The bias"
    first = absent[0]
    latent = f", latent {list(dag.unobserved)}" if dag.unobserved else ""
    cond = f", conditioned on {list(config.cond_nodes)}" if config.cond_nodes else ""
    declared = sorted(set(dag.nodes) - set(measured) - set(dag.unobserved) - set(config.cond_nodes)
                      | set(unmeasured))
    unm = f", declared unmeasured {declared}" if declared else ""
    raise DataError(f"{bias} needs the column(s) {absent}, which the table does not have (table columns: "
                    f"{list(nodes)}; DAG nodes: {list(dag.nodes)}{latent}{cond}{unm}). A missing column is not "
                    f"treated as an unmeasured variable. Add the column (ObservedTable.from_frame(df, "
                    f"{first}='<column>'), or --columns {first}=<column> on the command line), or, if {first} "
                    f"is genuinely unmeasured, declare it: unmeasured={absent!r} in bound/sensitivity/breakdown "
                    f"(--unmeasured {','.join(absent)} on the command line), or list the measured nodes in the "
                    "config's 'observed_nodes' (the others are then unmeasured).")


def _check_column_names(config: BiasConfig, nodes: Sequence[str], unmeasured: list[str]) -> None:
    """No column is named like a node the bias declares unmeasured or conditions on."""
    for node in nodes:
        if node in unmeasured or (config.observed_nodes and node not in config.observed_nodes):
            raise DataError(f"Table column {node!r} is named like the node {node!r}, which the bias declares "
                            "unmeasured; bounding with it would use an unrelated column as that node. Rename or drop "
                            f"the column, or, if it really measures {node}, declare the node measured (remove it from "
                            "unmeasured= or add it to the config's 'observed_nodes').")
        if node in config.cond_nodes:
            raise DataError(f"Table column {node!r} is named like the conditioning node {node!r} of the bias; the "
                            f"data are the units with {node} = 1, given by given={{'{node}': 1}}, not by a column. "
                            "Drop or rename the column (keep only the selected rows and build the table with given=).")


def _check_given(config: BiasConfig, nodes: Sequence[str], given: Mapping[str, int]) -> None:
    """The table's conditioning event is the bias's ``cond_nodes``."""
    for node, value in given.items():
        if node not in config.cond_nodes:
            raise DataError(f"The table is conditioned on {node} = {value}, but {node} is not in the bias's "
                            f"cond_nodes {config.cond_nodes}; build the table without given=, or use a bias "
                            "that conditions on it (e.g. 'selection').")
    for node in config.cond_nodes:
        if node not in given and node not in nodes:
            raise DataError(f"The config conditions on {node!r}: build the table with given={{'{node}': 1}} "
                            "(data observed only where it holds).")

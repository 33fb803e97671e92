"""The web app's logic, without Streamlit: config editing, DAG drawing, data, sweeps, reports.

Everything here goes through fairprobe's public API (``fp.BiasConfig``, ``fp.SensitivityResult``,
``fp.breakdown``, the plugin registry, :mod:`fairprobe.datasets`) and the few engine entry points a
front end needs (:class:`~fairprobe.core.bound.BoundProblem`, the constraint parser, the table reader), and
keeps no state between calls: the pages hold each user's objects in ``st.session_state``.
Nothing a user types is evaluated as code; constraints go through
:func:`fairprobe.core.query.parse_constraint`.
"""

from __future__ import annotations

import inspect
import io
import re
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import fairprobe as fp
from fairprobe.core.bound import BoundProblem
from fairprobe.core.query import parse_constraint
from fairprobe.core.reading import COUNT_NAMES, PROB_COLUMN, TABLE_KINDS, frame_to_table
from fairprobe.core.reading import table_kind as reading_kind
from fairprobe.core.templates import expand_constraint
from fairprobe.core.uncertainty import interval_options, sampling_interval
from fairprobe.exceptions import ConfigError, DataError, UndefinedMetricError

__all__ = [
    "BUNDLED_DATA",
    "COUNT_COLUMNS",
    "DEFAULT_TIME_LIMIT",
    "ENCODINGS",
    "GROUP_MODES",
    "ConstraintIssue",
    "SweepJob",
    "analysis_report_zip",
    "build_table",
    "conclusion",
    "config_dict_from_fields",
    "config_from_fields",
    "constraint_issues",
    "count_column",
    "d_grid",
    "dag_dot",
    "fields_from_config",
    "fit_arguments",
    "format_mapping",
    "group_labels",
    "kind_text",
    "load_bundled",
    "make_metric",
    "missing_roles",
    "parse_mapping",
    "read_upload",
    "results_frame",
    "results_json",
    "role_kinds",
    "split_lines",
    "split_names",
    "streamlit_command",
    "sweep_report_zip",
    "table_kind",
    "unclear_labels",
    "zip_folder",
]

#: Solver time limit per solve (seconds) unless the user picks another; never unlimited.
DEFAULT_TIME_LIMIT = 10.0
#: Largest time limit the app accepts per solve (seconds).
MAX_TIME_LIMIT = 600.0
#: Upload formats: suffix of the temporary file the upload is written to.
UPLOAD_SUFFIXES = {".csv": ".csv", ".tsv": ".tsv", ".parquet": ".parquet", ".pq": ".parquet"}
#: Largest upload read (bytes); the server's own limit (``--server.maxUploadSize``) applies first.
MAX_UPLOAD_BYTES = 200 * 1024 * 1024
#: Text encodings of an uploaded CSV the data page offers: label -> codec.
ENCODINGS = {"utf-8": "utf-8", "cp1252 (Excel on Windows)": "cp1252", "latin-1": "latin-1",
             "utf-16 (Excel's 'Unicode Text')": "utf-16"}

#: Bundled data sets offered on the data page: label -> loader key.
BUNDLED_DATA = {
    "COMPAS, Fogliato table of the paper (cells A, Y, P, prob)": "paper",
    "COMPAS, unit rows (pred = decile score >= 5)": "compas",
    "Adult income, unit rows": "adult",
    "German credit, unit rows": "german",
}

#: The widget fields of the bias workshop, in the order of :meth:`BiasConfig.to_dict`.
FIELDS = ("name", "description", "dag_str", "unob", "cond_nodes", "observed_nodes", "attribute_node",
          "outcome_node", "prediction_node", "cardinalities", "cardinality_of", "parameters", "constraints")


# -- text fields ---------------------------------------------------------------------------------------
def split_names(text: str) -> list[str]:
    """Node or parameter names from a comma- or space-separated text field.

    Parameters
    ----------
    text : str
        E.g. ``"U, V"``.

    Returns
    -------
    list of str
        The names, in order, without blanks.

    Examples
    --------
    >>> split_names("U, V  W")
    ['U', 'V', 'W']
    >>> split_names("")
    []
    """
    return [t for t in re.split(r"[,\s]+", text or "") if t]


def split_lines(text: str) -> list[str]:
    """The non-blank lines of a text area, stripped (one constraint per line).

    Parameters
    ----------
    text : str
        The text area's content.

    Returns
    -------
    list of str
        Stripped lines, blank ones dropped.

    Examples
    --------
    >>> split_lines("P(S = 1) >= 1 - D\\n\\n  P(Y = 1) <= 0.5 ")
    ['P(S = 1) >= 1 - D', 'P(Y = 1) <= 0.5']
    """
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def parse_mapping(text: str, *, integer: bool = False) -> dict[str, Any]:
    """``"A=3, X=4"`` as a dict (values as int when ``integer``); a malformed entry is a ConfigError.

    Parameters
    ----------
    text : str
        Comma-separated ``key=value`` pairs.
    integer : bool
        Convert the values to integers.

    Returns
    -------
    dict
        Keys to values, in order.

    Raises
    ------
    ConfigError
        An entry without ``=``, a key given twice, or a value that is not an integer when ``integer``.

    Examples
    --------
    >>> parse_mapping("A=3, X = 4", integer=True)
    {'A': 3, 'X': 4}
    >>> parse_mapping("Z=Y")
    {'Z': 'Y'}
    """
    out: dict[str, Any] = {}
    for item in (t.strip() for t in (text or "").split(",")):
        if not item:
            continue
        key, sep, value = (s.strip() for s in item.partition("="))
        if not sep or not key or not value:
            raise ConfigError(f"Cannot read {item!r}: write node=value pairs separated by commas, e.g. 'A=3, X=4'.")
        if integer:
            if not re.fullmatch(r"\d+", value):
                raise ConfigError(f"Cannot read {item!r}: the number of values must be an integer, e.g. '{key}=3'.")
            value = int(value)
        if key in out:  # the last value silently kept would hide a typo
            raise ConfigError(f"{text.strip()!r} gives {key} twice ({key}={out[key]}, {key}={value}); "
                              "give each name once.")
        out[key] = value
    return out


def format_mapping(mapping: Mapping[str, Any]) -> str:
    """The inverse of :func:`parse_mapping`.

    Parameters
    ----------
    mapping : mapping
        Keys to values.

    Returns
    -------
    str
        ``"k=v, k=v"``.

    Examples
    --------
    >>> format_mapping({"A": 3, "X": 4})
    'A=3, X=4'
    """
    return ", ".join(f"{k}={v}" for k, v in mapping.items())


# -- bias configs --------------------------------------------------------------------------------------
def fields_from_config(config: fp.BiasConfig | Mapping[str, Any]) -> dict[str, str]:
    """The workshop's text fields for a config (or its dict form).

    Parameters
    ----------
    config : BiasConfig or mapping
        The config to edit.

    Returns
    -------
    dict of str to str
        One string per field of :data:`FIELDS`.

    Examples
    --------
    >>> cfg = fp.get_registry().biases["selection"]().config()
    >>> f = fields_from_config(cfg)
    >>> f["unob"], f["cond_nodes"], f["constraints"]
    ('U', 'S', 'P(S = 1) >= 1 - D')
    """
    d = dict(config.to_dict() if isinstance(config, fp.BiasConfig) else config)
    return {
        "name": str(d.get("name") or ""), "description": str(d.get("description") or ""),
        "dag_str": str(d.get("dag_str", "")), "unob": ", ".join(d.get("unob", [])),
        "cond_nodes": ", ".join(d.get("cond_nodes", [])), "observed_nodes": ", ".join(d.get("observed_nodes", [])),
        "attribute_node": str(d.get("attribute_node", "A")), "outcome_node": str(d.get("outcome_node", "Y")),
        "prediction_node": str(d.get("prediction_node", "P")),
        "cardinalities": format_mapping(d.get("cardinalities", {})),
        "cardinality_of": format_mapping(d.get("cardinality_of", {})),
        "parameters": ", ".join(d.get("parameters", ["D"])),
        "constraints": "\n".join(d.get("constraints", [])),
    }


def config_dict_from_fields(fields: Mapping[str, str], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The config's dict form from the workshop's fields (keys the fields lack come from ``base``).

    Parameters
    ----------
    fields : mapping of str to str
        The text fields (see :func:`fields_from_config`).
    base : mapping, optional
        The loaded config's dict; keys the workshop does not edit (``probability_parameters``) are kept.

    Returns
    -------
    dict
        Input for :meth:`BiasConfig.from_dict` (not validated yet).

    Examples
    --------
    >>> d = config_dict_from_fields({"dag_str": "A -> Y, A -> P", "constraints": "", "parameters": "D"})
    >>> d["dag_str"], d["constraints"], "parameters" in d
    ('A -> Y, A -> P', [], False)
    """
    out: dict[str, Any] = {k: v for k, v in (base or {}).items() if k not in FIELDS}
    get = fields.get
    out["dag_str"] = (get("dag_str") or "").strip()
    for key in ("unob", "cond_nodes"):
        out[key] = split_names(get(key) or "")
    for key, default in (("attribute_node", "A"), ("outcome_node", "Y"), ("prediction_node", "P")):
        out[key] = (get(key) or "").strip() or default
    out["constraints"] = split_lines(get("constraints") or "")
    for key in ("name", "description"):
        if (get(key) or "").strip():
            out[key] = (get(key) or "").strip()
    cards = parse_mapping(get("cardinalities") or "", integer=True)
    if cards:
        out["cardinalities"] = cards
    params = split_names(get("parameters") or "") or ["D"]
    if params != ["D"]:
        out["parameters"] = params
    observed = split_names(get("observed_nodes") or "")
    if observed:
        out["observed_nodes"] = observed
    card_of = parse_mapping(get("cardinality_of") or "")
    if card_of:
        out["cardinality_of"] = card_of
    return out


def config_from_fields(fields: Mapping[str, str], base: Mapping[str, Any] | None = None) -> fp.BiasConfig:
    """A validated :class:`~fairprobe.BiasConfig` from the workshop's fields.

    Parameters
    ----------
    fields : mapping of str to str
        The text fields.
    base : mapping, optional
        The loaded config's dict (see :func:`config_dict_from_fields`).

    Returns
    -------
    BiasConfig

    Raises
    ------
    ConfigError
        A cyclic DAG, an unknown node, a bad constraint, ... (BiasConfig's own message).

    Examples
    --------
    >>> cfg = fp.get_registry().biases["selection"]().config()
    >>> config_from_fields(fields_from_config(cfg), cfg.to_dict()) == cfg
    True
    >>> config_from_fields({"dag_str": "A -> Y, Y -> A", "constraints": ""})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: ...cycle...
    """
    return fp.BiasConfig.from_dict(config_dict_from_fields(fields, base))


@dataclass
class ConstraintIssue:
    """A constraint line that does not parse.

    Parameters
    ----------
    line : int
        Line number in the text area (1-based, blank lines counted).
    text : str
        The line.
    message : str
        The parser's message (with the column).

    Examples
    --------
    >>> issue = constraint_issues("P(S = 1) >= 1 - D\\nP(S = 1 >= D")[0]
    >>> issue.line, issue.text
    (2, 'P(S = 1 >= D')
    """

    line: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def constraint_issues(text: str, nodes: Sequence[str] | None = None) -> list[ConstraintIssue]:
    """Parse every constraint line before solving; return the lines that fail, with the parser's message.

    ``forall X: ...`` templates are expanded with two values per node first. With ``nodes``, a
    constraint naming a node the DAG lacks is flagged as well.

    Parameters
    ----------
    text : str
        The constraints text area (one constraint per line).
    nodes : sequence of str, optional
        The DAG's nodes, when the DAG is valid.

    Returns
    -------
    list of ConstraintIssue
        Empty when every line parses.

    Examples
    --------
    >>> constraint_issues("P(S = 1) >= 1 - D\\nP(Y = 1 <= D")[0].line
    2
    >>> print(constraint_issues("P(Y = 1 <= D")[0])
    line 1: Cannot parse 'P(Y = 1 <= D' at column 9: expected ), found '<=' (at '<= D').
    >>> constraint_issues("P(Q = 1) <= D", nodes=["A", "Y"])[0].message
    "Constraint 'P(Q = 1) <= D' names ['Q'], which are not nodes of the DAG ['A', 'Y']."
    """

    issues = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            for expanded in expand_constraint(line, lambda n: 2):
                parsed = parse_constraint(expanded)
                unknown = sorted(parsed.variables - set(nodes)) if nodes is not None else []
                if unknown:
                    raise ConfigError(f"Constraint {expanded!r} names {unknown}, which are not nodes of the DAG "
                                      f"{list(nodes or [])}.")
        except ConfigError as exc:
            issues.append(ConstraintIssue(number, line, str(exc)))
    return issues


_EDGE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*->\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _dot_id(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dag_dot(dag_str: str, unob: Sequence[str] = (), cond_nodes: Sequence[str] = (),
            roles: Mapping[str, str] | None = None) -> str:
    """A Graphviz DOT drawing of the DAG as typed (latent nodes dashed, conditioned nodes boxed).

    Edges that do not read as ``X -> Y`` are left out of the drawing (the config check names them).

    Parameters
    ----------
    dag_str : str
        Comma-separated edges.
    unob, cond_nodes : sequence of str
        Latent and conditioned-on nodes.
    roles : mapping of str to str, optional
        Role label by node, e.g. ``{"A": "attribute"}`` (shown under the name).

    Returns
    -------
    str
        A ``digraph``.

    Examples
    --------
    >>> dot = dag_dot("A -> Y, U -> Y", unob=["U"], roles={"A": "attribute"})
    >>> '"U" [style=dashed' in dot, '"A" -> "Y"' in dot
    (True, True)
    """
    roles = dict(roles or {})
    edges, nodes = [], []
    for part in (dag_str or "").split(","):
        m = _EDGE.match(part)
        if m:
            edges.append(m.groups())
            nodes.extend(n for n in m.groups() if n not in nodes)
    for n in [*unob, *cond_nodes, *roles]:
        if n and n not in nodes and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n):
            nodes.append(n)
    lines = ["digraph {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
    for n in nodes:
        label = n if n not in roles else f"{n}\\n({roles[n]})"
        attrs = [f'label="{label}"']
        if n in unob:
            attrs.insert(0, "style=dashed")
            attrs.append('color="grey40"')
        if n in cond_nodes:
            attrs.append("shape=box, peripheries=2")
        lines.append(f"  {_dot_id(n)} [{', '.join(attrs)}];")
    for a, b in edges:
        style = " [style=dashed]" if a in unob else ""
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)}{style};")
    lines.append("}")
    return "\n".join(lines)


# -- data ----------------------------------------------------------------------------------------------
def _size_text(size: int) -> str:
    """``size`` bytes in a unit that reads well: ``"10 bytes"``, ``"1.5 KB"``, ``"200 MB"``."""
    for unit, scale in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{size} byte" + ("" if size == 1 else "s")


def read_upload(name: str, data: bytes, *, encoding: str | None = None,
                max_bytes: int = MAX_UPLOAD_BYTES) -> pd.DataFrame:
    """Read an uploaded CSV or Parquet file through :func:`fairprobe.datasets.tables.read_table`.

    The bytes go to a temporary file whose name is generated here: only the suffix of the user's
    file name (from a fixed list) is used, never the name itself.

    Parameters
    ----------
    name : str
        The uploaded file's name (for its suffix and for messages).
    data : bytes
        The file's content.
    encoding : str, optional
        The text encoding of a CSV (default UTF-8; see :data:`ENCODINGS`).
    max_bytes : int
        Largest content accepted.

    Returns
    -------
    DataFrame

    Raises
    ------
    DataError
        Content that is not bytes, an unknown suffix, a file too large or not a usable table (the
        reader's message, naming the upload), e.g. a CSV in another encoding (named, with the
        encoding to choose).

    Examples
    --------
    >>> read_upload("../../etc/x.csv", b"A,Y,P\\n0,1,1\\n1,0,0\\n").shape
    (2, 3)
    >>> read_upload("excel.csv", "race\\nBokm\\xe5l\\n".encode("cp1252"), encoding="cp1252")["race"].tolist()
    ['Bokmål']
    >>> read_upload("x.exe", b"")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.DataError: Cannot read 'x.exe': upload a .csv, .tsv, .parquet or .pq file.
    """
    from fairprobe.datasets import read_table

    shown = Path(str(name)).name
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"Cannot read {shown!r}: its content must be the file's bytes, not "
                        f"{type(data).__name__}; pass the upload's content (uploaded_file.getvalue()).")
    lowered = shown.lower()
    suffix = next((v for k, v in UPLOAD_SUFFIXES.items() if lowered.endswith(k)), None)
    if suffix is None:
        raise DataError(f"Cannot read {shown!r}: upload a .csv, .tsv, .parquet or .pq file.")
    if len(data) > max_bytes:
        raise DataError(f"{shown!r} is larger than {_size_text(max_bytes)}; upload a smaller table.")
    with tempfile.TemporaryDirectory(prefix="fairprobe-app-") as tmp:
        path = Path(tmp) / f"{uuid.uuid4().hex}{suffix}"
        path.write_bytes(data)
        try:
            return read_table(path, encoding=encoding)
        except DataError as exc:
            raise DataError(str(exc).replace(str(path), repr(shown))) from None


def load_bundled(key: str) -> tuple[pd.DataFrame, str]:
    """A bundled data set as a frame and its kind (``"cells"`` with a ``prob`` column, or ``"units"``).

    Parameters
    ----------
    key : {"paper", "compas", "adult", "german"}
        See :data:`BUNDLED_DATA`.

    Returns
    -------
    frame : DataFrame
    kind : str

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> list(frame.columns), kind
    (['A', 'Y', 'P', 'prob'], 'cells')
    """
    from fairprobe import datasets

    if key == "paper":
        return datasets.load_paper_table(), "cells"
    if key == "compas":
        frame = datasets.load_compas().frame
        return frame.assign(pred=(frame.decile_score >= 5).astype(int)), "units"
    if key == "adult":
        return datasets.load_adult().frame, "units"
    if key == "german":
        return datasets.load_german().frame, "units"
    raise DataError(f"Unknown bundled data set {key!r}; choose one of {sorted(BUNDLED_DATA.values())}.")


#: Names of the count column of a table of cell counts.
COUNT_COLUMNS = COUNT_NAMES  # the names the data page offers as counts (read as counts only when the user says so)


def table_kind(frame: pd.DataFrame, *, counts: bool = False) -> str:
    """What an uploaded table holds: ``"cells"`` (a ``prob`` column), ``"counts"`` or ``"units"``.

    A column named ``n`` or ``count`` is read as cell counts only when the user says so
    (``counts=True``; the data page asks): in unit-level rows such a column is often a variable,
    e.g. a number of prior arrests, and weighting every row by it would change every bound.

    Parameters
    ----------
    frame : DataFrame
        The uploaded table.
    counts : bool
        The user's answer: the table's ``n``/``count`` column holds cell counts.

    Returns
    -------
    str

    Raises
    ------
    DataError
        ``counts=True`` for a table without an ``n`` or ``count`` column.

    Examples
    --------
    >>> frame = pd.DataFrame({"A": [0, 1], "Y": [1, 0], "n": [30, 70]})
    >>> table_kind(frame), table_kind(frame, counts=True)
    ('units', 'counts')
    >>> table_kind(pd.DataFrame({"race": ["a", "b"], "y": [1, 0]}))
    'units'
    """
    if counts and count_column(frame) is None:
        raise DataError("A table of cell counts needs a count column named 'n' or 'count'.")
    return reading_kind(frame, counts=count_column(frame) if counts else None)  # the one rule (core.reading)


def count_column(frame: pd.DataFrame) -> str | None:
    """The column that may hold cell counts (``n`` or ``count``), or None; the data page asks the user.

    Parameters
    ----------
    frame : DataFrame
        The uploaded table.

    Returns
    -------
    str or None

    Examples
    --------
    >>> count_column(pd.DataFrame({"A": [0], "count": [3]})), count_column(pd.DataFrame({"A": [0]}))
    ('count', None)
    """
    if "prob" in frame.columns:
        return None
    return next((c for c in COUNT_COLUMNS if c in frame.columns), None)


def kind_text(kind: str) -> str:
    """The words the data page uses for a table kind.

    Parameters
    ----------
    kind : {"units", "cells", "counts"}
        As :func:`table_kind` gives it.

    Returns
    -------
    str

    Examples
    --------
    >>> kind_text("counts")
    'cells with counts'
    """
    return {"cells": "cells with probabilities", "counts": "cells with counts"}.get(kind, "unit rows")


def build_table(frame: pd.DataFrame, kind: str, mapping: Mapping[str, str], *,
                pos_label: Mapping[str, Any] | None = None) -> fp.ObservedTable:
    """The observed table of ``frame`` with DAG nodes mapped to columns.

    Parameters
    ----------
    frame : DataFrame
        Unit rows, cells with a ``prob`` column, or cells with a count column (``n`` or ``count``).
    kind : {"units", "cells", "counts"}
        Which of the three.
    mapping : mapping of str to str
        DAG node -> column.
    pos_label : mapping of str to label, optional
        Node -> the label that means 1, chosen on the data page for labels that do not say it
        (``'Yes'``/``'No'``; see :func:`unclear_labels`).

    Returns
    -------
    ObservedTable

    Raises
    ------
    DataError, ConfigError
        An unknown ``kind``, a column mapped twice, a missing column, probabilities that do not sum to 1, ...

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> build_table(frame, kind, {"A": "A", "Y": "Y", "P": "P"}).nodes
    ['A', 'Y', 'P']
    >>> counts = pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "n": [30, 10, 20, 40]})
    >>> build_table(counts, "counts", {"A": "A", "P": "P"}).cells.prob.round(2).tolist()
    [0.3, 0.1, 0.2, 0.4]
    """
    if kind not in TABLE_KINDS:  # "Counts" or "counts " read as unit rows would silently ignore the counts
        raise ConfigError(f"Unknown table kind {kind!r}; use 'units', 'cells' or 'counts' (as table_kind gives it).")
    mapping = {k: v for k, v in mapping.items() if v}
    if not mapping:
        raise ConfigError("Map at least one DAG node to a column of the table.")
    if kind == "cells" and PROB_COLUMN not in frame.columns:
        raise DataError("A table of cells needs a 'prob' column with the probability of each cell.")
    if kind != "cells":  # the kind the page settled with the user decides; a 'prob' column is then unused
        frame = frame.drop(columns=[PROB_COLUMN], errors="ignore")
    counts = count_column(frame) if kind == "counts" else None
    if kind == "counts" and counts is None:
        raise DataError("A table of cell counts needs a count column named 'n' or 'count'.")
    # the one reader the command line uses too: the same file gives the same table in both
    return frame_to_table(frame, mapping, counts=counts, pos_label=pos_label or None)


def unclear_labels(table: fp.ObservedTable, config: fp.BiasConfig | None) -> dict[str, list[Any]]:
    """The nodes whose labels do not say which one means 1, among those the bias makes binary.

    The data page asks for their positive label (fairprobe does not guess it from the sorted
    order); the rule is :meth:`fairprobe.ObservedTable.unclear_labels`.

    Parameters
    ----------
    table : ObservedTable
    config : BiasConfig or None
        The workshop's bias; None (an invalid config) reads the label ``Y`` and the prediction ``P``.

    Returns
    -------
    dict of str to list
        Node -> its labels, in code order.

    Examples
    --------
    >>> rows = pd.DataFrame({"A": ["a", "b"], "Y": ["Yes", "No"], "P": [1, 0]})
    >>> unclear_labels(build_table(rows, "units", {"A": "A", "Y": "Y", "P": "P"}), None)
    {'Y': ['No', 'Yes']}
    """
    return table.unclear_labels(config if config is not None else ["Y", "P"])


def group_labels(table: fp.ObservedTable, node: str) -> list[Any]:
    """The groups of ``node`` by their labels (codes when the column had none).

    Parameters
    ----------
    table : ObservedTable
    node : str
        Usually the attribute node.

    Returns
    -------
    list
        Labels in code order.

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> group_labels(build_table(frame, kind, {"A": "A", "Y": "Y", "P": "P"}), "A")
    [0, 1]
    """
    cats = getattr(table, "categories", {}) or {}
    if node in cats:
        return list(cats[node])
    if node not in table.nodes:
        return []
    cells = getattr(table, "cells", None)
    if isinstance(cells, pd.DataFrame) and node in cells:
        return sorted(int(v) for v in pd.unique(cells[node]))
    return list(range(table.cardinality(node)))


#: How the Data page compares more than two groups: two chosen groups, or the API's multi-group forms.
GROUP_MODES: dict[str, str | None] = {"two groups": None, "all pairs (largest gap)": "all",
                                      "each group against the rest": "each_vs_rest"}


def make_metric(name: str, groups: tuple[Any, Any] | str | None = None) -> Any:
    """A registered metric comparing ``groups`` (or the metric's default groups).

    Parameters
    ----------
    name : str
        Registered metric name.
    groups : tuple or str, optional
        The two groups, by label, or ``"all"`` / ``"each_vs_rest"``. None leaves the choice to the
        metric's own rule, which refuses to pick two of more than two groups.

    Returns
    -------
    Metric

    Raises
    ------
    ConfigError
        No metric is registered under ``name`` (the message lists the registered names).

    Examples
    --------
    >>> make_metric("fpr_parity", ("b", "a")).groups
    ('b', 'a')
    """
    metrics = fp.get_registry().metrics
    if not isinstance(name, str) or name not in metrics:
        raise ConfigError(f"Unknown metric {name!r}; choose one of the registered metrics: {sorted(metrics)}.")
    cls = metrics[name]
    params = inspect.signature(cls.__init__).parameters
    if groups is None:
        return cls()
    if isinstance(groups, str):
        if getattr(cls, "compares_one_group", False):
            raise ConfigError(f"{name} is the rate of one group; choose two groups on the Data page (the first is "
                              "the group whose rate is bounded), not all pairs.")
        return cls(groups=groups) if "groups" in params else cls()
    if getattr(cls, "compares_one_group", False) and "group" in params:
        return cls(group=groups[0])
    if "groups" in params:
        return cls(groups=tuple(groups))
    return cls()


def d_grid(start: float, stop: float, n: int) -> list[float]:
    """``n`` evenly spaced sensitivity values from ``start`` to ``stop`` (rounded to 12 digits).

    Parameters
    ----------
    start, stop : float
        Ends of the range, in [0, 1].
    n : int
        Number of points (>= 1).

    Returns
    -------
    list of float

    Raises
    ------
    ConfigError
        Values outside [0, 1], ``stop < start`` or ``n < 1``.

    Examples
    --------
    >>> d_grid(0, 0.1, 5)
    [0.0, 0.025, 0.05, 0.075, 0.1]
    """
    if not (0.0 <= start <= 1.0 and 0.0 <= stop <= 1.0):
        raise ConfigError(f"The D range [{start}, {stop}] must lie in [0, 1].")
    if stop < start:
        raise ConfigError(f"The D range ends ({stop}) before it starts ({start}); swap them.")
    if int(n) < 1:
        raise ConfigError("Give at least one point.")
    return [round(float(v), 12) for v in np.linspace(start, stop, int(n))]


# -- sweeps --------------------------------------------------------------------------------------------
@dataclass
class SweepJob:
    """A sensitivity sweep solved one point at a time (for a progress bar and a cancel button).

    It runs the problem API that :func:`fairprobe.sensitivity` runs: compile once
    (:class:`~fairprobe.core.bound.BoundProblem`), take the grid from
    :meth:`~fairprobe.core.bound.BoundProblem.points`, solve each point with
    :meth:`~fairprobe.core.bound.BoundProblem.solve_point` and assemble the result with
    :meth:`fairprobe.SensitivityResult.from_points`; so its numbers, observed value and conclusion
    are those of ``fp.sensitivity``.

    Parameters
    ----------
    bias, metric, data
        As for :func:`fairprobe.sensitivity`.
    grid : list of float or dict of str to list of float
        The swept values (a dict of two lists for a 2-D sweep).
    parameter : str, optional
        The swept parameter of a 1-D sweep (default: the bias's only parameter).
    fixed : dict, optional
        Values of parameters not swept.
    backend : str
        Backend name.
    time_limit : float
        Seconds per solve (always set).
    ci : float, optional
        A sampling interval at this level at every point (as ``fp.sensitivity(..., ci=)``); each
        step then solves the point and its interval, so cancel stops between points.
    ci_method, resamples, seed : optional
        The interval's method, resamples and seed (see :func:`fairprobe.bound`).

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> job = SweepJob("proxy_label", "fpr", frame, [0.0, 0.05])
    >>> while not job.done:
    ...     _ = job.step()
    >>> [round(v, 4) for v in job.result().to_frame()["upper"]]
    [0.2309, 0.3433]
    """

    bias: Any
    metric: Any
    data: Any
    grid: Any
    parameter: str | None = None
    fixed: dict[str, float] = field(default_factory=dict)
    backend: str = "scip"
    time_limit: float = DEFAULT_TIME_LIMIT
    ci: float | None = None
    ci_method: str = "bootstrap"
    resamples: int = 200
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.time_limit or not (0 < float(self.time_limit) <= MAX_TIME_LIMIT):
            raise ConfigError(f"The time limit must lie in (0, {MAX_TIME_LIMIT:g}] seconds.")
        self.started = time.perf_counter()
        # the page keeps its resamples setting while the box is unticked: no interval then
        self.interval = interval_options(self.ci, ci_method=self.ci_method, resamples=self.resamples,
                                         seed=self.seed) if self.ci else None
        self.problem = BoundProblem(self.bias, self.metric, self.data, fixed=self.fixed)
        if self.interval is not None:
            self.problem.table.counts()  # a table without a sample size: the error names the fix
        grid = self.grid if isinstance(self.grid, Mapping) else list(self.grid)
        self.swept, self.points = self.problem.points(grid, parameter=self.parameter)
        self.outcomes: list[Any] = []
        self.first_point_time: float | None = None
        self.compile_time = time.perf_counter() - self.started
        self.solve_time = 0.0

    @property
    def solve_kwargs(self) -> dict[str, Any]:
        """Options of every solve (as :func:`fairprobe.sensitivity` passes them).

        Examples
        --------
        >>> frame, _ = load_bundled("paper")
        >>> SweepJob("proxy_label", "fpr", frame, [0.0], time_limit=5).solve_kwargs["time_limit"]
        5.0
        """
        return fp.RunOptions(backend=self.backend, time_limit=float(self.time_limit)).point_kwargs()

    @property
    def done(self) -> bool:
        """Whether every point is solved.

        Examples
        --------
        >>> frame, _ = load_bundled("paper")
        >>> job = SweepJob("proxy_label", "fpr", frame, [0.0])
        >>> job.done, (job.step(), job.done)[1]
        (False, True)
        """
        return len(self.outcomes) >= len(self.points)

    def step(self) -> Any:
        """Solve the next grid point; returns its outcome.

        Examples
        --------
        >>> frame, _ = load_bundled("paper")
        >>> out = SweepJob("proxy_label", "fpr", frame, [0.05]).step()
        >>> round(out.result.upper, 4)
        0.3433
        """
        pt = self.points[len(self.outcomes)]
        start = time.perf_counter()
        out = self.problem.solve_point(pt, **self.solve_kwargs)
        if self.interval is not None and out.result is not None:
            out.result.interval = sampling_interval(self.problem, out.params, out.result, self.interval, n_jobs=1,
                                                progress=False, solve_kwargs=self.solve_kwargs)
        self.solve_time += time.perf_counter() - start
        self.outcomes.append(out)
        if self.first_point_time is None:
            self.first_point_time = time.perf_counter() - self.started
        return out

    def partial_frame(self) -> pd.DataFrame:
        """The points solved so far, as :meth:`fairprobe.SensitivityResult.to_frame` gives them.

        Examples
        --------
        >>> frame, _ = load_bundled("paper")
        >>> job = SweepJob("proxy_label", "fpr", frame, [0.0, 0.05])
        >>> _ = job.step()
        >>> job.partial_frame()["D"].tolist()
        [0.0]
        """
        return fp.SensitivityResult.from_points(self.problem, self.bias, self.swept, self.outcomes, None).to_frame()

    def result(self) -> fp.SensitivityResult:
        """The sweep's result over the points solved (all of them unless cancelled).

        Examples
        --------
        >>> frame, _ = load_bundled("paper")
        >>> job = SweepJob("proxy_label", "fpr", frame, [0.0, 0.05])
        >>> _ = job.step()  # cancelled after one point
        >>> len(job.result().to_frame())
        1
        """
        if self.outcomes and all(o.status == "undefined" for o in self.outcomes):
            raise UndefinedMetricError(self.outcomes[0].error or "The metric is undefined.")
        observed = self.problem.observed(self.outcomes, **self.solve_kwargs)
        return fp.SensitivityResult.from_points(self.problem, self.bias, self.swept, self.outcomes, observed,
                                                time.perf_counter() - self.started)


def results_frame(result: fp.SensitivityResult, digits: int = 8) -> pd.DataFrame:
    """The sweep's table with numbers as text of ``digits`` decimals (what the page shows).

    Parameters
    ----------
    result : SensitivityResult
    digits : int
        Decimals shown.

    Returns
    -------
    DataFrame
        Parameters, lower, upper, achieved bounds and status; numbers formatted.

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr", frame, D=[0.0], progress=False)
    >>> results_frame(res, 4)["upper"].tolist()
    ['0.2309']
    """
    frame = result.to_frame()
    cols = [*result.parameters, "lower", "upper", "lower_achieved", "upper_achieved", "status"]
    out = frame[cols].copy()
    for c in cols[:-1]:
        out[c] = [("nan" if pd.isna(v) else f"{float(v):.{digits}f}") for v in out[c]]
    return out


def conclusion(result: fp.SensitivityResult, breakdown_value: float | None = None) -> str:
    """The sweep's own conclusion (:meth:`fairprobe.SensitivityResult.conclusion`), as the page prints it.

    Parameters
    ----------
    result : SensitivityResult
        A sweep.
    breakdown_value : float, optional
        The breakdown point (:func:`fairprobe.breakdown`), when computed.

    Returns
    -------
    str

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr_parity", frame, D=[0.0, 0.01, 0.05], progress=False)
    >>> conclusion(res) == res.conclusion().text
    True
    """
    return result.conclusion(breakdown_value).text


def zip_folder(folder: str | Path) -> bytes:
    """The files under ``folder`` as a zip archive in memory (paths relative to ``folder``).

    Parameters
    ----------
    folder : path

    Returns
    -------
    bytes

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "index.html").write_text("<html></html>")
    ...     data = zip_folder(tmp)
    >>> zipfile.ZipFile(io.BytesIO(data)).namelist()
    ['index.html']
    """
    folder = Path(folder)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(folder).as_posix())
    return buf.getvalue()


def sweep_report_zip(results: fp.SensitivityResult | Sequence[fp.SensitivityResult], *,
                     breakdowns: Mapping[str, Any] | None = None, config: fp.BiasConfig | None = None,
                     title: str = "fairprobe app: sensitivity analysis") -> bytes:
    """The HTML report folder of sweeps (:class:`fairprobe.reporting.report.Report`), zipped in memory.

    Parameters
    ----------
    results : SensitivityResult or list of them
        One section each.
    breakdowns : mapping of str to BreakdownResult, optional
        Breakdown points by metric label.
    config : BiasConfig, optional
        The edited bias, listed in the report.
    title : str
        Title of the page.

    Returns
    -------
    bytes
        A zip with ``index.html``, ``figures/``, ``tables/`` and ``report.json``.

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr", frame, D=[0.0, 0.05], progress=False)
    >>> "index.html" in zipfile.ZipFile(io.BytesIO(sweep_report_zip(res))).namelist()
    True
    """
    import matplotlib.pyplot as plt

    from fairprobe.reporting.report import Report

    results = [results] if isinstance(results, fp.SensitivityResult) else list(results)
    breakdowns = dict(breakdowns or {})
    report = Report(title, command="fairprobe app")
    report.summary = "\n\n".join(r.summary() for r in results)
    for result in results:
        bp = breakdowns.get(result.metric)
        sec = report.section(f"{result.metric} under {result.bias}")
        sec.add_parameters({"metric": result.metric, "bias": result.bias,
                            "parameters": ", ".join(result.parameters), **dict(result.fixed)})
        sec.add_note(result.summary())
        if len(result.parameters) == 1:
            sec.add_note(conclusion(result, None if bp is None else bp.value))
            sec.add_figure("sweep", result.plot().figure)
        else:
            sec.add_figure("heatmap", result.plot_heatmap().figure)
        sec.add_table("results", result.to_frame())
        if bp is not None:
            sec.add_note(bp.summary())
        plt.close("all")
    if config is not None:
        report.section("bias config").add_note(config.to_json())
    with tempfile.TemporaryDirectory(prefix="fairprobe-app-") as tmp:
        report.write(Path(tmp) / "report")
        return zip_folder(Path(tmp) / "report")


def analysis_report_zip(analysis: Any) -> bytes:
    """A fitted analysis's report folder (``to_report``), zipped in memory.

    Parameters
    ----------
    analysis : Analysis
        A fitted analysis.

    Returns
    -------
    bytes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> data = analysis_report_zip(FairTree.example().fit())
    >>> "index.html" in zipfile.ZipFile(io.BytesIO(data)).namelist()
    True
    >>> plt.close("all")
    """
    with tempfile.TemporaryDirectory(prefix="fairprobe-app-") as tmp:
        analysis.to_report(Path(tmp) / "report")
        return zip_folder(Path(tmp) / "report")


# -- analyses ------------------------------------------------------------------------------------------
def role_kinds(cls: type) -> dict[str, str]:
    """The ``fit`` roles an analysis uses and how: ``"column"``, ``"columns"`` or ``"array"``.

    Read from the class's :meth:`~fairprobe.plugins.base.Analysis.example`: a role given there as a
    column name takes a column name, a list of names takes several, anything else takes the
    column's values.

    Parameters
    ----------
    cls : type
        A registered analysis class.

    Returns
    -------
    dict of str to str

    Examples
    --------
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> role_kinds(FairTree)
    {'y_true': 'column', 'y_pred': 'column'}
    """
    kinds = {}
    for role, value in cls.example().roles.items():
        if isinstance(value, str):
            kinds[role] = "column"
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            kinds[role] = "columns"
        else:
            kinds[role] = "array"
    return kinds


def missing_roles(kinds: Mapping[str, str], roles: Mapping[str, Any]) -> list[str]:
    """The roles of ``fit`` left without a column (what the page asks for before fitting).

    Parameters
    ----------
    kinds : mapping
        :func:`role_kinds` of the analysis (the roles its example is fitted with).
    roles : mapping
        Role -> chosen column(s), None or empty when left at "(none)".

    Returns
    -------
    list of str

    Examples
    --------
    >>> missing_roles({"y_true": "column", "y_pred": "column"}, {"y_true": "y", "y_pred": None})
    ['y_pred']
    """
    return [role for role in kinds if not roles.get(role)]


def fit_arguments(frame: pd.DataFrame, kinds: Mapping[str, str], roles: Mapping[str, Any],
                  features: Sequence[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The data and keyword arguments of ``fit`` for columns chosen by role.

    Parameters
    ----------
    frame : DataFrame
        The uploaded table.
    kinds : mapping
        :func:`role_kinds` of the analysis.
    roles : mapping
        Role -> chosen column (or list of columns).
    features : sequence of str
        Feature columns (the data ``fit`` takes first).

    Returns
    -------
    data : DataFrame
    kwargs : dict

    Examples
    --------
    >>> df = pd.DataFrame({"x": [1, 2], "y": [0, 1], "g": ["a", "b"]})
    >>> data, kw = fit_arguments(df, {"y_true": "array"}, {"y_true": "y"}, ["x"])
    >>> list(data.columns), kw["y_true"].tolist()
    (['x'], [0, 1])
    """
    kwargs: dict[str, Any] = {}
    named: list[str] = []
    for role, kind in kinds.items():
        chosen = roles.get(role)
        if not chosen:
            continue
        if kind == "column":
            kwargs[role] = chosen
            named.append(chosen)
        elif kind == "columns":
            kwargs[role] = list(chosen)
            named.extend(chosen)
        else:
            kwargs[role] = frame[chosen].to_numpy() if isinstance(chosen, str) else frame[list(chosen)]
    cols = list(dict.fromkeys([*features, *named]))
    return frame[cols].copy(), kwargs


def streamlit_command(*, host: str = "127.0.0.1", port: int = 8501, max_upload_mb: int = 50,
                      script: str | Path | None = None) -> list[str]:
    """The command that serves the app: ``python -m streamlit run <script> --server...``.

    Parameters
    ----------
    host : str
        Address to bind.
    port : int
        Port.
    max_upload_mb : int
        Upload size limit (``--server.maxUploadSize``).
    script : path, optional
        The Streamlit script (default :data:`fairprobe.app.SCRIPT`).

    Returns
    -------
    list of str

    Examples
    --------
    >>> cmd = streamlit_command(port=8600)
    >>> cmd[1:4], cmd[cmd.index("--server.port") + 1], cmd[cmd.index("--server.address") + 1]
    (['-m', 'streamlit', 'run'], '8600', '127.0.0.1')
    """
    from fairprobe.app import SCRIPT

    return [sys.executable, "-m", "streamlit", "run", str(script or SCRIPT),
            "--server.address", str(host), "--server.port", str(int(port)), "--server.headless", "true",
            "--server.maxUploadSize", str(int(max_upload_mb)), "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--global.developmentMode", "false", "--client.toolbarMode", "minimal"]


def results_json(result: fp.SensitivityResult) -> str:
    """The sweep as JSON text (:meth:`fairprobe.SensitivityResult.to_json`).

    Parameters
    ----------
    result : SensitivityResult

    Returns
    -------
    str

    Examples
    --------
    >>> frame, kind = load_bundled("paper")
    >>> res = fp.sensitivity("proxy_label", "fpr", frame, D=[0.0], progress=False)
    >>> import json
    >>> json.loads(results_json(res))["metric"]
    'fpr (A = 0)'
    """
    return result.to_json()

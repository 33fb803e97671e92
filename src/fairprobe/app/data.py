"""The data page's logic, without Streamlit: uploads, bundled data, the table kind, the observed table.

Tables are read by the one reader the command line uses (:mod:`fairprobe.core.reading`), so the same
file gives the same table in both.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

import fairprobe as fp
from fairprobe.core.reading import COUNT_NAMES, PROB_COLUMN, TABLE_KINDS, frame_to_table
from fairprobe.core.reading import table_kind as reading_kind
from fairprobe.exceptions import ConfigError, DataError

__all__ = ["BUNDLED_DATA", "COUNT_COLUMNS", "ENCODINGS", "MAX_UPLOAD_BYTES", "UPLOAD_SUFFIXES", "build_table",
           "count_column", "group_labels", "kind_text", "load_bundled", "read_upload", "table_kind", "unclear_labels"]

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

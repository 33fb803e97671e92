"""The web app's logic, without Streamlit: config editing, DAG drawing, data, sweeps, reports.

Everything here goes through fairprobe's public API (``fp.BiasConfig``, ``fp.SensitivityResult``,
``fp.breakdown``, the plugin registry, :mod:`fairprobe.datasets`) and the few engine entry points a
front end needs (:class:`~fairprobe.core.bound.BoundProblem`, the constraint parser, the table reader), and
keeps no state between calls: the pages hold each user's objects in ``st.session_state``.
Nothing a user types is evaluated as code; constraints go through
:func:`fairprobe.core.query.parse_constraint`.

The logic lives in one module per page: the bias workshop in :mod:`fairprobe.app.fields`, the data
page in :mod:`fairprobe.app.data`, sweeps and reports in :mod:`fairprobe.app.sweeps`; this module
holds the analyses' roles and the server command, and names all of it in one place.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.app.data import (
    BUNDLED_DATA,
    COUNT_COLUMNS,
    ENCODINGS,
    MAX_UPLOAD_BYTES,
    UPLOAD_SUFFIXES,
    build_table,
    count_column,
    group_labels,
    kind_text,
    load_bundled,
    read_upload,
    table_kind,
    unclear_labels,
)
from fairprobe.app.fields import (
    FIELDS,
    ConstraintIssue,
    config_dict_from_fields,
    config_from_fields,
    constraint_issues,
    dag_dot,
    fields_from_config,
    format_mapping,
    parse_mapping,
    split_lines,
    split_names,
)
from fairprobe.app.sweeps import (
    DEFAULT_TIME_LIMIT,
    GROUP_MODES,
    MAX_TIME_LIMIT,
    SweepJob,
    analysis_report_zip,
    conclusion,
    d_grid,
    make_metric,
    results_frame,
    results_json,
    sweep_report_zip,
    zip_folder,
)

__all__ = [
    "BUNDLED_DATA",
    "COUNT_COLUMNS",
    "DEFAULT_TIME_LIMIT",
    "ENCODINGS",
    "FIELDS",
    "GROUP_MODES",
    "MAX_TIME_LIMIT",
    "MAX_UPLOAD_BYTES",
    "UPLOAD_SUFFIXES",
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

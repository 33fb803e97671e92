"""Label coding: how the values of a node column become integer codes, and which label means 1.

The rules every table path shares (:class:`~fairprobe.core.table.ObservedTable`, the command line
and the app): booleans, 0/1 texts and numbers that are codes already keep their values, other
labels are coded in sorted order (:func:`code_column`); ``pos_label`` names the label coded 1
where the labels do not say it by themselves (:func:`is_binary_coding`, :func:`apply_pos_label`).
"""

from __future__ import annotations

import numbers
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import DataError

__all__ = ["apply_pos_label", "cells_with_pos_label", "check_near_duplicates", "code_column", "is_binary_coding",
           "plain_value"]


def _kind(value: Any) -> str:
    """Type class of a label, for refusing mixed columns: bool, number, text or the type's name."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    if isinstance(value, str):
        return "text"
    return type(value).__name__


def plain_value(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (labels are shown and compared as such); others unchanged.

    Parameters
    ----------
    value : object
        A label or number.

    Returns
    -------
    object

    Examples
    --------
    >>> plain_value(np.int64(3)), plain_value("a")
    (3, 'a')
    """
    return value.item() if isinstance(value, np.generic) else value


def is_binary_coding(labels: Sequence[Any]) -> bool:
    """Whether labels coded 0, 1 (in this order) say which one means 1 by themselves.

    0/1 numbers, ``False``/``True``, ``'0'``/``'1'`` and ``'false'``/``'true'`` do; other labels
    (``'bad'``/``'good'``, ``1``/``2``, ``-1``/``1``) are only sorted and need ``pos_label=``.

    Parameters
    ----------
    labels : sequence
        A column's labels in code order (:attr:`ObservedTable.categories`).

    Returns
    -------
    bool

    Examples
    --------
    >>> is_binary_coding([0, 1]), is_binary_coding(["0", "1"]), is_binary_coding([False, True])
    (True, True, True)
    >>> is_binary_coding(["bad", "good"]), is_binary_coding([1, 2]), is_binary_coding([-1, 1])
    (False, False, False)
    """
    words = ({"0", "false"}, {"1", "true"})
    for code, label in enumerate(labels):
        if code > 1:
            return False
        if isinstance(label, (bool, np.bool_, numbers.Number)):
            try:
                if float(label) != code:  # type: ignore[arg-type]
                    return False
            except (TypeError, ValueError):
                return False
        elif str(label).strip().lower() not in words[code]:
            return False
    return True


def _shown(label: Any) -> str:
    """A label as the user can tell it apart: ``'é' ('\\xe9')`` when its repr hides the code points."""
    text, code = repr(label), ascii(label)
    return text if text == code else f"{text} ({code})"


def _named(column: Any, node: str) -> str:
    """``'race' (node A)``, or ``'A'`` when the column is the node."""
    return f"{column!r}" if column == node else f"{column!r} (node {node})"


def _same_text(label: str) -> str:
    """A text label as a reader sees it: Unicode in NFC form, runs of white space as one space, no ends."""
    return " ".join(unicodedata.normalize("NFC", label).split())


def check_near_duplicates(node: str, column: Any, labels: Sequence[Any]) -> None:
    """Refuse text labels that differ only by white space or Unicode form ('a' and 'a ', NFC and NFD 'é').

    Parameters
    ----------
    node : str
        The node the column is read as (named in the error).
    column : column name
        The user's column (named in the error).
    labels : sequence
        The column's labels.

    Raises
    ------
    DataError
        Two such labels: they would be separate groups, and merging them would change the data.
    """
    seen: dict[str, str] = {}
    for label in labels:
        if not isinstance(label, str):
            continue
        key = _same_text(label)
        first = seen.setdefault(key, label)
        if first != label:
            raise DataError(
                f"Column {_named(column, node)} holds labels that differ only by spaces or Unicode form: "
                f"{_shown(first)} and {_shown(label)}; they would be counted as two groups. Clean the column first "
                f"(fix the file, or in pandas: df[{column!r}] = df[{column!r}].str.normalize('NFC')"
                ".str.replace(r'\\s+', ' ', regex=True).str.strip()), or recode the labels if they really differ.")


def _same_label(label: Any, pos: Any) -> bool:
    """Whether a column's label is the positive label given (text typed on a command line matches numbers)."""
    label, pos = plain_value(label), plain_value(pos)
    kinds = {_kind(label), _kind(pos)}
    if len(kinds) == 1 or kinds == {"bool", "number"}:
        return bool(label == pos)
    if isinstance(pos, str) and _kind(label) == "bool":
        return pos.strip().lower() == str(label).lower()
    if isinstance(pos, str) and _kind(label) == "number":
        try:
            return float(pos.strip()) == float(label)
        except ValueError:
            return False
    return False


def _pos_label_codes(node: str, column: Any, codes: pd.Series, labels: list[Any], pos: Any,
                     by_name: bool) -> tuple[pd.Series, list[Any], Any]:
    """Codes 1 for ``pos`` and 0 for the other label of a column already coded in sorted order."""
    hits = [k for k, v in enumerate(labels) if _same_label(v, pos)]
    if len(labels) > 2:
        raise DataError(
            f"pos_label={plain_value(pos)!r}: column {_named(column, node)} holds {len(labels)} labels "
            f"{[plain_value(v) for v in labels][:8]}, and pos_label codes a two-valued column (1 = the label named, "
            f"0 = the other). Merge the other labels first, e.g. df[{column!r}] = (df[{column!r}] == "
            f"{plain_value(pos)!r}).astype(int), or leave this node out of pos_label.")
    if not hits:
        # the labels the column holds: a column of only 1s is coded [0, 1], but holds one label
        held = [labels[int(c)] for c in sorted(set(codes.tolist()))] or labels[:1]
        if len(held) == 2 or not by_name:
            raise DataError(
                f"pos_label names {plain_value(pos)!r} for column {_named(column, node)}, which holds the labels "
                f"{[plain_value(v) for v in held]}; give one of them (labels are compared exactly: case and spaces "
                "count).")
        return pd.Series(0, index=codes.index), [held[0], plain_value(pos)], plain_value(pos)  # only the other label
    chosen = labels[hits[0]]
    if len(labels) == 1:  # only the positive label occurs
        return pd.Series(1, index=codes.index), [f"not {chosen}", chosen], chosen
    return (codes == hits[0]).astype(int), [labels[1 - hits[0]], chosen], chosen


def apply_pos_label(data: pd.DataFrame, columns: Mapping[str, Any], pos_label: Any,
                     ) -> tuple[dict[str, tuple[pd.Series, list[Any]]], dict[str, Any]]:
    """The node columns of ``data`` coded with ``pos_label``, and the positive label chosen per node.

    Parameters
    ----------
    data : pandas.DataFrame
        One column per node, without missing values.
    columns : mapping of str to column name
        ``node -> the user's column`` (named in errors).
    pos_label : label, dict or None
        One label, applied to every column that holds it and whose labels do not say which one means
        1 (:func:`is_binary_coding`), or a dict of labels by node (which may also reverse a 0/1 column).

    Returns
    -------
    coded : dict
        The codings computed, ``node -> (codes, labels)`` (the nodes ``pos_label`` does not apply
        to keep their sorted coding).
    positive : dict
        ``node -> positive label``.

    Raises
    ------
    DataError
        A label no column holds, a node that is not a column, or a column of more than two labels.

    Examples
    --------
    >>> coded, positive = apply_pos_label(pd.DataFrame({"Y": ["good", "bad"]}), {"Y": "Y"}, "bad")
    >>> coded["Y"][0].tolist(), coded["Y"][1], positive
    ([0, 1], ['good', 'bad'], {'Y': 'bad'})
    """
    if pos_label is None:
        return {}, {}
    coded: dict[str, tuple[pd.Series, list[Any]]] = {}
    positive: dict[str, Any] = {}
    if isinstance(pos_label, Mapping):
        unknown = [k for k in pos_label if k not in data.columns]
        if unknown:
            raise DataError(f"pos_label names the node {unknown[0]!r}, which is not a node of the table "
                            f"{list(data.columns)}; name nodes, e.g. pos_label={{'Y': 'good'}}.")
        for node, pos in pos_label.items():
            codes, labels = code_column(node, columns[node], data[node])
            codes, labels, positive[node] = _pos_label_codes(node, columns[node], codes, labels, pos, True)
            coded[node] = (codes, labels)
        return coded, positive
    if not isinstance(pos_label, (str, bool, numbers.Number, np.generic)):
        raise DataError(f"pos_label = {pos_label!r} must be one label (pos_label='good') or a dict of labels by node "
                        "(pos_label={'Y': 'good', 'P': 'hire'}).")
    unclear: list[str] = []
    for node in data.columns:
        codes, labels = code_column(node, columns[node], data[node])
        coded[node] = (codes, labels)
        if is_binary_coding(labels):
            continue
        if any(_same_label(v, pos_label) for v in labels):
            coded[node] = _pos_label_codes(node, columns[node], codes, labels, pos_label, False)[:2]
            positive[node] = coded[node][1][1]
        else:
            unclear.append(f"{_named(columns[node], node)}: {[plain_value(v) for v in labels][:8]}")
    if not positive:
        seen = "; ".join(unclear) if unclear else "none: every column is coded 0/1"
        raise DataError(
            f"pos_label={plain_value(pos_label)!r} is not a label of any column whose labels leave open which one "
            f"means 1 (those columns and their labels: {seen}). Give one of those labels (exactly: case and spaces "
            "count), or name the label per node, e.g. pos_label={'Y': 0} to make 0 the positive label of a 0/1 column.")
    return coded, positive


def _text_binary_labels(labels: Sequence[Any]) -> list[str] | None:
    """The labels of a '0'/'1' or 'false'/'true' coding in code order, the missing one filled in ('TRUE' alone:
    ``['FALSE', 'TRUE']``); None for other labels."""
    if not labels or not all(isinstance(v, str) for v in labels):
        return None
    words = [v.strip().lower() for v in labels]
    for pair in (("0", "1"), ("false", "true")):
        if set(words) <= set(pair) and len(set(words)) == len(words):
            out: list[Any] = [None, None]
            for label, word in zip(labels, words, strict=True):
                out[pair.index(word)] = label
            shown = next(v.strip() for v in out if v is not None)
            for code in (0, 1):
                if out[code] is None:
                    word = pair[code]
                    out[code] = word.upper() if shown.isupper() else word.title() if shown.istitle() else word
            return out
    return None


def code_column(node: str, column: Any, values: pd.Series) -> tuple[pd.Series, list[Any]]:
    """Integer codes and the labels they stand for (index = code).

    Numbers that are codes already (0/1, or exactly 0..k-1), booleans and the texts of a 0/1
    coding keep their values (a column of only 1s stays 1); other labels are coded in sorted order.

    Parameters
    ----------
    node : str
        The node the column is read as (named in errors).
    column : column name
        The user's column (named in errors).
    values : pandas.Series
        The column's values, without missing values.

    Returns
    -------
    codes : pandas.Series
        Integer codes, aligned with ``values``.
    labels : list
        The label of each code (index = code).

    Raises
    ------
    DataError
        A column mixing value types, holding a non-finite number, or text labels that differ only
        by spaces or Unicode form.

    Examples
    --------
    >>> codes, labels = code_column("A", "race", pd.Series(["b", "a", "b"]))
    >>> codes.tolist(), labels
    ([1, 0, 1], ['a', 'b'])
    >>> code_column("Y", "Y", pd.Series([1, 1]))[1]
    [0, 1]
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        # unused categories (left over from filtering) are not groups of the data; the rest keep their order
        values = values.cat.remove_unused_categories()
        cats = [plain_value(v) for v in values.cat.categories]
        if cats and len({_kind(v) for v in cats}) == 1 and _kind(cats[0]) not in ("bool", "number") \
                and _text_binary_labels(cats) is None:
            check_near_duplicates(node, column, cats)
            return pd.Series(values.cat.codes.to_numpy(dtype=int), index=values.index), cats
        values = values.astype(object)
    labels = [plain_value(v) for v in pd.unique(values)]
    kept = _kept_codes(node, column, values, labels, _one_kind(node, column, labels))
    if kept is not None:
        return kept
    try:
        labels = sorted(labels)
    except TypeError:
        labels = sorted(labels, key=str)
    lookup = {v: k for k, v in enumerate(labels)}
    return values.map(lambda v: lookup[plain_value(v)]).astype(int), labels


def _one_kind(node: str, column: Any, labels: list[Any]) -> str:
    """The one type class of a column's labels (:func:`_kind`), or a DataError for a column that mixes them."""
    kinds = sorted({_kind(v) for v in labels})
    if len(kinds) > 1:
        examples = {}
        for v in labels:
            examples.setdefault(_kind(v), v)
        shown = ", ".join(f"{examples[k]!r} ({k})" for k in kinds)
        raise DataError(
            f"Column {column!r} (node {node}) mixes value types: {shown}; fairprobe will not guess which labels "
            f"are the same. Convert it to one type first, e.g. df[{column!r}] = df[{column!r}].astype(str), or "
            "recode it to integers.")
    return kinds[0]


def _kept_codes(node: str, column: Any, values: pd.Series, labels: list[Any],
                kind: str) -> tuple[pd.Series, list[Any]] | None:
    """The coding of a column whose values keep their meaning (booleans, 0/1 texts, codes), else None."""
    if kind == "bool":
        return values.astype(bool).astype(int), [False, True]
    if kind == "text":
        check_near_duplicates(node, column, labels)
        binary = _text_binary_labels(labels)
        if binary is not None:  # the text of 0/1 codes (a column of only "1"s or "true"s stays 1)
            lookup = {label: code for code, label in enumerate(binary)}
            return values.map(lambda v: lookup[plain_value(v)]).astype(int), binary
    if kind == "number":
        return _number_codes(node, column, values, labels)
    return None


def _number_codes(node: str, column: Any, values: pd.Series, labels: list[Any]) -> tuple[pd.Series, list[Any]] | None:
    """A column of numbers that are codes already (0/1, or exactly 0..k-1) as codes, else None (labels)."""
    finite = all(np.isfinite(float(v)) for v in labels)
    if not finite:  # 1e400 in a CSV reads as inf: a broken value, not a group
        bad = next(v for v in labels if not np.isfinite(float(v)))
        raise DataError(f"Column {column!r} (node {node}) holds the value {bad!r}, which is not a finite number "
                        "(a value beyond the float range, e.g. 1e400, reads as inf); fix or drop those rows.")
    integral = all(float(v).is_integer() and v >= 0 for v in labels)
    top = int(max(labels)) if integral else -1
    # distinct integers >= 0 are exactly 0..top when there are top + 1 of them
    if integral and (top <= 1 or len({int(v) for v in labels}) == top + 1):
        return values.astype(float).astype(int), list(range(top + 1)) if top >= 1 else [0, 1]
    return None


def cells_with_pos_label(df: pd.DataFrame, weight: str, pos_label: Any,
                         ) -> tuple[pd.DataFrame, dict[str, list[Any]], dict[str, Any]]:
    """A frame of cells with the node columns ``pos_label`` applies to coded, their labels and positives.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per cell: node columns and a count or probability column.
    weight : str
        The count or probability column (not a node).
    pos_label : label, dict or None
        As in :func:`apply_pos_label`.

    Returns
    -------
    cells : pandas.DataFrame
        ``df`` with the columns ``pos_label`` applies to coded (``df`` itself when it is None).
    categories : dict
        ``node -> labels`` of those columns.
    positive : dict
        ``node -> positive label``.

    Examples
    --------
    >>> cells, categories, positive = cells_with_pos_label(
    ...     pd.DataFrame({"Y": ["good", "bad"], "n": [3, 1]}), "n", "good")
    >>> cells["Y"].tolist(), categories, positive
    ([1, 0], {'Y': ['bad', 'good']}, {'Y': 'good'})
    """
    if pos_label is None:
        return df, {}, {}
    nodes = [c for c in df.columns if c != weight]
    holes = [c for c in nodes if df[c].isna().any()]
    if holes:
        raise DataError(f"Missing values in node column(s) {holes}; each cell needs a value for "
                        f"every node: fill or drop those rows first (df.dropna(subset={holes!r})).")
    done, positive = apply_pos_label(df[nodes], {c: c for c in nodes}, pos_label)
    df = df.copy()
    categories = {}
    for node in positive:
        df[node], categories[node] = done[node]
    return df, categories, positive

"""The data sets of a study: model inputs, a binary label and a two-group attribute.

The bundled data sets use the roles of the causal-sensitivity paper's experiments:

========================  =============================  ===============================  ======
name                      label (1)                      groups (first minus second)      rows
========================  =============================  ===============================  ======
``compas``                two-year recidivism            African-American, Caucasian      5,278
``adult``                 income above 50K               Female, Male                     30,162
``german``                good credit                    age <= 25, age > 25              1,000
``compas_binary``         recidivism within two years    Female, Male                     6,907
========================  =============================  ===============================  ======

The attribute is not a model input (the reductions take it separately). A file of your own
(:class:`~fairprobe.studies.spec.DatasetSpec` with ``path``) is read the same way; categorical
features are one-hot encoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.studies.spec import DatasetSpec

__all__ = ["StudyData", "load_study_data"]


@dataclass
class StudyData:
    """Model inputs, a 0/1 label and the group of every row.

    Parameters
    ----------
    name : str
        The data set's name.
    X : pandas.DataFrame
        Numeric model inputs (categorical columns one-hot encoded).
    y : numpy.ndarray
        The label, 1 for the favourable or positive class.
    group : numpy.ndarray
        The attribute value (a label) of every row, one of ``groups``.
    groups : tuple of str
        The two groups compared (the metric is the first's rate minus the second's).
    note : str
        What was dropped on the way (rows with missing values), for the model table.
    """

    name: str
    X: pd.DataFrame
    y: np.ndarray
    group: np.ndarray
    groups: tuple[str, str]
    note: str = ""


def _encoded(frame: pd.DataFrame) -> pd.DataFrame:
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c]) or frame[c].dtype == bool]
    out = pd.get_dummies(frame, columns=text, drop_first=True, dtype=float) if text else frame
    return out.astype(float)


def _builtin(name: str) -> StudyData:
    from fairprobe import datasets

    if name == "compas":
        df = datasets.load_compas(races=("African-American", "Caucasian")).frame
        X = pd.DataFrame({"age": df.age, "priors": df.priors_count, "juv_fel": df.juv_fel_count,
                          "juv_misd": df.juv_misd_count, "juv_other": df.juv_other_count,
                          "felony": (df.c_charge_degree == "F").astype(float),
                          "male": (df.sex == "Male").astype(float)}).astype(float)
        return StudyData(name, X, df.two_year_recid.to_numpy().astype(int), df.race.astype(str).to_numpy(),
                         ("African-American", "Caucasian"))
    if name == "adult":
        df = datasets.load_adult().frame
        X = _encoded(df[["age", "education_num", "capital_gain", "capital_loss", "hours_per_week",
                         "marital_status", "occupation", "workclass"]])
        return StudyData(name, X, df.income.to_numpy().astype(int), df.sex.astype(str).to_numpy(), ("Female", "Male"))
    if name == "german":
        df = datasets.load_german().frame
        X = _encoded(df.drop(columns=["sex", "age_group", "good_credit", "age"]))
        group = np.where(df.age <= 25, "age <= 25", "age > 25")
        return StudyData(name, X, df.good_credit.to_numpy().astype(int), group, ("age <= 25", "age > 25"))
    if name == "compas_binary":
        ds = datasets.load_compas_binary()
        df = ds.frame
        label = "recidivate-within-two-years:1"
        X = df.drop(columns=[label, "sex:Female"]).astype(float)
        group = np.where(df["sex:Female"] == 1, "Female", "Male")
        return StudyData(name, X, df[label].to_numpy().astype(int), group, ("Female", "Male"))
    raise ConfigError(f"{name!r} is not a bundled data set.")  # the spec check rules this out


def _read(path: Path, name: str, **csv: Any) -> pd.DataFrame:
    """A data file's rows; an empty file, or one with a header only, is named as such."""
    try:
        df = pd.read_parquet(path) if path.suffix.lower() in (".parquet", ".pq") else pd.read_csv(path, **csv)
    except ImportError:
        raise ConfigError(f"{path.name}: reading Parquet needs pyarrow (pip install pyarrow), or give a CSV.") from None
    except pd.errors.EmptyDataError:
        raise DataError(f"data set {name!r}: {path} is empty (no header, no rows); give the file with its "
                        "rows.") from None
    if not len(df):
        raise DataError(f"data set {name!r}: {path.name} has no rows (only the header {list(df.columns)[:20]}); "
                        f"give the file with its rows ({path}).")
    return df


def _from_recipe(spec: DatasetSpec) -> StudyData:
    """A downloaded copy of a data set of the paper's list, with the roles used here.

    * ``bank_marketing`` (UCI ``bank-full.csv``, ``;``-separated): label ``y == "yes"`` (subscribed);
      groups marital status ``married`` vs ``single`` (``divorced`` rows dropped); ``duration`` is
      left out (it is only known after the call, UCI's own advice for realistic models).
    * ``student_performance`` (UCI ``student-mat.csv`` or ``student-por.csv``, ``;``-separated):
      label final grade ``G3 >= 10`` (pass); groups ``sex`` F vs M; the period grades ``G1``, ``G2``
      are left out (they nearly are the label).
    """
    path = Path(str(spec.path))
    df = _read(path, spec.name, sep=";")
    if spec.name == "bank_marketing":
        need, label, attribute, groups, drop = ["y", "marital"], "y", "marital", ("married", "single"), ["duration"]
    else:
        need, label, attribute, groups, drop = ["G3", "sex"], "G3", "sex", ("F", "M"), ["G1", "G2"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise DataError(f"data set {spec.name!r}: {path.name} has no column(s) {missing}; is it the UCI file "
                        f"(';'-separated)? Its columns: {list(df.columns)[:20]}.")
    df = df[df[attribute].isin(groups)].reset_index(drop=True)
    y = (df[label] == "yes") if spec.name == "bank_marketing" else (pd.to_numeric(df[label]) >= 10)
    X = _encoded(df.drop(columns=[label, attribute, *[c for c in drop if c in df.columns]]))
    return StudyData(spec.name, X, y.to_numpy().astype(int), df[attribute].astype(str).to_numpy(), groups)


def _from_file(spec: DatasetSpec) -> StudyData:
    path = Path(str(spec.path))
    df = _read(path, spec.name)
    missing = [c for c in (spec.label, spec.attribute, *(spec.features or ())) if c not in df.columns]
    if missing:
        raise DataError(f"data set {spec.name!r}: columns {missing} are not in {path.name} (columns: "
                        f"{list(df.columns)[:20]}).")
    labels, member = _file_groups(spec, df)
    features = _file_features(spec, df)
    group = np.select(member, labels, default="")
    frame = df.assign(_group=group)[group != ""][[*features, spec.label, "_group"]]
    complete = frame.dropna()
    if len(complete) < 50:
        raise DataError(f"data set {spec.name!r}: {len(complete)} complete rows in the two groups; a study needs at "
                        "least 50 (check groups and missing values).")
    empty = [g for g in labels if not (complete._group == g).any()]
    if empty:
        raise DataError(f"data set {spec.name!r}: group(s) {empty} have no row without missing values.")
    y = _file_labels(spec, complete[spec.label])
    note = f"{len(frame) - len(complete)} rows with missing values dropped" if len(complete) < len(frame) else ""
    return StudyData(spec.name, _encoded(complete[features]).reset_index(drop=True), y,
                     complete._group.to_numpy().astype(str), (labels[0], labels[1]), note)


def _file_groups(spec: DatasetSpec, df: pd.DataFrame) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """The two groups' labels and rows, once the attribute and label hold no near-duplicate values."""
    groups = tuple(spec.groups or ())
    labels = tuple(str(g) for g in groups)
    column = df[spec.attribute]
    for name in (spec.attribute, spec.label):  # 'north' and 'north ' would be two groups: refused, as bound does
        _check_near_duplicates(spec.name, name, df[name])
    member = _group_membership(column, groups)
    absent = [g for g, hit in zip(groups, member, strict=True) if not hit.any()]
    if absent:
        shown = sorted({repr(v) for v in column.dropna().unique().tolist()})[:20]
        raise DataError(f"data set {spec.name!r}: the attribute {spec.attribute!r} never takes the value(s) "
                        f"{absent}; its values are {', '.join(shown)} ({column.dtype} column)."
                        + _yaml_hint(absent, column, "groups"))
    return labels, member


def _file_features(spec: DatasetSpec, df: pd.DataFrame) -> list[str]:
    """The feature columns: those named, or every column but the label and the attribute."""
    roles = {spec.label, spec.attribute}
    features = list(spec.features) if spec.features else [c for c in df.columns if c not in roles]
    clash = [c for c in features if c in roles]
    if clash:
        raise DataError(f"data set {spec.name!r}: features {clash} are the label or the attribute; leave them out "
                        "of 'features'.")
    if not features:
        raise DataError(f"data set {spec.name!r}: no feature columns besides the label and the attribute.")
    return features


def _file_labels(spec: DatasetSpec, label: pd.Series) -> np.ndarray:
    """1 where the label is the positive value; a label that never (or always) is, refused with the fix."""
    y = _positive_rows(spec, label)
    if y.min() == y.max():
        found = sorted({repr(v) for v in label.unique().tolist()})[:20]
        raise DataError(f"data set {spec.name!r}: the label {spec.label!r} never (or always) equals the positive "
                        f"value {spec.positive!r}; its values are {', '.join(found)}: set 'positive' to the favourable "
                        "one (in a YAML spec, quote a text value, e.g. positive: "
                        f"\"{_example_label(spec.positive, label)}\").")
    return y


def _check_near_duplicates(name: str, column: str, values: pd.Series) -> None:
    """Refuse text labels that differ only by white space or Unicode form, with ``fairprobe bound``'s message."""
    from fairprobe.core.table import check_near_duplicates as check

    try:
        check(column, column, values.dropna().unique().tolist())
    except DataError as err:
        raise DataError(f"data set {name!r}: {err}") from None


_TRUE = ("yes", "y", "true", "t", "on", "1")
_FALSE = ("no", "n", "false", "f", "off", "0")


def _is_text(column: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column))


def _example_label(positive: Any, column: pd.Series) -> str:
    """The column's label a boolean ``positive`` most likely stood for (``yes`` for True), else its first label."""
    values = sorted(str(v) for v in column.dropna().unique().tolist())
    words = _TRUE if positive is True else _FALSE if positive is False else ()
    return next((v for v in values if v.strip().lower() in words), values[0] if values else "yes")


def _yaml_hint(values: Any, column: pd.Series, key: str) -> str:
    """For a boolean read from an unquoted YAML yes/no/true/false/on/off compared with text labels: say so."""
    if not any(isinstance(v, bool) for v in values) or not _is_text(column):
        return ""
    return (f" YAML reads an unquoted yes, no, true, false, on or off as a boolean ({', '.join(map(str, values))}); "
            f"quote the labels in '{key}' as the data write them, e.g. \"{_example_label(values[0], column)}\".")


def _positive_rows(spec: DatasetSpec, column: pd.Series) -> np.ndarray:
    """1 where the label is ``spec.positive``: numbers compare as numbers, text as text.

    A boolean ``positive`` (YAML's reading of an unquoted ``yes``) against text labels is refused
    with the fix, quoting the value, rather than matching no row.
    """
    positive = spec.positive
    if isinstance(positive, bool) and _is_text(column):
        found = sorted({repr(v) for v in column.dropna().unique().tolist()})[:20]
        raise DataError(f"data set {spec.name!r}: 'positive' is the boolean {positive} (YAML reads an unquoted yes, "
                        f"no, true, false, on or off as a boolean), but the label {spec.label!r} holds text: "
                        f"{', '.join(found)}; quote the favourable value in the spec, e.g. positive: "
                        f"\"{_example_label(positive, column)}\".")
    return _group_membership(column, (positive,))[0].astype(int)


def _group_membership(column: pd.Series, groups: tuple) -> list[np.ndarray]:
    """Which rows are in each group: numbers compare as numbers (0 matches 0.0), text as text."""
    out = []
    numeric = pd.to_numeric(column, errors="coerce")
    for g in groups:
        try:
            value = float(g)
        except (TypeError, ValueError):
            value = None
        if value is not None and pd.api.types.is_numeric_dtype(column):
            out.append((numeric == value).to_numpy())
        else:
            out.append((column.astype(str) == str(g)).to_numpy() & column.notna().to_numpy())
    return out


def load_study_data(spec: DatasetSpec, seed: int = 0) -> StudyData:
    """The rows of one data set, subsampled with ``seed`` when the spec asks.

    Parameters
    ----------
    spec : DatasetSpec
        A bundled name or a file with its roles.
    seed : int
        Seed of the subsample.

    Returns
    -------
    StudyData

    Raises
    ------
    DataError
        Missing columns, absent groups, a constant label or too few rows in a user's file.

    Examples
    --------
    >>> data = load_study_data(DatasetSpec("german"))
    >>> data.X.shape[0], data.groups, int(data.y.sum())
    (1000, ('age <= 25', 'age > 25'), 700)
    """
    from fairprobe.studies.spec import RECIPES

    if spec.builtin:
        data = _builtin(spec.name)
    else:
        data = _from_recipe(spec) if spec.name in RECIPES and spec.label is None else _from_file(spec)
    if spec.subsample is not None and spec.subsample < len(data.y):
        rows = np.sort(np.random.default_rng(seed).choice(len(data.y), size=spec.subsample, replace=False))
        data = StudyData(data.name, data.X.iloc[rows].reset_index(drop=True), data.y[rows], data.group[rows],
                         data.groups, data.note)
    return data

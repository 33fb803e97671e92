"""Loaders for local copies of COMPAS, Adult and German credit, and for user CSV/Parquet files."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairprobe.exceptions import DataError

__all__ = ["BUNDLED", "Dataset", "data_home", "load_adult", "load_compas", "load_compas_binary", "load_german",
           "load_paper_table", "load_table"]

_ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
                  "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country",
                  "income"]


@dataclass
class Dataset:
    """A tabular data set with its target and protected attributes named.

    Attributes
    ----------
    frame : DataFrame
        Features, protected attributes and the target, one row per person.
    target : str
        Column of the binary outcome (1 = the outcome of interest).
    protected : list of str
        Columns of the protected attributes.
    features : list of str
        Columns a model may use (the protected attributes are not among them by default).
    name, description : str

    Examples
    --------
    >>> from fairprobe.datasets import load_german
    >>> d = load_german()
    >>> d
    Dataset('german', 1000 rows, target='good_credit', protected=['sex', 'age_group'], 19 features)
    >>> d.protected, len(d)
    (['sex', 'age_group'], 1000)
    """

    frame: pd.DataFrame
    target: str
    protected: list[str]
    features: list[str]
    name: str = ""
    description: str = ""
    categorical: list[str] = field(default_factory=list)

    @property
    def y(self) -> np.ndarray:
        """The target as a 0/1 integer array.

        Returns
        -------
        numpy.ndarray
            One 0/1 value per row.

        Examples
        --------
        >>> from fairprobe.datasets import load_german
        >>> load_german().y[:5]
        array([1, 0, 1, 1, 0])
        """
        return self.frame[self.target].to_numpy(dtype=int)

    def X(self, one_hot: bool = True) -> pd.DataFrame:
        """The model features; categorical columns one-hot encoded (``one_hot``) or as integer codes.

        Parameters
        ----------
        one_hot : bool
            One-hot encode the categorical features (dropping the first level, default True);
            False gives each category its integer code.

        Returns
        -------
        pandas.DataFrame
            Float columns, one row per person.

        Examples
        --------
        >>> from fairprobe.datasets import load_german
        >>> d = load_german()
        >>> d.X().shape, d.X(one_hot=False).shape
        ((1000, 45), (1000, 19))
        """
        X = self.frame[self.features]
        cats = [c for c in self.categorical if c in self.features]
        if one_hot:
            return pd.get_dummies(X, columns=cats, drop_first=True, dtype=float)
        return X.assign(**{c: X[c].astype("category").cat.codes for c in cats}).astype(float)

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        return (f"Dataset({self.name!r}, {len(self)} rows, target={self.target!r}, protected={self.protected}, "
                f"{len(self.features)} features)")


BUNDLED = Path(__file__).resolve().parent / "data"
"""The folder of the data sets bundled with fairprobe (gzip-compressed copies; see its README)."""

PAPER_TABLES = {"fogliato_compas": "fragile_fair-fogliato_compas.csv",
                "example_model": "fragile_fair-example_model.csv"}


def data_home(path: str | os.PathLike | None = None) -> Path:
    """The folder the real-data loaders read: ``path``, else ``$FAIRPROBE_DATA``, else the bundled copies.

    Parameters
    ----------
    path : path-like, optional
        A folder of your own copies of the files (plain or ``.gz``).

    Returns
    -------
    Path
        The folder to read.

    Raises
    ------
    DataError
        When the chosen folder does not exist (fairprobe never downloads data).

    Examples
    --------
    >>> data_home().name
    'data'
    """
    chosen = path if path is not None else os.environ.get("FAIRPROBE_DATA") or None
    if chosen is None:
        return BUNDLED
    folder = Path(chosen)
    if not folder.is_dir():
        source = "path=" if path is not None else "$FAIRPROBE_DATA"
        raise DataError(f"Data folder {folder} (from {source}) does not exist; point it at an existing folder, or "
                        "unset it to use the data bundled with fairprobe (fairprobe never downloads data).")
    return folder


def _file(path: str | os.PathLike | None, name: str) -> Path:
    """``name`` (or ``name.gz``) in the data folder; pandas reads either transparently."""
    folder = data_home(path)
    for candidate in (folder / name, folder / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    raise DataError(f"{name} is not in {folder}; copy it there (plain or .gz), or drop path=/$FAIRPROBE_DATA to use "
                    "the bundled copy (fairprobe never downloads data).")


def load_table(path: str | os.PathLike) -> pd.DataFrame:
    """A user's CSV, TSV or Parquet file as a data frame (the reader of every command's ``--data``).

    Parameters
    ----------
    path : path-like
        A ``.csv``/``.tsv`` file (optionally compressed) or a ``.parquet`` file.

    Raises
    ------
    DataError
        One line naming the problem and the fix when the file does not exist or is a folder, is
        empty, has a header but no rows, has an unknown extension, holds binary data, repeats a
        column name, or is separated by semicolons (see :func:`fairprobe.datasets.tables.read_table`).

    Returns
    -------
    pandas.DataFrame
        The table as read by pandas.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.datasets import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "audit.csv"
    ...     _ = path.write_text("A,Y,P\\n0,1,1\\n1,0,1\\n")
    ...     frame = load_table(path)
    >>> frame.shape, list(frame.columns)
    ((2, 3), ['A', 'Y', 'P'])
    """
    from fairprobe.datasets.tables import read_table

    return read_table(Path(path))


def load_compas(path: str | os.PathLike | None = None, *, races: tuple[str, ...] | None = None) -> Dataset:
    """ProPublica's COMPAS two-year recidivism data with ProPublica's standard filters (6,172 rows).

    Filters: ``-30 <= days_b_screening_arrest <= 30``, ``is_recid != -1``, ``c_charge_degree != "O"``,
    ``score_text != "N/A"``. Personal names and birth dates are dropped. Target ``two_year_recid``;
    protected ``race`` and ``sex``; the COMPAS ``decile_score`` is kept as a risk score (``score``,
    decile / 10).

    Parameters
    ----------
    path : path-like, optional
        Folder holding ``compas-scores-two-years.csv`` (default ``$FAIRPROBE_DATA``, else the bundled copy).
    races : tuple of str, optional
        Keep only these races, e.g. ``("African-American", "Caucasian")`` (5,278 rows).

    Returns
    -------
    Dataset
        Target ``two_year_recid``, protected ``["race", "sex"]``.

    Examples
    --------
    >>> d = load_compas()
    >>> len(d), d.target, sorted(d.frame.race.unique())[:2]
    (6172, 'two_year_recid', ['African-American', 'Asian'])
    """
    df = pd.read_csv(_file(path, "compas-scores-two-years.csv"))
    df = df[df.days_b_screening_arrest.between(-30, 30) & (df.is_recid != -1) & (df.c_charge_degree != "O")
            & (df.score_text != "N/A")]
    if races is not None:
        if isinstance(races, str):
            races = (races,)
        unknown = sorted(set(races) - set(df.race))
        if unknown:
            raise DataError(f"races {unknown} are not in COMPAS; choose from {sorted(df.race.unique())}.")
        df = df[df.race.isin(races)]
    frame = pd.DataFrame({
        "sex": df.sex, "race": df.race, "age": df.age, "age_cat": df.age_cat, "priors_count": df.priors_count,
        "juv_fel_count": df.juv_fel_count, "juv_misd_count": df.juv_misd_count,
        "juv_other_count": df.juv_other_count, "c_charge_degree": df.c_charge_degree,
        "decile_score": df.decile_score, "score": df.decile_score / 10.0, "two_year_recid": df.two_year_recid,
    }).reset_index(drop=True)
    features = ["age", "priors_count", "juv_fel_count", "juv_misd_count", "juv_other_count", "c_charge_degree"]
    return Dataset(frame, "two_year_recid", ["race", "sex"], features, "compas",
                   "ProPublica COMPAS two-year recidivism, standard filters", categorical=["c_charge_degree"])


def load_adult(path: str | os.PathLike | None = None, *, split: str = "train") -> Dataset:
    """UCI Adult census income, complete cases (30,162 train / 15,060 test rows).

    Target ``income`` (1 = ">50K"); protected ``sex`` and ``race``; ``fnlwgt`` (a survey weight)
    and ``education`` (duplicated by ``education_num``) are not features.

    Parameters
    ----------
    path : path-like, optional
        Folder holding ``adult.data`` and ``adult.test`` (default ``$FAIRPROBE_DATA``, else the bundled copy).
    split : {"train", "test", "both"}
        Which file to read: ``adult.data``, ``adult.test`` or both, concatenated.

    Returns
    -------
    Dataset
        Target ``income``, protected ``["sex", "race"]``.

    Examples
    --------
    >>> from fairprobe.datasets import load_adult
    >>> d = load_adult(split="test")
    >>> len(d), d.target, int(d.y.sum())
    (15060, 'income', 3700)
    """
    if split not in ("train", "test", "both"):
        raise DataError(f'split must be "train", "test" or "both"; got {split!r}.')
    parts = []
    for name, skip in (("adult.data", 0), ("adult.test", 1)):
        if split != "both" and (name == "adult.data") != (split == "train"):
            continue
        part = pd.read_csv(_file(path, name), header=None, names=_ADULT_COLUMNS, sep=",", skipinitialspace=True,
                           na_values="?", skiprows=skip).dropna()
        part["income"] = (part.income.str.rstrip(".") == ">50K").astype(int)
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    categorical = ["workclass", "marital_status", "occupation", "relationship", "native_country"]
    features = ["age", "workclass", "education_num", "marital_status", "occupation", "relationship",
                "capital_gain", "capital_loss", "hours_per_week", "native_country"]
    return Dataset(frame, "income", ["sex", "race"], features, "adult",
                   f"UCI Adult census income ({split}), complete cases", categorical=categorical)


def load_german(path: str | os.PathLike | None = None) -> Dataset:
    """UCI Statlog German credit (1,000 rows); target ``good_credit``; protected ``sex`` and ``age_group``.

    ``sex`` follows the AIF360 convention (A92, A95 female); ``age_group`` is ``"<=25"`` or ``">25"``.
    Categorical columns keep the UCI codes (``A11`` ... ``A202``; see ``german-credit.names.txt`` in the
    bundled data folder).

    Parameters
    ----------
    path : path-like, optional
        Folder holding ``german-credit.csv`` (default ``$FAIRPROBE_DATA``, else the bundled copy).

    Returns
    -------
    Dataset
        Target ``good_credit``, protected ``["sex", "age_group"]``.

    Examples
    --------
    >>> d = load_german()
    >>> len(d), int(d.y.sum()), sorted(d.frame.sex.unique())
    (1000, 700, ['female', 'male'])
    """
    df = pd.read_csv(_file(path, "german-credit.csv"))
    frame = df.drop(columns=["credit"]).assign(
        sex=np.where(df.personal_status.isin(["A92", "A95"]), "female", "male"),
        age_group=np.where(df.age > 25, ">25", "<=25"),
        good_credit=(df.credit == 1).astype(int))
    categorical = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c]) and c != "personal_status"]
    features = [c for c in df.columns if c not in ("credit", "personal_status")]
    return Dataset(frame, "good_credit", ["sex", "age_group"], features, "german",
                   "UCI Statlog German credit", categorical=categorical)


def load_compas_binary(path: str | os.PathLike | None = None) -> Dataset:
    """The binarised COMPAS data of OSDT, GOSDT and TreeFARMS (6,907 rows, 12 binary features).

    The benchmark of exact sparse-tree Rashomon sets. Target ``recidivate-within-two-years:1``;
    every feature is 0/1 (``sex:Female``, ``age:<21``, ..., ``priors:>3``); there are no protected
    columns apart from ``sex:Female``.

    Parameters
    ----------
    path : path-like, optional
        Folder holding ``compas-binary.csv`` (default ``$FAIRPROBE_DATA``, else the bundled copy).

    Returns
    -------
    Dataset
        Target ``recidivate-within-two-years:1``, protected ``["sex:Female"]``.

    Examples
    --------
    >>> d = load_compas_binary()
    >>> len(d), len(d.features)
    (6907, 12)
    """
    frame = pd.read_csv(_file(path, "compas-binary.csv"))
    target = "recidivate-within-two-years:1"
    features = [c for c in frame.columns if c != target]
    return Dataset(frame, target, ["sex:Female"], features, "compas-binary",
                   "COMPAS binarised as in OSDT/GOSDT/TreeFARMS")


def load_paper_table(name: str = "fogliato_compas", path: str | os.PathLike | None = None) -> pd.DataFrame:
    """A probability table of the causal-sensitivity seed paper (Fawkes et al., "The Fragility of Fairness").

    Columns ``A`` (protected attribute), ``Y`` (recorded outcome), ``P`` (prediction) and ``prob``
    (the joint probability; the eight rows sum to 1). Pass it to
    :meth:`fairprobe.ObservedTable.from_probabilities`.

    Parameters
    ----------
    name : {"fogliato_compas", "example_model"}
        The COMPAS predictor after Fogliato et al., or the paper's example model (the same numbers).
    path : path-like, optional
        Folder holding the ``fragile_fair-*.csv`` files (default ``$FAIRPROBE_DATA``, else the bundled copy).

    Returns
    -------
    pandas.DataFrame
        Eight rows with columns ``A``, ``Y``, ``P``, ``prob``.

    Raises
    ------
    DataError
        An unknown ``name``, or the file is not in the data folder.

    Examples
    --------
    >>> cells = load_paper_table()
    >>> list(cells.columns), round(float(cells.prob.sum()), 12)
    (['A', 'Y', 'P', 'prob'], 1.0)
    """
    if name not in PAPER_TABLES:
        raise DataError(f"Unknown paper table {name!r}; choose one of {sorted(PAPER_TABLES)}.")
    return pd.read_csv(_file(path, PAPER_TABLES[name]))

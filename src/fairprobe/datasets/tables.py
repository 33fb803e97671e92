"""Reading a user's table: one reader for CSV and Parquet, shared by the loaders and the command line.

:func:`read_table` refuses what would silently become a wrong table: an empty file, a header
without rows, an unknown extension, a file that is not a table, duplicate column names (pandas
would rename them ``x.1``) and semicolon- or tab-separated text read as one column.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from fairprobe.exceptions import DataError

__all__ = ["CSV_SUFFIXES", "PARQUET_SUFFIXES", "PLOT_SUFFIXES", "read_table"]

CSV_SUFFIXES = (".csv", ".tsv")
COMPRESSIONS = (".gz", ".bz2", ".zip", ".xz", ".zst")
PARQUET_SUFFIXES = (".parquet", ".pq")
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")


def _kind(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in PARQUET_SUFFIXES:
        return "parquet"
    if suffixes and suffixes[-1] in COMPRESSIONS:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in CSV_SUFFIXES:
        return suffixes[-1].lstrip(".")
    shown = "".join(path.suffixes[-2:]) or "no extension"
    hint = " Excel workbooks: save the sheet as CSV." if suffixes and suffixes[-1] in (".xls", ".xlsx") else ""
    raise DataError(f"{path} has {shown}; fairprobe reads CSV (.csv, .tsv, optionally compressed as .csv.gz) and "
                    f"Parquet (.parquet) files. Save the table in one of these formats (or rename the file if it "
                    f"is one).{hint}")


_MAGIC = {b"PK\x03\x04": "a ZIP archive or an Excel workbook (.xlsx)", b"PAR1": "a Parquet file",
          b"\xd0\xcf\x11\xe0": "an Excel 97 workbook (.xls)", b"\x1f\x8b": "a gzip archive",
          b"%PDF": "a PDF document", b"\x89PNG": "a PNG image"}


def _refuse_binary(path: Path) -> None:
    """A ``.csv`` that holds binary data (a workbook, an archive, an image) is not read as garbage rows."""
    with open(path, "rb") as fh:
        head = fh.read(8192)
    what = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), None)
    if what is None and b"\x00" not in head:
        return
    raise DataError(f"{path} is not a CSV text file (it looks like {what or 'binary data'}); save the table as CSV "
                    "(UTF-8) or Parquet, or give the file its real extension.")


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """A CSV or Parquet file as a data frame; anything that is not a usable table is a one-line ``DataError``.

    Parameters
    ----------
    path : path-like
        ``.csv``/``.tsv`` (optionally ``.gz``, ``.bz2``, ``.zip``, ``.xz``, ``.zst``) or
        ``.parquet``/``.pq``.

    Raises
    ------
    DataError
        The file does not exist, is empty, has a header but no rows, has an unknown extension, is
        not a table, repeats a column name, or looks separated by semicolons or tabs in a ``.csv``.

    Returns
    -------
    pandas.DataFrame
        At least one row; column names as in the file's header.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.datasets.tables import read_table
    >>> from fairprobe.exceptions import DataError
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     good, bad = Path(tmp) / "units.csv", Path(tmp) / "units_semicolon.csv"
    ...     _ = good.write_text("A,Y,P\\n0,1,1\\n1,0,0\\n")
    ...     _ = bad.write_text("A;Y;P\\n0;1;1\\n")
    ...     print(read_table(good).shape)
    ...     try:
    ...         read_table(bad)
    ...     except DataError as err:
    ...         print(str(err).split(": ")[1][:32])
    (2, 3)
    it looks separated by semicolons
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path} does not exist; check the path.")
    if path.is_dir():
        raise DataError(f"{path} is a folder; give the path of a CSV or Parquet file.")
    kind = _kind(path)
    if path.stat().st_size == 0:
        raise DataError(f"{path} is empty (0 bytes); write a header line and one row per unit into it.")
    if kind in ("csv", "tsv") and path.suffix.lower() in CSV_SUFFIXES:
        _refuse_binary(path)
    try:
        if kind == "parquet":
            frame = pd.read_parquet(path)
            header = [str(c) for c in frame.columns]
        else:
            sep = "\t" if kind == "tsv" else ","
            # the raw header: pandas renames a repeated column 'x' to 'x.1' without a word
            header = [str(c) for c in pd.read_csv(path, sep=sep, header=None, nrows=1).iloc[0].tolist()]
            frame = pd.read_csv(path, sep=sep)
    except ImportError:
        raise DataError(f"Cannot read {path}: no Parquet engine is installed; pip install pyarrow, or save the "
                        "table as CSV.") from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{path} has no columns (only blank lines); write a header line and one row per "
                        "unit.") from None
    except pd.errors.ParserError as exc:
        detail = str(exc).strip().splitlines()[-1]
        raise DataError(f"Cannot read {path} as a table: {detail}. Check that every row has as many "
                        "comma-separated fields as the header (quote fields that contain commas).") from None
    except UnicodeDecodeError:
        raise DataError(f"{path} is not a text CSV file (it holds binary data); save the table as CSV "
                        "(UTF-8) or Parquet.") from None
    except (OSError, ValueError) as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(f"Cannot read {path}: {detail}. Save the table as CSV (UTF-8) or Parquet.") from None
    dupes = sorted({c for c in header if header.count(c) > 1})
    if dupes:
        raise DataError(f"{path} repeats the column name(s) {dupes}; give every column a distinct name.")
    if kind == "csv" and frame.shape[1] == 1 and any(s in str(frame.columns[0]) for s in (";", "\t")):
        sep = "semicolons" if ";" in str(frame.columns[0]) else "tabs"
        raise DataError(f"{path} has one column {str(frame.columns[0])[:60]!r}: it looks separated by {sep}, not "
                        f"commas. Save it with commas (or name a tab-separated file .tsv).")
    if frame.empty:
        raise DataError(f"{path} has a header ({', '.join(map(str, frame.columns[:8]))}) but no rows; it needs one "
                        "row per unit.")
    return frame

"""Reading a user's table: one reader for CSV and Parquet, shared by the loaders and the command line.

:func:`read_table` refuses what would silently become a wrong table: an empty file, a header
without rows, an unknown extension, a file that is not a table, duplicate column names (pandas
would rename them ``x.1``) and semicolon- or tab-separated text read as one column.
"""

from __future__ import annotations

import codecs
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


#: What to do with a CSV that is not UTF-8 (said by every message about it).
RESAVE = ("re-save it as UTF-8 (Excel: Save As > 'CSV UTF-8 (Comma delimited)'), or name its encoding: "
          "encoding={enc!r} (command line: --encoding {enc}; app: the file's encoding choice)")


def _utf16(head: bytes) -> bool:
    """UTF-16 text (Excel's 'Unicode Text'): a byte-order mark, or every other byte 0 (ASCII in UTF-16)."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    pairs = len(head) // 2
    return pairs >= 8 and max(head[0::2].count(0), head[1::2].count(0)) >= 0.9 * pairs


def _wide(encoding: str | None) -> bool:
    """Whether ``encoding`` writes zero bytes in plain text (UTF-16 and UTF-32)."""
    return encoding is not None and codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def _refuse_binary(path: Path, encoding: str | None = None) -> None:
    """A ``.csv`` that holds binary data (a workbook, an archive, an image) is not read as garbage rows."""
    with open(path, "rb") as fh:
        head = fh.read(8192)
    what = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), None)
    if what is None and _wide(encoding):
        return
    # control bytes other than tab, line ends and form feed never occur in text (in UTF-8 nor cp1252)
    controls = sum(head.count(b) for b in (*range(1, 9), 11, *range(14, 32), 127))
    if what is None and b"\x00" not in head and controls <= len(head) // 100:
        return
    if what is None and _utf16(head):
        raise DataError(f"{path} is UTF-16 text (as Excel's 'Unicode Text' saves it), not UTF-8; "
                        + RESAVE.format(enc="utf-16") + ".")
    raise DataError(f"{path} is not a CSV text file (it looks like {what or 'binary data'}); save the table as CSV "
                    "(UTF-8) or Parquet, or give the file its real extension.")


def _legacy_text(data: bytes) -> bool:
    """Whether bytes read as text in Windows-1252 (Latin-1 plus), with no control characters."""
    text = data.decode("cp1252", errors="replace")
    return "\ufffd" not in text and not any((ord(c) < 32 and c not in "\t\n\r\f") or c == "\x7f" for c in text)


def _first_bad_byte(path: Path, encoding: str) -> tuple[int, bytes] | None:
    """The offset of the first byte of ``path`` that is not ``encoding`` and a window of bytes around it."""
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                fh.seek(max(0, offset + exc.start - 2048))
                return offset + exc.start, fh.read(4096)
            offset += len(chunk)
    return None


def _not_in_encoding(path: Path, encoding: str | None, compressed: bool) -> DataError:
    """The error for a CSV that does not decode: text in another encoding, or binary data."""
    enc = encoding or "utf-8"
    name = "UTF-8" if codecs.lookup(enc).name == "utf-8" else enc
    found = None if compressed else _first_bad_byte(path, enc)
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if found is not None and not (_legacy_text(head) and _legacy_text(found[1])):
        return DataError(f"{path} is not a text CSV file (it holds binary data); save the table as CSV (UTF-8) or "
                         "Parquet.")
    if found is None:
        where = ""
    else:
        offset, window = found
        byte = window[min(offset, 2048)]  # the window starts 2048 bytes before it (or at the file's start)
        where = f" (byte 0x{byte:02x} at position {offset}: {bytes([byte]).decode('cp1252', 'replace')!r} in cp1252)"
    other = "cp1252" if name == "UTF-8" else "utf-8"
    return DataError(f"{path} is not {name} text{where}; it looks saved in another encoding, e.g. cp1252 or Latin-1 "
                     f"as Excel on Windows saves CSV files: {RESAVE.format(enc=other)}.")


def read_table(path: str | os.PathLike, *, encoding: str | None = None) -> pd.DataFrame:
    """A CSV or Parquet file as a data frame; anything that is not a usable table is a one-line ``DataError``.

    Parameters
    ----------
    path : path-like
        ``.csv``/``.tsv`` (optionally ``.gz``, ``.bz2``, ``.zip``, ``.xz``, ``.zst``) or
        ``.parquet``/``.pq``.
    encoding : str, optional
        The text encoding of a CSV file (default UTF-8), e.g. ``"cp1252"`` for a file Excel
        saved on Windows, ``"utf-16"`` for Excel's 'Unicode Text'.

    Raises
    ------
    DataError
        The file does not exist, is empty, has a header but no rows, has an unknown extension, is
        not a table, is text in another encoding than ``encoding`` (named, with how to re-save it),
        repeats a column name, or looks separated by semicolons or tabs in a ``.csv``.

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
    kind = _checked_kind(path, encoding)
    frame, header = _read_frame(path, kind, encoding)
    _check_read(path, kind, frame, header)
    return frame


def _checked_kind(path: Path, encoding: str | None) -> str:
    """The file's kind ('csv', 'tsv' or 'parquet') once the encoding, the path and the bytes are fit to read."""
    if encoding is not None:
        try:
            codecs.lookup(str(encoding))
        except LookupError:
            raise DataError(f"Unknown encoding {encoding!r}; give a text encoding such as utf-8, cp1252 (Excel on "
                            "Windows), latin-1 or utf-16.") from None
    if not path.exists():
        raise DataError(f"{path} does not exist; check the path.")
    if path.is_dir():
        raise DataError(f"{path} is a folder; give the path of a CSV or Parquet file.")
    kind = _kind(path)
    if path.stat().st_size == 0:
        raise DataError(f"{path} is empty (0 bytes); write a header line and one row per unit into it.")
    if kind in ("csv", "tsv") and path.suffix.lower() in CSV_SUFFIXES:
        _refuse_binary(path, encoding)
    return kind


def _read_frame(path: Path, kind: str, encoding: str | None) -> tuple[pd.DataFrame, list[str]]:
    """The frame and the file's raw header; any failure of the reader is a one-line DataError."""
    try:
        if kind == "parquet":
            frame = pd.read_parquet(path)
            return frame, [str(c) for c in frame.columns]
        sep = "\t" if kind == "tsv" else ","
        text = encoding or "utf-8"
        # the raw header: pandas renames a repeated column 'x' to 'x.1' without a word
        header = [str(c) for c in pd.read_csv(path, sep=sep, header=None, nrows=1, encoding=text).iloc[0].tolist()]
        return pd.read_csv(path, sep=sep, encoding=text), header
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
        raise _not_in_encoding(path, encoding, path.suffix.lower() not in CSV_SUFFIXES) from None
    except (OSError, ValueError) as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(f"Cannot read {path}: {detail}. Save the table as CSV (UTF-8) or Parquet.") from None


def _check_read(path: Path, kind: str, frame: pd.DataFrame, header: list[str]) -> None:
    """Refuse a table read that would be wrong: repeated column names, one column of ';'-separated text, no rows."""
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

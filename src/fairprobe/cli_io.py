"""Input and output helpers shared by the command-line commands (built-in and plugin ones).

* :func:`read_table` reads a user's CSV or Parquet file, refusing what would silently become a
  wrong table: an empty file, a header without rows, an unknown extension, a file that is not a
  table, duplicate column names (pandas would rename them ``x.1``) and semicolon- or tab-separated
  text read as one column.
* :func:`out_option`, :func:`force_option` and :func:`file_option` are the shared declarations of
  ``--out``, ``--force`` and output files (``--plot``, ``--csv``): the paths are checked while the
  options are parsed, so an empty, unwritable or occupied destination fails before any solving.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError

__all__ = ["file_option", "force_option", "out_option", "read_table", "require_columns", "save_plot", "write_report"]

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


def require_columns(df: pd.DataFrame, columns: list[str], path: Path) -> None:
    """Raise a ``DataError`` naming the columns of ``df`` that are missing."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(f"Column(s) {missing} are not in {path}; available: {list(df.columns)}.")


def save_plot(draw: Callable[[], Any], path: Path) -> None:
    """Draw (``draw()`` returns an axes) and save the figure to ``path`` (the CLI runs matplotlib headless)."""
    ax = draw()
    ax.figure.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    ax.figure.savefig(path, dpi=150)


def write_report(out_dir: Path, title: str, *, summary: str = "", parameters: dict[str, Any] | None = None,
                 tables: dict[str, pd.DataFrame] | None = None,
                 figures: dict[str, Callable[[], Any]] | None = None, text: str = "") -> Path:
    """A command's results as a shared-format report folder, recording the command line that made it.

    The folder rules of :mod:`fairprobe.report` apply; the command's ``--force`` is honoured.
    """
    import sys

    from fairprobe import report

    return report.write_report(out_dir, title, summary=summary, text=text, parameters=parameters, figures=figures,
                               tables=tables, command=" ".join(["fairprobe", *sys.argv[1:]]))


# -- shared option declarations -------------------------------------------------------------------
_FORCE_KEY = "fairprobe.force"  # read by fairprobe.report while the command runs


def _force_callback(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_FORCE_KEY] = True
    return value


def force_option(f: Any) -> Any:
    """``--force``: write the report into a folder holding files fairprobe did not write.

    Eager and not passed to the command: the ``--out`` check reads it while parsing, and
    :mod:`fairprobe.report` reads it when writing, so a command only declares the option.
    """
    return click.option("--force", is_flag=True, is_eager=True, expose_value=False, callback=_force_callback,
                        help="Write the report even into a folder holding files fairprobe did not write "
                             "(its index.html, report.json, figures/, tables/ are replaced; other files kept).")(f)


def _out_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    if value is None:
        return None
    from fairprobe.report import check_output_folder

    name = max(param.opts, key=len)
    path = check_output_folder(str(value), force=bool(ctx.meta.get(_FORCE_KEY)), option=name)
    ctx.meta[_OUT_KEY] = (name, path)
    _check_inside(ctx)
    return Path(value)


_OUT_KEY, _FILES_KEY = "fairprobe.out", "fairprobe.files"


def _check_inside(ctx: click.Context) -> None:
    """A --plot/--csv file inside the --out folder would make it a folder fairprobe did not (only) write."""
    if _OUT_KEY not in ctx.meta:
        return
    out_name, out = ctx.meta[_OUT_KEY]
    for name, path in ctx.meta.get(_FILES_KEY, {}).items():
        if path == out or out in path.parents:
            raise ConfigError(f"{name} {path} lies inside the {out_name} folder {out}, which is replaced as a whole "
                              f"by the report; write {name} outside it (the report already holds its figures and "
                              "tables).")


def out_option(*names: str, help: str = "Write a report folder (HTML, CSV, PNG; `fairprobe report` merges several).",
               **kwargs: Any) -> Callable[[Any], Any]:
    """``--out``: a report folder, checked while parsing (empty, not writable, or holding other files).

    Use it together with :func:`force_option`.
    """
    names = names or ("--out", "out_dir")
    kwargs.setdefault("default", None)
    # a plain string: click.Path would turn "" into Path("") == Path("."), the current folder
    return click.option(*names, type=str, callback=_out_callback, help=help, metavar="FOLDER", **kwargs)


def check_output_file(value: str | os.PathLike, option: str, suffixes: tuple[str, ...] | None = None) -> Path:
    """Check an output file path before any work; raises ``ConfigError`` naming ``option``."""
    text = str(value)
    if not text.strip():
        example = f"out{suffixes[0]}" if suffixes else "out.csv"
        raise ConfigError(f"The file name given for {option} is empty; give one, e.g. {option} {example}.")
    path = Path(os.path.abspath(Path(text).expanduser()))
    if path.is_dir():
        raise ConfigError(f"{option} {text} is a folder; give a file name inside it, e.g. {path / 'out'}"
                          f"{suffixes[0] if suffixes else '.csv'}.")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise ConfigError(f"{option} {text} has {path.suffix or 'no extension'}; matplotlib writes "
                          f"{', '.join(suffixes)}. Give a file name ending in one of them, e.g. plot.png.")
    from fairprobe.report import nearest_existing

    base = nearest_existing(path.parent)
    if not base.is_dir():
        raise ConfigError(f"Cannot create {option} {text}: {base} is a file, not a folder; choose another path.")
    if not os.access(base, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"Cannot write {option} {text}: permission denied; choose a path you can write to.")
    return path


def file_option(*names: str, suffixes: tuple[str, ...] | None = None, help: str = "",
                **kwargs: Any) -> Callable[[Any], Any]:
    """An output-file option (``--plot``, ``--csv``), checked while parsing.

    ``suffixes`` restricts the extension (plots: :data:`PLOT_SUFFIXES`).
    """
    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
        if value is None:
            return None
        name = max(param.opts, key=len)
        ctx.meta.setdefault(_FILES_KEY, {})[name] = check_output_file(str(value), name, suffixes)
        _check_inside(ctx)
        return Path(value)

    kwargs.setdefault("default", None)
    return click.option(*names, type=str, callback=callback, help=help, metavar="FILE", **kwargs)

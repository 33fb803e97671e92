"""Options and output helpers shared by the command-line commands (built-in and plugin ones).

* :func:`read_table` reads a user's CSV or Parquet file with the command's ``--encoding`` (the
  reader of :mod:`fairprobe.datasets.tables`), refusing what would silently become a wrong table;
  :func:`data_option` declares ``--data`` and ``--encoding`` together.
* :func:`out_option`, :func:`force_option` and :func:`file_option` are the shared declarations of
  ``--out``, ``--force`` and output files (``--plot``, ``--csv``): the paths are checked while the
  options are parsed, so an empty, unwritable or occupied destination fails before any solving.
* Every command with ``--out`` prints one line, ``report written to <page>``, on standard error
  when it ends (so ``--json`` output stays pure JSON; ``--quiet`` silences it): the report
  writer records each page it writes and :func:`out_option` announces them, whatever wrote them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from fairprobe.datasets import tables as _tables
from fairprobe.datasets.tables import PLOT_SUFFIXES
from fairprobe.exceptions import ConfigError, DataError
from fairprobe.reporting.folders import FILES_KEY as _FILES_KEY
from fairprobe.reporting.folders import OUT_KEY as _OUT_KEY

__all__ = ["PLOT_SUFFIXES", "SingleOption", "announce_reports", "data_option", "file_option", "force_option", "forced",
           "jobs_option", "json_option", "out_option", "read_table", "require_columns", "save_plot", "save_table",
           "seed_option", "single_option", "write_report"]


def require_columns(df: pd.DataFrame, columns: list[str], path: Path) -> None:
    """Raise a ``DataError`` naming the columns of ``df`` that are missing.

    Parameters
    ----------
    df : pandas.DataFrame
        The table read from ``path``.
    columns : list of str
        Columns the command needs.
    path : Path
        Where the table came from (named in the message).

    Returns
    -------
    None

    Raises
    ------
    DataError
        Naming the missing columns and the available ones.

    Examples
    --------
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from fairprobe.cli.options import require_columns
    >>> from fairprobe.exceptions import DataError
    >>> units = pd.DataFrame({"race": ["a", "b"], "recid": [1, 0]})
    >>> require_columns(units, ["race"], Path("units.csv"))
    >>> try:
    ...     require_columns(units, ["race", "pred"], Path("units.csv"))
    ... except DataError as err:
    ...     print(err)
    Column(s) ['pred'] are not in units.csv; available: ['race', 'recid'].
    """
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(f"Column(s) {missing} are not in {path}; available: {list(df.columns)}.")


def save_plot(draw: Callable[[], Any], path: Path) -> None:
    """Draw (``draw()`` returns an axes) and save the figure to ``path`` (the CLI runs matplotlib headless).

    Parameters
    ----------
    draw : callable
        Called with no arguments; returns the matplotlib axes it drew on.
    path : Path
        The image file (its folder is created; the suffix picks the format).

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.cli.options import save_plot
    >>> from fairprobe.reporting.plotting import new_axes
    >>> def draw():
    ...     ax = new_axes()
    ...     ax.plot([0, 0.05, 0.1], [0.02, 0.08, 0.15])
    ...     return ax
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_plot(draw, Path(tmp) / "plots" / "sweep.png")
    ...     print(sorted(p.name for p in (Path(tmp) / "plots").iterdir()))
    ['sweep.png']
    >>> plt.close("all")
    """
    from fairprobe.reporting.folders import atomic_write

    ax = draw()
    if ax.figure.get_layout_engine() is None:  # fairprobe's own figures lay themselves out (constrained)
        ax.figure.tight_layout()
    # "tight": the image grows to hold every label (tight_layout alone leaves a label longer than the figure
    # clipped). Written beside the file and renamed: a full disk or Ctrl-C leaves no partial image; a write the
    # system refuses is one line naming the file and the fix.
    atomic_write(path, lambda tmp: ax.figure.savefig(tmp, dpi=150, bbox_inches="tight"))


def save_table(frame: pd.DataFrame, path: Path, **kwargs: Any) -> None:
    """Write ``frame`` as CSV to ``path`` (``--csv``); a write the system refuses is one line naming the file.

    The file is written beside ``path`` and renamed into place: a full disk or Ctrl-C leaves no
    partial file, and a file replaced with ``--force`` keeps its old content.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    path : Path
        The CSV file (its folder is created).
    **kwargs
        Passed to :meth:`pandas.DataFrame.to_csv` (default ``index=False``).

    Returns
    -------
    None

    Raises
    ------
    OutputError
        The file cannot be written (no space left, read-only folder, ...): the path, the reason and the fix.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_table(pd.DataFrame({"D": [0.0, 0.05]}), Path(tmp) / "bounds.csv")
    ...     print((Path(tmp) / "bounds.csv").read_text().split())
    ['D', '0.0', '0.05']
    """
    from fairprobe.reporting.folders import atomic_write

    kwargs.setdefault("index", False)
    atomic_write(path, lambda tmp: frame.to_csv(tmp, **kwargs))  # no partial file, an old one kept on failure


def write_report(out_dir: Path, title: str, *, summary: str = "", parameters: dict[str, Any] | None = None,
                 tables: dict[str, pd.DataFrame] | None = None,
                 figures: dict[str, Callable[[], Any]] | None = None, text: str = "") -> Path:
    """A command's results as a shared-format report folder, recording the command line that made it.

    The folder rules of :mod:`fairprobe.reporting.report` apply; the command's ``--force`` is honoured.

    Parameters
    ----------
    out_dir : Path
        The report folder (the value of ``--out``).
    title : str
        Title of the page.
    summary : str
        Short readable summary shown first.
    parameters : dict, optional
        Assumptions and parameters, shown as a key-value table.
    tables : dict of str to DataFrame, optional
        Data tables by name.
    figures : dict of str to callable, optional
        Functions drawing a figure (called only when the report is written).
    text : str
        Text of the report's one section.

    Returns
    -------
    Path
        The ``index.html`` page.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from fairprobe.cli.options import write_report
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     page = write_report(Path(tmp) / "out", "Certified bounds", summary="fpr_parity in [-0.17, 0.07]",
    ...                         tables={"result": pd.DataFrame({"lower": [-0.17], "upper": [0.07]})})
    ...     print(page.name, sorted(p.name for p in page.parent.iterdir()))
    index.html ['.fairprobe-report.id', 'figures', 'index.html', 'report.json', 'tables']
    """
    from fairprobe.reporting import report

    return report.write_report(out_dir, title, summary=summary, text=text, parameters=parameters, figures=figures,
                               tables=tables, command=report.command_line())


# -- options given at most once ---------------------------------------------------------------------
class SingleOption(click.Option):
    """A one-value option that refuses to be given twice: click would silently keep the last value.

    ``fairprobe bound --D 0.02 --D 0.05`` would otherwise compute at 0.05 without a word. The
    parser collects every occurrence; more than one is refused while parsing, naming the option
    and the values (one line, exit code 2). Otherwise it is a plain option: the command, its
    callback and ``process_value`` see the one value.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @click.option("--D", "d_value", type=float, default=0.0, cls=SingleOption)
    ... def show(d_value):
    ...     click.echo(d_value)
    >>> CliRunner().invoke(show, ["--D", "0.05"]).output, CliRunner().invoke(show, []).output
    ('0.05\\n', '0.0\\n')
    >>> print(CliRunner().invoke(show, ["--D", "0.02", "--D", "0.05"]).exception)
    --D is given 2 times (--D 0.02, --D 0.05); give it once.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.multiple or self.count or self.is_flag:
            raise TypeError(f"{self.opts}: a SingleOption takes one value (not a flag, count or multiple option).")

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        """Collect every occurrence (click's "store" would keep the last one)."""
        parser.add_option(obj=self, opts=self.opts, dest=self.name, action="append", nargs=self.nargs)

    def consume_value(self, ctx: click.Context, opts: Any) -> tuple[Any, Any]:
        """The one value given on the command line; more than one is refused.

        Parameters
        ----------
        ctx : click.Context
        opts : mapping
            The parser's values by parameter name.

        Returns
        -------
        tuple
            The value and its source, as :meth:`click.Parameter.consume_value`.

        Raises
        ------
        ConfigError
            The option was given more than once.
        """
        value, source = super().consume_value(ctx, opts)
        if source == click.core.ParameterSource.COMMANDLINE and isinstance(value, list):
            if len(value) > 1:
                name = max(self.opts, key=len)
                shown = ", ".join(f"{name} {' '.join(map(str, v)) if isinstance(v, tuple) else v}" for v in value)
                raise ConfigError(f"{name} is given {len(value)} times ({shown}); give it once.")
            value = value[0]
        return value, source


def single_option(*names: str, **kwargs: Any) -> Callable[[Any], Any]:
    """``click.option`` for an option taking one value, given at most once (:class:`SingleOption`).

    Parameters
    ----------
    *names : str
        Option names and parameter name, as for :func:`click.option`.
    **kwargs
        Passed to :func:`click.option`.

    Returns
    -------
    callable
        The click decorator.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @single_option("--metric", required=True)
    ... def show(metric):
    ...     click.echo(metric)
    >>> print(CliRunner().invoke(show, ["--metric", "fpr_parity", "--metric", "tpr_parity"]).exception)
    --metric is given 2 times (--metric fpr_parity, --metric tpr_parity); give it once.
    """
    return click.option(*names, cls=SingleOption, **kwargs)


# -- shared option declarations -------------------------------------------------------------------
_FORCE_KEY = "fairprobe.force"  # read by fairprobe.reporting.report while the command runs


def force_callback(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    """Record ``--force`` in the context, where :func:`forced` reads it (a command's own ``--force`` uses it too)."""
    if value:
        ctx.meta[_FORCE_KEY] = True
    return value


def forced(ctx: click.Context | None = None) -> bool:
    """Whether the running command (or ``ctx``) was given ``--force`` (see :func:`force_option`).

    Parameters
    ----------
    ctx : click.Context, optional
        The context (default: the current one; False outside a command).

    Returns
    -------
    bool

    Examples
    --------
    >>> import click
    >>> forced(click.Context(click.Command("x")))
    False
    """
    ctx = ctx or click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(_FORCE_KEY))


def force_option(f: Any) -> Any:
    """``--force``: write the report into a folder holding files fairprobe did not write.

    Eager and not passed to the command: the ``--out`` check reads it while parsing, and
    :mod:`fairprobe.reporting.report` reads it when writing, so a command only declares the option.

    Parameters
    ----------
    f : callable
        The click command function to decorate.

    Returns
    -------
    callable
        ``f`` with the ``--force`` option.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> from fairprobe.cli.options import force_option, out_option
    >>> @click.command()
    ... @out_option()
    ... @force_option
    ... def export(out_dir):
    ...     click.echo(f"out: {out_dir}")
    >>> CliRunner().invoke(export, ["--force"]).output
    'out: None\\n'
    """
    return click.option("--force", is_flag=True, is_eager=True, expose_value=False, callback=force_callback,
                        help="Replace existing output files (--csv, --plot) and write the report even into a "
                             "folder holding files fairprobe did not write (its index.html, report.json and the "
                             "report's own files in figures/ and tables/ are replaced; other files kept). The "
                             "--data input is never overwritten.")(f)


def _out_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    if value is None:
        return None
    from fairprobe.reporting.report import WRITTEN_KEY, check_output_folder

    name = max(param.opts, key=len)
    path = check_output_folder(str(value), force=bool(ctx.meta.get(_FORCE_KEY)), option=name)
    ctx.meta[_OUT_KEY] = (name, path)
    _check_inside(ctx)
    if WRITTEN_KEY not in ctx.meta:  # the report writer records the pages it writes; announced when the command ends
        written: list[Path] = []
        ctx.meta[WRITTEN_KEY] = written
        ctx.call_on_close(lambda: announce_reports(written))
    return Path(value)


def announce_reports(pages: list[Path]) -> None:
    """Print ``report written to <page>`` for each report page, on standard error, unless quiet mode is on.

    Every command with ``--out`` (:func:`out_option`) calls it when it ends, with the pages the
    report writer wrote meanwhile, so all commands print the same line, also after ``--json``.

    Parameters
    ----------
    pages : list of Path
        The ``index.html`` pages written.

    Returns
    -------
    None

    Examples
    --------
    >>> from pathlib import Path
    >>> from fairprobe.cli.options import announce_reports
    >>> from fairprobe.core.progress import quiet
    >>> with quiet():  # --quiet: no informational lines
    ...     announce_reports([Path("report/index.html")])
    """
    from fairprobe.core.progress import info

    for page in dict.fromkeys(pages):
        info(f"report written to {Path(page).resolve()}", err=True)




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

    Parameters
    ----------
    *names : str
        Option names and parameter name, as for :func:`click.option` (default ``"--out", "out_dir"``).
    help : str
        Help text of the option.
    **kwargs
        Passed to :func:`click.option` (``default`` is None unless given).

    Returns
    -------
    callable
        A decorator adding the option; the command receives a ``Path`` or None.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import click
    >>> from click.testing import CliRunner
    >>> from fairprobe.cli.options import force_option, out_option
    >>> @click.command()
    ... @out_option()
    ... @force_option
    ... def export(out_dir):
    ...     click.echo(f"writing {out_dir.name}")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(CliRunner().invoke(export, ["--out", str(Path(tmp) / "report")]).output.strip())
    ...     refused = CliRunner().invoke(export, ["--out", ""])
    writing report
    >>> print(refused.exception)  # the command line prints it as one line, exit code 2
    The name given for --out is empty; give a folder name, e.g. --out report (it is created).
    """
    names = names or ("--out", "out_dir")
    # a plain string: click.Path would turn "" into Path("") == Path("."), the current folder
    return single_option(*names, type=str, callback=_out_callback, help=help, metavar="FOLDER", **kwargs)


def check_output_file(value: str | os.PathLike, option: str, suffixes: tuple[str, ...] | None = None) -> Path:
    """Check an output file path before any work; raises ``ConfigError`` naming ``option``.

    Parameters
    ----------
    value : path-like
        The file name given on the command line.
    option : str
        The option's name, for messages (``"--plot"``).
    suffixes : tuple of str, optional
        Accepted extensions (plots: :data:`PLOT_SUFFIXES`); None accepts any.

    Returns
    -------
    Path
        The absolute path.

    Raises
    ------
    ConfigError
        The name is empty or a folder, has the wrong extension, or cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.cli.options import PLOT_SUFFIXES, check_output_file
    >>> from fairprobe.exceptions import ConfigError
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(check_output_file(Path(tmp) / "sweep.png", "--plot", PLOT_SUFFIXES).name)
    ...     try:
    ...         check_output_file(Path(tmp) / "sweep.txt", "--plot", PLOT_SUFFIXES)
    ...     except ConfigError as err:
    ...         print(str(err).split("; ")[0].endswith("has .txt"))
    sweep.png
    True
    """
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
    from fairprobe.reporting.report import nearest_existing

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

    Parameters
    ----------
    *names : str
        Option names and parameter name, as for :func:`click.option`.
    suffixes : tuple of str, optional
        Accepted extensions; None accepts any.
    help : str
        Help text of the option.
    **kwargs
        Passed to :func:`click.option` (``default`` is None unless given).

    Returns
    -------
    callable
        A decorator adding the option; the command receives a ``Path`` or None.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> from fairprobe.cli.options import PLOT_SUFFIXES, file_option
    >>> @click.command()
    ... @file_option("--plot", suffixes=PLOT_SUFFIXES, help="Save the figure here.")
    ... def draw(plot):
    ...     click.echo(f"plot: {plot}")
    >>> CliRunner().invoke(draw, []).output
    'plot: None\\n'
    >>> refused = CliRunner().invoke(draw, ["--plot", "figure.txt"])  # checked before the command runs
    >>> type(refused.exception).__name__, str(refused.exception).split(";")[0]
    ('ConfigError', '--plot figure.txt has .txt')
    """
    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
        if value is None:
            return None
        name = max(param.opts, key=len)
        path = check_output_file(str(value), name, suffixes)
        ctx.meta.setdefault(_FILES_KEY, {})[name] = path
        _check_not_input(ctx)
        if path.exists() and not ctx.meta.get(_FORCE_KEY):
            raise ConfigError(f"{name} {value} already exists; fairprobe does not overwrite files. Choose another "
                              "name, or add --force to replace it.")
        _check_inside(ctx)
        return Path(value)

    return single_option(*names, type=str, callback=callback, help=help, metavar="FILE", **kwargs)


# -- the options every command shares, declared once ---------------------------------------------------
def data_option(help: str = "CSV or Parquet file (unit rows, or cells with a 'prob' column).", *,
                required: bool = True) -> Callable[[Any], Any]:
    """``--data FILE``: an existing CSV or Parquet file, passed as ``data_path`` (read it with :func:`read_table`).

    Parameters
    ----------
    help : str
        The option's help text.
    required : bool
        Whether the option must be given.

    Returns
    -------
    callable
        The click decorator.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @data_option()
    ... def show(data_path):
    ...     click.echo(data_path.suffix)
    >>> CliRunner().invoke(show, ["--data", "missing.csv"]).exit_code
    2
    """
    def callback(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
        if value is not None:
            ctx.meta[_DATA_KEY] = Path(os.path.abspath(value))
            _check_not_input(ctx)
        return value

    data = single_option("--data", "data_path", required=required, help=help, callback=callback,
                         type=click.Path(exists=True, dir_okay=False, path_type=Path))
    # --encoding is not passed to the command: read_table reads it, so every command with --data has it
    encoding = single_option("--encoding", expose_value=False, callback=_encoding_callback,
                             metavar="NAME", help="Text encoding of a CSV --data file (default utf-8), e.g. cp1252 "
                                                  "or latin-1 for a CSV Excel saved on Windows, utf-16 for Excel's "
                                                  "'Unicode Text'.")
    return lambda f: data(encoding(f))


_DATA_KEY, _ENCODING_KEY = "fairprobe.data", "fairprobe.encoding"


def _encoding_callback(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        import codecs

        try:
            codecs.lookup(value)
        except LookupError:
            raise ConfigError(f"Unknown --encoding {value!r}; give a text encoding such as utf-8, cp1252 (Excel on "
                              "Windows), latin-1 or utf-16.") from None
        ctx.meta[_ENCODING_KEY] = value
    return value


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """Read a user's CSV or Parquet file with the running command's ``--encoding`` (see :func:`data_option`).

    :func:`fairprobe.datasets.tables.read_table` does the reading and its refusals: an empty file,
    a header without rows, a file that is not a table, a CSV in another encoding (named, with the
    fix), duplicate column names, semicolon-separated text.

    Parameters
    ----------
    path : path-like
        The file (``--data``, or another input of the command such as ``--test``).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    DataError
        The file is not a usable table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @data_option()
    ... def show(data_path):
    ...     click.echo(read_table(data_path)["race"].tolist())
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "excel.csv"
    ...     _ = path.write_bytes("race,y\\nBokmål,1\\n".encode("cp1252"))
    ...     print(CliRunner().invoke(show, ["--data", str(path), "--encoding", "cp1252"]).output.strip())
    ['Bokmål']
    """
    ctx = click.get_current_context(silent=True)
    return _tables.read_table(path, encoding=ctx.meta.get(_ENCODING_KEY) if ctx is not None else None)


def _check_not_input(ctx: click.Context) -> None:
    """An output file must never be the input table, --force or not."""
    data = ctx.meta.get(_DATA_KEY)
    if data is None:
        return
    for name, path in ctx.meta.get(_FILES_KEY, {}).items():
        if path == data or (path.exists() and data.exists() and os.path.samefile(path, data)):
            raise ConfigError(f"{name} {path} is the --data input; fairprobe never overwrites its input. "
                              f"Write {name} to another file.")


def json_option(help: str = "Print the result as JSON.") -> Callable[[Any], Any]:
    """``--json``: print the result as JSON (``as_json``).

    Parameters
    ----------
    help : str
        The option's help text.

    Returns
    -------
    callable
        The click decorator.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @json_option()
    ... def show(as_json):
    ...     click.echo(as_json)
    >>> CliRunner().invoke(show, ["--json"]).output
    'True\\n'
    """
    return click.option("--json", "as_json", is_flag=True, help=help)


def seed_option(help: str = "Seed of every random choice.", *, default: int = 0,
                minimum: int | None = None) -> Callable[[Any], Any]:
    """``--seed N`` (``seed``); with ``minimum``, values below it are refused while parsing.

    Parameters
    ----------
    help : str
        The option's help text.
    default : int
        The default seed.
    minimum : int, optional
        Smallest accepted value (None: the analysis checks it and names the fix).

    Returns
    -------
    callable
        The click decorator.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @seed_option(minimum=0)
    ... def show(seed):
    ...     click.echo(seed)
    >>> CliRunner().invoke(show, ["--seed", "-1"]).exit_code
    2
    """
    kind = click.IntRange(minimum, 2**32 - 1) if minimum is not None else int
    return single_option("--seed", "seed", type=kind, default=default, show_default=True, help=help)


#: The one rule of ``--jobs`` in every command (and of ``n_jobs`` in the API), stated in each command's --help.
JOBS_RULE = ("N >= 1 worker processes, or -1 for every core; never more than the tasks to run or the cores "
             "(0 and other negative numbers are refused).")


def _jobs_callback(_ctx: click.Context, _param: click.Parameter, value: int | None) -> int | None:
    if value is None or value >= 1 or value == -1:
        return value
    raise ConfigError(f"--jobs {value} is not a number of workers; give a positive number (e.g. --jobs 2), or -1 for "
                      "every core.")


def jobs_option(help: str = "Parallel workers.", *, dest: str = "jobs", default: int | None = 1,
                minimum: int | None = None) -> Callable[[Any], Any]:
    """``--jobs N``: parallel workers, passed as ``dest`` (``jobs`` or ``n_jobs``).

    One rule in every command (:data:`JOBS_RULE`, appended to ``help``): a positive number of
    workers, or ``-1`` for every core; ``0`` and other negative numbers (joblib's ``-2``, "all but
    one") are refused while parsing, with one line naming the fix. Fewer workers are started when
    there are fewer tasks or cores (:func:`fairprobe.core.workers.effective_jobs`).

    Parameters
    ----------
    help : str
        The option's help text (the rule is appended).
    dest : str
        The command function's parameter name.
    default : int or None
        The default number of workers.
    minimum : int, optional
        Smallest accepted value, for a command that cannot use every core (None: the shared rule only).

    Returns
    -------
    callable
        The click decorator.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @jobs_option(dest="n_jobs")
    ... def show(n_jobs):
    ...     click.echo(n_jobs)
    >>> CliRunner().invoke(show, ["--jobs", "2"]).output
    '2\\n'
    >>> print(CliRunner().invoke(show, ["--jobs", "-2"]).exception)
    --jobs -2 is not a number of workers; give a positive number (e.g. --jobs 2), or -1 for every core.
    """
    kind = click.IntRange(minimum) if minimum is not None else int
    return single_option("--jobs", dest, type=kind, default=default, show_default=default is not None,
                         callback=_jobs_callback, help=f"{help.rstrip()} {JOBS_RULE}".strip())


def _time_limit_callback(_ctx: click.Context, _param: click.Parameter, value: str | None) -> float | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("none", "off", "inf"):
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not (seconds > 0 and seconds < float("inf")):  # one line on standard error, exit code 2
        raise ConfigError(f"--time-limit {value} must be a positive number of seconds; give e.g. --time-limit 120, "
                          "or --time-limit none for no limit.")
    return seconds


def time_limit_option(default: float | None) -> Callable[[Any], Any]:
    """``--time-limit``: seconds for the whole bound (every solve of it), or ``none``.

    Parameters
    ----------
    default : float or None
        Seconds when the option is left out (the API's ``DEFAULT_TIME_LIMIT``).

    Returns
    -------
    callable
        The click decorator.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @time_limit_option(60.0)
    ... def cmd(time_limit):
    ...     click.echo(repr(time_limit))
    >>> [CliRunner().invoke(cmd, args).output.strip() for args in ([], ["--time-limit", "5"], ["--time-limit", "none"])]
    ['60.0', '5.0', 'None']
    """
    shown = "no limit" if default is None else f"{default:g}"
    return single_option(
        "--time-limit", "time_limit", default=None if default is None else str(default), show_default=shown,
        callback=_time_limit_callback, metavar="SECONDS|none",
        help="Seconds for the whole bound (each point of a sweep), shared by all its solves; a bound that "
             "reaches it is still certified, only possibly wider (status 'limit'). 'none': no limit.")

"""One HTML report format for every analysis: tables, figures, assumptions, versions, the command.

A :class:`Report` is a list of sections, each holding text, key-value tables (assumptions and
parameters), data tables and matplotlib figures. :meth:`Report.write` produces a folder an
auditor can hand over:

* ``index.html``: one self-contained page (figures embedded as PNG data, no scripts, no network);
* ``figures/*.png`` and ``tables/*.csv``: the same figures and tables as files (``s<k>_`` names
  the section);
* ``report.json``: the manifest (title, command, versions, sections) that :func:`load_report`
  reads back, so ``fairprobe report A B --out C`` can merge saved reports into one page. It is
  signed (``"generator": "fairprobe"``) so fairprobe can recognise its own folders, and records
  ``folder_id``, a random id the hidden ``.fairprobe-report.id`` beside it holds too: a
  ``report.json`` copied alone into another folder does not make that folder fairprobe's.

Writing a folder follows three rules (:func:`check_output_folder`, used by the API and by every
command's ``--out`` before any work is done):

* the folder name must not be empty and the folder must be creatable and writable;
* a folder holding anything fairprobe did not write (e.g. a user's own ``index.html``, or a
  ``tables/my_analysis.csv`` put into a report) is refused unless ``force=True`` (``--force``);
  forcing replaces only the report's own files (``index.html``, ``report.json``, ``.fairprobe-report.id`` and the files
  of ``figures/`` and ``tables/`` it writes) and keeps every other file;
* a fairprobe report folder is replaced as a whole: the new report is written into a temporary
  sibling folder and then moved into place, so no table or figure of an earlier report (listed
  in its ``report.json``) is left beside the new ones, and a failure half-way leaves the previous
  report intact.

Examples
--------
>>> import pandas as pd, tempfile
>>> rep = Report("Example audit", command="python example.py")
>>> sec = rep.section("Bounds", "Certified bounds of FPR parity.")
>>> _ = sec.add_parameters({"bias": "proxy_label", "D": 0.05})
>>> _ = sec.add_table("bounds", pd.DataFrame({"D": [0.0, 0.05], "lower": [-0.1, -0.2], "upper": [-0.1, 0.1]}))
>>> page = rep.write(tempfile.mkdtemp())
>>> page.name, load_report(page.parent).sections[0].tables[0].name
('index.html', 'bounds')
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import platform
import re
import shlex
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.core.jsonsafe import dumps, jsonable
from fairprobe.exceptions import DataError

__all__ = ["Report", "Section", "check_output_folder", "combine_reports", "command_line", "environment_versions",
           "folder_kind", "load_report", "merged_heading", "write_report"]

from fairprobe.reporting.folders import (  # noqa: F401  (the folder rules lived here; old imports keep working)
    ARGV_KEY,
    GENERATOR,
    ID_FILE,
    REPORT_ENTRIES,
    WRITTEN_KEY,
    check_output_folder,
    cli_meta,
    folder_kind,
    nearest_existing,
    new_folder_id,
    record_written,
    replace_folder,
)

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:72em;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{border-bottom:2px solid #345;padding-bottom:.2em}h2{margin-top:2em;color:#234}h3{color:#345}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.9em}
td,th{border:1px solid #ccd;padding:3px 8px;text-align:left;font-variant-numeric:tabular-nums}
th{background:#eef2f6}.note{background:#f6f8fa;border-left:4px solid #8ab;padding:.5em 1em;white-space:pre-wrap;
font-family:ui-monospace,monospace;font-size:.85em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.9em;color:#555}
.meta{font-size:.85em;color:#555}.ok{color:#175}.bad{color:#a21}
.tablewrap{max-height:32em;overflow:auto}
"""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "item"


def command_line() -> str:
    """The running command as one shell line that can be copied and re-run.

    Arguments are quoted as a POSIX shell needs them (:func:`shlex.join`), so
    ``--title 'COMPAS audit'`` keeps its quotes. Under the ``fairprobe`` command line the line is
    ``fairprobe`` followed by the arguments the command was given; elsewhere it is this process's
    program name and arguments (``sys.argv``).

    Returns
    -------
    str
        The command line ("" when the process has no program name, e.g. an interactive session).

    Examples
    --------
    >>> import sys
    >>> from unittest import mock
    >>> from fairprobe.reporting.report import command_line
    >>> with mock.patch.object(sys, "argv", ["/usr/bin/fairprobe", "report", "r1", "--title", "COMPAS audit"]):
    ...     print(command_line())
    fairprobe report r1 --title 'COMPAS audit'
    """
    argv = cli_meta().get(ARGV_KEY)
    if argv is not None:
        return shlex.join(["fairprobe", *map(str, argv)])
    if not sys.argv or not sys.argv[0]:
        return ""
    return shlex.join([Path(sys.argv[0]).name, *map(str, sys.argv[1:])])


def environment_versions() -> dict[str, str]:
    """Versions of Python, fairprobe, the numerical stack and every installed solver.

    Returns
    -------
    dict of str to str
        Distribution name (and ``"python"``, ``"platform"``, ``"SCIP"``) -> version; packages
        that are not installed are left out.

    Examples
    --------
    >>> from fairprobe.reporting.report import environment_versions
    >>> versions = environment_versions()
    >>> {"python", "fairprobe", "pandas"} <= set(versions)
    True
    """
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("fairprobe", "numpy", "scipy", "pandas", "scikit-learn", "sympy", "statsmodels", "pyscipopt",
                 "highspy", "gurobipy", "ortools", "cvxpy", "fairlearn", "dask"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    try:
        import pyscipopt

        out["SCIP"] = str(pyscipopt.Model().version())
    except Exception:  # a version string is informative only
        pass
    return out


@dataclass
class TableItem:
    """A named data table with an optional caption.

    Parameters
    ----------
    name : str
        Name of the table (also its CSV file's name).
    frame : pandas.DataFrame
        The data.
    caption : str
        Shown under the table's name.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.reporting.report import TableItem
    >>> item = TableItem("result", pd.DataFrame({"lower": [-0.17], "upper": [0.07]}), "certified bounds")
    >>> item.name, item.frame.shape
    ('result', (1, 2))
    """

    name: str
    frame: pd.DataFrame
    caption: str = ""


@dataclass
class FigureItem:
    """A named PNG figure with an optional caption.

    Parameters
    ----------
    name : str
        Name of the figure (also its PNG file's name).
    png : bytes
        The PNG image.
    caption : str
        Shown under the figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.reporting.report import Section
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> item = Section("Sweep").add_figure("line", fig).figures[0]  # renders and closes the figure
    >>> item.name, item.png[:4]
    ('line', b'\\x89PNG')
    """

    name: str
    png: bytes
    caption: str = ""


@dataclass
class Section:
    """One part of a report: text, parameters, tables and figures, shown in that order.

    Parameters
    ----------
    title : str
        Heading of the section.
    text : str
        Paragraphs (separated by blank lines).
    parameters : dict
        Assumptions and parameters, shown as a key-value table.
    tables : list of TableItem
        Data tables.
    figures : list of FigureItem
        Figures.
    notes : list of str
        Pre-formatted blocks.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.reporting.report import Section
    >>> sec = Section("Bounds", "FPR parity under selection bias.")
    >>> sec = sec.add_parameters({"D": 0.05}).add_table("result", pd.DataFrame({"lower": [-0.17]}))
    >>> sec.parameters, [t.name for t in sec.tables]
    ({'D': 0.05}, ['result'])
    """

    title: str
    text: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    tables: list[TableItem] = field(default_factory=list)
    figures: list[FigureItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add_note(self, text: str) -> Section:
        """A pre-formatted block (e.g. a summary printed by an analysis).

        Parameters
        ----------
        text : str
            Shown as is, in a monospaced box.

        Returns
        -------
        Section
            ``self``, for chaining.

        Examples
        --------
        >>> from fairprobe.reporting.report import Section
        >>> Section("Summary").add_note("fpr_parity in [-0.17, 0.07]").notes
        ['fpr_parity in [-0.17, 0.07]']
        """
        self.notes.append(text)
        return self

    def add_parameters(self, params: dict[str, Any]) -> Section:
        """Assumptions and parameters used, shown as a key-value table.

        Parameters
        ----------
        params : dict
            Name -> value; added to (and overriding) those already there.

        Returns
        -------
        Section
            ``self``, for chaining.

        Examples
        --------
        >>> from fairprobe.reporting.report import Section
        >>> Section("Bounds").add_parameters({"bias": "selection", "D": 0.05}).parameters
        {'bias': 'selection', 'D': 0.05}
        """
        self.parameters.update(params)
        return self

    def add_table(self, name: str, frame: pd.DataFrame, caption: str = "") -> Section:
        """A data table (also written as ``tables/<section>_<name>.csv``).

        Parameters
        ----------
        name : str
            Name of the table.
        frame : pandas.DataFrame
            The data (anything ``pandas.DataFrame`` accepts is converted).
        caption : str
            Shown under the table's name.

        Returns
        -------
        Section
            ``self``, for chaining.

        Examples
        --------
        >>> from fairprobe.reporting.report import Section
        >>> sec = Section("Bounds").add_table("result", {"lower": [-0.17], "upper": [0.07]})
        >>> sec.tables[0].frame.columns.tolist()
        ['lower', 'upper']
        """
        if not isinstance(frame, pd.DataFrame):
            frame = pd.DataFrame(frame)
        self.tables.append(TableItem(name, frame, caption))
        return self

    def add_figure(self, name: str, figure: Any, caption: str = "", dpi: int = 110) -> Section:
        """A matplotlib figure (or axes); it is rendered to PNG and closed.

        Parameters
        ----------
        name : str
            Name of the figure.
        figure : matplotlib.figure.Figure or matplotlib.axes.Axes
            What to render.
        caption : str
            Shown under the figure.
        dpi : int
            Resolution of the PNG.

        Returns
        -------
        Section
            ``self``, for chaining.

        Examples
        --------
        >>> from fairprobe.reporting.plotting import new_axes
        >>> from fairprobe.reporting.report import Section
        >>> ax = new_axes()
        >>> _ = ax.plot([0, 0.05, 0.1], [0.02, 0.08, 0.15])
        >>> sec = Section("Sweep").add_figure("bounds", ax, caption="bounds against D")
        >>> sec.figures[0].caption
        'bounds against D'
        """
        import io

        import matplotlib.pyplot as plt

        fig = getattr(figure, "figure", figure)
        buf = io.BytesIO()
        if fig.get_layout_engine() is None:  # fairprobe's own figures lay themselves out (constrained)
            fig.tight_layout()
        # "tight": the saved image grows to hold every label (tight_layout alone cannot fit a label
        # longer than the figure, and leaves it clipped)
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        plt.close(fig)
        self.figures.append(FigureItem(name, buf.getvalue(), caption))
        return self


@dataclass
class Report:
    """An HTML report shared by all analyses.

    Parameters
    ----------
    title : str
        Title of the page.
    command : str, optional
        The exact command that reproduces the report (default: this process's command line).
    summary : str, optional
        A short readable summary shown first.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairprobe.reporting.report import Report
    >>> rep = Report("FPR audit", command="fairprobe bound ...", summary="fpr_parity in [-0.17, 0.07]")
    >>> sec = rep.section("Bounds", "FPR parity under selection bias.")
    >>> _ = sec.add_table("result", pd.DataFrame({"lower": [-0.17], "upper": [0.07]}))
    >>> page = rep.to_html()
    >>> "<h2 id='s0'>Bounds</h2>" in page
    True
    """

    title: str
    command: str | None = None
    summary: str = ""
    sections: list[Section] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=environment_versions)
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    def __post_init__(self) -> None:
        if self.command is None:
            self.command = command_line()

    def section(self, title: str, text: str = "") -> Section:
        """Add and return a new section.

        Parameters
        ----------
        title : str
            Heading of the section.
        text : str
            Paragraphs (separated by blank lines).

        Returns
        -------
        Section
            The new, last section.

        Examples
        --------
        >>> from fairprobe.reporting.report import Report
        >>> rep = Report("Audit", command="")
        >>> sec = rep.section("Data", "6,172 defendants.")
        >>> [s.title for s in rep.sections]
        ['Data']
        """
        sec = Section(title, text)
        self.sections.append(sec)
        return sec

    # -- output -----------------------------------------------------------------------------------
    def write(self, folder: str | Path, *, force: bool | None = None) -> Path:
        """Write ``index.html``, ``figures/``, ``tables/`` and ``report.json``; return the page's path.

        Parameters
        ----------
        folder : path
            The report folder (created). A folder fairprobe wrote is replaced as a whole.
        force : bool or None
            Also write into a folder holding files fairprobe did not write (see the module
            docstring); without it such a folder raises :class:`~fairprobe.exceptions.ConfigError`.
            None (the default) follows the running command's ``--force``; an explicit value wins.

        Returns
        -------
        Path
            The ``index.html`` page.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> import pandas as pd
        >>> from fairprobe.reporting.report import Report
        >>> rep = Report("FPR audit", command="fairprobe bound ...", summary="fpr_parity in [-0.17, 0.07]")
        >>> sec = rep.section("Bounds", "FPR parity under selection bias.")
        >>> _ = sec.add_table("result", pd.DataFrame({"lower": [-0.17], "upper": [0.07]}))
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     page = rep.write(Path(tmp) / "report")
        ...     print(page.name, sorted(p.name for p in page.parent.iterdir()))
        index.html ['.fairprobe-report.id', 'figures', 'index.html', 'report.json', 'tables']
        """
        out = check_output_folder(folder, force=force)
        replace_folder(out, self.write_files, force=force)
        page = out / "index.html"
        record_written(page)
        return page

    def write_files(self, out: Path) -> None:
        """Write the report's files into the folder ``out`` as they are (no marker check, no replacement:
        :meth:`write` does both); a caller that places the files itself (the study) uses this."""
        (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "tables").mkdir(parents=True, exist_ok=True)
        # a new random id, in report.json and in the hidden file beside it: a report.json copied
        # alone into another folder lacks the matching file, and that folder is not taken for a report
        folder_id = new_folder_id()
        manifest: dict[str, Any] = {"generator": GENERATOR, "title": self.title, "command": self.command,
                                    "summary": self.summary, "versions": self.versions, "created": self.created,
                                    "folder_id": folder_id, "sections": []}
        used: dict[str, set[str]] = {"tables": set(), "figures": set()}

        def unique(stem: str, kind: str) -> str:
            name, k = stem, 2
            while name in used[kind]:
                name, k = f"{stem}_{k}", k + 1
            used[kind].add(name)
            return name

        for k, sec in enumerate(self.sections, start=1):
            entry: dict[str, Any] = {"title": sec.title, "text": sec.text, "notes": sec.notes,
                                     "parameters": {k: _jsonable(v) for k, v in sec.parameters.items()},
                                     "tables": [], "figures": []}
            for t in sec.tables:
                stem = unique(f"s{k}_{_slug(t.name)}", "tables")
                t.frame.to_csv(out / "tables" / f"{stem}.csv", index=_keep_index(t.frame))
                entry["tables"].append({"name": t.name, "caption": t.caption, "file": f"tables/{stem}.csv",
                                        "index": _keep_index(t.frame)})
            for f in sec.figures:
                stem = unique(f"s{k}_{_slug(f.name)}", "figures")
                (out / "figures" / f"{stem}.png").write_bytes(f.png)
                entry["figures"].append({"name": f.name, "caption": f.caption, "file": f"figures/{stem}.png"})
            manifest["sections"].append(entry)
        # the marker lists every file the report writes: only those are replaced by the next report
        manifest["files"] = ["index.html", "report.json",
                             *(item["file"] for entry in manifest["sections"] for kind in ("tables", "figures")
                               for item in entry[kind])]
        (out / ID_FILE).write_text(folder_id + "\n", encoding="utf-8")
        (out / "report.json").write_text(dumps(manifest, indent=2))
        (out / "index.html").write_text(self.to_html())

    def to_html(self) -> str:
        """The whole report as one self-contained HTML page.

        Returns
        -------
        str
            HTML with figures embedded as PNG data, no scripts and no external resources.

        Examples
        --------
        >>> import pandas as pd
        >>> from fairprobe.reporting.report import Report
        >>> rep = Report("FPR audit", command="fairprobe bound ...", summary="fpr_parity in [-0.17, 0.07]")
        >>> sec = rep.section("Bounds", "FPR parity under selection bias.")
        >>> _ = sec.add_table("result", pd.DataFrame({"lower": [-0.17], "upper": [0.07]}))
        >>> html = rep.to_html()
        >>> html.startswith("<!doctype html>"), "<h1>FPR audit</h1>" in html
        (True, True)
        """
        esc = html.escape
        parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(self.title)}</title>",
                 f"<style>{_STYLE}</style></head><body>", f"<h1>{esc(self.title)}</h1>",
                 f"<p class='meta'>Created {esc(self.created)} with fairprobe "
                 f"{esc(self.versions.get('fairprobe', '?'))}.</p>"]
        if self.summary:
            parts.append(f"<div class='note'>{esc(self.summary)}</div>")
        if len(self.sections) > 1:
            parts.append("<ul>" + "".join(f"<li><a href='#s{k}'>{esc(s.title)}</a></li>"
                                          for k, s in enumerate(self.sections)) + "</ul>")
        for k, sec in enumerate(self.sections):
            parts.append(f"<h2 id='s{k}'>{esc(sec.title)}</h2>")
            for para in filter(None, sec.text.split("\n\n")):
                parts.append(f"<p>{esc(para)}</p>")
            for note in sec.notes:
                parts.append(f"<div class='note'>{esc(note)}</div>")
            if sec.parameters:
                parts.append("<h3>Assumptions and parameters</h3>" + _kv_table(sec.parameters))
            for f in sec.figures:
                data = base64.b64encode(f.png).decode("ascii")
                cap = f"<figcaption>{esc(f.caption or f.name)}</figcaption>"
                parts.append(f"<figure><img alt='{esc(f.name)}' src='data:image/png;base64,{data}'>{cap}</figure>")
            for t in sec.tables:
                parts.append(f"<h3>{esc(t.name)}</h3>")
                if t.caption:
                    parts.append(f"<p>{esc(t.caption)}</p>")
                parts.append("<div class='tablewrap'>" + _frame_html(t.frame) + "</div>")
        parts.append("<h2>Reproducibility</h2>")
        parts.append(f"<p>Command:</p><div class='note'>{esc(self.command or '(not recorded)')}</div>")
        parts.append("<h3>Versions</h3>" + _kv_table(self.versions))
        parts.append("</body></html>")
        return "\n".join(parts)


def _keep_index(frame: pd.DataFrame) -> bool:
    return not isinstance(frame.index, pd.RangeIndex)


def _jsonable(value: Any) -> Any:
    value = jsonable(value)
    try:
        dumps(value)
        return value
    except TypeError:
        return str(value)


def _frame_html(frame: pd.DataFrame) -> str:
    # an empty cell for a missing value: na_rep covers NaN, but pandas prints None in a text column as "None"
    text = [k for k, kind in enumerate(frame.dtypes) if pd.api.types.is_object_dtype(kind)]
    if text:
        frame = frame.copy()
        for k in text:
            frame.isetitem(k, frame.iloc[:, k].map(lambda v: "" if v is None else v))
    return frame.to_html(index=_keep_index(frame), border=0, na_rep="", float_format=_number, max_rows=500)


def _number(v: float) -> str:
    """Readable numbers: thousands separators for large values, 4 significant digits otherwise."""
    if abs(v) >= 1e4 and abs(v) < 1e15:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def _shown(value: Any) -> str:
    """A parameter's value as shown in a report: a value that is not set (None) reads "none", never "None"."""
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(v) if v is None or isinstance(v, list | tuple | dict) else repr(v)
                               for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_shown(v) if v is None or isinstance(v, list | tuple | dict) else repr(v)}"
                               for k, v in value.items()) + "}"
    return str(value)


def _kv_table(items: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(_shown(v))}</td></tr>"
                   for k, v in items.items())
    return f"<table class='kv'>{rows}</table>"


def load_report(folder: str | Path) -> Report:
    """Read a report folder written by :meth:`Report.write` back into a :class:`Report`.

    Parameters
    ----------
    folder : path
        A folder written by :meth:`Report.write` (or ``--out``).

    Raises
    ------
    DataError
        When the folder has no ``report.json`` or a file it lists is missing.

    Returns
    -------
    Report
        Title, command, summary, versions and sections (tables and figures read from their files).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.reporting.report import load_report
    >>> import pandas as pd
    >>> from fairprobe.reporting.report import Report
    >>> rep = Report("FPR audit", command="fairprobe bound ...", summary="fpr_parity in [-0.17, 0.07]")
    >>> sec = rep.section("Bounds", "FPR parity under selection bias.")
    >>> _ = sec.add_table("result", pd.DataFrame({"lower": [-0.17], "upper": [0.07]}))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = rep.write(Path(tmp) / "report")
    ...     back = load_report(Path(tmp) / "report")
    >>> back.title, [s.title for s in back.sections], back.sections[0].tables[0].frame.shape
    ('FPR audit', ['Bounds'], (1, 2))
    """
    folder = Path(folder)
    manifest_path = folder / "report.json"
    if not manifest_path.is_file():
        raise DataError(f"{folder} is not a fairprobe report folder (no report.json); write reports with --out.")
    try:
        manifest = json.loads(manifest_path.read_text())
        rep = Report(manifest["title"], command=manifest.get("command", ""), summary=manifest.get("summary", ""),
                     versions=manifest.get("versions", {}), created=manifest.get("created", ""))
        for entry in manifest["sections"]:
            sec = rep.section(entry["title"], entry.get("text", ""))
            sec.notes = list(entry.get("notes", []))
            sec.parameters = dict(entry.get("parameters", {}))
            for t in entry.get("tables", []):
                frame = pd.read_csv(folder / t["file"], index_col=0 if t.get("index") else None)
                sec.tables.append(TableItem(t["name"], frame, t.get("caption", "")))
            for f in entry.get("figures", []):
                sec.figures.append(FigureItem(f["name"], (folder / f["file"]).read_bytes(), f.get("caption", "")))
    except (KeyError, OSError, ValueError) as exc:
        raise DataError(f"Cannot read the report in {folder}: {exc}. Was it written by fairprobe?") from None
    return rep


def merged_heading(report_title: str, section_title: str) -> str:
    """A section's heading in a combined report: ``"<report title>: <section title>"``, without repeats.

    The report's title is left out when the section's title already starts with it (a one-section
    report), and a section title that starts with the report title's last word (``"riskscore:
    ..."`` in the report ``"fairprobe riskscore"``) keeps one copy of it.

    Parameters
    ----------
    report_title, section_title : str

    Returns
    -------
    str

    Examples
    --------
    >>> merged_heading("fairprobe riskscore", "riskscore: per-group calibration")
    'fairprobe riskscore: per-group calibration'
    >>> merged_heading("FPR audit", "Bounds"), merged_heading("Sweep: fpr", "Sweep: fpr")
    ('FPR audit: Bounds', 'Sweep: fpr')
    """
    if not report_title or section_title.startswith(report_title):
        return section_title
    prefix, sep, rest = section_title.partition(": ")
    words = report_title.replace(":", " ").split()
    if sep and rest.strip() and words and prefix.strip().casefold() == words[-1].casefold():
        return f"{report_title}: {rest}"
    return f"{report_title}: {section_title}"


def combine_reports(reports: list[Report], title: str, command: str | None = None) -> Report:
    """One report holding the sections of several, each headed by its report's title.

    Parameters
    ----------
    reports : list of Report
        The reports to merge, in order.
    title : str
        Title of the combined report.
    command : str, optional
        The command that made the combined report (default: this process's command line).

    Returns
    -------
    Report
        Sections titled ``"<report title>: <section title>"`` (:func:`merged_heading`: just the
        report's title when the section's title already starts with it, as in a one-section report,
        and the analysis's name once when both carry it), each recording the
        command that produced it under ``"produced by"``. A heading that would appear twice (two
        reports of the same title) is numbered: ``"... (2)"``.

    Examples
    --------
    >>> from fairprobe.reporting.report import combine_reports
    >>> import pandas as pd
    >>> from fairprobe.reporting.report import Report
    >>> rep = Report("FPR audit", command="fairprobe bound ...", summary="fpr_parity in [-0.17, 0.07]")
    >>> sec = rep.section("Bounds", "FPR parity under selection bias.")
    >>> _ = sec.add_table("result", pd.DataFrame({"lower": [-0.17], "upper": [0.07]}))
    >>> both = combine_reports([rep, Report("Tree audit", command="")], "All audits", command="fairprobe report")
    >>> [s.title for s in both.sections], both.sections[0].parameters
    (['FPR audit: Bounds'], {'produced by': 'fairprobe bound ...'})
    >>> sweep = Report("Sensitivity sweep: fpr_parity", command="")
    >>> _ = sweep.section("Sensitivity sweep: fpr_parity")  # a one-section report: the section has the page's title
    >>> [s.title for s in combine_reports([sweep, sweep], "Audit", command="").sections]
    ['Sensitivity sweep: fpr_parity', 'Sensitivity sweep: fpr_parity (2)']
    """
    out = Report(title, command=command)
    out.summary = "\n\n".join(f"{r.title}\n{r.summary}".strip() for r in reports if r.summary or r.title)
    seen: dict[str, int] = {}
    for r in reports:
        for sec in r.sections:
            heading = merged_heading(r.title, sec.title)
            seen[heading] = seen.get(heading, 0) + 1
            if seen[heading] > 1:
                heading = f"{heading} ({seen[heading]})"
            copy = Section(heading, sec.text, dict(sec.parameters), list(sec.tables),
                           list(sec.figures), list(sec.notes))
            if r.command:
                copy.parameters.setdefault("produced by", r.command)
            out.sections.append(copy)
    return out


def write_report(folder: str | Path, title: str, *, summary: str = "", text: str = "", section: str | None = None,
                 parameters: dict[str, Any] | None = None, figures: dict[str, Any] | None = None,
                 tables: dict[str, pd.DataFrame] | None = None, command: str | None = None,
                 force: bool | None = None) -> Path:
    """A one-section report written to ``folder``; returns the HTML page's path.

    ``figures`` maps names to a matplotlib figure or axes, or to a function drawing one (called
    here, so nothing is drawn for a report that is not written). The folder is checked first
    (:func:`check_output_folder`; ``force`` as in :meth:`Report.write`).

    Parameters
    ----------
    folder : path
        The report folder.
    title : str
        Title of the page (and of the section, unless ``section`` is given).
    summary : str
        Short readable summary shown first.
    text : str
        Text of the section.
    section : str, optional
        Title of the section.
    parameters : dict, optional
        Assumptions and parameters, shown as a key-value table.
    figures : dict, optional
        Name -> figure, axes, or a function drawing one.
    tables : dict of str to DataFrame, optional
        Data tables by name.
    command : str, optional
        The command that reproduces the report (default: this process's command line).
    force : bool
        Write into a folder holding files fairprobe did not write.

    Returns
    -------
    Path
        The ``index.html`` page.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from fairprobe.reporting.plotting import new_axes
    >>> from fairprobe.reporting.report import write_report
    >>> def draw():
    ...     ax = new_axes()
    ...     ax.plot([0, 0.05, 0.1], [0.02, 0.08, 0.15])
    ...     return ax
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     page = write_report(Path(tmp) / "out", "Sweep", parameters={"bias": "selection"}, figures={"bounds": draw},
    ...                         tables={"grid": pd.DataFrame({"D": [0, 0.05, 0.1]})}, command="")
    ...     print(sorted(p.name for p in (page.parent / "figures").iterdir()))
    ['s1_bounds.png']
    """
    check_output_folder(folder, force=force)  # before drawing anything
    rep = Report(title, command=command, summary=summary)
    sec = rep.section(section or title, text)
    if parameters:
        sec.add_parameters(parameters)
    for name, fig in (figures or {}).items():
        sec.add_figure(name, fig() if callable(fig) else fig)
    for name, frame in (tables or {}).items():
        sec.add_table(name, frame)
    return rep.write(folder, force=force)

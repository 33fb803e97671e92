"""One HTML report format for every analysis: tables, figures, assumptions, versions, the command.

A :class:`Report` is a list of sections, each holding text, key-value tables (assumptions and
parameters), data tables and matplotlib figures. :meth:`Report.write` produces a folder an
auditor can hand over:

* ``index.html``: one self-contained page (figures embedded as PNG data, no scripts, no network);
* ``figures/*.png`` and ``tables/*.csv``: the same figures and tables as files (``s<k>_`` names
  the section);
* ``report.json``: the manifest (title, command, versions, sections) that :func:`load_report`
  reads back, so ``fairprobe report A B --out C`` can merge saved reports into one page. It is
  signed (``"generator": "fairprobe"``) so fairprobe can recognise its own folders.

Writing a folder follows three rules (:func:`check_output_folder`, used by the API and by every
command's ``--out`` before any work is done):

* the folder name must not be empty and the folder must be creatable and writable;
* a folder holding anything fairprobe did not write (e.g. a user's own ``index.html``) is
  refused unless ``force=True`` (``--force``); forcing replaces only the report's own entries
  (``index.html``, ``report.json``, ``figures/``, ``tables/``, ``summary.json``) and keeps the
  user's other files;
* a fairprobe report folder is replaced as a whole: the new report is written into a temporary
  sibling folder and then moved into place, so no table or figure of an earlier report is left
  beside the new ones, and a failure half-way leaves the previous report intact.

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
import os
import platform
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.core.jsonsafe import jsonable
from fairprobe.exceptions import ConfigError, DataError

__all__ = ["Report", "Section", "check_output_folder", "combine_reports", "environment_versions", "folder_kind",
           "load_report", "write_report"]

GENERATOR = "fairprobe"  # the signature in report.json that marks a folder fairprobe wrote
REPORT_ENTRIES = frozenset({"index.html", "report.json", "figures", "tables", "summary.json"})
_HARMLESS = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})  # written by file browsers, not by users

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


def environment_versions() -> dict[str, str]:
    """Versions of Python, fairprobe, the numerical stack and every installed solver."""
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("fairprobe", "numpy", "scipy", "pandas", "scikit-learn", "sympy", "statsmodels", "pyscipopt",
                 "gurobipy", "ortools", "cvxpy"):
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
    """A named data table with an optional caption."""

    name: str
    frame: pd.DataFrame
    caption: str = ""


@dataclass
class FigureItem:
    """A named PNG figure with an optional caption."""

    name: str
    png: bytes
    caption: str = ""


@dataclass
class Section:
    """One part of a report: text, parameters, tables and figures, shown in that order."""

    title: str
    text: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    tables: list[TableItem] = field(default_factory=list)
    figures: list[FigureItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add_note(self, text: str) -> Section:
        """A pre-formatted block (e.g. a summary printed by an analysis)."""
        self.notes.append(text)
        return self

    def add_parameters(self, params: dict[str, Any]) -> Section:
        """Assumptions and parameters used, shown as a key-value table."""
        self.parameters.update(params)
        return self

    def add_table(self, name: str, frame: pd.DataFrame, caption: str = "") -> Section:
        """A data table (also written as ``tables/<section>_<name>.csv``)."""
        if not isinstance(frame, pd.DataFrame):
            frame = pd.DataFrame(frame)
        self.tables.append(TableItem(name, frame, caption))
        return self

    def add_figure(self, name: str, figure: Any, caption: str = "", dpi: int = 110) -> Section:
        """A matplotlib figure (or axes); it is rendered to PNG and closed."""
        import io

        import matplotlib.pyplot as plt

        fig = getattr(figure, "figure", figure)
        buf = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buf, format="png", dpi=dpi)
        plt.close(fig)
        self.figures.append(FigureItem(name, buf.getvalue(), caption))
        return self


@dataclass
class Report:
    """An HTML report shared by all analyses.

    Parameters
    ----------
    title : str
    command : str, optional
        The exact command that reproduces the report (default: this process's command line).
    summary : str, optional
        A short readable summary shown first.
    """

    title: str
    command: str | None = None
    summary: str = ""
    sections: list[Section] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=environment_versions)
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    def __post_init__(self) -> None:
        if self.command is None:
            self.command = " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else ""

    def section(self, title: str, text: str = "") -> Section:
        """Add and return a new section."""
        sec = Section(title, text)
        self.sections.append(sec)
        return sec

    # -- output -----------------------------------------------------------------------------------
    def write(self, folder: str | Path, *, force: bool = False) -> Path:
        """Write ``index.html``, ``figures/``, ``tables/`` and ``report.json``; return the page's path.

        Parameters
        ----------
        folder : path
            The report folder (created). A folder fairprobe wrote is replaced as a whole.
        force : bool
            Also write into a folder holding files fairprobe did not write (see the module
            docstring); without it such a folder raises :class:`~fairprobe.exceptions.ConfigError`.
        """
        out = check_output_folder(folder, force=force)
        _replace_folder(out, self._write_files, force=force)
        return out / "index.html"

    def _write_files(self, out: Path) -> None:
        (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "tables").mkdir(parents=True, exist_ok=True)
        manifest: dict[str, Any] = {"generator": GENERATOR, "title": self.title, "command": self.command,
                                    "summary": self.summary, "versions": self.versions, "created": self.created,
                                    "sections": []}
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
        (out / "report.json").write_text(json.dumps(manifest, indent=2))
        (out / "index.html").write_text(self.to_html())

    def to_html(self) -> str:
        """The whole report as one self-contained HTML page."""
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
        json.dumps(value)
        return value
    except TypeError:
        return str(value)


def _frame_html(frame: pd.DataFrame) -> str:
    return frame.to_html(index=_keep_index(frame), border=0, na_rep="", float_format=_number, max_rows=500)


def _number(v: float) -> str:
    """Readable numbers: thousands separators for large values, 4 significant digits otherwise."""
    if abs(v) >= 1e4 and abs(v) < 1e15:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def _kv_table(items: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>" for k, v in items.items())
    return f"<table class='kv'>{rows}</table>"


# -- report folders ---------------------------------------------------------------------------------
def _forced_by_command_line() -> bool:
    """Whether the running ``fairprobe`` command was given ``--force`` (see :mod:`fairprobe.cli.options`)."""
    if "click" not in sys.modules:
        return False
    import click

    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get("fairprobe.force"))


def folder_kind(folder: str | Path) -> str:
    """What a report folder holds: ``"absent"``, ``"empty"``, ``"fairprobe"`` or ``"foreign"``.

    ``"fairprobe"`` means a signed ``report.json`` (or one of the unsigned format fairprobe wrote
    before the signature) and no entry other than a report's own (``index.html``, ``report.json``,
    ``figures/``, ``tables/``, ``summary.json``). Anything else in a non-empty folder is
    ``"foreign"``: fairprobe did not write it.
    """
    path = Path(folder)
    if not path.exists():
        return "absent"
    if not path.is_dir():
        return "foreign"
    names = {p.name for p in path.iterdir()} - _HARMLESS
    if not names:
        return "empty"
    if not names <= REPORT_ENTRIES or "report.json" not in names:
        return "foreign"
    try:
        manifest = json.loads((path / "report.json").read_text())
    except (OSError, ValueError):
        return "foreign"
    if not isinstance(manifest, dict):
        return "foreign"
    legacy = {"title", "sections", "versions"} <= set(manifest) and "fairprobe" in (manifest.get("versions") or {})
    return "fairprobe" if manifest.get("generator") == GENERATOR or legacy else "foreign"


def nearest_existing(path: Path) -> Path:
    """``path`` or its closest existing ancestor (where a new file or folder would be created)."""
    for parent in [path, *path.parents]:
        if parent.exists():
            return parent
    return Path(path.anchor or ".")


def check_output_folder(folder: str | Path | None, *, force: bool = False, option: str = "the report folder") -> Path:
    """Check, before any work, that a report can be written to ``folder``; return it as an absolute path.

    Parameters
    ----------
    folder : path
        The report folder (it need not exist).
    force : bool
        Accept a folder holding files fairprobe did not write.
    option : str
        How the folder is named in messages (``"--out"`` on the command line).

    Raises
    ------
    ConfigError
        The name is empty; the path is a file or lies under a file; the folder (or the nearest
        existing folder above it) is not writable; or the folder holds files fairprobe did not write
        and ``force`` is false.
    """
    if folder is None or not str(folder).strip():
        raise ConfigError(f"The name given for {option} is empty; give a folder name, e.g. {_example(option)}"
                          " (it is created).")
    force = force or _forced_by_command_line()
    path = Path(os.path.abspath(Path(str(folder)).expanduser()))
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {folder} is a file, not a folder; give the name of a new or empty folder.")
    base = nearest_existing(path)
    if not base.is_dir():
        raise ConfigError(f"Cannot create {option} {folder}: {base} is a file, not a folder; choose another path.")
    for where in {base, base.parent} if base == path else {base}:
        # the new report goes to a temporary sibling first, so the parent must be writable too
        if not os.access(where, os.W_OK | os.X_OK):
            raise ConfigError(f"Cannot write {option} {folder}: {where} is not writable; choose a folder you can "
                              "write to.")
    kind = folder_kind(path)
    if kind == "foreign" and not force:
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir() if p.name not in _HARMLESS)
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        raise ConfigError(f"{option} {folder} holds files fairprobe did not write ({shown}); choose a new or empty "
                          "folder, or pass --force (force=True in Python) to write the report into it anyway "
                          "(its index.html, report.json, figures/ and tables/ are replaced, other files are kept).")
    return path


def _example(option: str) -> str:
    return f"{option} report" if option.startswith("--") else "'report'"


def _move(src: Path, dst: Path) -> None:
    try:
        os.replace(src, dst)
    except OSError:  # another file system (e.g. the folder is a mount point)
        shutil.move(str(src), str(dst))


def _replace_folder(out: Path, write: Callable[[Path], None], *, force: bool) -> None:
    """Write a report with ``write(tmp)`` into a temporary sibling of ``out``, then move it into place.

    An absent ``out`` is created by one rename. An existing one keeps its own inode (it may be the
    current directory or a mount point): its entries are moved aside, the new ones moved in, and
    the old ones deleted; a failure puts the old entries back. Only a report's own entries are
    touched in a folder written into with ``force``.
    """
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.fairprobe-new-", dir=parent))
    try:
        write(tmp)
        if not out.exists():
            try:
                os.rename(tmp, out)
                return
            except OSError:
                if not out.is_dir():  # created meanwhile: fall through to the entry-wise replacement
                    raise
        kind = folder_kind(out)
        if kind == "foreign" and not (force or _forced_by_command_line()):  # appeared since the check
            check_output_folder(out, force=False)
        new = [p.name for p in tmp.iterdir()]
        old = [p for p in out.iterdir()
               if kind != "foreign" or p.name in REPORT_ENTRIES or p.name in new]
        trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.fairprobe-old-", dir=parent))
        moved: list[str] = []
        installed: list[str] = []
        try:
            for p in old:
                _move(p, trash / p.name)
                moved.append(p.name)
            for name in new:
                _move(tmp / name, out / name)
                installed.append(name)
        except OSError as exc:
            for name in installed:  # put the previous report back
                target = out / name
                shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
            for name in moved:
                _move(trash / name, out / name)
            raise ConfigError(f"Cannot write the report into {out}: {exc}; check the folder's permissions and free "
                              "space.") from None
        finally:
            shutil.rmtree(trash, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_report(folder: str | Path) -> Report:
    """Read a report folder written by :meth:`Report.write` back into a :class:`Report`.

    Raises
    ------
    DataError
        When the folder has no ``report.json`` or a file it lists is missing.
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


def combine_reports(reports: list[Report], title: str, command: str | None = None) -> Report:
    """One report holding the sections of several, each prefixed with its report's title."""
    out = Report(title, command=command)
    out.summary = "\n\n".join(f"{r.title}\n{r.summary}".strip() for r in reports if r.summary or r.title)
    for r in reports:
        for sec in r.sections:
            copy = Section(f"{r.title}: {sec.title}", sec.text, dict(sec.parameters), list(sec.tables),
                           list(sec.figures), list(sec.notes))
            if r.command:
                copy.parameters.setdefault("produced by", r.command)
            out.sections.append(copy)
    return out


def write_report(folder: str | Path, title: str, *, summary: str = "", text: str = "", section: str | None = None,
                 parameters: dict[str, Any] | None = None, figures: dict[str, Any] | None = None,
                 tables: dict[str, pd.DataFrame] | None = None, command: str | None = None,
                 force: bool = False) -> Path:
    """A one-section report written to ``folder``; returns the HTML page's path.

    ``figures`` maps names to a matplotlib figure or axes, or to a function drawing one (called
    here, so nothing is drawn for a report that is not written). The folder is checked first
    (:func:`check_output_folder`; ``force`` as in :meth:`Report.write`).
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

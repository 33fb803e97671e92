"""The rules of report folders: what may be written where, and how a report replaces an old one.

* :func:`check_output_folder` checks, before any work, that a report can be written to a folder:
  a new or empty folder, or one fairprobe wrote (its own ``report.json``, see below); a folder holding other
  files only with ``force``.
* :func:`replace_folder` writes a report into a temporary sibling and moves it into place, so a
  failure never leaves half a report; the folder gets the user's umask (like ``mkdir``).
* :func:`folder_kind` says what a folder holds.
* :func:`writing` turns a write the system refuses (a full disk, a read-only folder) into one
  :class:`~fairprobe.exceptions.OutputError` (a ``ConfigError`` and an ``OSError``) naming the
  path, the system's reason and the fix.
* :func:`atomic_write` writes a user-named file (``--csv``, ``--plot``) to a temporary file beside
  it and renames it into place: a failure or Ctrl-C leaves no partial file and an old one intact.

``report.json`` lists the files the report wrote (``"files"``). Only those are fairprobe's: a
user's file put into ``tables/`` or ``figures/`` makes the folder one fairprobe did not (only)
write, and is never deleted, ``--force`` or not.

``report.json`` also records ``folder_id``, a random id that the hidden file ``.fairprobe-report.id``
beside it holds too. A ``report.json`` without the matching hidden file (one copied alone from
another report) does not make the folder fairprobe's: it is foreign content like any other, and
the files it lists are not trusted (``--force`` replaces only the files the new report writes).

``force=None`` follows the running ``fairprobe`` command's ``--force``; an explicit
``force=False`` is always honoured.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fairprobe.exceptions import ConfigError, OutputError

__all__ = ["ARGV_KEY", "FILES_KEY", "GENERATOR", "HARMLESS", "ID_FILE", "OUT_KEY", "REPORT_DIRS", "REPORT_ENTRIES",
           "WRITTEN_KEY", "atomic_write", "check_output_folder", "cli_meta", "folder_kind", "foreign_entries",
           "nearest_existing", "new_folder_id", "read_folder_id", "record_written", "recorded_files",
           "replace_folder", "user_umask", "write_failed", "write_fix", "writing"]

GENERATOR = "fairprobe"  # the signature in report.json that marks a folder fairprobe wrote
ARGV_KEY = "fairprobe.argv"  # click context meta: the arguments the running ``fairprobe`` command was given
WRITTEN_KEY = "fairprobe.written"  # click context meta: report pages written while the command runs
OUT_KEY = "fairprobe.out"  # click context meta: (option name, absolute path) of the command's report folder
FILES_KEY = "fairprobe.files"  # click context meta: option name -> absolute path of each output file
ID_FILE = ".fairprobe-report.id"  # the folder's random id, also in its report.json: a copied report.json is no marker
REPORT_ENTRIES = frozenset({"index.html", "report.json", "figures", "tables", "summary.json", ID_FILE})
REPORT_DIRS = ("figures", "tables")  # the report's folders: a user may put files there too, which are kept
HARMLESS = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})  # written by file browsers, not by users


def user_umask() -> int:
    """The process's umask (the permissions a new file of the user's gets), read without changing it."""
    current = os.umask(0)  # reading the umask means setting it; put it straight back
    os.umask(current)
    return current


# -- report folders ---------------------------------------------------------------------------------
def new_folder_id() -> str:
    """A new random id for a report folder (recorded in its ``report.json`` and in :data:`ID_FILE`).

    Examples
    --------
    >>> len(new_folder_id()), new_folder_id() != new_folder_id()
    (32, True)
    """
    return secrets.token_hex(16)


def read_folder_id(folder: str | Path) -> str | None:
    """The random id a report folder's hidden :data:`ID_FILE` holds, or None (no such file, or not an id).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(read_folder_id(tmp))
    None
    """
    try:
        text = (Path(folder) / ID_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if re.fullmatch(r"[0-9a-f]{32}", text) else None


def cli_meta() -> dict[str, Any]:
    """The ``meta`` of the running click command (shared by its whole context chain), or an empty dict.

    Only the command line's own bookkeeping travels this way (the arguments, the pages written, the
    ``--force`` flag when a writer leaves ``force=None``); click is never imported here.

    Returns
    -------
    dict

    Examples
    --------
    >>> cli_meta()  # outside a command
    {}
    """
    if "click" not in sys.modules:
        return {}
    import click

    ctx = click.get_current_context(silent=True)
    return ctx.meta if ctx is not None else {}


def _forced_by_command_line() -> bool:
    """Whether the running ``fairprobe`` command was given ``--force`` (see :mod:`fairprobe.cli.options`)."""
    return bool(cli_meta().get("fairprobe.force"))


def record_written(page: Path) -> None:
    """Tell the running ``fairprobe`` command that a report was written (its ``--out`` announces it once).

    Parameters
    ----------
    page : Path
        The ``index.html`` written.

    Examples
    --------
    >>> from pathlib import Path
    >>> record_written(Path("index.html"))  # outside a command: nothing to tell
    """
    written = cli_meta().get(WRITTEN_KEY)
    if isinstance(written, list) and page not in written:
        written.append(page)


def _option_for(path: Path) -> str | None:
    """The running command's option that named ``path`` (``--out``, ``--plot``, ...), if one did."""
    meta = cli_meta()
    target = Path(os.path.abspath(path))
    out = meta.get(OUT_KEY)
    if out and Path(out[1]) == target:
        return str(out[0])
    for name, file in (meta.get(FILES_KEY) or {}).items():
        if Path(file) == target:
            return str(name)
    return None


def write_failed(path: str | Path, exc: OSError, option: str | None = None) -> OutputError:
    """The one-line error of a write the system refused: the path, the system's reason and the fix.

    Parameters
    ----------
    path : path
        What the user asked to write (the report folder, the plot file), not a temporary file inside it.
    exc : OSError
        The system's refusal (no space left, read-only file system, permission denied, ...).
    option : str, optional
        The option that named ``path`` (default: the running command's option for it, if any).

    Returns
    -------
    OutputError
        To raise (a ``ConfigError`` and an ``OSError`` with ``exc``'s ``errno``; the command line
        prints it as one line, exit code 2).

    Examples
    --------
    >>> import errno, os
    >>> print(write_failed("report", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "--out"))
    Cannot write --out report: No space left on device; free space or choose another --out.
    >>> print(write_failed("audit/index.html", OSError(errno.EROFS, os.strerror(errno.EROFS))))
    Cannot write audit/index.html: Read-only file system; make the folder writable or choose another path.
    """
    option = option or _option_for(Path(path))
    reason = exc.strerror or str(exc) or type(exc).__name__
    where = f"{option} {path}" if option else str(path)
    err = OutputError(f"Cannot write {where}: {reason}; {write_fix(exc.errno)} or choose another {option or 'path'}.")
    err.errno = exc.errno  # (only the number: the message stays the one line above)
    return err


#: The system's refusals that a full disk does not explain: the place is read-only or not the user's.
_NOT_WRITABLE = frozenset(getattr(errno, name) for name in ("EROFS", "EACCES", "EPERM") if hasattr(errno, name))


def write_fix(number: int | None) -> str:
    """The first half of the fix for a refused write with this ``errno`` (``"... or choose another ..."`` follows).

    Parameters
    ----------
    number : int or None
        The ``OSError``'s ``errno``.

    Returns
    -------
    str

    Examples
    --------
    >>> import errno
    >>> write_fix(errno.ENOSPC), write_fix(errno.EROFS)
    ('free space', 'make the folder writable')
    """
    return "make the folder writable" if number in _NOT_WRITABLE else "free space"


@contextlib.contextmanager
def writing(path: str | Path, option: str | None = None) -> Iterator[None]:
    """Inside the block, an ``OSError`` (a full disk, a read-only folder) becomes :func:`write_failed`'s error.

    Parameters
    ----------
    path : path
        What the block writes, as the user named it.
    option : str, optional
        The option that named it (default: the running command's option for ``path``, if any).

    Yields
    ------
    None

    Raises
    ------
    OutputError
        Naming ``path``, the system's reason and the fix (a ``ConfigError`` and an ``OSError``);
        the system's ``OSError`` is its cause.

    Examples
    --------
    >>> import errno, os
    >>> from fairprobe.exceptions import ConfigError
    >>> try:
    ...     with writing("sweep.png", "--plot"):
    ...         raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    ... except ConfigError as err:
    ...     print(err)
    Cannot write --plot sweep.png: No space left on device; free space or choose another --plot.
    """
    try:
        yield
    except OSError as exc:
        raise write_failed(path, exc, option) from exc


def atomic_write(path: str | Path, write: Callable[[Path], Any], option: str | None = None) -> None:
    """Write a user-named file with ``write(tmp)`` into a temporary file beside it, then rename it into place.

    The temporary file is in the same folder (so the rename is atomic) and has the same suffix
    (matplotlib picks the format by it). Whatever stops the write (a full disk, Ctrl-C, an error
    of ``write``) removes the temporary file: no partial file is left, and a file being replaced
    (``--force``) keeps its old content. The new file gets the old file's permissions, or the
    user's umask. A refused write is :func:`write_failed`'s one line.

    Parameters
    ----------
    path : path
        The file, as the user named it (its folder is created).
    write : callable
        Writes the whole file to the path it is given.
    option : str, optional
        The option that named ``path`` (default: the running command's option for it, if any).

    Raises
    ------
    OutputError
        The system refused the write (the temporary file is gone).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     atomic_write(Path(tmp) / "bounds.csv", lambda p: p.write_text("D,lower\\n0,0.1\\n"))
    ...     print(sorted(p.name for p in Path(tmp).iterdir()))
    ['bounds.csv']
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)  # a link: replace its file
    with writing(path, option):
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(target.stat().st_mode) if target.is_file() else 0o666 & ~user_umask()
        handle, name = tempfile.mkstemp(prefix=f".{target.stem}.fairprobe-", suffix=target.suffix,
                                        dir=target.parent)
        os.close(handle)
    tmp = Path(name)
    try:
        with writing(path, option):
            write(tmp)
            os.chmod(tmp, mode)  # mkstemp makes it private (0o600)
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def folder_kind(folder: str | Path) -> str:
    """What a report folder holds: ``"absent"``, ``"empty"``, ``"fairprobe"`` or ``"foreign"``.

    ``"fairprobe"`` means a signed ``report.json`` whose ``folder_id`` matches the hidden
    ``.fairprobe-report.id`` beside it (a ``report.json`` copied alone from another report does not
    count) and no entry other than a report's own (``index.html``, ``report.json``,
    ``.fairprobe-report.id``, ``figures/``, ``tables/``, ``summary.json``), with only the files the report wrote in
    ``figures/`` and ``tables/``. Anything else in a non-empty folder is ``"foreign"``: fairprobe
    did not write it (:func:`foreign_entries` lists it).

    Parameters
    ----------
    folder : path
        The folder to inspect (it need not exist).

    Returns
    -------
    str
        ``"absent"``, ``"empty"``, ``"fairprobe"`` or ``"foreign"``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.reporting.report import Report, folder_kind
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     before = folder_kind(Path(tmp) / "report")
    ...     _ = Report("Audit", command="").write(Path(tmp) / "report")
    ...     _ = (Path(tmp) / "notes.txt").write_text("mine")
    ...     print(before, folder_kind(Path(tmp) / "report"), folder_kind(tmp))
    absent fairprobe foreign
    """
    path = Path(folder)
    if not path.exists():
        return "absent"
    if not path.is_dir():
        return "foreign"
    if not {p.name for p in path.iterdir()} - HARMLESS:
        return "empty"
    return "foreign" if foreign_entries(path) else "fairprobe"


def _manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's own ``report.json``: signed by fairprobe and recording the id of the folder's hidden
    :data:`ID_FILE`; else None (no report.json, another program's, or one copied from another report)."""
    try:
        manifest = json.loads((folder / "report.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("generator") != GENERATOR:
        return None
    own = read_folder_id(folder)
    return manifest if own is not None and manifest.get("folder_id") == own else None


def recorded_files(folder: str | Path) -> set[str] | None:
    """The files a report wrote in ``folder`` (paths relative to it), from its own ``report.json``; None if none.

    Its own: signed, and recording the id the folder's hidden ``.fairprobe-report.id`` holds; the
    list of a ``report.json`` copied from another report is not trusted.

    A report of an earlier version, without the ``"files"`` list, is read from the tables and
    figures its sections name.

    Parameters
    ----------
    folder : path
        A report folder.

    Returns
    -------
    set of str or None
        E.g. ``{"index.html", "report.json", "tables/s1_result.csv"}``; None when the folder has no
        report.json fairprobe wrote.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from fairprobe.reporting.report import Report
    >>> rep = Report("Audit", command="")
    >>> _ = rep.section("Bounds").add_table("result", pd.DataFrame({"lower": [0.1]}))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = rep.write(tmp)
    ...     print(sorted(recorded_files(tmp)), recorded_files(Path(tmp) / "tables"))
    ['index.html', 'report.json', 'tables/s1_result.csv'] None
    """
    manifest = _manifest(Path(folder))
    if manifest is None:
        return None
    files = manifest.get("files")
    if isinstance(files, list):
        return {f for f in files if isinstance(f, str)}
    found = {"index.html", "report.json"}
    for section in manifest.get("sections") or []:
        for kind in REPORT_DIRS:
            for item in (section.get(kind) or []) if isinstance(section, dict) else []:
                if isinstance(item, dict) and isinstance(item.get("file"), str):
                    found.add(item["file"])
    return found


def foreign_entries(folder: str | Path) -> list[str]:
    """What ``folder`` holds that fairprobe did not write (relative names; a folder ends in ``/``), sorted.

    A folder without its own ``report.json`` (signed, with the folder's id) is the user's as a whole: all its entries
    are listed. Otherwise the entries other than a report's own, and the files in ``tables/`` and
    ``figures/`` that its ``report.json`` does not list.

    Parameters
    ----------
    folder : path
        An existing folder.

    Returns
    -------
    list of str
        E.g. ``["notes.txt", "tables/my_analysis.csv"]``; empty for a report folder fairprobe wrote.

    Examples
    --------
    >>> import tempfile
    >>> from fairprobe.reporting.report import Report
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Report("Audit", command="").write(tmp)
    ...     _ = (Path(tmp) / "tables" / "mine.csv").write_text("x")
    ...     print(foreign_entries(tmp))
    ['tables/mine.csv']
    """
    path = Path(folder)

    def shown(p: Path, rel: str) -> str:
        return rel + ("/" if p.is_dir() and not p.is_symlink() else "")

    entries = [p for p in path.iterdir() if p.name not in HARMLESS]
    recorded = recorded_files(path)
    if recorded is None:
        return sorted(shown(p, p.name) for p in entries)
    found = []
    for p in entries:
        if p.name not in REPORT_ENTRIES:
            found.append(shown(p, p.name))
        elif p.name in REPORT_DIRS:
            if not p.is_dir() or p.is_symlink():
                found.append(p.name)
                continue
            found += [shown(q, f"{p.name}/{q.name}") for q in p.iterdir()
                      if q.name not in HARMLESS and (f"{p.name}/{q.name}" not in recorded or not q.is_file())]
    return sorted(found)


def nearest_existing(path: Path) -> Path:
    """``path`` or its closest existing ancestor (where a new file or folder would be created).

    Parameters
    ----------
    path : Path
        A path that may not exist yet.

    Returns
    -------
    Path
        The first of ``path``, its parent, grandparent, ... that exists.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.reporting.report import nearest_existing
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(nearest_existing(Path(tmp) / "a" / "b") == Path(tmp))
    True
    """
    for parent in [path, *path.parents]:
        if parent.exists():
            return parent
    return Path(path.anchor or ".")


def _can_create_in(folder: Path) -> bool:
    """Whether a folder can be made in ``folder``: os.access says yes for /proc and read-only mounts."""
    import tempfile

    try:
        os.rmdir(tempfile.mkdtemp(prefix=".fairprobe-probe-", dir=folder))
    except OSError:
        return False
    return True


def check_output_folder(folder: str | Path | None, *, force: bool | None = None,
                        option: str = "the report folder") -> Path:
    """Check, before any work, that a report can be written to ``folder``; return it as an absolute path.

    Parameters
    ----------
    folder : path
        The report folder (it need not exist).
    force : bool or None
        Accept a folder holding files fairprobe did not write. None (the default) follows the
        running ``fairprobe`` command's ``--force`` (False outside a command); an explicit value
        always wins.
    option : str
        How the folder is named in messages (``"--out"`` on the command line).

    Raises
    ------
    ConfigError
        The name is empty; the path is a file or lies under a file; the folder (or the nearest
        existing folder above it) is not writable; or the folder holds files fairprobe did not write
        and ``force`` is false.

    Returns
    -------
    Path
        The folder as an absolute path.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.exceptions import ConfigError
    >>> from fairprobe.reporting.report import check_output_folder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(check_output_folder(Path(tmp) / "new").name)
    ...     _ = (Path(tmp) / "notes.txt").write_text("mine")
    ...     try:
    ...         check_output_folder(tmp)
    ...     except ConfigError as err:
    ...         print("refused:", "fairprobe did not write (notes.txt)" in str(err))
    ...     print(check_output_folder(tmp, force=True) == Path(tmp).resolve())
    new
    refused: True
    True
    """
    if folder is None or not str(folder).strip():
        raise ConfigError(f"The name given for {option} is empty; give a folder name, e.g. {_example(option)}"
                          " (it is created).")
    force = _forced_by_command_line() if force is None else bool(force)
    path = Path(os.path.abspath(Path(str(folder)).expanduser()))
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {folder} is a file, not a folder; give the name of a new or empty folder.")
    base = nearest_existing(path)
    if not base.is_dir():
        raise ConfigError(f"Cannot create {option} {folder}: {base} is a file, not a folder; choose another path.")
    for where in {base, base.parent} if base == path else {base}:
        # the new report goes to a temporary sibling first, so the parent must be writable too
        if not os.access(where, os.W_OK | os.X_OK) or not _can_create_in(where):
            raise ConfigError(f"Cannot write {option} {folder}: {where} is not writable; choose a folder you can "
                              "write to.")
    kind = folder_kind(path)
    if kind == "foreign" and not force:
        names = foreign_entries(path)
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        raise ConfigError(f"{option} {folder} holds files fairprobe did not write ({shown}); choose a new or empty "
                          "folder, or pass --force (force=True in Python) to write the report into it anyway "
                          "(its index.html, report.json and the report's files in figures/ and tables/ are "
                          "replaced; every other file is kept).")
    return path


def _example(option: str) -> str:
    return f"{option} report" if option.startswith("--") else "'report'"


def _move(src: Path, dst: Path) -> None:
    try:
        os.replace(src, dst)
    except OSError:  # another file system (e.g. the folder is a mount point)
        shutil.move(str(src), str(dst))


def replace_folder(out: Path, write: Callable[[Path], None], *, force: bool | None) -> None:
    """Write a report with ``write(tmp)`` into a temporary sibling of ``out``, then move it into place.

    An absent ``out`` is created by one rename. An existing one keeps its own inode (it may be the
    current directory or a mount point): its entries are moved aside, the new ones moved in, and
    the old ones deleted; a failure puts the old entries back. Only the files the old report wrote
    (its ``report.json`` lists them) and those the new one overwrites are replaced: a user's file in
    ``tables/`` or ``figures/``, or beside them in a folder written into with ``force``, is kept.

    Parameters
    ----------
    out : Path
        The report folder.
    write : callable
        Writes the report's files into the folder it is given.
    force : bool or None
        As in :func:`check_output_folder`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     replace_folder(Path(tmp) / "r", lambda d: (d / "index.html").write_text("<p>hi</p>"), force=None)
    ...     print(sorted(p.name for p in (Path(tmp) / "r").iterdir()))
    ['index.html']
    """
    parent = out.parent
    with writing(out):  # a full disk or a read-only folder: one line naming the folder and the fix
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.fairprobe-new-", dir=parent))
    try:
        with writing(out):
            os.chmod(tmp, 0o777 & ~user_umask())  # mkdtemp makes it private (0o700); the report gets the user's umask
            write(tmp)
        if not out.exists():
            try:
                os.rename(tmp, out)
                return
            except OSError as exc:
                if not out.is_dir():  # created meanwhile: fall through to the entry-wise replacement
                    raise write_failed(out, exc) from exc
        kind = folder_kind(out)
        if kind == "foreign" and not (_forced_by_command_line() if force is None else force):  # appeared since
            check_output_folder(out, force=False)
        old, new_top = _replaced_entries(out, tmp)
        with writing(out):
            trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.fairprobe-old-", dir=parent))
        try:
            _swap_entries(out, tmp, trash, old, new_top)
        finally:
            shutil.rmtree(trash, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _replaced_entries(out: Path, tmp: Path) -> tuple[list[str], list[str]]:
    """What the new report in ``tmp`` replaces in ``out`` (the old report's files and what it overwrites), and
    the new report's top-level entries; a user's files in ``tables/`` or ``figures/`` are not replaced."""
    recorded = recorded_files(out)
    mine = recorded or set()
    new_top = [p.name for p in tmp.iterdir()]
    new_files = {f"{name}/{q.name}" for name in new_top if name in REPORT_DIRS and (tmp / name).is_dir()
                 for q in (tmp / name).iterdir()}
    old: list[str] = []
    for p in out.iterdir():
        if p.name in REPORT_DIRS and p.is_dir() and not p.is_symlink():  # the user's files in it stay
            old += [f"{p.name}/{q.name}" for q in p.iterdir()
                    if f"{p.name}/{q.name}" in mine or f"{p.name}/{q.name}" in new_files]
        elif p.name in new_top or (recorded is not None and p.name in REPORT_ENTRIES):
            old.append(p.name)
    return old, new_top


def _swap_entries(out: Path, tmp: Path, trash: Path, old: list[str], new_top: list[str]) -> None:
    """Move ``old`` entries of ``out`` into ``trash`` and the new report's in; on failure put the old ones back."""
    moved: list[str] = []
    installed: list[str] = []
    try:
        for rel in old:
            (trash / rel).parent.mkdir(exist_ok=True)
            _move(out / rel, trash / rel)
            moved.append(rel)
        for name in new_top:
            target = out / name
            if name in REPORT_DIRS and (tmp / name).is_dir() and target.is_dir() and not target.is_symlink():
                for q in (tmp / name).iterdir():  # into the folder the user's files are in
                    _move(q, target / q.name)
                    installed.append(f"{name}/{q.name}")
            else:
                _move(tmp / name, target)
                installed.append(name)
    except OSError as exc:
        for rel in reversed(installed):  # put the previous report back
            target = out / rel
            shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
        for rel in moved:
            _move(trash / rel, out / rel)
        raise write_failed(out, exc) from None

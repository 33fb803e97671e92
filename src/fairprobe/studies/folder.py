"""The output folder of a study: what marks it, one run at a time, and what ``force`` removes.

* **The marker** is ``spec.json``: the spec, its fingerprint, the signature
  ``"generator": "fairprobe"`` (as a report folder's ``report.json``, see
  :mod:`fairprobe.reporting.folders`), ``written``, the list of the files the study wrote in the
  folder, one by one, also inside ``report/`` (the models and units are listed before they are
  written), and ``folder_id``, a random id that the hidden file ``.fairprobe.id``, written
  when the study first used the folder, also holds. A ``spec.json`` copied alone into another
  folder is therefore no marker there (a whole study folder copied is still a study). A non-empty
  folder without the marker is refused unless ``force``: whatever the names of its files,
  fairprobe did not write them.
* **One run at a time**: a run holds ``.fairprobe-study.lock`` (its PID, host and start) under an
  exclusive ``fcntl.flock`` lock, which the system releases when the process ends, however it ends;
  a second run on the folder is refused with the first one's PID. Where ``flock`` is missing the
  file is created exclusively and taken over when its PID is no longer running.
* **force** starts over by removing the files the marker lists, and nothing else: a user's files,
  also inside ``models/``, ``units/``, ``figures/``, ``report/`` or ``report/tables/``, are kept;
  a folder is removed only when it is left empty.
* **Every file** goes to a uniquely named temporary file beside it and is then moved into place,
  so a stopped run never leaves half a file and two writers never share a temporary name. A write
  that fails (a full disk, a read-only folder) is a :class:`~fairprobe.exceptions.ConfigError`
  naming the file, the system's reason and the fix.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import re
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError, FairprobeError
from fairprobe.reporting.folders import GENERATOR, HARMLESS, REPORT_ENTRIES, folder_kind, user_umask

try:
    import fcntl
except ImportError:  # Windows: the lock file is created exclusively instead
    fcntl = None  # type: ignore[assignment]

__all__ = ["FOLDER_ID", "LOCK", "MARKER", "StudyFolder", "check_study_folder", "folder_lock", "open_study_folder",
           "write_file"]

MARKER = "spec.json"
LOCK = ".fairprobe-study.lock"
FOLDER_ID = ".fairprobe.id"  # the folder's random id, also in its marker: a copied spec.json is no marker
TEMP_PREFIX = ".fairprobe-"  # temporary files: ".fairprobe-<random>.tmp", beside the file they become
TABLES = ("results.csv", "results.parquet", "models.csv", "fragility.csv", "ranking.csv")
#: The shapes of the files a study writes: an entry of the marker's list that is not one of them is ignored.
OWN_FILE = re.compile(r"(?:models|units)/[0-9a-f]{24}\.json|" + "|".join(re.escape(t) for t in TABLES)
                      + r"|figures/(?:figure5|dataset_[A-Za-z0-9][A-Za-z0-9_.-]*)\.png"
                      + r"|report/(?:" + "|".join(re.escape(e) for e in sorted(REPORT_ENTRIES)) + ")"
                      + r"|report/tables/[A-Za-z0-9_.-]+\.csv|report/figures/[A-Za-z0-9_.-]+\.png")
#: Entries of markers written before the report's files were listed one by one: read through its report.json.
REPORT_FOLDERS = ("report/tables", "report/figures")
UNIT_FILE = re.compile(r"[0-9a-f]{24}\.json")
_HELD: dict[str, Callable[[], None]] = {}  # folders whose lock this process holds -> release


# -- writing ----------------------------------------------------------------------------------------
def _hint(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1), errno.EFBIG):
        return "free some space or choose another output folder"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "make the folder writable or choose another output folder"
    return "check the folder or choose another output folder"


@contextlib.contextmanager
def writing(target: Path) -> Iterator[None]:
    """Turn an ``OSError`` in the block into a :class:`ConfigError` naming ``target`` and the fix.

    Examples
    --------
    >>> import errno
    >>> try:
    ...     with writing(Path("out") / "results.csv"):
    ...         raise OSError(errno.ENOSPC, "No space left on device")
    ... except ConfigError as err:
    ...     print(err)
    cannot write out/results.csv: No space left on device; free some space or choose another output folder.
    """
    try:
        yield
    except FairprobeError:  # already one line naming the file and the fix (e.g. the report writer's)
        raise
    except OSError as exc:
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}; {_hint(exc)}.") from None


def write_file(target: Path, write: Callable[[Path], Any], *, mode: int | None = None) -> None:
    """Write ``target`` through ``write(temporary path)`` and move it into place (atomic).

    The temporary file is named uniquely beside ``target``; it is removed when the write fails,
    and a failure is a :class:`ConfigError` naming ``target``.

    Parameters
    ----------
    target : Path
        The file.
    write : callable
        Writes the content to the path it is given.
    mode : int, optional
        Permissions (default: those of a new file under the user's umask).

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_file(Path(tmp) / "a.txt", lambda p: p.write_text("hi"))
    ...     print([p.name for p in Path(tmp).iterdir()], (Path(tmp) / "a.txt").read_text())
    ['a.txt'] hi
    """
    with writing(target):
        fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".tmp", dir=target.parent)
        os.close(fd)
        tmp = Path(name)
        try:
            os.chmod(tmp, 0o666 & ~user_umask() if mode is None else mode)  # mkstemp makes it private
            write(tmp)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


def write_json(target: Path, data: Any, *, mode: int | None = None) -> None:
    """Write ``data`` as JSON to ``target`` (see :func:`write_file`)."""
    text = dumps(data)
    write_file(target, lambda p: p.write_text(text, encoding="utf-8"), mode=mode)


_OUT = "the output folder (--out)"


def _named(folder: str | os.PathLike, option: str | None) -> str:
    """The folder as messages name it, at the start of a sentence: ``--out cc`` or ``The output folder cc (--out)``."""
    return f"{option} {folder}" if option else f"The output folder {folder} (--out)"


# -- the lock -----------------------------------------------------------------------------------------
def _key(folder: str | os.PathLike) -> str:
    return os.path.realpath(os.path.abspath(Path(str(folder)).expanduser()))


def _holder_text() -> str:
    from fairprobe.core.jsonsafe import dumps

    return dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "started": _dt.datetime.now().astimezone().isoformat(timespec="seconds")})


def _parse_holder(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _pid_running(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would send Ctrl-C there
        try:
            import psutil
        except ImportError:
            return True  # cannot tell: the message names the lock file to remove
        return bool(psutil.pid_exists(pid))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _lock_holder(folder: Path) -> dict[str, Any] | None:
    """Who holds the folder's lock, or None if no running process does (no lock, or a stale one)."""
    if _key(folder) in _HELD:
        return None
    lock = folder / LOCK
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        text = os.read(fd, 4096).decode("utf-8", "replace")
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return _parse_holder(text)
            except OSError:  # no flock on this file system: the PID decides, as below
                pass
            else:
                return None  # the process that held it has ended
    finally:
        os.close(fd)
    holder = _parse_holder(text)
    same_host = holder.get("host") in (None, socket.gethostname())
    return {**holder, "by_pid": True} if not same_host or _pid_running(holder.get("pid")) else None


def _in_use(folder: str | os.PathLike, holder: dict[str, Any], option: str | None, *,
            by_pid: bool = False) -> ConfigError:
    """The refusal of a folder another run holds; ``by_pid``: the lock is a file whose PID decides (no flock)."""
    pid = holder.get("pid")
    where = "" if holder.get("host") in (None, socket.gethostname()) else f" on {holder['host']}"
    since = f", started {holder['started']}" if holder.get("started") else ""
    who = f"PID {pid}{where}{since}" if pid is not None else "starting now"
    stop = f" or stop it (kill {pid})" if pid is not None and not where else ""
    stale = f" If no study runs there any more, delete {Path(str(folder)) / LOCK}." if by_pid else ""
    return ConfigError(f"{_named(folder, option)} is in use by another fairprobe study ({who}); wait for it to "
                       f"finish{stop}, or choose another folder.{stale}")


def _flock(fd: int) -> bool:
    """Take the exclusive lock of ``fd``; False if a running process holds it.

    A check of the folder (:func:`_lock_holder`) holds a shared lock for an instant: a few tries
    tell that from a run, which holds it for as long as it works.
    """
    for attempt in range(10):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if attempt < 9:
                time.sleep(0.02)
    return False


def _lock_flock(lock: Path, folder: str | os.PathLike, option: str | None) -> Callable[[], None]:
    for _ in range(20):
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            taken = _flock(fd)
        except BaseException:
            os.close(fd)
            raise
        if not taken:
            text = os.read(fd, 4096).decode("utf-8", "replace")
            os.close(fd)
            raise _in_use(folder, _parse_holder(text), option)
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino  # not a file its last holder just removed
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    else:
        raise ConfigError(f"{_named(folder, option)}: its lock file {lock} keeps changing; is another study starting "
                          "there? Run one study per folder.")
    os.ftruncate(fd, 0)
    os.write(fd, _holder_text().encode())

    def release() -> None:
        with contextlib.suppress(OSError):
            lock.unlink()  # while still locked: a waiting run then finds the file gone and makes a new one
        os.close(fd)

    return release


def _lock_exclusive(lock: Path, folder: str | os.PathLike, option: str | None) -> Callable[[], None]:
    for _ in range(5):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            try:
                text = lock.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                continue
            holder = _parse_holder(text)
            if holder.get("host") not in (None, socket.gethostname()) or _pid_running(holder.get("pid")):
                raise _in_use(folder, holder, option, by_pid=True) from None
            aside = lock.with_name(f"{TEMP_PREFIX}{os.getpid()}-stale.tmp")
            try:  # one run takes a stale lock over: the rename succeeds for one of them
                os.replace(lock, aside)
            except FileNotFoundError:
                continue
            fresh = aside.read_text(encoding="utf-8", errors="replace")
            if fresh != text:  # another run took it over meanwhile: put its lock back
                with contextlib.suppress(OSError):
                    os.replace(aside, lock)
                raise _in_use(folder, _parse_holder(fresh), option, by_pid=True) from None
            aside.unlink(missing_ok=True)
            continue
        try:
            os.write(fd, _holder_text().encode())
        finally:
            os.close(fd)

        def release() -> None:
            with contextlib.suppress(OSError):
                if _parse_holder(lock.read_text()).get("pid") == os.getpid():
                    lock.unlink()

        return release
    raise ConfigError(f"{_named(folder, option)}: could not take its lock {lock}; run one study per folder.")


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike, *, option: str | None = None) -> Iterator[Path]:
    """Hold the study lock of ``folder`` (created if missing) for the block.

    Parameters
    ----------
    folder : path
        The study's output folder.
    option : str, optional
        How the folder is named in messages (e.g. ``"--out"``); by default "the output folder (--out)",
        which reads right from Python and from the command line.

    Yields
    ------
    Path
        The folder as an absolute path.

    Raises
    ------
    ConfigError
        Another process (or another study of this one) holds the lock; the message names its PID.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with folder_lock(tmp) as path:
    ...         held = (path / LOCK).exists()
    ...     print(held, (path / LOCK).exists())
    True False
    """
    path = Path(os.path.abspath(Path(str(folder)).expanduser()))
    key = _key(path)
    if key in _HELD:
        raise _in_use(folder, {"pid": os.getpid()}, option)
    lock = path / LOCK
    with writing(path):
        path.mkdir(parents=True, exist_ok=True)
    with writing(lock):
        release = None
        if fcntl is not None:
            try:
                release = _lock_flock(lock, folder, option)
            except OSError as exc:
                if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    raise
        if release is None:
            release = _lock_exclusive(lock, folder, option)
    _HELD[key] = release
    try:
        yield path
    finally:
        _HELD.pop(key, None)
        release()


# -- the marker and the folder check -----------------------------------------------------------------
def _report_files(folder: Path) -> set[str]:
    """The files of the study's report in ``folder / "report"``, as its ``report.json`` lists them.

    For a marker that listed ``report/tables`` and ``report/figures`` as folders: only the tables
    and figures the report wrote are the study's, not a user's files beside them.
    """
    try:
        manifest = json.loads((folder / "report" / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(manifest, dict) or manifest.get("generator") != GENERATOR:
        return set()
    found = {"report/index.html", "report/report.json"}
    for section in manifest.get("sections") or []:
        for item in [*(section.get("tables") or []), *(section.get("figures") or [])] \
                if isinstance(section, dict) else []:
            name = f"report/{item.get('file')}" if isinstance(item, dict) else ""
            if OWN_FILE.fullmatch(name) and name not in REPORT_FOLDERS:
                found.add(name)
    return found


def _expanded(folder: Path, written: Iterable[Any]) -> set[str]:
    """The marker's list of files: the study's shapes only, the report's folders read as their files."""
    names = {w for w in written if isinstance(w, str) and OWN_FILE.fullmatch(w)}
    if names & set(REPORT_FOLDERS):
        names = (names - set(REPORT_FOLDERS)) | _report_files(folder)
    return names


def _legacy_written(folder: Path) -> set[str]:
    """The files a study of an earlier version wrote (its ``spec.json`` kept no list)."""
    found = {f"{sub}/{p.name}" for sub in ("models", "units") if (folder / sub).is_dir()
             for p in (folder / sub).iterdir() if UNIT_FILE.fullmatch(p.name)}
    found |= {t for t in TABLES if (folder / t).is_file()}
    if (folder / "figures").is_dir():
        found |= {f"figures/{p.name}" for p in (folder / "figures").iterdir()
                  if OWN_FILE.fullmatch(f"figures/{p.name}")}
    if folder_kind(folder / "report") == "fairprobe":
        found |= {f"report/{p.name}" for p in (folder / "report").iterdir() if p.name in REPORT_ENTRIES}
    return _expanded(folder, found)


def folder_id(folder: Path) -> str | None:
    """The random id of a study's folder (its hidden ``.fairprobe.id``), or None."""
    try:
        text = (folder / FOLDER_ID).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if re.fullmatch(r"[0-9a-f]{32}", text) else None


def _raw_marker(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _copied_marker(folder: Path) -> bool:
    """Whether ``spec.json`` is a study's marker written for another folder (copied alone)."""
    data = _raw_marker(folder)
    return data is not None and data.get("generator") == GENERATOR and data.get("kind") == "study" \
        and read_marker(folder) is None


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The study's marker in ``folder`` (``spec.json``), with ``written`` filled in; None if there is none.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(read_marker(Path(tmp)))
    None
    """
    data = _raw_marker(folder)
    if data is None:
        return None
    if data.get("generator") == GENERATOR and data.get("kind") == "study" and isinstance(data.get("written"), list):
        # the folder's own marker: the id it records is the one the folder's hidden file holds
        own = folder_id(folder)
        if own is None or data.get("folder_id") != own:
            return None
        return {**data, "written": _expanded(folder, data["written"])}
    if set(data) == {"fingerprint", "spec"} and isinstance(data["spec"], dict) and (folder / "models").is_dir() \
            and any(UNIT_FILE.fullmatch(p.name) for p in (folder / "models").iterdir()):
        # written before the signature, in a folder holding the study's trained models
        return {**data, "written": _legacy_written(folder)}
    return None


def _is_ours(name: str) -> bool:
    """Entries a run leaves beside the study's files: its lock, and a stopped run's temporary files."""
    return name in (LOCK, FOLDER_ID) or (name.startswith(TEMP_PREFIX) and name.endswith(".tmp"))


def check_study_folder(out: str | os.PathLike, *, force: bool = False, option: str | None = None,
                       inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """The output folder as an absolute path, after checking that a study can be written there.

    A missing or empty folder, or a study's folder (its signed ``spec.json``) is fine; a folder
    holding anything else needs ``force`` (the study's files are then written beside the others,
    replacing files of the same names, and the others are kept). A folder another run is using is
    refused, as is a folder where the study would overwrite one of its ``inputs``.

    Parameters
    ----------
    out : path
        The folder.
    force : bool
        Accept a folder holding other files.
    option : str, optional
        How the folder is named in messages (e.g. ``"--out"``); by default "the output folder (--out)",
        which reads right from Python and from the command line.
    inputs : paths
        Files the study reads (the spec, data files): never overwritten.

    Returns
    -------
    Path

    Raises
    ------
    ConfigError
        An empty name, a file, a path below a file, a folder in use, a folder holding other files
        without ``force``, or an input the study would overwrite.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "results.csv").write_text("mine")
    ...     try:
    ...         check_study_folder(tmp)
    ...     except ConfigError as err:
    ...         print("refused:", "(results.csv)" in str(err))
    refused: True
    """
    if out is None or not str(out).strip():
        raise ConfigError(f"The name given for {option or _OUT} is empty; give a folder name, e.g. study-out "
                          "(it is created).")
    path = Path(os.path.abspath(Path(str(out)).expanduser()))
    for above in (path, *path.parents):
        if above.exists() and not above.is_dir():
            raise ConfigError(f"{_named(out, option)}: {above} is a file, not a folder; give the name of a new folder.")
        if above.exists():
            break
    for given in inputs:
        source = Path(os.path.abspath(Path(str(given)).expanduser()))
        try:
            inside = source.relative_to(path).as_posix()
        except ValueError:
            continue
        if inside == MARKER or OWN_FILE.fullmatch(inside):
            raise ConfigError(f"{_named(out, option)}: the study would overwrite {source}, which it reads; move that "
                              "file or choose another output folder.")
    if not path.is_dir():
        return path
    holder = _lock_holder(path)
    if holder is not None:
        raise _in_use(out, holder, option, by_pid=bool(holder.get("by_pid")))
    if force or read_marker(path) is not None:
        return path
    other = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir()
                   if p.name not in HARMLESS and not _is_ours(p.name))
    if other:
        shown = ", ".join(other[:5]) + (f" and {len(other) - 5} more" if len(other) > 5 else "")
        copied = (f" (its {MARKER} was written for another folder, or the hidden {FOLDER_ID} beside it was lost: "
                  "a study folder is copied as a whole)") if _copied_marker(path) else ""
        raise ConfigError(f"{_named(out, option)} holds files fairprobe did not write ({shown}){copied}; choose a new "
                          "or empty folder, or pass --force (force=True in Python) to write the study there anyway "
                          "(its spec.json, tables, figures/, report/, models/ and units/ files are written beside "
                          "yours, replacing files of the same names; your other files are kept).")
    return path


class StudyFolder:
    """A study's folder while a run holds its lock: the files written and the marker that lists them.

    Parameters
    ----------
    path : Path
        The folder (absolute).
    written : set of str
        The files the study wrote there, relative to ``path``.
    """

    def __init__(self, path: Path, written: set[str], folder_id: str | None = None) -> None:
        self.path = path
        self.written = set(written)
        self.mode = 0o666 & ~user_umask()
        self.folder_id = folder_id or secrets.token_hex(16)
        self.trusted = set(written)  # the files the marker listed when the run began: the study's to read

    def write(self, name: str, write: Callable[[Path], Any]) -> Path:
        """Write ``name`` (relative to the folder) through ``write(temporary path)`` and list it."""
        target = self.path / name
        write_file(target, write, mode=self.mode)
        self.written.add(name)
        return target

    def write_json(self, name: str, data: Any) -> Path:
        """Write ``data`` as JSON to ``name`` (relative to the folder), listed beforehand by the run."""
        target = self.path / name
        write_json(target, data, mode=self.mode)
        return target

    def remove(self, names: Iterable[str]) -> None:
        """Remove the listed files the study wrote (a user's files are never listed), and its folders left empty.

        A listed name that is a folder is never removed with what it holds: it goes only when empty.
        """
        emptied = set()
        for name in sorted(set(names), reverse=True):
            if not OWN_FILE.fullmatch(name):
                continue
            target = self.path / name
            with writing(target):
                if target.is_dir() and not target.is_symlink():
                    emptied.add(name)
                elif target.exists() or target.is_symlink():
                    target.unlink()
                    emptied |= {p.as_posix() for p in Path(name).parents if p.as_posix() != "."}
            self.written.discard(name)
            self.trusted.discard(name)
        # the folders the removed files were in, when left empty (a user's empty folder stays)
        for sub in sorted(emptied, key=lambda n: n.count("/"), reverse=True):
            target = self.path / sub
            if target.is_dir() and not target.is_symlink():
                with contextlib.suppress(OSError):  # kept when it holds a user's files
                    target.rmdir()

    def install(self, name: str, source: Path) -> Path:
        """Move the finished file ``source`` (in a temporary folder inside this one) to ``name``, and list it."""
        target = self.path / name
        with writing(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        self.written.add(name)
        return target

    def save_marker(self, fingerprint: str, spec: dict[str, Any]) -> None:
        """Write ``spec.json``: the spec, its fingerprint, the signature and the files written."""
        if folder_id(self.path) != self.folder_id:
            write_file(self.path / FOLDER_ID, lambda p: p.write_text(self.folder_id + "\n", encoding="utf-8"),
                       mode=self.mode)
        self.write_json(MARKER, {"generator": GENERATOR, "kind": "study", "fingerprint": fingerprint, "spec": spec,
                                 "folder_id": self.folder_id, "written": sorted(self.written)})


@contextlib.contextmanager
def open_study_folder(out: str | os.PathLike, *, force: bool, fingerprint: str, spec: dict[str, Any],
                      files: Iterable[str], inputs: Iterable[str | os.PathLike] = ()) -> Iterator[StudyFolder]:
    """Check and lock the folder, start over with ``force``, and list ``files`` in the marker first.

    Parameters
    ----------
    out : path
        The output folder (created if missing).
    force : bool
        Remove what the study wrote there before (and accept a folder holding other files).
    fingerprint, spec
        What the marker records.
    files : iterable of str
        The model and unit files this run may write (listed before they are written, so that a
        stopped run's files are the study's too).
    inputs : paths
        Files the study reads, never overwritten.

    Yields
    ------
    StudyFolder
    """
    check_study_folder(out, force=force, inputs=inputs)
    with folder_lock(out) as path:
        check_study_folder(out, force=force, inputs=inputs)  # again, now that no other run can change it
        marker = read_marker(path)
        # a folder the study did not mark (new, or written into with force) gets a new id
        folder = StudyFolder(path, marker["written"] if marker else set(), folder_id(path) if marker else None)
        for sub in (path, path / "models", path / "units"):  # a stopped run's temporary files (and report)
            if sub.is_dir():
                for p in sub.iterdir():
                    if p.name.startswith(TEMP_PREFIX) and p.name.endswith(".tmp"):
                        with contextlib.suppress(OSError):
                            if p.is_dir() and not p.is_symlink():
                                shutil.rmtree(p)
                            else:
                                p.unlink()
        if force:
            folder.remove(set(folder.written))
        for sub in ("models", "units"):
            with writing(path / sub):
                (path / sub).mkdir(exist_ok=True)
        folder.written |= set(files)
        folder.save_marker(fingerprint, spec)
        yield folder

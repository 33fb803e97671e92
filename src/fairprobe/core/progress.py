"""Progress bars and informational messages that stay out of logs.

Every progress bar in fairprobe comes from :func:`progress_bar`, a thin factory over ``tqdm``
that draws only when it is useful:

* only when standard error is a terminal or the code runs in a Jupyter kernel (redirected
  output, CI logs and pipes get no bar, so a sweep of 1,000 points does not write 1,000
  carriage-return updates into a log file);
* never in quiet mode: ``fairprobe --quiet <command>``, :func:`quiet` as a context manager, or the
  environment variable ``FAIRPROBE_QUIET=1`` (inherited by worker processes).

``FAIRPROBE_PROGRESS=1`` forces bars on even when standard error is not a terminal (quiet mode
still wins). :func:`info` prints an informational line (e.g. "report written to ...") unless quiet
mode is on; results and errors are always printed by their callers.

Examples
--------
>>> with quiet():
...     bar = progress_bar(range(3), desc="work")
...     bar.disable
True
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

__all__ = ["info", "is_quiet", "progress_bar", "quiet", "set_quiet"]

_QUIET: ContextVar[bool] = ContextVar("fairprobe_quiet", default=False)
_TRUE = frozenset({"1", "true", "yes", "on"})


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def is_quiet() -> bool:
    """Whether quiet mode is on (``--quiet``, :func:`quiet` or ``FAIRPROBE_QUIET=1``).

    Returns
    -------
    bool
        True inside :func:`quiet`, after ``set_quiet(True)`` or when ``FAIRPROBE_QUIET=1``.

    Examples
    --------
    >>> with quiet():
    ...     is_quiet()
    True
    """
    return _QUIET.get() or _env_flag("FAIRPROBE_QUIET")


def set_quiet(value: bool = True) -> Any:
    """Turn quiet mode on or off in this context; returns a token for :meth:`ContextVar.reset`.

    Parameters
    ----------
    value : bool
        True to silence progress bars and informational lines, False to allow them.

    Returns
    -------
    contextvars.Token
        Pass it to ``ContextVar.reset`` (as :func:`quiet` does) to restore the previous state.

    Examples
    --------
    >>> token = set_quiet(True)
    >>> is_quiet()
    True
    >>> _QUIET.reset(token)
    """
    return _QUIET.set(bool(value))


@contextlib.contextmanager
def quiet(value: bool = True) -> Iterator[None]:
    """Quiet mode inside a ``with`` block: no progress bars, no informational lines.

    Parameters
    ----------
    value : bool
        Quiet mode inside the block (default True); ``quiet(False)`` turns it off in the block.

    Yields
    ------
    None
        The previous state is restored when the block ends, also on an exception.

    Examples
    --------
    >>> with quiet():
    ...     info("not printed")
    >>> with quiet(False):
    ...     info("printed")
    printed
    """
    token = set_quiet(value)
    try:
        yield
    finally:
        _QUIET.reset(token)


def _on_terminal() -> bool:
    try:
        return bool(sys.stderr is not None and sys.stderr.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def _in_notebook() -> bool:
    # tqdm.auto draws a widget there; Jupyter's stderr is not a TTY but the bar is wanted
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def progress_shown(disable: bool = False) -> bool:
    """Whether progress (a bar or a status line) is shown: the one rule every long step follows.

    Parameters
    ----------
    disable : bool
        The caller's own switch (e.g. ``progress=False``).

    Returns
    -------
    bool
        False when ``disable`` or quiet mode is on; else True on a terminal, in a notebook, or with
        ``FAIRPROBE_PROGRESS=1``.

    Examples
    --------
    >>> with quiet():
    ...     progress_shown()
    False
    """
    return not disable and not is_quiet() and (_on_terminal() or _in_notebook() or _env_flag("FAIRPROBE_PROGRESS"))


def status(message: str) -> None:
    """One status line on standard error before a long step, where a progress bar would be drawn.

    Parameters
    ----------
    message : str
        The line, e.g. ``"fitting the reference model on 30,162 rows ..."``.

    Returns
    -------
    None

    Examples
    --------
    >>> with quiet():
    ...     status("fitting ...")  # nothing: quiet mode
    """
    if progress_shown():
        print(message, file=sys.stderr, flush=True)


def progress_bar(iterable: Iterable[Any] | None = None, *, disable: bool = False, **kwargs: Any) -> Any:
    """A ``tqdm`` progress bar, disabled off a terminal and in quiet mode.

    Parameters
    ----------
    iterable : iterable, optional
        Wrapped as by ``tqdm(iterable)``.
    disable : bool
        The caller's own switch (e.g. ``progress=False``); the bar is also disabled when quiet
        mode is on or standard error is not a terminal (unless ``FAIRPROBE_PROGRESS=1``).
    **kwargs
        Passed to ``tqdm`` (``total``, ``desc``, ``leave``, ...).

    Returns
    -------
    tqdm.tqdm
        Usable exactly like a ``tqdm`` bar (``update``, ``close``, iteration), also when disabled.

    Examples
    --------
    >>> with quiet():
    ...     sum(progress_bar(range(4), desc="sum"))
    6
    """
    from tqdm.auto import tqdm

    return tqdm(iterable, disable=not progress_shown(disable), **kwargs)


def info(message: str, *, err: bool = False) -> None:
    """Print an informational line (not a result) unless quiet mode is on.

    Parameters
    ----------
    message : str
        The line to print.
    err : bool
        Print on standard error instead of standard output (default False).

    Returns
    -------
    None

    Examples
    --------
    >>> info("report written to out/index.html")
    report written to out/index.html
    >>> with quiet():
    ...     info("report written to out/index.html")
    """
    if is_quiet():
        return
    import click

    click.echo(message, err=err)

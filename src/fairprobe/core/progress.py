"""Progress bars and informational messages that stay out of logs.

Progress (:func:`progress_bar`, :func:`status`) is drawn only on a terminal or in a Jupyter kernel,
or with ``FAIRPROBE_PROGRESS=1``, and never in quiet mode: ``fairprobe --quiet <command>``,
:func:`quiet`, or ``FAIRPROBE_QUIET=1`` (inherited by worker processes). :func:`info` prints an
informational line unless quiet mode is on; results and errors are printed by their callers.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

__all__ = ["info", "is_quiet", "progress_bar", "quiet"]

_QUIET: ContextVar[bool] = ContextVar("fairprobe_quiet", default=False)
_TRUE = frozenset({"1", "true", "yes", "on"})


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def is_quiet() -> bool:
    """Whether quiet mode is on (``--quiet``, :func:`quiet` or ``FAIRPROBE_QUIET=1``).

    Returns
    -------
    bool

    Examples
    --------
    >>> with quiet():
    ...     is_quiet()
    True
    """
    return _QUIET.get() or _env_flag("FAIRPROBE_QUIET")


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

    Examples
    --------
    >>> with quiet():
    ...     info("not printed")
    >>> with quiet(False):
    ...     info("printed")
    printed
    """
    token = _QUIET.set(bool(value))
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

    Examples
    --------
    >>> with quiet():
    ...     progress_shown()
    False
    """
    return not disable and not is_quiet() and (_on_terminal() or _in_notebook() or _env_flag("FAIRPROBE_PROGRESS"))


def status(message: str) -> None:
    """One status line on standard error, where a progress bar would be drawn.

    Parameters
    ----------
    message : str
        The line, e.g. ``"fitting the reference model on 30,162 rows ..."``.

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
        The caller's own switch (e.g. ``progress=False``); else :func:`progress_shown` decides.
    **kwargs
        Passed to ``tqdm`` (``total``, ``desc``, ``leave``, ...).

    Returns
    -------
    tqdm.tqdm

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
        Print on standard error instead of standard output.

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

"""The one plotting helper core results need (matplotlib imported lazily); reporting re-exports it."""

from __future__ import annotations

from typing import Any

__all__ = ["new_axes"]


def new_axes(ax: Any = None, size: tuple[float, float] = (5, 3.5)) -> Any:
    """``ax`` itself, or the axes of a new figure of ``size`` inches when ``ax`` is None.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
    size : (float, float)

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> ax = new_axes(size=(4, 3))
    >>> ax.figure.get_size_inches().tolist(), new_axes(ax) is ax
    ([4.0, 3.0], True)
    >>> plt.close("all")
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    # constrained layout: labels and a legend below the axes stay inside the figure whatever savefig is given
    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax

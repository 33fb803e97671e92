"""Small plotting helper shared by every analysis (matplotlib is imported lazily)."""

from __future__ import annotations

from typing import Any

__all__ = ["new_axes"]


def new_axes(ax: Any = None, size: tuple[float, float] = (5, 3.5)) -> Any:
    """``ax`` itself, or the axes of a new figure of ``size`` inches when ``ax`` is None."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size)
    return ax

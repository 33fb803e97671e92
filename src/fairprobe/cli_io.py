"""Input and output helpers shared by the command-line commands (built-in and plugin ones)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from fairprobe.exceptions import DataError

__all__ = ["read_table", "require_columns", "save_plot", "write_report"]


def read_table(path: Path) -> pd.DataFrame:
    """A CSV or Parquet file as a data frame; an unreadable file is a one-line ``DataError``."""
    try:
        return pd.read_parquet(path) if path.suffix in (".parquet", ".pq") else pd.read_csv(path)
    except (OSError, ValueError, ImportError) as exc:
        raise DataError(f"Cannot read {path}: {exc}") from None


def require_columns(df: pd.DataFrame, columns: list[str], path: Path) -> None:
    """Raise a ``DataError`` naming the columns of ``df`` that are missing."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(f"Column(s) {missing} are not in {path}; available: {list(df.columns)}.")


def save_plot(draw: Callable[[], Any], path: Path) -> None:
    """Draw with a headless backend (``draw()`` returns an axes) and save the figure to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    ax = draw()
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=150)


def write_report(out_dir: Path, title: str, *, summary: str = "", parameters: dict[str, Any] | None = None,
                 tables: dict[str, pd.DataFrame] | None = None,
                 figures: dict[str, Callable[[], Any]] | None = None, text: str = "") -> Path:
    """A command's results as a shared-format report folder, recording the command line that made it."""
    import sys

    from fairprobe import report

    return report.write_report(out_dir, title, summary=summary, text=text, parameters=parameters, figures=figures,
                               tables=tables, command=" ".join(["fairprobe", *sys.argv[1:]]))

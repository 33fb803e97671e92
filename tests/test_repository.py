"""The repository is self-contained: no file refers to the development machine or its shared folder.

A clone elsewhere has neither the development checkout's sibling data folder nor its absolute paths, so a
tracked file that names one fails here (tests, docs, examples and benchmarks use the bundled data).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# assembled from pieces so this file does not match itself
FORBIDDEN = re.compile("|".join([
    r"\.\./" + "shared",                      # the sibling folder of the development checkout
    "shared" + r"/(data|notes)\b",            # its data and notes
    r"(?<![\w.])/" + r"(work|home|root|Users|mnt|opt/pypi)/",  # absolute paths of a machine
    r"[A-Za-z]:\\\\" + r"(Users|work)",        # Windows ones
]))


def tracked_files() -> list[Path]:
    """Files under version control (every file but caches and build output without git)."""
    if shutil.which("git") and (ROOT / ".git").exists():
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True)
        return [ROOT / name for name in out.stdout.split("\0") if name]
    skip = {".git", ".venv", ".ci-venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist"}
    return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def test_no_file_names_the_development_machine() -> None:
    files = tracked_files()
    assert len(files) > 100
    hits = []
    for path in files:
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:4096] or path.suffix in (".gz", ".png", ".parquet"):
            continue  # binary: compressed data and images
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if FORBIDDEN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not hits, "paths of the development machine in tracked files:\n" + "\n".join(hits)


@pytest.mark.parametrize("text", ["pd.read_csv('../" + "shar" + "ed/x.csv')", "DATA = '/" + "wor" + "k/x'",
                                  "open('/" + "hom" + "e/me/data.csv')", "x = '/" + "roo" + "t/.cache'"])
def test_the_pattern_catches_machine_paths(text: str) -> None:
    assert FORBIDDEN.search(text)


@pytest.mark.parametrize("text", ["from fairprobe.datasets import load_compas", "https://pluggy.readthedocs.io/",
                                  "src/fairprobe/datasets/data/README.md", "a shared format", "tests/bad_input.py"])
def test_the_pattern_spares_ordinary_text(text: str) -> None:
    assert not FORBIDDEN.search(text)

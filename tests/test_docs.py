"""Every code block of the README and the docs runs as written, in page order, from an empty folder.

Python blocks share one namespace per page; shell blocks run with ``bash -eo pipefail`` in the same
folder, so a block may use what an earlier block of the same page wrote. TOML blocks must parse.
``text`` blocks are output listings and must not hold a command. The quick-start blocks are exempt
only where they install (the ``venv``/``pip install`` prefix) or would run this test suite again.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"bash", "sh", "shell", "console"}
OUTPUT = {"text", "output"}
INSTALL = re.compile(r"^python3? -m venv \S+ && \. \S+/bin/activate && pip install [^&]+(&& )?")
RAN: dict[str, int] = {}  # shell commands already run in this session (the quick start appears twice)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    code: str


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` with its language and first line number."""
    out, lang, start, lines = [], None, 0, []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        if lang is None and text.startswith("```"):
            lang, start, lines = text[3:].strip() or "text", number, []
        elif lang is not None and text.startswith("```"):
            out.append(Block(path.name, start, lang, "\n".join(lines) + "\n"))
            lang = None
        elif lang is not None:
            lines.append(text)
    assert lang is None, f"{path.name}: unclosed code block at line {start}"
    return out


def shell_command(block: Block) -> str | None:
    """The part of a shell block to run (None when all of it installs or reruns the tests)."""
    kept = []
    for line in block.code.strip().splitlines():
        rest = INSTALL.sub("", line.strip()).strip()
        if rest in ("", "python -m pytest") or line.strip().startswith("#"):
            continue
        kept.append(line if rest == line.strip() else rest)
    return "\n".join(kept) or None


def run_shell(block: Block, cwd: Path) -> None:
    command = shell_command(block)
    if command is None or RAN.get(command):
        return
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", MPLBACKEND="Agg")
    out = subprocess.run(["bash", "-eo", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, f"{block.page} line {block.line} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    RAN[command] = 1


def run_python(block: Block, namespace: dict) -> None:
    exec(compile(block.code, f"{block.page}:{block.line}", "exec"), namespace)


def missing_extra(block: Block) -> str | None:
    """Why ``block`` cannot run here: it uses an analysis whose optional package is not installed (else None)."""
    import fairprobe as fp

    for cls in fp.get_registry().analyses.values():
        if cls.__name__ in block.code and hasattr(cls, "availability") and not cls.availability():
            return f"{block.page} line {block.line} uses {cls.__name__}, {cls.availability_reason()}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_block_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          request: pytest.FixtureRequest) -> None:
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # a page may write a module and import it
    # the page runs as a script does: in a module of its own, so that its classes pickle as a script's do
    module = types.ModuleType("__docs__")
    monkeypatch.setitem(sys.modules, "__docs__", module)
    namespace: dict = module.__dict__
    ran, skipped = 0, []
    for block in blocks(page):
        if block.lang == "python" and (why := missing_extra(block)):
            skipped.append(why)  # a bare install: the page's other blocks still run
            continue
        if block.lang == "python":
            run_python(block, namespace)
        elif block.lang in SHELL and shell_command(block) == "fairprobe demo":
            demo = request.getfixturevalue("demo_run")  # the session's one run of the main job
            assert demo.returncode == 0, f"{block.page} line {block.line}: fairprobe demo failed:\n{demo.stderr}"
        elif block.lang in SHELL:
            run_shell(block, tmp_path)
        elif block.lang == "toml":
            if tomllib is not None:
                tomllib.loads(block.code)
        elif block.lang in OUTPUT:
            assert not re.search(r"^\s*(\$ |fairprobe |python )", block.code, flags=re.M), \
                f"{page.name} line {block.line}: a command in a text block; make it a bash block that runs"
            continue
        else:
            pytest.fail(f"{page.name} line {block.line}: unknown block language {block.lang!r}")
        ran += 1
    print(f"{page.name}: {ran} blocks ran")
    if skipped:
        pytest.skip(f"{ran} blocks ran; not run: {'; '.join(skipped)}")


def test_documentation_site_builds_with_the_api_reference(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        pytest.skip('mkdocs is not installed (pip install ".[docs]")')
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    # rendered from the docstrings, not just the headings
    assert "ExactLinearMultiplicity" in api and "Smallest sensitivity value at which a fairness conclusion" in api
    assert (tmp_path / "site" / "plugins" / "index.html").is_file()

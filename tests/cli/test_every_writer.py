"""Issue 23 D1: every option of every command that writes goes through the output rules.

The click tree is walked (plugin commands included), so a command added later is covered without
editing this file: its file options must be ``file_option`` (metavar FILE) or ``out_option``
(metavar FOLDER), each refuses an existing target without ``--force``, and every other path a
command takes must already exist (an input, never written).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from fairprobe.cli.main import cli
from fairprobe.cli.options import _FORCE_KEY
from fairprobe.exceptions import ConfigError

#: option names that say "I write something": any such option must be a checked writer
LOOKS_WRITTEN = re.compile(r"^--(out|output|csv|plot|save|html|png|pdf|svg|report|write)\b")


def _params() -> Iterator[tuple[str, click.Command, click.Parameter]]:
    def walk(command: click.Command, path: list[str], ctx: click.Context) -> Iterator:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                yield from walk(sub, [*path, name], click.Context(sub, parent=ctx, info_name=name))
        else:
            for param in command.params:
                yield " ".join(path), command, param

    yield from walk(cli, [], click.Context(cli))


def _writers() -> list[tuple[str, click.Command, click.Parameter]]:
    return [(name, command, p) for name, command, p in _params()
            if isinstance(p, click.Option) and p.metavar in ("FILE", "FOLDER")]


def test_the_walk_finds_the_writers() -> None:
    found = {(name, max(p.opts, key=len)) for name, _, p in _writers()}
    assert {("sweep", "--csv"), ("sweep", "--plot"), ("fairtree", "--csv"), ("fairtree", "--plot"),
            ("bound", "--out"), ("demo", "--out"), ("report", "--out")} <= found
    assert len({name for name, _ in found}) >= 9


def test_nothing_writes_outside_the_output_rules() -> None:
    for name, _, param in _params():
        opts = [o for o in param.opts if o.startswith("--")]
        if isinstance(param, click.Option) and any(LOOKS_WRITTEN.match(o) for o in opts):
            assert param.metavar in ("FILE", "FOLDER"), f"{name} {opts}: writes without the output rules"
        if isinstance(param.type, click.Path):
            assert param.type.exists, f"{name} {param.opts}: a path that need not exist could be written"


@pytest.mark.parametrize(("name", "option"), sorted({(n, max(p.opts, key=len)) for n, _, p in _writers()}))
def test_every_writer_refuses_an_existing_target_without_force(tmp_path: Path, name: str, option: str) -> None:
    command, param = next((c, p) for n, c, p in _writers() if n == name and max(p.opts, key=len) == option)
    if param.metavar == "FILE":
        target = tmp_path / "mine.png"  # a plot suffix: every file option accepts it or names its suffixes
        target.write_text("mine")
    else:
        target = tmp_path / "folder"
        target.mkdir()
        (target / "notes.txt").write_text("mine")  # a file fairprobe did not write
    ctx = click.Context(command, info_name=name)
    with pytest.raises((ConfigError, click.BadParameter)) as refused:
        param.process_value(ctx, str(target))
    message = str(refused.value)
    if "suffix" in message or "has .png" in message:  # a CSV option: try again with its own suffix
        target = tmp_path / "mine.csv"
        target.write_text("mine")
        with pytest.raises((ConfigError, click.BadParameter)) as refused:
            param.process_value(ctx, str(target))
        message = str(refused.value)
    assert "--force" in message, (name, option, message)
    forced = click.Context(command, info_name=name)
    forced.meta[_FORCE_KEY] = True
    assert param.process_value(forced, str(target)) == Path(target)  # --force lets it through
    if target.is_file():
        assert target.read_text() == "mine"  # checking never writes

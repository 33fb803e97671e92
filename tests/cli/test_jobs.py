"""One rule for ``--jobs`` in every command: a positive number of workers, or -1 for every core.

0 and the other negative numbers (joblib's -2 = "all but one") are refused while the options are
parsed, by every command alike, with one line naming ``--jobs`` and the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from fairprobe.cli.main import cli, main
from fairprobe.datasets import BUNDLED
from fairprobe.exceptions import ConfigError


def jobs_options() -> Iterator[tuple[str, click.Command, click.Parameter]]:
    def walk(command: click.Command, path: list[str], ctx: click.Context) -> Iterator:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                yield from walk(sub, [*path, name], click.Context(sub, parent=ctx, info_name=name))
        else:
            for param in command.params:
                if "--jobs" in getattr(param, "opts", []):
                    yield " ".join(path), command, param

    yield from walk(cli, [], click.Context(cli))


OPTIONS = list(jobs_options())


def test_the_commands_with_workers_are_found() -> None:
    assert {"bound", "sweep", "breakdown", "study", "demo"} <= {name for name, _, _ in OPTIONS}


@pytest.mark.parametrize(("name", "command", "param"), OPTIONS, ids=[name for name, _, _ in OPTIONS])
def test_every_jobs_option_follows_one_rule(name: str, command: click.Command, param: click.Parameter) -> None:
    ctx = click.Context(command, info_name=name)
    for good in ("1", "2", "-1"):
        assert param.process_value(ctx, good) == int(good), (name, good)
    for bad in ("0", "-2", "-8"):
        with pytest.raises(ConfigError, match=rf"--jobs {bad} .*-1 for every core") as refused:
            param.process_value(ctx, bad)
        assert "e.g. --jobs 2" in str(refused.value)
    assert "-1 for every core" in (param.help or ""), name  # the rule is in --help


def test_study_refuses_minus_two_as_bound_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("datasets: [german]\nclassifiers: [naive_bayes]\nmetrics: [fpr_parity]\nbiases: [selection]\n"
                    "D: [0.05]\n")
    cells = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")
    for args in (["study", str(spec), "--out", str(tmp_path / "res"), "--jobs", "-2"],
                 ["bound", "--bias", "selection", "--metric", "fpr_parity", "--data", cells, "--D", "0.05",
                  "--ci", "0.95", "--jobs", "-2"]):
        with pytest.raises(SystemExit) as stop:
            main(args)
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and len(err.splitlines()) == 1, (args[0], err)
        assert "--jobs -2" in err and "-1 for every core" in err, (args[0], err)
    assert not (tmp_path / "res").exists()  # refused before any work

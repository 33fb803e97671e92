"""Bad-input pass 5 on the command line: one line and exit code 2 for every user error; no file lost.

D1 a rerun into a report folder keeps the user's files in tables/ and figures/; D5 --csv/--plot
written atomically (a full disk or Ctrl-C leaves no partial file; --force keeps the old content
when the write fails); D3 --param D=...; D4 a node given twice in --pos-label; B1 a single-value
option given twice; the interval errors in the command line's own words; a bad choice in one line.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairprobe.cli.main import main
from fairprobe.datasets import BUNDLED

CELLS = str(BUNDLED / "fragile_fair-fogliato_compas.csv.gz")
BOUND = ["bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS]
SWEEP = ["sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", CELLS, "--D", "0,0.05"]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(["--quiet", *args])
        raise SystemExit(0)
    captured = capsys.readouterr()
    return stop.value.code, captured.out, captured.err.strip()


def refused(args: list[str], capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    code, _, err = run(args, capsys)
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert "internal error" not in err and "Usage:" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> str:
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"race": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n)})
    frame["pred"] = np.where(rng.random(n) < 0.7, frame.y, 1 - frame.y)
    frame["yes"] = np.where(frame.y == 1, "yes", "no")
    path = tmp_path_factory.mktemp("pass5") / "plain.csv"
    frame.to_csv(path, index=False)
    return str(path)


# -- D1 ------------------------------------------------------------------------------------------------
def test_d1_a_rerun_keeps_the_users_files_in_tables_and_figures(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r6"
    assert run([*BOUND, "--D", "0.02", "--out", str(out)], capsys)[0] == 0
    (out / "tables" / "my_analysis.csv").write_text("mine\n")
    (out / "figures" / "annot.png").write_text("n\n")
    refused([*BOUND, "--D", "0.03", "--out", str(out)], capsys, "tables/my_analysis.csv", "figures/annot.png",
            "--force")
    assert (out / "tables" / "my_analysis.csv").read_text() == "mine\n"
    code, _, err = run([*BOUND, "--D", "0.03", "--out", str(out), "--force"], capsys)
    assert code == 0, err
    assert (out / "tables" / "my_analysis.csv").read_text() == "mine\n"
    assert (out / "figures" / "annot.png").read_text() == "n\n"
    assert "0.03" in (out / "index.html").read_text()


def test_d1_force_into_a_foreign_folder_keeps_tables_of_the_user(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r3"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "my.csv").write_text("mine\n")
    assert run([*BOUND, "--D", "0.02", "--out", str(out), "--force"], capsys)[0] == 0
    assert (out / "tables" / "my.csv").read_text() == "mine\n"


# -- D5 ------------------------------------------------------------------------------------------------
def partial_then(exc: BaseException) -> Callable[..., None]:
    """A writer that writes part of the file and then fails (a full disk, Ctrl-C)."""
    def to_csv(self: pd.DataFrame, path: object, *args: object, **kwargs: object) -> None:
        with open(path, "w") as handle:  # type: ignore[arg-type]
            handle.write("D,lower,upper\n0.0,")
            handle.flush()
            raise exc
    return to_csv


@pytest.mark.parametrize("force", [False, True], ids=["new", "force-over-old"])
def test_d5_a_full_disk_under_csv_leaves_no_partial_file(force: bool, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "sw.csv"
    if force:
        target.write_text("the user's old content\n")
    monkeypatch.setattr(pd.DataFrame, "to_csv", partial_then(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))))
    refused([*SWEEP, "--csv", str(target), *(["--force"] if force else [])], capsys, str(target), "free space")
    if force:
        assert target.read_text() == "the user's old content\n"
    else:
        assert not target.exists()
    assert [p.name for p in tmp_path.iterdir()] == (["sw.csv"] if force else [])


def test_d5_ctrl_c_during_csv_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(pd.DataFrame, "to_csv", partial_then(KeyboardInterrupt()))
    code, _, _ = run([*SWEEP, "--csv", str(tmp_path / "k.csv")], capsys)
    assert code == 130
    assert list(tmp_path.iterdir()) == []


def test_d5_ctrl_c_during_plot_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from matplotlib.figure import Figure

    def savefig(self: Figure, path: object, *args: object, **kwargs: object) -> None:
        Path(str(path)).write_bytes(b"\x89PNG")
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", savefig)
    code, _, _ = run([*SWEEP, "--plot", str(tmp_path / "k.png")], capsys)
    assert code == 130
    assert list(tmp_path.iterdir()) == []


def test_d5_a_read_only_file_system_names_the_right_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(pd.DataFrame, "to_csv", partial_then(OSError(errno.EROFS, os.strerror(errno.EROFS))))
    err = refused([*SWEEP, "--csv", str(tmp_path / "sw.csv")], capsys, "make the folder writable")
    assert "free space" not in err


def test_d5_fairtree_csv_is_atomic(plain: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "splits.csv"
    target.write_text("old\n")
    monkeypatch.setattr(pd.DataFrame, "to_csv", partial_then(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))))
    refused(["fairtree", "--data", plain, "--target", "y", "--prediction", "pred", "--covariates", "race",
             "--permutations", "20", "--csv", str(target), "--force"], capsys, "--csv", str(target))
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["splits.csv"]


# -- D3 ------------------------------------------------------------------------------------------------
def plain_bound(plain: str) -> list[str]:
    return ["bound", "--data", plain, "--columns", "A=race,Y=y,P=pred", "--bias", "proxy_label", "--metric",
            "fpr_parity"]


def test_d3_param_d_is_taken_as_d(plain: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*plain_bound(plain), "--param", "D=0.05", "--json"], capsys)
    assert code == 0, err
    code2, out2, err2 = run([*plain_bound(plain), "--D", "0.05", "--json"], capsys)
    assert code2 == 0, err2
    taken, given = json.loads(out), json.loads(out2)
    assert taken["parameters"] == given["parameters"] == {"D": 0.05}
    assert (taken["lower"], taken["upper"]) == (given["lower"], given["upper"])


def test_d3_param_d_with_d_is_refused(plain: str, capsys: pytest.CaptureFixture[str]) -> None:
    refused([*plain_bound(plain), "--D", "0.02", "--param", "D=0.5"], capsys, "D is given twice")


@pytest.mark.parametrize("params", [["--param", "D=0.02", "--param", "D=0.5"], ["--param", "D=0.02,D=0.5"]],
                         ids=["repeated", "in-one"])
def test_d3_a_parameter_given_twice_is_refused(plain: str, params: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    refused([*plain_bound(plain), *params], capsys, "--param", "D", "twice")


# -- D4 ------------------------------------------------------------------------------------------------
def test_d4_a_node_given_twice_in_pos_label_is_refused(plain: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bound", "--data", plain, "--columns", "A=race,Y=yes,P=pred", "--bias", "proxy_label", "--metric",
            "fpr_parity", "--D", "0.02"]
    refused([*args, "--pos-label", "Y=yes,P=1,Y=no"], capsys, "--pos-label", "Y", "twice")


def test_d4_pos_label_given_twice_is_refused(plain: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bound", "--data", plain, "--columns", "A=race,Y=yes,P=pred", "--bias", "proxy_label", "--metric",
            "fpr_parity", "--D", "0.02"]
    refused([*args, "--pos-label", "Y=yes", "--pos-label", "Y=no"], capsys, "--pos-label", "once")


# -- B1 ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("option", "values"), [("--D", ["0.02", "0.05"]), ("--metric", ["fpr_parity", "tpr_parity"]),
                                                ("--data", [CELLS, CELLS]), ("--ci", ["0.9", "0.95"])])
def test_b1_a_single_value_option_given_twice_is_refused(option: str, values: list[str],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    base = {"--D": [*BOUND, "--D", "0.02"], "--metric": [*BOUND, "--D", "0.02"],
            "--data": [*BOUND, "--D", "0.02"], "--ci": [*BOUND, "--D", "0.02"]}[option]
    args = [*base, *[x for v in values for x in (option, v)]]
    refused(args, capsys, option, "once")


def test_b1_sweep_d_given_twice_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    refused([*SWEEP, "--D", "0,0.1"], capsys, "--D", "once")


def test_b1_options_given_once_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*BOUND, "--D", "0.02", "--backend", "scip", "--time-limit", "30", "--json"], capsys)
    assert code == 0, err
    assert '"D": 0.02' in out


# -- interval errors in the command line's words -----------------------------------------------------------
def test_ci_errors_name_the_flags(plain: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused([*plain_bound(plain), "--D", "0.02", "--ci", "95"], capsys, "--ci 95", "e.g. --ci 0.95")
    assert "ci=" not in err
    err = refused([*plain_bound(plain), "--D", "0.02", "--seed", "3"], capsys, "--seed 3", "--ci 0.95")
    assert "seed=" not in err and "ci=" not in err
    err = refused([*plain_bound(plain), "--D", "0.02", "--ci", "0.95", "--resamples", "5"], capsys, "--resamples 5")
    assert "resamples=" not in err


def test_a_bad_choice_is_one_line_with_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    refused([*BOUND, "--D", "0.02", "--ci", "0.95", "--ci-method", "jackknife"], capsys, "--ci-method",
            "jackknife", "bootstrap", "projection", "bayes")

"""SCIP backend specifics (fairprobe.backends.scip); the shared contract is in test_contract.py."""

from __future__ import annotations

import os

import pytest

import fairprobe as fp
from fairprobe.backends.scip import _stderr_lines


def test_scip_lines_on_stderr_are_kept_and_other_lines_passed_on(capfd) -> None:
    with _stderr_lines() as lines:
        os.write(2, b"[solve.c:4216] ERROR: (node 1) unresolved numerical troubles in LP 3 cannot be dealt with\n")
        os.write(2, b"a warning someone else meant to show\n")
    assert lines == ["[solve.c:4216] ERROR: (node 1) unresolved numerical troubles in LP 3 cannot be dealt with"]
    err = capfd.readouterr().err
    assert "a warning someone else meant to show" in err and "solve.c" not in err


def test_a_sub_solver_error_inside_scip_does_not_reach_the_terminal(capfd) -> None:
    """A Dirichlet draw of COMPAS's six-race table on which SCIP (9.x / 10.x) printed four ``[solve.c:...] ERROR``
    lines from a heuristic's sub-problem during an equalised-odds bound, then finished optimal."""
    from fairprobe.core.uncertainty import IntervalOptions, resampled_probabilities
    from fairprobe.datasets import load_compas

    compas = load_compas().frame
    compas = compas.assign(pred=(compas.decile_score >= 5).astype(int))
    races = fp.ObservedTable.from_frame(compas, A="race", Y="two_year_recid", P="pred")
    draw = resampled_probabilities(races, IntervalOptions(method="bayes", resamples=100, seed=0))[20]
    metric = fp.metric("equalized_odds", groups=("African-American", "Caucasian"))
    res = fp.bound("proxy_label", metric, races.with_probabilities(draw), D=0.02, progress=False)
    assert "solve.c" not in capfd.readouterr().err
    assert res.status == "optimal" and res.lower <= res.upper
    for side in (res.min_result, res.max_result):  # anything SCIP said is on the result, each line as printed
        assert all(line.startswith("[") for line in side.extra.get("solver_errors", []))


def test_other_output_reaches_stderr_while_scip_runs_not_after(tmp_path) -> None:
    """A status line or progress bar written during a solve passes at once (a long solve is when it matters)."""
    import time

    target = open(tmp_path / "stderr.txt", "w+b")  # stands in for the terminal below
    saved = os.dup(2)
    os.dup2(target.fileno(), 2)
    try:
        with _stderr_lines() as lines:
            os.write(2, b"\r  40%|####      | still solving")
            os.write(2, b"[cons_nonlinear.c:123] ERROR: a message of SCIP's own\n")
            deadline = time.time() + 5
            while b"still solving" not in (tmp_path / "stderr.txt").read_bytes() and time.time() < deadline:
                time.sleep(0.01)
            seen_during = (tmp_path / "stderr.txt").read_bytes()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        target.close()
    assert b"still solving" in seen_during  # forwarded while the capture was still on
    assert lines == ["[cons_nonlinear.c:123] ERROR: a message of SCIP's own"]
    assert b"cons_nonlinear" not in (tmp_path / "stderr.txt").read_bytes()


def test_soplex_tolerance_messages_do_not_reach_the_terminal(capfd) -> None:
    """SoPlex prints "Cannot set ... without GMP" to stderr for a tolerance below 1e-10; it becomes the result's."""
    from fairprobe.backends.base import SolveOptions
    from fairprobe.core.registry import get_backend

    prog = fp.PolynomialProgram.from_text("minimize\n  x*y - x\nsubject to\n  c: x + y <= 1.5\n"
                                          "bounds\n  0 <= x <= 1\n  0 <= y <= 1\n")
    res = get_backend("scip").solve(prog, SolveOptions(solver_options={"numerics/dualfeastol": 1e-12}))
    out, err = capfd.readouterr()
    assert res.objective_bound == pytest.approx(-1.0) and out == "" and err == ""
    assert any("without GMP" in line for line in res.extra["solver_errors"])


@pytest.mark.parametrize("bias", ["proxy_label", "selection", "ecp", "proxy_label_and_selection"])
def test_no_solver_text_during_built_in_bounds(capfd, bias: str) -> None:
    """Pairs, all pairs and equalised odds (SCIP's window programs included) on COMPAS's races print nothing."""
    from fairprobe.datasets import load_compas

    frame = load_compas().frame.assign(pred=lambda d: (d.decile_score >= 5).astype(int))
    races = fp.ObservedTable.from_frame(frame, A="race", Y="two_year_recid", P="pred")
    if bias in ("selection", "proxy_label_and_selection"):
        races = fp.ObservedTable(races.cells, given={"S": 1}, categories=races.categories)
    for metric in (fp.metric("fpr_parity", groups="all"), fp.metric("equalized_odds", groups="all"),
                   fp.metric("ppv_parity", groups=("African-American", "Caucasian"))):
        res = fp.bound(bias, metric, races, D=0.01, progress=False)
        assert res.lower <= res.upper
    assert capfd.readouterr() == ("", "")


def test_a_soplex_line_split_across_writes_is_kept(capfd) -> None:
    with _stderr_lines() as lines:
        os.write(2, b"Cannot s")
        os.write(2, b"et feasibility tolerance to small value 1e-12 without GMP - using 1e-10.\n")
        os.write(2, b"someone else's line\n")
    assert lines == ["Cannot set feasibility tolerance to small value 1e-12 without GMP - using 1e-10."]
    err = capfd.readouterr().err
    assert "someone else's line" in err and "GMP" not in err

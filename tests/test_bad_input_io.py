"""Bad input for the risk-score audit, the calibration functions, the file reader and the command line.

Table-driven (see ``tests/bad_input.py``): each case is one realistic mistake and asserts the
error class and that the message names the problem and the fix. CLI cases run in process and
must exit 2 with one line on stderr; ``{d}`` in an argument is the folder of the fixture files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairprobe.datasets import load_table
from fairprobe.datasets.tables import read_table
from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.riskscore import RiskScoreAudit, ace, drmsce, ece
from tests.bad_input import Case, CliCase, check, check_cli, params

# a joint table of attribute A, label Y and prediction P (cells with probabilities)
CELLS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                      "prob": [0.2, 0.05, 0.05, 0.2, 0.15, 0.1, 0.05, 0.2]})

N = 400


def _rows(seed: int = 0, n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    r = rng.random(n)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.integers(18, 80, n),
                         "x": rng.normal(size=n), "score": r, "y": (rng.random(n) < r).astype(int),
                         "yhat": rng.normal(size=n)})


ROWS = _rows()
Y, R, FRAME = ROWS["y"], ROWS["score"], ROWS[["sex", "age"]]


def _audit(**kw: object) -> RiskScoreAudit:
    return RiskScoreAudit(n_bootstrap=kw.pop("n_bootstrap", 5), progress=False, **kw)


def _fit(y: object = Y, r: object = R, frame: object = FRAME, **kw: object) -> object:
    features = kw.pop("sensitive_features", ["sex"])  # a role of fit, not a parameter
    return lambda: _audit(**kw).fit(frame, y_true=y, y_score=r, sensitive_features=features)


def _dup_frame() -> pd.DataFrame:
    frame = pd.concat([FRAME[["sex"]], FRAME[["sex"]]], axis=1)
    return frame


# -- RiskScoreAudit: options (raised by fit; the constructor stores them unchanged) -------------------
AUDIT_OPTIONS = [
    Case("audit-n-bootstrap-zero", _fit(n_bootstrap=0), ConfigError, r"n_bootstrap must be at least 1",
         r"200 resamples"),
    Case("audit-n-bootstrap-negative", _fit(n_bootstrap=-5), ConfigError, r"n_bootstrap.*-5",
         r"at least 1"),
    Case("audit-n-bootstrap-float", _fit(n_bootstrap=2.5), ConfigError, r"n_bootstrap.*2\.5",
         r"whole number"),
    Case("audit-min-group-size-zero", _fit(min_group_size=0), ConfigError, r"min_group_size.*got 0",
         r"at least 1"),
    Case("audit-max-intersections-zero", _fit(max_intersections=0), ConfigError,
         r"max_intersections must be at least 1", r"1 for single attributes"),
    Case("audit-features-a-number", _fit(sensitive_features=3), DataError,
         r"sensitive_features must be column names or one row of attributes per unit", r"got an array of shape"),
    Case("audit-features-empty", _fit(sensitive_features=[]), ConfigError, r"non-empty list",
         r"\['sex'\]"),
    Case("audit-features-repeated", _fit(sensitive_features=["sex", "sex"]), ConfigError,
         r"lists a column twice", r"each once"),
    Case("audit-metrics-a-string", _fit(metrics="drmsce"), ConfigError,
         r"metrics must be a non-empty tuple.*got 'drmsce'", r"\('drmsce',\)"),
    Case("audit-metric-unknown", _fit(metrics=("brier",)), ConfigError, r"Unknown metric.*brier",
         r"choose from"),
    Case("audit-ci-above-one", _fit(ci=1.5), ConfigError, r"ci must be in \(0, 1\)", r"0\.95"),
    Case("audit-ci-nan", _fit(ci=float("nan")), ConfigError, r"ci must be a number.*nan"),
    Case("audit-seed-negative", _fit(random_state=-1), ConfigError, r"random_state.*-1",
         r"None, a seed >= 0"),
    Case("audit-n-jobs-zero", _fit(n_jobs=0), ConfigError, r"n_jobs.*got 0", r"-1 \(all cores\)"),
    Case("audit-auprg-below-two", _fit(auprg_below=2), ConfigError, r"auprg_below.*\[0, 1\]"),
]

# -- RiskScoreAudit.fit: data -------------------------------------------------------------------------
AUDIT_FIT = [
    Case("fit-empty", _fit(Y[:0], R[:0], FRAME[:0]), DataError, r"empty sample", r"at least one row"),
    Case("fit-text-outcomes", _fit(Y.map({0: "no", 1: "yes"})), DataError,
         r"column 'y' holds non-numeric values \['no', 'yes'\]", r"positive_label"),
    Case("fit-positive-label-absent", _fit(Y.map({0: "no", 1: "yes"}), positive_label="Yes"), DataError,
         r"positive_label='Yes' is not a value.*\['no', 'yes'\]", r"pass one of them"),
    Case("fit-outcomes-1-2", _fit(Y + 1), DataError, r"binary 0/1.*\[1\.0, 2\.0\]", r"recode it to 0/1"),
    Case("fit-outcomes-missing", _fit(Y.astype(float).where(Y.index > 3)), DataError,
         r"column 'y' has 4 missing", r"drop those rows"),
    Case("calibration-scores-percent", lambda: drmsce(Y, R * 100), DataError, r"must lie in \[0, 1\]", r"Rescale"),
    Case("fit-scores-nan", _fit(r=R.where(R.index > 0)), DataError, r"column 'score' has 1 NaN", r"drop those rows"),
    Case("fit-scores-text", _fit(r=pd.Series(np.where(R > 0.5, "high", "low"), name="band")), DataError,
         r"column 'band' holds non-numeric values \['high', 'low'\]", r"numbers in \[0, 1\]"),
    Case("fit-frame-repeats-column", _fit(frame=_dup_frame()), DataError, r"several columns named \['sex'\]",
         r"distinct name"),
    Case("fit-one-group", _fit(frame=FRAME.assign(sex="f")), DataError, r"'sex' has a single value",
         r"Drop it from sensitive_features"),
    Case("fit-no-group-large-enough", _fit(min_group_size=1000), DataError,
         r"No group reaches min_group_size=1000.*sex=", r"lower min_group_size"),
    Case("fit-one-outcome-class", _fit(y=Y * 0), DataError, r"Every outcome is 0.*auroc", r"metrics=\('drmsce',\)"),
    Case("fit-frame-too-short", _fit(frame=FRAME[:10]), DataError, r"one row per score \(400\).*10 rows"),
    Case("fit-feature-missing", _fit(sensitive_features=["race"]), DataError, r"\['race'\] are not columns",
         r"fix sensitive_features"),
    Case("fit-feature-has-missing", _fit(frame=FRAME.assign(sex=FRAME.sex.where(FRAME.index > 0))), DataError,
         r"'sex' has missing values", r"fill them"),
]

# -- calibration functions --------------------------------------------------------------------------
CALIBRATION = [
    Case("ece-empty", lambda: ece([], []), DataError, r"ECE is undefined for an empty sample", r"at least one row"),
    Case("ace-empty", lambda: ace(np.array([]), np.array([])), DataError, r"ACE is undefined for an empty sample",
         r"at least one row"),
    Case("drmsce-empty", lambda: drmsce([], []), DataError, r"DRMSCE is undefined for an empty sample"),
    Case("ece-n-bins-zero", lambda: ece([0, 1], [0.2, 0.8], n_bins=0), ConfigError, r"n_bins.*got 0",
         r"at least 1"),
    Case("ece-binning-unknown", lambda: ece([0, 1], [0.2, 0.8], binning="quantile"), ConfigError,
         r"binning must be .*'quantile'", r"'mass'"),
    Case("ece-p-three", lambda: ece([0, 1], [0.2, 0.8], p=3), ConfigError, r"p must be 1 \(ECE\) or 2", r"got 3"),
    Case("ece-convention-unknown", lambda: ece([0, 1], [0.2, 0.8], convention="sklearn"), ConfigError,
         r"convention must be 'standard' or 'paper'"),
    Case("ece-text-outcomes", lambda: ece(["no", "yes"], [0.2, 0.8]), DataError, r"non-numeric values \['no', 'yes'\]",
         r"Recode it"),
    Case("drmsce-min-bin-size-zero", lambda: drmsce([0, 1] * 10, [0.2, 0.8] * 10, min_bin_size=0), ConfigError,
         r"min_bin_size.*got 0"),
    Case("ace-lengths-differ", lambda: ace([0, 1, 1], [0.2, 0.8]), DataError, r"differ in length",
         r"one score per outcome"),
]


# -- read_table / load_table ------------------------------------------------------------------------
def _file(name: str, content: bytes | str) -> object:
    def call() -> object:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="fairprobe-bad-input-") as folder:
            path = Path(folder) / name
            path.write_bytes(content.encode() if isinstance(content, str) else content)
            return load_table(path) if name.startswith("load") else read_table(path)
    return call


FILES = [
    Case("file-zero-bytes", _file("scores.csv", b""), DataError, r"is empty \(0 bytes\)", r"write a header line"),
    Case("file-header-only", _file("scores.csv", "y,score,sex\n"), DataError,
         r"has a header \(y, score, sex\) but no rows", r"one row per unit"),
    Case("file-blank-lines", _file("scores.csv", "\n\n\n"), DataError, r"has no columns", r"header line"),
    Case("file-xlsx", _file("scores.xlsx", b"PK\x03\x04 workbook"), DataError, r"has \.xlsx",
         r"save the sheet as CSV"),
    Case("file-no-extension", _file("scores", "y,score\n1,0.5\n"), DataError, r"has no extension",
         r"rename the file"),
    Case("file-binary-csv", _file("scores.csv", bytes(range(256)) * 8), DataError, r"not a CSV text file",
         r"save the table as CSV"),
    Case("file-workbook-named-csv", _file("scores.csv", b"PK\x03\x04 a zip"), DataError, r"Excel workbook",
         r"real extension"),
    Case("file-duplicate-columns", _file("scores.csv", "y,score,y\n1,0.5,0\n"), DataError,
         r"repeats the column name\(s\) \['y'\]", r"distinct name"),
    Case("file-semicolons", _file("scores.csv", "y;score\n1;0.5\n"), DataError, r"separated by semicolons",
         r"Save it with commas"),
    Case("file-ragged-rows", _file("scores.csv", "y,score\n1,0.5\n0,0.2,extra\n"), DataError,
         r"Expected 2 fields in line 3", r"quote fields"),
    Case("load-table-missing", lambda: load_table(Path("no-such-folder") / "scores.csv"), DataError,
         r"does not exist", r"check the path"),
    Case("load-table-header-only", _file("load.csv", "a,b\n"), DataError, r"but no rows"),
    Case("read-table-folder", lambda: read_table(Path(__file__).parent), DataError, r"is a folder",
         r"path of a CSV"),
]


@pytest.mark.parametrize("case", params(AUDIT_OPTIONS + AUDIT_FIT + CALIBRATION + FILES))
def test_bad_input(case: Case) -> None:
    check(case)


# -- command line ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture files every CLI case refers to as ``{d}/...``."""
    d = tmp_path_factory.mktemp("badio")
    ROWS.to_csv(d / "rows.csv", index=False)
    ROWS.assign(y=ROWS.y.map({0: "no", 1: "yes"})).to_csv(d / "yesno.csv", index=False)
    (d / "dup.csv").write_text("y,score,sex,sex\n1,0.5,f,m\n0,0.2,m,f\n")
    (d / "empty.csv").write_bytes(b"")
    (d / "header.csv").write_text("y,score,sex\n")
    ROWS.to_csv(d / "rows.xlsx", index=False)
    (d / "foreign").mkdir()
    (d / "foreign" / "index.html").write_text("<html>my own page</html>")
    (d / "notreport").mkdir()
    (d / "notreport" / "data.csv").write_text("a\n1\n")
    (d / "afile.txt").write_text("not a folder")
    (d / "prog.txt").write_text("maximize\n  x*y\nsubject to\n  s: x + y <= 1\nbounds\n  0 <= x <= 1\n"
                                "  0 <= y <= 1\n")
    (d / "undeclared.txt").write_text("maximize\n  x*y\nsubject to\n  s: x + y <= 1\nbounds\n  0 <= x <= 1\n")

    CELLS.to_csv(d / "cells.csv", index=False)
    return d


RISK = ("riskscore", "--data", "{d}/rows.csv", "--target", "y", "--score", "score", "--groups", "sex",
        "--bootstrap", "5")
BOUND = ("bound", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", "{d}/cells.csv", "--D", "0.05")
SWEEP = ("sweep", "--bias", "proxy_label", "--metric", "fpr_parity", "--data", "{d}/cells.csv", "--D", "0,0.05")
BREAKDOWN = ("breakdown", "--bias", "selection", "--metric", "fpr_parity", "--data", "{d}/cells.csv")
FAIRTREE = ("fairtree", "--data", "{d}/rows.csv", "--target", "x", "--prediction", "yhat", "--covariates", "age,sex")
MULTI = ("multiplicity", "--data", "{d}/rows.csv", "--target", "y", "--n-models", "5")
DEMO = ("demo", "--quick")
REPORT = ("report", "{d}/notreport")
WITH_OUT = {"bound": BOUND, "sweep": SWEEP, "breakdown": BREAKDOWN, "fairtree": FAIRTREE, "multiplicity": MULTI,
            "riskscore": RISK, "demo": DEMO}

CLI = [
    # riskscore: data and options
    CliCase("riskscore-zero-byte-file", ("riskscore", "--data", "{d}/empty.csv", "--target", "y", "--score", "score",
                                         "--groups", "sex"), r"is empty \(0 bytes\)", r"write a header line"),
    CliCase("riskscore-header-only", ("riskscore", "--data", "{d}/header.csv", "--target", "y", "--score", "score",
                                      "--groups", "sex"), r"but no rows", r"one row per unit"),
    CliCase("riskscore-xlsx", ("riskscore", "--data", "{d}/rows.xlsx", "--target", "y", "--score", "score",
                               "--groups", "sex"), r"has \.xlsx", r"save the sheet as CSV"),
    CliCase("riskscore-duplicate-columns", ("riskscore", "--data", "{d}/dup.csv", "--target", "y", "--score",
                                            "score", "--groups", "sex"), r"repeats the column name", r"distinct"),
    CliCase("riskscore-text-target", ("riskscore", "--data", "{d}/yesno.csv", "--target", "y", "--score", "score",
                                      "--groups", "sex"), r"'y' holds non-numeric values \['no', 'yes'\]",
            r"--positive-label"),
    CliCase("riskscore-positive-label-absent", ("riskscore", "--data", "{d}/yesno.csv", "--target", "y", "--score",
                                                "score", "--groups", "sex", "--positive-label", "YES"),
            r"positive_label='YES' is not a value", r"pass one of them"),
    CliCase("riskscore-bootstrap-zero", (*RISK[:-2], "--bootstrap", "0"), r"n_bootstrap must be at least 1",
            r"200 resamples"),
    CliCase("riskscore-bootstrap-negative", (*RISK[:-2], "--bootstrap", "-3"), r"n_bootstrap.*-3", r"at least 1"),
    CliCase("riskscore-groups-empty", (*RISK[:8], " , ", "--bootstrap", "5"), r"names no column",
            r"--sensitive sex,race"),
    CliCase("riskscore-min-group-too-large", (*RISK, "--min-group-size", "5000"),
            r"No group reaches min_group_size=5000", r"--min-group-size"),
    CliCase("riskscore-seed-negative", (*RISK, "--seed", "-1"), r"random_state.*-1", r"seed >= 0"),
    CliCase("riskscore-jobs-zero", (*RISK, "--jobs", "0"), r"--jobs 0 is not a number of workers",
            r"-1 for every core"),
    # report, demo, solve, plugins
    CliCase("report-not-a-report", (*REPORT, "--out", "{d}/merged"), r"not a fairprobe report folder",
            r"write reports with --out"),
    CliCase("demo-jobs-zero", ("demo", "--jobs", "0", "--out", "{d}/demo"), r"--jobs 0 is not a number of workers",
            r"e\.g\. --jobs 2"),
    CliCase("demo-seed-negative", ("demo", "--seed", "-1", "--out", "{d}/demo"), r"--seed.*-1 is not in the range"),
    CliCase("solve-time-limit-negative", ("solve", "{d}/prog.txt", "--time-limit", "-1"),
            r"--time-limit must be a positive number of seconds", r"Leave it out"),
    CliCase("solve-time-limit-nan", ("solve", "{d}/prog.txt", "--time-limit", "nan"), r"got nan", r"Leave it out"),
    CliCase("solve-undeclared-variable", ("solve", "{d}/undeclared.txt"), r"variable 'y'.*not declared",
            r"add a line"),
    CliCase("solve-not-a-program", ("solve", "{d}/rows.csv"), r"Line 1", r"starts with 'minimize'"),
    CliCase("solve-unknown-backend", ("solve", "{d}/prog.txt", "--backend", "cplex"), r"Unknown backend 'cplex'",
            r"Registered backends"),
    CliCase("plugins-unknown-kind", ("plugins", "--kind", "solvers"), r"Invalid value for '--kind'",
            r"'backends'"),
    # --plot / --csv
    CliCase("sweep-plot-empty", (*SWEEP, "--plot", ""), r"file name given for --plot is empty", r"--plot out\.png"),
    CliCase("sweep-plot-folder", (*SWEEP, "--plot", "{d}"), r"--plot .* is a folder", r"file name inside it"),
    CliCase("sweep-plot-extension", (*SWEEP, "--plot", "{d}/plot.txt"), r"has \.txt", r"\.png"),
    CliCase("sweep-plot-under-a-file", (*SWEEP, "--plot", "{d}/afile.txt/plot.png"), r"afile\.txt is a file",
            r"choose another path"),
    CliCase("sweep-csv-empty", (*SWEEP, "--csv", ""), r"file name given for --csv is empty", r"--csv out\.csv"),
    CliCase("fairtree-plot-empty", (*FAIRTREE, "--plot", ""), r"--plot is empty", r"out\.png"),
    CliCase("fairtree-plot-pdf-folder", (*FAIRTREE, "--plot", "{d}/foreign"), r"is a folder"),
    CliCase("fairtree-csv-folder", (*FAIRTREE, "--csv", "{d}"), r"--csv .* is a folder", r"file name"),
    CliCase("sweep-plot-inside-out", (*SWEEP, "--plot", "{d}/new-report/plot.png", "--out", "{d}/new-report"),
            r"--plot .*plot\.png lies inside the --out folder", r"write --plot outside it"),
    CliCase("fairtree-out-around-csv", (*FAIRTREE, "--out", "{d}/new-report", "--csv", "{d}/new-report/s.csv"),
            r"--csv .* lies inside the --out folder", r"outside it"),
]
# --out of every command: empty, a file, under a file, a folder holding a user's own files
for _name, _argv in WITH_OUT.items():
    CLI += [
        CliCase(f"{_name}-out-empty", (*_argv, "--out", ""), r"name given for --out is empty", r"--out report"),
        CliCase(f"{_name}-out-is-a-file", (*_argv, "--out", "{d}/afile.txt"), r"is a file, not a folder",
                r"new or empty folder"),
        CliCase(f"{_name}-out-under-a-file", (*_argv, "--out", "{d}/afile.txt/report"), r"afile\.txt is a file",
                r"choose another path"),
        CliCase(f"{_name}-out-foreign-folder", (*_argv, "--out", "{d}/foreign"),
                r"holds files fairprobe did not write \(index\.html\)", r"--force"),
    ]
CLI += [
    CliCase("report-out-empty", (*REPORT, "--out", ""), r"--out is empty", r"--out report"),
    CliCase("report-out-foreign-folder", (*REPORT, "--out", "{d}/foreign"), r"did not write", r"--force"),
]


@pytest.mark.parametrize("case", params(CLI))
def test_bad_command_line(case: CliCase, d: Path, capsys: pytest.CaptureFixture,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(d)  # an --out accepted by mistake would show up here
    check_cli(case, capsys, folder=d)
    assert (d / "foreign" / "index.html").read_text() == "<html>my own page</html>"
    assert not (d / "index.html").exists() and not (d / "afile.txt").is_dir()


def test_case_counts() -> None:
    """At least 30 distinct cases for these entry points (the issue's target for this part)."""
    assert len(AUDIT_OPTIONS + AUDIT_FIT + CALIBRATION + FILES) + len(CLI) >= 30

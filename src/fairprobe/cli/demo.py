"""``fairprobe demo``: the whole tour on built-in synthetic data, in about a minute.

The data are :func:`fairprobe.datasets.make_lending_scenario`: loan applicants, a risk score, a
refusal decision and an income model, with five documented injected problems. The demo runs
every method on them and reports which problems it found:

1. **causal sensitivity**: certified bounds and sweeps of FPR, FNR and predictive parity and of
   demographic parity under proxy-label, selection and ECP bias, with breakdown points, checked
   against the hidden truth, plus a cross-check of every installed solver on one program;
2. every registered analysis, found through the plugin registry in its ``demo_order`` (a
   blocked plugin is left out): the built-ins are **FairTree** on the income model's residuals
   (the biased and the high-variance subgroups), **predictive multiplicity** (a Rashomon set of
   decision trees and the applicants whose decision depends on the arbitrary choice of model)
   and the **risk-score audit** (calibration, discrimination and representation per group: the
   miscalibrated region). An analysis without a demo step of its own fits its ``example()``;
   one whose optional packages are not installed (``availability()``, e.g. the exact tree
   Rashomon set without ``treefarms``) is skipped with a line naming the extra that installs it.

Everything goes into one report folder (HTML page, PNG figures, CSV tables, ``summary.json``).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.backends.base import SolveOptions, Termination
from fairprobe.core.jsonsafe import dumps
from fairprobe.core.registry import get_backend, get_registry
from fairprobe.program.model import PolynomialProgram
from fairprobe.reporting.report import Report

__all__ = ["DemoResult", "fpr_range_program", "run_demo"]

METRICS = ["fpr_parity", "fnr_parity", "ppv_parity", "demographic_parity"]
BIASES = ["proxy_label", "selection", "ecp"]
TIME_LIMIT = 5.0  # seconds per solve


def fpr_range_program(p: np.ndarray, D: float, sense: str) -> PolynomialProgram:
    """Linear-fractional program for the true FPR of one group under one-sided proxy noise.

    ``p[i, j] = P(Y = i, P = j | A = a)``; ``alpha_j = P(Z = 0, Y = 1, P = j | A = a)`` (true
    negatives recorded as positives) with ``0 <= alpha_j <= p[1, j]`` and ``alpha_0 + alpha_1 <= D``.
    The true FPR is ``(p01 + alpha_1) / (p00 + p01 + alpha_0 + alpha_1)``.

    Parameters
    ----------
    p : numpy.ndarray
        2 x 2 array, ``p[i, j] = P(Y = i, P = j | A = a)``.
    D : float
        Budget of mislabelled true negatives.
    sense : {"min", "max"}
        Lower or upper end of the range.

    Returns
    -------
    PolynomialProgram
        Two variables, one budget constraint and a linear-fractional objective.

    Examples
    --------
    >>> import numpy as np
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.cli.demo import fpr_range_program
    >>> p = np.array([[0.5, 0.2], [0.1, 0.2]])  # recorded FPR 0.2 / 0.7
    >>> prog = fpr_range_program(p, 0.05, "max")
    >>> prog.name, prog.n_variables
    ('fpr_max_D0.05', 2)
    >>> round(ScipBackend().solve(prog).objective_bound, 4)  # (0.2 + 0.05) / (0.7 + 0.05)
    0.3333
    """
    prog = PolynomialProgram(sense=sense, name=f"fpr_{sense}_D{D:g}")
    a0 = prog.add_variable("alpha0", 0.0, float(p[1, 0]))
    a1 = prog.add_variable("alpha1", 0.0, float(p[1, 1]))
    prog.add_constraint({(a0,): 1.0, (a1,): 1.0}, "<=", D, name="budget")
    prog.set_objective({(a1,): 1.0, (): float(p[0, 1])},
                       denominator={(a0,): 1.0, (a1,): 1.0, (): float(p[0, 0] + p[0, 1])})
    return prog


@dataclass
class DemoResult:
    """Where the report went and what the demo found.

    Parameters
    ----------
    out_dir : Path
        The report folder.
    summary : str
        The findings, as printed at the end of the demo.
    detected : dict of str to bool
        Injected problem -> whether the demo found it.
    tables : dict of str to DataFrame
        Result tables by step.
    seconds : float
        Wall-clock time of the demo.
    facts : dict
        Figures the tests check (realised bias values, bounds, ...).

    Examples
    --------
    >>> from pathlib import Path
    >>> from fairprobe.cli.demo import DemoResult
    >>> res = DemoResult(Path("fairprobe-report"), "found 5 of 5 problems", {"selection": True})
    >>> res.page.as_posix(), all(res.detected.values())
    ('fairprobe-report/index.html', True)
    """

    out_dir: Path
    summary: str
    detected: dict[str, bool]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    seconds: float = 0.0
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def page(self) -> Path:
        """The HTML report.

        Returns
        -------
        Path
            ``out_dir / "index.html"``.

        Examples
        --------
        >>> from pathlib import Path
        >>> from fairprobe.cli.demo import DemoResult
        >>> DemoResult(Path("out"), "", {}).page.name
        'index.html'
        """
        return self.out_dir / "index.html"


def run_demo(out_dir: str | Path = "fairprobe-report", *, quick: bool = False, seed: int = 0,
             n_jobs: int | None = None, echo: Callable[[str], Any] = print, progress: bool = True) -> DemoResult:
    """Run the tour and write the report folder.

    Parameters
    ----------
    out_dir : path
        Report folder (created).
    quick : bool
        Smaller data, fewer models and sensitivity values (used in tests).
    seed : int
        Seed of the synthetic data and of every random choice.
    n_jobs : int, optional
        Parallel workers (default: 2, this machine's cores, or 1 in quick mode).
    echo : callable
        Where progress lines go.
    progress : bool
        Show progress bars of the longer steps.

    Returns
    -------
    DemoResult
        The report folder, the printed summary and which injected problems were detected.

    Examples
    --------
    The demo solves hundreds of programs and fits several analyses (about ten seconds with
    ``quick=True``, a minute without), far beyond a doctest's budget, so the call is not run here:

    >>> import tempfile
    >>> from fairprobe.cli.demo import run_demo
    >>> with tempfile.TemporaryDirectory() as tmp:  # doctest: +SKIP
    ...     result = run_demo(tmp + "/report", quick=True, echo=lambda line: None, progress=False)
    ...     sorted(result.detected)
    ['biased_residuals', 'extra_variance', 'miscalibrated_group', 'proxy_outcome', 'selection']
    """
    from fairprobe.datasets import make_lending_scenario

    start = time.perf_counter()
    jobs = n_jobs if n_jobs is not None else (1 if quick else 2)
    scenario = make_lending_scenario(8_000 if quick else 30_000, seed=seed)
    audit = scenario.audit_frame
    cmd = shlex.join(["fairprobe", "demo", "--seed", str(seed), *(["--quick"] if quick else []), "--out", str(out_dir)])
    report = Report("fairprobe demo: auditing a synthetic lending model", command=cmd)
    from fairprobe.core.progress import is_quiet

    step_echo = (lambda _line: None) if is_quiet() else echo  # --quiet keeps the findings, not the steps
    step_echo(f"fairprobe demo: {len(scenario.frame):,} synthetic applicants, {len(audit):,} with recorded outcomes")
    _data_section(report, scenario)
    detected: dict[str, bool] = {}
    tables: dict[str, pd.DataFrame] = {}
    facts: dict[str, Any] = {}
    steps = [("causal", "causal sensitivity (certified bounds, sweeps, breakdown points)", _causal),
             *_analysis_steps()]
    lines: list[str] = []
    for name, reason in _unavailable_analyses():  # a plain install lacks optional extras: say so, do not fail
        step_echo(f"skipping {name}: {reason}")
        lines.append(f"- {name}: skipped, {reason}")
    for k, (key, title, step) in enumerate(steps, start=1):
        t0 = time.perf_counter()
        step_echo(f"[{k}/{len(steps)}] {title} ...")
        found, table, text = step(report, scenario, facts, quick=quick, seed=seed, n_jobs=jobs, progress=progress)
        detected.update(found)
        tables[key] = table
        lines.extend(text)
        step_echo(f"      done in {time.perf_counter() - t0:.1f} s")
    problems = {
        "proxy_outcome": "proxy outcome with group-dependent noise",
        "selection": "selection of the observed population",
        "biased_residuals": "biased residuals (age < 25)",
        "extra_variance": 'extra variance (education == "none")',
        "miscalibrated_group": 'miscalibrated group (region == "east")',
    }
    found_lines = [f"  [{'x' if detected.get(key) else ' '}] {text}" for key, text in problems.items()]
    summary = "\n".join(["What the audit found:", *lines, "", "Injected problems detected:", *found_lines])
    report.summary = summary
    page = report.write(out_dir)
    seconds = time.perf_counter() - start
    (Path(out_dir) / "summary.json").write_text(dumps(
        {"detected": detected, "facts": facts, "seed": seed, "quick": quick, "seconds": seconds,
         "injected": scenario.injected}, indent=2))
    step_echo("")
    echo(summary)
    step_echo(f"\ndone in {seconds:.0f} s")
    if not _announced_by_command_line():  # `fairprobe demo` prints the line on stderr, like every command with --out
        step_echo(f"report written to {page.resolve()}")
    return DemoResult(Path(out_dir), summary, detected, tables, seconds, facts)


def _announced_by_command_line() -> bool:
    """Whether a ``fairprobe`` command with ``--out`` is running: it announces the report itself."""
    import click

    from fairprobe.reporting.report import WRITTEN_KEY

    ctx = click.get_current_context(silent=True)
    return ctx is not None and WRITTEN_KEY in ctx.meta


def _analysis_steps() -> list[tuple[str, str, Callable[..., tuple[dict[str, bool], pd.DataFrame, list[str]]]]]:
    """One demo step per registered, available analysis, in ``demo_order``: a blocked plugin is not run."""
    analyses = sorted(get_registry().analyses.items(), key=lambda item: (item[1].demo_order, item[0]))
    return [(name, cls.demo_title or f"{name}: {cls.description}", cls.demo) for name, cls in analyses
            if _available(cls)]


def _unavailable_analyses() -> list[tuple[str, str]]:
    """``(name, why)`` of every registered analysis whose optional packages are missing (the demo skips them)."""
    return [(name, cls.availability_reason()) for name, cls in sorted(get_registry().analyses.items())
            if not _available(cls)]


def _available(cls: type) -> bool:
    """An analysis without ``availability()`` (not derived from Analysis) counts as available."""
    return bool(cls.availability()) if hasattr(cls, "availability") else True


# -- sections -------------------------------------------------------------------------------------
def _data_section(report: Report, scenario: Any) -> None:
    sec = report.section(
        "Data and injected problems",
        "Synthetic loan applicants (fairprobe.datasets.make_lending_scenario). A risk score estimates the "
        "probability of default; applicants with a score of at least 0.3 are refused; an income model "
        "estimates income. Five problems were injected on purpose; the auditor sees only the selected "
        "applicants and their recorded outcome.")
    sec.add_parameters({"applicants": len(scenario.frame), "with recorded outcome": len(scenario.audit_frame),
                        "seed": scenario.seed})
    sec.add_table("injected problems", pd.DataFrame(
        [{"problem": k, **{kk: vv for kk, vv in v.items() if kk != "covariate"}}
         for k, v in scenario.injected.items()]))
    sec.add_table("first rows of the audit data", scenario.audit_frame.head(8).round(3))


def _causal(report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
            progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:

    import fairprobe as fp

    table = scenario.causal_table()
    full = scenario.frame
    selected_table = fp.ObservedTable.from_frame(table, given={"S": 1})
    biases = BIASES[:2] if quick else BIASES
    metrics = METRICS[:2] + METRICS[3:] if quick else METRICS
    grid = [0.0, 0.02, 0.05, 0.1, 0.15] if quick else [0.0, 0.01, 0.02, 0.05, 0.1, 0.15]
    realised = {"proxy_label": scenario.injected["proxy_outcome"]["realised_P(Z!=Y)"],
                "selection": scenario.injected["selection"]["realised_P(S=0)"]}
    sel = full[full.selected == 1]
    hidden = {"proxy_label": pd.DataFrame({"A": sel.group, "Y": sel.default_true, "P": sel.decision}),
              "selection": pd.DataFrame({"A": full.group, "Y": full.default, "P": full.decision})}
    # the truth uses fairprobe's own metric definitions: with D = 0 a proxy-label bound is the
    # metric itself, here on the hidden true outcome (or on the whole, unselected population)
    truth = {bias: {m: fp.bound("proxy_label", m, data, D=0.0).lower for m in metrics}
             for bias, data in hidden.items()}
    rows, sweeps = [], {}
    for bias in biases:
        data = selected_table if bias == "selection" else table
        for metric in metrics:
            # a time limit keeps the demo fast; a bound cut short is still certified, only wider
            sweeps[bias, metric] = fp.sensitivity(bias, metric, data, D=grid, n_jobs=n_jobs, progress=False,
                                                  time_limit=TIME_LIMIT)
            bd = fp.breakdown(bias, metric, data, xtol=1e-3, D_max=0.5, time_limit=TIME_LIMIT)
            row = {"bias": bias, "metric": metric, "observed": bd.no_bias.lower, "conclusion": bd.claim,
                   "breakdown_D": bd.value}
            if bias in realised:
                check = fp.bound(bias, metric, data, D=realised[bias], time_limit=TIME_LIMIT)
                true_value = truth[bias][metric]
                row.update({"injected_D": realised[bias], "true_value": true_value, "lower_at_injected": check.lower,
                            "upper_at_injected": check.upper,
                            "truth_covered": bool(check.lower - 1e-6 <= true_value <= check.upper + 1e-6)})
            rows.append(row)
    frame = pd.DataFrame(rows)
    sec = report.section(
        "Causal sensitivity analysis",
        "Certified lower and upper bounds of each fairness metric when the data may be biased by at most "
        "D (proxy labels: P(Z != Y) <= D; selection: P(S = 0) <= D; ECP: a post-prediction policy changes "
        "the outcome for at most a share D). The breakdown point is the smallest D at which the observed "
        "conclusion (the sign of the disparity) can flip. Group 0 minus group 1; 1 = refusal / default.")
    sec.add_parameters({"sensitivity values D": grid, "biases": ", ".join(biases), "metrics": ", ".join(metrics),
                        "backend": "scip", "breakdown tolerance": 1e-3,
                        "solver time limit per bound (s)": TIME_LIMIT,
                        "certified": "every bound is valid even where a solver stopped at the limit"})
    for bias in biases:
        sec.add_figure(f"sweep {bias}", _sweep_figure(bias, metrics, sweeps, realised, truth),
                       f"Certified bounds of every metric under {bias} bias against D"
                       + (" (dotted: the injected bias size; dashed: the true value)." if bias in realised else "."))
    sec.add_table("breakdown points", frame.round(4))
    sec.add_table("sweeps", pd.concat([s.to_frame().assign(bias=b, metric=m) for (b, m), s in sweeps.items()],
                                      ignore_index=True).round(5))
    if not quick:
        _combined_heatmap(sec, selected_table, n_jobs)
    backends, spread = _backend_cross_check(sec, table)
    covered = frame.dropna(subset=["injected_D"])
    found = {}
    for bias, key in (("proxy_label", "proxy_outcome"), ("selection", "selection")):
        sub = frame[(frame.bias == bias) & (frame.metric != "demographic_parity")]
        found[key] = bool((sub.breakdown_D < realised[bias]).any())
    fragile = frame[np.isfinite(frame.breakdown_D)].sort_values("breakdown_D")
    facts["causal"] = {"truth_covered": int(covered.truth_covered.sum()), "truth_checks": len(covered),
                       "backend_disagreement": spread, "backends": backends,
                       "breakdown": {f"{r.bias}/{r.metric}": r.breakdown_D for r in frame.itertuples()}}
    lines = [f"- causal: {len(frame)} metric/bias pairs; {int(np.isfinite(frame.breakdown_D).sum())} conclusions "
             f"can flip below D = 0.5; the most fragile is {fragile.metric.iloc[0]} under {fragile.bias.iloc[0]} "
             f"(breakdown D = {fragile.breakdown_D.iloc[0]:.3f})",
             f"- causal: injected proxy error {realised['proxy_label']:.3f}, unselected share "
             f"{realised['selection']:.3f}; true values inside the certified bounds at those D: "
             f"{int(covered.truth_covered.sum())} of {len(covered)}",
             f"- solvers {', '.join(backends)} on a cross-check program: largest disagreement {spread:.1e}"
             + ("" if spread <= 1e-5 else " (CHECK: the solvers disagree)")]
    return found, frame, lines


def _saved_figure(size: tuple[float, float]) -> Any:
    """A figure on its own Agg canvas: the report saves it to a file, so no pyplot and no backend switch."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _sweep_figure(bias: str, metrics: list[str], sweeps: dict[tuple[str, str], Any], realised: dict[str, float],
                  truth: dict[str, dict[str, float]]) -> Any:
    """One panel per metric: the certified bounds under ``bias`` against D, with the truth where known."""
    ncols = 2
    nrows = -(-len(metrics) // ncols)
    fig = _saved_figure((9, 3.2 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, (ax, metric) in enumerate(zip(axes.flat, metrics, strict=False)):
        sweeps[bias, metric].plot(ax=ax, label="certified bounds", color="C0")
        if bias in realised:
            ax.axvline(realised[bias], color="C3", ls=":", lw=1.5, label="injected bias size")
            ax.axhline(truth[bias][metric], color="C2", ls="--", lw=1, label="true value")
        ax.set_title(metric, fontsize=10)
        ax.set_ylabel("group 0 - group 1")
        if k == 0:
            ax.legend(fontsize=7)
        elif ax.get_legend() is not None:
            ax.get_legend().remove()
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    fig.suptitle(f"{bias} bias: certified bounds against the sensitivity parameter D")
    return fig


def _combined_heatmap(sec: Any, data: Any, n_jobs: int) -> None:
    """FPR parity when proxy labels and selection act together, each with its own parameter."""
    import fairprobe as fp

    grid = {"D_proxy_label": [0.0, 0.02, 0.05], "D_selection": [0.0, 0.05, 0.1, 0.15]}
    res = fp.sensitivity(["proxy_label", "selection"], "fpr_parity", data, D=grid, n_jobs=n_jobs, progress=False,
                         time_limit=TIME_LIMIT)
    fig = _saved_figure((10, 3.8))
    axes = fig.subplots(1, 2)
    res.plot_heatmap(ax=axes[0], value="lower")
    res.plot_heatmap(ax=axes[1], value="upper")
    axes[0].set_title("lower bound of FPR parity")
    axes[1].set_title("upper bound of FPR parity")
    sec.add_figure("combined biases", fig, "Proxy labels and selection together: certified bounds of FPR parity "
                   "over both sensitivity parameters.")
    sec.add_table("combined biases", res.to_frame().round(5))


def _backend_cross_check(sec: Any, table: pd.DataFrame) -> tuple[list[str], float]:
    """The true FPR range of group 1 under one-sided label noise, by every installed solver."""
    sub = table[table.A == 1]
    p = pd.crosstab(sub.Y, sub.P, normalize=True).reindex(index=[0, 1], columns=[0, 1], fill_value=0).to_numpy()
    rows = []
    names = [name for name, cls in sorted(get_registry().backends.items()) if cls.availability()]
    for name in names:
        values = {}
        for sense in ("min", "max"):
            res = get_backend(name).solve(fpr_range_program(p, 0.05, sense), SolveOptions(time_limit=30))
            values[sense] = res.objective_bound if res.termination is Termination.OPTIMAL else float("nan")
        rows.append({"backend": name, "lower": values["min"], "upper": values["max"]})
    frame = pd.DataFrame(rows)
    # a plain install has SCIP only: name the solvers left out and the extra that installs each
    missing = [f"{name} ({cls.install_hint})" for name, cls in sorted(get_registry().backends.items())
               if not cls.availability()]
    sec.add_table("solver cross-check", frame.round(8),
                  "True FPR of group 1 when up to 5 % of its records are negatives recorded as positives "
                  "(a linear-fractional program), solved by every installed backend."
                  + (f" Not installed, so not run: {'; '.join(missing)}." if missing else ""))
    # solvers work to about 1e-6 relative feasibility: differences below 1e-5 are agreement
    spread = float(max(frame.lower.max() - frame.lower.min(), frame.upper.max() - frame.upper.min()))
    return names, spread

"""Command-line front end of the causal sensitivity analysis: ``bound``, ``sweep``, ``breakdown``.

Shared options: ``--bias`` (repeat to combine biases), ``--metric``, ``--data`` (a CSV of unit
rows, or of cells with a ``prob`` column; ``--encoding`` for a CSV that is not UTF-8),
``--columns A=race,Y=recid,P=pred`` (DAG node = column), ``--pos-label`` (the label that means 1
in a column of labels such as hired/rejected), ``--groups`` (two attribute values, codes or
labels, a value and ``rest``, ``all`` or ``each_vs_rest``), ``--param NAME=VALUE`` (fixed
sensitivity values), ``--unmeasured Z`` (DAG nodes with no column, on purpose; a node of the bias
missing from the data is otherwise an error), ``--backend``, ``--time-limit``, ``--jobs``, ``--json``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from fairprobe.cli.options import (
    PLOT_SUFFIXES,
    data_option,
    file_option,
    force_option,
    jobs_option,
    json_option,
    out_option,
    save_plot,
    save_table,
    seed_option,
    single_option,
    time_limit_option,
)
from fairprobe.core.budget import DEFAULT_TIME_LIMIT
from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError, DataError

__all__ = ["bound_command", "breakdown_command", "sweep_command"]


def parse_grid(text: str) -> list[float]:
    """``"0:0.1:21"`` (start:stop:count, inclusive) or ``"0,0.01,0.05"`` -> values.

    Parameters
    ----------
    text : str
        ``start:stop:count`` (``count`` evenly spaced values, both ends included) or a comma list.

    Returns
    -------
    list of float
        The sensitivity values, in the order given.

    Raises
    ------
    ConfigError
        The text is neither form, or the list is empty.

    Examples
    --------
    >>> from fairprobe.cli.causal import parse_grid
    >>> parse_grid("0:0.1:3") == [0.0, 0.05, 0.1]
    True
    >>> parse_grid("0,0.01,0.05")
    [0.0, 0.01, 0.05]
    """
    text = text.strip()
    try:
        if ":" in text:
            start, stop, count = text.split(":")
            n = int(count)
            if n < 1:
                raise ValueError
            return [round(v, 12) for v in np.linspace(float(start), float(stop), n)]
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ConfigError(f"Cannot read sensitivity values {text!r}; write start:stop:count (0:0.1:21) or "
                          "a comma list (0,0.01,0.05).") from None
    if not values:
        raise ConfigError("The list of sensitivity values is empty; give at least one value.")
    return values


def _pairs(text: str | None, what: str, seen: dict[str, str] | None = None) -> dict[str, str]:
    """``NAME=VALUE`` pairs; a name given twice (here or in ``seen``, an earlier use of the option) is refused."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ConfigError(f"Cannot read {what} {part!r}; write NAME=VALUE pairs separated by commas.")
        key, value = key.strip(), value.strip()
        before = out.get(key, (seen or {}).get(key))
        if before is not None:
            raise ConfigError(f"{what} gives {key} twice ({key}={before}, {key}={value}); give each name once.")
        out[key] = value
    return out


def load_data(path: Path, columns: str | None, groups: str | None, pos_label: str | None = None,
              counts: str | None = None) -> tuple[Any, tuple[Any, Any] | str | None]:
    """Read the CSV or Parquet file, map columns to nodes, and read the compared groups.

    The table is read by :func:`fairprobe.core.reading.frame_to_table`, the reader the web app
    uses too: cells with probabilities when the file has a ``prob`` column, cells with counts only
    when ``--counts`` names the count column, unit rows otherwise (a column called ``n`` is then a
    variable).

    Every row is kept: the population of the bias (the ``D`` budget) is everyone in the data, also
    when two groups are compared. Groups are labels of the attribute column (or its codes); they
    are resolved against the table's labels when the metric is bound, with a clear error naming
    the groups the data have.

    Parameters
    ----------
    path : Path
        A CSV or Parquet file of unit rows, or of cells with a ``prob`` column (probabilities) or a
        count column (counts, which ``--ci`` needs).
    columns : str or None
        The ``--columns`` mapping ``"A=race,Y=recid,P=pred"`` (DAG node = column).
    groups : str or None
        The ``--groups`` value: two values separated by a comma, ``"all"`` or ``"each_vs_rest"``.
    pos_label : str or None
        The ``--pos-label`` value: the label that means 1 (``"hired"``), or labels by node
        (``"Y=hired,P=hire"``); text matches numbers and booleans (``"2"`` is the label 2).
    counts : str or None
        The ``--counts`` value: the column of cell counts.

    Returns
    -------
    table : ObservedTable
        The observed table.
    groups : (value, value), str or None
        The compared groups (``None`` when not given: the metric's default, which is only accepted
        for a two-valued attribute); digits become integer codes.

    Raises
    ------
    DataError
        A mapped column is not in the file, the file is not a usable table, or ``pos_label`` is not
        a label of the columns.
    ConfigError
        ``groups`` or ``pos_label`` is malformed.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fairprobe.cli.causal import load_data
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "units.csv"
    ...     _ = path.write_text("race,recid,pred\\na,1,1\\nb,0,1\\na,0,0\\nb,1,0\\n")
    ...     table, groups = load_data(path, "A=race,Y=recid,P=pred", "b,a")
    >>> table.nodes, table.categories["A"], groups
    (['A', 'Y', 'P'], ['a', 'b'], ('b', 'a'))
    """
    from fairprobe.cli.options import read_table
    from fairprobe.core.reading import frame_to_table
    from fairprobe.core.table import check_one_column_per_node

    frame = read_table(path)
    mapping = _pairs(columns, "--columns")
    check_one_column_per_node(mapping)
    missing = [col for col in mapping.values() if col not in frame.columns]
    if missing:
        raise DataError(f"Column(s) {missing} named in --columns are not in {path}; available: "
                        f"{list(frame.columns)}.")
    if counts is not None and counts not in frame.columns:
        raise DataError(f"--counts {counts}: no such column in {path}; available: {list(frame.columns)}.")
    table = frame_to_table(frame, mapping, counts=counts, pos_label=_pos_label(pos_label))
    if groups is None:
        return table, None
    if groups in ("all", "each_vs_rest"):
        return table, groups
    labels = [g.strip() for g in groups.split(",")]
    if len(labels) != 2 or not all(labels):
        raise ConfigError(f"--groups takes two attribute values separated by a comma (a value and 'rest'), 'all' or "
                          f"'each_vs_rest'; got {groups!r}.")
    return table, (_group_value(labels[0]), _group_value(labels[1]))


def _pos_label(text: str | None) -> str | dict[str, str] | None:
    """``--pos-label hired`` (one label) or ``--pos-label Y=hired,P=hire`` (labels by node)."""
    if text is None:
        return None
    if "=" not in text:
        if not text.strip():
            raise ConfigError("--pos-label is empty; give the label that means 1, e.g. --pos-label hired.")
        return text.strip()
    pairs = [part.partition("=") for part in text.split(",") if part.strip()]
    if not pairs or any(not key.strip() or not value.strip() for key, _, value in pairs):
        raise ConfigError(f"Cannot read --pos-label {text!r}; give one label (--pos-label hired) or labels by node "
                          "(--pos-label Y=hired,P=hire).")
    return _pairs(text, "--pos-label")  # a node given twice (Y=yes,...,Y=no) is refused, not the last kept


def _group_value(text: str) -> Any:
    """A group typed on the command line; ``Metric.bind`` matches it to the table's labels (as text) or codes."""
    return int(text) if text.isdigit() else text


def _metric(name: str, group: str | None, groups: tuple[Any, Any] | str | None) -> Any:
    if "P(" in name.replace(" ", ""):
        if group is not None or groups is not None:
            raise ConfigError(f"--group/--groups do not apply to a query string ({name!r}): it names its groups "
                              "itself (e.g. 'P(P = 1 | Y = 0 & A = 1)'); drop the option.")
        return name
    from fairprobe.core.registry import metric

    options: dict[str, Any] = {}
    if group is not None:
        options["group"] = _group_value(group)
    if groups is not None:
        options["groups"] = groups
    return metric(name, **options)


def _fixed(params: tuple[str, ...], given_d: bool = False) -> dict[str, float]:
    """The ``--param NAME=VALUE`` values; a name given twice (in one or several ``--param``) is refused."""
    seen: dict[str, str] = {}
    for item in params:
        seen.update(_pairs(item, "--param", seen))
    out = {}
    for k, v in seen.items():
        try:
            out[k] = float(v)
        except ValueError:
            raise ConfigError(f"--param {k} needs a number; got {v!r}.") from None
    if given_d and "D" in out:
        raise ConfigError("The sensitivity value D is given twice, by --D and by --param D=...; give it once "
                          "(--D for the value; --param is for the other parameters of a combined bias).")
    return out


def _d_and_fixed(d_value: float | None, params: tuple[str, ...]) -> tuple[float | None, dict[str, float]]:
    """``bound``'s D and fixed parameters: ``--param D=...`` without ``--D`` is taken as ``--D``."""
    fixed = _fixed(params, given_d=d_value is not None)
    if "D" in fixed:
        d_value = fixed.pop("D")
    return d_value, fixed


#: The interval keywords of the drivers as the command line spells them (their errors name the keywords).
CLI_FLAGS = {"ci_method": "--ci-method", "resamples": "--resamples", "stratify": "--stratify", "seed": "--seed",
             "n_jobs": "--jobs", "ci": "--ci"}
_KEYWORD = re.compile(r"(?<![\w.-])(" + "|".join(CLI_FLAGS) + r")=(?:'([^']*)'|([^\s,;)']*))")


def cli_words(message: str) -> str:
    """A driver's error in the command line's words: ``ci=95.0`` becomes ``--ci 95.0``, ``ci_method=`` ``--ci-method``.

    Parameters
    ----------
    message : str
        The error's text, naming the API's keywords.

    Returns
    -------
    str

    Examples
    --------
    >>> cli_words("ci=95.0 must be a coverage level strictly between 0 and 1, e.g. ci=0.95.")
    '--ci 95.0 must be a coverage level strictly between 0 and 1, e.g. --ci 0.95.'
    >>> cli_words("seed=3 only applies to a sampling interval: add ci=0.95 (command line: --ci 0.95), or drop it.")
    '--seed 3 only applies to a sampling interval: add --ci 0.95, or drop it.'
    >>> cli_words("stratify= applies to bootstrap (drop stratify, or use ci_method='bootstrap').")
    '--stratify applies to bootstrap (drop --stratify, or use --ci-method bootstrap).'
    """
    message = re.sub(r"\b(drop|without) (" + "|".join(CLI_FLAGS) + r")\b(?!=)",
                     lambda m: f"{m.group(1)} {CLI_FLAGS[m.group(2)]}", message)

    def flag(match: re.Match[str]) -> str:
        value = match.group(2) if match.group(2) is not None else match.group(3)
        return CLI_FLAGS[match.group(1)] + (f" {value}" if value else "")

    message = _KEYWORD.sub(flag, message)
    # "add --ci 0.95 (command line: --ci 0.95)": the API's own hint for the command line, now said twice
    return re.sub(r"(--[\w-]+(?: [^\s,;()]+)?) \(command line: \1\)", r"\1", message)


@contextlib.contextmanager
def _in_cli_words() -> Iterator[None]:
    """A driver's ``ConfigError`` about its interval keywords, reworded with the command's flags."""
    try:
        yield
    except ConfigError as exc:
        text = str(exc)
        worded = cli_words(text)
        if worded != text:
            exc.args = (worded, *exc.args[1:])
        raise


def _bias(biases: tuple[str, ...]) -> Any:
    if not biases:
        raise ConfigError("Give a bias with --bias (repeat it to combine biases); see `fairprobe plugins`.")
    return list(biases) if len(biases) > 1 else biases[0]




def _report(out_dir: Path, title: str, summary: str, result: dict[str, Any], biases: tuple[str, ...], metric: str,
            data_path: Path, context: dict[str, Any] | None = None) -> None:
    """A one-result report folder: the summary, the parameters (with the audit context) and the result as a table."""

    from fairprobe.cli.options import write_report

    flat = {k: (dumps(v) if isinstance(v, dict | list) else v)
            for k, v in result.items()}
    parameters = {"bias": " + ".join(biases), "metric": metric, "data": str(data_path)}
    for key, value in (context or {}).items():
        parameters[key.replace("_", " ")] = value if isinstance(value, str) else dumps(value)
    tables = {"result": pd.DataFrame([flat]).T.rename(columns={0: "value"})}
    block = interval_table(result.get("interval"))
    if block is not None:
        tables["sampling interval"] = block
    write_report(out_dir, title, summary=summary, parameters=parameters, tables=tables,
                 text=INTERVAL_TEXT if block is not None else "")


#: How to read the report's sampling-interval table (docs/causal.md, "Sampling uncertainty").
INTERVAL_TEXT = ("Two intervals. The bias-only interval is the certified range of the metric if the data were "
                 "the population. The confidence interval adds the sampling error of the data: it covers the "
                 "metric's true value with the stated probability whenever the bias is at most the sensitivity "
                 "value. A conclusion that holds on the confidence interval survives both bias and noise.")


def interval_table(interval: dict[str, Any] | None) -> pd.DataFrame | None:
    """The report's block for a sampling interval (``BoundResult.interval.to_dict()``), or None.

    Parameters
    ----------
    interval : dict or None

    Returns
    -------
    pandas.DataFrame or None
        One row per quantity: the confidence interval, the identified-set interval, the bias-only
        interval, the method and its size.

    Examples
    --------
    >>> block = interval_table({"level": 0.95, "method": "bootstrap", "lower": 0.1, "upper": 0.5, "set_lower": 0.09,
    ...                         "set_upper": 0.52, "estimate": [0.2, 0.4], "resamples": 1000, "failed": 0, "n": 500,
    ...                         "seed": 0})
    >>> block.loc["95 % confidence interval for the metric", "value"]
    '[0.1000, 0.5000]'
    """
    if not interval:
        return None
    pct = f"{100 * interval['level']:g} %"
    method = interval["method"]
    size = (f"{interval['resamples']:,} resamples" if method == "bootstrap" else
            f"{interval['resamples']:,} posterior draws" if method == "bayes" else "one certified program")
    rows = {
        f"{pct} {'credible' if method == 'bayes' else 'confidence'} interval for the metric":
            f"[{interval['lower']:.4f}, {interval['upper']:.4f}]",
        f"{pct} interval for the identified set": f"[{interval['set_lower']:.4f}, {interval['set_upper']:.4f}]",
        "bias-only interval (the data as the population)":
            f"[{interval['estimate'][0]:.4f}, {interval['estimate'][1]:.4f}]",
        "method": f"{method}, {size}",
        "units behind the table": f"{interval['n']:,}",
        "draws where the metric was undefined": f"{interval.get('failed', 0):,}",
        "seed": str(interval.get("seed", "")),
    }
    return pd.DataFrame({"value": list(rows.values())}, index=pd.Index(list(rows), name="quantity"))


def _columns_text(columns: str | None, table: Any) -> str:
    """Which column each DAG node was read from (``A = race, Y = two_year_recid, ...``)."""
    mapping = _pairs(columns, "--columns")
    return ", ".join(f"{node} = {mapping.get(node, node)}" for node in table.nodes)


def _context(res: Any, table: Any, columns: str | None) -> dict[str, Any]:
    """The audit context every causal output carries: observed value, D, columns, groups and the
    result's own conclusion (decided in :mod:`fairprobe.core.interpret`, only printed here)."""
    observed = res.observed
    return {"observed": None if observed is None else observed.to_dict(),
            "sensitivity": dict(res.parameters),
            "columns": _columns_text(columns, table),
            "groups": list(table.categories.get("A", [])),
            "conclusion": res.conclusion().text, "verdict": res.conclusion().verdict}


def _context_text(context: dict[str, Any]) -> str:
    # the conclusion is already the summary's last line (the result renders it, not the CLI)
    return "\n".join([f"data columns: {context['columns']}",
                      f"groups of A: {', '.join(map(str, context['groups'])) or 'codes'}"])


def common(f: Any) -> Any:
    """Options shared by the causal commands.

    Parameters
    ----------
    f : callable
        The click command function to decorate.

    Returns
    -------
    callable
        ``f`` with ``--bias``, ``--metric``, ``--data`` (and ``--encoding``), ``--columns``,
        ``--pos-label``, ``--groups``, ``--group``,
        ``--param``, ``--unmeasured``, ``--backend``, ``--time-limit``, ``--json``, ``--out`` and
        ``--force``.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> from fairprobe.cli.causal import common
    >>> @click.command()
    ... @common
    ... def show(**options):
    ...     click.echo(sorted(options))
    >>> print(CliRunner().invoke(show, ["--help"]).output.splitlines()[3])  # doctest: +NORMALIZE_WHITESPACE
      --bias TEXT Bias name or JSON file; repeat to combine biases.
    """
    options = [
        click.option("--bias", "biases", multiple=True, help="Bias name or JSON file; repeat to combine biases."),
        single_option("--metric", required=True, help="Metric name (see `fairprobe plugins`) or a query string."),
        data_option("CSV or Parquet of unit rows, or of cells with a 'prob' column (probabilities) or a count "
                    "column named by --counts."),
        single_option("--columns", default=None, help="Node=column mapping, e.g. A=race,Y=recid,P=pred."),
        single_option("--counts", default=None, metavar="COLUMN",
                     help="The column of cell counts (e.g. n): the rows are cells with counts. Without it a "
                          "column called n is a variable of unit rows, as in the app."),
        single_option("--pos-label", "pos_label", default=None, metavar="LABEL",
                     help="The label that means 1 in a column of labels that do not say it (hired/rejected, "
                          "yes/no, 1/2): one label, or per node, e.g. Y=hired,P=hire."),
        single_option("--groups", default=None,
                     help="Two attribute values to compare (codes or labels), a value and 'rest' (everyone "
                          "else), 'all' (largest gap over pairs) or 'each_vs_rest' (largest gap of a group "
                          "against the rest)."),
        single_option("--group", default=None, help="Group for group rates (fpr, ppv, ...): a label or code."),
        click.option("--param", "params", multiple=True, help="Fixed sensitivity value NAME=VALUE (repeatable)."),
        single_option("--unmeasured", default=None,
                     help="DAG nodes with no column in the data, on purpose (comma list, e.g. Z)."),
        single_option("--backend", default="scip", show_default=True, help="Solver backend."),
        time_limit_option(DEFAULT_TIME_LIMIT),
        json_option(),
        out_option(),
        force_option,
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


STRATIFY_OPTION = single_option(
    "--stratify", default=None, metavar="NODE",
    help="With --ci: resample within the levels of this node (e.g. A, when the groups' sizes were fixed by design).")


def interval_options(f: Any) -> Any:
    """``--ci LEVEL``, ``--ci-method``, ``--resamples``, ``--seed`` and ``--jobs``: the sampling interval.

    Parameters
    ----------
    f : callable
        The click command function to decorate.

    Returns
    -------
    callable
        ``f`` with the options, passed as ``ci``, ``ci_method``, ``resamples``, ``stratify``, ``seed``,
        ``n_jobs``.
    """
    options = [
        single_option("--ci", "ci", type=float, default=None,
                     help="Also give the confidence interval with sampling error at this level (e.g. 0.95); "
                          "needs unit rows or counts."),
        single_option("--ci-method", type=click.Choice(["bootstrap", "projection", "bayes"]), default="bootstrap",
                     show_default=True, help="bootstrap (Imbens-Manski/Stoye), projection (finite-sample valid, "
                                             "one program) or bayes (Dirichlet draws)."),
        single_option("--resamples", type=int, default=1000, show_default=True,
                     help="Bootstrap resamples or posterior draws for --ci."),
        STRATIFY_OPTION,
        seed_option("Seed of the resamples (the interval does not depend on --jobs)."),
        jobs_option(dest="n_jobs"),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def _interval_kwargs(ci: float | None, ci_method: str, resamples: int, stratify: str | None, seed: int,
                     n_jobs: int | None) -> dict[str, Any]:
    """The interval keywords of a driver; without --ci the others (--seed too) still go, so the driver refuses them."""
    out: dict[str, Any] = {"ci": ci, "ci_method": ci_method, "resamples": resamples, "stratify": stratify,
                           "seed": seed}
    if ci is not None and n_jobs is not None:
        out["n_jobs"] = n_jobs
    return out


@click.command("bound")
@common
@single_option("--D", "d_value", type=float, default=None, help="Sensitivity value (single-parameter bias).")
@interval_options
def bound_command(biases: tuple[str, ...], metric: str, data_path: Path, columns: str | None, groups: str | None,
              group: str | None, params: tuple[str, ...], unmeasured: str | None, backend: str,
              time_limit: float | None, as_json: bool, out_dir: Path | None, d_value: float | None,
              ci: float | None, ci_method: str, resamples: int, stratify: str | None, seed: int,
              n_jobs: int, pos_label: str | None = None, counts: str | None = None) -> None:
    """Certified bounds of a fairness metric under a bias at one sensitivity value.

    With --ci, also the confidence interval that adds the sampling error of the data (a group of
    11 people does not measure a rate).

    \b
    Example:
      fairprobe bound --bias proxy_label --metric fpr_parity --data cells.csv --D 0.05
      fairprobe bound --bias selection --metric fpr_parity --data preds.csv \\
          --columns A=race,Y=recid,P=pred --D 0.05 --ci 0.95 --ci-method bootstrap --resamples 1000
    """
    from fairprobe.core.bound import bound

    d_value, fixed = _d_and_fixed(d_value, params)
    table, grp = load_data(data_path, columns, groups, pos_label, counts)
    extra = _interval_kwargs(ci, ci_method, resamples, stratify, seed, n_jobs)
    with _in_cli_words():
        res = bound(_bias(biases), _metric(metric, group, grp), table, D=d_value, backend=backend,
                    time_limit=time_limit, unmeasured=unmeasured, **extra, **fixed)
    context = _context(res, table, columns)
    text = f"{res.summary()}\n{_context_text(context)}"
    if out_dir is not None:
        _report(out_dir, "Certified bounds", text, res.to_dict(), biases, metric, data_path, context)
    click.echo(dumps({**res.to_dict(), **context}, indent=2) if as_json
               else text)


@click.command("sweep")
@common
@single_option("--D", "d_grid", required=True, help="Values: start:stop:count (0:0.1:21) or a comma list.")
@single_option("--parameter", default=None, help="Parameter swept when the bias has several.")
@jobs_option(dest="n_jobs")
@file_option("--plot", "plot_path", suffixes=PLOT_SUFFIXES, help="Write the sensitivity plot (PNG/PDF/SVG).")
@file_option("--csv", "csv_path", help="Write the table of bounds (CSV).")
@single_option("--ci", "ci", type=float, default=None,
              help="Also the confidence interval with sampling error at every point (e.g. 0.95; the plot's lighter "
                   "band); needs unit rows or counts.")
@single_option("--ci-method", type=click.Choice(["bootstrap", "projection", "bayes"]), default="bootstrap",
              show_default=True, help="Interval method (projection: one solve per point).")
@single_option("--resamples", type=int, default=1000, show_default=True, help="Resamples or draws per point.")
@STRATIFY_OPTION
@seed_option("Seed of the resamples (the same resamples at every point).")
def sweep_command(biases: tuple[str, ...], metric: str, data_path: Path, columns: str | None, groups: str | None,
              group: str | None, params: tuple[str, ...], unmeasured: str | None, backend: str,
              time_limit: float | None,
              as_json: bool, out_dir: Path | None, d_grid: str, parameter: str | None, n_jobs: int,
              plot_path: Path | None, csv_path: Path | None, ci: float | None, ci_method: str, resamples: int,
              stratify: str | None, seed: int, pos_label: str | None = None, counts: str | None = None) -> None:
    """Certified bounds over a grid of sensitivity values (progress on stderr).

    \b
    Example:
      fairprobe sweep --bias selection --metric equalized_odds --data preds.csv \\
          --columns A=race,Y=recid,P=pred --D 0:0.1:21 --plot out.png --json
    """
    from fairprobe.core.sensitivity import sensitivity

    table, grp = load_data(data_path, columns, groups, pos_label, counts)
    extra = _interval_kwargs(ci, ci_method, resamples, stratify, seed, None)
    with _in_cli_words():
        res = sensitivity(_bias(biases), _metric(metric, group, grp), table, D=parse_grid(d_grid),
                          parameter=parameter, backend=backend, time_limit=time_limit, n_jobs=n_jobs,
                          unmeasured=unmeasured, **extra, **_fixed(params, given_d=True))
    if plot_path is not None:
        save_plot(res.plot, plot_path)
    if csv_path is not None:
        save_table(res.to_frame(), csv_path)
    if out_dir is not None:
        from fairprobe.cli.options import write_report

        write_report(out_dir, f"Sensitivity sweep: {metric}", summary=res.summary(),
                     parameters={"bias": " + ".join(biases), "metric": metric, "data": str(data_path),
                                 "columns": _columns_text(columns, table),
                                 "groups of A": ", ".join(map(str, table.categories.get("A", []))),
                                 "D": d_grid, "backend": backend, "time limit": time_limit},
                     tables={"bounds": res.to_frame()},
                     figures={"certified bounds": res.plot} if len(res.parameters) == 1 else {})
    if as_json:
        click.echo(res.to_json())
    else:
        click.echo(res.summary())
        click.echo(f"data columns: {_columns_text(columns, table)}")
        shown = [*res.parameters, "lower", "upper", *(["ci_lower", "ci_upper"] if ci is not None else []), "status"]
        click.echo(res.to_frame()[shown].to_string(index=False))


@click.command("breakdown")
@common
@single_option("--threshold", type=float, default=None, help="Conclusion: metric above/below this (default 0).")
@single_option("--tolerance", type=float, default=None, help="Conclusion: |metric| <= tolerance (or not).")
@single_option("--parameter", default=None, help="Parameter moved when the bias has several.")
@interval_options
def breakdown_command(biases: tuple[str, ...], metric: str, data_path: Path, columns: str | None,
                  groups: str | None, group: str | None, params: tuple[str, ...], unmeasured: str | None,
                  backend: str,
                  time_limit: float | None, as_json: bool, out_dir: Path | None, threshold: float | None,
                  tolerance: float | None, parameter: str | None, ci: float | None, ci_method: str,
                  resamples: int, stratify: str | None, seed: int, n_jobs: int,
                  pos_label: str | None = None,
                  counts: str | None = None) -> None:
    """Smallest sensitivity value at which the fairness conclusion can flip.

    With --ci, also the smallest value at which the confidence interval (bias and sampling error)
    reaches the threshold: the conclusion that survives both.

    \b
    Example:
      fairprobe breakdown --bias selection --metric fpr_parity --data cells.csv --tolerance 0.05
      fairprobe breakdown --bias proxy_label --metric fpr_parity --data counts.csv --ci 0.95 --ci-method projection
    """
    from fairprobe.core.breakdown import breakdown

    table, grp = load_data(data_path, columns, groups, pos_label, counts)
    extra = _interval_kwargs(ci, ci_method, resamples, stratify, seed, n_jobs)
    with _in_cli_words():
        res = breakdown(_bias(biases), _metric(metric, group, grp), table, threshold=threshold,
                        tolerance=tolerance, parameter=parameter, backend=backend, time_limit=time_limit,
                        unmeasured=unmeasured, **extra, **_fixed(params))
    context = {"observed": {"lower": res.no_bias.lower, "upper": res.no_bias.upper},
               "columns": _columns_text(columns, table), "groups": list(table.categories.get("A", [])),
               "conclusion": res.conclusion().text, "verdict": res.conclusion().verdict}
    text = f"{res.summary()}\n{_context_text(context)}"
    if out_dir is not None:
        _report(out_dir, "Breakdown point", text, res.to_dict(), biases, metric, data_path, context)
    click.echo(dumps({**res.to_dict(), **context}, indent=2) if as_json
               else text)

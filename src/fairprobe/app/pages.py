"""The app's pages (Streamlit calls); the logic they use is in :mod:`fairprobe.app.logic`.

Every user's objects live in ``st.session_state`` (one per browser session); this module keeps no
mutable state of its own except :data:`SOLVE_LOCK`, which serialises solver calls across sessions
(concurrent SCIP instances in one process are unsafe) and holds no data.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import pandas as pd

try:
    import streamlit as st
except ImportError:  # imported without the app extra (e.g. by doctest collection): the pages cannot run
    st = None

import fairprobe as fp
from fairprobe.app import logic
from fairprobe.core.inputs import resolve_bias

__all__ = ["PAGES", "main"]

#: Serialises solves and fits across sessions; it holds no user data.
SOLVE_LOCK = threading.Lock()

def _warm_up() -> None:
    """Import the plotting and solver libraries in the background once the server starts.

    The first sweep of a fresh server would otherwise pay for these imports (about a second).
    """
    import importlib

    for name in ("altair", "matplotlib.pyplot", "pyscipopt", "fairprobe.core.sensitivity",
                 "fairprobe.reporting.report"):
        try:
            importlib.import_module(name)
        except ImportError:  # an optional library: imported (and reported) when used
            pass


if st is not None:
    threading.Thread(target=_warm_up, name="fairprobe-app-warm-up", daemon=True).start()

PAGES = ("Bias workshop", "Data", "Sensitivity analysis", "Other analyses")
WORKSHOP = "(workshop bias)"
#: Seconds between redraws of a running sweep's chart (drawing competes with the solver for the CPU).
REDRAW = 5.0


def _ss() -> Any:
    return st.session_state


# -- bias workshop -------------------------------------------------------------------------------------
def _set_fields(config: fp.BiasConfig) -> None:
    ss = _ss()
    ss["fields"] = logic.fields_from_config(config)
    for key, value in ss["fields"].items():
        ss[f"f_{key}"] = value
    ss["config_base"] = config.to_dict()


def _sync_fields() -> None:
    """Keep the workshop's fields across pages.

    Streamlit drops the state of widgets a run does not draw, so the fields are also kept under
    ``fields`` and put back into the widget keys when the workshop is not on screen.
    """
    ss = _ss()
    fields = ss.setdefault("fields", {})
    for key in logic.FIELDS:
        if f"f_{key}" in ss:
            fields[key] = ss[f"f_{key}"]
        elif key in fields:
            ss[f"f_{key}"] = fields[key]


def _load_registered() -> None:
    name = _ss().get("bw_start")
    try:
        _set_fields(fp.get_registry().biases[name]().config())
        _ss()["bw_message"] = ("success", f"Loaded the registered bias {name!r}.")
    except fp.FairprobeError as exc:
        _ss()["bw_message"] = ("error", str(exc))


def _load_uploaded() -> None:
    upload = _ss().get("bw_upload")
    if upload is None:
        _ss()["bw_message"] = ("error", "Choose a bias-config JSON file first.")
        return
    try:
        text = upload.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        _ss()["bw_message"] = ("error", "The file is not UTF-8 text; upload a bias-config JSON file.")
        return
    if not text.lstrip().startswith("{"):  # read_json treats other text as a path: never let it
        _ss()["bw_message"] = ("error", "A bias config is a JSON object starting with '{'; check the file.")
        return
    try:
        _set_fields(fp.BiasConfig.from_dict(fp.BiasConfig.read_json(text)))
        _ss()["bw_message"] = ("success", "Loaded the uploaded bias config.")
    except fp.FairprobeError as exc:
        _ss()["bw_message"] = ("error", str(exc))


def _init_state() -> None:
    ss = _ss()
    if "fields" not in ss:
        _set_fields(fp.get_registry().biases["selection"]().config())
    _sync_fields()


def _update_config() -> None:
    """Validate the workshop's fields (every run, whatever the page): config, constraint issues, error."""
    ss = _ss()
    _sync_fields()
    fields = {k: ss["fields"].get(k, "") for k in logic.FIELDS}
    config, error = None, None
    try:
        config = logic.config_from_fields(fields, ss.get("config_base"))
    except fp.FairprobeError as exc:
        error = str(exc)
    nodes = config.dag.nodes if config is not None else None
    if config is None:  # the DAG alone may be fine: check the constraints against its nodes
        try:
            nodes = logic.config_from_fields({**fields, "constraints": ""}, ss.get("config_base")).dag.nodes
        except fp.FairprobeError:
            nodes = None
    issues = logic.constraint_issues(fields["constraints"], nodes)
    ss["config"] = config if not issues else None
    ss["config_issues"], ss["config_error"] = issues, error


def current_config() -> fp.BiasConfig | None:
    """The workshop's config when it is valid (else None).

    Returns
    -------
    BiasConfig or None

    Examples
    --------
    Pages run inside Streamlit; its test harness runs them headless:

    >>> from streamlit.testing.v1 import AppTest
    >>> at = AppTest.from_string(
    ...     "import streamlit as st\\n"
    ...     "from fairprobe.app.pages import bias_page, current_config\\n"
    ...     "bias_page()\\n"
    ...     "config = current_config()\\n"
    ...     "st.write('config:', config.name if config else None)").run(timeout=60)
    >>> at.markdown[-1].value
    'config: `None`'
    >>> at.button(key="bw_load").click().run(timeout=60).markdown[-1].value
    'config: selection'
    """
    return _ss().get("config")


def bias_page() -> None:
    """Page 1: edit a bias (DAG, roles, cardinalities, constraints), see its DAG, export it.

    Examples
    --------
    >>> from streamlit.testing.v1 import AppTest
    >>> at = AppTest.from_string("from fairprobe.app.pages import bias_page\\nbias_page()").run(timeout=60)
    >>> at.header[0].value, len(at.exception)
    ('Bias workshop', 0)
    """
    ss = _ss()
    st.header("Bias workshop")
    st.caption("Start from a registered bias or a bias-config JSON, edit every element, export the result.")
    names = sorted(fp.get_registry().biases)
    c1, c2 = st.columns(2)
    with c1:
        st.selectbox("Registered bias", names, key="bw_start",
                     index=names.index("selection") if "selection" in names else 0)
        st.button("Load bias", key="bw_load", on_click=_load_registered)
    with c2:
        st.file_uploader("or upload a bias-config JSON", type=["json"], key="bw_upload")
        st.button("Load uploaded config", key="bw_load_upload", on_click=_load_uploaded)
    msg, slot = ss.pop("bw_message", None), st.empty()  # the slot keeps the layout stable between runs
    if msg:
        (slot.success if msg[0] == "success" else slot.error)(msg[1])

    left, right = st.columns([3, 2])
    with left:
        st.text_input("Name", key="f_name")
        st.text_input("Description", key="f_description")
        st.text_area("DAG edges (dag_str, comma separated: X -> Y)", key="f_dag_str", height=80)
        a, b, c = st.columns(3)
        a.text_input("Unobserved (latent) nodes", key="f_unob")
        b.text_input("Conditioned nodes (data given = 1)", key="f_cond_nodes")
        c.text_input("Measured nodes (observed_nodes)", key="f_observed_nodes")
        a, b, c = st.columns(3)
        a.text_input("Attribute node", key="f_attribute_node")
        b.text_input("Outcome node", key="f_outcome_node")
        c.text_input("Prediction node", key="f_prediction_node")
        a, b, c = st.columns(3)
        a.text_input("Cardinalities (A=3, X=4)", key="f_cardinalities")
        b.text_input("Cardinality of (Z=Y)", key="f_cardinality_of")
        c.text_input("Sensitivity parameters", key="f_parameters")
        st.text_area("Constraints (one per line)", key="f_constraints", height=120)

    _update_config()
    fields = {k: ss["fields"].get(k, "") for k in logic.FIELDS}
    config, issues, dag_error = ss["config"], ss["config_issues"], ss["config_error"]
    with left:
        for issue in issues:
            st.error(f"Constraint line {issue.line} (`{issue.text}`): {issue.message}")
        if dag_error and not issues:
            st.error(f"The config is not valid: {dag_error}")
        if config is not None:
            st.success(f"Valid bias config: {len(config.dag.nodes)} nodes, {len(config.constraints)} constraint(s), "
                       f"parameters {config.parameters}.")
    with right:
        roles = {fields["attribute_node"]: "attribute", fields["prediction_node"]: "prediction"}
        outcome = fields["outcome_node"].split("(")[0]
        roles[outcome] = "outcome" if outcome not in roles else roles[outcome] + ", outcome"
        st.graphviz_chart(logic.dag_dot(fields["dag_str"], logic.split_names(fields["unob"]),
                                        logic.split_names(fields["cond_nodes"]), roles))
        st.caption("Dashed: latent nodes; double box: conditioned nodes.")
        if ss["config"] is not None:
            text = ss["config"].to_json()
            st.download_button("Export config (JSON)", data=text, key="bw_export",
                               file_name=f"{ss['config'].name or 'bias'}.json", mime="application/json")
            with st.expander("JSON"):
                st.code(text, language="json")


# -- data ----------------------------------------------------------------------------------------------
def _observed_nodes(config: fp.BiasConfig | None) -> list[str]:
    if config is None:
        return ["A", "Y", "P"]
    if config.observed_nodes:
        return list(config.observed_nodes)
    return [n for n in config.dag.nodes if n not in config.unob and n not in config.cond_nodes]


def _set_data(frame: pd.DataFrame, kind: str, name: str) -> None:
    ss = _ss()
    ss["data_frame"], ss["data_kind"], ss["data_name"] = frame, kind, name
    ss["data_token"] = ss.get("data_token", 0) + 1
    ss.pop("table", None)
    ss.pop("data_pending", None)


def _role_words(config: fp.BiasConfig | None, node: str) -> str:
    outcome = config.parse_outcome(config.outcome_node)[0] if config is not None else "Y"
    prediction = config.prediction_node if config is not None else "P"
    return {outcome: "the outcome", prediction: "the prediction"}.get(node, "a 0/1 node of the bias")


def _choose_positive(table: fp.ObservedTable, frame: pd.DataFrame, kind: str, mapping: dict[str, str],
                     config: fp.BiasConfig | None, token: int) -> fp.ObservedTable | None:
    """Labels that do not say which one means 1 (Yes/No, hired/rejected): the user chooses the positive
    label here (fairprobe does not guess it from the sorted order); None until every one is chosen."""
    ss = _ss()
    unclear = logic.unclear_labels(table, config)
    if not unclear:
        ss.pop("data_pending", None)
        return table
    st.subheader("Which label means 1?")
    chosen, waiting = {}, []
    for col, (node, labels) in zip(st.columns(len(unclear)), unclear.items(), strict=True):
        column = mapping.get(node, node)
        value = col.selectbox(f"'{column}' ({node}, {_role_words(config, node)}): the label that means 1", labels,
                              index=None, placeholder="choose the positive label", key=f"pos_{node}_{token}")
        if value is None:
            waiting.append(f"Column '{column}' ({node}) holds the labels {labels}")
        else:
            chosen[node] = value
    if waiting:
        st.warning(f"{'; '.join(waiting)}: choose which one means 1 (the positive outcome or prediction) above. "
                   "fairprobe does not guess it from the labels' sorted order.")
        ss["data_pending"] = (f"On the Data page, choose which label means 1: {'; '.join(waiting)}. The labels do "
                              "not say it (fairprobe does not guess it from their sorted order).")
        return None
    ss.pop("data_pending", None)
    return logic.build_table(frame, kind, mapping, pos_label=chosen)


def _choose_groups(labels: list[Any], attribute: str, token: int) -> tuple[Any, Any] | str | None:
    """The groups the sweeps compare: two of two by default; among more, only what the user chooses
    (the API's rule: fairprobe does not pick two groups for you)."""
    if len(labels) > 2:
        how = st.radio(f"{attribute} has {len(labels)} groups; compare", list(logic.GROUP_MODES),
                       key=f"group_mode_{token}", horizontal=True)
        if logic.GROUP_MODES[how] is not None:
            return logic.GROUP_MODES[how]
        g1, g2 = st.columns(2)
        a0 = g1.selectbox("Group compared (a0)", labels, index=None, placeholder="choose a group",
                          key=f"group0_{token}")
        a1 = g2.selectbox("against (a1)", labels, index=None, placeholder="choose a group", key=f"group1_{token}")
        if a0 is None or a1 is None:
            st.warning(f"Choose the two groups to compare: fairprobe does not pick two of {len(labels)} "
                       "groups for you (or compare all pairs, or each group against the rest).")
            return None
    elif len(labels) == 2:
        g1, g2 = st.columns(2)
        a0 = g1.selectbox("Group compared (a0)", labels, index=0, key=f"group0_{token}")
        a1 = g2.selectbox("against (a1)", labels, index=1, key=f"group1_{token}")
    else:
        return None
    if a0 == a1:
        st.error("Pick two different groups.")
        return None
    return (a0, a1)


def data_page() -> None:
    """Page 2: a bundled data set or an uploaded table, columns mapped to DAG nodes, two groups.

    Examples
    --------
    >>> from streamlit.testing.v1 import AppTest
    >>> at = AppTest.from_string("from fairprobe.app.pages import data_page\\ndata_page()").run(timeout=60)
    >>> at.header[0].value, len(at.exception)
    ('Data', 0)
    """
    ss = _ss()
    st.header("Data")
    _load_data()
    frame = ss.get("data_frame")
    if frame is None:
        st.info("Load a data set to continue.")
        return
    kind = _data_kind(frame)
    st.write(f"**{ss['data_name']}**: {len(frame)} rows, {logic.kind_text(kind)}.")
    st.dataframe(frame.head(500), key="data_preview")
    config = current_config()
    if config is None:
        st.warning("The bias workshop's config is not valid; mapping to the default nodes A, Y, P.")
    token = ss["data_token"]
    mapping = _map_columns(frame, kind, _observed_nodes(config), token)
    try:
        table = _choose_positive(logic.build_table(frame, kind, mapping), frame, kind, mapping, config, token)
    except fp.FairprobeError as exc:
        st.error(f"{exc}")
        ss.pop("table", None)
        ss.pop("data_pending", None)
        return
    if table is None:  # a positive label to choose first (the page says which)
        ss.pop("table", None)
        return
    ss["table"] = table
    # a latent attribute (proxy_attribute's B) has the groups of its recorded node
    attribute = config.recorded_node(config.attribute_node, table.nodes) if config is not None else "A"
    labels = logic.group_labels(table, attribute) if attribute in table.nodes else []
    ss["groups"] = _choose_groups(labels, attribute, token)
    _show_cells(table)


def _load_data() -> None:
    """The source widgets: a bundled data set or an uploaded file, read into the session when asked."""
    source = st.radio("Source", ["Bundled data set", "Upload a file"], key="data_source", horizontal=True)
    if source == "Bundled data set":
        label = st.selectbox("Data set", list(logic.BUNDLED_DATA), key="data_bundled")
        if st.button("Load data set", key="data_load"):
            try:
                frame, kind = logic.load_bundled(logic.BUNDLED_DATA[label])
                _set_data(frame, kind, label)
            except fp.FairprobeError as exc:
                st.error(str(exc))
    else:
        upload = st.file_uploader("CSV or Parquet: unit rows, cells with a 'prob' column, or cell counts ('n')",
                                  type=["csv", "tsv", "parquet", "pq"], key="data_upload")
        encoding = st.selectbox("Text encoding of a CSV", list(logic.ENCODINGS), key="data_encoding",
                                help="UTF-8 unless the file was saved otherwise: Excel on Windows saves CSV as "
                                     "cp1252 unless you choose 'CSV UTF-8'.")
        if upload is not None and st.button("Read file", key="data_read"):
            try:
                frame = logic.read_upload(upload.name, upload.getvalue(), encoding=logic.ENCODINGS[encoding])
                _set_data(frame, logic.table_kind(frame), upload.name)
            except fp.FairprobeError as exc:
                st.error(str(exc))


def _data_kind(frame: pd.DataFrame) -> str:
    """The loaded table's kind, asking whether its ``n``/``count`` column holds cell counts."""
    ss = _ss()
    kind = ss["data_kind"]
    count = logic.count_column(frame) if kind in ("units", "counts") else None
    if count is not None:
        # never guessed from the name: an 'n' column of unit rows is a variable (e.g. prior arrests)
        holds = st.radio(f"The column '{count}' holds", ["a variable of unit-level rows", "cell counts"],
                         index=1 if kind == "counts" else 0, key=f"data_counts_{ss['data_token']}", horizontal=True)
        kind = logic.table_kind(frame, counts=holds == "cell counts")
    return kind


def _map_columns(frame: pd.DataFrame, kind: str, nodes: list[str], token: Any) -> dict[str, str]:
    """The node -> column choices (one select box per node; nodes left at '(none)' are not mapped)."""
    hidden = {"cells": {"prob"}, "counts": set(logic.COUNT_COLUMNS)}.get(kind, set())
    columns = ["(none)", *[c for c in frame.columns if c not in hidden]]
    st.subheader("Map columns to DAG nodes")
    cols = st.columns(max(1, len(nodes)))
    mapping = {}
    defaults = {"A": "race", "Y": "two_year_recid", "P": "pred"}
    for col, node in zip(cols, nodes, strict=False):
        guess = node if node in frame.columns else defaults.get(node, "(none)")
        idx = columns.index(guess) if guess in columns else 0
        mapping[node] = col.selectbox(f"{node}", columns, index=idx, key=f"map_{node}_{token}")
    return {n: c for n, c in mapping.items() if c != "(none)"}


def _show_cells(table: fp.ObservedTable) -> None:
    """The observed table's cells, with each node's labels in place of its codes."""
    st.subheader("Observed table")
    shown = table.cells.copy()
    for node, cats in (table.categories or {}).items():
        if node in shown:
            shown[node] = [cats[int(v)] if 0 <= int(v) < len(cats) else v for v in shown[node]]
    st.dataframe(shown, key="data_cells")


# -- sensitivity ---------------------------------------------------------------------------------------
def _bias_choice(name: str) -> Any:
    return current_config() if name == WORKSHOP else name


def _sweep_chart(frame: pd.DataFrame, parameter: str, observed: float | None) -> Any:
    import altair as alt

    has_ci = "ci_lower" in frame.columns
    frame = frame.astype({c: float for c in ("lower", "upper", "lower_achieved", "upper_achieved",
                                             *(("ci_lower", "ci_upper") if has_ci else ()))})
    frame = frame.replace({math.nan: None})
    base = alt.Chart(frame).encode(x=alt.X(f"{parameter}:Q", title=f"sensitivity {parameter}"))
    tooltip = [alt.Tooltip(f"{parameter}:Q", format=".4f"), alt.Tooltip("lower:Q", format=".6f"),
               alt.Tooltip("upper:Q", format=".6f"), alt.Tooltip("lower_achieved:Q", format=".6f"),
               alt.Tooltip("upper_achieved:Q", format=".6f"), "status:N"]
    layers = []
    if has_ci:  # the confidence band (bias and sampling error) behind the certified band
        tooltip += [alt.Tooltip("ci_lower:Q", format=".6f"), alt.Tooltip("ci_upper:Q", format=".6f")]
        layers += [base.mark_area(opacity=0.1).encode(y="ci_lower:Q", y2="ci_upper:Q"),
                   base.mark_line(strokeDash=[4, 3]).encode(y="ci_lower:Q"),
                   base.mark_line(strokeDash=[4, 3]).encode(y="ci_upper:Q")]
    title = "certified bounds (dashed: confidence interval)" if has_ci else "certified bounds"
    band = base.mark_area(opacity=0.25).encode(y=alt.Y("lower:Q", title=title), y2="upper:Q")
    layers += [band, base.mark_line().encode(y="lower:Q"), base.mark_line().encode(y="upper:Q"),
              base.mark_circle(size=60).encode(y="upper:Q", tooltip=tooltip),
              base.mark_circle(size=60).encode(y="lower:Q", tooltip=tooltip)]
    if observed is not None:
        obs = pd.DataFrame({"observed": [observed]})
        layers.append(alt.Chart(obs).mark_rule(strokeDash=[4, 4], color="black").encode(
            y="observed:Q", tooltip=[alt.Tooltip("observed:Q", format=".6f")]))
    return alt.layer(*layers).properties(height=320).interactive()


def _heatmap_chart(frame: pd.DataFrame, px: str, py: str) -> Any:
    import altair as alt

    frame = frame.assign(width=frame["upper"] - frame["lower"]).replace({math.nan: None})
    tooltip = [f"{px}:Q", f"{py}:Q", alt.Tooltip("lower:Q", format=".6f"), alt.Tooltip("upper:Q", format=".6f"),
               alt.Tooltip("lower_achieved:Q", format=".6f"), alt.Tooltip("upper_achieved:Q", format=".6f")]
    return alt.Chart(frame).mark_rect().encode(x=f"{px}:O", y=alt.Y(f"{py}:O", sort="descending"),
                                               color=alt.Color("upper:Q", title="upper bound"),
                                               tooltip=tooltip).properties(height=320)


def _start_sweep() -> None:
    """Create the jobs of a sweep from the page's settings (an error is shown, nothing started)."""
    ss = _ss()
    ss.pop("sweep", None)
    try:
        table = ss.get("table")
        if table is None:
            raise fp.ConfigError(ss.get("data_pending") or "Load a data set on the Data page first.")
        biases = ss.get("sw_biases") or []
        if not biases or len(biases) > 2:
            raise fp.ConfigError("Choose one or two biases.")
        if WORKSHOP in biases and current_config() is None:
            raise fp.ConfigError("The workshop's bias config is not valid; fix it on the Bias workshop page.")
        metrics = ss.get("sw_metrics") or []
        if not metrics:
            raise fp.ConfigError("Choose at least one metric.")
        bias = _bias_choice(biases[0]) if len(biases) == 1 else [_bias_choice(b) for b in biases]
        grid = logic.d_grid(float(ss["sw_start"]), float(ss["sw_stop"]), int(ss["sw_n"]))
        time_limit = float(ss.get("sw_time_limit") or logic.DEFAULT_TIME_LIMIT)
        fixed, parameter = {}, None
        if len(biases) == 2:
            params = resolve_bias(bias).parameters
            if ss.get("sw_mode") == "2-D heat map":
                grid = {params[0]: grid, params[1]: grid}
            else:
                parameter = ss.get("sw_param") if ss.get("sw_param") in params else params[0]
                other = [p for p in params if p != parameter]
                fixed = {p: float(ss.get("sw_fixed", 0.0)) for p in other}
        interval = ({"ci": 0.95, "ci_method": ss.get("sw_ci_method", "projection"),
                     "resamples": int(ss.get("sw_resamples", 200))} if ss.get("sw_ci") else {})
        jobs = [logic.SweepJob(bias, logic.make_metric(m, ss.get("groups")), table, grid, parameter=parameter,
                               fixed=fixed, backend=ss.get("sw_backend", "scip"), time_limit=time_limit, **interval)
                for m in metrics]
    except fp.FairprobeError as exc:
        ss["sweep_error"] = str(exc)
        return
    ss["sweep"] = {"jobs": jobs, "running": True, "cancelled": False, "results": None, "breakdowns": {},
                   "want_breakdown": bool(ss.get("sw_breakdown")), "config": current_config()}


def _cancel_sweep() -> None:
    sweep = _ss().get("sweep")
    if sweep and sweep["running"]:
        sweep["running"], sweep["cancelled"] = False, True


def _finish(sweep: dict[str, Any]) -> None:
    results, errors = [], []
    for job in sweep["jobs"]:
        if not job.outcomes:
            continue
        try:
            with SOLVE_LOCK:
                results.append(job.result())
        except fp.FairprobeError as exc:
            errors.append(str(exc))
    sweep["results"], sweep["errors"] = results, errors
    if sweep["want_breakdown"] and not sweep["cancelled"]:
        for job, res in zip(sweep["jobs"], results, strict=False):
            if len(res.parameters) != 1 or getattr(job.metric, "compares_one_group", False):
                continue  # a one-group rate has no default conclusion to break (it needs a threshold)
            p = res.parameters[0]
            # the sweep's interval goes to the breakdown too: its point then comes with the interval's own
            interval = ({"ci": job.ci, "ci_method": job.ci_method, "resamples": job.resamples, "seed": job.seed}
                        if job.ci else {})
            try:
                with SOLVE_LOCK:
                    sweep["breakdowns"][res.metric] = fp.breakdown(
                        job.bias, job.metric, job.data, parameter=p if job.fixed else None, backend=job.backend,
                        time_limit=job.time_limit, **interval, **job.fixed)
            except fp.FairprobeError as exc:
                errors.append(f"breakdown of {res.metric}: {exc}")


def sweep_page() -> None:
    """Page 3: sweeps with a progress bar and cancel, plots, breakdown points, heat map, downloads.

    Examples
    --------
    >>> from streamlit.testing.v1 import AppTest
    >>> at = AppTest.from_string("from fairprobe.app.pages import sweep_page\\nsweep_page()").run(timeout=60)
    >>> at.header[0].value, len(at.exception)
    ('Sensitivity analysis', 0)
    """
    ss = _ss()
    st.header("Sensitivity analysis")
    _sweep_settings()
    error = ss.pop("sweep_error", None)
    if error:
        st.error(error)
    sweep = ss.get("sweep")
    if not sweep:
        return
    jobs = sweep["jobs"]
    total = sum(len(j.points) for j in jobs)
    bar = st.progress(sum(len(j.outcomes) for j in jobs) / total, text="solving")
    slots = {id(job): st.empty() for job in jobs}
    if sweep["running"]:
        _run_jobs(jobs, bar, slots)
        sweep["running"] = False
    if sweep["results"] is None:
        _finish(sweep)
    done = sum(len(j.outcomes) for j in jobs)
    wall = sum(r.wall_time for r in sweep["results"] or [])
    bar.progress(done / total, text=("cancelled: " if sweep["cancelled"] else "done: ") + f"{done} of {total} points "
                 f"in {wall:.2f} s (compile {sum(j.compile_time for j in jobs):.2f} s, solves "
                 f"{sum(j.solve_time for j in jobs):.2f} s)")
    for err in sweep.get("errors", []):
        st.error(err)
    _show_results(sweep, slots)


def _sweep_settings() -> None:
    """The sweep's widgets: metrics, biases (a parameter to sweep for two), the D grid, solver, interval, buttons."""
    ss = _ss()
    reg = fp.get_registry()
    c1, c2 = st.columns(2)
    c1.multiselect("Metrics", sorted(reg.metrics), default=["fpr_parity"], key="sw_metrics")
    options = [WORKSHOP, *sorted(reg.biases)]
    c2.multiselect("Bias(es): one, or two combined", options, default=[WORKSHOP], key="sw_biases", select_all=False,
                   max_selections=2)
    biases = ss.get("sw_biases") or []
    if len(biases) == 2:
        m1, m2, m3 = st.columns(3)
        m1.radio("Sweep", ["1-D sweep", "2-D heat map"], key="sw_mode")
        if ss.get("sw_mode") != "2-D heat map":
            try:
                params = resolve_bias([_bias_choice(b) for b in biases]).parameters
                m2.selectbox("Parameter swept", params, key="sw_param")
                m3.number_input("Other parameter fixed at", 0.0, 1.0, 0.0, step=0.01, key="sw_fixed", format="%.4f")
            except fp.FairprobeError as exc:
                st.error(str(exc))
    d1, d2, d3, d4, d5 = st.columns(5)
    d1.number_input("D from", 0.0, 1.0, 0.0, step=0.01, key="sw_start", format="%.4f")
    d2.number_input("D to", 0.0, 1.0, 0.1, step=0.01, key="sw_stop", format="%.4f")
    d3.number_input("points", 1, 201, 5, key="sw_n")
    d4.selectbox("Backend", sorted(reg.backends), index=sorted(reg.backends).index("scip"), key="sw_backend")
    d5.number_input("Time limit per solve (s)", 0.1, logic.MAX_TIME_LIMIT, logic.DEFAULT_TIME_LIMIT,
                    key="sw_time_limit")
    st.checkbox("Also compute the breakdown point (fp.breakdown; a few more solves)", key="sw_breakdown")
    e1, e2, e3 = st.columns(3)
    e1.checkbox("Add the 95 % confidence interval (sampling error; needs unit rows or counts)", key="sw_ci")
    e2.selectbox("Interval method", ["projection", "bootstrap", "bayes"], key="sw_ci_method",
                 help="projection: one certified program per point; bootstrap and bayes: one per resample")
    e3.number_input("Resamples (bootstrap, bayes)", 20, 5000, 200, step=20, key="sw_resamples")
    b1, b2 = st.columns([1, 5])
    b1.button("Run", key="sw_run", type="primary", on_click=_start_sweep)
    b2.button("Cancel", key="sw_cancel", on_click=_cancel_sweep)


def _run_jobs(jobs: list[logic.SweepJob], bar: Any, slots: dict[int, Any]) -> None:
    """Solve the jobs' points one at a time, moving the progress bar and redrawing each 1-D job's chart."""
    total = sum(len(j.points) for j in jobs)
    ticked = 0.0  # the progress bar is updated at most four times a second
    for job in jobs:
        drawn = None  # the chart is redrawn at the first point, then at most every REDRAW seconds
        while not job.done:
            with SOLVE_LOCK:
                job.step()
            done = sum(len(j.outcomes) for j in jobs)
            if time.perf_counter() - ticked >= 0.25 or done == total:
                bar.progress(done / total, text=f"solved {done} of {total} points")
                ticked = time.perf_counter()
            if len(job.swept) == 1 and (drawn is None or time.perf_counter() - drawn >= REDRAW):
                slots[id(job)].altair_chart(_sweep_chart(job.partial_frame(), job.swept[0], None))
                drawn = time.perf_counter()


def _show_results(sweep: dict[str, Any], slots: dict[int, Any]) -> None:
    results = sweep["results"] or []
    jobs = [j for j in sweep["jobs"] if j.outcomes]
    frames = []
    for job, res in zip(jobs, results, strict=False):
        slot = slots[id(job)].container()
        slot.subheader(f"{res.metric} under {res.bias}")
        if len(res.parameters) == 1:
            slot.altair_chart(_sweep_chart(res.to_frame(), res.parameters[0],
                                           None if res.observed is None else res.observed.point))
            bp = sweep["breakdowns"].get(res.metric)
            slot.info(logic.conclusion(res, None if bp is None else bp.value))
            if bp is not None:
                slot.text(bp.summary())
        else:
            slot.altair_chart(_heatmap_chart(res.to_frame(), *res.parameters))
        slot.table(logic.results_frame(res))
        frames.append(res.to_frame().assign(metric=res.metric, bias=res.bias))
    if not frames:
        return
    st.subheader("Downloads")
    d1, d2, d3 = st.columns(3)
    csv = pd.concat(frames, ignore_index=True).to_csv(index=False)
    d1.download_button("Results (CSV)", csv, file_name="sensitivity.csv", mime="text/csv", key="dl_csv")
    js = "[" + ",\n".join(r.to_json() for r in results) + "]"
    d2.download_button("Results (JSON)", js, file_name="sensitivity.json", mime="application/json", key="dl_json")
    if "report_zip" not in sweep:
        with SOLVE_LOCK:
            sweep["report_zip"] = logic.sweep_report_zip(results, breakdowns=sweep["breakdowns"],
                                                         config=sweep.get("config"))
    d3.download_button("Report (zip of the HTML folder)", sweep["report_zip"], file_name="fairprobe-report.zip",
                       mime="application/zip", key="dl_report")


# -- other analyses ------------------------------------------------------------------------------------
def analyses_page() -> None:
    """Page 4: every registered analysis on its example or the loaded table; summary, table, figures, report.

    Examples
    --------
    >>> from streamlit.testing.v1 import AppTest
    >>> at = AppTest.from_string("from fairprobe.app.pages import analyses_page\\nanalyses_page()").run(timeout=60)
    >>> at.header[0].value, len(at.exception)
    ('Other analyses', 0)
    """
    ss = _ss()
    st.header("Other analyses")
    analyses = _offered_analyses()
    names = sorted(analyses)
    name = st.selectbox("Analysis", names, key="an_name",
                        index=names.index("fairtree") if "fairtree" in names else 0)
    cls = analyses[name]
    st.caption(cls.description)
    example = cls.example()
    frame = ss.get("data_frame") if ss.get("data_kind") == "units" else None
    sources = ["Its example data"] + (["The table from the Data page"] if frame is not None else [])
    source = st.radio("Data", sources, key=f"an_source_{name}", horizontal=True)
    kinds = logic.role_kinds(cls)
    on_example = source == "Its example data"
    roles, features = ({}, []) if on_example else _role_widgets(name, kinds, list(frame.columns))
    params = example.analysis.get_params(deep=False)  # the constructor's own (nested ones are shown within)
    edited = _parameter_widgets(name, params)
    missing = [] if on_example else logic.missing_roles(kinds, roles)
    if missing:
        st.warning(f"Choose a column for {', '.join(missing)} (what {name} is fitted on), or fit it on its "
                   "example data.")
    if st.button("Fit", key="an_fit", type="primary", disabled=bool(missing)):
        try:
            analysis = type(example.analysis)(**{**params, **edited})
            with st.spinner(f"fitting {name}"), SOLVE_LOCK:
                if on_example:
                    analysis.fit(example.data, **example.roles)
                else:
                    data, kwargs = logic.fit_arguments(frame, kinds, roles, features)
                    analysis.fit(data, **kwargs)
            ss["an_fitted"] = (name, analysis)
            ss.pop("an_report", None)
        except fp.FairprobeError as exc:
            st.error(str(exc))
        except (ValueError, TypeError, KeyError) as exc:
            st.error(f"{name} could not fit these columns: {exc}")
    fitted = ss.get("an_fitted")
    if fitted and fitted[0] == name:
        _show_fitted(name, fitted[1])


def _offered_analyses() -> dict[str, Any]:
    """The registered analyses whose optional packages are installed; a caption names the extra of each other."""
    registered = fp.get_registry().analyses
    analyses = {n: c for n, c in registered.items() if not hasattr(c, "availability") or c.availability()}
    for skipped in sorted(set(registered) - set(analyses)):
        st.caption(f"{skipped} is not offered: {registered[skipped].availability_reason()}")
    return analyses


def _role_widgets(name: str, kinds: dict[str, str], cols: list[Any]) -> tuple[dict[str, Any], list[Any]]:
    """The columns chosen for each role of ``fit`` and the feature columns."""
    roles: dict[str, Any] = {}
    st.write("Map the roles of `fit` to columns:")
    for role, kind in kinds.items():
        if kind == "columns":
            roles[role] = st.multiselect(role, cols, key=f"an_{name}_{role}")
        else:
            roles[role] = st.selectbox(role, ["(none)", *cols], key=f"an_{name}_{role}")
            roles[role] = None if roles[role] == "(none)" else roles[role]
    used = {c for v in roles.values() if v for c in ([v] if isinstance(v, str) else v)}
    features = st.multiselect("Feature columns", cols, default=[c for c in cols if c not in used][:20],
                              key=f"an_{name}_features")
    return roles, features


def _parameter_widgets(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The analysis's simple parameters (bools and numbers) as widgets, with the user's values; others shown."""
    edited = {}
    with st.expander("Parameters (the example's values)"):
        for key, value in params.items():
            if isinstance(value, bool):
                edited[key] = st.checkbox(key, value=value, key=f"an_{name}_p_{key}")
            elif isinstance(value, int):
                edited[key] = int(st.number_input(key, value=value, step=1, key=f"an_{name}_p_{key}"))
            elif isinstance(value, float):
                edited[key] = float(st.number_input(key, value=value, key=f"an_{name}_p_{key}", format="%.6g"))
            else:
                st.text(f"{key} = {value!r}")
    return edited


def _show_fitted(name: str, analysis: Any) -> None:
    """A fitted analysis: its summary, table and figures, and its report to download."""
    import matplotlib.pyplot as plt

    ss = _ss()
    st.html(analysis.summary().as_html())
    st.dataframe(analysis.to_frame(), key="an_frame")
    for fig_name, plot in analysis.figures().items():
        st.caption(fig_name)
        ax = plot()
        st.pyplot(ax.figure if hasattr(ax, "figure") else ax)
        plt.close("all")
    if "an_report" not in ss:
        with SOLVE_LOCK:
            ss["an_report"] = logic.analysis_report_zip(analysis)
        plt.close("all")
    st.download_button("Report (zip)", ss["an_report"], file_name=f"{name}-report.zip", mime="application/zip",
                       key="an_dl_report")


#: Monospace fonts with ligatures draw ``>=`` as one glyph that looks like ``≥``: in code,
#: constraints and inputs a user copies, every character is shown as typed.
NO_LIGATURES = ("<style>code, pre, kbd, samp, textarea, input, .stCode, .stCodeBlock {"
                "font-variant-ligatures: none !important; font-feature-settings: 'liga' 0, 'calt' 0 !important;}"
                "</style>")


def main() -> None:
    """The app: a sidebar to choose the page, then the page (the workshop first).

    Examples
    --------
    >>> from streamlit.testing.v1 import AppTest
    >>> at = AppTest.from_string("from fairprobe.app.pages import main\\nmain()").run(timeout=60)
    >>> at.header[0].value, len(at.exception)
    ('Bias workshop', 0)
    """
    _init_state()
    st.html(NO_LIGATURES)
    st.sidebar.title("fairprobe")
    st.sidebar.caption(f"fairprobe {fp.__version__}: how far can you trust a fairness assessment?")
    page = st.sidebar.radio("Page", PAGES, key="page")
    _update_config()
    {"Bias workshop": bias_page, "Data": data_page, "Sensitivity analysis": sweep_page,
     "Other analyses": analyses_page}[page]()

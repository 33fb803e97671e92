"""Logic tests of every page with Streamlit's headless AppTest (no browser)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import fairprobe as fp

pytest.importorskip("streamlit")


def _errors(at):
    return [e.value for e in at.error]


def test_workshop_load_edit_error_fix(app_test):
    at = app_test
    at.run()
    assert not at.exception
    at.selectbox(key="bw_start").set_value("proxy_label")
    at.button(key="bw_load").click().run()
    assert at.text_area(key="f_constraints").value == "P(Z = Y) >= 1 - D"
    at.text_area(key="f_constraints").set_value("P(Z = Y) >= 1 - D\nP(Y = 1 <= D").run()
    errors = _errors(at)
    assert len(errors) == 1 and "line 2" in errors[0] and "column 9" in errors[0]
    assert not at.get("download_button")  # no export of an invalid config
    at.text_area(key="f_constraints").set_value("P(Z = Y) >= 1 - D\nP(Y = 1) <= 0.9").run()
    assert not _errors(at)
    assert "Valid bias config" in at.success[0].value


def test_workshop_cycle_and_unknown_node(app_test):
    at = app_test
    at.run()
    at.text_area(key="f_dag_str").set_value("A->Y, Y->A, A->P, A->S, U->P, U->Y, U->S, Y->S").run()
    assert any("cycle" in e.lower() for e in _errors(at))
    at.text_area(key="f_dag_str").set_value("A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S").run()
    at.text_area(key="f_constraints").set_value("P(Q = 1) >= 1 - D").run()
    assert any("Q" in e and "line 1" in e for e in _errors(at))


def test_export_round_trip(app_test):
    from fairprobe.app import logic

    at = app_test
    at.run()
    at.text_area(key="f_dag_str").set_value("A->Y, A->P, A->S, U->P, U->Y, U->S, Y->S, P->S")
    at.text_area(key="f_constraints").set_value("P(S = 1) >= 1 - D\nP(S = 1 | A = 0) >= 1 - D")
    at.text_input(key="f_cardinalities").set_value("A=3").run()
    assert not _errors(at)
    exported = json.loads(at.code[0].value)  # the JSON shown is the download's content
    fields = {k: at.session_state[f"f_{k}"] for k in logic.FIELDS}
    edited = logic.config_from_fields(fields, at.session_state["config_base"])
    assert exported == edited.to_dict()
    assert fp.BiasConfig.from_dict(exported) == edited
    assert exported["cardinalities"] == {"A": 3} and "P->S" in exported["dag_str"]
    at.sidebar.radio(key="page").set_value("Data").run()
    assert at.session_state["config"] == edited  # the other pages see the edited config
    at.sidebar.radio(key="page").set_value("Bias workshop").run()
    assert at.text_area(key="f_dag_str").value.endswith("P->S")


def test_paper_table_sweep_matches_api(app_test):
    from fairprobe.datasets import load_paper_table

    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.button(key="data_load").click().run()
    assert not at.exception and not _errors(at)
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.number_input(key="sw_stop").set_value(0.1)
    at.number_input(key="sw_n").set_value(5)
    at.button(key="sw_run").click().run()
    assert not at.exception and not _errors(at)
    shown = at.table[0].value
    api = fp.sensitivity("proxy_label", "fpr_parity", load_paper_table(), D=np.linspace(0, 0.1, 5), progress=False,
                         time_limit=10).to_frame()
    for col in ("D", "lower", "upper"):
        np.testing.assert_allclose(shown[col].astype(float).to_numpy(), api[col].to_numpy(), atol=1e-6)
    assert "keeps its sign" in at.info[0].value
    assert {b.label for b in at.get("download_button")} >= {"Results (CSV)", "Results (JSON)"}


def test_analysis_page_fairtree(app_test):
    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Other analyses").run()
    at.selectbox(key="an_name").set_value("fairtree").run()
    at.button(key="an_fit").click().run()
    assert not at.exception and not _errors(at)
    assert at.dataframe  # to_frame()
    assert at.get("download_button")


def _sweep_page(at):
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.button(key="data_load").click().run()
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    return at


def test_heat_map_of_two_biases_matches_api(app_test):
    from fairprobe.datasets import load_paper_table

    at = _sweep_page(app_test)
    at.multiselect(key="sw_metrics").set_value(["fpr"])
    at.multiselect(key="sw_biases").set_value(["proxy_label", "selection"]).run()
    at.radio(key="sw_mode").set_value("2-D heat map")
    at.number_input(key="sw_stop").set_value(0.05)
    at.number_input(key="sw_n").set_value(2)
    at.button(key="sw_run").click().run()
    assert not at.exception and not _errors(at)
    shown = at.table[0].value
    grid = {"D_proxy_label": [0.0, 0.05], "D_selection": [0.0, 0.05]}
    api = fp.sensitivity(["proxy_label", "selection"], "fpr", load_paper_table(), D=grid, progress=False,
                         time_limit=10).to_frame()
    np.testing.assert_allclose(shown["upper"].astype(float), api["upper"], atol=1e-6)
    assert list(shown.columns[:2]) == ["D_proxy_label", "D_selection"]


def test_breakdown_point_and_conclusion(app_test):
    from fairprobe.datasets import load_paper_table

    at = _sweep_page(app_test)
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.number_input(key="sw_n").set_value(3)
    at.checkbox(key="sw_breakdown").check()
    at.button(key="sw_run").click().run()
    assert not at.exception and not _errors(at)
    bp = fp.breakdown("proxy_label", fp.metric("fpr_parity", groups=(0, 1)), load_paper_table(), time_limit=10)
    assert f"below {100 * bp.value:.3g} %" in at.info[0].value
    assert "breakdown point" in at.text[0].value


def test_cancel_keeps_solved_points(app_test):
    at = _sweep_page(app_test)
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.button(key="sw_run").click().run()
    sweep = at.session_state["sweep"]
    job = sweep["jobs"][0]
    job.outcomes = job.outcomes[:2]  # as if Cancel came after two points
    sweep.update(running=True, results=None)
    at.button(key="sw_cancel").click().run()
    assert not at.exception
    assert at.session_state["sweep"]["cancelled"]
    assert len(at.table[0].value) == 2


def test_time_limit_reaches_every_solve(app_test):
    at = _sweep_page(app_test)
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.number_input(key="sw_time_limit").set_value(3.0)
    at.number_input(key="sw_n").set_value(2)
    at.button(key="sw_run").click().run()
    job = at.session_state["sweep"]["jobs"][0]
    assert job.solve_kwargs["time_limit"] == 3.0


def test_data_errors_are_shown(app_test):
    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.selectbox(key="data_bundled").set_value("COMPAS, unit rows (pred = decile score >= 5)")
    at.button(key="data_load").click().run()
    assert not at.exception
    token = at.session_state["data_token"]
    at.selectbox(key=f"map_Y_{token}").set_value("race").run()  # race mapped to A and to Y
    assert any("more than one node" in e for e in _errors(at))


def test_the_bias_picker_offers_no_select_all(app_test):
    """It took only the first bias (ecp): with at most two biases, "Select all" cannot mean all."""
    at = _sweep_page(app_test)
    assert not at.multiselect(key="sw_biases").proto.select_all
    assert at.multiselect(key="sw_metrics").proto.select_all  # where it works, it stays


def test_missing_roles_are_named_before_fitting(app_test):
    from fairprobe.app import logic

    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    frame, kind = logic.load_bundled("compas")
    at.session_state["data_frame"], at.session_state["data_kind"] = frame, kind
    at.session_state["data_name"], at.session_state["data_token"] = "compas", 7
    at.sidebar.radio(key="page").set_value("Other analyses").run()
    at.selectbox(key="an_name").set_value("fairtree").run()
    at.radio(key="an_source_fairtree").set_value("The table from the Data page").run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "Choose a column for y_true, y_pred" in warning  # was a raw TypeError after "Fit"
    assert at.button(key="an_fit").disabled
    at.selectbox(key="an_fairtree_y_true").set_value("two_year_recid")
    at.selectbox(key="an_fairtree_y_pred").set_value("pred").run()
    assert not at.button(key="an_fit").disabled and not at.warning


def test_copyable_text_shows_every_character_as_typed(app_test):
    """No ligature turns '>=' into one '≥'-like glyph in code, constraints or inputs; the text itself is ASCII."""
    from fairprobe.app.pages import NO_LIGATURES

    at = app_test
    at.run()
    styles = [h.proto.body for h in at.get("html")]
    assert NO_LIGATURES in styles and "font-variant-ligatures: none" in NO_LIGATURES
    at.selectbox(key="bw_start").set_value("selection")
    at.button(key="bw_load").click().run()
    shown = at.text_area(key="f_constraints").value + "".join(c.value for c in at.code)
    assert ">=" in shown and "≥" not in shown and "≤" not in shown


def test_sampling_interval_checkbox_explains_a_table_without_counts(app_test):
    at = _sweep_page(app_test)  # the paper's table: probabilities only
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.number_input(key="sw_n").set_value(2)
    at.checkbox(key="sw_ci").check()
    at.button(key="sw_run").click().run()
    assert not at.exception
    assert any("no sample size" in e.value for e in at.error)


def test_sweep_with_a_sampling_interval_draws_both_bands(app_test):
    import pandas as pd

    counts = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                           "n": [400, 100, 100, 400, 300, 200, 100, 400]})
    at = _sweep_page(app_test)
    at.session_state["table"] = fp.ObservedTable.from_counts(counts)
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.number_input(key="sw_n").set_value(3)
    at.checkbox(key="sw_ci").check()
    at.button(key="sw_run").click().run()
    assert not at.exception and not _errors(at)
    sweep = at.session_state["sweep"]
    frame = sweep["results"][0].to_frame()
    assert (frame.ci_lower <= frame.lower).all() and (frame.upper <= frame.ci_upper).all()

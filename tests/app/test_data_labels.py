"""Bad-input pass 4 (issue 44) on the app's Data page: the positive label of Yes/No labels is chosen on
the Data page (items 1 and 18), a CSV that is not UTF-8 is named and read with a chosen encoding (item 15).

The page runs headless in Streamlit's AppTest; the logic under it is tested directly too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairprobe as fp
from fairprobe.core.inputs import resolve_bias
from fairprobe.exceptions import DataError

pytest.importorskip("streamlit", reason="the web app needs the 'app' extra (streamlit)")
from fairprobe.app import logic

RNG = np.random.default_rng(4)
N = 400
HIRING = pd.DataFrame({"race": RNG.choice(["a", "b"], N), "hired": RNG.choice(["Yes", "No"], N),
                       "pred": RNG.choice(["Yes", "No"], N)})
MAPPING = {"A": "race", "Y": "hired", "P": "pred"}


def _errors(at) -> list[str]:
    return [e.value for e in at.error]


def _upload(at, name: str, content: bytes):
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    at.button(key="data_read").click().run()
    return at


def _map(at, mapping: dict[str, str]):
    token = at.session_state["data_token"]
    for node, column in mapping.items():
        at.selectbox(key=f"map_{node}_{token}").set_value(column)
    return at.run()


# -- logic ---------------------------------------------------------------------------------------------
def test_build_table_takes_the_positive_label() -> None:
    plain = logic.build_table(HIRING, "units", MAPPING)
    assert plain.unclear_labels(["Y", "P"]) == {"Y": ["No", "Yes"], "P": ["No", "Yes"]}
    chosen = logic.build_table(HIRING, "units", MAPPING, pos_label={"Y": "Yes", "P": "Yes"})
    assert chosen.unclear_labels(["Y", "P"]) == {} and chosen.categories["Y"] == ["No", "Yes"]
    expected = fp.ObservedTable.from_frame(HIRING, A="race", Y="hired", P="pred", pos_label="Yes")
    np.testing.assert_allclose(chosen.cells.prob, expected.cells.prob)
    counts = HIRING.value_counts().rename("n").reset_index()
    by_counts = logic.build_table(counts, "counts", MAPPING, pos_label={"Y": "Yes", "P": "Yes"})
    np.testing.assert_allclose(by_counts.cells.prob, expected.cells.prob)
    cells = counts.assign(prob=counts.n / N).drop(columns="n")
    by_cells = logic.build_table(cells, "cells", MAPPING, pos_label={"Y": "No", "P": "No"})
    assert by_cells.categories["Y"] == ["Yes", "No"] and by_cells.positive == {"Y": "No", "P": "No"}


def test_unclear_labels_of_the_pages_config() -> None:
    table = logic.build_table(HIRING, "units", MAPPING)
    assert logic.unclear_labels(table, resolve_bias("selection")) == {"Y": ["No", "Yes"], "P": ["No", "Yes"]}
    assert logic.unclear_labels(table, None) == {"Y": ["No", "Yes"], "P": ["No", "Yes"]}
    assert logic.unclear_labels(logic.build_table(HIRING.assign(hired=1, pred=0), "units", MAPPING), None) == {}


def test_read_upload_takes_an_encoding() -> None:
    data = HIRING.assign(race=HIRING.race.map({"a": "Bokmål", "b": "Français"})).to_csv(index=False).encode("cp1252")
    with pytest.raises(DataError) as info:
        logic.read_upload("excel.csv", data)
    message = str(info.value)
    assert "'excel.csv' is not UTF-8 text" in message and "binary" not in message
    assert "the file's encoding choice" in message
    assert set(logic.read_upload("excel.csv", data, encoding="cp1252")["race"]) == {"Bokmål", "Français"}


# -- the Data page -------------------------------------------------------------------------------------
def test_yes_no_labels_ask_for_the_positive_label_on_the_data_page(app_test) -> None:
    at = _map(_upload(app_test, "hiring.csv", HIRING.to_csv(index=False).encode()), MAPPING)
    assert not at.exception and not _errors(at)
    token = at.session_state["data_token"]
    warnings = " ".join(w.value for w in at.warning)
    assert "Column 'hired' (Y) holds the labels ['No', 'Yes']" in warnings
    assert "choose which one means 1" in warnings
    assert "table" not in at.session_state  # nothing to run on until the user chooses
    # Run says what is missing, in the app's own terms (no Python fix)
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    at.multiselect(key="sw_biases").set_value(["selection"])
    at.button(key="sw_run").click().run()
    errors = " ".join(_errors(at))
    assert "Data page" in errors and "means 1" in errors and "pos_label" not in errors
    _map(at.sidebar.radio(key="page").set_value("Data").run(), MAPPING)  # (Streamlit forgets widgets off screen)
    at.selectbox(key=f"pos_Y_{token}").set_value("Yes")
    at.selectbox(key=f"pos_P_{token}").set_value("Yes").run()
    assert not at.exception and not _errors(at)
    assert not [w for w in at.warning if "means 1" in w.value]
    table = at.session_state["table"]
    assert table.positive == {"Y": "Yes", "P": "Yes"}
    expected = fp.ObservedTable.from_frame(HIRING, A="race", Y="hired", P="pred", pos_label="Yes")
    np.testing.assert_allclose(table.cells.prob, expected.cells.prob)
    # and Run works on it
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    at.multiselect(key="sw_biases").set_value(["selection"])
    at.number_input(key="sw_stop").set_value(0.0)
    at.number_input(key="sw_n").set_value(1)
    at.button(key="sw_run").click().run()
    assert not at.exception and not _errors(at)


def test_a_latin1_csv_is_read_with_the_chosen_encoding(app_test) -> None:
    frame = HIRING.assign(race=HIRING.race.map({"a": "Bokmål", "b": "Français"}),
                          hired=(HIRING.hired == "Yes").astype(int), pred=(HIRING.pred == "Yes").astype(int))
    data = frame.to_csv(index=False).encode("cp1252")
    at = _upload(app_test, "excel.csv", data)
    errors = " ".join(_errors(at))
    assert "is not UTF-8 text" in errors and "binary" not in errors
    assert "data_frame" not in at.session_state
    at.selectbox(key="data_encoding").set_value("cp1252 (Excel on Windows)").run()
    at.button(key="data_read").click().run()
    assert not at.exception and not _errors(at)
    assert set(at.session_state["data_frame"]["race"]) == {"Bokmål", "Français"}


def test_near_duplicate_labels_are_shown_on_the_data_page(app_test) -> None:
    rows = HIRING.assign(hired=(HIRING.hired == "Yes").astype(int), pred=(HIRING.pred == "Yes").astype(int))
    rows.loc[0, "race"] = "a "
    at = _map(_upload(app_test, "spaces.csv", rows.to_csv(index=False).encode()), MAPPING)
    assert any("differ only by spaces or Unicode form" in e for e in _errors(at))
    assert "table" not in at.session_state

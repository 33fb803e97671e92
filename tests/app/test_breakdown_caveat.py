"""The app's conclusion with both boxes ticked (breakdown point, confidence interval) keeps the sampling caveat.

Issue 44, item 3: the page said "keeps its sign for any D below 6.82 %" while the interval band on the
same chart crossed 0 near D = 0.03; the breakdown was computed without the interval.
"""

from __future__ import annotations

import pandas as pd
import pytest

import fairprobe as fp

pytest.importorskip("streamlit")

#: counts whose 95 % interval loses the sign well before the bias does
COUNTS = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1, 1, 1], "Y": [0, 0, 1, 1] * 2, "P": [0, 1] * 4,
                       "n": [400, 100, 100, 400, 300, 200, 100, 400]})


def test_breakdown_and_interval_together_keep_the_sampling_caveat(app_test) -> None:
    at = app_test
    at.run()
    at.sidebar.radio(key="page").set_value("Data").run()
    at.button(key="data_load").click().run()
    at.sidebar.radio(key="page").set_value("Sensitivity analysis").run()
    at.session_state["table"] = fp.ObservedTable.from_counts(COUNTS)
    at.multiselect(key="sw_biases").set_value(["proxy_label"])
    at.number_input(key="sw_stop").set_value(0.06)
    at.number_input(key="sw_n").set_value(5)
    at.checkbox(key="sw_breakdown").check()
    at.checkbox(key="sw_ci").check()
    at.button(key="sw_run").click().run()
    assert not at.exception and not [e.value for e in at.error]
    sweep = at.session_state["sweep"]
    result = sweep["results"][0]
    bp = sweep["breakdowns"][result.metric]
    # old: the breakdown had no interval, and the page's conclusion dropped the sampling caveat
    assert bp.ci_value is not None and bp.ci_value < bp.value
    shown = at.info[0].value
    assert "breakdown point" in shown
    assert "With sampling error (95 % CI, projection) it holds only up to D = " in shown
    assert shown == result.conclusion(bp.value).text
    # the report says the same
    caveat = shown[shown.index("With sampling error"):]
    assert caveat in result.summary()

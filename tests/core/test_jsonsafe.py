"""One rule for non-finite numbers in every JSON fairprobe writes: standard JSON, never ``Infinity``."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

import fairprobe as fp
from fairprobe.core.jsonsafe import dumps

SRC = Path(__file__).resolve().parents[2] / "src" / "fairprobe"


def strict_loads(text: str) -> object:
    """``json.loads`` that refuses the non-standard tokens ``NaN``, ``Infinity`` and ``-Infinity``."""
    def refuse(token: str) -> None:
        raise ValueError(f"invalid JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_infinities_keep_their_sign_and_nan_is_null() -> None:
    data = {"lower": -math.inf, "upper": np.float64(np.inf), "rate": math.nan,
            "rows": [np.array([1.0, np.nan]), (np.inf,)], "n": np.int64(3)}
    assert strict_loads(dumps(data)) == {"lower": "-inf", "upper": "inf", "rate": None, "rows": [[1.0, None], ["inf"]],
                                         "n": 3}
    with pytest.raises(ValueError, match="Infinity"):
        strict_loads(json.dumps({"x": math.inf}))  # what Python's json writes by default: the checker works


def test_every_json_writer_goes_through_the_rule() -> None:
    """No module calls json.dumps itself (bias configs excepted: their numbers are validated finite)."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name in ("jsonsafe.py", "config.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            func = getattr(node, "func", None)
            if isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr in ("dumps", "dump") \
                    and isinstance(func.value, ast.Name) and func.value.id == "json":
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not offenders, f"use fairprobe.core.jsonsafe.dumps: {offenders}"


def test_a_sweep_with_an_undefined_point_writes_standard_json(tmp_path: Path) -> None:
    import pandas as pd

    cells = pd.DataFrame({"A": [0, 0, 0, 0, 1, 1], "Y": [0, 0, 1, 1, 1, 1], "P": [0, 1, 0, 1, 0, 1],
                          "prob": [0.3, 0.1, 0.1, 0.3, 0.1, 0.1]})
    res = fp.sensitivity("proxy_label", fp.metric("fpr", group=1), cells, D=[0.0, 0.05], progress=False)
    d = strict_loads(res.to_json(str(tmp_path / "sweep.json")))
    assert d["points"][0]["lower"] is None and d["points"][0]["status"] == "undefined"
    strict_loads((tmp_path / "sweep.json").read_text())

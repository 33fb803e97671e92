"""``import fairprobe as fp`` offers a small, documented surface; internals live in their modules."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fairprobe as fp

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"

#: Names that used to be in ``fp`` and now live only in their modules (a few of the 85 of before).
REMOVED = {
    "Any": None, "annotations": None, "importlib": None,
    "resolve_bias": "fairprobe.core.inputs", "compile_program": "fairprobe.core.compiler",
    "sampling_interval": "fairprobe.core.uncertainty", "parse_expression": "fairprobe.core.query",
    "parse_constraint": "fairprobe.core.query", "BoundProblem": "fairprobe.core.bound",
    "interval_options": "fairprobe.core.uncertainty", "get_plugin_manager": "fairprobe.core.registry",
    "ProgramError": "fairprobe.exceptions", "Summary": "fairprobe.core.results",
    "observed": None,  # one name per meaning: the group rates are fp.group_rates
}


def test_dir_lists_at_most_40_public_names() -> None:
    names = dir(fp)
    assert len(names) <= 40, names
    assert all(not n.startswith("_") or n == "__version__" for n in names), names
    for name in names:
        obj = getattr(fp, name)
        if name == "__version__":
            assert obj == importlib.metadata.version("fairprobe")
        elif name == "hookimpl":  # pluggy's marker, bound to fairprobe's project name
            assert obj.project_name == "fairprobe"
        else:  # a function or class of fairprobe's own, under its own name
            assert obj.__module__.startswith("fairprobe.") and obj.__name__ == name, (name, obj)


def test_every_public_name_is_documented_in_the_api_page() -> None:
    text = API.read_text(encoding="utf-8")
    undocumented = [n for n in dir(fp) if not re.search(rf"`fp\.{re.escape(n)}`", text)]
    assert not undocumented, f"not in docs/api.md as `fp.NAME`: {undocumented}"


@pytest.mark.parametrize("name", sorted(REMOVED))
def test_internals_are_gone_from_fp_and_importable_from_their_module(name: str) -> None:
    assert name not in dir(fp)
    with pytest.raises(AttributeError):
        getattr(fp, name)
    if REMOVED[name] is not None:
        module = __import__(REMOVED[name], fromlist=[name])
        assert getattr(module, name).__name__ == name  # the object itself, not something else by that name


def test_observed_means_the_datas_own_value() -> None:
    from fairprobe.core.results import ObservedValue
    from fairprobe.datasets import load_paper_table

    table = load_paper_table()
    sweep = fp.sensitivity("proxy_label", "fpr", table, D=[0.0, 0.05], progress=False)
    one = fp.bound("proxy_label", "fpr", table, D=0.05)
    brk = fp.breakdown("proxy_label", "fpr", table, threshold=0.2, xtol=0.01, D_max=0.1)
    assert isinstance(sweep.observed, ObservedValue) and isinstance(one.observed, ObservedValue)
    assert sweep.observed.point == pytest.approx(one.observed.point, abs=1e-9)
    assert brk.no_bias.observed.point == pytest.approx(one.observed.point, abs=1e-9)
    assert not hasattr(sweep, "observed_value") and not hasattr(brk, "observed")


def test_a_fresh_import_lists_the_same_names() -> None:
    code = "import fairprobe as fp; print(len(dir(fp)), 'Any' in dir(fp), 'importlib' in dir(fp))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(len(dir(fp))), "False", "False"]

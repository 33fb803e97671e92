"""The app's Other-analyses page offers only analyses whose optional packages are installed, and says
which extra installs the others."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the app needs Streamlit (pip install 'fairprobe[app]')")


def test_an_unavailable_analysis_is_not_offered_and_its_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    from fairprobe.backends.base import Availability
    from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

    monkeypatch.setattr(TreeRashomonSet, "availability", classmethod(lambda cls: Availability.NOT_INSTALLED))
    monkeypatch.setattr(TreeRashomonSet, "missing_requirements", classmethod(lambda cls: ["treefarms"]))
    at = AppTest.from_string("from fairprobe.app.pages import analyses_page\nanalyses_page()").run(timeout=60)
    assert not at.exception
    options = at.selectbox(key="an_name").options
    assert "tree_rashomon" not in options and {"fairtree", "rashomon", "riskscore"} <= set(options)
    captions = [c.value for c in at.caption]
    assert ('tree_rashomon is not offered: not installed (needs treefarms); install with: '
            'pip install "fairprobe[trees]"') in captions

"""``fairprobe app``: a local Streamlit web app over the public API and the plugin registry.

Importing this package never imports Streamlit; only the app script (:mod:`fairprobe.app.streamlit_app`)
and the page module (:mod:`fairprobe.app.pages`) do, when Streamlit runs them. The pure logic the
pages use lives in :mod:`fairprobe.app.logic` (no Streamlit calls), so it unit-tests easily.

Examples
--------
>>> from fairprobe.app import SCRIPT
>>> SCRIPT.name
'streamlit_app.py'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SCRIPT"]

#: The Streamlit script that ``fairprobe app`` runs.
SCRIPT: Path = Path(__file__).resolve().parent / "streamlit_app.py"

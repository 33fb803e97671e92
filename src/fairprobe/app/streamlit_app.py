"""The Streamlit script of ``fairprobe app`` (run by ``streamlit run``; see :mod:`fairprobe.app.pages`)."""

import streamlit as st

from fairprobe.app.pages import main

if __name__ == "__main__":  # streamlit runs the script as __main__; importing it does nothing
    st.set_page_config(page_title="fairprobe", page_icon=":balance_scale:", layout="wide")
    main()

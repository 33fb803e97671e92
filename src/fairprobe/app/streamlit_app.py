"""The Streamlit script of ``fairprobe app`` (run by ``streamlit run``; see :mod:`fairprobe.app.pages`).

Importing it does nothing (Streamlit runs the script as ``__main__``), so doctest collection and
``import fairprobe.app.streamlit_app`` work without starting the app, and without Streamlit.
"""

if __name__ == "__main__":
    import streamlit as st

    from fairprobe.app.pages import main

    st.set_page_config(page_title="fairprobe", page_icon=":balance_scale:", layout="wide")
    main()

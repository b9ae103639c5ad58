"""detox-dashboard: the Streamlit entry point.

Run with ``streamlit run app.py``. Pages live in ``pages/``; this file sets up the
page, the navigation and the shared sidebar (the corpus every page works on).
"""

import streamlit as st

from detox_core.ui.navigation import ensure_app_navigation
from detox_core.ui.sidebar import render_sidebar

ensure_app_navigation()
st.set_page_config(page_title="detox-dashboard", page_icon=":material/cleaning_services:", layout="wide")

pages = {
    "Explore": [
        st.Page("pages/corpus.py", title="Corpus", icon=":material/menu_book:", default=True),
    ],
    "Score": [
        st.Page("pages/live_scoring.py", title="Live scoring", icon=":material/bolt:", url_path="live"),
        st.Page("pages/submissions.py", title="Submissions", icon=":material/upload_file:", url_path="submissions"),
        st.Page("pages/leaderboard.py", title="Leaderboard", icon=":material/leaderboard:", url_path="leaderboard"),
        st.Page("pages/compare.py", title="Compare systems", icon=":material/compare_arrows:", url_path="compare"),
    ],
    "Humans": [
        st.Page("pages/human_eval.py", title="Human vs automatic", icon=":material/groups:", url_path="human"),
        st.Page("pages/annotation.py", title="Annotation", icon=":material/edit_note:", url_path="annotate"),
    ],
}
page = st.navigation(pages)
with st.sidebar:
    st.markdown("**detox-dashboard** · evaluating text detoxification")
render_sidebar(owner="app")
page.run()

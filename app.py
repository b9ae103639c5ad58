"""detox-dashboard: the Streamlit entry point.

Run with ``streamlit run app.py``. Pages live in ``pages/``; this file sets up the
page, the navigation and the shared sidebar (the corpus every page works on).
"""

import streamlit as st

from detox_core.errors import StorageError
from detox_core.ui import render
from detox_core.ui.models import render_model_settings
from detox_core.ui.navigation import ensure_app_navigation
from detox_core.ui.sidebar import render_sidebar

ensure_app_navigation(entry=True)
st.set_page_config(page_title="detox-dashboard", page_icon=":material/cleaning_services:", layout="wide")

pages = {
    "Explore": [
        st.Page("pages/corpus.py", title="Corpus", icon=":material/menu_book:", default=True),
    ],
    "Score": [
        st.Page("pages/live_scoring.py", title="Live scoring", icon=":material/bolt:"),
        st.Page("pages/submissions.py", title="Submissions", icon=":material/upload_file:"),
        st.Page("pages/leaderboard.py", title="Leaderboard", icon=":material/leaderboard:"),
        st.Page("pages/compare.py", title="Compare systems", icon=":material/compare_arrows:"),
    ],
    "Humans": [
        st.Page("pages/human_eval.py", title="Human vs automatic", icon=":material/groups:"),
        st.Page("pages/annotate.py", title="Annotate", icon=":material/edit_note:"),
        st.Page("pages/annotation_projects.py", title="Annotation projects", icon=":material/assignment:"),
    ],
}
page = st.navigation(pages)
with st.sidebar:
    st.markdown("**detox-dashboard** · evaluating text detoxification")
render_sidebar(owner="app")
render_model_settings()
try:
    page.run()
except StorageError as err:
    # The database is down, damaged or read-only: say so, never show a traceback.
    st.error(f"**The database is not available.** {render.md(err, None)}", icon=":material/cloud_off:")

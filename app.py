"""detox-dashboard: the Streamlit entry point.

Run with ``python -m detox_core serve`` (``make run``), which warms the models from the
server's start, or ``streamlit run app.py``, which warms them from the first session on.
Pages live in ``pages/``; this file sets up the page, the navigation and the shared sidebar
(the corpus every page works on).
"""

import streamlit as st

from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.ui.app.settings_check import settings_problem

ensure_app_navigation(entry=True)
st.set_page_config(page_title="detox-dashboard", page_icon=":material/cleaning_services:", layout="wide")
# Access settings that cannot be read stop the app, never open it (a secrets file broken
# while the server runs; `detox serve` refuses to start on one): below, every page is hidden and
# only the message is drawn.
_settings = settings_problem()
# The first visit after a start imports the app's libraries (about a second): say so.
with st.spinner("Starting the app…"):
    from detox_core.metrics import warmup
    from detox_core.errors import StorageError
    from detox_core.ui.app import auth, render
    from detox_core.ui.sidebar.llm_judge import render_llm_judge_settings
    from detox_core.ui.sidebar.model_settings import render_model_settings
    from detox_core.ui.app.reconnect import render_reconnect_notice
    from detox_core.ui.sidebar.corpus import render_sidebar
    from detox_core.ui.app.submission_store import database_problem
    from detox_core.ui.app.visitors import admit_session, session_ran, take_turn
    from detox_core.ui.app.warming import render_warmup_status

# Started with `python -m detox_core serve`, the models are warming already; started with
# `streamlit run app.py`, they start warming now, once per process, after this first page draws.
warmup.start(delay=1.5)
# Typed and uploaded text in every script: an Arabic or Hebrew line in a text box runs right
# to left, each line by its own first strong character.
st.html("<style>textarea, input[type=text] {unicode-bidi: plaintext; text-align: start;}</style>")

# Each access setting is read once per run (every page's visibility below asks who the session is).
with auth.settings_read_once():
    SECTIONS = {"Explore": ["corpus"], "Score": ["live_scoring", "submissions", "leaderboard", "compare"],
                "Humans": ["human_eval", "annotate", "annotation_projects"]}
    # Each role's menu shows its own pages (detox_core.ui.app.auth). The others stay routable but
    # hidden, so their address answers with the page's own refusal and sign-in.
    # Every page has its own path (/corpus, /live_scoring, ...); the root address forwards to
    # Corpus with its parameters, so older links such as /?q=...&pair=... keep working.
    pages = {
        section: [st.Page(f"pages/{pid}.py", title=auth.PAGES[pid][0], icon=auth.PAGES[pid][1], url_path=pid,
                          visibility="visible" if not _settings and auth.allowed(pid) else "hidden")
                  for pid in ids]
        for section, ids in SECTIONS.items()
    }
    corpus_page = pages["Explore"][0]


    def _root() -> None:
        params = {key: st.query_params.get_all(key) for key in st.query_params}  # repeated keys stay repeated
        st.switch_page(corpus_page, query_params=params)


    root = st.Page(_root, title="Corpus", url_path="home", default=True, visibility="hidden")
    page = st.navigation({"": [root], **pages})
    if _settings:
        st.error(f"**The app's access settings cannot be read, so it serves nothing.** {render.md(_settings, None)}. "
                 "Fix it and reload this page (docs: Deployment).", icon=":material/lock:")
        st.stop()
    # An address or a process holding too many sessions gets a message, and no work; the
    # Annotate page may take the places kept for new annotators.
    admit_session(reserved=page.url_path == "annotate")
    try:
        # This address's runs take turns, a few at a time (detox_core.deployment.runs): twenty tabs of
        # one address cannot take twenty shares of the process from everybody else.
        take_turn()
        if page is root:
            page.run()
        with st.sidebar:
            st.markdown("**detox-dashboard** · evaluating text detoxification")
        # A signed-in annotator on Annotate sees the work only: no data, model or LLM settings of
        # the other pages (an organizer keeps them).
        annotating = (page.url_path == "annotate" and st.session_state.get("ann_id") is not None
                      and (auth.is_open() or not auth.is_organizer()))
        if not annotating:
            render_warmup_status()  # "Warming models: ..." while they load, updated without rerunning the page
            render_sidebar(owner="app")
        auth.render_access_sidebar(sign_in_form=page.url_path != "annotation_projects")
        if not annotating:
            render_model_settings()
            render_llm_judge_settings()
        if problem := database_problem():
            st.sidebar.error(f"**Database down.** {render.md(problem, None)}", icon=":material/cloud_off:")
        render_reconnect_notice()  # "Reconnected" after the tab's app process stopped (deploy/)
        try:
            page.run()
        except StorageError as err:
            # The database is down, damaged or read-only: say so, never show a traceback. What the
            # session holds (an annotator's unsent answers, scores not yet stored) stays: trying
            # again reruns this session, a reload would start a new one.
            st.error(f"**The database is not available.** {render.md(err, None)}", icon=":material/cloud_off:")
            st.button("Try again", icon=":material/refresh:", key="db_try_again",
                      help="Runs this page again in this tab, keeping what you entered; reloading the tab would lose it.")
    finally:
        session_ran()  # a long run (a whole submission scored) is not an idle tab; the next run of this address goes

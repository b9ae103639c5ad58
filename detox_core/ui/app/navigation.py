"""Keeps Streamlit on the app's own navigation from the very first run."""

from __future__ import annotations

import streamlit as st


def ensure_app_navigation(entry: bool = False) -> None:
    """Leave Streamlit's legacy ``pages/`` mode if this process is still in it.

    A Streamlit process that sees a ``pages/`` folder beside the entry script runs
    its first session in the legacy multipage mode: a deep link such as
    ``/corpus?pair=train-3`` then runs the page file without ``app.py`` (no page
    config, no shared sidebar, file names as page titles). ``st.navigation`` in
    ``app.py`` switches the mode off for the process, but only once ``app.py`` has
    run. Pages call this first: it switches the mode off and reruns, so the same
    URL is served through ``app.py``.

    Args:
        entry: True when called from ``app.py`` itself: then the legacy mode is
            switched off without a rerun, since ``app.py``'s own ``st.navigation``
            takes over in this very run (a rerun would drop a pending button click).
    """
    try:
        # Imported here, as a version guard: a Streamlit without the legacy mode has no such module.
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        if not entry:
            st.rerun()

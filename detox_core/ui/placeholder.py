"""A clearly labelled page that is not built yet."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from detox_core.ui.navigation import ensure_app_navigation


def placeholder_page(title: str, issue: int, plans: Sequence[str]) -> None:
    """Render the title, a 'not built yet' notice and what the page will do."""
    ensure_app_navigation()
    st.title(title)
    st.info(
        f"**Not built yet.** This page arrives with issue #{issue}. Until then, the Corpus page is the "
        "working part of the app.",
        icon=":material/construction:",
    )
    st.markdown("It will let you:\n" + "\n".join(f"- {p}" for p in plans))

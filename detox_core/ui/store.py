"""The shared store of scored submissions (one engine per server process)."""

from __future__ import annotations

import streamlit as st

from detox_core.storage import Store, default_url


@st.cache_resource(show_spinner=False)
def _store(url: str) -> Store:
    return Store(url)


def shared_store() -> Store:
    """The store at ``$DETOX_DB_URL`` or ``data/detox.sqlite``."""
    return _store(default_url())

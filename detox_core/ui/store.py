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


@st.cache_data(show_spinner="Bootstrapping…", max_entries=32)
def _boards(url: str, dataset: str, split: str, axis: str, ids: tuple[int, ...]):
    from detox_core.leaderboard import local_boards

    return local_boards(_store(url), dataset, split, axis)


def cached_boards(dataset: str, split: str, axis: str):
    """Local leaderboards, recomputed only when the stored submissions change."""
    store = shared_store()
    ids = tuple(store.list(dataset=dataset, split=split)["id"].tolist())
    return _boards(store.url, dataset, split, axis, ids)


@st.cache_data(show_spinner=False, max_entries=8)
def _human_scores(stamp: tuple, annotation_stamp: tuple):
    from detox_core.annotation.results import project_human_scores
    from detox_core.leaderboard import human_scores
    from detox_core.ui.annotation import annotation_store

    return human_scores(annotations=project_human_scores(annotation_store()))


def cached_human_scores(stamp: tuple):
    """Human scores per system (annotation projects, the sample, the paper), recomputed
    when the files (``stamp``) or the stored answers change."""
    from detox_core.ui.annotation import annotation_store

    return _human_scores(stamp, annotation_store().stamp())

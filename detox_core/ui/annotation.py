"""Widgets of the annotation pages: the shared store and item cards (the organizer's
sign-in lives in :mod:`detox_core.ui.auth`)."""

from __future__ import annotations

import html

import streamlit as st

from detox_core.annotation.results import aggregate_project, asks_all_tasks, humaneval_table, progress
from detox_core.annotation.store import AnnotationStore, ItemView
from detox_core.annotation.tasks import TaskSpec
from detox_core.db import default_url
from detox_core.vocab import HUMAN_PARTS

@st.cache_resource(show_spinner=False)
def _store(url: str) -> AnnotationStore:
    return AnnotationStore(url)


def annotation_store() -> AnnotationStore:
    """The annotation store at ``$DETOX_DB_URL`` or ``data/detox.sqlite`` (one per process)."""
    return _store(default_url())


def _block(label: str, text: str, strong: bool = False) -> str:
    weight = "600" if strong else "400"
    return (f"<div style='margin:.15rem 0'><span style='color:#5b6b63;font-size:.8rem'>{html.escape(label)}</span>"
            f"<div style='font-size:1.05rem;font-weight:{weight};white-space:pre-wrap'>{html.escape(text)}</div></div>")


def item_parts(item: ItemView | None, spec: TaskSpec, *, text: str = "", input: str = "") -> list[dict]:
    """The texts of an item as the annotator sees them, each ``{"label", "text", "strong"}``:
    the original and the rewrite for the content task, the text otherwise."""
    text = item.text if item else text
    input = item.input if item else input
    if spec.name == "content":
        return [{"label": "Original", "text": input, "strong": False},
                {"label": "Rewrite", "text": text, "strong": True}]
    return [{"label": "Text", "text": text, "strong": True}]


def item_html(item: ItemView | None, spec: TaskSpec, *, text: str = "", input: str = "") -> str:
    """:func:`item_parts` as HTML (all text escaped)."""
    return "".join(_block(p["label"], p["text"], p["strong"]) for p in item_parts(item, spec, text=text, input=input))


def _version(project_id: int) -> tuple[str, int, str]:
    """Names one project for the caches: database, id and creation time (an id can be
    used again after a deletion)."""
    store = annotation_store()
    return store.url, project_id, store.project(project_id).created_at.isoformat()


@st.cache_data(show_spinner="Aggregating the answers…", max_entries=16)
def _results(version: tuple[str, int, str], method: str, stamp: tuple):
    store = annotation_store()
    project = store.project(version[1])
    results = aggregate_project(store, project, method=method)
    return results, humaneval_table(store, project, results, complete_only=False)


def project_results(project_id: int, method: str, stamp: tuple):
    """Labels per task and the human-judgement table (every pair) of a project, cached
    until ``stamp`` (:meth:`AnnotationStore.stamp`) changes."""
    return _results(_version(project_id), method, stamp)


@st.cache_data(show_spinner=False, max_entries=16)
def _progress(version: tuple[str, int, str], stamp: tuple):
    store = annotation_store()
    return progress(store, store.project(version[1]))


def project_progress(project_id: int, stamp: tuple):
    """:func:`detox_core.annotation.results.progress`, cached until ``stamp`` changes."""
    return _progress(_version(project_id), stamp)


def project_judgements() -> dict[str, int]:
    """Projects whose judgements can feed the human-vs-automatic view (all three
    tasks asked): name -> id."""
    return {p.name: p.id for p in annotation_store().projects() if asks_all_tasks(p)}


def project_judgements_csv(project_id: int) -> bytes:
    """The project's complete human judgements (every axis labelled) as a humaneval CSV."""
    store = annotation_store()
    _, table = project_results(project_id, store.project(project_id).settings.method, store.stamp())
    return table.dropna(subset=list(HUMAN_PARTS)).to_csv(index=False).encode("utf-8")

"""The shared annotation store (one per server process) and its cached reads: a project's
labels, human-judgement table and progress."""

from __future__ import annotations

import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core.annotation.results import aggregate_project, asks_all_tasks, humaneval_table, progress
from detox_core.annotation.store import AnnotationStore
from detox_core.db import default_url
from detox_core.vocab import HUMAN_PARTS


@st.cache_resource(show_spinner=False)
def _store(url: str) -> AnnotationStore:
    return AnnotationStore(url)


def annotation_store() -> AnnotationStore:
    """The annotation store at ``$DETOX_DB_URL`` or ``data/detox.sqlite`` (one per process)."""
    return _store(default_url())


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
    return csv_export(table.dropna(subset=list(HUMAN_PARTS)))

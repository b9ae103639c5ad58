"""The shared store of scored submissions (one engine per server process)."""

from __future__ import annotations

import hashlib

import streamlit as st

from detox_core import editions
from detox_core.analysis.leaderboard import human_scores, language_boards, local_boards, official_chrf
from detox_core.annotation.results import project_human_scores
from detox_core.db import default_url, health
from detox_core.errors import StorageError
from detox_core.submissions.service import fill_reference_metrics, sentence_table
from detox_core.submissions.store import Store
from detox_core.ui.app.annotation_store import annotation_store


@st.cache_resource(show_spinner=False)
def _store(url: str) -> Store:
    return Store(url)


def shared_store() -> Store:
    """The store at ``$DETOX_DB_URL`` or ``data/detox.sqlite``."""
    return _store(default_url())


def _version(submission_id: int) -> tuple[str, int, str]:
    """Names one stored submission for the caches: database, id and creation time (an
    id can be used again after a deletion)."""
    store = shared_store()
    meta = store.get(submission_id)
    return store.url, submission_id, meta.created_at.isoformat() if meta else ""


@st.cache_data(show_spinner=False, max_entries=64)
def _scores(version: tuple[str, int, str]):
    url, submission_id, _ = version
    return _store(url).scores(submission_id)


def cached_scores(submission_id: int):
    """A stored submission's per-sentence scores, read once (stored scores never change)."""
    return _scores(_version(submission_id))


@st.cache_data(show_spinner="Explaining every sentence…", max_entries=16)
def _sentence_table(version: tuple[str, int, str], corpus_key: str, _references, _lexicon):
    url, submission_id, _ = version
    meta = _store(url).get(submission_id)  # its preset words the explanations
    return sentence_table(_scores(version), _references, _lexicon, meta.preset if meta else None,
                          edition_language(meta.dataset) if meta else None)


def edition_language(dataset: str) -> str | None:
    """The one language of a one-language edition (its sentences carry none); None otherwise."""
    known = editions.EDITIONS.get(dataset)
    return known.languages[0] if known is not None and len(known.languages) == 1 else None


def cached_sentence_table(submission_id: int, corpus_key: str, references, lexicon):
    """:func:`detox_core.submissions.service.sentence_table` of a stored submission, computed once;
    ``corpus_key`` names the references and the lexicon."""
    return _sentence_table(_version(submission_id), corpus_key, references, lexicon)


@st.cache_data(show_spinner="Bootstrapping…", max_entries=32)
def _boards(url: str, dataset: str, split: str, axis: str, shown: tuple[tuple[int, str], ...], refs_key: str,
            _references):
    return local_boards(_store(url), dataset, split, axis, references=_references)


def cached_boards(dataset: str, split: str, axis: str, references=None):
    """Local leaderboards, recomputed only when the shown submissions (ids and names:
    added, removed, hidden or renamed) or the ``references`` change (with them, the
    edition's official system-level chrF too)."""
    store = shared_store()
    listed = store.list(dataset=dataset, split=split)
    refs_key = hashlib.sha1(repr(references).encode()).hexdigest() if references is not None else ""
    return _boards(store.url, dataset, split, axis, tuple(zip(listed["id"].tolist(), listed["name"].tolist())),
                   refs_key, references)


@st.cache_data(show_spinner="Bootstrapping within each language…", max_entries=32)
def cached_language_boards(url: str, dataset: str, split: str, languages: tuple[str, ...], axis: str,
                           shown: tuple[tuple[int, str], ...], averages: tuple[tuple[str, tuple[str, ...]], ...] = ()):
    """Rankings of a multilingual edition's stored submissions by the mean over ``languages``,
    recomputed only when the shown submissions (``shown``: ids and names) change."""
    return language_boards(shared_store(), dataset, split, languages, axis, averages=dict(averages))


def fill_reference_metrics_of(references_of: dict[int, list[list[str]]], pool=None) -> dict[int, list[str]]:
    """Compute the reference metrics stored submissions lack (id -> its sentences'
    references); returns id -> the columns filled. The cached scores and boards are
    dropped, as they hold the old (empty) columns."""
    store = shared_store()
    filled = {sid: fill_reference_metrics(store, sid, refs, pool) for sid, refs in references_of.items()}
    for cached in (_scores, _sentence_table, _boards):
        cached.clear()
    return filled


@st.cache_data(show_spinner=False, max_entries=256)
def _official_chrf(version: tuple[str, int, str], dataset: str, refs_key: str, _references) -> float:
    found = official_chrf(dataset)
    outputs = _scores(version)["output"].tolist()
    return found[1].compute(outputs, _references) if found and len(outputs) == len(_references) else float("nan")


def cached_official_chrf(submission_id: int, dataset: str, references) -> float:
    """A stored submission's system-level chrF as its edition's official script computes it
    (NaN for an edition without one), computed once per references."""
    refs_key = hashlib.sha1(repr(references).encode()).hexdigest()
    return _official_chrf(_version(submission_id), dataset, refs_key, references)


@st.cache_data(show_spinner=False, max_entries=8)
def _human_scores(edition: str, stamp: tuple, annotation_stamp: tuple):
    return human_scores(annotations=project_human_scores(annotation_store()), edition=editions.get_edition(edition))


def cached_human_scores(edition: editions.Edition | None = None):
    """Human scores per system (annotation projects, the edition's judgements, its
    published leaderboard), recomputed when the files or the stored answers change."""
    edition = edition or editions.default_edition()
    files = tuple((p.name, p.stat().st_mtime_ns) for p in (edition.human_path(), edition.leaderboard_path()) if p)
    return _human_scores(edition.name, files, annotation_store().stamp())


@st.cache_data(show_spinner=False, ttl=10)
def database_problem() -> str | None:
    """Why the app's database does not answer (checked at most every 10 s), or None."""
    try:
        store = shared_store()
    except StorageError as err:
        return str(err)
    problem = health(store.engine)
    return str(problem) if problem else None

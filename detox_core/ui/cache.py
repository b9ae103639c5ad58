"""Cached loaders: every session and rerun shares one copy of each dataset."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from detox_core import config, data, editions
from detox_core.analysis import corpus
from detox_core.data.multilingual import is_multilingual, load_multilingual_inputs


def _stamp(dataset: str, root: Path) -> tuple:
    """Modification times of a dataset's files: a re-fetch invalidates the caches."""
    base = root / dataset
    if not base.is_dir():
        return ()
    return tuple(sorted((str(p.relative_to(base)), p.stat().st_mtime_ns) for p in base.rglob("*") if p.is_file()))


@st.cache_resource(show_spinner="Loading the toxic lexicon…")
def _lexicon(dataset: str, root: str, stamp: tuple) -> frozenset[str]:
    return editions.load_dataset_lexicon(dataset, Path(root))


def lexicon(dataset: str) -> frozenset[str]:
    root = config.data_dir()
    return _lexicon(dataset, str(root), _stamp(dataset, root))


@st.cache_resource(show_spinner="Loading the corpus…", max_entries=16)
def _prepared(dataset: str, splits: tuple[str, ...], root: str, stamp: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    frame = editions.load_dataset(dataset, splits, Path(root))
    prepared = corpus.prepare_corpus(frame, _lexicon(dataset, root, stamp))
    return prepared, corpus.prepare_edits(prepared)


def prepared_dataset(dataset: str, splits: tuple[str, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The prepared corpus and its edits for registered ``dataset`` / ``splits``.

    The frames are shared between sessions: callers must not modify them.
    """
    root = config.data_dir()
    return _prepared(dataset, tuple(splits), str(root), _stamp(dataset, root))


# Uploads are up to 50 MB each: keep few of them, and not for long.
@st.cache_resource(show_spinner="Reading the uploaded corpus…", max_entries=4, ttl=3600)
def _prepared_upload(content: bytes, name: str, lexicon_of: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    load = load_multilingual_inputs if is_multilingual(content) else data.load_corpus
    frame = load(content, name=name, split="upload")
    prepared = corpus.prepare_corpus(frame, lexicon(lexicon_of))
    return prepared, corpus.prepare_edits(prepared)


def prepared_upload(content: bytes, name: str, lexicon_of: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Prepared frames of an uploaded corpus TSV, lexicon words marked with the
    lexicon of edition ``lexicon_of`` (default: the default edition's) when it is fetched.

    Raises:
        DetoxInputError: the upload breaks the corpus contract.
    """
    return _prepared_upload(content, name, lexicon_of or editions.default_edition().name)


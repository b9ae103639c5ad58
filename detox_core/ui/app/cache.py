"""Cached loaders: every session and rerun shares one copy of each dataset."""

from __future__ import annotations

import hashlib
import threading
import weakref
from pathlib import Path

import pandas as pd
import streamlit as st

from detox_core import config, data, editions, lexicons as lexicon_lists
from detox_core.analysis import corpus
from detox_core.data import spans
from detox_core.data.multilingual import is_multilingual, load_multilingual_inputs
from detox_core.errors import DetoxInputError
from detox_core.lru import ByteLRU, cache_budget
from detox_core.deployment.memory import release_free_memory


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


@st.cache_resource(show_spinner="Loading the toxic lexicons…")
def _language_lexicons(root: str, stamp: tuple) -> dict[str, lexicon_lists.ToxicLexicon]:
    return lexicon_lists.load_lexicons(Path(root))


def language_lexicons() -> dict[str, lexicon_lists.ToxicLexicon]:
    """The built per-language lexicons of the TextDetox languages (``data/lexicons``),
    empty when they have not been built."""
    root = config.data_dir()
    return _language_lexicons(str(root), lexicon_lists.stamp(root))


@st.cache_resource(show_spinner=False, max_entries=2)
def _marked(path: str, stamp: int) -> dict[tuple[str, str], tuple[str, ...]]:
    return spans.load_marked(Path(path))


def people_marked() -> dict[tuple[str, str], tuple[str, ...]]:
    """The toxic words people marked in the TextDetox 2024 test inputs, by (sentence, language)."""
    found = [e.path(f.rel) for e in editions.editions() for f in e.files if f.hub and f.hub.repo_id == spans.SOURCE]
    path = next((p for p in found if p.is_file()), None)
    return _marked(str(path), path.stat().st_mtime_ns) if path is not None else {}


def _words_by_language() -> dict[str, frozenset[str]]:
    return {lang: lex.words for lang, lex in language_lexicons().items()}


@st.cache_resource(show_spinner="Loading the corpus…", max_entries=16)
def _prepared(dataset: str, splits: tuple[str, ...], root: str, stamp: tuple,
              lexicon_stamp: tuple = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    frame = editions.load_dataset(dataset, splits, Path(root))
    per_language = _words_by_language() if editions.get_edition(dataset).multilingual else None
    prepared = corpus.prepare_corpus(frame, _lexicon(dataset, root, stamp), lexicons=per_language)
    return prepared, corpus.prepare_edits(prepared)


def prepared_dataset(dataset: str, splits: tuple[str, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The prepared corpus and its edits for registered ``dataset`` / ``splits``.

    The frames are shared between sessions: callers must not modify them.
    """
    root = config.data_dir()
    return _prepared(dataset, tuple(splits), str(root), _stamp(dataset, root), lexicon_lists.stamp(root))


#: Largest corpus a visitor may upload (bytes): five times the biggest shipped corpus file
#: (RUSSE-2022 train, 1.9 MB). Reading and preparing costs ~0.6 s and ~6.5 bytes of memory
#: a byte (10 MB: ~6 s, ~65 MB); 45 MB used to take 90-110 s and ~600 MB.
MAX_CORPUS_UPLOAD_BYTES = 10 * 1024 * 1024
#: Most lines of an uploaded corpus: five times the largest shipped corpus (ParaDetox,
#: 11,935 pairs). Prepared, 60,000 rows of 10 MB take ~56 MB (and ~230 MB for ~3.5 s while
#: being prepared), within the uploads' share of the cache budget; 199,000 short rows within
#: 10 MB took 113 MB prepared, more than that share, and were prepared again on every rerun.
MAX_CORPUS_UPLOAD_ROWS = 60_000

#: Uploaded corpora one process prepares at once: each takes up to ~235 MB while it is read
#: and prepared (10 MB, 200,000 rows), so eight at once took a process from 1.8 to 3.9 GB.
#: The others wait for a place, at most :data:`PREPARE_WAIT_S` seconds, then are told to try again.
MAX_PREPARING = 2
PREPARE_WAIT_S = 60.0
_PREPARING = threading.BoundedSemaphore(MAX_PREPARING)

class UploadRoomError(DetoxInputError):
    """An upload the server has no room to hold now (the budget of held uploads is taken)."""


class HeldUploads:
    """The prepared uploads that open tabs hold, within one budget of bytes for the process.

    A tab holds its upload for as long as it lives (its reruns never prepare it again); the
    bytes are given back when the tab's session ends and its state is dropped (Streamlit
    keeps a closed tab's session two minutes for a reconnect). A new upload that would pass
    the budget is refused with a message, instead of taking memory the server does not have;
    so is a further one that would give one client address more than :data:`ADDRESS_SHARE`
    of it (one address with six tabs once took all 400 MB and every other address was
    refused); an address that holds none may always take one.
    """

    #: The share of the budget one client address may hold.
    ADDRESS_SHARE = 0.25

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self.held_bytes = 0
        self.count = 0
        self.by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def address_bytes(self) -> int:
        return int(self.budget_bytes * self.ADDRESS_SHARE)

    def refusal(self, nbytes: int, client: str | None = None) -> str | None:
        """Why ``nbytes`` more cannot be held now: ``"server"`` (the budget), ``"address"``
        (the client's share; ``client`` None: no share, a test harness or a script), or None."""
        with self._lock:
            return self._refusal(nbytes, client)

    def _refusal(self, nbytes: int, client: str | None) -> str | None:
        if self.held_bytes + nbytes > self.budget_bytes:
            return "server"
        held = self.by_client.get(client, 0) if client is not None else 0
        if held and held + nbytes > self.address_bytes():  # an address holding none may take one
            return "address"
        return None

    def room_for(self, nbytes: int, client: str | None = None) -> bool:
        return self.refusal(nbytes, client) is None

    def hold(self, nbytes: int, client: str | None = None) -> "Holding | None":
        """A token holding ``nbytes`` until it is garbage-collected, or None over the budget
        or the client's share."""
        with self._lock:
            if self._refusal(nbytes, client) is not None:
                return None
            self.held_bytes += nbytes
            self.count += 1
            if client is not None:
                self.by_client[client] = self.by_client.get(client, 0) + nbytes
        token = Holding(nbytes)
        weakref.finalize(token, self._release, nbytes, client)
        return token

    def _release(self, nbytes: int, client: str | None = None) -> None:
        with self._lock:
            self.held_bytes -= nbytes
            self.count -= 1
            if client is not None:
                left = self.by_client.get(client, 0) - nbytes
                if left > 0:
                    self.by_client[client] = left
                else:
                    self.by_client.pop(client, None)


class Holding:
    """What a tab keeps while it holds an upload (see :class:`HeldUploads`)."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes


#: Bytes of memory a prepared upload takes per byte of its file (measured: 56 MB for 9.2 MB),
#: to refuse an upload the held budget has no room for before it is prepared.
PREPARED_PER_FILE_BYTE = 6.5
_HELD: HeldUploads | None = None


def held_uploads() -> HeldUploads:
    """The process's :class:`HeldUploads` (``DETOX_UPLOADS_MB``)."""
    global _HELD
    if _HELD is None:
        _HELD = HeldUploads(config.uploads_mb() * 2**20)
    return _HELD


def frames_bytes(frames: tuple[pd.DataFrame, ...]) -> int:
    return int(sum(f.memory_usage(deep=True).sum() for f in frames))


# Prepared uploads live in the budget of all caches (``DETOX_CACHE_MB``), least recently
# used first out: a visitor uploading again and again replaces, never adds to, memory.
_UPLOADS: ByteLRU[tuple[pd.DataFrame, pd.DataFrame]] = ByteLRU(
    cache_budget("uploads"),
    sizeof=lambda _key, frames: frames_bytes(frames))


def prepared_upload(content: bytes, name: str, lexicon_of: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Prepared frames of an uploaded corpus TSV, lexicon words marked with the
    lexicon of edition ``lexicon_of`` (default: the default edition's) when it is fetched.

    Raises:
        DetoxInputError: the upload breaks the corpus contract, or is larger than
            :data:`MAX_CORPUS_UPLOAD_BYTES` or :data:`MAX_CORPUS_UPLOAD_ROWS`.
    """
    if len(content) > MAX_CORPUS_UPLOAD_BYTES:
        raise DetoxInputError(f"the file is {len(content) / 2**20:.1f} MB; an uploaded corpus may be at most "
                              f"{MAX_CORPUS_UPLOAD_BYTES / 2**20:.0f} MB (five times the largest shipped corpus)",
                              name)
    lines = content.count(b"\n", 0, max(len(content) - 1, 0)) + 1
    if lines > MAX_CORPUS_UPLOAD_ROWS + 1:
        raise DetoxInputError(f"the file has {lines:,} lines; an uploaded corpus may have at most "
                              f"{MAX_CORPUS_UPLOAD_ROWS:,} rows (five times the largest shipped corpus)", name)
    lexicon_of = lexicon_of or editions.default_edition().name
    key = (hashlib.sha256(content).hexdigest(), name, lexicon_of, lexicon_lists.stamp(config.data_dir()))

    def prepare() -> tuple[pd.DataFrame, pd.DataFrame]:
        if not _PREPARING.acquire(timeout=PREPARE_WAIT_S):
            raise DetoxInputError(f"the server is preparing {MAX_PREPARING} other uploaded corpora; try again in a "
                                  "minute", name)
        try:
            multilingual = is_multilingual(content)
            load = load_multilingual_inputs if multilingual else data.load_corpus
            frame = load(content, name=name, split="upload")
            prepared = corpus.prepare_corpus(frame, lexicon(lexicon_of),
                                             lexicons=_words_by_language() if multilingual else None)
            return prepared, corpus.prepare_edits(prepared)
        finally:
            _PREPARING.release()
            release_free_memory()  # what reading and preparing took beyond the frames kept

    return _UPLOADS.get_or_compute(key, prepare)

"""Nearest neighbours by meaning among the editions' toxic inputs and shipped system
outputs, across languages.

Texts are embedded by the model of meaning (:mod:`detox_core.models.meaning`,
multilingual-e5-small: a sentence and its translation lie close), so a Russian insult
finds its English and German counterparts, and an output finds the inputs it resembles.

Data contract of an index's metadata frame: one row per text, a ``text`` column and any
string columns that describe it; :func:`scope_texts` gives ``text``, ``kind`` (``input`` or
``output``), ``system`` (``""`` for an input), ``edition`` (registry name), ``lang`` and
``split``. Rows holding the same text of the same ``kind`` (an input of two editions, the
sample inputs that are also test inputs, one output written by several systems) come back
as one result, their other columns joined.

Embedding costs ~20-35 ms a text on two CPU cores, so what is indexed is a
:class:`Scope` the user picks, and built indexes are kept in a cache bounded by bytes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import config, data, editions
from detox_core.models import meaning
from detox_core.errors import DataMissingError, DetoxInputError
from detox_core.limits import MAX_TEXT_CHARS
from detox_core.lru import ByteLRU, cache_budget

KIND_INPUT = "input"
KIND_OUTPUT = "output"
KINDS = (KIND_INPUT, KIND_OUTPUT)
#: The metadata columns of :func:`scope_texts`, after ``text``.
META_COLUMNS = ("kind", "system", "edition", "lang", "split")
#: Rows of one result: one text, once per kind (systems that wrote the same output are one
#: result naming them all).
GROUP_KEY = ("text", "kind")
#: The most results one query returns (a table a person reads).
MAX_K = 100
#: A query longer than this is refused (the live scorer's limit on one text).
MAX_QUERY_CHARS = MAX_TEXT_CHARS

Embed = Callable[..., np.ndarray]
Progress = Callable[[int, int], None]


def _default_embed() -> Embed:
    return meaning.embed


@dataclass(frozen=True)
class Scope:
    """What an index holds: the texts of these editions, splits, languages and kinds.

    A split or language that an edition does not have is skipped for it; an empty
    ``languages`` means every language.
    """

    editions: tuple[str, ...]
    splits: tuple[str, ...]
    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = (KIND_INPUT,)

    def __post_init__(self) -> None:
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown:
            raise DetoxInputError(f"unknown kind(s) of text {', '.join(map(repr, unknown))}; known: {', '.join(KINDS)}")


def _system_name(stem: str, aliases: Mapping[str, str]) -> str:
    return aliases.get(stem, stem)


def _edition_texts(edition: editions.Edition, split: str, kinds: Collection[str],
                   root: Path | None) -> list[pd.DataFrame]:
    """One edition's split: its inputs and/or its shipped outputs (an output that copies its
    input is left out: it would only repeat the input)."""
    inputs = edition.load([split], root)
    if "lang" not in inputs.columns:  # a monolingual edition
        inputs = inputs.assign(lang=edition.languages[0] if edition.languages else "")
    frames = []
    if KIND_INPUT in kinds:
        frames.append(pd.DataFrame({"text": inputs["toxic_comment"].to_numpy(), "kind": KIND_INPUT, "system": "",
                                    "lang": inputs["lang"].to_numpy()}))
    if KIND_OUTPUT in kinds:
        aliases = editions.system_aliases()
        for path in edition.output_files(split, root):
            name = _system_name(path.stem.removesuffix(f"_{split}"), aliases)
            if edition.multilingual:
                sub = data.load_submission(path)
                toxic, langs = sub["toxic_sentence"].astype(str), sub["lang"].astype(str).str.lower()
            else:
                sub = data.load_submission(path, inputs=inputs["toxic_comment"].tolist())
                toxic, langs = sub["toxic_sentence"].astype(str), pd.Series(inputs["lang"].to_numpy())
            outputs = sub["neutral_sentence"].astype(str).str.strip()
            changed = (outputs != toxic.str.strip()).to_numpy() & (outputs != "").to_numpy()
            frames.append(pd.DataFrame({"text": outputs.to_numpy()[changed], "kind": KIND_OUTPUT, "system": name,
                                        "lang": langs.to_numpy()[changed]}))
    return [f.assign(edition=edition.name, split=split) for f in frames]


def scope_texts(scope: Scope, root: Path | None = None) -> pd.DataFrame:
    """The texts of ``scope``: columns ``text`` and :data:`META_COLUMNS`, one row per
    input or output (duplicates kept: each says where the text occurs).

    Raises:
        DataMissingError: a split of the scope is listed but its file cannot be read.
    """
    frames: list[pd.DataFrame] = []
    for name in scope.editions:
        edition = editions.get_edition(name)
        available = edition.available_splits(root)
        for split in scope.splits:
            if split in available:
                frames += _edition_texts(edition, split, scope.kinds, root)
    columns = ["text", *META_COLUMNS]
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=str) for c in columns})
    out = pd.concat(frames, ignore_index=True)[columns]
    if scope.languages:
        out = out[out["lang"].isin(scope.languages)]
    out = out[out["text"].str.strip() != ""]
    return out.reset_index(drop=True)


def scope_stamp(scope: Scope, root: Path | None = None) -> tuple:
    """Names, sizes and modification times of the files ``scope`` reads: a re-fetch makes
    a new cache key."""
    stamp = []
    for name in scope.editions:
        edition = editions.get_edition(name)
        for split in scope.splits:
            try:
                paths = [edition.split_path(split, root)]
            except (DataMissingError, KeyError):
                continue
            if KIND_OUTPUT in scope.kinds:
                paths += edition.output_files(split, root)
            stamp += [(str(p.relative_to(edition.root(root))), p.stat().st_size, p.stat().st_mtime_ns) for p in paths]
    return tuple(stamp)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class SimilarityIndex:
    """Unit vectors of texts with their metadata, searched by cosine.

    Args:
        vectors: ``(n, d)`` vectors, one per row of ``meta`` (normalised here).
        meta: ``n`` rows with a ``text`` column and string metadata columns.

    Raises:
        DetoxInputError: the vectors and the metadata disagree in length, or ``text`` is missing.
    """

    def __init__(self, vectors: np.ndarray, meta: pd.DataFrame) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(meta):
            raise DetoxInputError(f"expected one vector per metadata row ({len(meta)}), found shape {vectors.shape}")
        if "text" not in meta.columns:
            raise DetoxInputError(f"the metadata needs a 'text' column; found {', '.join(meta.columns)}")
        self.vectors = _unit(vectors)
        self.meta = meta.reset_index(drop=True).astype({c: str for c in meta.columns})

    @classmethod
    def build(cls, meta: pd.DataFrame, embed: Embed | None = None, progress: Progress | None = None) -> SimilarityIndex:
        """Embed each distinct text of ``meta`` once (``embed(texts, progress=...)``,
        :func:`detox_core.models.meaning.embed` by default) and index every row.

        Raises:
            MeaningUnavailableError: the model of meaning cannot run here.
        """
        embed = embed or _default_embed()
        codes, distinct = pd.factorize(meta["text"].astype(str))
        vectors = embed(list(distinct), progress=progress) if len(distinct) else np.zeros((0, 1), np.float32)
        return cls(np.asarray(vectors, dtype=np.float32)[codes] if len(distinct) else np.zeros((0, 1)), meta)

    def __len__(self) -> int:
        return len(self.meta)

    @property
    def nbytes(self) -> int:
        """Memory held (vectors and metadata), for a cache bounded by bytes."""
        return int(self.vectors.nbytes + self.meta.memory_usage(deep=True).sum())

    def _query_vector(self, query: str | np.ndarray, embed: Embed | None) -> np.ndarray:
        if isinstance(query, str):
            text = query.strip()
            if not text:
                raise DetoxInputError("type a sentence to search for")
            if len(text) > MAX_QUERY_CHARS:
                raise DetoxInputError(f"the query has {len(text):,} characters; at most {MAX_QUERY_CHARS:,}")
            vector = (embed or _default_embed())([text])[0]
        else:
            vector = np.asarray(query, dtype=np.float32).reshape(-1)
        if self.vectors.shape[0] and vector.shape[0] != self.vectors.shape[1]:
            raise DetoxInputError(f"the query vector has {vector.shape[0]} dimensions; "
                                  f"the index {self.vectors.shape[1]}")
        return _unit(vector)

    def nearest(self, query: str | np.ndarray, k: int = 10, filters: Mapping[str, Collection[str]] | None = None, *,
                exclude_text: str | None = None, embed: Embed | None = None) -> pd.DataFrame:
        """The ``k`` texts closest in meaning to ``query``, most similar first.

        Args:
            query: a text (embedded with ``embed``) or a vector.
            k: results wanted, 1..:data:`MAX_K`; fewer come back when fewer texts match.
            filters: column -> the values kept (``{"lang": ["en", "de"]}``); an empty
                collection keeps nothing.
            exclude_text: a text left out of the results (the query's own sentence).

        Returns:
            ``rank``, ``cosine`` and the metadata columns; rows with the same text and kind
            are one result, their other columns' values joined with ", ".

        Raises:
            DetoxInputError: ``k`` out of bounds, an empty or too long query, a filter on
                a column the index does not have, a vector of another dimension.
        """
        if not 1 <= int(k) <= MAX_K:
            raise DetoxInputError(f"the number of results must be 1 to {MAX_K}, got {k}")
        mask = np.ones(len(self.meta), dtype=bool)
        for column, values in (filters or {}).items():
            if column not in self.meta.columns:
                raise DetoxInputError(f"cannot filter on {column!r}; the index has {', '.join(self.meta.columns)}")
            mask &= self.meta[column].isin([str(v) for v in values]).to_numpy()
        if exclude_text is not None:
            mask &= (self.meta["text"] != exclude_text.strip()).to_numpy()
        rows = np.flatnonzero(mask)
        columns = ["rank", "cosine", *self.meta.columns]
        if not len(rows):
            return pd.DataFrame({c: pd.Series(dtype=float if c == "cosine" else str) for c in columns})
        scores = self.vectors[rows] @ self._query_vector(query, embed)
        key = [c for c in GROUP_KEY if c in self.meta.columns]
        # A text may be indexed several times (several editions or splits): take more
        # candidates until ``k`` distinct results are found or every row is in.
        take = min(len(rows), int(k) * 4 + 16)
        while True:
            top = np.argpartition(-scores, take - 1)[:take] if take < len(rows) else np.arange(len(rows))
            cand = self.meta.iloc[rows[top]].assign(cosine=scores[top].astype(float))
            grouped = (cand.groupby(key, sort=False, dropna=False)
                       .agg({"cosine": "max", **{c: _join for c in self.meta.columns if c not in key}}).reset_index())
            if len(grouped) >= k or take >= len(rows):
                break
            take = min(len(rows), take * 4)
        grouped = grouped.sort_values(["cosine", "text"], ascending=[False, True], kind="stable").head(int(k))
        grouped.insert(0, "rank", range(1, len(grouped) + 1))
        return grouped[columns].reset_index(drop=True)


def _join(values: pd.Series) -> str:
    return ", ".join(dict.fromkeys(str(v) for v in values if str(v)))


# ------------------------------------------------------------------ built indexes, kept

#: Built indexes kept per scope (a whole fetched data set, ~25,000 texts, takes ~40 MB) and
#: the texts read, within the ``similar`` share of ``DETOX_CACHE_MB``.
INDEX_CACHE_BYTES = int(cache_budget("similar") * 0.8)
_INDEXES: ByteLRU[SimilarityIndex] = ByteLRU(INDEX_CACHE_BYTES, lambda key, index: index.nbytes + 256)
_TEXTS: ByteLRU[pd.DataFrame] = ByteLRU(int(cache_budget("similar") * 0.2),
                                        lambda key, frame: int(frame.memory_usage(deep=True).sum()))
_BUILDS_LOCK = threading.Lock()
_BUILDS: dict[Hashable, threading.Lock] = {}  # one lock per scope being built
_ACTIVE = {"builds": 0}  # builds embedding now (they share the engine, batch by batch)


def _key(scope: Scope, root: Path | None) -> Hashable:
    return (scope, str(root or config.data_dir()), scope_stamp(scope, root), meaning.NAMESPACE)


def cached_scope_texts(scope: Scope, root: Path | None = None) -> pd.DataFrame:
    """:func:`scope_texts`, read once per scope and file versions (callers must not modify it)."""
    return _TEXTS.get_or_compute(_key(scope, root), lambda: scope_texts(scope, root))


def built_index(scope: Scope, root: Path | None = None) -> SimilarityIndex | None:
    """The index of ``scope`` when it has been built and is still kept, else None."""
    return _INDEXES.get(_key(scope, root))


def index_for(scope: Scope, root: Path | None = None, progress: Progress | None = None) -> SimilarityIndex:
    """The index of ``scope``, built when it is not kept (``progress(done, total)`` while
    new texts are embedded; texts embedded before come from the model's cache).

    Raises:
        MeaningUnavailableError: the model of meaning cannot run here.
    """
    key = _key(scope, root)
    # One build per scope: a second session asking for the same scope waits and gets the
    # built index instead of embedding it again. Builds of other scopes go on meanwhile
    # (texts embedded before are read from the caches at once; new ones share the engine
    # batch by batch, so no build waits for another to finish).
    with _BUILDS_LOCK:  # kept once made (a lock per scope asked for: a few bytes each)
        lock = _BUILDS.setdefault(key, threading.Lock())
    with lock:
        if (index := _INDEXES.get(key)) is not None:
            return index
        with _BUILDS_LOCK:
            _ACTIVE["builds"] += 1
        try:
            return _INDEXES.get_or_compute(key, lambda: SimilarityIndex.build(cached_scope_texts(scope, root),
                                                                              progress=progress))
        finally:
            with _BUILDS_LOCK:
                _ACTIVE["builds"] -= 1


#: How long a scope's count of texts not yet embedded is reused (seconds): the offer is
#: drawn on every rerun, and counting reads the caches.
ESTIMATE_TTL_S = 30.0
_UNCACHED: ByteLRU[tuple[int, float]] = ByteLRU(256 * 1024, lambda key, value: 200)


def building() -> int:
    """Builds embedding new texts now, in this process."""
    return _ACTIVE["builds"]


@dataclass(frozen=True)
class BuildEstimate:
    """What building a scope's index costs now: texts to embed (the others are cached) and
    seconds, from the engine's measured speed shared with the builds running now."""

    distinct: int
    new: int
    seconds: float


def estimate(scope: Scope, root: Path | None = None) -> BuildEstimate:
    """:class:`BuildEstimate` of ``scope`` (its texts read, their vectors looked up)."""
    texts = cached_scope_texts(scope, root)["text"].astype(str)
    distinct = int(texts.nunique())
    key = _key(scope, root)
    counted = _UNCACHED.get(key)
    if counted is None or time.monotonic() - counted[1] > ESTIMATE_TTL_S:  # looked up again now and then
        counted = (meaning.uncached(texts.tolist()), time.monotonic())
        _UNCACHED.put(key, counted)
    new = counted[0]
    sharing = _ACTIVE["builds"] + 1  # this build shares the engine with those running
    return BuildEstimate(distinct, new, new / meaning.texts_per_second() * sharing)


def fitting_scope(scope: Scope, max_texts: int, root: Path | None = None) -> Scope:
    """``scope`` narrowed to at most ``max_texts`` distinct texts, for a default a visitor may
    build: its splits smallest first while they fit (RUSSE-2022's dev and test, not its
    6,948 training inputs), then, when one split is too many, its languages in their order
    while they fit. At least one split and one language are kept (a scope that cannot fit
    stays as small as that)."""
    texts = cached_scope_texts(scope, root)

    def distinct(splits: Collection[str], langs: Collection[str] | None = None) -> int:
        part = texts[texts["split"].isin(splits)]
        return int((part[part["lang"].isin(langs)] if langs is not None else part)["text"].nunique())

    if distinct(scope.splits) <= max_texts:
        return scope
    present = [s for s in scope.splits if (texts["split"] == s).any()] or list(scope.splits[:1])
    splits: list[str] = []
    for split in sorted(present, key=lambda s: distinct([s])):
        if not splits or distinct([*splits, split]) <= max_texts:
            splits.append(split)
    if distinct(splits) <= max_texts:
        return Scope(scope.editions, tuple(s for s in scope.splits if s in splits), scope.languages, scope.kinds)
    langs: list[str] = []
    for lang in scope.languages or tuple(dict.fromkeys(texts["lang"])):
        if not langs or distinct(splits, [*langs, lang]) <= max_texts:
            langs.append(lang)
    return Scope(scope.editions, tuple(splits), tuple(langs), scope.kinds)


def clear_cache() -> None:
    """Forget the built indexes and the texts read (tests; a reinstalled model)."""
    _INDEXES.clear()
    _TEXTS.clear()

"""The embedded preset's trained heads: what it learnt of toxicity, content and fluency from
people's data, shipped with the package (no training step before the first score).

Every head reads multilingual-e5-small's sentence vectors (:mod:`detox_core.models.meaning`)
and a few language-independent surface features, so one set of heads serves all 15
languages (the model's space is shared across languages: what it learns of toxicity in one
carries to the others). Trained by :mod:`detox_core.metrics.embedded.training` from the data
folder (``detox train-embedded`` rebuilds them); the design and the figures are in its
docstring.

- **STA** ``p_neutral``: the mean of two logistic regressions, one over the sentence vector,
  one over hashed character 1-4-grams of the text lower-cased without punctuation (CRC-32 into
  :data:`HASH_FEATURES` buckets: no vocabulary to ship, the same index everywhere), trained on the task's toxicity data in 15 languages and on people's rewrites
  (neutral) against their toxic inputs.
- **SIM** ``p_same``: the mean of two logistic regressions over a pair (:func:`pair_features`),
  one over the cosine, the length ratio, the input's non-toxic words kept (:func:`word_toxicity`)
  and the vectors' ``|x - y|`` and ``x * y`` (:func:`sim_matrix`), learnt from graded meaning
  (people's rewrites, an LLM's, STS pairs people scored, and negatives that look like the
  systems' failures), one over the cosine and the length alone, learnt from people's rewrites
  against another input's rewrite and a rewrite's pieces.
- **FL** ``p_fluent``: a logistic regression over the sentence vector and surface features
  (:func:`surface_features`: punctuation left hanging by a deletion, adjacent punctuation,
  length), trained on sentences people wrote against the same sentences corrupted as the
  systems' failures corrupt them (a word or two deleted, the end cut off, words swapped or
  repeated).

The artifact is plain numbers (``heads.npz``) and a description (``heads.json``: the recipe version,
the SHA-256 of every training file, the libraries' versions, the held-out figures), never a pickle.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
from scipy import sparse

from detox_core import config
from detox_core.editions import training_edition
from detox_core.languages.detect import UNSPACED
from detox_core.lru import ByteLRU, cache_budget
from detox_core.segment import SEGMENTERS
from detox_core.text import UNSPACED_RE, WORD_RE, normalise_word

#: The heads' recipe: a change of features or training data makes new heads.
HEADS_VERSION = "2"
#: Hashed character n-gram buckets of the STA head.
HASH_FEATURES = 1 << 18
NGRAMS = (1, 4)
ARRAYS = "heads.npz"
#: the heads over hashed features (stored sparse)
HASHED = ("sta_char", "fl_tok")
META = "heads.json"
#: The shipped heads, inside the package.
SHIPPED = "detox_core.metrics.embedded", "trained"

_PUNCT = re.compile(r"[^\w\s*]+")
_SPACED_PUNCT = re.compile(r"\s[,.;:!?،。，！？、](?=\s|$)")
_ADJACENT_PUNCT = re.compile(r"[,;:،，、]\s*[,.;:!?،。，！？、]")
_LEADING_PUNCT = re.compile(r"^\s*[,.;:!?،。，！？、]")


def sta_text(text: str) -> str:
    """What the character head reads: lower case, punctuation out, single spaces."""
    return " ".join(_PUNCT.sub(" ", normalise_word(text)).split())


def _word_buckets(word: str) -> tuple[int, ...]:
    w = f" {word} "
    lo, hi = NGRAMS
    out: list[int] = []
    for n in range(lo, hi + 1):
        out.extend(zlib.crc32(w[i:i + n].encode("utf-8")) % HASH_FEATURES for i in range(max(1, len(w) - n + 1)))
        if len(w) <= n:
            break
    return tuple(out)


_BUCKETS: ByteLRU = ByteLRU(int(cache_budget("word_pieces") * 0.3),
                            lambda w, v: 2 * len(w) + 8 * len(v) + 160)


def text_buckets(text: str) -> list[int]:
    """The hashed character n-grams of ``text`` (memoised per word)."""
    out: list[int] = []
    for word in sta_text(text).split():
        b = _BUCKETS.get(word)
        if b is None:
            b = _word_buckets(word)
            _BUCKETS.put(word, b)
        out.extend(b)
    return out


def _binary_rows(rows: list[list[int]]) -> sparse.csr_matrix:
    """One row per list of hashed features: 1 where a feature occurs, scaled to unit length."""
    indptr, indices = [0], []
    for buckets in rows:
        cols = np.unique(np.asarray(buckets, dtype=np.int64))
        indices.append(cols)
        indptr.append(indptr[-1] + len(cols))
    idx = np.concatenate(indices) if indices else np.zeros(0, np.int64)
    counts = np.diff(indptr)
    values = np.repeat(1.0 / np.sqrt(np.maximum(counts, 1)), counts).astype(np.float32)
    return sparse.csr_matrix((values, idx, np.asarray(indptr)), shape=(len(rows), HASH_FEATURES))


def char_matrix(texts: list[str]) -> sparse.csr_matrix:
    """Binary hashed character n-grams, each row scaled to unit length."""
    return _binary_rows([text_buckets(t) for t in texts])


_TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")


def token_bigram_matrix(texts: list[str]) -> sparse.csr_matrix:
    """Binary hashed bigrams of lower-cased tokens, words and punctuation marks each a token,
    with the text's start and end as tokens (Chinese and Japanese: each character a token),
    each row scaled to unit length: a deletion leaves bigrams that people's sentences do not
    have (``a ,``, ``the .``, a sentence ending on ``of``)."""
    rows = []
    for t in texts:
        toks = ["<s>"]
        for tok in _TOKEN.findall(normalise_word(t)):
            if UNSPACED_RE.search(tok):
                toks.extend(UNSPACED_RE.findall(tok))
            else:
                toks.append(tok)
        toks.append("</s>")
        rows.append([zlib.crc32(f"{a}\x1f{b}".encode("utf-8")) % HASH_FEATURES for a, b in zip(toks, toks[1:])])
    return _binary_rows(rows)


def tokens(text: str, lang: str) -> list[str]:
    """Normalised words (segmented with jieba and fugashi in Chinese and Japanese)."""
    if lang in UNSPACED:
        return [normalise_word(w) for w in SEGMENTERS[lang](text) if WORD_RE.fullmatch(w)]
    return [normalise_word(w) for w in WORD_RE.findall(text)]


SURFACE = ("spaced_punct", "adjacent_punct", "leading_punct", "ends_open")


def surface_features(texts: list[str]) -> np.ndarray:
    """Per text: punctuation a deletion left hanging (`` , `` with nothing between the
    words around it), two punctuation marks in a row, a text that opens with punctuation, and
    whether it ends without closing punctuation. Not its length: a short polite sentence is as
    fluent as a long one."""
    rows = []
    for t in texts:
        s = t.strip()
        n = max(1, len(WORD_RE.findall(s)))
        rows.append([
            len(_SPACED_PUNCT.findall(f" {s} ")) / n,
            float(bool(_ADJACENT_PUNCT.search(s))),
            float(bool(_LEADING_PUNCT.search(s))),
            float(bool(s) and s[-1].isalnum()),
        ])
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(SURFACE))


#: the pair features the SIM head reads beside the two vectors' ``|x - y|`` and ``x * y``: meaning,
#: length and the input's non-toxic words kept (a polite rewrite drops the insult and keeps the
#: point; chosen on held-out training pairs and two LLM judges, see
#: :mod:`detox_core.metrics.embedded.training`)
SIM_COLUMNS = ("cos", "log_len_ratio", "abs_log_len_ratio", "kept")
#: the columns of the second SIM head, averaged with the first: the cosine and the length alone
#: (read as people's rewrites read them: a loose polite paraphrase keeps the meaning)
SIM_COS_COLUMNS = ("cos", "log_len_ratio", "abs_log_len_ratio")
#: what :func:`pair_features` computes: the SIM head's columns, the soft recall that decides
#: whether the language identifier reads a pair, and the share of the input's toxic words the
#: output still holds (STA's part of the input's toxicity left)
PAIR = ("cos", "recall", "log_len_ratio", "abs_log_len_ratio", "kept", "toxic_left")
#: a word whose character n-grams pull the STA character head this far towards toxic (its logit
#: share) counts as one of the input's toxic words
TOXIC_WORD = -0.5


def _bigrams(word: str) -> frozenset[str]:
    s = f"^{word}$"
    return frozenset(s[i:i + 2] for i in range(len(s) - 1))


def _cover(word: str, present: set[str], grams: list[frozenset[str]]) -> float:
    """1 when ``word`` is in ``present``, else its best bigram Dice with a word there."""
    if word in present:
        return 1.0
    if not grams:
        return 0.0
    g = _bigrams(word)
    return max(2 * len(g & o) / (len(g) + len(o)) for o in grams)


def _soft_cover(source: list[str], target: list[str]) -> float:
    """Mean over ``source`` words of 1 (in ``target``) or their best bigram Dice with a
    ``target`` word; 1 for an empty ``source``."""
    if not source:
        return 1.0
    present = set(target)
    grams = [_bigrams(w) for w in present]
    return sum(_cover(w, present, grams) for w in source) / len(source)


WordToxicity = Callable[[list[str]], np.ndarray]


def pair_features(inputs: list[str], outputs: list[str], langs: list[str], cos: np.ndarray,
                  word_toxicity: WordToxicity | None = None) -> np.ndarray:
    """Per pair (:data:`PAIR`): the cosine of the sentence vectors, soft recall of the input's
    words in the output, the log length ratio (characters) and its absolute value, the soft
    recall of the input's words that are not toxic (``word_toxicity``, per word, below
    :data:`TOXIC_WORD`; every word without it), and the share of its toxic words, weighted by how
    toxic, the output still holds (NaN when the input has none)."""
    rows = []
    for x, y, lang, c in zip(inputs, outputs, langs, cos):
        ratio = np.log((len(y.strip()) + 1) / (len(x.strip()) + 1))
        xs, ys = tokens(x, lang), tokens(y, lang)
        present = set(ys)
        grams = [_bigrams(w) for w in present]
        cover = [_cover(w, present, grams) for w in xs]
        tox = np.minimum(0.0, word_toxicity(xs)) if word_toxicity is not None and xs else np.zeros(len(xs))
        clean = [v for v, t in zip(cover, tox) if t > TOXIC_WORD]
        weight = -tox[tox <= TOXIC_WORD]
        left = float(np.dot(weight, [v for v, t in zip(cover, tox) if t <= TOXIC_WORD]) / weight.sum()) \
            if len(weight) else np.nan
        rows.append([float(c), sum(cover) / len(cover) if cover else 1.0, ratio, abs(ratio),
                     sum(clean) / len(clean) if clean else 1.0, left])
    return np.asarray(rows, dtype=np.float64).reshape(len(inputs), len(PAIR))


def word_toxicity(char_head: "Linear", words: list[str], memo: dict | None = None) -> np.ndarray:
    """Per word, how far its character n-grams pull the STA character head towards neutral
    (positive) or toxic (negative): the sum of its n-grams' weights over the root of their number."""
    memo = {} if memo is None else memo
    out = np.empty(len(words))
    for k, word in enumerate(words):
        v = memo.get(word)
        if v is None:
            b = np.unique(np.asarray(_word_buckets(sta_text(word) or word), np.int64))
            v = memo[word] = float(np.asarray(char_head.w)[b].sum() / np.sqrt(max(1, len(b))))
        out[k] = v
    return out


def sim_matrix(features: np.ndarray, x_vectors: np.ndarray, y_vectors: np.ndarray) -> np.ndarray:
    """What the SIM head reads: :data:`SIM_COLUMNS` of :func:`pair_features`, then ``|x - y|`` and
    ``x * y`` of the two texts' unit vectors (which parts of the meaning moved)."""
    x = np.asarray(x_vectors, np.float64)
    y = np.asarray(y_vectors, np.float64)
    cols = np.asarray(features, np.float64).reshape(len(x), len(PAIR))[:, [PAIR.index(c) for c in SIM_COLUMNS]]
    return np.hstack([cols, np.abs(x - y), x * y])


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


@dataclass
class Linear:
    """A logistic regression on standardised features: ``sigmoid(((x - mean) / scale) @ w + b)``."""

    w: np.ndarray
    b: float
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None

    def __call__(self, x) -> np.ndarray:
        if sparse.issparse(x):
            z = np.asarray(x @ self.w).ravel()
        else:
            x = np.asarray(x, dtype=np.float64)
            if self.mean is not None:
                x = (x - self.mean) / self.scale
            z = x @ self.w
        return _sigmoid(z + self.b)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        out = {f"{prefix}.w": np.asarray(self.w, np.float32), f"{prefix}.b": np.asarray([self.b], np.float64)}
        if self.mean is not None:
            out[f"{prefix}.mean"] = np.asarray(self.mean, np.float64)
            out[f"{prefix}.scale"] = np.asarray(self.scale, np.float64)
        return out

    @classmethod
    def from_arrays(cls, arrays, prefix: str) -> "Linear":
        mean = arrays.get(f"{prefix}.mean")
        return cls(w=np.asarray(arrays[f"{prefix}.w"], np.float64), b=float(arrays[f"{prefix}.b"][0]),
                   mean=None if mean is None else np.asarray(mean, np.float64),
                   scale=None if mean is None else np.asarray(arrays[f"{prefix}.scale"], np.float64))


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez_compressed``'s format, byte for byte the same for the same arrays: the members
    in name order, each dated 1980-01-01 (numpy dates them now), so a rebuild can be compared."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())


@dataclass
class Heads:
    """The trained heads (see the module's docstring) and what made them."""

    sta_vec: Linear
    sta_char: Linear
    sim: Linear
    sim_cos: Linear
    fl: Linear
    fl_tok: Linear
    #: the spread of F between two rewrites people wrote of one input (FL's unit of a fall)
    fl_noise: float = 0.1
    #: FL's unit per language, where the training data measured it (else :attr:`fl_noise`)
    fl_noise_by_language: dict[str, float] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    _word_tox: dict = field(default_factory=dict, repr=False, compare=False)

    def noise(self, lang: str) -> float:
        """FL's unit of a fall in ``lang``."""
        return float(self.fl_noise_by_language.get(lang, self.fl_noise))

    @property
    def digest(self) -> str:
        """What the signature records: the heads' own hash."""
        return str(self.meta.get("digest", "unknown"))

    def p_neutral(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        if not len(texts):
            return np.zeros(0)
        return 0.5 * self.sta_vec(vectors) + 0.5 * self.sta_char(char_matrix(list(texts)))

    def p_same(self, features: np.ndarray, x_vectors: np.ndarray, y_vectors: np.ndarray) -> np.ndarray:
        """P(same meaning) from :func:`pair_features` and the texts' vectors: the mean of the head
        over :func:`sim_matrix` and the head over :data:`SIM_COS_COLUMNS`."""
        if not len(features):
            return np.zeros(0)
        scalar = np.asarray(features, np.float64)[:, [PAIR.index(c) for c in SIM_COS_COLUMNS]]
        return 0.5 * self.sim(sim_matrix(features, x_vectors, y_vectors)) + 0.5 * self.sim_cos(scalar)

    def word_toxicity(self, words: list[str]) -> np.ndarray:
        """:func:`word_toxicity` of the STA character head, memoised."""
        if len(self._word_tox) > 200_000:
            self._word_tox.clear()
        return word_toxicity(self.sta_char, words, self._word_tox)

    def p_fluent(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        if not len(texts):
            return np.zeros(0)
        return 0.5 * self.fl(np.hstack([np.asarray(vectors, np.float64), surface_features(list(texts))])) \
            + 0.5 * self.fl_tok(token_bigram_matrix(list(texts)))

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {**self.sta_vec.arrays("sta_vec"), **self.sta_char.arrays("sta_char"), **self.sim.arrays("sim"), **self.sim_cos.arrays("sim_cos"),
                  **self.fl.arrays("fl"), **self.fl_tok.arrays("fl_tok"),
                  "fl.noise": np.asarray([self.fl_noise], np.float64)}
        for lang, value in sorted(self.fl_noise_by_language.items()):
            arrays[f"fl.noise.{lang}"] = np.asarray([value], np.float64)
        # Stored sparse where the hashed heads learnt nothing (most buckets): small files.
        for name in HASHED:
            w = arrays.pop(f"{name}.w")
            nz = np.flatnonzero(w)
            arrays[f"{name}.idx"], arrays[f"{name}.val"] = nz.astype(np.int32), w[nz].astype(np.float32)
        _write_npz(folder / ARRAYS, arrays)
        digest = hashlib.sha1((folder / ARRAYS).read_bytes()).hexdigest()[:12]
        self.meta["digest"] = digest
        (folder / META).write_text(json.dumps(self.meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> "Heads":
        meta = json.loads((folder / META).read_text(encoding="utf-8"))
        if meta.get("version") != HEADS_VERSION:
            raise ValueError(f"{folder} holds heads of recipe {meta.get('version')}, this version reads "
                             f"{HEADS_VERSION}: run `detox train-embedded`")
        with np.load(folder / ARRAYS, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        for name in HASHED:
            w = np.zeros(HASH_FEATURES, np.float64)
            w[arrays.pop(f"{name}.idx")] = arrays.pop(f"{name}.val")
            arrays[f"{name}.w"] = w
        return cls(sta_vec=Linear.from_arrays(arrays, "sta_vec"), sta_char=Linear.from_arrays(arrays, "sta_char"),
                   sim=Linear.from_arrays(arrays, "sim"), sim_cos=Linear.from_arrays(arrays, "sim_cos"), fl=Linear.from_arrays(arrays, "fl"),
                   fl_tok=Linear.from_arrays(arrays, "fl_tok"), fl_noise=float(arrays["fl.noise"][0]),
                   fl_noise_by_language={k.split(".", 2)[2]: float(v[0]) for k, v in arrays.items()
                                         if k.startswith("fl.noise.")},
                   meta=meta)


def agreement_sample() -> str:
    """The key in ``heads.json``'s ``agreement`` of the human sample the heads are measured on
    (RUSSE-2022's: a test set, never trained or chosen on)."""
    return f"{training_edition().name} human sample"


def rebuilt_folder() -> Path:
    """Where ``detox train-embedded`` writes heads rebuilt from the data folder (they score only
    when named: ``DETOX_HEADS_DIR``)."""
    return config.data_dir() / "models" / f"heads-{HEADS_VERSION}"


def heads_folder() -> Path:
    """The heads that score: the shipped ones, unless the user names another folder
    (``$DETOX_HEADS_DIR``). A folder that happens to be in the data folder never scores by itself:
    the pages describe the heads that score, and the tests do not depend on a machine's data."""
    return config.heads_dir() or shipped_folder()


def shipped() -> bool:
    """The heads that score are the shipped ones."""
    return heads_folder().resolve() == shipped_folder().resolve()


def shipped_folder() -> Path:
    """The heads that ship inside the package."""
    return Path(str(resources.files(SHIPPED[0]).joinpath(SHIPPED[1])))


_LOADED: dict[Path, Heads] = {}
_LOCK = threading.Lock()


def forget(folder: Path) -> None:
    """Drop ``folder``'s heads from memory (they were rewritten): the next load reads the files."""
    with _LOCK:
        _LOADED.pop(Path(folder), None)


def load_heads(folder: Path | None = None) -> Heads:
    """The heads (the shipped ones unless ``folder``), loaded once per process."""
    folder = Path(folder) if folder is not None else shipped_folder()
    with _LOCK:
        if folder not in _LOADED:
            _LOADED[folder] = Heads.load(folder)
        return _LOADED[folder]

"""The embedded preset's models: training recipes, artifacts and their loader.

Offline, CPU-only, trained from the RUSSE-2022 corpus by
``python -m detox_core train-embedded`` (the setup commands run it when the artifacts
are missing). Never trained on human judgements.

- STA: P(neutral | text) of a logistic regression (C=16, balanced classes) over TF-IDF
  character 1-5-grams within word boundaries (sublinear tf, min_df 2, 300k features).
  Toxic examples: the toxic sentences of train+dev and ``lexicon/ru_toxic_10k.txt``;
  neutral examples: the human paraphrases of train+dev.
- SIM: the mean of the cosine of mean navec word vectors (Russian news embeddings, shipped
  inside the ``natasha`` wheel) of input and output, and the sentence chrF of the output
  against the input.
- FL: the sigmoid of the mean z-score of three signals of the output: the mean
  log-probability per character under a character 5-gram LM trained on the corpus, the
  share of its words that pymorphy3's dictionary knows, and minus the number of
  repeated lemmas. The z-statistics come from the training sentences.

Artifacts live in ``data/models/embedded-<hash>/``; the hash covers the recipe version,
its parameters and the training files, so a change of any of them trains anew.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from detox_core import config, data
from detox_core.editions import training_edition
from detox_core.errors import EmbeddedMissingError
from detox_core.embedded.charlm import CharLM
from detox_core.lru import ByteLRU, cache_budget
from detox_core.text import words

RECIPE_VERSION = "1"
PARAMS = {
    "sta": {"analyzer": "char_wb", "ngram_range": [1, 5], "sublinear_tf": True, "min_df": 2,
            "max_features": 300_000, "C": 16.0, "class_weight": "balanced", "max_iter": 2000},
    "sim": {"embeddings": "navec_news_v1_1B_250K_300d_100q", "weights": [0.5, 0.5]},
    "fl": {"lm_order": 5, "lm_min_count": 2},
}
TRAIN_FILES = ("train.tsv", "dev.tsv", "lexicon/ru_toxic_10k.txt")


_DIGESTS: dict[tuple[str, int, int], str] = {}


def _file_digest(path: Path) -> str:
    """SHA-1 of a file, computed again only when its size or modification time changes
    (every scoring call looks up the models by the hash of the training files)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha1()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def recipe_hash(dataset_dir: Path) -> str:
    """Hash of the recipe version, parameters and training files."""
    h = hashlib.sha1(RECIPE_VERSION.encode())
    h.update(json.dumps(PARAMS, sort_keys=True).encode())
    for rel in TRAIN_FILES:
        path = dataset_dir / rel
        if not path.is_file():
            raise EmbeddedMissingError(
                f"training file {path} is missing: run `python -m detox_core fetch-data` first"
            )
        h.update(rel.encode())
        h.update(_file_digest(path).encode())
    return h.hexdigest()[:12]


def models_dir(root: Path | None = None) -> Path:
    return (root or config.data_dir()) / "models"


def find_artifacts(root: Path | None = None) -> Path:
    """The folder of the trained embedded models for the current recipe and data.

    Falls back to the newest trained folder when the training data are not present
    (an app started on a copied ``data/models`` only).
    """
    root = root or config.data_dir()
    dataset = training_edition().root(root)
    try:
        wanted = models_dir(root) / f"embedded-{recipe_hash(dataset)}"
        if (wanted / "meta.json").is_file():
            return wanted
    except EmbeddedMissingError:
        candidates = sorted(models_dir(root).glob("embedded-*/meta.json"), key=lambda p: p.stat().st_mtime)
        if candidates:
            return candidates[-1].parent
    raise EmbeddedMissingError(
        "the embedded models are not trained yet: run `python -m detox_core train-embedded` "
        "(the setup commands do it), which takes about a minute on a laptop"
    )


# ------------------------------------------------------------------ shared resources


def navec_path() -> Path:
    import natasha

    path = Path(natasha.__file__).parent / "data" / "emb" / f"{PARAMS['sim']['embeddings']}.tar"
    if not path.is_file():
        raise EmbeddedMissingError(f"navec embeddings not found at {path}: reinstall the natasha package")
    return path


_RESOURCE_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def load_navec():
    from navec import Navec

    with _RESOURCE_LOCK:
        return Navec.load(str(navec_path()))


@lru_cache(maxsize=1)
def morph_analyzer():
    import pymorphy3

    with _RESOURCE_LOCK:
        return pymorphy3.MorphAnalyzer()


#: word -> (known to pymorphy3, lemma) of the training vocabulary, from the artifact's
#: table (pymorphy3 takes ~0.15 ms a word); other words go to a byte-bounded cache.
_WORD_INFO: dict[str, tuple[bool, str]] = {}
_WORD_INFO_SEEN: ByteLRU[tuple[bool, str]] = ByteLRU(cache_budget("word_info"))


def _word_info(word: str) -> tuple[bool, str]:
    """(pymorphy3 knows the word, its lemma)."""
    info = _WORD_INFO.get(word) or _WORD_INFO_SEEN.get(word)
    if info is None:
        if not word.isalpha():
            info = (True, word)  # numbers, masked words: neither unknown nor a lemma to repeat
        else:
            morph = morph_analyzer()
            info = (morph.word_is_known(word), morph.parse(word)[0].normal_form)
        _WORD_INFO_SEEN.put(word, info)
    return info


def word_table(texts: Sequence[str]) -> dict[str, list]:
    """``{word: [known, lemma]}`` for every word of ``texts`` (stored with the models)."""
    return {w: list(_word_info(w)) for w in {w for t in texts for w in words(t)}}


def fluency_signals(text: str, lm: CharLM) -> tuple[float, float, float]:
    """(mean char log-prob, share of known words, minus repeated lemmas) of a text."""
    ws = words(text)
    known = [_word_info(w)[0] for w in ws]
    lemmas = [_word_info(w)[1] for w in ws if w.isalpha()]
    repeated = len(lemmas) - len(set(lemmas))
    share = sum(known) / len(known) if known else 0.0
    return lm.mean_logprob(text), share, -float(repeated)


# ------------------------------------------------------------------ the trained models


def _load_sta(folder: Path) -> object:
    """The STA pipeline: ``sta.pkl``, or ``sta.joblib`` of folders trained before it."""
    if (folder / "sta.pkl").is_file():
        with open(folder / "sta.pkl", "rb") as fh:
            return pickle.load(fh)
    import joblib

    return joblib.load(folder / "sta.joblib")


@dataclass
class EmbeddedModels:
    """The trained STA classifier, the char LM and the fluency z-statistics."""

    folder: Path
    sta_pipeline: object
    lm: CharLM
    fl_mean: np.ndarray
    fl_std: np.ndarray
    meta: dict

    @classmethod
    def load(cls, folder: Path) -> "EmbeddedModels":
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        table = folder / "words.json"
        if table.is_file():
            for w, (known, lemma) in json.loads(table.read_text(encoding="utf-8")).items():
                _WORD_INFO.setdefault(w, (bool(known), lemma))
        return cls(
            folder=folder,
            sta_pipeline=_load_sta(folder),
            lm=CharLM.load(folder / "charlm.pkl"),
            fl_mean=np.array(meta["fl_z"]["mean"]),
            fl_std=np.array(meta["fl_z"]["std"]),
            meta=meta,
        )

    def p_neutral(self, texts: Sequence[str]) -> np.ndarray:
        """STA: P(neutral | text)."""
        if not len(texts):
            return np.zeros(0)
        classes = list(self.sta_pipeline.classes_)
        return self.sta_pipeline.predict_proba(list(texts))[:, classes.index(1)]

    def fluency(self, texts: Sequence[str]) -> np.ndarray:
        """FL: sigmoid of the mean z-score of the three fluency signals."""
        if not len(texts):
            return np.zeros(0)
        sig = np.array([fluency_signals(t, self.lm) for t in texts])
        z = (sig - self.fl_mean) / self.fl_std
        return 1.0 / (1.0 + np.exp(-z.mean(axis=1)))


_WORD_VECTORS: ByteLRU[np.ndarray | None] = ByteLRU(
    cache_budget("word_vectors"), sizeof=lambda w, v: 2 * len(w) + 160 + (v.nbytes if v is not None else 0))


def word_vector(word: str) -> np.ndarray | None:
    """The navec vector of a word (decoded once: navec stores them quantised; the
    decoded vectors are kept in a byte-bounded cache)."""
    return _WORD_VECTORS.get_or_compute(word, lambda: load_navec().get(word))


def sentence_vector(text: str) -> np.ndarray | None:
    """Mean navec vector of a text's words (None when no word is known)."""
    vecs = [v for v in map(word_vector, words(text)) if v is not None]
    if not vecs:
        return None
    return np.mean(vecs, axis=0)


def cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    if a is None or b is None:
        return 0.0
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


# ------------------------------------------------------------------ training


@dataclass
class TrainingData:
    toxic: list[str]
    neutral: list[str]


def training_data(dataset_dir: Path) -> TrainingData:
    """Toxic and neutral training sentences (never the test set, never human labels)."""
    frames = [data.load_corpus(dataset_dir / "train.tsv", split="train"), data.load_corpus(dataset_dir / "dev.tsv", split="dev")]
    toxic: list[str] = []
    neutral: list[str] = []
    for f in frames:
        toxic += f["toxic_comment"].tolist()
        for col in data.REFERENCE_COLUMNS:
            neutral += [r for r in f[col] if r]
    toxic += data.load_lines(dataset_dir / "lexicon" / "ru_toxic_10k.txt")
    return TrainingData(toxic=toxic, neutral=neutral)


Step = Callable[[str], None]


def train_embedded(root: Path | None = None, *, force: bool = False, step: Step | None = None) -> Path:
    """Train the embedded models into ``data/models/embedded-<hash>/`` (atomically).

    Returns the folder; an existing folder for the same recipe and data is reused
    unless ``force``.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    say = step or (lambda msg: None)
    root = root or config.data_dir()
    dataset = training_edition().root(root)
    digest = recipe_hash(dataset)
    target = models_dir(root) / f"embedded-{digest}"
    if (target / "meta.json").is_file() and not force:
        say(f"already trained: {target}")
        return target
    started = time.time()
    train = training_data(dataset)
    p = PARAMS["sta"]
    say(f"STA: TF-IDF + logistic regression on {len(train.toxic):,} toxic and {len(train.neutral):,} neutral sentences")
    pipeline = make_pipeline(
        TfidfVectorizer(analyzer=p["analyzer"], ngram_range=tuple(p["ngram_range"]), sublinear_tf=p["sublinear_tf"],
                        min_df=p["min_df"], max_features=p["max_features"], lowercase=True, dtype=np.float32),
        LogisticRegression(C=p["C"], class_weight=p["class_weight"], max_iter=p["max_iter"]),
    )
    texts = train.toxic + train.neutral
    labels = np.array([0] * len(train.toxic) + [1] * len(train.neutral))
    pipeline.fit(texts, labels)

    say("FL: character 5-gram language model")
    lm = CharLM(PARAMS["fl"]["lm_order"], PARAMS["fl"]["lm_min_count"]).fit(texts)
    say("FL: z-statistics of the fluency signals on the training sentences")
    rng = np.random.default_rng(0)
    sample = [texts[i] for i in rng.choice(len(texts), size=min(6000, len(texts)), replace=False)]
    signals = np.array([fluency_signals(t, lm) for t in sample])
    mean, std = signals.mean(axis=0), signals.std(axis=0)
    std[std == 0] = 1.0
    say("SIM: checking the navec embeddings")
    load_navec()

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        # Plain pickle: joblib's compressed format loads about ten times slower (its
        # unpickler is pure Python), and this load is on the first score of a server.
        with open(tmp / "sta.pkl", "wb") as fh:
            pickle.dump(pipeline, fh, protocol=pickle.HIGHEST_PROTOCOL)
        lm.save(tmp / "charlm.pkl")
        say("FL: pymorphy3 table of the training vocabulary")
        (tmp / "words.json").write_text(json.dumps(word_table(texts), ensure_ascii=False), encoding="utf-8")
        meta = {
            "recipe_version": RECIPE_VERSION, "hash": digest, "params": PARAMS,
            "training": {"toxic": len(train.toxic), "neutral": len(train.neutral), "files": list(TRAIN_FILES)},
            "fl_z": {"signals": ["char_lm_mean_logprob", "known_word_share", "minus_repeated_lemmas"],
                     "mean": mean.tolist(), "std": std.tolist()},
            "seconds": round(time.time() - started, 1),
        }
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    say(f"trained in {time.time() - started:.0f} s: {target}")
    return target


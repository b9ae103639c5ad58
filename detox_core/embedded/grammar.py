"""A grammatical-tag bigram language model: the fluency signal of the embedded preset.

Every word becomes its most likely morphological tag from pymorphy3 (part of speech,
with case and number for nouns, adjectives, participles and pronouns, and person or
gender and number for verbs), and the model gives the log-probability of each tag after
the previous one (interpolated with the tag's own frequency). A sentence broken by a
rewrite shows up as an unlikely transition: a preposition followed by a verb ("про
смотреть"), an adjective in another case than its noun, a sentence ending on a
conjunction. The model is trained on the corpus's sentences; it knows nothing of people's
judgements.

A text's grammaticality is the mean of two standardised numbers: the mean and the minimum
log-probability of its transitions.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from detox_core.text import normalise_word, words

BOS, EOS = "<s>", "</s>"
NOMINAL = ("NOUN", "ADJF", "PRTF", "NPRO")


def tag_of_parse(tag) -> str:
    """The tag kept for a pymorphy3 ``OpencorporaTag``."""
    pos = tag.POS or "UNK"
    if pos in NOMINAL:
        return f"{pos}_{tag.case}_{tag.number}"
    if pos == "VERB":
        return f"VERB_{tag.person or tag.gender}_{tag.number}"
    return pos


class TagLM:
    """Bigram model over grammatical tags with additive interpolation to unigrams.

    ``tagger`` maps a normalised word to its tag (pymorphy3 through a cache in the
    recipe); numbers and other non-alphabetic tokens are ``NUM``.
    """

    def __init__(self, tagger: Callable[[str], str], prior: float = 2.0) -> None:
        self.tagger = tagger
        self.prior = prior
        self.unigrams: Counter[str] = Counter()
        self.bigrams: Counter[str] = Counter()
        self.stats: dict[str, list[float]] = {}

    def tags(self, text: str) -> list[str]:
        return [BOS] + [self.tagger(w) if w.isalpha() else "NUM" for w in words(text)] + [EOS]

    def fit(self, texts: Iterable[str]) -> "TagLM":
        for text in texts:
            seq = self.tags(text)
            self.unigrams.update(seq)
            self.bigrams.update(f"{a} {b}" for a, b in zip(seq, seq[1:]))
        self._prepare()
        return self

    def _prepare(self) -> None:
        self._total = sum(self.unigrams.values())
        self._vocab = len(self.unigrams) + 1
        self._memo: dict[tuple[str, str], float] = {}  # at most (tags + 1)^2 entries

    def logprob(self, a: str, b: str) -> float:
        """log P(tag b | previous tag a)."""
        lp = self._memo.get((a, b))
        if lp is None:
            p_uni = (self.unigrams.get(b, 0) + 1) / (self._total + self._vocab)
            p = (self.bigrams.get(f"{a} {b}", 0) + self.prior * p_uni) / (self.unigrams.get(a, 0) + self.prior)
            lp = self._memo[(a, b)] = math.log(p)
        return lp

    def logprobs(self, text: str) -> list[float]:
        seq = self.tags(text)
        return [self.logprob(a, b) for a, b in zip(seq, seq[1:])]

    def signals(self, text: str) -> tuple[float, float]:
        """(mean, minimum) log-probability of the text's tag transitions."""
        lp = self.logprobs(text)
        return sum(lp) / len(lp), min(lp)

    def standardise(self, texts: Sequence[str]) -> None:
        """Remember the mean and standard deviation of both signals over ``texts``."""
        sig = np.array([self.signals(t) for t in texts])
        std = sig.std(axis=0)
        std[std == 0] = 1.0
        self.stats = {"mean": sig.mean(axis=0).tolist(), "std": std.tolist()}

    def score(self, text: str) -> float:
        """Grammaticality: the mean of the two standardised signals (0 = a typical sentence)."""
        mean, std = self.stats["mean"], self.stats["std"]
        a, b = self.signals(text)
        return ((a - mean[0]) / std[0] + (b - mean[1]) / std[1]) / 2.0

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"prior": self.prior, "unigrams": self.unigrams, "bigrams": self.bigrams,
                                    "stats": self.stats}, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path, tagger: Callable[[str], str]) -> "TagLM":
        raw = json.loads(path.read_text(encoding="utf-8"))
        lm = cls(tagger, raw["prior"])
        lm.unigrams, lm.bigrams, lm.stats = Counter(raw["unigrams"]), Counter(raw["bigrams"]), raw["stats"]
        lm._prepare()
        return lm


class CharLM:
    """Interpolated character trigram model (lower-cased text, ``^``/``$`` padding)."""

    def __init__(self, lambdas: Sequence[float] = (0.6, 0.3, 0.1)) -> None:
        self.lambdas = tuple(lambdas)
        self.tri: dict[str, float] = {}
        self.bi: dict[str, float] = {}
        self.uni: dict[str, float] = {}
        self.floor = 1e-6

    @staticmethod
    def _prep(text: str) -> str:
        return "^^" + " ".join(normalise_word(text).split()) + "$"

    def fit(self, texts: Sequence[str]) -> "CharLM":
        tri: Counter = Counter()
        bi: Counter = Counter()
        uni: Counter = Counter()
        for t in texts:
            s = self._prep(t)
            for i in range(2, len(s)):
                tri[s[i - 2:i + 1]] += 1
                bi[s[i - 1:i + 1]] += 1
                uni[s[i]] += 1
        ctx2: Counter = Counter()
        ctx1: Counter = Counter()
        for k, v in tri.items():
            ctx2[k[:2]] += v
        for k, v in bi.items():
            ctx1[k[:1]] += v
        total = sum(uni.values()) or 1
        self.floor = 0.5 / (total + len(uni) + 1)
        self.uni = {k: v / total for k, v in uni.items()}
        self.bi = {k: v / ctx1[k[:1]] for k, v in bi.items()}
        self.tri = {k: v / ctx2[k[:2]] for k, v in tri.items()}
        self._known = None
        return self

    def _logp(self) -> dict[str, float]:
        """log P of every trigram seen in training, interpolated once (scoring is then a
        dictionary look-up per character for the text's usual trigrams)."""
        known = getattr(self, "_known", None)
        if known is None:
            l3, l2, l1 = self.lambdas
            known = {k: math.log(l3 * p + l2 * self.bi.get(k[1:], 0.0) + l1 * self.uni.get(k[2], self.floor))
                     for k, p in self.tri.items()}
            self._known = known
        return known

    def score(self, text: str) -> float:
        """Mean log-probability per character (NaN for an empty text)."""
        s = self._prep(text)
        if len(s) <= 3:
            return float("nan")
        l3, l2, l1 = self.lambdas
        known, bi, uni, floor = self._logp(), self.bi, self.uni, self.floor
        total = 0.0
        for i in range(2, len(s)):
            lp = known.get(s[i - 2:i + 1])
            if lp is None:
                lp = math.log(l2 * bi.get(s[i - 1:i + 1], 0.0) + l1 * uni.get(s[i], floor))
            total += lp
        return total / (len(s) - 2)

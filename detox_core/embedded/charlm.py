"""A character n-gram language model with Witten-Bell interpolation.

Small and fast enough to ship as the fluency signal of the embedded preset: it scores
a sentence by its mean log-probability per character, so text that reads like the
corpus (real words, usual punctuation) scores higher than broken text.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterable
from pathlib import Path

from detox_core.text import normalise_word
from detox_core.lru import cache_budget

# A window -> log-probability entry holds about 180 bytes (a short str, a float and
# the dict's slot), so the cache is cleared past this many entries.
_CACHE_ENTRIES = max(cache_budget("charlm") // 180, 1000)

BOS, EOS = "\x02", "\x03"


def normalise(text: str) -> str:
    """Lower case, ``ё`` folded, runs of spaces collapsed."""
    return " ".join(normalise_word(text).split())


class CharLM:
    """Character n-gram LM (Witten-Bell interpolated down to a uniform distribution).

    Args:
        order: the n of the longest n-gram.
        min_count: n-grams of the top order seen fewer times are dropped after
            training (keeps the model small; lower orders keep all counts).
    """

    def __init__(self, order: int = 5, min_count: int = 1) -> None:
        self.order = order
        self.min_count = min_count
        self.counts_: dict[str, int] = {}
        self.contexts_: dict[str, tuple[int, int]] = {}
        self.vocab_size_: int = 0
        self._cache: dict[str, float] = {}

    def fit(self, texts: Iterable[str]) -> "CharLM":
        counts: dict[str, int] = {}
        vocab: set[str] = set()
        n = self.order
        for text in texts:
            s = BOS * (n - 1) + normalise(text) + EOS
            vocab.update(s)
            for i in range(n - 1, len(s)):
                for k in range(1, n + 1):
                    g = s[i - k + 1 : i + 1]
                    counts[g] = counts.get(g, 0) + 1
        if self.min_count > 1:
            counts = {g: c for g, c in counts.items() if len(g) < n or c >= self.min_count}
        contexts: dict[str, list[int]] = {}
        for g, c in counts.items():
            h = g[:-1]
            stat = contexts.setdefault(h, [0, 0])
            stat[0] += c
            stat[1] += 1
        self.counts_ = counts
        self.contexts_ = {h: (t, u) for h, (t, u) in contexts.items()}
        self.vocab_size_ = len(vocab) + 1  # + unknown
        return self

    def _prob(self, history: str, char: str) -> float:
        p = 1.0 / self.vocab_size_
        counts, contexts = self.counts_, self.contexts_
        for k in range(0, len(history) + 1):
            h = history[len(history) - k :] if k else ""
            stat = contexts.get(h)
            if stat is None:
                break
            total, types = stat
            p = (counts.get(h + char, 0) + types * p) / (total + types)
        return p

    def mean_logprob(self, text: str) -> float:
        """Mean natural-log probability per character (end-of-text included)."""
        n = self.order
        s = BOS * (n - 1) + normalise(text) + EOS
        cache = self._cache
        if len(cache) > _CACHE_ENTRIES:
            # User text fills this cache: start afresh past its byte budget.
            cache.clear()
        total = 0.0
        for i in range(n - 1, len(s)):
            window = s[i - n + 1 : i + 1]
            lp = cache.get(window)
            if lp is None:
                # Windows repeat across sentences (and between an input and its rewrite).
                lp = cache[window] = math.log(self._prob(window[:-1], window[-1]))
            total += lp
        return total / max(len(s) - (n - 1), 1)

    def save(self, path: Path) -> None:
        with open(path, "wb") as f:
            pickle.dump({"order": self.order, "min_count": self.min_count, "counts": self.counts_,
                         "contexts": self.contexts_, "vocab_size": self.vocab_size_}, f, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: Path) -> "CharLM":
        with open(path, "rb") as f:
            state = pickle.load(f)  # noqa: S301 - our own artifact, written by save()
        lm = cls(state["order"], state["min_count"])
        lm.counts_, lm.contexts_, lm.vocab_size_ = state["counts"], state["contexts"], state["vocab_size"]
        lm._cache = {}
        return lm

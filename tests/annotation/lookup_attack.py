"""A cheater's tool: answering control items by looking their texts up in the public corpus.

The measured attack on a campaign found 39 of 40 toxicity and 39 of 40 content control
items (and every exam item) by a normalised lookup of the public corpus, while no real
item was found. This is that lookup, made stronger with a fuzzy match: for a text, the
corpus sentence it is closest to (normalised: case, ё, punctuation and spacing ignored;
fuzzy: difflib's ratio over the sentences sharing its rarest words), which side it is on
(toxic original or human paraphrase) and which pair it belongs to. The answer the cheater
gives follows from that: a toxic-side text is toxic, a paraphrase is not; a rewrite that
is the input's own paraphrase means the same, another's does not; a text found in the
corpus is fluent.
"""

from __future__ import annotations

import difflib
import random
import re
from collections import defaultdict
from dataclasses import dataclass

import pandas as pd

from detox_core.data import PARAPHRASE_COLUMNS

_NON_WORD = re.compile(r"[^\w]+")


def normalise(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.lower().replace("ё", "е")).split())


@dataclass(frozen=True)
class Hit:
    side: str  # "toxic" | "neutral"
    pair: int
    ratio: float


class CorpusLookup:
    def __init__(self, corpus: pd.DataFrame, min_ratio: float = 0.6) -> None:
        self.min_ratio = min_ratio
        self.texts: list[tuple[str, str, int]] = []  # (normalised, side, pair)
        for pair, row in enumerate(corpus.itertuples(index=False)):
            self.texts.append((normalise(row.toxic_comment), "toxic", pair))
            for col in PARAPHRASE_COLUMNS:
                ref = getattr(row, col, "")
                if isinstance(ref, str) and ref.strip():
                    self.texts.append((normalise(ref), "neutral", pair))
        self.exact = {t: (side, pair) for t, side, pair in self.texts}
        self.by_word: dict[str, list[int]] = defaultdict(list)
        for k, (t, _, _) in enumerate(self.texts):
            for w in set(t.split()):
                self.by_word[w].append(k)
        self.toxic_of_pair = {pair: t for t, side, pair in self.texts if side == "toxic"}

    def find(self, text: str) -> Hit | None:
        norm = normalise(text)
        if norm in self.exact:
            side, pair = self.exact[norm]
            return Hit(side, pair, 1.0)
        words = sorted(set(norm.split()), key=lambda w: len(self.by_word.get(w, ())))
        candidates: set[int] = set()
        for w in words[:4]:
            if 0 < len(self.by_word.get(w, ())) <= 2000:
                candidates.update(self.by_word[w])
        best, best_ratio = None, 0.0
        for k in candidates:
            ratio = difflib.SequenceMatcher(None, norm, self.texts[k][0]).ratio()
            if ratio > best_ratio:
                best, best_ratio = k, ratio
        if best is None or best_ratio < self.min_ratio:
            return None
        _, side, pair = self.texts[best]
        return Hit(side, pair, best_ratio)

    def answer(self, task: str, text: str, input_text: str, rng: random.Random) -> tuple[float, bool]:
        """The cheater's answer and whether the lookup found the text (else a guess)."""
        hit = self.find(text)
        if task == "toxicity":
            return (1.0 if hit.side == "toxic" else 0.0, True) if hit else (float(rng.random() < 0.5), False)
        if task == "content":
            if hit is None:
                return float(rng.random() < 0.5), False
            own = self.toxic_of_pair.get(hit.pair) == normalise(input_text)
            return (1.0 if own else 0.0), True
        return (1.0, True) if hit and hit.ratio >= 0.9 else (0.0, hit is not None)


def cheat_accuracy(controls, lookup: CorpusLookup, seed: int = 0) -> tuple[float, int]:
    """(share of control items the cheater answers right, how many the lookup found)."""
    rng = random.Random(seed)
    right = found = 0
    for c in controls:
        answer, hit = lookup.answer(c.task, c.text, c.input, rng)
        right += answer == c.golden
        found += hit
    return right / len(controls), found

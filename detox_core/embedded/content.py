"""Content kept by a rewrite: the embedded preset's SIM.

SIM is the mean of two numbers in [0, 1]:

- soft recall: for every word of the input that is not toxic, 1 when the output has it,
  else its best cosine (navec vectors, floored at 0) with a word of the output; averaged
  over those words. Deleting an insult costs nothing, deleting the subject does; an input
  with nothing but toxic words has recall 1.
- chrF of the output against the references when there are any (how close it is to what
  people wrote; the frame's chrF column, case-sensitive as sacrebleu's), else of the
  output against the input, both lower-cased and without the input's toxic words (an
  unchanged copy keeps all the content: SIM 1).

A word is toxic when the toxic lexicon lists it or the STA classifier, given the word
alone, puts P(neutral) below ``threshold``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from detox_core.text import normalise_word, words, _word_re

#: word -> its unit-length vector, or None when the embeddings do not know it
Vector = Callable[[str], "np.ndarray | None"]


def toxic_words(ws: Sequence[str], lexicon: frozenset[str], p_neutral: Callable[[list[str]], dict[str, float]],
                threshold: float) -> set[str]:
    """The words of ``ws`` (normalised) that are toxic."""
    alpha = [w for w in set(ws) if w.isalpha() and w not in lexicon]
    scores = p_neutral(alpha) if alpha else {}
    return {w for w in ws if w in lexicon or scores.get(w, 1.0) < threshold}


def without_words(text: str, drop: set[str]) -> str:
    """``text`` lower-cased with the words of ``drop`` taken out (punctuation goes too)."""
    return " ".join(w for w in (normalise_word(t) for t in _word_re(text).findall(text)) if w not in drop)


def soft_recall(kept: Sequence[str], output_words: Sequence[str], vector: Vector) -> float:
    """Mean over ``kept`` of 1 (the output has the word) or its best cosine with an output word."""
    if not kept:
        return 1.0
    present = set(output_words)
    vecs = [v for v in (vector(w) for w in present) if v is not None]
    matrix = np.array(vecs) if vecs else None
    total = 0.0
    for w in kept:
        if w in present:
            total += 1.0
            continue
        v = vector(w)
        if v is None or matrix is None:
            continue
        total += max(0.0, float((matrix @ v).max()))
    return total / len(kept)


def recall_of_pair(source: str, output: str, toxic: set[str], vector: Vector) -> float:
    kept = [w for w in words(source) if w not in toxic]
    return soft_recall(kept, words(output), vector)

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


#: output words -> how close a word comes to the closest of them, in [0, 1]
Closeness = Callable[[set[str]], Callable[[str], float]]


def soft_recall(kept: Sequence[str], output_words: Sequence[str], closeness: Closeness) -> float:
    """Mean over ``kept`` of 1 (the output has the word) or how close the word comes to an
    output word (:func:`vector_closeness` for Russian, :func:`bigram_closeness` for the
    other languages); 1 when nothing is to be kept."""
    if not kept:
        return 1.0
    present = set(output_words)
    best = closeness(present)
    return sum(1.0 if w in present else best(w) for w in kept) / len(kept)


def vector_closeness(vector: Vector) -> Closeness:
    """The best cosine (floored at 0) of a word's vector with an output word's; 0 for a
    word the embeddings do not know."""
    def closeness(present: set[str]) -> Callable[[str], float]:
        vecs = [v for v in (vector(w) for w in present) if v is not None]
        matrix = np.array(vecs) if vecs else None

        def best(word: str) -> float:
            v = vector(word)
            return 0.0 if v is None or matrix is None else max(0.0, float((matrix @ v).max()))
        return best
    return closeness


def bigram_closeness(bigrams: Callable[[str], frozenset[str]]) -> Closeness:
    """The best Dice coefficient of a word's character bigrams with an output word's."""
    def closeness(present: set[str]) -> Callable[[str], float]:
        grams = [bigrams(w) for w in present]

        def best(word: str) -> float:
            g = bigrams(word)
            return max((2 * len(g & o) / (len(g) + len(o)) for o in grams), default=0.0)
        return best
    return closeness


def recall_of_pair(source: str, output: str, toxic: set[str], vector: Vector) -> float:
    kept = [w for w in words(source) if w not in toxic]
    return soft_recall(kept, words(output), vector_closeness(vector))

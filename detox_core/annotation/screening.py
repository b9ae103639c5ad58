"""Screening generated control items by their construction: a control must be one that careful
readers agree on, so a candidate a careful reader would dispute is never made one.

Control answers ban annotators, so a control whose answer is debatable bans careful people. A
generated control is screened before it is used, by what it is made of:

- **garbled** (any task): markup or a link in the text (``=`` joining words, tags, brackets,
  ``#``, ``@``, ``_``, asterisks masking a word, an address). A paraphrase such as
  "Die Mehrzahl=Asylsuchende, Terroristen" is not a sentence a reader can judge calmly, neither
  as neutral nor as fluent;
- **not neutral** (the toxicity task's "not toxic" items, and the texts its "toxic" items are
  made from): a word of the toxic lexicon (or of the offensive words put into the toxic items),
  or a text the embedded preset's STA character model finds more likely toxic than not
  (P(neutral) under :data:`NEUTRAL_MIN`). A human paraphrase is a neutral gold only when it
  reads as neutral: some keep the input's labels for a group ("Verbrecher, Terroristen");
- **not clearly offensive** (the toxicity task's "toxic" items): the offensive word goes in as
  an address, "<word>, <sentence>" or "<sentence>, <word>" (never inside the sentence, never
  tacked on without a comma, where it reads as a stray word rather than an insult), and the
  item is kept only when that word makes the same character model find the text toxic
  (P(neutral) under :data:`TOXIC_MAX`, at least :data:`MIN_STEP` under the sentence without
  it, which was neutral): the word decides the answer for a classifier as for a reader.

The character model is the embedded preset's shipped head, trained on data that is no
edition's test set or human judgement (:mod:`detox_core.metrics.embedded.heads`); it needs no download
and reads the text alone. :class:`Screening` counts what was dropped and why, for the
project's creation and its Settings tab.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from detox_core.metrics.embedded.heads import char_matrix, load_heads
from detox_core.text import lexicon_hits

#: A text a neutral gold may be: the character model's P(neutral) at least this.
NEUTRAL_MIN = 0.5
#: A toxic gold made by putting an offensive word in: P(neutral) under this ...
TOXIC_MAX = 0.5
#: ... and at least this much under the sentence's without the word (the word decides).
MIN_STEP = 0.25

# Markup and links: characters no sentence of the corpus needs ("=" joining two words, tags,
# brackets, hashtags, handles, underscores), asterisks masking a word, and web addresses.
_GARBLED = re.compile(r"[=<>|\[\]{}#@_\\^~]|\w\*+\w|https?://|www\.", re.IGNORECASE)

#: Why a candidate was dropped, as the organizer reads it.
GARBLED = "markup or a link in the text, such as '=' joining words"
LEXICON_WORD = "a word of the toxic lexicon in a text meant to be neutral"
READS_TOXIC = "the toxicity classifier finds the text meant to be neutral toxic"
NOT_DECISIVE = "the offensive word put in does not make the text toxic for the classifier"
REASONS = (GARBLED, LEXICON_WORD, READS_TOXIC, NOT_DECISIVE)
#: The kind of the project's log entry that keeps what the screening dropped at its creation.
EVENT = "controls_screened"


def garbled(text: str) -> bool:
    """Whether ``text`` holds markup or a link (see the module docstring)."""
    return bool(_GARBLED.search(text))


def p_neutral(texts: list[str]) -> list[float]:
    """P(neutral) of each text by the embedded preset's STA character model."""
    if not texts:
        return []
    return [float(p) for p in load_heads().sta_char(char_matrix(list(texts)))]


@dataclass
class Screening:
    """What the screening of generated control items dropped: ``dropped`` counts candidates per
    reason (:data:`REASONS`), ``considered`` every candidate looked at."""

    considered: int = 0
    dropped: Counter[str] = field(default_factory=Counter)

    def drop(self, reason: str) -> None:
        self.dropped[reason] += 1

    def merge(self, other: "Screening") -> None:
        self.considered += other.considered
        self.dropped.update(other.dropped)

    @property
    def n_dropped(self) -> int:
        return sum(self.dropped.values())

    def summary(self) -> str:
        """One sentence: how many candidates were dropped of how many, and why ("" when none)."""
        if not self.n_dropped:
            return ""
        why = "; ".join(f"{r}: {n:,}" for r in REASONS if (n := self.dropped[r]))
        return (f"The screening of generated control items dropped {self.n_dropped:,} of {self.considered:,} "
                f"candidates a careful reader would dispute ({why}).")


def neutral_problem(text: str, lexicon: Iterable[str] = frozenset()) -> str:
    """Why ``text`` cannot be a "not toxic" control (or the base of a toxic one), "" when it
    can: markup, a lexicon word, or the classifier finding it toxic."""
    if garbled(text):
        return GARBLED
    if lexicon and lexicon_hits(text, frozenset(lexicon)):
        return LEXICON_WORD
    if p_neutral([text])[0] < NEUTRAL_MIN:
        return READS_TOXIC
    return ""


def decisive(base: str, text: str) -> bool:
    """Whether ``text`` (the neutral sentence ``base`` with an offensive word put in) reads as
    toxic to the classifier, by a clear step from ``base``: a word that barely moves it
    ("Asylanten, bei einer Sekte ...": 0.53 to 0.48) is not one every reader takes as an insult."""
    p_base, p_text = p_neutral([base, text])
    return p_text < TOXIC_MAX and p_base - p_text >= MIN_STEP

"""The request of the Live scoring page: what a visitor typed, checked and bounded.

Every text goes through the models, so one request is capped (characters per text,
number of rewrites and references) before anything is scored: a visitor cannot make
the server score a novel.
"""

from __future__ import annotations

import unicodedata

from dataclasses import dataclass

from detox_core.errors import DetoxInputError
from detox_core.limits import MAX_TEXT_CHARS

#: Most candidate rewrites scored in one request.
MAX_CANDIDATES = 10
#: Most references of one request.
MAX_REFERENCES = 5


@dataclass(frozen=True)
class LiveRequest:
    """A toxic sentence, its candidate rewrites and optional references."""

    source: str
    candidates: tuple[str, ...]
    references: tuple[str, ...]


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]


def parse_request(source: str, candidates: str, references: str = "") -> LiveRequest:
    """The three boxes of the page as a request: one rewrite / reference per line.

    Raises:
        DetoxInputError: a text over :data:`MAX_TEXT_CHARS`, more than
            :data:`MAX_CANDIDATES` rewrites or :data:`MAX_REFERENCES` references, or a
            NUL character; the message names the box and the line.
    """
    boxes = {"Toxic sentence": [source.strip()] if source.strip() else [],
             "Candidate rewrites": _lines(candidates), "References": _lines(references)}
    limits = {"Candidate rewrites": MAX_CANDIDATES, "References": MAX_REFERENCES}
    for box, lines in boxes.items():
        if box in limits and len(lines) > limits[box]:
            raise DetoxInputError(f"{len(lines)} lines; at most {limits[box]} are scored in one request", path=box)
        for k, line in enumerate(lines, 1):
            if len(line) > MAX_TEXT_CHARS:
                raise DetoxInputError(f"{len(line):,} characters; at most {MAX_TEXT_CHARS:,} per text", path=box, line=k)
            if "\x00" in line:
                raise DetoxInputError("a NUL character", path=box, line=k, column=line.index("\x00") + 1)
    return LiveRequest(boxes["Toxic sentence"][0] if boxes["Toxic sentence"] else "",
                       tuple(boxes["Candidate rewrites"]), tuple(boxes["References"]))


def example_boxes(paraphrases: list[str], extra: str = "") -> tuple[list[str], list[str]]:
    """Candidates and references of a corpus example: no reference scores a candidate against itself.

    The first paraphrase (and ``extra``, e.g. the Delete baseline's rewrite) are the
    candidates; the other paraphrases are the references. A paraphrase written twice, or
    equal to a candidate, is dropped. "Equal" is compared on letters, digits and marks only: chrF
    ignores whitespace, so "Где альбом ?" and "Где альбом?" are the same text to it (chrF 1),
    and a paraphrase that is the candidate less its final full stop scores 0.99, which the
    page shows as 1.00: a copy either way. Case is kept (chrF tells "ГДЕ" from "Где").
    """
    def bare(text: str) -> str:  # letters, digits and marks (Devanagari vowel signs, Arabic vowels) kept
        return "".join(ch for ch in text if unicodedata.category(ch)[0] in "LNM")

    paraphrases = [p for p in paraphrases if p and p.strip()]
    candidates = paraphrases[:1]
    if extra and extra.strip() and bare(extra) not in {bare(c) for c in candidates}:
        candidates.append(extra)
    seen = {bare(c) for c in candidates}
    references = []
    for p in paraphrases[1:]:
        if bare(p) not in seen:
            seen.add(bare(p))
            references.append(p)
    return candidates, references

"""The examples the embedded preset's heads learn meaning and fluency from, built from people's
texts (:mod:`detox_core.metrics.embedded.training` reads the data): SIM's pairs of same and lost
meaning, and FL's corruptions of people's sentences as the systems' failures leave them."""

from __future__ import annotations

import numpy as np

from detox_core import languages
from detox_core.languages.training_data import NEGATIONS

#: Languages without spaces between words (corrupted character by character), from the table of languages.
UNSPACED = languages.UNSPACED
#: The weight of a pair of an LLM's rewrite (machine output) against a person's.
LLM_WEIGHT = 0.5


def _words_of(text: str, lang: str) -> list[str]:
    return list(text) if lang in UNSPACED else text.split()


def _join(parts: list[str], lang: str) -> str:
    return ("" if lang in UNSPACED else " ").join(parts)


def negated(text: str, lang: str) -> str | None:
    """``text`` with its first negation word taken out (its claim turned over), or None."""
    padded = f" {text} "
    low = padded.lower()
    for word in NEGATIONS.get(lang, ()):
        k = low.find(word)
        if k >= 0:
            keep = " " if word.startswith(" ") else ""
            out = (padded[:k] + keep + padded[k + len(word):]).strip()
            return " ".join(out.split()) or None
    return None


def sim_examples(pairs, parts, rng, llm=(), sts=()) -> list[tuple[str, str, str, float, str, float, str]]:
    """(input, candidate, lang, P(same meaning), part, weight, kind).

    Same meaning (1): each people's rewrite, the copy, an LLM's rewrite of the input and of the
    crowd's rewrite (weight :data:`LLM_WEIGHT`). Meaning lost (0): another input's rewrite in the
    same language, the first third of a rewrite, a fragment of it, half its words dropped at
    random, and the rewrite with its negation taken out. Graded: STS pairs, their score over 5
    (the on-topic, different-claim pairs the systems' failures look like). The nearest other
    rewrites are added by :func:`neighbour_examples` once the texts are embedded."""
    by_lang: dict[str, list[int]] = {}
    for k, (_, _, lang) in enumerate(pairs):
        by_lang.setdefault(lang, []).append(k)
    out = []
    for k, ((x, rewrites, lang), part) in enumerate(zip(pairs, parts)):
        r = rewrites[int(rng.integers(len(rewrites)))]
        out.append((x, r, lang, 1.0, part, 1.0, "rewrite"))
        if rng.random() < 0.25:
            out.append((x, x, lang, 1.0, part, 1.0, "copy"))
        same = by_lang[lang]
        if len(same) > 1:
            j = same[int(rng.integers(len(same)))]
            if j != k:
                out.append((x, pairs[j][1][0], lang, 0.0, part, 1.0, "other"))
        ws = _words_of(r, lang)
        if len(ws) >= 6:
            if rng.random() < 0.5:
                out.append((x, _join(ws[:max(1, len(ws) // 3)], lang), lang, 0.0, part, 1.0, "third"))
            else:
                start = int(rng.integers(len(ws) - 2))
                out.append((x, _join(ws[start:start + int(rng.integers(2, 4))], lang), lang, 0.0, part, 1.0,
                            "fragment"))
        if len(ws) >= 8 and lang not in UNSPACED and rng.random() < 0.3:
            keep = np.sort(rng.permutation(len(ws))[:len(ws) // 2])
            out.append((x, _join([ws[i] for i in keep], lang), lang, 0.0, part, 1.0, "half"))
        flipped = negated(r, lang)
        if flipped is not None and flipped != r:
            out.append((x, flipped, lang, 0.0, part, 1.0, "negation"))
    for x, crowd, generated, part in llm:
        out.append((x, generated, "en", 1.0, part, LLM_WEIGHT, "llm"))
        out.append((crowd, generated, "en", 1.0, part, LLM_WEIGHT, "llm"))
    for a, b, lang, score, part, _ in sts:
        a, b = (a, b) if rng.random() < 0.5 else (b, a)
        out.append((a, b, lang, score, part, 1.0, "sts"))
        if score >= 0.8:
            flipped = negated(b, lang)
            if flipped is not None and flipped != b:
                out.append((a, flipped, lang, 0.2, part, 1.0, "sts negation"))
    return out


def neighbour_examples(pairs, parts, vectors, rng, ranks: tuple[int, int] = (3, 30)):
    """For each input, a rewrite of another input close to it in meaning (0): the on-topic,
    different claim. Picked at random among the ``ranks`` nearest (the very nearest can be a
    rewrite of the same complaint in other words)."""
    out = []
    by_lang: dict[str, list[int]] = {}
    for k, (_, _, lang) in enumerate(pairs):
        by_lang.setdefault(lang, []).append(k)
    for lang, idx in by_lang.items():
        if len(idx) <= ranks[1] + 1:
            continue
        xv = vectors([pairs[k][0] for k in idx])
        rv = vectors([pairs[k][1][0] for k in idx])
        sims = xv @ rv.T
        np.fill_diagonal(sims, -np.inf)
        order = np.argsort(-sims, axis=1)[:, ranks[0]:ranks[1]]
        for row, k in enumerate(idx):
            j = idx[int(order[row, int(rng.integers(order.shape[1]))])]
            if pairs[j][1][0].strip().lower() != pairs[k][1][0].strip().lower():
                out.append((pairs[k][0], pairs[j][1][0], lang, 0.0, parts[k], 1.0, "neighbour"))
    return out


_PUNCT_TOKEN = set(",.;:!?،。，！？、")


def corrupt(text: str, lang: str, rng) -> str | None:
    """``text`` as a system's failure leaves it: a word or two deleted (punctuation kept in
    place), the end cut off, two neighbours swapped, or a word repeated; None when too short."""
    ws = _words_of(text, lang)
    if len(ws) < 4:
        return None
    kind = rng.random()
    if kind < 0.45:  # deletion, the systems' commonest failure
        n = 1 + int(rng.random() < 0.4)
        start = 1 + int(rng.integers(len(ws) - 1 - n)) if len(ws) - 1 - n > 0 else 1
        out = ws[:start] + ws[start + n:]
        if lang not in UNSPACED and rng.random() < 0.5:
            # a deleted word next to punctuation leaves it hanging: "You are a , shut up"
            out = [w for w in out]
            out.insert(start, ",")
    elif kind < 0.7:
        out = ws[:max(2, int(len(ws) * rng.uniform(0.4, 0.7)))]
    elif kind < 0.85:
        i = int(rng.integers(len(ws) - 1))
        out = ws[:i] + [ws[i + 1], ws[i]] + ws[i + 2:]
    else:
        i = int(rng.integers(len(ws)))
        out = ws[:i + 1] + [ws[i]] + ws[i + 1:]
    result = _join(out, lang)
    return result if result != text else None

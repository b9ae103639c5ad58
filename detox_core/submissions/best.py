"""Which of several rewrites of one input may be called the best: Live scoring marks the
highest J only among the candidates that are rewrites at all.

A candidate is no rewrite, whatever its J, when it is

- an unchanged copy of the input (the same words; case and punctuation aside),
- in another language or script than the input (:func:`detox_core.embedded.language_id.wrong_language`),
- unrelated to the input: the model of meaning (:mod:`detox_core.embedded.meaning`) finds it
  no closer to the input than 19 in 20 pairs of two different toxic inputs of the language
  are to each other (:func:`unrelated_ceiling`, from the training inputs, never from judged
  outputs).

A check that cannot run here (no model of meaning, no language identifier) is named in
:attr:`BestChoice.unchecked` rather than passed silently.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from detox_core import config
from detox_core.embedded import meaning, training_inputs
from detox_core.embedded.language_id import wrong_language
from detox_core.submissions.explain import flags

#: The share of pairs of two different inputs of a language whose cosine stays at or under
#: the ceiling: a candidate no closer to its input than that is read as unrelated.
UNRELATED_QUANTILE = 0.95
#: Pairs of different inputs sampled per language for the ceiling.
CEILING_PAIRS = 400

REASONS = {
    "copy": "an unchanged copy of the input",
    "language": "in another language or script than the input",
    "unrelated": "unrelated to the input (the model of meaning finds it no closer than two different inputs)",
}

_CEILINGS: dict[tuple[str, str], float | None] = {}
_CEILING_LOCK = threading.Lock()


@dataclass(frozen=True)
class BestChoice:
    """The best candidate (None: none may be called best), why each other one is out
    (index -> reason key of :data:`REASONS`) and the checks that could not run."""

    best: int | None
    excluded: dict[int, str] = field(default_factory=dict)
    unchecked: tuple[str, ...] = ()

    def reason(self, k: int) -> str | None:
        return REASONS[self.excluded[k]] if k in self.excluded else None


def _inputs_of(lang: str, root: Path) -> list[str]:
    """Toxic inputs of ``lang`` the embedded preset is trained on (RUSSE-2022's for Russian)."""

    if lang == "ru":
        return [toxic for toxic, _ in training_inputs.russe_pairs(root)]
    if lang not in training_inputs.LANGUAGES:
        return []
    return training_inputs.read_inputs(root).get(lang, [])


def unrelated_ceiling(lang: str, root: Path | None = None) -> float | None:
    """The :data:`UNRELATED_QUANTILE` quantile of the cosine between two different toxic
    inputs of ``lang`` (None: fewer than 20 inputs here). Raises
    :class:`~detox_core.embedded.meaning.MeaningUnavailableError` without the model."""

    root = root or config.data_dir()
    key = (lang, str(root))
    with _CEILING_LOCK:
        if key in _CEILINGS:
            return _CEILINGS[key]
    texts = list(dict.fromkeys(t for t in _inputs_of(lang, root) if t.strip()))
    ceiling = None
    if len(texts) >= 20:
        rng = np.random.default_rng(0)
        n = min(CEILING_PAIRS, len(texts))
        first = rng.choice(len(texts), size=n, replace=False)
        shift = rng.integers(1, len(texts), size=n)  # never the same input
        second = (first + shift) % len(texts)
        cos = meaning.cosine([texts[i] for i in first], [texts[i] for i in second])
        ceiling = float(np.quantile(cos, UNRELATED_QUANTILE))
    with _CEILING_LOCK:
        _CEILINGS[key] = ceiling
    return ceiling


def choose_best(source: str, candidates: Sequence[str], j: Sequence[float], lang: str) -> BestChoice:
    """The candidate with the highest J (above 0) among those that are rewrites of ``source``."""
    n = len(candidates)
    excluded: dict[int, str] = {}
    unchecked: list[str] = []
    for k, out in enumerate(candidates):
        if flags(source, out, frozenset()).copy:
            excluded[k] = "copy"
    rest = [k for k in range(n) if k not in excluded and candidates[k].strip()]
    if rest:
        try:

            wrong = wrong_language(lang, [source] * len(rest), [candidates[k] for k in rest])
            excluded.update({k: "language" for k, w in zip(rest, wrong) if w})
        except Exception:  # noqa: BLE001 - the language identifier is an optional part here
            unchecked.append("language")
    rest = [k for k in rest if k not in excluded]
    if rest:

        try:
            ceiling = unrelated_ceiling(lang)
            if ceiling is None:
                unchecked.append("unrelated")
            else:
                cos = meaning.cosine([source] * len(rest), [candidates[k] for k in rest])
                excluded.update({k: "unrelated" for k, c in zip(rest, cos) if c <= ceiling})
        except meaning.MeaningUnavailableError:
            unchecked.append("unrelated")
    scores = np.asarray([float(x) if x is not None else np.nan for x in j], dtype=np.float64)
    # A J of 0 is no pick: a star there would only say that every rewrite failed.
    eligible = [k for k in range(n) if k not in excluded and candidates[k].strip() and np.isfinite(scores[k])
                and scores[k] > 0]
    best = max(eligible, key=lambda k: (scores[k], -k)) if eligible else None
    return BestChoice(best, excluded, tuple(unchecked))

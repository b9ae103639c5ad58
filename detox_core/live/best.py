"""Which of several rewrites of one input may be called the best: Live scoring marks the
highest J only among the candidates that are detoxifying rewrites at all.

A candidate is no such rewrite, whatever its J, when it is

- an unchanged copy of the input (the same words; case and punctuation aside),
- in another language or script than the input (:func:`detox_core.languages.detect.wrong_language`),
- more toxic than the input: it adds toxic lexicon words the input does not have, or its
  P(neutral) is lower than the input's by more than 0.05 (the card's "more toxic" flag),
- no less toxic than the input: its P(neutral) is at most the input's (where STA is
  P(neutral) of a text alone, so that both can be compared),
- a fragment of the input: it adds no word and keeps at most half of the input's words that
  are not lexicon words (what a cut leaves, not a rewrite),
- unrelated to the input: the model of meaning (:mod:`detox_core.models.meaning`) puts it
  further from the input than 19 in 20 pairs of two different toxic inputs of the language
  are from each other, and it shares no more characters with the input (chrF) than 19 in 20
  such pairs do (:func:`unrelated_ceilings`, from the training inputs, never from judged
  outputs). The model of meaning puts a real paraphrase about as near its input as two
  different inputs are on average (0.81-0.88 in Russian, where 19 in 20 pairs of different
  inputs sit under 0.88), so only a sentence further than nearly all of them is called
  unrelated; one that is not is left to its J (an unrelated sentence has a low SIM).

A star also needs a J that shows as more than 0.00 (a rewrite below is left out as ``zero``, its
reason told like the others'). A check that cannot run here (no model of
meaning, no language identifier) is named in :attr:`BestChoice.unchecked` rather than passed
silently.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from detox_core import config
from detox_core.editions import inputs as edition_inputs
from detox_core.models import meaning
from detox_core.languages.detect import wrong_language
from detox_core.metrics.chrf import pair_chrf
from detox_core.submissions.explain import flags
from detox_core.text import lexicon_hits, words

#: The share of pairs of two different inputs of a language that are further apart (cosine)
#: than an unrelated candidate is from its input.
UNRELATED_COSINE_QUANTILE = 0.05
#: The share of pairs of two different inputs of a language that share at most as many
#: characters (chrF) as an unrelated candidate shares with its input.
UNRELATED_CHRF_QUANTILE = 0.95
#: Pairs of different inputs sampled per language for the ceilings.
CEILING_PAIRS = 400
#: The ceilings of every language with training inputs, measured from the pinned data by
#: ``detox ceilings --ship`` (a step of ``make heads``). Measuring them embeds 800 inputs: 13-36 s
#: on two cores, which a visitor's first ranking of two rewrites in a language used to wait for.
SHIPPED_FILE = Path(__file__).with_name("unrelated_ceilings.json")
#: A fragment keeps at most this share of the input's words (lexicon words aside) and adds none.
FRAGMENT_SHARE = 0.5

REASONS = {
    "copy": "an unchanged copy of the input",
    "language": "in another language or script than the input",
    "more_toxic": "more toxic than the input (it adds toxic words or its P(neutral) is lower)",
    "not_less_toxic": "no less toxic than the input (its P(neutral) is not higher)",
    "fragment": "a fragment of the input (it keeps at most half of its words and adds none)",
    "unrelated": "unrelated to the input (the model of meaning puts it further from the input than 19 in 20 pairs "
                 "of two different inputs are from each other, and it shares no more characters with it than they do)",
    "zero": "scored J 0.00 (a star there would only say that every rewrite failed)",
}


@dataclass(frozen=True)
class Ceilings:
    """How close two different toxic inputs of a language come: the cosine of the model of
    meaning at :data:`UNRELATED_COSINE_QUANTILE` and chrF (0-1) at :data:`UNRELATED_CHRF_QUANTILE`."""

    cosine: float
    chrf: float


_CEILINGS: dict[tuple[str, str], Ceilings | None] = {}
_CEILING_LOCK = threading.Lock()
_SHIPPED: dict[str, Ceilings] | None = None


def ceilings_recipe() -> dict:
    """What the ceilings depend on besides the training inputs: the model of meaning, the
    number of pairs, the quantiles and the seed. Shipped ceilings of another recipe are not used."""
    return {"meaning": meaning.signature(), "pairs": CEILING_PAIRS, "seed": 0,
            "cosine_quantile": UNRELATED_COSINE_QUANTILE, "chrf_quantile": UNRELATED_CHRF_QUANTILE}


def shipped_ceilings() -> dict[str, Ceilings]:
    """The shipped :class:`Ceilings` by language ({} when the file is missing, unreadable or of
    another :func:`ceilings_recipe`: they are then measured on first use)."""
    global _SHIPPED
    if _SHIPPED is None:
        try:
            data = json.loads(SHIPPED_FILE.read_text(encoding="utf-8"))
            same = data.get("recipe") == json.loads(json.dumps(ceilings_recipe()))
            _SHIPPED = {lang: Ceilings(float(c["cosine"]), float(c["chrf"]))
                        for lang, c in data.get("languages", {}).items()} if same else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            _SHIPPED = {}
    return _SHIPPED


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
    """Toxic inputs of ``lang`` the offline preset is trained on (RUSSE-2022's for Russian)."""

    if lang == "ru":
        return [toxic for toxic, _ in edition_inputs.russe_pairs(root)]
    if lang not in edition_inputs.LANGUAGES:
        return []
    return edition_inputs.read_inputs(root).get(lang, [])


def ceilings_at_hand(lang: str) -> bool:
    """Whether :func:`unrelated_ceilings` of ``lang`` returns at once (shipped or measured
    already in this process), so that a page says so when it must measure them."""
    measurable = lang == "ru" or lang in edition_inputs.LANGUAGES  # no inputs: nothing to measure
    return not measurable or lang in shipped_ceilings() or (lang, str(config.data_dir())) in _CEILINGS


def unrelated_ceilings(lang: str, root: Path | None = None) -> Ceilings | None:
    """The :class:`Ceilings` of ``lang``: quantiles of the cosine and of chrF between two
    different toxic inputs of ``lang`` (None: fewer than 20 inputs here). Without ``root``,
    the shipped ones where :data:`SHIPPED_FILE` has the language; else measured from the
    inputs of ``root`` (the data folder by default) once per process. Raises
    :class:`~detox_core.models.meaning.MeaningUnavailableError` when measuring without the model."""

    if root is None and (shipped := shipped_ceilings().get(lang)) is not None:
        return shipped
    root = root or config.data_dir()
    key = (lang, str(root))
    with _CEILING_LOCK:
        if key in _CEILINGS:
            return _CEILINGS[key]
    texts = list(dict.fromkeys(t for t in _inputs_of(lang, root) if t.strip()))
    ceilings = None
    if len(texts) >= 20:
        rng = np.random.default_rng(0)
        n = min(CEILING_PAIRS, len(texts))
        first = rng.choice(len(texts), size=n, replace=False)
        shift = rng.integers(1, len(texts), size=n)  # never the same input
        second = (first + shift) % len(texts)
        cos = meaning.cosine([texts[i] for i in first], [texts[i] for i in second])
        chrf = [pair_chrf(texts[j], [texts[i]]) for i, j in zip(first, second)]
        ceilings = Ceilings(float(np.quantile(cos, UNRELATED_COSINE_QUANTILE)),
                            float(np.quantile(chrf, UNRELATED_CHRF_QUANTILE)))
    with _CEILING_LOCK:
        _CEILINGS[key] = ceilings
    return ceilings


def ship_ceilings(root: Path, say: Callable[[str], None] = lambda msg: None) -> dict[str, Ceilings]:
    """Measure the ceilings of every language with training inputs in ``root`` and write them to
    :data:`SHIPPED_FILE` with their :func:`ceilings_recipe` (languages with fewer than 20 inputs
    are left out: the check says it could not run there)."""
    global _SHIPPED
    measured: dict[str, Ceilings] = {}
    for lang in ("ru", *edition_inputs.LANGUAGES):
        ceilings = unrelated_ceilings(lang, root)
        if ceilings is not None:
            measured[lang] = ceilings
            say(f"ceilings: {lang} cosine {ceilings.cosine:.4f}, chrF {ceilings.chrf:.4f}")
    data = {"recipe": ceilings_recipe(),
            "languages": {lang: {k: round(v, 6) for k, v in asdict(c).items()} for lang, c in measured.items()}}
    SHIPPED_FILE.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _SHIPPED = None
    return measured


def is_fragment(source: str, output: str, lexicon: frozenset[str] = frozenset()) -> bool:
    """Whether ``output`` only cuts ``source``: it adds no word and keeps
    at most :data:`FRAGMENT_SHARE` of the input's words that are not lexicon words."""
    kept, have = Counter(words(output)), Counter(words(source))
    if not kept or kept - have:  # empty, or a word the input does not have
        return False
    toxic = Counter(w for hit in lexicon_hits(source, lexicon) for w in words(hit)) if lexicon else Counter()
    plain = sum((have - toxic).values())
    return sum(kept.values()) <= FRAGMENT_SHARE * plain


def shows_as_zero(j: float) -> bool:
    """A J that a card shows as 0.00 (two decimals)."""
    return not np.isfinite(j) or round(float(j), 2) <= 0


def _toxicity(source: str, out: str, lexicon: frozenset[str], sta: float | None, sta_input: float | None,
              lang: str) -> str | None:
    """``more_toxic`` where the card flags it (:func:`~detox_core.submissions.explain.flags`),
    ``not_less_toxic`` where its P(neutral) is not above the input's, else None."""
    known = sta is not None and sta_input is not None and bool(np.isfinite(sta) and np.isfinite(sta_input))
    if flags(source, out, lexicon, sta if known else None, sta_input if known else None, lang).more_toxic:
        return "more_toxic"
    return "not_less_toxic" if known and sta <= sta_input else None


def choose_best(source: str, candidates: Sequence[str], j: Sequence[float], lang: str, *,
                sta: Sequence[float] | None = None, sta_input: float | None = None,
                lexicon: frozenset[str] = frozenset()) -> BestChoice:
    """The candidate with the highest J (showing above 0.00) among those that are
    detoxifying rewrites of ``source``.

    Args:
        sta: each candidate's P(neutral), compared with ``sta_input`` (the input's) where both
            are given (a preset whose STA is P(neutral) of a text alone).
        lexicon: the language's toxic words: a candidate adding one is more toxic.
    """
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
    for k in [k for k in rest if k not in excluded]:
        if why := _toxicity(source, candidates[k], lexicon, None if sta is None else sta[k], sta_input, lang):
            excluded[k] = why
        elif is_fragment(source, candidates[k], lexicon):
            excluded[k] = "fragment"
    rest = [k for k in rest if k not in excluded]
    if rest:
        try:
            ceilings = unrelated_ceilings(lang)
            if ceilings is None:
                unchecked.append("unrelated")
            else:
                cos = meaning.cosine([source] * len(rest), [candidates[k] for k in rest])
                excluded.update({k: "unrelated" for k, c in zip(rest, cos)
                                 if c <= ceilings.cosine and pair_chrf(candidates[k], [source]) <= ceilings.chrf})
        except meaning.MeaningUnavailableError:
            unchecked.append("unrelated")
    scores = np.asarray([float(x) if x is not None else np.nan for x in j], dtype=np.float64)
    # A J that shows as 0.00 is no pick: a star there would only say that every rewrite failed. It is
    # told as a reason like the others, so that every rewrite left out of the ranking says why.
    excluded.update({k: "zero" for k in range(n)
                     if k not in excluded and candidates[k].strip() and shows_as_zero(scores[k])})
    eligible = [k for k in range(n) if k not in excluded and candidates[k].strip()]
    best = max(eligible, key=lambda k: (scores[k], -k)) if eligible else None
    return BestChoice(best, excluded, tuple(unchecked))

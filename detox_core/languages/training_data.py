"""What the embedded preset's meaning head learns from, per language: the languages of the STS
Benchmark's translations, and negation words that its training takes out of a rewrite to turn
its claim over (:func:`detox_core.metrics.embedded.negatives.negated`)."""

from __future__ import annotations

#: Negation words removed from a rewrite to turn its claim over (a negative that keeps every
#: other word: the model of meaning alone barely moves), per language with rewrites or STS pairs.
NEGATIONS = {
    "en": (" not ", " never ", "n't "), "ru": (" не ", " нет ", " ни "), "uk": (" не ", " ні "),
    "de": (" nicht ", " nie ", " kein "), "es": (" no ", " nunca "), "it": (" non ", " mai "),
    "fr": (" pas ", " jamais "), "hi": (" नहीं ", " न ", " मत "),
}

#: The languages of the multilingual STS Benchmark (PhilipMay/stsb-multi-mt) the data command fetches.
STS_LANGUAGES = ("de", "en", "es", "fr", "it", "ja", "ru", "zh")

"""Published seq2seq detoxification models, by the language they were trained for.

The Live scoring page suggests a rewrite with the model of the input's language and
offers none where no published model covers the language (a Russian model does not
detoxify German).

- ``s-nlp/ruT5-base-detox``: ruT5-base fine-tuned on RuParaDetox (Dementieva et al.,
  2022, "RUSSE-2022: Findings of the First Russian Detoxification Shared Task"), Russian.
- ``s-nlp/bart-base-detox``: BART-base fine-tuned on ParaDetox (Logacheva et al., 2022,
  ACL), English.
- ``s-nlp/mt0-xl-detox-orpo``: mT0-XL fine-tuned on MultiParaDetox and aligned with ORPO
  (Rykov et al., 2024, "SmurfCat at PAN 2024 TextDetox", arXiv:2407.05449), the nine
  TextDetox 2024 languages; it expects its language's task prompt before the text.
- ``s-nlp/mt0-xl-detox-mpd``: mT0-XL fine-tuned on MultiParaDetox (Moskovskiy et al.,
  2025, "SynthDetoxM", NAACL), de es fr ru, with the prompt ``Detoxify: ``: French here,
  which the 2024 model does not cover.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from detox_core import config
from detox_core.languages import LANGUAGES
from detox_core.models.origin import in_hub_cache


@dataclass(frozen=True)
class Seq2SeqModel:
    """A published detox model for one language.

    Attributes:
        model_id: its hub id.
        prefix: the task prompt it was trained with, put before the input ("" for none).
        cite: where it was published.
        language: the language it detoxifies here.
    """

    model_id: str
    prefix: str = ""
    cite: str = ""
    language: str = ""


_RUT5 = Seq2SeqModel("s-nlp/ruT5-base-detox", "", "Dementieva et al., 2022 (RUSSE-2022)", "ru")
_BART = Seq2SeqModel("s-nlp/bart-base-detox", "", "Logacheva et al., 2022 (ParaDetox)", "en")
_MPD = Seq2SeqModel("s-nlp/mt0-xl-detox-mpd", "Detoxify: ", "Moskovskiy et al., 2025 (SynthDetoxM)", "fr")
_ORPO = "s-nlp/mt0-xl-detox-orpo"
_ORPO_CITE = "Rykov et al., 2024 (TextDetox 2024)"
# The prompts of the model card of s-nlp/mt0-xl-detox-orpo, one per language it was trained on
# (the table of languages' ``seq2seq_prompt``; Russian and English have a model of their own).
_ORPO_MODELS = tuple(Seq2SeqModel(_ORPO, lang.seq2seq_prompt, _ORPO_CITE, code)
                     for code, lang in LANGUAGES.items() if lang.seq2seq_prompt is not None)

#: Language code -> the published seq2seq detox model for it (a dedicated model where one
#: exists: ruT5 for Russian, BART for English; else a multilingual one that covers the language).
SEQ2SEQ_MODELS: dict[str, Seq2SeqModel] = {m.language: m for m in (_RUT5, _BART, *_ORPO_MODELS, _MPD)}


def seq2seq_model(language: str | None) -> Seq2SeqModel | None:
    """The published seq2seq detox model for ``language``, or None when there is none."""
    return SEQ2SEQ_MODELS.get((language or "").lower())


def surely_missing(model_id: str, pool) -> bool:
    """Whether ``model_id`` cannot be had on this server, known without loading it or any
    network call: no local folder (``pool``'s model map or model folder), no copy in the
    Hugging Face cache, and the hub turned off (``HF_HUB_OFFLINE``). Where the hub is on but
    unreachable, the load itself says so (in the hub check's few seconds)."""
    where, local = pool.resolve(model_id)
    if local:
        return not Path(where).is_dir()
    return config.hub_offline() and not in_hub_cache(model_id)

"""Rewrite baselines: the rule-based Delete baseline of RUSSE-2022, and seq2seq models.

Delete (Dementieva et al., 2021): remove every word of the toxic lexicon, then tidy the
spaces and punctuation left behind. It is the shared task's simplest baseline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from detox_core.models import default_pool
from detox_core.text import lexicon_spans

# Closing marks and separators that must not follow a space, in the scripts of the editions:
# Latin/Cyrillic, Arabic (، ؛ ؟), Devanagari (। ॥), Amharic (። ፣ ፤ ፥ ፦ ፧), CJK (，。！？、；：）」』).
# Not "…": in Russian a space before it is usual, and RUSSE-2022's Delete keeps it.
_CLOSING = r",.!?;:)»،؛؟।॥።፣፤፥፦፧，。！？、；：）」』"
_SEPARATORS = r",;:،؛፣፤，、；："
_ENDS = r".!?؟।॥።፧！？。"
_SPACE_BEFORE_PUNCT = re.compile(f"\\s+([{_CLOSING}])")
_REPEATED_SEPARATORS = re.compile(f"([{_SEPARATORS}])(\\s*[{_SEPARATORS}])+")
# "Shut up, moron!" without "moron" is "Shut up!", not "Shut up,!".
_SEPARATOR_BEFORE_END = re.compile(f"[{_SEPARATORS}]\\s*(?=[{_ENDS}])(?!\\.\\.)")  # ",..." stays
# What held only the deleted word: quotes, brackets, Spanish "¡...!" and "¿...?".
# Straight quotes only when nothing is left between them ('"a" "b"' keeps its quotes).
_EMPTY_PAIRS = re.compile("\"\"|“\\s*”|„\\s*“|«\\s*»|\\(\\s*\\)|\\[\\s*\\]|「\\s*」|『\\s*』|（\\s*）|¡\\s*!|¿\\s*\\?")
# "Ты - мудак - и всё" without "мудак" keeps one dash.
_REPEATED_DASHES = re.compile("(\\s[-–—])(?:\\s+[-–—])+(?=\\s|$)")
_LEADING_PUNCT = re.compile(f"^[\\s{_CLOSING}-]+")
_TRAILING_SEPARATORS = re.compile(f"[\\s{_SEPARATORS}-]+$")
_SPACES = re.compile(r"\s{2,}")
# Right-to-left marks are not words: dropping the word they wrapped leaves them alone.
_LONE_DIRECTION_MARKS = re.compile("(?:(?<=\\s)|^)[\u200e\u200f]+(?=\\s|$)")


def delete_baseline(text: str, lexicon: frozenset[str] | set[str], lang: str | None = None) -> str:
    """``text`` without its lexicon words, with spaces and punctuation tidied.

    Words are found by :func:`detox_core.text.lexicon_spans`: whole words in spaced
    scripts; in Chinese and Japanese (``lang`` ``zh``/``ja``, or guessed from the script)
    runs of segmented words, so a deleted word leaves no gap and no space behind. The
    characters around a deleted word stay in their order, so right-to-left text keeps its
    direction; a comma, the Arabic comma or a CJK comma left doubled is written once.
    """
    spans = lexicon_spans(text, lexicon, lang)
    kept, pos = [], 0
    for a, b in spans:
        kept.append(text[pos:a])
        pos = b
    kept.append(text[pos:])
    out = "".join(kept)
    out = _LONE_DIRECTION_MARKS.sub("", out)
    out = _SPACES.sub(" ", out)
    out = _EMPTY_PAIRS.sub("", out)
    out = _REPEATED_DASHES.sub(r"\1", out)
    out = _SPACES.sub(" ", out)
    out = _SPACE_BEFORE_PUNCT.sub(r"\1", out)
    out = _REPEATED_SEPARATORS.sub(r"\1", out)
    out = _SEPARATOR_BEFORE_END.sub("", out)
    out = _LEADING_PUNCT.sub("", out).strip()
    out = _TRAILING_SEPARATORS.sub("", out)
    if out and text[:1].isupper() and out[:1].islower():
        out = out[0].upper() + out[1:]
    return out


class Seq2SeqDetoxifier:
    """Rewrites with a seq2seq detox model (e.g. ``s-nlp/ruT5-base-detox``).

    Loaded through the same folder mapping as the metric models; generation is
    greedy by default so that a suggestion is reproducible.

    Args:
        model_id: hub id or local folder.
        pool: the model pool whose ``model_map`` and device to use.
        num_beams: beams for generation.
        max_new_tokens: cap on the rewrite's length.
        prefix: the task prompt the model was trained with, put before each input
            (:data:`detox_core.rewriters.seq2seq_models.SEQ2SEQ_MODELS`).
    """

    def __init__(self, model_id: str, pool=None, num_beams: int = 1, max_new_tokens: int = 96,
                 prefix: str = "") -> None:
        self.model_id = model_id
        self.prefix = prefix
        self.pool = pool or default_pool()
        self.num_beams = num_beams
        self.max_new_tokens = max_new_tokens

    def rewrite(self, texts: Sequence[str]) -> list[str]:
        loaded = self.pool.get(self.model_id, "seq2seq", role="rewrite")  # without [models]: says to install it
        # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
        import torch

        tok, model = loaded.tokenizer, loaded.model
        batch = tok([self.prefix + t for t in texts], return_tensors="pt", padding=True, truncation=True,
                    max_length=256).to(self.pool.device)
        batch.pop("token_type_ids", None)  # encoder-decoder models take ids and mask only
        with torch.inference_mode():
            out = model.generate(**batch, num_beams=self.num_beams, max_new_tokens=self.max_new_tokens, do_sample=False)
        return [t.strip() for t in tok.batch_decode(out, skip_special_tokens=True)]

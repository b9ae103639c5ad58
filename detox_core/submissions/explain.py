"""Why a rewrite scores as it does: the axis that scored lowest, and flags.

Used by the live scoring and submissions pages; pure functions over score frames.

An explanation says what the metric measured ("the fluency score (FL 0.39) is the lowest
axis"), never a fact about the text: the scores are a model's guesses. It points at the
lowest axis as the reason for a low J only where the preset's axis agrees well enough
with people (:data:`RELIABLE_AUC`); below that it says the axis is the lowest and that
this preset's axis agrees weakly with people, with the measured figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from detox_core.languages.detect import wrong_language
from detox_core.metrics.registry import PRESETS
from detox_core.text import lexicon_hits, same_root, words

#: The least sentence-level ROC-AUC (against people's judgement of the same axis) at which
#: an axis's score is read as a reason for a low J. ROC-AUC is the chance that an output
#: people judged good on the axis scores higher than one they judged bad: 0.5 is a coin
#: flip, and 0.7 is the usual lower bound of "acceptable" discrimination (Hosmer and
#: Lemeshow, Applied Logistic Regression) and the bar this project sets for the embedded
#: J. An axis at 0.56 orders two outputs as people do 56 times in 100, 6 more than chance:
#: its low score is no verdict on a single sentence.
RELIABLE_AUC = 0.7

#: How the explanation names what each axis's number measured.
AXIS_SCORES = {"sta": "non-toxicity score", "sim": "meaning score", "fl": "fluency score"}
#: The human judgement each axis was measured against.
HUMAN_JUDGEMENTS = {"sta": "toxic or not", "sim": "same meaning or not", "fl": "fluent or not"}
FLAGS = {
    "empty": "empty output",
    "copy": "unchanged copy of the input",
    "more_toxic": "more toxic than the input",
    "lexicon": "still contains lexicon words",
    "language": "in another language than the input",
}

RELIABILITY_HELP = (
    f"Why J is what it is: the axis with the lowest score caps J (J = STA x SIM x FL). It is named as the "
    f"reason only where this preset's axis agrees with people at a sentence-level ROC-AUC of at least "
    f"{RELIABLE_AUC:.2f}, measured against the RUSSE-2022 human judgements of each axis. ROC-AUC is the chance "
    "that an output people judged good on the axis scores higher than one they judged bad: 0.50 is a coin flip, "
    f"{RELIABLE_AUC:.2f} the usual lower bound of acceptable agreement. Below it, a low score is what the model "
    "measured, not a verdict on the text: read the rewrite yourself."
)


#: The language of the human judgements the per-axis figures are measured on (RUSSE-2022).
AGREEMENT_LANGUAGE = "ru"


def axis_agreement(preset: str | None, lang: str | None = None) -> dict[str, float]:
    """The preset's measured per-axis sentence-level ROC-AUC against people (axis -> AUC);
    empty for an unknown preset, one not measured, or a pair in another language than the
    judgements' (a Russian figure says nothing of a Tatar sentence)."""
    if not preset or (lang and lang != AGREEMENT_LANGUAGE):  # "" or None: a monolingual (Russian) row
        return {}

    cls = PRESETS.get(preset)
    return dict(getattr(cls, "axis_agreement", {}) or {}) if cls else {}


def limiting_factor(sta: float, sim: float, fl: float) -> str:
    """The axis with the lowest score (the one that caps J), as ``sta``/``sim``/``fl``."""
    values = {"sta": sta, "sim": sim, "fl": fl}
    return min(values, key=lambda k: (np.nan_to_num(values[k], nan=1.0), k))


def explain_j(sta: float, sim: float, fl: float, agreement: Mapping[str, float] | None = None) -> str:
    """One sentence on the axis that caps J, in terms of what was measured.

    Args:
        agreement: axis -> the preset's measured sentence-level ROC-AUC against people
            (:func:`axis_agreement`); an axis without a figure is said to be unmeasured.

    E.g. "J 0.31: the meaning score (SIM 0.42) is the lowest axis and caps J ...";
    "J n/a: no STA score." where an axis has none (an LLM judge's unanswered question, FL
    without references).
    """
    missing = [k.upper() for k, v in (("sta", sta), ("sim", sim), ("fl", fl)) if v is None or v != v]
    if missing:
        return f"J n/a: no {' or '.join(missing)} score."
    j = sta * sim * fl
    axis = limiting_factor(sta, sim, fl)
    value = {"sta": sta, "sim": sim, "fl": fl}[axis]
    name, key = AXIS_SCORES[axis], axis.upper()
    if value >= 0.9:
        return f"J {j:.2f}: no axis scores low (the lowest is the {name}, {key} {value:.2f})."
    auc = (agreement or {}).get(axis)
    if auc is None or auc != auc:
        return (f"J {j:.2f}: the {name} ({key} {value:.2f}) is the lowest axis; how well this preset's {key} "
                "agrees with people has not been measured, so read the rewrite yourself.")
    if auc >= RELIABLE_AUC:
        return (f"J {j:.2f}: the {name} ({key} {value:.2f}) is the lowest axis and caps J (this preset's {key} "
                f"agrees with people's \"{HUMAN_JUDGEMENTS[axis]}\" at ROC-AUC {auc:.2f}).")
    # a figure just under the bar keeps its third decimal: "0.699, under 0.70", never "0.70, under 0.70"
    shown = f"{auc:.2f}" if round(auc, 2) < RELIABLE_AUC else f"{auc:.3f}"
    return (f"J {j:.2f}: the {name} ({key} {value:.2f}) is the lowest axis, but this preset's {key} agrees weakly "
            f"with people (ROC-AUC {shown} against \"{HUMAN_JUDGEMENTS[axis]}\", under {RELIABLE_AUC:.2f}): "
            "it is no verdict on this rewrite.")


@dataclass(frozen=True)
class Flags:
    empty: bool
    copy: bool
    more_toxic: bool
    lexicon: bool
    language: bool = False
    #: the insults the output adds (:func:`added_toxic_words`), which make it ``more_toxic``
    added: tuple[str, ...] = ()

    def labels(self) -> list[str]:
        return [FLAGS[k] for k in FLAGS if getattr(self, k)]


#: How much lower an output's P(neutral) may be than its input's before it reads as more toxic.
MORE_TOXIC_MARGIN = 0.05


def added_toxic_words(source: str, output: str, lexicon: frozenset[str], lang: str | None = None) -> list[str]:
    """The lexicon words (or phrases) ``output`` has beyond those of ``source``.

    Insults are compared as words of ``lang`` (:func:`~detox_core.text.same_root`): the input's
    insult kept in another inflection (Ukrainian "ідіоте" for "ідіот"), with or without an
    article ("الغبي", "غبي") or inside a longer entry ("يا غبي" for "غبي") adds nothing. A phrase
    adds toxicity when one of its words that is an insult on its own is new, or when none of its
    words was in the input's insults ("shut the fuck up" for "shut up" adds "fuck"); the same
    insult written more often than in the input adds the extra ones.
    """
    if not lexicon or not output.strip():
        return []
    had = [w for hit in lexicon_hits(source, lexicon, lang) for w in words(hit)]
    added = []
    for hit in lexicon_hits(output, lexicon, lang):
        parts = words(hit)
        new = []
        for w in parts:
            k = next((i for i, old in enumerate(had) if same_root(w, old, lang)), None)
            if k is None:
                new.append(w)
            else:
                del had[k]  # each of the input's insults covers one of the output's
        if new and (len(new) == len(parts) or any(w in lexicon for w in new)):
            added.append(hit)
    return added


def flags(source: str, output: str, lexicon: frozenset[str], sta_output: float | None = None,
          sta_input: float | None = None, lang: str | None = None) -> Flags:
    """Flags of one rewrite.

    ``more_toxic``: the output adds lexicon words the input does not have
    (:func:`added_toxic_words`, compared as words of ``lang``), or (where both are given) its
    P(neutral) is lower than the input's by more than :data:`MORE_TOXIC_MARGIN`.
    """
    empty = not output.strip()
    copy = not empty and words(source) == words(output)
    hits_out = lexicon_hits(output, lexicon, lang)
    added = tuple(added_toxic_words(source, output, lexicon, lang))
    more_toxic = bool(added)
    if sta_output is not None and sta_input is not None and sta_output == sta_output and sta_input == sta_input:
        more_toxic = more_toxic or (not empty and sta_output < sta_input - MORE_TOXIC_MARGIN)
    return Flags(empty, copy, more_toxic, bool(hits_out), added=added)


def explain_frame(inputs: Sequence[str], outputs: Sequence[str], frame: pd.DataFrame,
                  lexicon: frozenset[str] = frozenset(), preset: str | None = None,
                  langs: Sequence[str] | None = None, language: str | None = None) -> pd.DataFrame:
    """Per-sentence ``limiting`` axis, ``why`` sentence (worded by ``preset``'s measured
    agreement in the pair's language, see :func:`explain_j`) and ``flags`` (comma-separated).
    The language of each pair (``langs``, or ``language`` for all of them) adds the flag of an
    output in another language or script than its input, as Live scoring finds it."""
    by_lang = {lang: axis_agreement(preset, lang) for lang in {None, *(langs or ())}}
    wrong = other_language(inputs, outputs, langs if langs is not None else [language] * len(outputs))
    limiting, why, flag_col = [], [], []
    for k, (src, out, sta, sim, fl) in enumerate(zip(inputs, outputs, frame["sta"], frame["sim"], frame["fl"])):
        limiting.append(limiting_factor(sta, sim, fl))
        why.append(explain_j(sta, sim, fl, by_lang[langs[k] if langs is not None else None]))
        found = flags(src, out, lexicon, lang=langs[k] if langs is not None else language)
        flag_col.append(", ".join(Flags(found.empty, found.copy, found.more_toxic, found.lexicon,
                                        bool(wrong[k])).labels()))
    return pd.DataFrame({"limiting": limiting, "why": why, "flags": flag_col}, index=frame.index)


def other_language(inputs: Sequence[str], outputs: Sequence[str], langs: Sequence[str | None]) -> np.ndarray:
    """True where an output is in another language or script than its input
    (:func:`detox_core.languages.detect.wrong_language`, language by language); False where
    the pair's language is not known."""
    out = np.zeros(len(outputs), dtype=bool)
    codes = pd.Series(list(langs), dtype=object)
    for lang, idx in codes.groupby(codes, dropna=True).groups.items():
        rows = list(idx)
        if not lang or not rows:
            continue
        out[rows] = wrong_language(str(lang), [inputs[k] for k in rows], [outputs[k] for k in rows])
    return out

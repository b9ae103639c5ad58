"""The axis vocabulary, written once: keys, labels, help, human columns.

Detoxification is judged on three axes and their product (Dementieva et al., 2022):
style transfer accuracy (STA: is the rewrite neutral?), content similarity (SIM: does
it keep the meaning?) and fluency (FL: does it read well?); J = STA x SIM x FL per
sentence. chrF, BLEU, ROUGE-L and BERTScore (against the human references) are reported
beside them.

Every page, table and file of the project names the axes through this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from detox_core import languages as _languages


@dataclass(frozen=True)
class Axis:
    """One axis: its key in score frames, its label, what it asks and its human column.

    Attributes:
        key: the score-frame column (``sta``, ``sim``, ``fl``, ``j``, or a reference column:
            ``chrf``, ``bleu``, ``rouge_l``, ``bertscore``).
        label: how pages name it (``STA``).
        short: a few words for a legend (``non-toxic``).
        help: what the number measures and its range (Markdown), for every preset
            unless the preset says otherwise (``Preset.axis_help``).
        human: the column of the human judgements that judges the same thing, or None.
    """

    key: str
    label: str
    short: str
    help: str
    human: str | None = None

    @property
    def human_system(self) -> str:
        """The system-level human column of a leaderboard (``sta_human``)."""
        return f"{self.key}_human"

    @property
    def auto_system(self) -> str:
        """The system-level automatic column of a published leaderboard (``sta_auto``)."""
        return f"{self.key}_auto" if self.key not in REFERENCE_METRIC_COLUMNS else self.key


AXES: tuple[Axis, ...] = (
    Axis("sta", "STA", "non-toxic",
         "Style transfer accuracy: how sure the toxicity classifier is that the rewrite is **neutral**, "
         "P(neutral), from 0 (toxic) to 1 (neutral).", "non-toxicity"),
    Axis("sim", "SIM", "same meaning",
         "Content similarity: how much of the input's **meaning** the rewrite keeps, the cosine of the two "
         "sentences' embeddings, from 0 (unrelated) to 1 (same meaning).", "content"),
    Axis("fl", "FL", "fluency",
         "Fluency: whether the rewrite reads as **correct, natural** text, from 0 to 1, relative to the "
         "input: a rewrite as fluent as its input (or more) scores 1.", "fluency"),
    Axis("j", "J", "joint",
         "Joint score J = STA × SIM × FL for this sentence: high only when the rewrite is neutral, keeps the "
         "meaning **and** reads well, from 0 to 1. A system's J is the mean over its sentences.", "J"),
    Axis("chrf", "chrF", "vs references",
         "chrF: character n-gram F-score of the rewrite against the **references** (human rewrites), from "
         "0 to 1; n/a without references. Rewarding closeness to the references, not detoxification as such."),
    Axis("bleu", "BLEU", "vs references",
         "BLEU: word n-gram precision of the rewrite against all **references** at once (sacrebleu, sentence "
         "level, effective order), from 0 to 1; n/a without references."),
    Axis("rouge_l", "ROUGE-L", "vs references",
         "ROUGE-L: F-score of the longest common word subsequence of the rewrite and its best-matching "
         "**reference** (rouge-score; words of every script, Chinese and Japanese by character), from 0 to 1; "
         "n/a without references."),
    Axis("bertscore", "BERTScore", "vs references",
         "BERTScore F1: contextual token embeddings of the rewrite matched to its best-matching **reference** "
         "(bert-score's defaults: multilingual BERT, layer 9, no idf, no rescaling), from 0 to 1 (unrelated "
         "sentences still score well above 0); n/a without references, and n/a unless BERTScore was turned on "
         "(it needs a model download)."),
)

BY_KEY: dict[str, Axis] = {a.key: a for a in AXES}

#: Score-frame columns of every metric, in the order pages show them.
SCORE_COLUMNS: tuple[str, ...] = tuple(a.key for a in AXES)
#: The reference-based columns (against the human rewrites), computed by
#: :mod:`detox_core.metrics.reference`; the rest are the axes and J.
REFERENCE_METRIC_COLUMNS: tuple[str, ...] = ("chrf", "bleu", "rouge_l", "bertscore")
#: The three axes a preset computes (J is their product, the reference columns are separate).
MODEL_AXES: tuple[str, ...] = ("sta", "sim", "fl")
#: The uncalibrated columns of a score frame.
RAW_COLUMNS: tuple[str, ...] = tuple(f"{k}_raw" for k in (*MODEL_AXES, "j"))

#: Axis key -> label (``{"sta": "STA", ...}``).
LABELS: dict[str, str] = {a.key: a.label for a in AXES}
#: Axis key -> the human judgement column that judges it (``{"sta": "non-toxicity", ...}``).
HUMAN_AXES: dict[str, str] = {a.key: a.human for a in AXES if a.human}
#: The human label columns of a judgements file, in axis order.
HUMAN_LABELS: tuple[str, ...] = tuple(HUMAN_AXES.values())
#: The three human axes that J multiplies.
HUMAN_PARTS: tuple[str, ...] = tuple(HUMAN_AXES[k] for k in MODEL_AXES)
#: System-level human columns of a leaderboard (``sta_human`` ...).
HUMAN_SYSTEM_COLUMNS: tuple[str, ...] = tuple(BY_KEY[k].human_system for k in HUMAN_AXES)
#: System-level human column -> the judgement column it averages (``{"sta_human": "non-toxicity", ...}``).
SYSTEM_FROM_HUMAN: dict[str, str] = {BY_KEY[k].human_system: h for k, h in HUMAN_AXES.items()}
#: Score columns of a published leaderboard file.
LEADERBOARD_SCORES: tuple[str, ...] = (*(BY_KEY[k].auto_system for k in SCORE_COLUMNS), *HUMAN_SYSTEM_COLUMNS)


def label(key: str) -> str:
    """The label of an axis key (``"sta"`` -> ``"STA"``); other names are returned as they are."""
    return LABELS.get(key, key)


def axis_help(key: str) -> str:
    """What the number of axis ``key`` measures and its range (the generic wording)."""
    return BY_KEY[key].help


#: Language code -> name, for the languages of the shared task's editions (read from the table
#: of :mod:`detox_core.languages`; ``hin``: Hinglish, Hindi written in Latin script).
LANGUAGES: dict[str, str] = {code: _languages.LANGUAGES[code].name for code in _languages.EDITION_LANGUAGES}
#: Languages written right to left.
RTL_LANGUAGES: frozenset[str] = _languages.RTL
#: Languages written without spaces between words (word diffs fall back to characters).
UNSPACED_LANGUAGES: frozenset[str] = _languages.UNSPACED
in_language_order = _languages.in_language_order
language_label = _languages.language_label
language_name = _languages.language_name

"""Why a rewrite scores as it does: the factor that limits J, and flags.

Used by the live scoring and submissions pages; pure functions over score frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from detox_core.text import lexicon_hits, words

AXIS_WORDS = {
    "sta": "toxicity: the rewrite still reads as toxic",
    "sim": "meaning: the rewrite drifts from the input",
    "fl": "fluency: the rewrite does not read fluently",
}
FLAGS = {
    "empty": "empty output",
    "copy": "unchanged copy of the input",
    "more_toxic": "more toxic than the input",
    "lexicon": "still contains lexicon words",
}


def limiting_factor(sta: float, sim: float, fl: float) -> str:
    """The axis with the lowest score (the one that caps J), as ``sta``/``sim``/``fl``."""
    values = {"sta": sta, "sim": sim, "fl": fl}
    return min(values, key=lambda k: (np.nan_to_num(values[k], nan=1.0), k))


def explain_j(sta: float, sim: float, fl: float) -> str:
    """One sentence on what limits J, e.g. "J 0.31 is held down by meaning (SIM 0.42)";
    "J n/a: no STA score." where an axis has none (an LLM judge's unanswered question, FL
    without references)."""
    missing = [k.upper() for k, v in (("sta", sta), ("sim", sim), ("fl", fl)) if v is None or v != v]
    if missing:
        return f"J n/a: no {' or '.join(missing)} score."
    j = sta * sim * fl
    axis = limiting_factor(sta, sim, fl)
    value = {"sta": sta, "sim": sim, "fl": fl}[axis]
    if value >= 0.9:
        return f"J {j:.2f}: no axis is weak (lowest: {axis.upper()} {value:.2f})."
    return f"J {j:.2f} is held down by {AXIS_WORDS[axis]} ({axis.upper()} {value:.2f})."


@dataclass(frozen=True)
class Flags:
    empty: bool
    copy: bool
    more_toxic: bool
    lexicon: bool

    def labels(self) -> list[str]:
        return [FLAGS[k] for k in FLAGS if getattr(self, k)]


def flags(source: str, output: str, lexicon: frozenset[str], sta_output: float | None = None,
          sta_input: float | None = None) -> Flags:
    """Flags of one rewrite.

    ``more_toxic`` compares P(neutral) of output and input when both are given (the
    output is less neutral by more than 0.05), else lexicon hits.
    """
    empty = not output.strip()
    copy = not empty and words(source) == words(output)
    hits_out = lexicon_hits(output, lexicon)
    if sta_output is not None and sta_input is not None:
        more_toxic = not empty and sta_output < sta_input - 0.05
    else:
        more_toxic = len(hits_out) > len(lexicon_hits(source, lexicon))
    return Flags(empty, copy, more_toxic, bool(hits_out))


def explain_frame(inputs: Sequence[str], outputs: Sequence[str], frame: pd.DataFrame,
                  lexicon: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Per-sentence ``limiting`` axis, ``why`` sentence and ``flags`` (comma-separated)."""
    limiting, why, flag_col = [], [], []
    for src, out, sta, sim, fl in zip(inputs, outputs, frame["sta"], frame["sim"], frame["fl"]):
        limiting.append(limiting_factor(sta, sim, fl))
        why.append(explain_j(sta, sim, fl))
        flag_col.append(", ".join(flags(src, out, lexicon).labels()))
    return pd.DataFrame({"limiting": limiting, "why": why, "flags": flag_col}, index=frame.index)

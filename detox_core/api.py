"""The library in a notebook, as sacrebleu and COMET are used: one call that scores, a result
that keeps every pair's scores, each system's means with 95% intervals, and a signature.

::

    import detox_core
    result = detox_core.score(inputs, outputs, preset="embedded")
    print(result)            # embedded: J 0.512 [0.478, 0.547] STA ... SIM ... FL ... chrF ... | preset:embedded|...
    result.frame             # one row per pair: system, lang, input, output, sta, sim, fl, j, chrf, ..., signature
    result.systems           # one row per system: n, languages, each mean with its interval, signature
    result.signature         # a string: preset:embedded|version:4|...|lang:en|langid:detected|lib:0.1.0

Each pair's language is given (``lang="de"``, or one code per pair) or detected from its
input (:func:`detox_core.languages.detect.detect`); it is never assumed. A pair whose
language cannot be told, or that the preset does not cover, is refused with a message that
names it. The signature is a string, in the frame as a column too, so it survives
``pd.concat`` and ``merge`` (``DataFrame.attrs`` does not).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from detox_core.languages.detect import pair_languages
from detox_core.errors import DetoxInputError
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS, StepProgress, signature_text
from detox_core.metrics.registry import DEFAULT_PRESET, get_preset, preset_class
from detox_core.models import ModelPool
from detox_core.stats.summary import FIGURES, LABELS, TOO_FEW, summarize
from detox_core.vocab import language_name

#: The columns :attr:`Scores.systems` gives a mean and an interval for, in this order.
SYSTEM_COLUMNS = FIGURES
#: The name of the one system of ``score(inputs, outputs)`` when ``outputs`` is a list.
ONE_SYSTEM = "system"


@dataclass(frozen=True)
class Scores:
    """What :func:`score` returns.

    Attributes:
        frame: one row per pair and system: ``system``, ``lang``, ``input``, ``output``, the
            score columns (``sta``, ``sim``, ``fl``, ``j``, ``chrf``, ...; the uncalibrated
            ``*_raw``) and ``signature``.
        systems: one row per system (its name as the index): ``n``, ``languages``,
            ``averaged`` (over pairs, or over languages as TextDetox ranks: each language's
            mean counts once), and for each of J, STA, SIM, FL and chrF the mean with its 95%
            bootstrap interval (``j``, ``j_low``, ``j_high``, ...), then ``signature``.
        languages: one row per system and language: ``n`` and each score's mean.
        signature: how the scores were made, in one line (:func:`detox_core.metrics.base.signature_text`).
    """

    frame: pd.DataFrame
    systems: pd.DataFrame
    languages: pd.DataFrame
    signature: str

    @property
    def j(self) -> float:
        """The J of the only system (a ``ValueError`` when there are several)."""
        if len(self.systems) != 1:
            raise ValueError(f"{len(self.systems)} systems: read result.systems['j']")
        return float(self.systems["j"].iloc[0])

    def __str__(self) -> str:
        lines = []
        for name, row in self.systems.iterrows():
            figures = "  ".join(_figure(LABELS[col], row, col) for col in SYSTEM_COLUMNS)
            lines.append(f"{name}: {figures}  (n={int(row['n'])}, {row['languages']})")
        return "\n".join(lines) + f"\n{self.signature}"

    __repr__ = __str__


def _figure(label: str, row: pd.Series, col: str) -> str:
    value = row[col]
    if pd.isna(value):
        return f"{label} n/a"
    if pd.isna(row[f"{col}_low"]):
        return f"{label} {value:.3f} (interval {row.get(f'{col}_interval') or TOO_FEW})"
    return f"{label} {value:.3f} [{row[f'{col}_low']:.3f}, {row[f'{col}_high']:.3f}]"


def score(
    inputs: Sequence[str],
    outputs: Sequence[str] | Mapping[str, Sequence[str]],
    references: Sequence[str] | Sequence[Sequence[str]] | None = None,
    *,
    preset: str = DEFAULT_PRESET,
    lang: str | Sequence[str] | None = None,
    calibrated: bool = True,
    models: dict[str, str] | None = None,
    pool: ModelPool | None = None,
    n_boot: int = 1000,
    progress: StepProgress | None = None,
) -> Scores:
    """Score detoxification outputs.

    Args:
        inputs: the toxic texts.
        outputs: one output per input (one system), or system name -> its outputs (a dict,
            or a DataFrame with a column per system; each scored on the same inputs, with
            the same languages and models).
        references: neutral paraphrases, one per input (a string) or several (a list).
        preset: the metric recipe (``detox_core.metrics.preset_names()``); the offline
            ``embedded`` needs no download.
        lang: an ISO code for every pair, one code per pair, or None to detect each pair's
            language from its input (a short input takes the language its script's sure
            pairs agree on; romanised Hindi (``hin``) and Tatar (``tt``) written without its
            own letters cannot be told apart from other languages: give them).
        calibrated: the preset's calibration (when it has one).
        models: role -> model id or local folder, replacing the preset's.
        pool: the model pool (default: the process's).
        n_boot: bootstrap resamples for the intervals.
        progress: ``(step, done, total)`` as the preset goes.

    Raises:
        DetoxInputError: lengths that do not match, a language that cannot be told or that
            the preset does not cover, an unknown preset.
        ScorerUnavailableError: a model of the preset cannot be loaded here.
    """
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or not 1 <= n_boot <= 10000:
        raise DetoxInputError(f"n_boot is the number of bootstrap resamples, 1 to 10,000, not {n_boot!r}")
    if isinstance(inputs, str):  # never one input per character
        raise DetoxInputError(f"inputs is one string ({inputs[:40]!r}): give a list of texts, e.g. [{inputs[:40]!r}]")
    if isinstance(outputs, str):
        raise DetoxInputError(f"outputs is one string ({outputs[:40]!r}): give a list of texts, one per input")
    inputs = _texts(inputs, "input")
    if not inputs:
        raise DetoxInputError("no inputs to score")
    if isinstance(outputs, pd.DataFrame):  # a table of systems: one column each
        outputs = {str(col): outputs[col].tolist() for col in outputs.columns}
    systems = {ONE_SYSTEM: outputs} if not isinstance(outputs, Mapping) else dict(outputs)
    if not systems:
        raise DetoxInputError("no outputs to score")
    _system_names(systems)
    _language_codes(lang)
    for name, outs in systems.items():
        if not isinstance(outs, str) and not hasattr(outs, "__len__"):  # a generator, a map
            outs = systems[name] = list(outs)
        if isinstance(outs, str) or len(outs) != len(inputs):
            found = "a string" if isinstance(outs, str) else f"{len(outs)} outputs"
            raise DetoxInputError(f"expected one output per input ({len(inputs)}) for {name!r}, found {found}")
        systems[name] = _texts(outs, f"output of {name!r}" if isinstance(outputs, Mapping) else "output")
    refs = _references(references, len(inputs))
    preset_class(preset)  # an unknown preset is refused before the languages are detected
    langs, how = pair_languages(inputs, lang)
    check_covered(preset, langs, inputs)
    scorer = get_preset(preset, pool=pool, models=models)
    frames, sig = [], None
    for name, outs in systems.items():
        frame = scorer.score(inputs, outs, refs, calibrated=calibrated, progress=progress, langs=langs)
        sig = frame.attrs["signature"]
        frames.append(pd.concat([pd.DataFrame({"system": name, "lang": langs, "input": inputs,
                                               "output": outs}),
                                 frame[[c for c in (*SCORE_COLUMNS, *RAW_COLUMNS) if c in frame]]], axis=1))
    text = signature_text(sig or {}, lang=",".join(sorted(set(langs))), langid=how)
    table = pd.concat(frames, ignore_index=True)
    table["signature"] = text
    systems, languages = _tables(table, n_boot, text)
    return Scores(table, systems, languages, text)


def check_covered(preset: str, langs: Sequence[str], inputs: Sequence[str]) -> None:
    """Refuse pairs in languages the preset does not cover, naming them and the first such pair.

    Raises:
        DetoxInputError: a pair in a language outside the preset's.
    """
    recipe = preset_class(preset)
    outside = [k for k, code in enumerate(langs) if not recipe.covers(code)]
    if outside:
        codes = sorted({langs[k] for k in outside})
        raise DetoxInputError(
            f"the {preset} preset covers {recipe.coverage()}; {len(outside)} pair(s) are in "
            f"{', '.join(f'{language_name(c)} ({c})' for c in codes)} (the first: pair {outside[0] + 1}, "
            f"{inputs[outside[0]][:60]!r}): choose a preset that covers them or leave them out")


def _texts(texts, what: str) -> list[str]:
    """``texts`` as a list of strings; anything else (None, NaN, a number, a list) is refused
    with its position, never scored as its printed form."""
    out = list(texts)
    for k, text in enumerate(out):
        if not isinstance(text, str):
            raise DetoxInputError(f"{what} {k + 1} is {text!r} ({type(text).__name__}), not a text")
        _unicode(text, f"{what} {k + 1}")
    return out


def _unicode(text: str, what: str) -> None:
    """Refuse a string that is not Unicode text (a lone surrogate, as a broken decode leaves)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise DetoxInputError(f"{what} holds a lone surrogate at character {err.start + 1} "
                              f"({text[err.start]!r}): not valid Unicode text; decode its file as UTF-8") from None


def _system_names(systems: Mapping) -> None:
    for name in systems:
        if not isinstance(name, str) or not name.strip():
            raise DetoxInputError(f"a system's name is {name!r} ({type(name).__name__}): name each system with a "
                                  "text, e.g. {'my-system': outputs}")
        _unicode(name, f"the system name {name[:40]!r}")


def _language_codes(lang) -> None:
    if lang is None or isinstance(lang, str):
        if isinstance(lang, str):
            _unicode(lang, "lang")
        return
    if not hasattr(lang, "__len__") or isinstance(lang, Mapping) or not all(isinstance(c, str) for c in lang):
        raise DetoxInputError(f"lang is {lang!r} ({type(lang).__name__}): give an ISO code ('en'), one code per "
                              "pair, or None to detect each pair's language")
    for k, code in enumerate(lang):
        _unicode(code, f"lang {k + 1}")


def _references(references, n: int) -> list[list[str]] | None:
    if references is None:
        return None
    if not isinstance(references, str) and not hasattr(references, "__len__"):
        references = list(references)
    if isinstance(references, str) or len(references) != n:
        found = "a string" if isinstance(references, str) else f"{len(references)}"
        raise DetoxInputError(f"expected references for each of the {n} inputs, found {found}")
    out = []
    for k, refs in enumerate(references):
        if isinstance(refs, str):
            refs = [refs]
        elif isinstance(refs, (Sequence, np.ndarray)):
            refs = list(refs)
        else:  # None, NaN, a number
            raise DetoxInputError(f"the reference of input {k + 1} is {refs!r} ({type(refs).__name__}), not a text: "
                                  "give a text or a list of texts for every input, or no references at all")
        if not all(isinstance(r, str) for r in refs):
            raise DetoxInputError(f"the references of input {k + 1} are {refs!r}: expected texts")
        for r in refs:
            _unicode(r, f"the reference of input {k + 1}")
        out.append(refs)
    return out


def _tables(table: pd.DataFrame, n_boot: int, signature: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:attr:`Scores.systems` and :attr:`Scores.languages`, from one summary per system."""
    systems, languages = [], []
    for name, part in table.groupby("system", sort=False):
        summary = summarize(part, SYSTEM_COLUMNS, n_boot)
        row = {"system": name, **summary.row()}
        for key in (f"{col}{end}" for col in SYSTEM_COLUMNS for end in ("", "_low", "_high")):
            row.setdefault(key, np.nan)  # a score the preset does not give (no chrF column) reads NaN
        systems.append({**row, "signature": signature})
        for lang, (n, figures) in summary.by_language.items():
            lang_row: dict = {"system": name, "lang": lang, "n": n}
            for col, fig in figures.items():
                lang_row.update({col: fig.mean, f"{col}_low": fig.low, f"{col}_high": fig.high})
                if fig.note:
                    lang_row[f"{col}_interval"] = fig.note
            languages.append(lang_row)
    return pd.DataFrame(systems).set_index("system"), pd.DataFrame(languages)

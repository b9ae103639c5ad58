"""The inputs of ``detox score``: a RUSSE-style file (one input per line, or a corpus TSV), a
TextDetox inputs TSV (``toxic_sentence, lang``), or an edition's split from the data folder,
with their references and each input's language (:class:`ScoringTask`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from detox_core import data, editions
from detox_core.data.io import MAX_FILE_BYTES, read_bytes
from detox_core.data.multilingual import is_multilingual, load_multilingual_inputs
from detox_core.languages.detect import pair_languages
from detox_core.errors import DetoxInputError, UsageError
from detox_core.submissions.service import languages_elsewhere, split_inputs, split_rows
from detox_core.vocab import in_language_order, language_name


def load_inputs(path: Path, references: Path | None = None) -> tuple[list[str], list[list[str]]]:
    """Toxic inputs and their references (RUSSE-style files).

    ``path`` is a corpus TSV (header with ``toxic_comment``; its ``neutral_comment*``
    columns are the references) or a text file with one input per line. ``references``
    is an optional corpus TSV whose paraphrases are the references, row for row.
    """
    text, _ = data.read_text(path)
    first = text.split("\n", 1)[0]
    if "toxic_comment" in first.split("\t"):
        corpus = data.load_corpus(path)
        inputs = corpus["toxic_comment"].tolist()
        refs = data.references(corpus)
    else:
        lines = data.load_submission(path)
        inputs = lines["neutral_sentence"].tolist()
        refs = [[] for _ in inputs]
    if references is not None:
        refs = load_inputs_references(references, len(inputs))
    return inputs, refs


@dataclass
class ScoringTask:
    """What submissions are scored against.

    Attributes:
        label: the inputs in words ("<edition>, <split> split" or a file name).
        inputs, references: RUSSE-style inputs in order (empty for a multilingual task).
        rows: a multilingual split's inputs (:func:`load_multilingual_inputs` frame, file
            order), None for a RUSSE-style task.
        elsewhere: where language codes the split lacks are found (for messages).
        languages: the split's languages, in order (multilingual).
        averages: an edition's named language groups (``avg_p``: the 9 of 2024, ...).
        split: an edition's split (None for inputs from a file).
        langs: a RUSSE-style task's language per input (given, the edition's, or detected).
        langid: how ``langs`` were had: ``given``, ``detected``, or empty for an edition's own.
    """

    label: str
    inputs: list[str] = field(default_factory=list)
    references: list[list[str]] = field(default_factory=list)
    rows: pd.DataFrame | None = None
    elsewhere: dict[str, set[str]] | None = None
    languages: tuple[str, ...] = ()
    averages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    split: str | None = None
    langs: list[str] = field(default_factory=list)
    langid: str = ""

    @property
    def multilingual(self) -> bool:
        return self.rows is not None


def _multilingual_references(rows: pd.DataFrame, path: Path) -> pd.DataFrame:
    """``rows`` with references from a TSV ``toxic_sentence, neutral_sentence, lang`` (the
    hub's format; ``neutral_comment1..3`` too), matched by text and language."""
    refs = load_multilingual_inputs(path)
    keys = {(t.strip(), lang): i for i, (t, lang) in enumerate(zip(rows["toxic_comment"], rows["lang"]))}
    languages = set(rows["lang"])
    out = rows.copy()
    for c in data.PARAPHRASE_COLUMNS:
        out[c] = ""
    for row in refs.itertuples(index=False):
        if row.lang not in languages:
            raise DetoxInputError(f"a reference in {language_name(row.lang)}, but the inputs have no {language_name(row.lang)} "
                                  f"({row.lang}); they have {', '.join(in_language_order(languages))}", path,
                                  int(row.line), "lang")
        hit = keys.get((row.toxic_comment.strip(), row.lang))
        if hit is None:
            raise DetoxInputError(f"this {language_name(row.lang)} input is not in the inputs file: "
                                  f"{row.toxic_comment.strip()[:60]!r}", path, int(row.line), "toxic_sentence")
        for c in data.PARAPHRASE_COLUMNS:
            out.iat[hit, out.columns.get_loc(c)] = getattr(row, c)
    out["n_refs"] = sum((out[c] != "").astype(int) for c in data.PARAPHRASE_COLUMNS)
    return out


def load_task(inputs_path: Path | None = None, references: Path | None = None, *, edition: str | None = None,
              split: str | None = None, lang: str | None = None) -> ScoringTask:
    """The inputs of ``score``: a file (RUSSE-style or multilingual, told by its header) or
    an edition's split (its own inputs and references, from the data folder). The inputs of
    a RUSSE-style file are in ``lang``, or each in the language detected from it, as
    ``detox_core.score`` detects it (:func:`detox_core.languages.detect.pair_languages`).

    Raises:
        DetoxInputError: neither or both given, an unknown split, a bad file.
        DataMissingError: the edition's split has not been fetched.
    """
    if (inputs_path is None) == (edition is None):
        raise UsageError("give the inputs as --inputs FILE or --edition NAME (one of them)")
    if edition is not None:
        ed = editions.get_edition(edition)
        if split is None:
            split = "test" if "test" in ed.splits else next(iter(ed.splits))
        if split not in ed.splits:
            raise UsageError(f"{ed.title} has no split {split!r}; its splits: {', '.join(ed.splits)}")
        whole = ed.load([s for s in ed.available_splits() if s != split] + [split])
        label = f"{ed.name}, {split} split"
        if not ed.multilingual:
            inputs, refs = split_inputs(whole, split)
            if references is not None:
                refs = load_inputs_references(references, len(inputs))
            own = list(ed.languages or ("ru",))
            if lang is not None and lang not in own:
                raise UsageError(f"{ed.title} is in {', '.join(language_name(c) for c in own)}: --lang {lang} "
                                 "does not apply")
            return ScoringTask(label, inputs, refs, split=split, langs=[own[0]] * len(inputs))
        if lang is not None:
            raise UsageError(f"{ed.title}'s inputs have their languages: --lang is for inputs without them")
        rows = split_rows(whole, split).reset_index(drop=True)
        if references is not None:
            rows = _multilingual_references(rows, references)
        return ScoringTask(label, rows=rows, elsewhere=languages_elsewhere(ed.name, split, whole), split=split,
                           languages=tuple(in_language_order(set(rows["lang"]))), averages=dict(ed.averages or {}))
    assert inputs_path is not None
    raw, _ = read_bytes(inputs_path, None, MAX_FILE_BYTES)
    if is_multilingual(raw):
        if lang is not None:
            raise UsageError(f"{inputs_path} has a lang column: --lang is for inputs without one")
        rows = load_multilingual_inputs(inputs_path, split=split or inputs_path.stem)
        if references is not None:
            rows = _multilingual_references(rows, references)
        return ScoringTask(inputs_path.name, rows=rows, languages=tuple(in_language_order(set(rows["lang"]))),
                           elsewhere=_editions_codes())
    inputs, refs = load_inputs(inputs_path, references)
    langs, how = pair_languages(inputs, lang)
    return ScoringTask(inputs_path.name, inputs, refs, langs=langs, langid=how)


def load_inputs_references(path: Path, n: int) -> list[list[str]]:
    """References as a corpus TSV, one row per input."""
    ref_corpus = data.load_corpus(path)
    if len(ref_corpus) != n:
        raise DetoxInputError(f"expected {n} rows of references (one per input), found {len(ref_corpus)}", path)
    return data.references(ref_corpus)


def _editions_codes() -> dict[str, set[str]]:
    """The editions' languages, to name a code an inputs file lacks as another edition's."""
    return {f"{e.title}, not in the inputs file": set(e.languages) for e in editions.editions()
            if getattr(e, "languages", None)}

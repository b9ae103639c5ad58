"""The multilingual formats of the TextDetox editions: inputs with a language column, and
CodaLab submissions matched by text and language.

Data contracts:
    inputs TSV: ``toxic_sentence`` (or ``toxic_comment``) and ``lang``; references, when
        the file has them, in ``neutral_sentence`` (the hub datasets' column) or
        ``neutral_comment1``..``neutral_comment3``.
    submission: the CodaLab TSV ``toxic_sentence, neutral_sentence, lang`` (also inside a
        zip that holds exactly one ``.tsv``, as CodaLab took them). Rows are matched to
        the inputs by text and language, not by position. Every language the submission
        answers must be answered completely, each input exactly once; a language it does
        not answer at all makes it *partial*, which is accepted and said.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from detox_core.data.formats import PARAPHRASE_COLUMNS, max_submission_lines
from detox_core.data.io import (
    MAX_FILE_BYTES,
    Source,
    Table,
    decode_utf8,
    too_long_outputs,
    parse_table,
    read_bytes,
    unzip_if_zip,
    read_text,
    require_columns,
)
from detox_core.errors import DetoxInputError
from detox_core.vocab import LANGUAGES, language_name

#: Problems listed in one message before "and N more".
MAX_LISTED = 8


def _languages(table: Table, column: str, known: Sequence[str]) -> list[str]:
    """The ``lang`` cells, checked against ``known`` (stripped, lower case)."""
    langs = [v.strip().lower() for v in table.column(column)]
    for value, line in zip(langs, table.lines):
        if value not in known:
            raise DetoxInputError(f"unknown language code {value!r}; known: {', '.join(known)}", table.name, line,
                                  column)
    return langs


def is_multilingual(data: bytes) -> bool:
    """Whether a corpus file's header names a ``lang`` column (the multilingual format)."""
    first = data[:65536].split(b"\n", 1)[0].decode("utf-8", errors="replace").lstrip("\ufeff")
    return "lang" in [cell.strip().strip('"').lower() for cell in first.rstrip("\r").split("\t")]


def load_multilingual_inputs(source: Source, *, name: str | None = None, split: str | None = None,
                             languages: Sequence[str] | None = None) -> pd.DataFrame:
    """Load a multilingual inputs file (with references when it has them).

    Args:
        source: path or bytes of the TSV.
        name: file name for messages.
        split: value of the ``split`` column (default: the file stem).
        languages: the language codes allowed (default: every code of
            :data:`detox_core.vocab.LANGUAGES`).

    Returns:
        The corpus frame of :func:`detox_core.data.formats.load_corpus` plus ``lang``:
        ``pair_id`` (``"<split>-<lang>-<n>"``, n counting within the language), ``split``,
        ``lang``, ``index`` (the row's position in the file), ``toxic_comment``,
        ``neutral_comment1..3`` (``""`` = none), ``n_refs`` and ``line``.

    Raises:
        DetoxInputError: a missing column, an empty input, an unknown language code, the
            same input twice in one language (submissions are matched by text).
    """
    text, label = read_text(source, name)
    table = parse_table(text, label, "\t")
    cols = require_columns(table, ["toxic_sentence", "lang"], {"toxic_sentence": ("toxic_comment",)})
    if not table.rows:
        raise DetoxInputError("expected at least one row after the header, found none", label)
    langs = _languages(table, cols["lang"], list(languages or LANGUAGES))
    toxic = table.column(cols["toxic_sentence"])
    seen: dict[tuple[str, str], int] = {}
    for value, lang, line in zip(toxic, langs, table.lines):
        if not value.strip():
            raise DetoxInputError("the toxic sentence is empty", label, line, cols["toxic_sentence"])
        key = (value.strip(), lang)
        if key in seen:
            raise DetoxInputError(f"the same {language_name(lang)} input twice (first on line {seen[key]}): rows of "
                                  "a submission are matched by text and language", label, line,
                                  cols["toxic_sentence"])
        seen[key] = line
    refs = {c: [""] * len(toxic) for c in PARAPHRASE_COLUMNS}
    if "neutral_sentence" in table.header:
        refs["neutral_comment1"] = [v.strip() for v in table.column("neutral_sentence")]
    for c in PARAPHRASE_COLUMNS:
        if c in table.header:
            refs[c] = [v.strip() for v in table.column(c)]
    split = split or Path(label).stem
    counter: dict[str, int] = {}
    pair_ids = []
    for lang in langs:
        pair_ids.append(f"{split}-{lang}-{counter.get(lang, 0)}")
        counter[lang] = counter.get(lang, 0) + 1
    frame = pd.DataFrame({"pair_id": pair_ids, "split": split, "lang": langs, "index": range(len(toxic)),
                          "toxic_comment": toxic, **refs, "line": table.lines})
    frame["n_refs"] = sum((frame[c] != "").astype(int) for c in PARAPHRASE_COLUMNS)
    return frame


@dataclass(frozen=True)
class MultilingualSubmission:
    """A validated multilingual submission.

    Attributes:
        frame: one row per input of the answered languages, in the inputs' order:
            ``input_line`` (the input's line in its file), ``line`` (the submission's),
            ``lang``, ``toxic_sentence``, ``neutral_sentence``.
        languages: the languages answered, in the inputs' order of appearance.
        missing_languages: languages of the inputs the submission does not answer at all.
    """

    frame: pd.DataFrame
    languages: tuple[str, ...]
    missing_languages: tuple[str, ...]

    @property
    def partial(self) -> bool:
        """Whether some languages of the split are not answered."""
        return bool(self.missing_languages)

    def describe(self) -> str:
        """"3 of 9 languages (ar, de, en); not answered: ..." or "all 9 languages"."""
        total = len(self.languages) + len(self.missing_languages)
        if not self.partial:
            return f"all {total} languages"
        return (f"partial: {len(self.languages)} of {total} languages ({', '.join(self.languages)}); not answered: "
                f"{', '.join(self.missing_languages)}")


def _listed(lines: Sequence[int]) -> str:
    """Line numbers in a few words: runs of consecutive lines as ranges ("5404-6003"), at
    most :data:`MAX_LISTED` items, then how many more lines."""
    runs: list[list[int]] = []
    for line in lines:
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    shown = runs[:MAX_LISTED]
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in shown)
    rest = len(lines) - sum(b - a + 1 for a, b in shown)
    return text + (f" and {rest} more" if rest else "")


def _submission_table(source: Source, name: str | None, max_bytes: int = MAX_FILE_BYTES, n_inputs: int | None = None):
    data, label = read_bytes(source, name, max_bytes)
    data, label = unzip_if_zip(data, label, max_bytes)
    raw = decode_utf8(data, label)
    first = raw[:65536].lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if not {c.strip().strip('"').lower() for c in first.split("\t")} & {"toxic_sentence", "neutral_sentence", "lang"}:
        # A plain file of one output per line (RUSSE-2022's format) is no table: said as such,
        # before its quotes are read as broken TSV quoting hundreds of lines down.
        raise DetoxInputError(
            "this edition takes a TSV with a header naming its columns, toxic_sentence, neutral_sentence and lang "
            "(tab-separated: the input, your rewrite of it and its language code, one row per input), as its "
            f"official CodaLab submissions are; line 1 is {first[:80]!r}"
            + ("…" if len(first) > 80 else "") + ", not that header. A plain file of one output per line is "
            "RUSSE-2022's format, which has one language.", label, 1)
    # A submission answers each input once: a file far longer than the split is refused
    # before it is parsed (its rows would cost memory and time and be errors anyway).
    table = parse_table(raw, label, "\t", max_rows=max_submission_lines(n_inputs))
    cols = require_columns(table, ["toxic_sentence", "neutral_sentence", "lang"])
    if not table.rows:
        raise DetoxInputError("expected at least one row after the header, found none", label)
    if (long := too_long_outputs(table.lines, table.column(cols["neutral_sentence"]), label,
                                 "neutral_sentence")) is not None:
        raise long
    return table, cols, label


def answered_splits(source: Source, inputs: pd.DataFrame, *, name: str | None = None,
                    max_bytes: int = MAX_FILE_BYTES) -> dict[str, int]:
    """Which split a CodaLab submission answers: for each split of ``inputs`` (a prepared
    multilingual corpus with ``split``, ``toxic_comment`` and ``lang``), how many of the
    file's rows are inputs of it (matched by text and language, as scoring matches them).

    Raises:
        DetoxInputError: the file is not a readable submission TSV (or zip).
    """
    table, cols, _ = _submission_table(source, name, max_bytes, len(inputs))
    rows = set(zip((t.strip() for t in table.column(cols["toxic_sentence"])),
                   (lang.strip().lower() for lang in table.column(cols["lang"]))))
    counts = {}
    for split, part in inputs.groupby("split", sort=False):
        keys = set(zip(part["toxic_comment"].str.strip(), part["lang"]))
        counts[str(split)] = len(rows & keys)
    return counts


def _code_note(codes: Sequence[str], known: Sequence[str],
               elsewhere: Mapping[str, Collection[str]] | None = None) -> str:
    """Codes that are not this split's, told apart: those of another split or edition,
    named where they are (``elsewhere``: a place, e.g. "the dev split of this edition",
    and its codes, the nearest first), languages of the editions found nowhere near, and
    codes no edition has."""
    placed: dict[str, list[str]] = {}
    for code in codes:
        place = next((label for label, has in (elsewhere or {}).items() if code in has), None)
        if place is not None:
            placed.setdefault(place, []).append(code)
    rest = [c for c in codes if not any(c in group for group in placed.values())]
    editions_codes = [c for c in rest if c in LANGUAGES]
    others = [c for c in rest if c not in LANGUAGES]
    parts = [f"{', '.join(group)} ({', '.join(language_name(c) for c in group)}) "
             f"{'is' if len(group) == 1 else 'are'} in {place}" for place, group in placed.items()]
    if editions_codes:
        parts.append(f"{', '.join(editions_codes)} ({', '.join(language_name(c) for c in editions_codes)}) "
                     f"{'is a language' if len(editions_codes) == 1 else 'are languages'} of the shared task, but "
                     "not of this split (another split or edition has them)")
    if others:
        parts.append(f"{', '.join(repr(c) for c in others)} {'is' if len(others) == 1 else 'are'} no language code "
                     "of the editions")
    return "; ".join(parts) + f"; this split has {', '.join(known)}"


def load_multilingual_submission(source: Source, inputs: pd.DataFrame, *, name: str | None = None,
                                 max_bytes: int = MAX_FILE_BYTES,
                                 elsewhere: Mapping[str, Collection[str]] | None = None) -> MultilingualSubmission:
    """Load and validate a CodaLab submission against a split's multilingual inputs.

    Args:
        source: path or bytes of the TSV, or of a zip holding one TSV.
        inputs: the split's frame of :func:`load_multilingual_inputs` (``toxic_comment``,
            ``lang``, ``line``).
        name: file name for messages.
        elsewhere: where codes this split lacks are found (a place such as "the dev split
            of this edition" and its codes, the nearest first), to name them there.

    Raises:
        DetoxInputError: every problem at once, each with its line: unknown language
            codes, empty outputs, rows that are not inputs of the split, an input answered
            twice, and inputs of an answered language that have no row (named by their
            line in the inputs file).
    """
    table, cols, label = _submission_table(source, name, max_bytes, len(inputs))
    known = sorted(set(inputs["lang"]))
    wanted = {(t.strip(), lang): (i, line) for i, (t, lang, line) in
              enumerate(zip(inputs["toxic_comment"], inputs["lang"], inputs["line"]))}
    problems: list[tuple[int, str]] = []
    bad_lang, empty, unknown, twice = [], [], [], []
    answered: dict[int, tuple[int, str]] = {}
    for toxic, output, lang, line in zip(table.column(cols["toxic_sentence"]), table.column(cols["neutral_sentence"]),
                                         table.column(cols["lang"]), table.lines):
        lang = lang.strip().lower()
        if lang not in known:
            bad_lang.append((line, lang))
            continue
        if not output.strip():
            empty.append(line)
        hit = wanted.get((toxic.strip(), lang))
        if hit is None:
            unknown.append((line, lang, toxic.strip()))
        elif hit[0] in answered:
            twice.append((line, answered[hit[0]][0]))
        else:
            answered[hit[0]] = (line, output.strip())
    if bad_lang:
        codes = sorted({x[1] for x in bad_lang}, key=lambda c: (c not in LANGUAGES, c))
        problems.append((bad_lang[0][0], f"{len(bad_lang)} row(s) in language(s) this split does not have, on "
                         f"line(s) {_listed([x[0] for x in bad_lang])}: {_code_note(codes, known, elsewhere)}"))
    if empty:
        problems.append((empty[0], f"{len(empty)} empty output(s) on line(s) {_listed(empty)}; every input needs a "
                         "non-empty output (copy the input to keep it unchanged)"))
    if unknown:
        line, lang, text = unknown[0]
        problems.append((line, f"{len(unknown)} row(s) that are not inputs of this split, on line(s) "
                         f"{_listed([u[0] for u in unknown])} (first: {language_name(lang)} {text[:60]!r})"))
    if twice:
        problems.append((twice[0][0], f"{len(twice)} input(s) answered twice, on line(s) {_listed([t[0] for t in twice])} "
                         f"(line {twice[0][0]} repeats line {twice[0][1]})"))
    # Plain lists: a pandas lookup per row cost seconds on a 5,400-row split.
    in_langs, in_lines, in_texts = inputs["lang"].tolist(), inputs["line"].tolist(), inputs["toxic_comment"].tolist()
    answered_langs = {in_langs[i] for i in answered}
    covered = [lang for lang in dict.fromkeys(in_langs) if lang in answered_langs]
    covered_set = set(covered)
    missing_rows = [i for i, lang in enumerate(in_langs) if lang in covered_set and i not in answered]
    if missing_rows:
        first = missing_rows[0]
        problems.append((table.lines[-1] if table.lines else 1,
                         f"{len(missing_rows)} input(s) of the answered languages have no row: input line(s) "
                         f"{_listed([int(in_lines[i]) for i in missing_rows])} of the split (first: "
                         f"{language_name(in_langs[first])} {in_texts[first].strip()[:60]!r})"))
    if len(problems) == 1:
        raise DetoxInputError(problems[0][1], label, problems[0][0])
    if problems:
        raise DetoxInputError(f"{len(problems)} problems: " + "; ".join(
            f"({k}) line {line}: {text}" for k, (line, text) in enumerate(problems, 1)), label, problems[0][0])
    order = sorted(answered)
    frame = pd.DataFrame({
        "input_line": [int(in_lines[i]) for i in order],
        "line": [answered[i][0] for i in order],
        "lang": [in_langs[i] for i in order],
        "toxic_sentence": [in_texts[i] for i in order],
        "neutral_sentence": [answered[i][1] for i in order],
    })
    missing = tuple(lang for lang in dict.fromkeys(in_langs) if lang not in covered_set)
    return MultilingualSubmission(frame, tuple(covered), missing)



def official_inputs(references: pd.DataFrame, inputs: pd.DataFrame) -> pd.DataFrame:
    """``references`` (inputs with their references, from another copy) with each input's text
    taken from the task's own ``inputs`` file, row for row within each language, where both hold
    the same number of rows of that language; a language whose counts differ is kept as is.

    The hub's copy of the TextDetox 2024 development set differs from the task's inputs in 26
    texts (a stray quote, spacing): a submission made from the task's file would otherwise be
    refused as "not inputs of this split"."""
    out = references.copy()
    for lang, rows in out.groupby("lang", sort=False).groups.items():
        theirs = inputs.loc[inputs["lang"] == lang, "toxic_comment"]
        if len(theirs) == len(rows):
            out.loc[rows, "toxic_comment"] = theirs.to_numpy()
    return out

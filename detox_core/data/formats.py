"""The file formats of docs/DESIGN.md: loaders that validate and return DataFrames.

Each loader takes a path or the raw bytes of an upload and returns a validated
:class:`pandas.DataFrame` (or a set, for the lexicon). Anything that breaks a data
contract of docs/DESIGN.md raises :class:`~detox_core.errors.DetoxInputError` naming the
file, the 1-based line and, where it applies, the column. Loaders never fix input
silently: an empty output line or a missing column is an error, not a blank score.

Data contracts:
    corpus TSV: ``toxic_comment``, optional ``neutral_comment1``..``neutral_comment3``
        (empty = no paraphrase), optional ``index`` (unique integer ids).
    submission: a text file with one output per line in the order of the inputs
        (the CodaLab format), or a TSV with ``toxic_sentence``, ``neutral_sentence``
        and optional ``lang``.
    human judgements: ``toxic_sentence`` or ``original``, ``neutral_sentence`` or
        ``method_output``, ``participant_name``, ``non-toxicity``, ``content``,
        ``fluency``, ``J``, optional ``neutral_sentence_reference``; CSV or TSV.
    published leaderboard: ``team``, ``method`` and system-level score columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from detox_core.data.io import (
    MAX_FILE_BYTES, MAX_TABLE_ROWS, Source, Table, check_line_count, parse_table, read_text, require_columns,
    too_long_outputs,
)
from detox_core.data.spreadsheet import unescape_cell
from detox_core.errors import DetoxInputError
from detox_core.text import normalise_word
from detox_core.vocab import HUMAN_LABELS, LEADERBOARD_SCORES

PARAPHRASE_COLUMNS = ("neutral_comment1", "neutral_comment2", "neutral_comment3")

# --------------------------------------------------------------------------- corpus


def load_corpus(source: Source, *, name: str | None = None, split: str | None = None, require_references: bool = False) -> pd.DataFrame:
    """Load a parallel corpus TSV.

    Args:
        source: path or bytes of the TSV.
        name: file name for messages (defaults to the path).
        split: value of the ``split`` column (defaults to the file stem).
        require_references: raise when a row has no paraphrase at all.

    Returns:
        One row per toxic sentence: ``pair_id`` (``"<split>-<index>"``), ``split``,
        ``index`` (int), ``toxic_comment``, ``neutral_comment1..3`` (``""`` = none),
        ``n_refs`` and ``line`` (where the record starts in the file).

    Raises:
        DetoxInputError: bad encoding or quoting, missing ``toxic_comment``, an empty
            toxic sentence, a non-integer or duplicate ``index``.
    """
    text, label = read_text(source, name)
    table = parse_table(text, label, "\t")
    require_columns(table, ["toxic_comment"])
    split = split or Path(label).stem
    n = len(table.rows)
    if n == 0:
        raise DetoxInputError("expected at least one row after the header, found none", label)
    cols = {c: (table.column(c) if c in table.header else [""] * n) for c in ("toxic_comment", *PARAPHRASE_COLUMNS)}
    for i, (value, line) in enumerate(zip(cols["toxic_comment"], table.lines)):
        if not value.strip():
            raise DetoxInputError("toxic_comment is empty", label, line, "toxic_comment")
    if "index" in table.header:
        ids: list[int] = []
        first_line: dict[int, int] = {}
        for raw, line in zip(table.column("index"), table.lines):
            try:
                idx = int(raw.strip())
            except ValueError:
                raise DetoxInputError(f"index must be an integer, found {raw!r}", label, line, "index") from None
            if idx in first_line:
                raise DetoxInputError(
                    f"duplicate index {idx} (first used on line {first_line[idx]})", label, line, "index"
                )
            first_line[idx] = line
            ids.append(idx)
    else:
        ids = list(range(n))
    frame = pd.DataFrame(
        {
            "pair_id": [f"{split}-{i}" for i in ids],
            "split": split,
            "index": ids,
            "toxic_comment": cols["toxic_comment"],
            **{c: [v.strip() for v in cols[c]] for c in PARAPHRASE_COLUMNS},
            "line": table.lines,
        }
    )
    frame["n_refs"] = sum((frame[c] != "").astype(int) for c in PARAPHRASE_COLUMNS)
    if require_references:
        bad = frame.index[frame["n_refs"] == 0]
        if len(bad):
            raise DetoxInputError("expected 1-3 neutral paraphrases, found none", label, int(frame.loc[bad[0], "line"]))
    return frame


def references(corpus: pd.DataFrame) -> list[list[str]]:
    """Per row of a corpus frame, its non-empty paraphrases (the references)."""
    return [[r for r in row if r] for row in corpus[list(PARAPHRASE_COLUMNS)].itertuples(index=False)]


# --------------------------------------------------------------------------- submissions


def _is_tsv_submission(text: str, label: str, inputs: Sequence[str] | None = None) -> bool:
    """A TSV with a header, rather than plain text with one output per line.

    A ``neutral_sentence`` column says so; so does a ``.tsv`` name with a tab in the
    first line, and a file whose every line has the same number (one or more) of tabs
    and one line more than there are inputs (a header with other names). Such a file
    is then checked for its columns, and a wrong header is named as such instead of
    being read as shifted outputs.
    """
    first = text.split("\n", 1)[0].lstrip("\ufeff")
    fields = [f.strip() for f in first.split("\t")]
    if "neutral_sentence" in fields or (label.lower().endswith(".tsv") and len(fields) > 1):
        return True
    if len(fields) < 2 or inputs is None:
        return False
    lines = _strip_trailing_blank(text.split("\n"))
    return len(lines) == len(inputs) + 1 and all(ln.count("\t") == len(fields) - 1 for ln in lines)


def _strip_trailing_blank(lines: list[str]) -> list[str]:
    """Lines without the empty (or blank) lines at the end of the file: they are not outputs."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


#: Lines a submission may have beyond its inputs (a header, blank lines at the end).
SUBMISSION_SLACK_LINES = 1_000


def max_submission_lines(n_inputs: int | None) -> int:
    """The most lines read of a submission for ``n_inputs`` inputs: four times the inputs
    and some (a file of another, larger split is still read, to say which split it
    answers), never more than :data:`MAX_TABLE_ROWS`."""
    return MAX_TABLE_ROWS if n_inputs is None else min(MAX_TABLE_ROWS, 4 * n_inputs + SUBMISSION_SLACK_LINES)


def load_submission(
    source: Source,
    *,
    inputs: Sequence[str] | None = None,
    name: str | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> pd.DataFrame:
    """Load a system's outputs.

    Two formats are accepted: plain text with one output per line in the order of the
    inputs (CodaLab), or a TSV with ``toxic_sentence``, ``neutral_sentence`` and
    optional ``lang``. Empty lines at the end of the file are not outputs; ``\\r\\n`` line
    ends are fine.

    Args:
        source: path or bytes.
        inputs: the toxic inputs the outputs belong to. When given, the number of
            outputs must match, and a TSV's ``toxic_sentence`` must repeat them in order.
        name: file name for messages.

    Returns:
        ``line``, ``toxic_sentence`` (from the TSV or ``inputs``; ``None`` when
        neither is known), ``neutral_sentence`` and, for TSV, ``lang``.

    Raises:
        DetoxInputError: empty file, wrong encoding, empty output lines (all are
            listed), wrong line count, a TSV whose inputs differ from ``inputs``.
    """
    text, label = read_text(source, name, max_bytes)
    # One output per input: a file far longer than the inputs is refused before it is split.
    check_line_count(text, label, max_submission_lines(None if inputs is None else len(inputs)))
    tsv = _is_tsv_submission(text, label, inputs)
    if tsv:
        table = parse_table("\n".join(_strip_trailing_blank(text.split("\n"))) + "\n", label, "\t")
        cols = require_columns(table, ["toxic_sentence", "neutral_sentence"])
        toxic = [v for v in table.column(cols["toxic_sentence"])]
        outputs = [v.strip() for v in table.column(cols["neutral_sentence"])]
        lines = table.lines
        lang = table.column("lang") if "lang" in table.header else None
    else:
        raw_lines = _strip_trailing_blank(text.split("\n"))
        outputs = [ln.rstrip("\r") for ln in raw_lines]
        lines = list(range(1, len(outputs) + 1))
        toxic = list(inputs) if inputs is not None and len(inputs) == len(outputs) else None
        lang = None
    # Every problem is collected, so one upload reports all of them at once.
    problems: list[DetoxInputError] = []
    empty = [ln for ln, out in zip(lines, outputs) if not out.strip()]
    if (long := too_long_outputs(lines, outputs, label, "neutral_sentence" if tsv else None)) is not None:
        problems.append(long)
    if inputs is not None and len(outputs) != len(inputs):
        shift = _first_shift(outputs, inputs)
        hint = f"; outputs look shifted from line {shift} on (that line resembles another input)" if shift else ""
        problems.append(DetoxInputError(
            f"expected {len(inputs)} outputs (one per input, same order), found {len(outputs)}{hint}",
            label,
            shift or (len(outputs) if len(outputs) < len(inputs) else len(inputs) + 1),
        ))
    if empty:
        listed = ", ".join(map(str, empty[:20])) + (f" and {len(empty) - 20} more" if len(empty) > 20 else "")
        problems.append(DetoxInputError(
            f"{len(empty)} empty output(s) on line(s) {listed}; every input needs a non-empty output "
            "(copy the input to keep it unchanged)",
            label,
            empty[0],
        ))
    if inputs is not None and toxic is not None and tsv:
        wrong = [(i, ln) for i, (ln, given, expected) in enumerate(zip(lines, toxic, inputs)) if given.strip() != expected.strip()]
        if wrong:
            i, ln = wrong[0]
            more = f" ({len(wrong) - 1} more rows differ)" if len(wrong) > 1 else ""
            problems.append(DetoxInputError(
                f"toxic_sentence differs from input {i + 1} of the test set: "
                f"expected {inputs[i].strip()[:60]!r}, found {toxic[i].strip()[:60]!r}{more}",
                label, ln, "toxic_sentence",
            ))
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise DetoxInputError(
            f"{len(problems)} problems: " + "; ".join(
                f"({k}) line {p.line}: {p.problem}" for k, p in enumerate(problems, 1)),
            label, problems[0].line,
        )
    frame = pd.DataFrame({"line": lines, "toxic_sentence": toxic if toxic is not None else None, "neutral_sentence": outputs})
    if lang is not None:
        frame["lang"] = [v.strip() for v in lang]
    return frame


def _char_ngrams(text: str, n: int = 3) -> set[str]:
    t = f" {text.lower()} "
    return {t[i : i + n] for i in range(max(len(t) - n + 1, 1))}


def _first_shift(outputs: Sequence[str], inputs: Sequence[str]) -> int | None:
    """Guess the first output line that pairs with a neighbouring input, not its own.

    Detox outputs keep most of their input's characters, so an output that suddenly
    resembles input i+1 (or i-1) better than input i marks a missing (or extra) line.
    Returns a 1-based line, or None when no shift is visible.
    """

    def sim(a: str, b: str) -> float:
        x, y = _char_ngrams(a), _char_ngrams(b)
        return len(x & y) / max(len(x | y), 1)

    n = min(len(outputs), len(inputs))
    offset = 1 if len(outputs) < len(inputs) else -1
    for i in range(n):
        j = i + offset
        if not 0 <= j < len(inputs):
            continue
        own, other = sim(outputs[i], inputs[i]), sim(outputs[i], inputs[j])
        if other > own + 0.2:
            # Confirm on the next lines so one odd pair does not count as a shift.
            ahead = [k for k in range(i + 1, min(i + 4, n)) if 0 <= k + offset < len(inputs)]
            if all(sim(outputs[k], inputs[k + offset]) >= sim(outputs[k], inputs[k]) for k in ahead):
                return i + 1
    return None


# --------------------------------------------------------------------------- human judgements

HUMAN_ALIASES = {
    "toxic_sentence": ("original",),
    "neutral_sentence": ("method_output",),
}


def load_human_judgements(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Load human judgements in the ``textdetox/humaneval_textdetox_ru`` schema.

    Returns:
        Canonical columns ``toxic_sentence``, ``neutral_sentence``,
        ``participant_name``, ``non-toxicity``, ``content``, ``fluency``, ``J``
        (floats in [0, 1]), ``neutral_sentence_reference`` (``""`` when absent),
        ``line``, and every other column of the file (e.g. precomputed metric scores,
        as floats when numeric).

    Raises:
        DetoxInputError: missing columns, empty texts, labels that are not numbers
            in [0, 1].
    """
    text, label = read_text(source, name)
    table = parse_table(text, label)
    cols = require_columns(table, ["toxic_sentence", "neutral_sentence", "participant_name", *HUMAN_LABELS], HUMAN_ALIASES)
    data: dict[str, list] = {}
    for canon, actual in cols.items():
        values = table.column(actual)
        if canon in HUMAN_LABELS:
            data[canon] = _floats(values, table, actual, lo=0.0, hi=1.0)
        else:
            for v, ln in zip(values, table.lines):
                if not v.strip():
                    raise DetoxInputError(f"{actual} is empty", label, ln, actual)
            data[canon] = [unescape_cell(v) for v in values]  # an export of the app read back whole
    ref_col = "neutral_sentence_reference"
    data[ref_col] = ([unescape_cell(v) for v in table.column(ref_col)] if ref_col in table.header
                     else [""] * len(table.rows))
    frame = pd.DataFrame(data)
    frame["line"] = table.lines
    used = set(cols.values()) | {ref_col}
    for extra in table.header:
        if extra in used:
            continue
        frame[extra] = _extra_column(table, extra)
    return frame


def _extra_column(table: Table, col: str) -> pd.Series | list[str]:
    """A further column of a judgements file: numbers (a metric's scores) when most of its
    cells are numbers, else text.

    Raises:
        DetoxInputError: a number column with a cell that is not a finite number (the
            first one is named: a typo there would silently drop the metric).
    """
    values = table.column(col)
    numeric = pd.to_numeric(pd.Series(values).replace("", None), errors="coerce")
    filled = [(v, ln, x) for v, ln, x in zip(values, table.lines, numeric) if v.strip()]
    n_numbers = sum(1 for _, _, x in filled if x == x)
    if not filled or n_numbers * 2 <= len(filled):
        return [unescape_cell(v) for v in values]  # a text column (comments, ids)
    for v, ln, x in filled:
        if x != x:
            raise DetoxInputError(f"expected a number in this metric column, found {v.strip()[:40]!r}", table.name,
                                  ln, col)
        if x in (float("inf"), float("-inf")):
            raise DetoxInputError(f"expected a finite number, found {v.strip()!r}", table.name, ln, col)
    return numeric


def _float_cell(value: str, name: str, line: int, col: str, lo: float, hi: float) -> float:
    try:
        x = float(value)
    except ValueError:
        raise DetoxInputError(f"expected a number, found {value!r}", name, line, col) from None
    if not lo <= x <= hi:  # also rejects NaN
        raise DetoxInputError(f"expected a number in [{lo:g}, {hi:g}], found {value!r}", name, line, col)
    return x


def _floats(values: Sequence[str], table: Table, col: str, lo: float, hi: float) -> list[float]:
    return [_float_cell(v, table.name, ln, col, lo, hi) for v, ln in zip(values, table.lines)]


# --------------------------------------------------------------------------- leaderboard



def load_leaderboard(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Load a published leaderboard: ``team``, ``method`` and score columns.

    Score columns are those of :data:`LEADERBOARD_SCORES` that are present (at least
    one is required); each is a number in [0, 1] or empty (not reported).
    """
    text, label = read_text(source, name)
    table = parse_table(text, label)
    require_columns(table, ["team", "method"])
    scores = [c for c in LEADERBOARD_SCORES if c in table.header]
    if not scores:
        raise DetoxInputError(
            f"expected at least one score column of {', '.join(LEADERBOARD_SCORES)}; the header has "
            f"{', '.join(table.header)}",
            label, 1,
        )
    frame = pd.DataFrame({"team": table.column("team"), "method": table.column("method")})
    for c in scores:
        frame[c] = [
            _float_cell(v, label, ln, c, 0.0, 1.0) if v.strip() else float("nan")
            for v, ln in zip(table.column(c), table.lines)
        ]
    frame["line"] = table.lines
    return frame


# --------------------------------------------------------------------------- lexicon


def load_lexicon(source: Source, *, name: str | None = None) -> frozenset[str]:
    """Load a word list (one word form per line) as normalised single words.

    Multi-word entries are skipped: matching is word by word.
    """
    text, label = read_text(source, name)
    words = {normalise_word(w.strip()) for w in text.split("\n")}
    words = {w for w in words if w and " " not in w}
    if not words:
        raise DetoxInputError("expected one word per line, found none", label)
    return frozenset(words)


def load_lines(source: Source, *, name: str | None = None) -> list[str]:
    """Load a plain list of sentences, one per non-empty line."""
    text, _ = read_text(source, name)
    return [ln.rstrip("\r") for ln in text.split("\n") if ln.strip()]

"""Loading and validation of every file the app reads.

Each loader takes a path or the raw bytes of an upload and returns a validated
:class:`pandas.DataFrame` (or a set, for the lexicon). Anything that breaks a data
contract of DESIGN.md raises :class:`~detox_core.errors.DetoxInputError` naming the
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

import csv
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Union

import pandas as pd

from detox_core.errors import DetoxInputError

Source = Union[str, os.PathLike, bytes, IO[bytes]]

#: Largest file a loader accepts. A full test submission is ~100 KB; the biggest
#: shipped file (the lexicon) is ~4 MB.
MAX_FILE_BYTES = 50 * 1024 * 1024

REFERENCE_COLUMNS = ("neutral_comment1", "neutral_comment2", "neutral_comment3")
PROJECT_ROOT = Path(__file__).resolve().parent.parent


class DataMissingError(FileNotFoundError):
    """A dataset file that has not been fetched yet."""


# --------------------------------------------------------------------------- reading


def _read_bytes(source: Source, name: str | None, max_bytes: int) -> tuple[bytes, str]:
    """Return the raw bytes of ``source`` and the name to use in messages."""
    if isinstance(source, (bytes, bytearray)):
        data, label = bytes(source), name or "<upload>"
    elif hasattr(source, "read"):
        data = source.read()  # type: ignore[union-attr]
        label = name or getattr(source, "name", None) or "<upload>"
    else:
        path = Path(source)
        label = name or str(path)
        if not path.is_file():
            raise DetoxInputError("file not found", path=label)
        size = path.stat().st_size
        if size > max_bytes:
            raise DetoxInputError(
                f"file is {size / 2**20:.1f} MiB, larger than the {max_bytes / 2**20:.0f} MiB "
                "limit for this kind of file",
                path=label,
            )
        data = path.read_bytes()
    if len(data) > max_bytes:
        raise DetoxInputError(
            f"file is {len(data) / 2**20:.1f} MiB, larger than the "
            f"{max_bytes / 2**20:.0f} MiB limit for this kind of file",
            path=label,
        )
    return data, str(label)


def decode_utf8(data: bytes, name: str) -> str:
    """Decode UTF-8 (a leading BOM is dropped), locating the first bad byte.

    Raises:
        DetoxInputError: on an empty file, bytes that are not UTF-8 or a NUL byte (no
            text contains one, and databases refuse it), with the line and column of
            the first bad byte.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise DetoxInputError("file is empty", path=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        line_start = data.rfind(b"\n", 0, err.start) + 1
        column = len(data[line_start : err.start].decode("utf-8", errors="replace")) + 1
        guess = ""
        try:
            data.decode("cp1251")
            guess = " (it decodes as Windows-1251: re-save the file as UTF-8)"
        except UnicodeDecodeError:
            pass
        raise DetoxInputError(
            f"expected UTF-8 text, found byte 0x{data[err.start]:02x} that is not UTF-8{guess}",
            path=name,
            line=line,
            column=column,
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        raise DetoxInputError("a NUL character (byte 0x00): text files have none; the file is binary or damaged",
                              path=name, line=line, column=column)
    return text


def read_text(source: Source, name: str | None = None, max_bytes: int = MAX_FILE_BYTES) -> tuple[str, str]:
    """Read a UTF-8 text file or upload; returns ``(text, display_name)``."""
    data, label = _read_bytes(source, name, max_bytes)
    return decode_utf8(data, label), label


def write_text_atomic(path: Path, content: str) -> None:
    """Write ``content`` to ``path`` through a temporary file beside it, so a reader never
    sees half a file and a failure leaves the old file (or none)."""
    import tempfile

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@dataclass(frozen=True)
class Table:
    """A parsed delimited file: header, records and the line each record starts on."""

    name: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def column(self, col: str) -> list[str]:
        i = self.header.index(col)
        return [r[i] for r in self.rows]


def _sniff_delimiter(text: str, name: str) -> str:
    first = text.split("\n", 1)[0]
    if name.lower().endswith(".tsv") or "\t" in first:
        return "\t"
    return ","


def parse_table(text: str, name: str, delimiter: str | None = None) -> Table:
    """Parse CSV/TSV text strictly, keeping the line number of every record.

    Quoting follows RFC 4180 (a quoted field may span lines; ``""`` is a quote).

    Raises:
        DetoxInputError: broken quoting (an unclosed quote, text after a closing
            quote), a record with the wrong number of fields, an empty or duplicate
            header name.
    """
    delimiter = delimiter or _sniff_delimiter(text, name)
    sep_name = "tab" if delimiter == "\t" else repr(delimiter)
    # A field may be as long as a whole file the app accepts (csv's default limit of
    # 131,072 characters was reported as broken quoting).
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FILE_BYTES))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    prev_line = 0
    source_lines = text.split("\n")
    try:
        for record in reader:
            start = prev_line + 1
            prev_line = reader.line_num
            if not record or (len(record) == 1 and record[0].strip() == ""):
                continue  # blank line
            if header is None:
                header = [h.strip() for h in record]
                header[0] = header[0].lstrip("\ufeff")
                seen: dict[str, int] = {}
                for i, h in enumerate(header, 1):
                    if not h:
                        raise DetoxInputError("header has an empty column name", name, start, i)
                    if h in seen:
                        raise DetoxInputError(
                            f"column name '{h}' appears twice in the header (columns {seen[h]} and {i})",
                            name, start, i,
                        )
                    seen[h] = i
                continue
            if len(record) != len(header):
                spans = reader.line_num - start
                hint = ""
                if spans > 0 and any(delimiter in f or "\n" in f for f in record):
                    hint = (
                        f"; a quoted field runs from line {start} to line {reader.line_num}: "
                        "a quote is probably not closed"
                    )
                raise DetoxInputError(
                    f"expected {len(header)} {sep_name}-separated fields as in the header, "
                    f"found {len(record)}{hint}",
                    name, start,
                )
            for i, field in enumerate(record):
                if delimiter in field and "\n" in field:
                    raise DetoxInputError(
                        f"the quoted field in column '{header[i]}' runs from line {start} to line "
                        f"{reader.line_num} and swallows {sep_name} separators: a quote is not closed",
                        name, start, header[i],
                    )
            rows.append(record)
            lines.append(start)
    except csv.Error as err:
        line_no = max(reader.line_num, 1)
        msg = str(err)
        if "unexpected end of data" in msg or "EOF" in msg:
            raise DetoxInputError(
                f"a quote opened on line {prev_line + 1} is never closed (the file ends inside it)",
                name, prev_line + 1,
            ) from None
        column = None
        text_line = source_lines[line_no - 1] if line_no - 1 < len(source_lines) else ""
        m = re.search(r'[^' + re.escape(delimiter) + r'\n]"[^"' + re.escape(delimiter) + r'\r\n]', text_line)
        if m:
            column = m.start() + 2
        raise DetoxInputError(
            f"broken quoting ({msg}): a field that starts with a quote must end with one; "
            'write a literal quote inside a quoted field as ""',
            name, line_no, column,
        ) from None
    if header is None:
        raise DetoxInputError("file has no header line", name)
    return Table(name=name, header=header, rows=rows, lines=lines)


def _require_columns(table: Table, required: Sequence[str], alternatives: dict[str, Sequence[str]] | None = None) -> dict[str, str]:
    """Map each required column to the name present in the table, or raise."""
    found: dict[str, str] = {}
    missing = []
    for col in required:
        names = [col, *((alternatives or {}).get(col, ()))]
        present = [n for n in names if n in table.header]
        if present:
            found[col] = present[0]
        else:
            missing.append(" or ".join(f"'{n}'" for n in names))
    if missing:
        raise DetoxInputError(
            f"missing column(s) {', '.join(missing)}; the header has "
            f"{', '.join(repr(h) for h in table.header)}",
            table.name, 1,
        )
    return found


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
    _require_columns(table, ["toxic_comment"])
    split = split or Path(label).stem
    n = len(table.rows)
    if n == 0:
        raise DetoxInputError("expected at least one row after the header, found none", label)
    cols = {c: (table.column(c) if c in table.header else [""] * n) for c in ("toxic_comment", *REFERENCE_COLUMNS)}
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
            **{c: [v.strip() for v in cols[c]] for c in REFERENCE_COLUMNS},
            "line": table.lines,
        }
    )
    frame["n_refs"] = sum((frame[c] != "").astype(int) for c in REFERENCE_COLUMNS)
    if require_references:
        bad = frame.index[frame["n_refs"] == 0]
        if len(bad):
            raise DetoxInputError("expected 1-3 neutral paraphrases, found none", label, int(frame.loc[bad[0], "line"]))
    return frame


def references(corpus: pd.DataFrame) -> list[list[str]]:
    """Per row of a corpus frame, its non-empty paraphrases (the references)."""
    return [[r for r in row if r] for row in corpus[list(REFERENCE_COLUMNS)].itertuples(index=False)]


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
    tsv = _is_tsv_submission(text, label, inputs)
    if tsv:
        table = parse_table("\n".join(_strip_trailing_blank(text.split("\n"))) + "\n", label, "\t")
        cols = _require_columns(table, ["toxic_sentence", "neutral_sentence"])
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
HUMAN_LABELS = ("non-toxicity", "content", "fluency", "J")


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
    cols = _require_columns(table, ["toxic_sentence", "neutral_sentence", "participant_name", *HUMAN_LABELS], HUMAN_ALIASES)
    data: dict[str, list] = {}
    for canon, actual in cols.items():
        values = table.column(actual)
        if canon in HUMAN_LABELS:
            data[canon] = _floats(values, table, actual, lo=0.0, hi=1.0)
        else:
            for v, ln in zip(values, table.lines):
                if not v.strip():
                    raise DetoxInputError(f"{actual} is empty", label, ln, actual)
            data[canon] = values
    ref_col = "neutral_sentence_reference"
    data[ref_col] = table.column(ref_col) if ref_col in table.header else [""] * len(table.rows)
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
        return values  # a text column (comments, ids)
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

LEADERBOARD_SCORES = ("sta_auto", "sim_auto", "fl_auto", "j_auto", "chrf", "sta_human", "sim_human", "fl_human", "j_human")


def load_leaderboard(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Load a published leaderboard: ``team``, ``method`` and score columns.

    Score columns are those of :data:`LEADERBOARD_SCORES` that are present (at least
    one is required); each is a number in [0, 1] or empty (not reported).
    """
    text, label = read_text(source, name)
    table = parse_table(text, label)
    _require_columns(table, ["team", "method"])
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


def normalise_word(word: str) -> str:
    """Lower-case and fold ``ё`` into ``е``, as Russian text is written both ways."""
    return word.lower().replace("ё", "е")


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


# --------------------------------------------------------------------------- datasets


@dataclass(frozen=True)
class Dataset:
    """A named collection of files under the data directory."""

    name: str
    title: str
    short: str
    language: str
    splits: dict[str, tuple[str, ...]]  # split -> candidate files, best first
    lexicon: str | None = None

    def split_path(self, split: str, root: Path | None = None) -> Path:
        """The best available file of ``split``; raises DataMissingError if none."""
        base = (root or data_dir()) / self.name
        for rel in self.splits[split]:
            if (base / rel).is_file():
                return base / rel
        raise DataMissingError(
            f"{self.title}: no file for split '{split}' in {base} (looked for "
            f"{', '.join(self.splits[split])}). Run `python -m detox_core fetch-data`."
        )

    def available_splits(self, root: Path | None = None) -> list[str]:
        out = []
        for split in self.splits:
            try:
                self.split_path(split, root)
                out.append(split)
            except DataMissingError:
                pass
        return out


DATASETS: dict[str, Dataset] = {
    "russe2022": Dataset(
        name="russe2022",
        title="RUSSE-2022 (Russian)",
        short="RUSSE-2022",
        language="ru",
        splits={
            "train": ("train.tsv",),
            "dev": ("dev.tsv",),
            # The test inputs with their reference when it has been fetched.
            "test": ("test_references.tsv", "test.tsv"),
        },
        lexicon="lexicon/toxic_vocab.txt",
    ),
}


def data_dir() -> Path:
    """Where datasets and trained models live: ``$DETOX_DATA_DIR`` or ``<project>/data``."""
    env = os.environ.get("DETOX_DATA_DIR")
    return Path(env) if env else PROJECT_ROOT / "data"


def load_dataset(dataset: str, splits: Sequence[str] | None = None, root: Path | None = None) -> pd.DataFrame:
    """Load and concatenate the chosen splits of a registered dataset.

    Raises:
        DataMissingError: a requested split has not been fetched.
        KeyError: unknown dataset name.
    """
    ds = DATASETS[dataset]
    frames = []
    for split in splits or list(ds.splits):
        path = ds.split_path(split, root)
        frames.append(load_corpus(path, split=split))
    return pd.concat(frames, ignore_index=True)


def load_dataset_lexicon(dataset: str, root: Path | None = None) -> frozenset[str]:
    """The dataset's toxic lexicon, or an empty set when it is not fetched."""
    ds = DATASETS[dataset]
    if ds.lexicon is None:
        return frozenset()
    path = (root or data_dir()) / ds.name / ds.lexicon
    return load_lexicon(path) if path.is_file() else frozenset()

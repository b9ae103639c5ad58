"""The held-out registry: every text that nothing in the project may learn from.

One home for what "held out" means. A text is held out when it is in any of these sets
(:func:`held_out`), matched by :func:`normalise` (Unicode NFKC, case, spaces,
punctuation at the ends), never by exact text:

- every edition's **test split**: each candidate file of its ``test`` split (inputs and
  references) and the files it names in :attr:`Edition.held_out` (the 2025 test inputs of the
  new languages, the people-marked toxic spans of the 2024 test inputs);
- its **judged samples**: the human judgements file (inputs, outputs, references), the
  meta-evaluation sample's pairs (inputs and outputs) and every LLM judge's label file that
  carries its own texts;
- any **other split whose texts are another edition's test**: a split file most of whose
  inputs are held out above is held out whole (TextDetox 2024's development set, with its hub
  references, is TextDetox 2025's test set), so a near-copy that normalising misses goes too.

Every training set goes through :meth:`HeldOut.keep` (:mod:`detox_core.metrics.embedded.training`,
:mod:`detox_core.editions.inputs`, the lexicon builder), and ``tests/editions/test_held_out.py``
asserts that no training set shares a text with any held-out set.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from detox_core import config
from detox_core.data.io import decode_utf8, parse_table
from detox_core.editions.registry import editions
from detox_core.errors import DetoxInputError

#: Columns that hold a sentence in the editions' files (inputs, outputs, references).
TEXT_COLUMNS = ("toxic_sentence", "neutral_sentence", "neutral_sentence_reference", "toxic_comment",
                "neutral_comment1", "neutral_comment2", "neutral_comment3", "text", "Sentence",
                "original", "method_output")  # the last two: the human judgements' (hub schema)
#: A split's rows of one language whose inputs are in another held-out set in at least this share are held out whole.
WHOLE_SPLIT_SHARE = 0.5


def _is_end_punctuation(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS" or ch.isspace()


def normalise(text: str) -> str:
    """How two texts are matched: Unicode NFKC, case folded, runs of spaces (and line breaks,
    tabs, non-breaking spaces) one space, punctuation and symbols stripped from both ends.
    ``"  «You IDIOT!!»"`` and ``"you idiot"`` are the same text."""
    folded = unicodedata.normalize("NFKC", str(text)).casefold()
    words = " ".join(folded.split())
    start, end = 0, len(words)
    while start < end and _is_end_punctuation(words[start]):
        start += 1
    while end > start and _is_end_punctuation(words[end - 1]):
        end -= 1
    return words[start:end]


@dataclass(frozen=True)
class HeldOutSet:
    """One held-out set: its name (``<edition> <what>``), the files it was read from (paths in
    the data folder) and its texts, normalised."""

    name: str
    files: tuple[str, ...]
    texts: frozenset[str]


def read_frame(path: Path) -> pd.DataFrame:
    """The text columns (:data:`TEXT_COLUMNS`) and ``lang`` of a CSV/TSV file, or its lines as
    ``text`` for a ``.txt`` file, as strings.

    Read strictly (RFC 4180 quoting); a file whose cells hold quote marks that are not CSV
    quoting (RUSSE-2022's) is read line by line instead.
    """
    raw = path.read_bytes()
    if path.suffix == ".txt":
        return pd.DataFrame({"text": [ln for ln in decode_utf8(raw, str(path)).split("\n") if ln.strip()]})
    wanted = [*TEXT_COLUMNS, "lang"]
    try:
        table = parse_table(decode_utf8(raw, str(path)), str(path))
        return pd.DataFrame({c: table.column(c) for c in table.header if c in wanted})
    except DetoxInputError:
        sep = "\t" if path.suffix == ".tsv" else ","
        frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, quoting=3)
        return frame[[c for c in frame.columns if c in wanted]]


def read_texts(path: Path) -> list[str]:
    """Every non-empty sentence of a file (see :func:`read_frame`)."""
    frame = read_frame(path)
    return [t for c in frame.columns if c != "lang" for t in frame[c] if isinstance(t, str) and t.strip()]


def _normalised(texts: Iterable[str]) -> frozenset[str]:
    return frozenset(n for n in map(normalise, texts) if n)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _test_sets(root: Path) -> list[HeldOutSet]:
    out = []
    for edition in editions():
        groups = {
            "test split": [*edition.splits.get("test", ()), *edition.held_out],
            "human judgements": [edition.human] if edition.human else [],
            "judged sample": [r for r in (edition.judged_pairs, *edition.judges) if r],
        }
        for what, rels in groups.items():
            paths = [edition.path(rel, root) for rel in dict.fromkeys(rels)]
            if what == "test split":
                paths += edition.output_files("test", root)  # systems' rewrites of the test inputs
            paths = [p for p in paths if p.is_file()]
            if paths:
                texts = _normalised(t for p in paths for t in read_texts(p))
                out.append(HeldOutSet(f"{edition.name} {what}", tuple(_rel(p, root) for p in paths), texts))
    return out


def _other_splits_of_tests(root: Path, tests: list[HeldOutSet]) -> list[HeldOutSet]:
    """The rows of non-test split files whose language's inputs are mostly another set's:
    every text of those rows, held out (one set per file)."""
    held = frozenset().union(*(s.texts for s in tests)) if tests else frozenset()
    out = []
    for edition in editions():
        for split, rels in edition.splits.items():
            if split == "test":
                continue
            for rel in rels:
                path = edition.path(rel, root)
                if not path.is_file():
                    continue
                frame = read_frame(path)
                source = "toxic_sentence" if "toxic_sentence" in frame else "toxic_comment"
                if source not in frame:
                    continue
                groups = frame.groupby("lang", sort=True) if "lang" in frame else [("", frame)]
                texts: set[str] = set()
                langs, owners = [], set()
                for lang, rows in groups:
                    inputs = _normalised(rows[source])
                    if not inputs or len(inputs & held) < WHOLE_SPLIT_SHARE * len(inputs):
                        continue
                    langs.append(lang)
                    owners |= {s.name for s in tests if s.name.endswith("test split") and not
                               s.name.startswith(f"{edition.name} ") and
                               len(inputs & s.texts) >= WHOLE_SPLIT_SHARE * len(inputs)}
                    texts |= _normalised(t for c in rows.columns if c != "lang" for t in rows[c])
                if texts:
                    where = f" [{', '.join(langs)}]" if any(langs) else ""
                    also = f" (is {' and '.join(sorted(owners))})" if owners else ""
                    out.append(HeldOutSet(f"{edition.name} {split} split {rel}{where}{also}", (_rel(path, root),),
                                          frozenset(texts)))
    return out


class HeldOut:
    """Every held-out set of a data folder (see the module's docstring)."""

    def __init__(self, sets: list[HeldOutSet]) -> None:
        self.sets = sets
        self.texts = frozenset().union(*(s.texts for s in sets)) if sets else frozenset()

    def __contains__(self, text: str) -> bool:
        return normalise(text) in self.texts

    def keep(self, texts: Iterable[str]) -> list[bool]:
        """Per text: True where it is in no held-out set."""
        return [normalise(t) not in self.texts for t in texts]

    def overlaps(self, texts: Iterable[str]) -> dict[str, list[str]]:
        """Held-out set name -> the given texts it holds (the empty dict: none)."""
        found: dict[str, list[str]] = {}
        norm = [(t, normalise(t)) for t in texts]
        for s in self.sets:
            hits = [t for t, n in norm if n and n in s.texts]
            if hits:
                found[s.name] = hits
        return found

    def describe(self) -> list[str]:
        return [f"{s.name}: {len(s.texts):,} texts ({', '.join(s.files)})" for s in self.sets]


_CACHE: dict[tuple, HeldOut] = {}
_LOCK = threading.Lock()


def _stamp(root: Path) -> tuple:
    files = []
    for edition in editions():
        rels = [*(r for rs in edition.splits.values() for r in rs), *edition.held_out, edition.human,
                edition.judged_pairs, *edition.judges]
        for path in [edition.path(rel, root) for rel in rels if rel] + edition.output_files("test", root):
            st = path.stat() if path.is_file() else None
            files.append((str(path), st.st_size if st else -1, st.st_mtime_ns if st else -1))
    return tuple(files)


def held_out(root: Path | None = None) -> HeldOut:
    """The held-out registry of the data folder ``root`` (default: the app's), read once per
    state of its files."""
    root = Path(root if root is not None else config.data_dir())
    key = (str(root.resolve()), _stamp(root))
    with _LOCK:
        if key not in _CACHE:
            tests = _test_sets(root)
            _CACHE.clear()
            _CACHE[key] = HeldOut(tests + _other_splits_of_tests(root, tests))
        return _CACHE[key]

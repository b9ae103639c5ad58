"""What the embedded preset's other languages learn from: the toxic inputs of the
multilingual editions (less the meta-evaluation sample's, on which the preset is measured)
and the toxic lexicons of ``data/lexicons/``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from detox_core import editions
from detox_core.data.judges import load_pairs
from detox_core.text import normalise_word

#: The editions' languages other than the training edition's (Russian keeps the RUSSE-2022 recipe).
LANGUAGES = tuple(lang for lang in editions.all_languages() if lang not in editions.training_edition().languages)
LEXICON_FILES = tuple(f"lexicons/{lang}.txt" for lang in LANGUAGES)


def _multilingual_editions():
    return [e for e in editions.editions() if e.multilingual]


def input_paths(root: Path) -> list[Path]:
    """The split files of the multilingual editions (``toxic_sentence``, ``lang``) that are there."""
    paths = dict.fromkeys(e.path(rel, root) for e in _multilingual_editions()
                          for files in e.splits.values() for rel in files)
    return [p for p in paths if p.is_file()]


def held_out_paths(root: Path) -> list[Path]:
    """The meta-evaluation samples' pairs files: their inputs are never trained on."""
    paths = dict.fromkeys(e.path(e.judged_pairs, root) for e in _multilingual_editions() if e.judged_pairs)
    return [p for p in paths if p.is_file()]


def training_files(root: Path) -> list[Path]:
    """Every file the models learn from (what the recipe hash covers)."""
    return [*input_paths(root), *held_out_paths(root), *(root / rel for rel in LEXICON_FILES)]


def read_inputs(root: Path) -> dict[str, list[str]]:
    """Unique toxic inputs per language of the editions' input files, the sample's left out."""


    held = {t for path in held_out_paths(root) for t in load_pairs(path)["toxic_sentence"]}
    out: dict[str, dict[str, None]] = {lang: {} for lang in LANGUAGES}
    for path in input_paths(root):
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
        if not {"toxic_sentence", "lang"} <= set(frame.columns):
            continue
        for text, lang in zip(frame["toxic_sentence"], frame["lang"]):
            if lang in out and text and text not in held:
                out[lang][text] = None
    return {lang: list(v) for lang, v in out.items()}


def read_lexicon(root: Path, lang: str) -> frozenset[str]:
    path = root / "lexicons" / f"{lang}.txt"
    if not path.is_file():
        return frozenset()
    return frozenset(normalise_word(w.strip()) for w in path.read_text(encoding="utf-8").splitlines() if w.strip())


def available(root: Path) -> bool:
    """Whether the multilingual editions' inputs are there to learn from."""
    return bool(input_paths(root))

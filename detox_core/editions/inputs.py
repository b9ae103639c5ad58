"""The toxic inputs of the editions per language (less the meta-evaluation sample's, on which
presets are measured): the multilingual editions' inputs and RUSSE-2022's training pairs.
Live scoring's "unrelated" check reads them (:mod:`detox_core.submissions.best`); the offline
preset covers :data:`LANGUAGES` besides Russian."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import editions
from detox_core.data.judge_labels import load_pairs

#: The editions' languages other than the training edition's (Russian keeps the RUSSE-2022 recipe).
LANGUAGES = tuple(lang for lang in editions.all_languages() if lang not in editions.training_edition().languages)


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


def russe_pairs(root: Path, n: int = 1000, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (toxic, first neutral paraphrase) pairs of the RUSSE-2022 training split, when fetched."""
    path = editions.training_edition().root(root) / "train.tsv"
    if not path.is_file():
        return []
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    frame = frame[(frame["toxic_comment"] != "") & (frame["neutral_comment1"] != "")]
    take = np.random.default_rng(seed).permutation(len(frame))[:n]
    return [(frame["toxic_comment"].iloc[k], frame["neutral_comment1"].iloc[k]) for k in sorted(take)]

"""Toxic texts of the editions' languages that no test set holds (the held-out registry,
:mod:`detox_core.editions.held_out`, decides): the multilingual editions' input files' rows
outside it and the toxic texts of the TextDetox toxicity data, which the offline preset trains
on; RUSSE-2022's training pairs for Russian. Live scoring's "unrelated" check reads them
(:mod:`detox_core.live.best`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import editions
from detox_core.editions.held_out import held_out
from detox_core.editions.textdetox import TOXICITY

#: The editions' languages other than the training edition's (Russian reads RUSSE-2022's training pairs).
LANGUAGES = tuple(lang for lang in editions.all_languages() if lang not in editions.training_edition().languages)


def _multilingual_editions():
    return [e for e in editions.editions() if e.multilingual]


def input_paths(root: Path) -> list[Path]:
    """The split files of the multilingual editions (``toxic_sentence``, ``lang``) that are there,
    then the toxicity data's copy (``text``, ``toxic``, ``lang``)."""
    paths = dict.fromkeys(e.path(rel, root) for e in _multilingual_editions()
                          for files in e.splits.values() for rel in files)
    paths.update(dict.fromkeys(e.path(f.rel, root) for e in _multilingual_editions() for f in e.files if f == TOXICITY))
    return [p for p in paths if p.is_file()]


def read_inputs(root: Path, languages: tuple[str, ...] = LANGUAGES) -> dict[str, list[str]]:
    """Unique toxic texts per language (of ``languages``) of the files of :func:`input_paths`,
    every held-out text left out."""
    held = held_out(root)
    out: dict[str, dict[str, None]] = {lang: {} for lang in languages}
    for path in input_paths(root):
        # the toxicity data is written with CSV quoting; the task's input files hold quote marks that are not
        quoting = 0 if path.name == Path(TOXICITY.rel).name else 3
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=quoting)
        if {"text", "toxic", "lang"} <= set(frame.columns):  # the toxicity data: its toxic texts
            frame = frame[frame["toxic"].isin(("1", "1.0"))].rename(columns={"text": "toxic_sentence"})
        if not {"toxic_sentence", "lang"} <= set(frame.columns):
            continue
        frame = frame[frame["lang"].isin(out) & (frame["toxic_sentence"] != "")]
        for text, lang, keep in zip(frame["toxic_sentence"], frame["lang"], held.keep(frame["toxic_sentence"])):
            if keep:
                out[lang][text] = None
    return {lang: list(v) for lang, v in out.items()}


def russe_pairs(root: Path, n: int = 1000, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (toxic, first neutral paraphrase) pairs of the RUSSE-2022 training split, when fetched,
    less the few that a test set holds too (the held-out registry)."""
    path = editions.training_edition().root(root) / "train.tsv"
    if not path.is_file():
        return []
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    held = held_out(root)
    frame = frame[(frame["toxic_comment"] != "") & (frame["neutral_comment1"] != "")
                  & np.asarray(held.keep(frame["toxic_comment"]), bool) & np.asarray(held.keep(frame["neutral_comment1"]), bool)]
    take = np.random.default_rng(seed).permutation(len(frame))[:n]
    return [(frame["toxic_comment"].iloc[k], frame["neutral_comment1"].iloc[k]) for k in sorted(take)]

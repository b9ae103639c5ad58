"""The toxic words people marked in toxic sentences (``textdetox/multilingual_toxic_spans``,
fetched into the edition that lists it): its sentences are the TextDetox 2024 test inputs,
the meta-evaluation sample's inputs. The Corpus page shows them beside a pair; nothing is
trained, tuned or chosen on them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

#: the hub dataset (an edition's file made from it is the one read)
SOURCE = "textdetox/multilingual_toxic_spans"


def load_marked(path: Path) -> dict[tuple[str, str], tuple[str, ...]]:
    """(sentence stripped, language) -> the words people marked, in their order; an empty
    dict when the file has not been fetched."""
    if not path.is_file():
        return {}
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for text, marked, lang in zip(frame["toxic_sentence"], frame["toxic_words"], frame["lang"]):
        words = tuple(dict.fromkeys(w.strip() for w in marked.split(",") if w.strip()))
        if words:
            out[(text.strip(), lang)] = words
    return out

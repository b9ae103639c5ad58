"""A small TextDetox 2024 data folder and a model folder of tiny models under the real
ids, for the tests of the multilingual pages."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from detox_core.config import SHARED_MIRRORS
from detox_core.data.multilingual import load_multilingual_inputs
from detox_core.editions.textdetox import TEXTDETOX2024

MIRROR = SHARED_MIRRORS / "textdetox"
needs_mirror = pytest.mark.skipif(not (MIRROR / "textdetox2024" / "dev_inputs.tsv").is_file(),
                                  reason="no offline mirror of the TextDetox files")


def tsv(header, rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def small_textdetox(root: Path, per_language: int = 4, without_references: tuple[str, ...] = ("am", "zh")) -> Path:
    """``root/<folder of TextDetox 2024>``: the first ``per_language`` development inputs of
    every language, with a reference ("ref: " + the input, as a hub copy would give one)
    except in ``without_references``, and the Duplicate sample submission of them."""
    dev = load_multilingual_inputs(MIRROR / "textdetox2024" / "dev_inputs.tsv")
    dev = dev.groupby("lang", sort=False).head(per_language)
    base = TEXTDETOX2024.root(root)
    (base / "outputs").mkdir(parents=True, exist_ok=True)
    refs = ["" if lang in without_references else f"ref: {text}" for text, lang in zip(dev["toxic_comment"], dev["lang"])]
    (base / "dev_references.tsv").write_text(
        tsv(("toxic_sentence", "neutral_sentence", "lang"), zip(dev["toxic_comment"], refs, dev["lang"])), encoding="utf-8")
    (base / "outputs" / "duplicate_dev.tsv").write_text(
        tsv(("toxic_sentence", "neutral_sentence", "lang"), zip(dev["toxic_comment"], dev["toxic_comment"], dev["lang"])),
        encoding="utf-8")
    return base


def hub_named_models(tiny_models: dict[str, Path], root: Path) -> Path:
    """A ``DETOX_MODEL_DIR`` where the tiny models stand under the 2024 recipe's real ids."""
    root.mkdir(parents=True, exist_ok=True)
    for model_id, folder in (("textdetox/xlmr-large-toxicity-classifier", tiny_models["sta"]),
                             ("sentence-transformers/LaBSE", tiny_models["st"])):
        dest = root / model_id.replace("/", "__")
        if not dest.exists():
            shutil.copytree(folder, dest)
    return root

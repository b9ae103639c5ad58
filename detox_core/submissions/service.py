"""Submissions: validate, score once, store, and explain every sentence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from detox_core import data, editions
from detox_core.errors import StorageError
from detox_core.submissions.explain import explain_frame
from detox_core.metrics.base import StepProgress
from detox_core.metrics.registry import get_preset
from detox_core.models import ModelPool
from detox_core.submissions.store import clean_name, file_sha256, Store, StoredSubmission


@dataclass
class PendingSubmission:
    """A scored submission that could not be stored yet: everything ``Store.add`` needs,
    so the work is not lost (retry, or download the scores)."""

    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def scores(self) -> pd.DataFrame:
        frame = self.fields["scores"].copy()
        frame.insert(0, "output", self.fields["outputs"])
        frame.insert(0, "input", self.fields["inputs"])
        frame.insert(0, "line", range(1, len(frame) + 1))
        return frame

    def store(self, store: Store) -> StoredSubmission:
        """Try storing again.

        Raises:
            StorageError: the database still cannot store it.
        """
        return store.add(**self.fields)


class UnsavedScoresError(StorageError):
    """Scoring finished but storing failed; ``pending`` holds the finished scores."""

    def __init__(self, err: StorageError, pending: PendingSubmission) -> None:
        super().__init__(f"{err} The scores were computed and are kept in this session: download them, or store "
                         "them again once the database is back.", err.kind)
        self.pending = pending


def shipped_outputs(dataset: str, split: str, root: Path | None = None) -> dict[str, Path]:
    """System outputs that come with edition ``dataset`` for ``split`` (its outputs folder's
    ``<name>_<split>.txt``); none for a corpus that is not a registered edition."""
    if dataset not in editions.EDITIONS:
        return {}
    files = editions.get_edition(dataset).output_files(split, root)
    return {p.name.removesuffix(f"_{split}.txt"): p for p in files}


def split_inputs(prepared: pd.DataFrame, split: str) -> tuple[list[str], list[list[str]]]:
    """Inputs of one split in file order, with their references."""
    rows = prepared[prepared["split"] == split].sort_values("line")
    refs = data.references(rows)
    return rows["toxic_comment"].tolist(), refs


def score_and_store(
    store: Store,
    content: bytes,
    name: str,
    *,
    dataset: str,
    split: str,
    inputs: Sequence[str],
    references: Sequence[Sequence[str]],
    preset: str,
    calibrated: bool,
    source: str,
    pool: ModelPool | None = None,
    progress: StepProgress | None = None,
) -> tuple[StoredSubmission, bool]:
    """Validate a submission file, score it unless already stored, and store it.

    Returns:
        The stored submission and whether it was already there (not scored again).

    Raises:
        DetoxInputError: the file breaks the submission format (nothing is stored).
        ModelUnavailableError / EmbeddedMissingError: the preset cannot run.
        UnsavedScoresError: scored, but the database could not store it; the error
            holds the finished scores.
        StorageError: the database failed before scoring.
    """
    name = clean_name(name)
    sub = data.load_submission(content, inputs=list(inputs), name=name)
    sha = file_sha256(content)
    existing = store.find(sha, dataset, split, preset, calibrated)
    if existing:
        return existing, True
    outputs = sub["neutral_sentence"].tolist()
    frame = get_preset(preset, pool=pool).score(list(inputs), outputs, list(references), calibrated=calibrated,
                                                 progress=progress)
    pending = PendingSubmission(dict(name=name, sha256=sha, dataset=dataset, split=split, preset=preset,
                                     calibrated=calibrated, source=source, inputs=list(inputs), outputs=outputs,
                                     scores=frame))
    try:
        stored = pending.store(store)
    except StorageError as err:
        raise UnsavedScoresError(err, pending) from None
    return stored, False


def sentence_table(scores: pd.DataFrame, references: Sequence[Sequence[str]], lexicon: frozenset[str]) -> pd.DataFrame:
    """Stored per-sentence scores with references, the limiting axis, why, and flags."""
    table = scores.copy()
    table.insert(0, "line", table["idx"] + 1)
    table["references"] = [" | ".join(r) for r in references][: len(table)]
    why = explain_frame(table["input"].tolist(), table["output"].tolist(), table, lexicon)
    return pd.concat([table, why], axis=1)


def filter_sentences(table: pd.DataFrame, text: str = "", j_below: float | None = None,
                     flags: Sequence[str] = (), limiting: Sequence[str] = ()) -> pd.DataFrame:
    """Rows matching a text search (input or output), J below a bound, flags, limiting axes."""
    mask = pd.Series(True, index=table.index)
    if text:
        needle = text.lower()
        mask &= table["input"].str.lower().str.contains(needle, regex=False) | table["output"].str.lower().str.contains(needle, regex=False)
    if j_below is not None:
        mask &= table["j"] < j_below
    for flag in flags:
        mask &= table["flags"].str.contains(flag, regex=False)
    if limiting:
        mask &= table["limiting"].isin(list(limiting))
    return table[mask]


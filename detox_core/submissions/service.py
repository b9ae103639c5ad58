"""Submissions: validate, score once, store, and explain every sentence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from detox_core import data, editions
from detox_core.data.multilingual import MultilingualSubmission, load_multilingual_submission
from detox_core.errors import DetoxInputError, StorageError
from detox_core.metrics.base import StepProgress
from detox_core.metrics.reference import REFERENCE_METRICS, add_reference_columns
from detox_core.metrics.registry import get_preset, preset_class
from detox_core.models import ModelPool, default_pool
from detox_core.stats.languages import language_mean, per_language
from detox_core.submissions.explain import explain_frame
from detox_core.submissions.store import Store, StoredSubmission, clean_name, file_sha256
from detox_core.vocab import SCORE_COLUMNS, in_language_order, language_name


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
    ``<name>_<split>.txt``, or ``.tsv`` for a multilingual edition); none for a corpus that
    is not a registered edition."""
    if dataset not in editions.EDITIONS:
        return {}
    files = editions.get_edition(dataset).output_files(split, root)
    return {p.stem.removesuffix(f"_{split}"): p for p in files}


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
    on_scored: Callable[[pd.DataFrame], None] | None = None,
) -> tuple[StoredSubmission, bool]:
    """Validate a submission file, score it unless already stored, and store it.

    ``on_scored`` receives the score frame when the file is scored (not when it was stored
    already): the page reads what the run cost from it (an LLM judge's ``attrs["llm_usage"]``).

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
    store.check_name(name)  # before scoring: a look-alike of a stored name is refused at once
    sub = data.load_submission(content, inputs=list(inputs), name=name)
    return _score_and_store(store, content, name, dataset=dataset, split=split, inputs=list(inputs),
                            outputs=sub["neutral_sentence"].tolist(), references=list(references), langs=None,
                            preset=preset, calibrated=calibrated, source=source, pool=pool, progress=progress,
                            on_scored=on_scored)


def _other_calibrators(existing: StoredSubmission, preset: str, calibrated: bool, pool: ModelPool | None) -> bool:
    """Whether a stored score of a preset with fitted calibrators (rudetox-mera) was made
    under other calibrators than the preset applies now (their hash, or raw)."""
    identity = getattr(get_preset(preset, pool=pool), "calibration_identity", None)
    if identity is None:
        return False
    was = (existing.signature.get("calibration") or {}).get("sha256", "raw")
    return was != (identity() if calibrated else "raw")


def _score_and_store(store: Store, content: bytes, name: str, *, dataset: str, split: str, inputs: list[str],
                     outputs: list[str], references: list[list[str]], langs: list[str] | None, preset: str,
                     calibrated: bool, source: str, pool: ModelPool | None,
                     progress: StepProgress | None,
                     on_scored: Callable[[pd.DataFrame], None] | None = None,
                     answered: Sequence[str] | None = None) -> tuple[StoredSubmission, bool]:
    sha = file_sha256(content)
    existing = store.find(sha, dataset, split, preset, calibrated)
    if existing and _other_calibrators(existing, preset, calibrated, pool):
        store.remove(existing.id)  # scored under calibrators fitted since (or before any): its numbers are stale
        existing = None
    if existing:
        if answered and not existing.answered:  # stored before the answered languages were kept
            existing = store.record_answered(existing.id, list(answered)) or existing
        return existing, True
    frame = run_scorer(get_preset(preset, pool=pool), inputs, outputs, references, langs=langs,
                       calibrated=calibrated, progress=progress)
    if on_scored:
        on_scored(frame)
    pending = PendingSubmission(dict(name=name, sha256=sha, dataset=dataset, split=split, preset=preset,
                                     calibrated=calibrated, source=source, inputs=inputs, outputs=outputs,
                                     scores=frame, **({"langs": langs} if langs is not None else {}),
                                     **({"answered": list(answered)} if answered else {})))
    try:
        stored = pending.store(store)
    except StorageError as err:
        raise UnsavedScoresError(err, pending) from None
    return stored, False


def split_rows(prepared: pd.DataFrame, split: str) -> pd.DataFrame:
    """The rows of one split in file order (every language of a multilingual corpus)."""
    return prepared[prepared["split"] == split].sort_values("line")


def reference_map(rows: pd.DataFrame) -> dict[tuple[str, str], list[str]]:
    """(input, language) -> the input's references, for a multilingual split."""
    return dict(zip(zip(rows["toxic_comment"], rows["lang"]), data.references(rows)))


@dataclass(frozen=True)
class MultilingualResult:
    """A multilingual submission scored (or found) and stored.

    Attributes:
        stored: the stored submission.
        already: it was stored before (not scored again).
        submission: what the file answers (languages, partial).
        not_covered: answered languages the preset does not cover (not scored).
    """

    stored: StoredSubmission
    already: bool
    submission: MultilingualSubmission
    not_covered: tuple[str, ...]


def languages_elsewhere(dataset: str, split: str, whole: pd.DataFrame) -> dict[str, set[str]]:
    """Where the language codes that ``split`` lacks are found, the nearest first: the other
    splits of the corpus (``whole``, with ``split`` and ``lang``), then the other editions.
    For :func:`load_multilingual_submission`'s ``elsewhere``, so that a valid code of
    another split or edition is named as such, not as unknown."""

    places: dict[str, set[str]] = {}
    for other, part in whole.groupby("split", sort=False):
        if str(other) != split:
            places[f"the {other} split of this corpus, not in {split}"] = set(part["lang"])
    try:
        title = editions.get_edition(dataset).title
    except Exception:  # an uploaded corpus: no edition of its own
        title = "the picked corpus"
    for edition in editions.editions():
        if edition.name != dataset and getattr(edition, "languages", None):
            places[f"{edition.title}, not in the picked {title}"] = set(edition.languages)
    return places


@dataclass(frozen=True)
class PreparedMultilingual:
    """A CodaLab submission matched to a split's inputs, ready to score: what the
    Submissions page and ``python -m detox_core score`` both score (one matching for both).

    Attributes:
        submission: what the file answers (languages, partial).
        covered: the answered languages the preset scores, in the inputs' order.
        not_covered: answered languages the preset does not cover (n/a, never 0).
        frame: the submission's rows of the covered languages (its ``frame`` columns).
        references: each row's references (empty when the input has none).
    """

    submission: MultilingualSubmission
    covered: tuple[str, ...]
    not_covered: tuple[str, ...]
    frame: pd.DataFrame
    references: list[list[str]]

    @property
    def inputs(self) -> list[str]:
        return self.frame["toxic_sentence"].tolist()

    @property
    def outputs(self) -> list[str]:
        return self.frame["neutral_sentence"].tolist()

    @property
    def langs(self) -> list[str]:
        return self.frame["lang"].tolist()


def prepare_multilingual(content: bytes, name: str, rows: pd.DataFrame, preset: str, *,
                         elsewhere: dict[str, set[str]] | None = None) -> PreparedMultilingual:
    """Validate a CodaLab submission against a multilingual split and keep the rows the
    preset covers.

    Args:
        rows: :func:`split_rows` of the split (``toxic_comment``, ``lang``, ``line``, references).

    Raises:
        DetoxInputError: the file breaks the format (every problem with its line), or the
            preset covers none of the languages it answers.
    """
    sub = load_multilingual_submission(content, rows, name=name, elsewhere=elsewhere)
    recipe = preset_class(preset)
    covered = tuple(lang for lang in sub.languages if recipe.covers(lang))
    not_covered = tuple(in_language_order(lang for lang in sub.languages if lang not in covered))
    if not covered:
        raise DetoxInputError(f"the {recipe.display()} preset covers {recipe.coverage()}; the submission answers "
                              f"{', '.join(language_name(lang) for lang in sub.languages)}: nothing it could score",
                              name)
    frame = sub.frame[sub.frame["lang"].isin(covered)].reset_index(drop=True)
    refs = reference_map(rows)
    references = [refs.get(k, []) for k in zip(frame["toxic_sentence"], frame["lang"])]
    return PreparedMultilingual(sub, covered, not_covered, frame, references)


def run_scorer(scorer, inputs: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]], *,
               langs: Sequence[str] | None, calibrated: bool, progress: StepProgress | None = None) -> pd.DataFrame:
    """Score pairs with a preset object, telling a preset that reads languages (the LLM
    judge: ``{lang}`` in its prompts, per-language examples) the language of each pair."""
    return scorer.score(list(inputs), list(outputs), [list(r) for r in references], calibrated=calibrated,
                        progress=progress, langs=None if langs is None else list(langs))


def score_and_store_multilingual(store: Store, content: bytes, name: str, *, dataset: str, split: str,
                                 rows: pd.DataFrame, preset: str, calibrated: bool, source: str,
                                 pool: ModelPool | None = None,
                                 elsewhere: dict[str, set[str]] | None = None,
                                 progress: StepProgress | None = None,
                                 on_scored: Callable[[pd.DataFrame], None] | None = None) -> MultilingualResult:
    """Validate a CodaLab submission against a multilingual split (every language of it),
    score the languages the preset covers, and store each sentence with its language.

    Args:
        rows: :func:`split_rows` of the split (``toxic_comment``, ``lang``, ``line``, references).

    Raises:
        DetoxInputError: the file breaks the format (every problem with its line), or the
            preset covers none of the languages it answers; nothing is stored.
        ModelUnavailableError / EmbeddedMissingError, UnsavedScoresError, StorageError: as
            :func:`score_and_store`.
    """
    name = clean_name(name)
    store.check_name(name)
    prepared = prepare_multilingual(content, name, rows, preset, elsewhere=elsewhere)
    stored, already = _score_and_store(
        store, content, name, dataset=dataset, split=split, inputs=prepared.inputs,
        outputs=prepared.outputs, references=prepared.references,
        langs=prepared.langs, preset=preset, calibrated=calibrated, source=source, pool=pool,
        progress=progress, on_scored=on_scored, answered=in_language_order(prepared.submission.languages))
    return MultilingualResult(stored, already, prepared.submission, prepared.not_covered)


def stored_references(scores: pd.DataFrame, rows: pd.DataFrame) -> list[list[str]]:
    """References of a stored multilingual submission's sentences, in their order."""
    refs = reference_map(rows)
    return [refs.get(k, []) for k in zip(scores["input"], scores["lang"])]


def missing_reference_columns(scores: pd.DataFrame, references: Sequence[Sequence[str]]) -> list[str]:
    """The reference metrics a stored submission has no score for although its sentences
    have references (stored before they were computed, or BERTScore turned on since), and
    that can be computed now."""

    if not any(references):
        return []
    return [k for k, m in REFERENCE_METRICS.items()
            if (k not in scores or scores[k].isna().all()) and m.off_reason() is None]


def fill_reference_metrics(store: Store, submission_id: int, references: Sequence[Sequence[str]],
                           pool: ModelPool | None = None) -> list[str]:
    """Compute and store the reference metrics a stored submission lacks
    (:func:`missing_reference_columns`); ``references`` are its sentences' (in their
    order). Returns the columns filled (a metric that stays n/a, e.g. a BERTScore model
    that cannot load, is not filled and its reason is recorded)."""

    scores = store.scores(submission_id)
    if len(references) != len(scores):
        raise DetoxInputError(f"expected references for the {len(scores)} stored sentences, found {len(references)}")
    missing = missing_reference_columns(scores, references)
    if not missing:
        return []
    frame = scores[[c for c in scores if c in SCORE_COLUMNS and c not in missing]].copy()
    frame.attrs["signature"] = {}
    add_reference_columns(frame, scores["output"].tolist(), [list(r) for r in references], pool or default_pool())
    filled = [k for k in missing if frame[k].notna().any()]
    notes = {k: v for k, v in frame.attrs["signature"]["references"].items() if k in missing}
    store.fill_reference_scores(submission_id, {k: frame[k].tolist() for k in filled}, notes)
    return filled


def sentence_table(scores: pd.DataFrame, references: Sequence[Sequence[str]], lexicon: frozenset[str],
                   preset: str | None = None, language: str | None = None) -> pd.DataFrame:
    """Stored per-sentence scores with references, the limiting axis, why (worded by
    ``preset``'s measured agreement with people), and flags; ``language``: the language of
    every pair when the scores have no ``lang`` column (a one-language edition)."""
    table = scores.copy()
    table.insert(0, "line", table["idx"] + 1)
    table["references"] = [" | ".join(r) for r in references][: len(table)]
    langs = table["lang"].tolist() if "lang" in table else None
    why = explain_frame(table["input"].tolist(), table["output"].tolist(), table, lexicon, preset, langs, language)
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


@dataclass(frozen=True)
class LanguageSummary:
    """A multilingual submission language by language.

    Attributes:
        table: one row per scored language (``lang``, ``language``, ``n``, the score means).
        means: axis -> the mean over languages (each language counting once; NaN when no
            language is scored on it).
        unscored: axis -> languages with sentences but no score on it (no references).
        missing: languages asked for that the submission has no sentence in.
    """

    table: pd.DataFrame
    means: dict[str, float]
    unscored: dict[str, list[str]]
    missing: list[str]

    def scored_count(self, axis: str) -> int:
        return len(self.table) - len(self.unscored.get(axis, []))


def language_summary(scores: pd.DataFrame, languages: Sequence[str]) -> LanguageSummary:
    """:class:`LanguageSummary` of stored scores over ``languages`` (in that order)."""
    part = scores[scores["lang"].isin(languages)]
    table = per_language(part) if len(part) else pd.DataFrame(columns=["lang", "n", *SCORE_COLUMNS])
    order = {code: k for k, code in enumerate(languages)}
    table = table.sort_values("lang", key=lambda col: col.map(order)).reset_index(drop=True)
    table.insert(1, "language", table["lang"].map(language_name))
    means, unscored = {}, {}
    for axis in SCORE_COLUMNS:
        if len(part):
            means[axis], left_out = language_mean(part, axis)
            unscored[axis] = sorted(left_out, key=order.get)
        else:
            means[axis], unscored[axis] = float("nan"), []
    present = set(table["lang"])
    return LanguageSummary(table, means, unscored, [code for code in languages if code not in present])


def with_language_means(listed: pd.DataFrame, scores: dict[int, pd.DataFrame], languages: Sequence[str]) -> pd.DataFrame:
    """Stored submissions with their means over ``languages`` (each language counting once)
    instead of over sentences, and a ``languages`` column: the picked languages the file
    answers ("9/9", "1/9" for a partial one) and, when the preset scored fewer of them,
    how many ("15/15, 1 scored")."""
    out = listed.copy()
    out["languages"] = ""
    answered_by = out["answered"] if "answered" in out else pd.Series([None] * len(out), index=out.index)
    for pos, (sid, answered) in enumerate(zip(out["id"], answered_by)):
        summary = language_summary(scores[int(sid)], languages)
        for axis in SCORE_COLUMNS:
            out.iloc[pos, out.columns.get_loc(axis)] = summary.means[axis]
        scored = set(summary.table["lang"])
        n_answered = len([c for c in languages if c in scored or c in (answered or ())])
        text = f"{n_answered}/{len(languages)}"
        if len(scored) < n_answered:
            text += f", {len(scored)} scored"
        out.iloc[pos, out.columns.get_loc("languages")] = text
    return out

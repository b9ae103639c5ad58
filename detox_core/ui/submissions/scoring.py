"""Submissions: what a submission answers (:class:`SubmissionTarget`), the box that scores
and stores uploaded or shipped files, and the scores kept in the session when the database
could not store them."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core.errors import DetoxInputError, ScorerUnavailableError, StorageError
from detox_core.llm.runner import Usage
from detox_core.metrics.registry import preset_class
from detox_core.submissions.progress import ScoringProgress
from detox_core.submissions.service import (
    UnsavedScoresError,
    languages_elsewhere,
    score_and_store,
    score_and_store_multilingual,
    shipped_outputs,
)
from detox_core.ui.app import render
from detox_core.ui.app.models import shared_pool
from detox_core.ui.app.submission_store import shared_store
from detox_core.ui.app.visitors import give_back_turn
from detox_core.ui.sidebar.llm_judge import estimate_caption
from detox_core.ui.widgets.scores import preset_label, show_scoring_error
from detox_core.ui.sidebar.corpus import CorpusChoice, offer_answered_split
from detox_core.vocab import language_name

PENDING_KEY = "sub_pending"


@dataclass
class SubmissionTarget:
    """The test set a submission answers and the preset that scores it.

    Attributes:
        choice: the sidebar's corpus.
        split: the test set.
        preset, calibrated: the scoring preset.
        languages: the picked languages that have inputs in ``split``.
        inputs: the split's inputs, in order.
        references: a monolingual split's references per input (empty for a multilingual one).
        rows: a multilingual split's rows (every language), None for a monolingual one.
    """

    choice: CorpusChoice
    split: str
    preset: str
    calibrated: bool
    languages: tuple[str, ...]
    inputs: list[str]
    references: list
    rows: pd.DataFrame | None = None

    @property
    def multilingual(self) -> bool:
        return self.choice.multilingual

    @property
    def dataset(self) -> str:
        return self.choice.source


def inputs_caption(target: SubmissionTarget) -> None:
    """What the test set holds and the file a submission is."""
    if target.multilingual:
        st.caption(f"{len(target.inputs):,} inputs in `{target.split}` in {target.rows['lang'].nunique()} languages · "
                   "a submission is the CodaLab TSV `toxic_sentence, neutral_sentence, lang` (or a zip holding it), "
                   "rows matched by text and language; a submission that answers only some languages is scored and "
                   "marked partial.")
    else:
        st.caption(f"{len(target.inputs):,} inputs in `{target.split}` · a submission is a text file with one output "
                   "per line in this order, or a TSV with `toxic_sentence` and `neutral_sentence` columns.")


def run_scoring(target: SubmissionTarget, content: bytes, name: str, source: str,
                summary: tuple[list, dict] | None = None) -> None:
    """Score and store one file and say how it went; with ``summary`` (names stored,
    notes), the outcome and the notes are collected there instead (one message for many
    files). Errors are always shown at once."""
    give_back_turn()  # minutes of work: this address's other tabs need not wait for it
    store, preset = shared_store(), target.preset
    bar = st.progress(0.0, text="Checking the file…")
    progress = ScoringProgress(lambda view: bar.progress(view.fraction, text=view.text))

    notes = []
    usages: list[dict] = []  # what an LLM judge's run cost, read from its score frame

    def on_scored(frame) -> None:
        progress.storing()  # the bar says so rather than "finishing" while the database writes
        if frame.attrs.get("llm_usage"):
            usages.append(frame.attrs["llm_usage"])

    try:
        if target.multilingual:
            result = score_and_store_multilingual(
                store, content, name, dataset=target.dataset, split=target.split, rows=target.rows, preset=preset,
                calibrated=target.calibrated, source=source, pool=shared_pool(), progress=progress,
                on_scored=on_scored, elsewhere=languages_elsewhere(target.dataset, target.split, target.choice.whole))
            stored, already = result.stored, result.already
            if result.submission.partial:
                notes.append(f"Partial submission: {result.submission.describe()}." if summary is None else
                             "Partial submissions: they do not answer every language of the split.")
            if result.not_covered:
                notes.append(f"Not scored: {', '.join(language_name(c) for c in result.not_covered)} (the "
                             f"{preset_label(preset)} preset covers {preset_class(preset).coverage()}).")
        else:
            stored, already = score_and_store(
                store, content, name, dataset=target.dataset, split=target.split, inputs=target.inputs,
                references=target.references, preset=preset, calibrated=target.calibrated, source=source,
                pool=shared_pool(), progress=progress, on_scored=on_scored,
            )
    except DetoxInputError as err:
        bar.empty()
        st.error(f"Not scored, nothing stored. {render.md(err, None)}", icon=":material/error:")
        return
    except ScorerUnavailableError as err:
        bar.empty()
        show_scoring_error(err, target.choice.languages)
        return
    except UnsavedScoresError as err:
        bar.empty()
        st.session_state[PENDING_KEY] = err.pending
        return
    except StorageError as err:
        bar.empty()
        st.error(f"Not scored. {render.md(err, None)}", icon=":material/error:")
        return
    progress.finished()  # what followed the pairs, for the next score's estimate
    bar.empty()
    show_submission(stored.id)
    if summary is not None:
        summary[0].append(stored.name + (" (stored before)" if already else ""))
        for note in notes:
            summary[1][note] = None
        return
    if already:
        st.info(f"{render.md(stored.name)} was scored before with this preset "
                f"({stored.created_at:%Y-%m-%d %H:%M} UTC): showing the stored scores.", icon=":material/history:")
    else:
        st.success(f"{render.md(stored.name)} scored and stored.", icon=":material/check_circle:")
    for usage in usages:  # the LLM judge: what the requests cost, what is missing
        st.caption("LLM judge: " + render.md(Usage(**usage).text(), None))
    for note in notes:
        st.warning(note, icon=":material/translate:")


def show_submission(sid: int) -> None:
    """Show ``sid`` in the sentence table below (the "Show" box follows it)."""
    st.session_state["sub_view"] = sid
    st.session_state["sub_view_select"] = sid


def add_submission(target: SubmissionTarget, ready: bool) -> None:
    """The "Add a submission" box: an upload, or the shipped outputs of the test set (one,
    or all of them); the scoring buttons are off while the preset is not ``ready``."""
    split = target.split
    with st.container(border=True):
        st.markdown("**Add a submission**")
        u1, u2 = st.columns(2)
        with u1:
            upload = st.file_uploader(
                "Upload outputs", type=["txt", "tsv", "zip"], key="sub_upload",
                help=("A TSV whose header is `toxic_sentence`, `neutral_sentence`, `lang` (tab-separated; one row "
                      "per input: the input, your rewrite, its language code), or a zip holding it, as uploaded to "
                      "CodaLab. A plain file of one output per line is not enough here: it says no language."
                      if target.multilingual else
                      "One output per line (.txt), in the order of the inputs, a TSV with toxic_sentence and "
                      "neutral_sentence, or a zip holding one of them, as uploaded to CodaLab."))
            if target.multilingual:
                st.caption("This edition takes a TSV with a header: `toxic_sentence⇥neutral_sentence⇥lang`.")
            if upload is not None and target.multilingual:
                offer_answered_split(upload, target.choice, split)
            if upload is not None and target.preset == "llm-judge" and (estimate := estimate_caption(target.inputs)):
                st.caption(estimate)
            if upload is not None and st.button("Score the upload", type="primary", icon=":material/play_arrow:",
                                                disabled=not ready):
                run_scoring(target, upload.getvalue(), upload.name, "upload")
        with u2:
            shipped = shipped_outputs(target.dataset, split) if target.dataset != "upload" else {}
            if shipped:
                _shipped(target, shipped, ready)
            else:
                st.caption(f"No shipped outputs for `{split}`.")


def _shipped(target: SubmissionTarget, shipped: dict, ready: bool) -> None:
    name = st.selectbox("Or a shipped system output", list(shipped), key="sub_shipped",
                        help="Baselines and participants of the shared task, fetched with the data.")
    b1 = b2 = st.container(horizontal=True, wrap=True)  # the buttons wrap instead of being cut
    if b1.button("Score this output", icon=":material/play_arrow:", disabled=not ready):
        path = shipped[name]
        run_scoring(target, path.read_bytes(), path.name, "shipped")
    if len(shipped) > 1 and b2.button(f"Score all {len(shipped)}", icon=":material/playlist_play:", disabled=not ready,
                                      help="Every shipped output of this test set, one after the other "
                                      "(those stored before are not scored again)."):
        summary: tuple[list, dict] = ([], {})
        overall = st.progress(0.0, text="Scoring every shipped output…")
        for k, path in enumerate(shipped.values(), 1):
            overall.progress((k - 1) / len(shipped), text=f"{k} / {len(shipped)}: {path.name}")
            run_scoring(target, path.read_bytes(), path.name, "shipped", summary)
        overall.empty()
        if summary[0]:
            st.success(f"{len(summary[0])} of {len(shipped)} stored: "
                       + ", ".join(render.md(n, 80) for n in summary[0]) + ".", icon=":material/check_circle:")
        for note in summary[1]:
            st.warning(note, icon=":material/translate:")


def show_pending() -> None:
    """Scores whose storing failed stay in the session: retry, or download them."""
    pending = st.session_state.get(PENDING_KEY)
    if pending is None:
        return
    name = pending.fields["name"]
    with st.container(border=True):
        st.error(f"{render.md(name)} was scored, but the database could not store it. The scores are kept in "
                 "this session: store them again once the database is back, or download them.",
                 icon=":material/cloud_off:")
        r1, r2 = st.columns(2)
        if r1.button("Store the scores again", icon=":material/refresh:", key="sub_pending_retry"):
            try:
                stored = pending.store(shared_store())
            except StorageError as err:
                st.error(render.md(err, None), icon=":material/error:")
            else:
                del st.session_state[PENDING_KEY]
                show_submission(stored.id)
                st.success(f"{render.md(stored.name)} stored.", icon=":material/check_circle:")
                return
        r2.download_button("Download the scores (CSV)", csv_export(pending.scores),
                           file_name="scores.csv", mime="text/csv", icon=":material/download:",
                           key="sub_pending_download")

"""Leaderboard: the published ranking and locally scored submissions, with significance."""

from __future__ import annotations

import streamlit as st

from detox_core import editions
from detox_core.analysis.leaderboard import official_chrf
from detox_core.submissions.service import split_inputs
from detox_core.ui.app.auth import require_page
from detox_core.ui.app.submission_store import cached_boards, cached_human_scores
from detox_core.ui.leaderboard.human_scores import human_source_note
from detox_core.ui.leaderboard.board import AXIS_NAMES, local_board, published_leaderboard
from detox_core.ui.leaderboard.languages import multilingual_leaderboard
from detox_core.ui.sidebar.corpus import current_choice, split_picker

st.title("Leaderboard")
require_page("leaderboard")
choice = current_choice()
# The chosen corpus's edition; an uploaded corpus is compared with the default one.
edition = editions.EDITIONS.get(choice.source) or editions.default_edition()
if edition.multilingual and choice.source == edition.name:
    multilingual_leaderboard(choice, edition)
    st.stop()
official = official_chrf(edition.name)
published = published_leaderboard(edition, official)

st.subheader("Locally scored submissions")
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.")
    st.stop()
c1, c2 = st.columns([1, 1])
split = split_picker(choice, c1)
axis = c2.segmented_control("Rank by", list(AXIS_NAMES), default="j", required=True, key="lb_axis", wrap=True,
                            format_func=AXIS_NAMES.get, help="Bootstrap intervals and significance use this axis.")
_, split_refs = split_inputs(choice.whole if choice.whole is not None else choice.prepared, split)
boards = cached_boards(choice.source, split, axis or "j", references=split_refs)
if not boards:
    st.info("Nothing scored for this test set yet: score submissions on the **Submissions** page.",
            icon=":material/info:")
    st.stop()
st.caption("Ranked within each preset only. Intervals: 95% bootstrap over sentences (1,000 resamples). Rank: the "
           "range of ranks compatible with paired bootstrap tests at p < 0.05; systems in one group are not "
           "significantly different from the group's best.")
humans = cached_human_scores(edition)
human_source_note(humans)
for board in boards:
    local_board(board, humans, published, official, edition, choice, split, axis)

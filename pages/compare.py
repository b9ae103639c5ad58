"""Compare systems: two or more submissions on the same inputs, side by side."""

from __future__ import annotations

import streamlit as st

from detox_core.analysis.compare import side_by_side
from detox_core.submissions.store import display_names
from detox_core.ui.app.auth import require_page
from detox_core.ui.app.submission_store import cached_scores, shared_store
from detox_core.ui.widgets.preset_agreement import agreement_note
from detox_core.ui.compare.systems import (cached_significance, language_scope, means_section, pair_section,
                                            significance_section)
from detox_core.ui.compare.failure_groups import failure_kinds_section
from detox_core.ui.widgets.scores import preset_label
from detox_core.ui.sidebar.corpus import current_choice, split_languages, split_picker

st.title("Compare systems")
require_page("compare")
choice = current_choice()
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.")
    st.stop()
store = shared_store()
c1, c2 = st.columns(2)
split = split_picker(choice, c1)
languages = split_languages(choice, split)  # the picked languages this test set has inputs in
listed = store.list(dataset=choice.source, split=split)
if listed.empty:
    st.info("Nothing scored for this test set yet: score submissions on the **Submissions** page.", icon=":material/info:")
    st.stop()
groups = sorted({(p, c) for p, c in zip(listed["preset"], listed["calibrated"])})
group = c2.selectbox("Preset", groups, key="cmp_preset",
                     format_func=lambda g: preset_label(*g))
subset = listed[(listed["preset"] == group[0]) & (listed["calibrated"] == group[1])]
agreement_note(group[0], group[1], languages, key="cmp_agr")
names = display_names(subset)
if len(names) < 2:
    st.info("Score at least two submissions with this preset to compare them.", icon=":material/info:")
    st.stop()
picked = st.multiselect("Systems", list(names), default=list(names)[:2], format_func=names.get, key="cmp_systems",
                        max_selections=6)
if len(picked) < 2:
    st.info("Pick two or more systems.")
    st.stop()
frames = {names[i]: cached_scores(i) for i in picked}
# Per language when the corpus and the stored submissions carry languages (older ones may not).
by_language = choice.multilingual and all((f["lang"] != "").any() for f in frames.values())
common = None
if by_language:
    frames, common = language_scope(frames, subset, names, picked, languages, group)
table = side_by_side(frames)
labels = list(frames)

means, pairs = cached_significance(tuple(labels), table, by_language)
# picked holds two or more systems here: the first one's signature is the scores'
unscored_axes = means_section(choice, split, group, table, labels, means, by_language, common, store, int(picked[0]))
significance_section(pairs, unscored_axes, by_language)
pair_section(table, labels, by_language, choice.lexicon)
failure_kinds_section(frames, by_language)

"""Annotation projects: the New project tab (a project made from scored submissions, with
its control questions, exam pool and worked examples)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core.annotation.controls import load_controls
from detox_core.annotation.instructions import BUILTIN_EXAMPLE_LANGUAGES
from detox_core.annotation.projects import (
    control_corpus, control_coverage, controls_problem, language_controls, pairs_from_submissions,
    screening_note, submission_languages,
)
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.annotation.tasks import TASKS, spec
from detox_core.annotation.uploads import load_examples
from detox_core.errors import DetoxError, DetoxInputError
from detox_core.submissions.store import display_names
from detox_core.ui.app import render
from detox_core.ui.app.submission_store import shared_store
from detox_core.ui.widgets.annotation import EXAMPLES_HELP, settings_form
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.vocab import language_name


def new_project_tab(store: AnnotationStore, choice: CorpusChoice) -> None:
    subs = shared_store().list(dataset=choice.source) if choice.ok else pd.DataFrame()
    if subs.empty:
        st.info("Projects judge scored submissions: score some on the **Submissions** page first.",
                icon=":material/info:")
    else:
        name = st.text_input("Project name", key="new_name")
        split = st.selectbox("Test set", sorted(subs["split"].unique()), key="new_split")
        # One entry per file (a file scored with two presets is one system).
        subs = subs[subs["split"] == split].drop_duplicates("sha256", keep="last")
        labels = {i: f"{shown} ({preset})" for (i, shown), preset in zip(display_names(subs).items(), subs["preset"])}
        systems = st.multiselect("Systems", list(labels), default=list(labels), format_func=labels.get, key="new_systems")
        n_inputs = int(subs["n"].max())
        how = st.radio("Which inputs", ["all", "a random sample"], horizontal=True, key="new_how",
                       help="Every input of the test set, or a random sample of them (the same inputs for every "
                       "system).")
        sample = None
        if how != "all":
            s1, s2 = st.columns(2)
            sample = int(s1.number_input("Inputs in the sample", 1, n_inputs, min(100, n_inputs), key="new_sample"))
            seed = int(s2.number_input("Seed", 0, 10**6, 0, key="new_seed"))
        edition = choice.edition
        default_lang = edition.languages[0] if edition and not edition.multilingual and len(edition.languages) == 1 else ""
        found = submission_languages(shared_store(), systems, default_lang) if systems else []
        langs = found
        if len(found) > 1:
            langs = st.multiselect("Languages", found, default=found, key="new_langs",
                                   format_func=lambda c: f"{language_name(c)} ({c})" if c else "unmarked",
                                   help="Judge the pairs of these languages only. Each annotator judges one of them.")
        tasks = st.multiselect("Tasks", list(TASKS), default=list(TASKS), format_func=lambda t: spec(t).title,
                               key="new_tasks")
        settings = settings_form("new_set", Settings())
        c1, c2, c3 = st.columns(3)
        n_ctrl = int(c1.number_input("Generated control items per task", 0, 2000, 40, key="new_n_ctrl",
                                     help="Per language, from the corpus's other splits: neutral paraphrases vs "
                                     "the same with an insult put in as an address, own vs changed paraphrase, "
                                     "corpus sentences vs corrupted copies. Candidates a careful reader would "
                                     "dispute are dropped (markup, a lexicon word or a toxic-sounding text meant "
                                     "as neutral, an insult that does not make the text toxic); the project says "
                                     "how many and why when it is created, and its Settings tab keeps it."))
        n_exam = int(c2.number_input("Exam pool per task", 0, 200, 12, key="new_n_exam",
                                     help="Exam items with known answers; each annotator gets a random draw of "
                                          "'Exam items per annotator' from the pool."))
        ctrl_upload = c3.file_uploader("Uploaded control items (optional)", type=["tsv", "txt"], key="new_ctrl_upload",
                                       help="TSV: lang, task, text, golden; input for the content task; optional "
                                            "explanation and kind (control or exam). The control questions of a "
                                            "language the corpus does not cover.")
        ex_upload = st.file_uploader("Worked examples per language (optional)", type=["tsv", "txt"],
                                     key="new_examples_upload", help=EXAMPLES_HELP)
        # Every fetched split with references (of the edition's family too), whatever the sidebar shows.
        corpus = control_corpus(choice.source, choice.prepared, split)
        uploaded = []
        try:
            uploaded = load_controls(ctrl_upload.getvalue(), name=ctrl_upload.name, languages=langs) if ctrl_upload else []
            examples = load_examples(ex_upload.getvalue(), name=ex_upload.name, languages=langs) if ex_upload else []
        except DetoxInputError as err:
            st.error(f"Not read. {render.md(err, None)}", icon=":material/error:")
            examples = None
        if any(langs):
            st.markdown("**Control questions per language**")
            coverage = control_coverage(corpus, langs, uploaded, default_lang, needed=n_ctrl)
            if n_ctrl and (none := coverage[coverage["source"] == "none"]["language"].tolist()):
                st.warning(f"No control questions can be made for {', '.join(none)}: the corpus has fewer than "
                           f"{n_ctrl} pairs of 3-30 words with references in them (Chinese and Japanese sentences are "
                           "not split into words here), and none are uploaded. Upload control items for them, leave "
                           "them out, or set the generated control items to 0.", icon=":material/warning:")
            st.dataframe(coverage, hide_index=True, column_config={
                "lang": "Code", "language": "Language",
                "corpus_pairs": st.column_config.NumberColumn("Corpus pairs", help="Pairs with a reference and 3-30 "
                                                              "words a side, of the splits other than the one judged "
                                                              "where they have any"),
                "uploaded": st.column_config.NumberColumn("Uploaded", help="Control items of the uploaded file"),
                "source": st.column_config.TextColumn("Controls from", help="Where the control questions come from")})
        given = {ex.lang for ex in examples or []}
        untrained = [c for c in langs if c not in BUILTIN_EXAMPLE_LANGUAGES and c not in given]
        if settings.training and untrained:
            st.warning(f"The training round has no items in {', '.join(language_name(c) for c in untrained)}: "
                       "annotators of those languages read the instructions and go straight to the exam. Upload "
                       "worked examples for them (above), or turn the training round off.", icon=":material/school:")
        if st.button("Create the project", type="primary", key="new_create",
                     disabled=not (systems and tasks and langs) or examples is None):
            try:
                pairs = pairs_from_submissions(shared_store(), systems, sample=sample,
                                               seed=seed if sample is not None else 0, languages=langs,
                                               default_lang=default_lang)
                controls, exam, plan = language_controls(
                    corpus, tasks, langs, per_task=n_ctrl, exam_per_task=n_exam, lexicon=choice.lexicon,
                    exclude=set(pairs["input"].str.strip()), uploaded=[c for c in uploaded if c.kind == "control"],
                    uploaded_exam=[c for c in uploaded if c.kind == "exam"], corpus_lang=default_lang,
                    lexicons={lang: choice.lexicon_for(lang) for lang in langs})
                if controls_problem(plan):
                    raise DetoxInputError(controls_problem(plan))
                screened = screening_note(plan)
                made = store.create_project(name, tasks, pairs, controls=controls, exam=exam, settings=settings,
                                            dataset=choice.source, screened=screened)
                if examples:
                    store.set_examples(made.id, [ex for ex in examples if ex.task in made.tasks])
                st.session_state["org_pending_project"] = made.id
                st.session_state["org_flash"] = ("success", f"Project **{render.md(made.name)}** created: {len(pairs):,} pairs, "
                                                 f"{len(controls):,} control and {len(exam):,} exam items. Access "
                                                 f"code for annotators: **`{made.access_code}`**"
                                                 + "".join(f"\n\n{render.md(line, None)}" for line in screened.splitlines()))
                st.rerun()
            except DetoxError as err:
                st.error(f"Not created. {render.md(err, None)}", icon=":material/error:")

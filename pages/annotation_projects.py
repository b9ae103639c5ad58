"""Annotation projects: the organizer's side (password-protected).

Create a project from scored submissions, follow its progress, review uncertain
labels, export human judgements and aggregate crowd-platform exports.
"""

from __future__ import annotations


import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core.annotation.aggregation import aggregator_names, aggregator_title, krippendorff_alpha
from detox_core.annotation.controls import load_controls
from detox_core.annotation.crowd import aggregate_crowd, load_crowd_tsv
from detox_core.annotation.projects import (
    control_coverage, controls_problem, language_controls, pairs_from_submissions, submission_languages,
)
from detox_core.annotation.uploads import load_examples
from detox_core.annotation.results import finish_text, system_means
from detox_core.errors import AnnotationError, DetoxError
from detox_core.annotation.store import Settings
from detox_core.annotation.tasks import TASKS, spec
from detox_core.errors import DetoxInputError
from detox_core.submissions.store import display_names
from detox_core.ui.app import render
from detox_core.ui.app.auth import organizer_gate
from detox_core.ui.sections.crowd_filter import crowd_filter_section
from detox_core.ui.app.annotation_store import annotation_store, project_progress, project_results
from detox_core.ui.sections.annotation import EXAMPLES_HELP, item_html, settings_form
from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.ui.sections.sidebar import current_choice
from detox_core.ui.app.submission_store import shared_store
from detox_core.ui.sections.projects import password_section, public_leaderboard_control, refused_section
from detox_core.ui.sections.tables import MISSING
from detox_core.vocab import HUMAN_PARTS, HUMAN_SYSTEM_COLUMNS, language_name

ensure_app_navigation()
st.title("Annotation projects")
organizer_gate()
store = annotation_store()

projects = store.projects()
tab_names = ["Progress", "Review queue", "Results", "Settings", "New project", "Crowd import"]
if not projects:
    st.info("No annotation project yet: create one under **New project**.", icon=":material/info:")
names = {p.id: p.name for p in projects}
project = None
if "org_pending_project" in st.session_state:  # a project just created: show it
    st.session_state["org_project"] = st.session_state.pop("org_pending_project")
kind, message = st.session_state.pop("org_flash", (None, None))
if message:
    st.success(message, icon=":material/check_circle:")
if projects:
    pid = st.selectbox("Project", list(names), index=len(names) - 1, format_func=names.get, key="org_project")
    project = store.project(pid)
    langs_shown = ", ".join(language_name(c) for c in store.languages(project.id) if c)
    st.caption(f"Access code for annotators: **`{project.access_code}`** · tasks: "
               f"{', '.join(spec(t).title for t in project.tasks)} · {project.status}"
               + (f" · languages: {langs_shown}" if langs_shown else ""))
tabs = dict(zip(tab_names, st.tabs(tab_names)))

#: An annotator's status in the organizer's words.
STATUS_WORDS = {"active": "working", "training": "in training", "exam": "in the exam", "failed": "not admitted",
                "banned": "banned"}
stamp = store.stamp()  # one cache key for every tab of this run


# ----------------------------------------------------------------------------- progress

with tabs["Progress"]:
    if project is None:
        st.caption("Create a project first.")
    else:
        prog = project_progress(project.id, stamp)
        results, table = project_results(project.id, project.settings.method, stamp)
        # One block per task, then the people and the finish; the blocks wrap on a narrow screen.
        row = st.container(horizontal=True, wrap=True, gap="small")
        blocks = [row.container(width=165) for _ in range(len(project.tasks) + 2)]
        for block, task_row in zip(blocks, prog.tasks.itertuples(index=False)):
            wanted = task_row.items * project.settings.overlap
            # The number and the bar say the same thing: items with all their answers.
            block.metric(f"{spec(task_row.task).title}: items done", f"{task_row.done:,} / {task_row.items:,}",
                         help="Items that have all their answers (the project's overlap). An item is a distinct "
                              "text to judge: outputs that several systems share are one item, and fluency also "
                              "asks about each input (the baseline of the relative FL), so a task can have fewer "
                              "or more items than the project has pairs.")
            block.progress(task_row.done / task_row.items if task_row.items else 0.0)
            block.caption(f"{task_row.answers:,} of {wanted:,} answers given")
            alpha = results[task_row.task].alpha
            block.caption(f"Krippendorff's α {alpha:.2f}" if alpha == alpha
                          else f"α cannot be computed: {results[task_row.task].alpha_note}",
                          help="Agreement between annotators' answers to the same items, of the answers the labels "
                               "come from (annotators above the control-accuracy filter). It needs items with two or "
                               "more answers (an overlap above 1) and answers that are not all the same.")
        counts = dict(zip(prog.annotators["status"], prog.annotators["annotators"]))
        blocks[-2].metric("Annotators working", counts.get("active", 0),
                          help=", ".join(f"{k}: {v}" for k, v in counts.items()) or "nobody joined yet")
        blocks[-2].caption(f"{counts.get('banned', 0)} banned · {counts.get('failed', 0)} not admitted · "
                           f"{counts.get('training', 0) + counts.get('exam', 0)} in training or exam")
        value, note = finish_text(prog)
        blocks[-1].metric("Expected finish", value, help=note)
        blocks[-1].caption(note)
        if len(prog.timeline):
            fig = go.Figure(go.Bar(x=prog.timeline["hour"], y=prog.timeline["answers"], marker_color="#2e7d5b",
                                   width=3_600_000 * 0.8, hovertemplate="%{x|%d %b %H:00}: %{y} answers<extra></extra>"))
            fig.update_layout(height=220, margin=dict(t=10, b=10), yaxis_title="answers per hour")
            hours = pd.to_datetime(prog.timeline["hour"])
            fig.update_xaxes(tickformat="%d %b %H:00", type="date", dtick=3_600_000 * max(1, len(hours) // 8),
                             range=[hours.min() - pd.Timedelta(hours=2), hours.max() + pd.Timedelta(hours=2)])
            st.plotly_chart(fig, width="stretch")
        st.markdown("**Annotators**")
        people = store.annotators(project.id)
        per_task = [r.workers.assign(task=spec(t).title) for t, r in results.items() if len(r.workers)]
        stats = pd.concat(per_task) if per_task else pd.DataFrame()
        people_config = {
            "name": "Annotator", "task": "Task", "answers": "Answers",
            "status": st.column_config.TextColumn("Status", help="working, in training, in the exam, not admitted "
                                                  "(failed the exam) or banned"),
            "control_accuracy": st.column_config.NumberColumn("Control accuracy", format="percent"),
            "agreement_with_aggregate": st.column_config.NumberColumn("Agrees with label", format="percent"),
            "median_seconds": st.column_config.NumberColumn("Median s / item", format="%.1f"),
            "exam_score": st.column_config.NumberColumn("Exam score", format="percent",
                                                        help=f"Pass mark {project.settings.exam_pass:.0%}"),
            "ban_reason": st.column_config.TextColumn("Ban reason", width="large"),
            "joined_at": st.column_config.DatetimeColumn("Joined (UTC)", format="YYYY-MM-DD HH:mm")}
        if len(people):
            people = people.assign(status=people["status"].map(STATUS_WORDS).fillna(people["status"]),
                                   ban_reason=people["ban_reason"].fillna(""))
        if len(stats):
            stats = stats.reset_index(names="name").merge(people[["name", "status", "exam_score", "ban_reason"]],
                                                          on="name", how="left")
            # Everyone who joined, also those without answers yet (in training, not admitted).
            idle = people[~people["name"].isin(stats["name"])][["name", "status", "exam_score", "ban_reason"]]
            stats = pd.concat([stats, idle.assign(answers=0)], ignore_index=True) if len(idle) else stats
            st.dataframe(stats[["name", "task", "status", "answers", "control_accuracy", "agreement_with_aggregate",
                                "median_seconds", "exam_score", "ban_reason"]], hide_index=True, placeholder=MISSING,
                         column_config=people_config)
        elif len(people):
            st.dataframe(people[["name", "status", "exam_score", "joined_at", "ban_reason"]], hide_index=True,
                         placeholder=MISSING, column_config=people_config)
        else:
            st.caption(f"Nobody joined yet. Give annotators the access code `{project.access_code}` and the "
                       "address of the **Annotate** page.")
        refused_section(store, project)
        if len(people):
            password_section(store, project, people)

# ----------------------------------------------------------------------------- review

with tabs["Review queue"]:
    if project is None:
        st.caption("Create a project first.")
    else:
        results, _ = project_results(project.id, project.settings.method, stamp)
        task = st.segmented_control("Task", list(project.tasks), format_func=lambda t: spec(t).title,
                                    default=project.tasks[0], key="org_review_task") or project.tasks[0]
        sp = spec(task)
        queue = results[task].review(project.settings.review_confidence)
        answered = queue[queue["votes"] > 0]
        st.caption(f"{len(answered):,} answered items under {project.settings.review_confidence:.0%} confidence "
                   f"(or without a label), plus {len(queue) - len(answered):,} not answered yet. Set the final label; "
                   "it replaces the aggregate.")
        if len(answered):
            per_view = 20
            n_views = (len(answered) - 1) // per_view + 1
            view = 1
            if n_views > 1:
                view = int(st.number_input(f"Page of the queue (1-{n_views}, {per_view} items each)", 1, n_views, 1,
                                           key=f"org_review_view_{task}"))
            shown = answered.iloc[(view - 1) * per_view: view * per_view]
            with st.form(f"org_review_{task}"):
                for r in shown.itertuples(index=False):
                    with st.container(border=True):
                        left, right = st.columns([3, 2], vertical_alignment="center")
                        left.html(item_html(None, sp, text=r.text, input=r.input))
                        votes = " · ".join(f"{sp.answer_text(v)} {n}" for v, n in sorted(r.counts.items(), reverse=True))
                        current = sp.answer_text(r.label) if r.label == r.label else "no label"
                        conf = f"{r.confidence:.2f}" if r.confidence == r.confidence else "—"
                        right.caption(f"Answers: {votes} · aggregate: **{current}** (confidence {conf})")
                        right.segmented_control("Final label", [v for v, _ in sp.options], format_func=sp.answer_text,
                                                key=f"org_expert_{r.item}")
                saved = st.form_submit_button("Save the final labels", type="primary")
            if saved:
                chosen = {r.item: st.session_state.get(f"org_expert_{r.item}") for r in shown.itertuples(index=False)}
                chosen = {k: v for k, v in chosen.items() if v is not None}
                for item, label in chosen.items():
                    store.set_expert_label(int(item), label, "organizer")
                st.session_state["org_flash"] = ("success", f"Saved {len(chosen)} final labels.")
                st.rerun()
        reviewed = results[task].items[results[task].items["source"] == "expert"]
        if len(reviewed):
            with st.expander(f"{len(reviewed)} items with a final label set here"):
                st.dataframe(reviewed.assign(label=reviewed["label"].map(sp.answer_text))[["input", "text", "label"]],
                             hide_index=True, placeholder=MISSING, column_config={"input": "Original", "text": "Text", "label": "Final label"})

# ----------------------------------------------------------------------------- results

with tabs["Results"]:
    if project is None:
        st.caption("Create a project first.")
    else:
        method = st.radio("Aggregation", aggregator_names(), index=aggregator_names().index(project.settings.method),
                          horizontal=True, key="org_method",
                          format_func=aggregator_title)
        results, table = project_results(project.id, method, stamp)
        summary = pd.DataFrame([{
            "task": spec(t).title, "items": len(r.items), "labelled": int(r.items["label"].notna().sum()),
            "unlabelled": r.unlabelled, "by expert": int((r.items["source"] == "expert").sum()), "alpha": r.alpha,
            "alpha_all": r.alpha_all,
            "left out": ", ".join(r.excluded_workers)} for t, r in results.items()])
        summary["alpha_note"] = [r.alpha_note for r in results.values()]
        st.dataframe(summary, hide_index=True, placeholder=MISSING, column_config={
            "task": "Task", "items": "Items", "labelled": "Labelled", "unlabelled": "Unlabelled",
            "by expert": "Final label by an organizer",
            "alpha": st.column_config.NumberColumn("Krippendorff's α", format="%.3f",
                                                   help="Of the answers the labels come from"),
            "alpha_note": st.column_config.TextColumn("Why no α", help="Why α cannot be computed, where it cannot"),
            "alpha_all": st.column_config.NumberColumn("α, all answers", format="%.3f",
                                                       help="Also of annotators left out for control accuracy"),
            "left out": st.column_config.TextColumn("Annotators left out (control accuracy)")})
        complete = table.dropna(subset=list(HUMAN_PARTS))
        st.markdown(f"**Human judgements** · {len(complete):,} of {len(table):,} pairs have every label")
        if len(complete):
            means = system_means(complete, intervals=True)
            means["j_interval"] = [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(means["j_human_low"], means["j_human_high"])]
            st.dataframe(means[["participant_name", *HUMAN_SYSTEM_COLUMNS, "j_interval", "n"]], hide_index=True,
                         placeholder=MISSING, column_config={
                "participant_name": "System",
                **{c: st.column_config.NumberColumn(c.split("_")[0].upper() + " (human)", format="%.3f")
                   for c in HUMAN_SYSTEM_COLUMNS},
                "j_interval": st.column_config.TextColumn("J (human) 95% CI", help="Bootstrap over the judged pairs"),
                "n": st.column_config.NumberColumn("Judged pairs", format="%d")})
        st.dataframe(table, hide_index=True, placeholder=MISSING, height=300, column_config={
            "toxic_sentence": st.column_config.TextColumn("Input", width="medium"),
            "neutral_sentence": st.column_config.TextColumn("Output", width="medium"),
            "participant_name": "System"})
        # The buttons wrap rather than cut their labels on a narrow screen.
        d1 = d2 = st.container(horizontal=True, wrap=True, gap="small")
        d1.download_button("Export (humaneval_textdetox_ru schema, CSV)", table.to_csv(index=False).encode("utf-8"),
                           file_name=f"{project.name}.humaneval.csv", mime="text/csv", icon=":material/download:",
                           key="org_export")
        d2.download_button("Every answer (CSV)", lambda: store.raw_answers(project.id).to_csv(index=False).encode("utf-8"),
                           file_name=f"{project.name}.answers.csv", mime="text/csv", icon=":material/download:",
                           key="org_export_answers", help="One row per answer: annotator, task, item texts, label, "
                           "the control answer where there is one, seconds")
        public_leaderboard_control(store, project, complete)

# ----------------------------------------------------------------------------- settings

with tabs["Settings"]:
    if project is None:
        st.caption("Create a project first.")
    else:
        exam_pool = store.items(project.id, kind="exam")
        # The exam is drawn from the annotator's language where it has exam items: the
        # smallest of those pools is the shortest exam anyone can get.
        pool = int(exam_pool.groupby("lang").size().min()) if len(exam_pool) else 0
        new = settings_form("org_set", project.settings, exam_pool=pool)
        status = st.radio("Status", ["open", "closed"], index=["open", "closed"].index(project.status),
                          horizontal=True, key="org_status",
                          help="A closed project takes no new annotators and hands out no pages.")
        if st.button("Save settings", type="primary", key="org_set_save"):
            try:
                store.update_settings(project.id, new, status)
                st.success("Saved.", icon=":material/check_circle:")
                st.rerun()
            except AnnotationError as err:
                st.error(render.md(err, None), icon=":material/error:")
        project_langs = store.languages(project.id)
        upload = st.file_uploader("Add control items (TSV: lang, task, text, golden, optional input, explanation and "
                                  "kind)", type=["tsv", "txt"], key="org_controls_upload")
        if upload is not None and st.button("Add these control items", key="org_controls_add"):
            try:
                added = load_controls(upload.getvalue(), name=upload.name, languages=project_langs)
                n = store.add_controls(project.id, [c for c in added if c.kind == "control"])
                n += store.add_controls(project.id, [c for c in added if c.kind == "exam"], "exam")
                st.success(f"Added {n} control items.", icon=":material/check_circle:")
            except DetoxError as err:
                st.error(f"Nothing added. {render.md(err, None)}", icon=":material/error:")
        ex_up = st.file_uploader("Worked examples per language (TSV; they replace the examples of the languages "
                                 "in the file)", type=["tsv", "txt"], key="org_examples_upload", help=EXAMPLES_HELP)
        if ex_up is not None and st.button("Use these examples", key="org_examples_add"):
            try:
                n = store.set_examples(project.id, load_examples(ex_up.getvalue(), name=ex_up.name,
                                                                 languages=project_langs))
                st.success(f"Stored {n} examples.", icon=":material/check_circle:")
            except DetoxError as err:
                st.error(f"Nothing stored. {render.md(err, None)}", icon=":material/error:")
        shown = store.examples(project.id)
        if shown:
            with st.expander(f"{len(shown)} uploaded examples"):
                st.dataframe(pd.DataFrame([vars(ex) for ex in shown])[["lang", "task", "input", "text", "label",
                                                                        "explanation"]], hide_index=True)
        items = store.items(project.id)
        st.caption("Items: " + ", ".join(f"{k} {v:,}" for k, v in items["kind"].value_counts().items()))
        with st.expander("Delete this project", icon=":material/delete:"):
            st.warning(f"Deletes **{render.md(project.name)}** with its items, annotators and every answer. This cannot be undone; "
                       "export first.", icon=":material/warning:")
            confirm = st.text_input("Type the project's name to confirm", key="org_delete_confirm")
            if st.button("Delete the project", key="org_delete", disabled=confirm.strip() != project.name):
                store.delete_project(project.id)
                st.session_state.pop("org_project", None)
                st.session_state["org_flash"] = ("success", f"Project {render.md(project.name)} deleted.")
                st.rerun()

# ----------------------------------------------------------------------------- new project

with tabs["New project"]:
    choice = current_choice()
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
                                     help="Per language, from the corpus's other splits: toxic inputs vs their "
                                     "paraphrases, own vs another input's paraphrase, corpus sentences vs corrupted "
                                     "copies."))
        n_exam = int(c2.number_input("Exam pool per task", 0, 200, 12, key="new_n_exam",
                                     help="Exam items with known answers; each annotator gets a random draw of "
                                          "'Exam items per annotator' from the pool."))
        ctrl_upload = c3.file_uploader("Uploaded control items (optional)", type=["tsv", "txt"], key="new_ctrl_upload",
                                       help="TSV: lang, task, text, golden; input for the content task; optional "
                                            "explanation and kind (control or exam). The control questions of a "
                                            "language the corpus does not cover.")
        ex_upload = st.file_uploader("Worked examples per language (optional)", type=["tsv", "txt"],
                                     key="new_examples_upload", help=EXAMPLES_HELP)
        corpus = choice.prepared[choice.prepared["split"] != split]
        if corpus.empty:
            corpus = choice.prepared
        uploaded = []
        try:
            uploaded = load_controls(ctrl_upload.getvalue(), name=ctrl_upload.name, languages=langs) if ctrl_upload else []
            examples = load_examples(ex_upload.getvalue(), name=ex_upload.name, languages=langs) if ex_upload else []
        except DetoxInputError as err:
            st.error(f"Not read. {render.md(err, None)}", icon=":material/error:")
            examples = None
        if any(langs):
            st.markdown("**Control questions per language**")
            coverage = control_coverage(corpus, langs, uploaded, default_lang)
            if n_ctrl and (none := coverage[coverage["source"] == "none"]["language"].tolist()):
                st.warning(f"No control questions can be made for {', '.join(none)}: the corpus has no pairs with "
                           "references in them, and none are uploaded. Upload control items for them, leave them "
                           "out, or set the generated control items to 0.", icon=":material/warning:")
            st.dataframe(coverage, hide_index=True, column_config={
                "lang": "Code", "language": "Language",
                "corpus_pairs": st.column_config.NumberColumn("Corpus pairs", help="Pairs with a reference, in the "
                                                              "splits other than the one judged"),
                "uploaded": st.column_config.NumberColumn("Uploaded", help="Control items of the uploaded file"),
                "source": st.column_config.TextColumn("Controls from", help="Where the control questions come from")})
        if st.button("Create the project", type="primary", key="new_create",
                     disabled=not (systems and tasks and langs) or examples is None):
            try:
                pairs = pairs_from_submissions(shared_store(), systems, sample=sample,
                                               seed=seed if sample is not None else 0, languages=langs,
                                               default_lang=default_lang)
                controls, exam, plan = language_controls(
                    corpus, tasks, langs, per_task=n_ctrl, exam_per_task=n_exam, lexicon=choice.lexicon,
                    exclude=set(pairs["input"].str.strip()), uploaded=[c for c in uploaded if c.kind == "control"],
                    uploaded_exam=[c for c in uploaded if c.kind == "exam"], corpus_lang=default_lang)
                if controls_problem(plan):
                    raise DetoxInputError(controls_problem(plan))
                made = store.create_project(name, tasks, pairs, controls=controls, exam=exam, settings=settings,
                                            dataset=choice.source)
                if examples:
                    store.set_examples(made.id, [ex for ex in examples if ex.task in made.tasks])
                st.session_state["org_pending_project"] = made.id
                st.session_state["org_flash"] = ("success", f"Project **{render.md(made.name)}** created: {len(pairs):,} pairs, "
                                                 f"{len(controls):,} control and {len(exam):,} exam items. Access "
                                                 f"code for annotators: **`{made.access_code}`**")
                st.rerun()
            except DetoxError as err:
                st.error(f"Not created. {render.md(err, None)}", icon=":material/error:")

# ----------------------------------------------------------------------------- crowd import

with tabs["Crowd import"]:
    st.markdown("Aggregate results exported from a crowdsourcing platform: one TSV per task with `INPUT:<field>`, "
                "`OUTPUT:<answer>`, `GOLDEN:<answer>` and `ASSIGNMENT:worker_id` / `started` / `submitted` / "
                "`status` columns.")
    c1, c2, c3 = st.columns(3)
    ctask = c1.selectbox("Task", list(TASKS), format_func=lambda t: spec(t).title, key="crowd_task")
    cmethod = c2.radio("Method", aggregator_names(), horizontal=True, key="crowd_method",
                       format_func=lambda m: aggregator_title(m, short=True))
    cacc = c3.slider("Minimum control accuracy", 0.0, 1.0, 0.5, 0.05, key="crowd_acc")
    crowd = st.file_uploader("Crowd export (TSV)", type=["tsv", "txt"], key="crowd_upload")
    if crowd is not None:
        try:
            parsed = load_crowd_tsv(crowd.getvalue(), ctask, name=crowd.name)
            labels = aggregate_crowd(parsed, cmethod, cacc)
        except DetoxInputError as err:
            st.error(render.md(err, None), icon=":material/error:")
        else:
            real = parsed.answers[parsed.answers["golden"].isna()]
            alpha = krippendorff_alpha(real, "ordinal" if ctask == "fluency" else "nominal")
            st.caption(f"{len(parsed.answers):,} answers of {parsed.answers['worker'].nunique():,} workers · skipped "
                       f"{parsed.skipped_empty} rows with empty input and {parsed.skipped_rejected} rejected · "
                       f"Krippendorff's α {alpha:.3f}")
            st.dataframe(labels, hide_index=True, placeholder=MISSING, column_config={
                "confidence": st.column_config.NumberColumn("Confidence", format="%.2f"), "votes": "Votes"})
            st.download_button("Download the labels (CSV)", labels.to_csv(index=False).encode("utf-8"),
                               file_name=f"{ctask}.labels.csv", mime="text/csv", key="crowd_download",
                               icon=":material/download:")
    st.divider()
    crowd_filter_section()

"""Human vs automatic: the judgements put against the metrics (shipped human judgements, an
LLM judge's labels, an annotation project or an uploaded file) and the automatic scores
joined to them (the embedded preset, other presets, stored submissions, the LLM judges)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from detox_core import editions, vocab
from detox_core.analysis.meta_eval import add_reference_metrics, available_metrics, join_stored_report
from detox_core.data.judge_labels import add_judge_columns, judge_missing, load_any_judgements
from detox_core.errors import DetoxInputError, EmbeddedMissingError
from detox_core.metrics import bertscore
from detox_core.metrics.textdetox2025 import add_2025_recipes
from detox_core.ui.app import render
from detox_core.ui.app.annotation_store import project_judgements, project_judgements_csv
from detox_core.ui.app.models import shared_pool
from detox_core.ui.app.submission_store import shared_store
from detox_core.ui.human_eval.judgements import add_embedded, automatic_notice, edition_judges, language_filter, preset_section
from detox_core.ui.sidebar.corpus import CorpusChoice

AXIS_NAMES = {a.key: a.label if a.key == "j" else f"{a.label} ({a.short})" for a in vocab.AXES if a.human}


@st.cache_data(show_spinner="Reading the judgements…", max_entries=8)
def judgements(content: bytes, name: str, bertscore_setting: str) -> pd.DataFrame:
    # The reference metrics against each output's reference (chrF, BLEU, ROUGE-L; BERTScore when turned on).
    return add_reference_metrics(add_2025_recipes(load_any_judgements(content, name=name)), shared_pool())


# The cached helpers take the judged frame unhashed (``_frame``): ``key`` names it
# (file content, embedded scores, stored submissions joined), so reruns skip the work.
@st.cache_data(show_spinner="Joining stored submissions…", max_entries=8)
def cached_join(key: str, _frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return join_stored_report(_frame, shared_store())


@dataclass
class Judged:
    """The judged outputs the page's tabs work on.

    Attributes:
        choice: the sidebar's corpus.
        frame: the judged outputs of the language picked on the page, with the automatic scores.
        all_frame: those of every language picked in the sidebar.
        key: names ``frame`` for the caches.
        metrics: the automatic metrics of ``frame``, per human axis.
        language: the language picked on the page.
        judge: the LLM judge whose labels are the judgements (None: human judgements).
        name: the judgements' file name (None for a judge's labels).
        judges: every LLM judge's labels of the edition's judged pairs.
    """

    choice: CorpusChoice
    frame: pd.DataFrame
    all_frame: pd.DataFrame
    key: str
    metrics: dict
    language: str
    judge: str | None
    name: str | None
    judges: dict

    @property
    def who(self) -> str:
        return "judge" if self.judge is not None else "human"

    @property
    def axis_word(self) -> str:
        return "Judge's axis" if self.judge is not None else "Human axis"


def judged_outputs(choice: CorpusChoice) -> Judged:
    """The judgements picked at the top of the page, with the automatic scores asked for
    joined to them (the page stops with a word while there are none)."""
    # The chosen corpus's edition (the default one for an uploaded corpus), its human
    # judgements and its LLM judges' labels.
    edition = editions.EDITIONS.get(choice.source) or editions.default_edition()
    shipped = edition.human_path()
    judges = edition_judges(edition)
    # An edition with no judged pairs of its own (TextDetox 2025) gets those of an edition whose
    # languages are all its own (the nine-language 2024 meta-evaluation sample), said as such.
    judges_from = edition
    if not judges and shipped is None:
        judges_from = next((other for other in sorted(editions.EDITIONS.values(), key=lambda e: -len(e.languages))
                            if other is not edition and other.languages and set(other.languages) <= set(edition.languages)
                            and edition_judges(other)), edition)  # the most languages first: 2024's nine, not ru alone
        judges = edition_judges(judges_from) if judges_from is not edition else {}
    projects = project_judgements()
    SOURCES = [f"shipped {edition.short} human judgements", "an LLM judge's labels", "an annotation project",
               "upload a file"]
    offered = {SOURCES[0]: shipped is not None, SOURCES[1]: bool(judges), SOURCES[2]: bool(projects), SOURCES[3]: True}
    available = [s for s in SOURCES if offered[s]]
    top = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="large")
    c1, c2 = top.container(width="content"), top.container(width="content")
    source = c1.radio("Judgements", available, horizontal=True, key="he_source",
                      help="Human judgements, or an LLM judge's labels of the edition's judged pairs (automatic "
                      "judgements, put against the metrics the same way). Annotation projects of the app that ask all "
                      "three tasks give their aggregated labels (complete pairs) in the same schema.")
    with_embedded = c2.toggle("Add the embedded preset's scores", value=True, key="he_embedded",
                              help="Scores every judged pair with the offline preset (Russian pairs only; seconds, cached).")
    with_stored = c2.toggle("Add stored submissions' scores", value=True, key="he_stored",
                            help="Submissions scored on the Submissions page (any preset) whose name matches a judged "
                            "system, joined by input and output text.")
    with_judges = c2.toggle("Add the LLM judges' labels", value=True, key="he_judges", disabled=not judges,
                            help="Each LLM judge's labels of the same pairs as automatic metrics (`<judge> (LLM):sta` ...)"
                            ", matched by pair id or by system, input and output.")
    content, name, judge = None, None, None
    if source == SOURCES[0]:
        content, name = shipped.read_bytes(), shipped.name
    elif source == SOURCES[1]:
        judge = c1.selectbox("Judge", list(judges), key="he_judge")
        if judges_from is not edition:
            st.caption(f"{render.md(edition.title)} has no judged pairs of its own: these are the LLM judges' labels of "
                       f"the {render.md(judges_from.title)} meta-evaluation sample, in its languages "
                       f"({', '.join(judges_from.languages)}), which are {render.md(edition.short)} languages too.")
    elif source == SOURCES[2]:
        chosen = st.selectbox("Project", list(projects), index=len(projects) - 1, key="he_project")
        content, name = project_judgements_csv(projects[chosen]), f"{chosen}.humaneval.csv"
        if content.count(b"\n") <= 1:
            st.info(f"Project **{render.md(chosen)}** has no pair with all three labels yet.", icon=":material/info:")
            st.stop()
    else:
        upload = st.file_uploader("Judgements (CSV or TSV)", type=["csv", "tsv"], key="he_upload")
        if upload is not None:
            content, name = upload.getvalue(), upload.name
    if content is None and judge is None:
        st.info("Upload judgements in one of two schemas. **RUSSE-2022** (`humaneval_textdetox_ru`): `toxic_sentence` (or "
                "`original`), `neutral_sentence` (or `method_output`), `participant_name`, `non-toxicity`, `content`, "
                "`fluency`, `J`. **Multilingual** (TextDetox human evaluation, `eval-of-detox-eval`): `toxic_sentence`, "
                "`neutral_sentence`, `lang`, `participant_name`, `toxic_pairwise_score`, `content_score`, "
                "`fluency_score`, optionally `neutral_sentence_gold` (the reference). Metric columns such as "
                "`CLS_OLD_GEN`, `SIM-INPUT-GEN`, `XCOMET-LITE` are used as automatic metrics.", icon=":material/info:")
        st.stop()
    if judge is not None:
        frame = judges[judge].assign(neutral_sentence_reference="")  # the sample has no references
        automatic_notice(judge)
        key = f"judge:{judge}:{len(frame)}:{edition.name}"
    else:
        try:
            frame = judgements(content, name, "" if bertscore.off_reason() else bertscore.signature())
        except DetoxInputError as err:
            st.error(render.md(err, None), icon=":material/error:")
            st.stop()
        key = hashlib.sha1(content).hexdigest()
    if judges and with_judges:
        frame = add_judge_columns(frame, judges, skip=[judge] if judge else ())
        key += "|judges"
        gaps = judge_missing(frame, [n for n in judges if n != judge])
        st.caption(f"**LLM judges as metrics** (`<judge> (LLM):sta` ...), joined to the {len(frame):,} judged outputs by "
                   "system and texts; no label (a pair the judge did not see, or an answer it could not give) is n/a, "
                   "left out of the statistics: " + "; ".join(
                       f"{render.md(n)}: " + (", ".join(f"{a.upper()} {m:,}" for a, m in g.items() if m) or "none missing")
                       for n, g in gaps.items()) + ".")
    if with_embedded:
        try:
            frame = add_embedded(frame)
        except EmbeddedMissingError as err:
            st.warning(f"Embedded preset: {err}")
    key += str("embedded:sta" in frame.columns)
    frame = preset_section(frame, list(edition.presets))
    key += "|" + ",".join(c for c in frame.columns if ":" in c)
    if with_stored:
        key += str(tuple(shared_store().list()["id"].tolist()))
        frame, joined = cached_join(key, frame)
        if joined.empty:
            st.caption("**Stored submissions:** none matches a judged system. A stored submission is joined when its "
                       "name (without its split and extension: `_test.txt`, `_sample.tsv` ...) is a judged system's "
                       "name and its inputs and outputs are the judged ones; score such a file on the **Submissions** "
                       "page.")
        else:
            st.caption("**Stored submissions joined:** " + "; ".join(
                f"{render.md(r.submission)} → system {render.md(r.system)}, {r.rows:,} judged outputs, columns "
                + ", ".join(f"`{c}`" for c in r.columns.split(", ")) for r in joined.itertuples(index=False)))
    if "lang" in frame and choice.source == edition.name and 0 < len(choice.languages) < len(choice.all_languages):
        # The sidebar's languages: every page works on them.
        frame = frame[frame["lang"].isin(choice.languages)].reset_index(drop=True)
        judges = {n: f[f["lang"].isin(choice.languages)] for n, f in judges.items()} if judges else judges
        key += "|" + ",".join(choice.languages)
    all_frame = frame
    metrics = available_metrics(all_frame)
    langs_note = (f" in {all_frame['lang'].nunique()} languages" if "lang" in all_frame else "")
    st.caption(f"{len(all_frame):,} judged outputs of {all_frame['participant_name'].nunique()} systems{langs_note} · "
               "automatic metrics: " + ", ".join(sorted({m for ms in metrics.values() for m in ms})))
    frame, language = language_filter(all_frame, "he_lang")
    key += f"|{language}"
    metrics = available_metrics(frame)
    return Judged(choice, frame, all_frame, key, metrics, language, judge, name, judges)

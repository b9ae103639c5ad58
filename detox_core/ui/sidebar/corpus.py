"""The shared sidebar: which corpus every page works on.

``app.py`` renders it once per run, before the page, and leaves the choice in the
session state; a page run on its own (tests) renders it itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from detox_core import editions
from detox_core.data.multilingual import answered_splits
from detox_core.errors import DetoxError, DetoxInputError
from detox_core.lexicons import ToxicLexicon
from detox_core.deployment.addresses import UNKNOWN
from detox_core.ui.app import auth, cache, render
from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.ui.app.params import accept_plain_values, keep_options
from detox_core.ui.app.submission_store import shared_store
from detox_core.vocab import in_language_order, language_label, language_name

CHOICE_KEY = "_corpus_choice"
OWNER_KEY = "_sidebar_owner"
UPLOAD = "upload"
HELD_KEY = "_held_upload"  # (file id and name, prepared frames, holding)
MAX_UPLOAD_MB = 50


@dataclass
class CorpusChoice:
    """The corpus picked in the sidebar.

    Attributes:
        source: a registered dataset name, or ``"upload"``.
        label: human-readable name of the source.
        splits: the chosen splits (``("upload",)`` for an uploaded file).
        prepared: :func:`detox_core.analysis.corpus.prepare_corpus` frame, None if no data.
        edits: :func:`detox_core.analysis.corpus.prepare_edits` frame, None if no data.
        lexicon: the toxic lexicon in use (may be empty).
        problem: why there is no data, in words a user can act on.
        languages: the languages picked (a multilingual corpus), in the corpus's order;
            ``prepared`` and ``edits`` hold only their rows. Empty for a corpus without a
            ``lang`` column.
        all_languages: every language of the corpus.
        whole: the prepared corpus of every language (what a submission answers); the
            same frame as ``prepared`` for a monolingual corpus.
        lexicons: a multilingual corpus's toxic lexicon per language (built by
            ``build-lexicons``); :meth:`lexicon_for` picks the one of a row.
    """

    source: str
    label: str
    splits: tuple[str, ...] = ()
    prepared: pd.DataFrame | None = None
    edits: pd.DataFrame | None = None
    lexicon: frozenset[str] = field(default_factory=frozenset)
    problem: str | None = None
    languages: tuple[str, ...] = ()
    all_languages: tuple[str, ...] = ()
    whole: pd.DataFrame | None = None
    lexicons: dict[str, ToxicLexicon] = field(default_factory=dict)

    def lexicon_for(self, lang: str | None) -> frozenset[str]:
        """The lexicon of a text in ``lang``: its language's list in a multilingual corpus
        (empty when that language has none), else the corpus's lexicon."""
        if self.multilingual or self.lexicons:
            lex = self.lexicons.get(lang or "")
            return lex.words if lex is not None else frozenset()
        return self.lexicon

    @property
    def ok(self) -> bool:
        return self.prepared is not None

    @property
    def multilingual(self) -> bool:
        return bool(self.all_languages)

    @property
    def edition(self) -> editions.Edition | None:
        """The registered edition picked, None for an upload."""
        return editions.EDITIONS.get(self.source)


UPLOAD_LABEL = "Upload a corpus TSV"


def _source_labels() -> dict[str, str]:
    """Option label -> source. Bound widgets put the label in the URL, so labels are
    short and stable: ``?dataset=RUSSE-2022``."""
    return {**{ds.short: name for name, ds in editions.EDITIONS.items()}, UPLOAD_LABEL: UPLOAD}


def render_sidebar(owner: str = "page") -> CorpusChoice:
    """Draw the dataset/split pickers and return (and remember) the choice.

    Args:
        owner: ``"app"`` when called by app.py, so that pages reuse the choice
            instead of drawing the widgets a second time.
    """
    st.session_state[OWNER_KEY] = owner
    labels = _source_labels()
    with st.sidebar:
        st.subheader("Data")
        label = st.selectbox(
            "Dataset", list(labels), key="dataset", bind="query-params",
            help="A dataset fetched with `python -m detox_core fetch-data`, or a TSV file of your own.",
        )
        source = labels[label]
        if source == UPLOAD:
            choice = _upload_choice()
        else:
            st.session_state.pop(HELD_KEY, None)  # an upload of this tab is given back
            choice = _dataset_choice(source)
        if choice.ok:
            langs = f" · {len(choice.languages)} language(s)" if choice.multilingual else ""
            st.caption(f"{len(choice.prepared):,} toxic sentences · {len(choice.edits):,} paraphrases{langs}")
    st.session_state[CHOICE_KEY] = choice
    return choice


def _dataset_choice(name: str) -> CorpusChoice:
    ds = editions.EDITIONS[name]
    available = ds.available_splits()
    if not available:
        st.warning("Not fetched yet.")
        if ds.files and st.button(f"Fetch the {ds.short} data", icon=":material/download:"):
            _fetch_with_progress(ds)
        return CorpusChoice(
            name, ds.title,
            problem=(
                f"The {ds.title} files are not in `{ds.root()}`. Fetch them with "
                "`python -m detox_core fetch-data` (from a mirror with `--mirror DIR`), or pick "
                "**Upload a corpus TSV** in the sidebar to explore a file of your own."
            ),
        )
    default = keep_options("splits", available)
    splits = st.multiselect(
        "Splits", available, default=default, key="splits", bind="query-params",
        help="Every page works on these splits.",
    )
    if not splits:
        return CorpusChoice(name, ds.title, problem="Pick at least one split in the sidebar.")
    prepared, edits = cache.prepared_dataset(name, tuple(splits))
    return _with_languages(CorpusChoice(name, ds.title, tuple(splits), prepared, edits, cache.lexicon(name)))


def _with_languages(choice: CorpusChoice) -> CorpusChoice:
    """A multilingual corpus: the language picker, and the choice cut to the picked languages."""
    if choice.prepared is None or "lang" not in choice.prepared.columns:
        choice.whole = choice.prepared
        return choice
    choice.whole = choice.prepared
    choice.lexicons = cache.language_lexicons()
    present = in_language_order(choice.prepared["lang"])  # the editions' order, whatever the file's
    accept_plain_values("languages", present, language_label, aliases=lambda code: [language_name(code)],
                        multiple=True)
    default = keep_options("languages", present)
    # In a form: picking several languages is one rerun on Apply, not one per chip (about
    # 2.5 s each on a whole edition).
    with st.form("languages_form", border=False, enter_to_submit=False):
        picked = st.multiselect(
            "Languages", present, default=default, key="languages", bind="query-params",
            format_func=language_label,
            help="Every page works on these languages; scores are given per language and as the edition's "
            "mean. Pick them, then press **Apply**.",
        )
        st.form_submit_button("Apply", icon=":material/check:", width="stretch")
    choice.all_languages = present
    if not picked:
        choice.problem = "Pick at least one language in the sidebar."
        choice.prepared = choice.edits = None
        return choice
    choice.languages = tuple(code for code in present if code in picked)
    if len(choice.languages) < len(present):
        choice.prepared = choice.prepared[choice.prepared["lang"].isin(choice.languages)]
        keep = set(choice.prepared["pair_id"])
        choice.edits = choice.edits[choice.edits["pair_id"].isin(keep)]
    return choice


def _fetch_with_progress(edition: editions.Edition) -> None:
    """Run fetch-data for ``edition`` from the app, with a progress bar; rerun when it succeeded."""
    files = edition.files
    bar = st.progress(0.0, text="Fetching…")
    done: list[editions.FetchResult] = []

    def progress(result: editions.FetchResult) -> None:
        done.append(result)
        bar.progress(len(done) / len(files), text=f"{result.rel}: {result.status}")

    report = edition.fetch(progress=progress)
    if report.ok:
        st.rerun()
    st.error(
        f"{len(report.missing)} of {len(files)} files could not be fetched:\n"
        + "\n".join(f"- `{r.rel}`: {r.detail}" for r in report.missing)
    )


def _upload_choice() -> CorpusChoice:
    upload = st.file_uploader(
        "Corpus TSV", type=["tsv", "txt"], key="corpus_upload",
        help="Tab-separated, UTF-8, with a header: toxic_comment, neutral_comment1..3 (optional), index "
             "(optional); or a multilingual file: toxic_sentence, lang, neutral_sentence (optional). "
             f"At most {cache.MAX_CORPUS_UPLOAD_BYTES // 2**20} MB.",
    )
    label = "Uploaded corpus"
    if upload is None:
        st.session_state.pop(HELD_KEY, None)  # the upload removed: given back
        return CorpusChoice(
            UPLOAD, label,
            problem=(
                "Upload a tab-separated UTF-8 file in the sidebar. Its header names the columns: "
                "`toxic_comment` (required), `neutral_comment1`..`neutral_comment3` (paraphrases, "
                "empty = none) and an optional integer `index`; a multilingual file has `toxic_sentence`, `lang` "
                "(ISO code) and optionally `neutral_sentence`, as the TextDetox datasets."
            ),
        )
    try:
        prepared, edits = _held_upload(upload)
    except DetoxInputError as err:
        st.error(render.md(err, None))
        what = "The upload was not kept" if isinstance(err, cache.UploadRoomError) else "The file could not be read"
        return CorpusChoice(UPLOAD, upload.name, problem=f"{what}: {render.md(err, None)}")
    return _with_languages(CorpusChoice(UPLOAD, upload.name, ("upload",), prepared, edits,
                                        cache.lexicon(editions.default_edition().name)))


def _no_room(store: cache.HeldUploads, why: str, name: str) -> cache.UploadRoomError:
    if why == "address":
        return cache.UploadRoomError(
            f"the open tabs of your address hold uploaded corpora up to its share of this server "
            f"({store.address_bytes() / 2**20:.0f} of the {store.budget_bytes / 2**20:.0f} MB kept for them): close a tab "
            "that holds one, or choose a shipped corpus in it, and try again", name)
    return cache.UploadRoomError(f"the server holds {store.count} uploaded corpora of open tabs "
                                 f"({store.held_bytes / 2**20:.0f} of its {store.budget_bytes / 2**20:.0f} MB for "
                                 "them): try again when some of those tabs have closed", name)


def _held_upload(upload) -> tuple[pd.DataFrame, pd.DataFrame]:
    """This tab's prepared upload: prepared once and held while the tab lives, within the
    process's budget for held uploads (:class:`detox_core.ui.app.cache.HeldUploads`)."""
    held = st.session_state.get(HELD_KEY)
    if held is not None and held[0] == (upload.file_id, upload.name):
        return held[1]
    st.session_state.pop(HELD_KEY, None)  # the tab's earlier upload is given back first
    store = cache.held_uploads()
    client = auth.client_id()
    client = None if client == UNKNOWN else client  # a test harness or a script: the server's budget only
    content = upload.getvalue()
    if why := store.refusal(int(len(content) * cache.PREPARED_PER_FILE_BYTE), client):
        raise _no_room(store, why, upload.name)
    with st.spinner("Reading the uploaded corpus…"):
        frames = cache.prepared_upload(content, upload.name)
    nbytes = cache.frames_bytes(frames)
    holding = store.hold(nbytes, client)
    if holding is None:
        raise _no_room(store, store.refusal(nbytes, client) or "server", upload.name)
    st.session_state[HELD_KEY] = ((upload.file_id, upload.name), frames, holding)
    return frames


def current_choice() -> CorpusChoice:
    """The choice ``app.py`` made this run; renders the sidebar when run alone."""
    ensure_app_navigation()
    choice = st.session_state.get(CHOICE_KEY)
    if st.session_state.get(OWNER_KEY) == "app" and isinstance(choice, CorpusChoice):
        return choice
    return render_sidebar()


#: The key of the "Test set" picker: one for every scoring page, so the choice made on one
#: is the choice on the others, and in links (``?split=dev``).
SPLIT_KEY = "split"


def split_picker(choice: CorpusChoice, container=st, **kwargs) -> str:
    """The "Test set" picker of the scoring pages (Submissions, Leaderboard, Compare).

    One choice for every page of the session and in the address. Before the visitor
    chooses (and without one in the link), it opens on a split that has something scored:
    ``test`` when it has, else the first split that has, else ``test``."""
    splits = list(choice.splits)
    keep_options(SPLIT_KEY, splits)  # a split of another corpus, remembered from before: dropped
    chosen = st.session_state.get(_SPLIT_CHOSEN)
    if chosen in splits and st.session_state.get(SPLIT_KEY) != chosen:
        # Chosen on another page: a page's own address (restored when the visitor comes back
        # to it) must not bring back an older choice.
        st.session_state[SPLIT_KEY] = chosen
    elif SPLIT_KEY not in st.session_state and st.query_params.get(SPLIT_KEY) not in splits and splits:
        # (a link's split that is not one of these is dropped by Streamlit: the default holds)
        try:
            scored = set(shared_store().splits(choice.source))
        except Exception:  # noqa: BLE001 - the store's outage is said by the page itself
            scored = set()
        order = ["test", *splits]
        st.session_state[SPLIT_KEY] = next((s for s in order if s in splits and s in scored),
                                           "test" if "test" in splits else splits[0])
    return container.selectbox("Test set", splits, key=SPLIT_KEY, bind="query-params", persist_state="session",
                               on_change=_remember_split, **kwargs)


_SPLIT_CHOSEN = "_split_chosen"


def _remember_split() -> None:
    st.session_state[_SPLIT_CHOSEN] = st.session_state.get(SPLIT_KEY)


def choose_split(split: str) -> None:
    """Set the test set of every scoring page (a button's callback)."""
    st.session_state[SPLIT_KEY] = st.session_state[_SPLIT_CHOSEN] = split


def offer_answered_split(upload, choice: CorpusChoice, split: str) -> None:
    """A multilingual file that answers another split than the one picked (the shipped 2025
    sample is ``dev``; the picker starts on ``test``): say so, and switch with one click."""
    key = (upload.file_id, choice.source)
    if st.session_state.get("_sub_answered_key") != key:
        try:
            counts = answered_splits(upload.getvalue(), choice.whole, name=upload.name)
        except DetoxError:
            counts = {}  # an unreadable file: scoring says what is wrong, with its line
        st.session_state["_sub_answered_key"], st.session_state["_sub_answered"] = key, counts
    counts = st.session_state["_sub_answered"]
    best = max(counts, key=counts.get) if counts else None
    if best is None or best == split or counts[best] <= counts.get(split, 0):
        return
    st.info(f"This file answers the **{best}** split: {counts[best]:,} of its rows are inputs of `{best}`, "
            f"{counts.get(split, 0):,} of `{split}`.", icon=":material/swap_horiz:")
    st.button(f"Score it against {best}", key="sub_use_answered_split", icon=":material/swap_horiz:",
              on_click=choose_split, args=(best,))


def split_languages(choice: CorpusChoice, split: str) -> tuple[str, ...]:
    """The languages picked in the sidebar that have inputs in ``split`` (TextDetox 2025's
    test split holds 9 of its 15 languages): what a submission of that split can answer.
    Says which picked languages it has none of, once, under the test-set picker."""
    whole = choice.whole if choice.whole is not None else choice.prepared
    picked = tuple(choice.languages)
    if not picked or whole is None or "lang" not in whole.columns or "split" not in whole.columns:
        return picked
    present = set(whole.loc[whole["split"] == split, "lang"])
    here = tuple(c for c in picked if c in present)
    absent = [c for c in picked if c not in present]
    if absent and here:
        st.caption(f"The {render.md(split, None)} split has inputs in {len(here)} of the {len(picked)} languages "
                   f"picked: none in {', '.join(language_name(c) for c in absent)}. Scores and completeness here are "
                   "over those it has.")
    return here if here else picked

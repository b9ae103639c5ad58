"""The models' warm-up (:mod:`detox_core.metrics.warmup`) as people see it: a line in the sidebar
while the models warm, and a word on the Live scoring page when a score comes before them."""

from __future__ import annotations

import ast
import importlib
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit import runtime

from detox_core import config, editions
from detox_core.config import app_root
from detox_core.lexicons import read_lexicons
from detox_core.lexicons.build import build_lexicons
from detox_core.metrics import warmup
from detox_core.metrics.registry import preset_label
from detox_core.text import warm_stemmers
from detox_core.ui.app import cache, render

log = logging.getLogger(__name__)

#: Seconds between two updates of the sidebar's line while the models warm.
REFRESH_S = 1.0


def render_warmup_status() -> None:
    """In the sidebar: while the models warm, "Warming models: <preset> 3/6 · <step>",
    updated every second by a fragment (the page itself does not rerun) that stops
    refreshing once the warm-up is over; then the presets that are warm; and a warning
    per preset that could not be warmed, with the reason."""
    state = warmup.state()
    if not state.started:
        return
    with st.sidebar:
        if state.warming:
            _live_status()
        else:
            _draw(state)


@st.fragment(run_every=REFRESH_S)
def _live_status() -> None:
    state = warmup.state()
    _draw(state)
    if not state.warming:
        _stop_refreshing()


def _draw(state: warmup.State) -> None:
    if line := state.line():
        icon = ":material/hourglass_top:" if state.warming else ":material/check_circle:"
        st.caption(f"{icon} {render.md(line, None)}")
    for preset, why in state.errors.items():
        st.warning(f"**{render.md(preset_label(preset))}** could not be warmed: {render.md(why, None)}.",
                   icon=":material/warning:")


def _stop_refreshing() -> None:
    """Tell this session's browser to stop rerunning the current fragment: the message
    Streamlit sends for a fragment that is gone (it has no public call for it). Without
    it the line stays right and the fragment goes on rerunning every second until the
    page's next run."""
    try:
        # Streamlit's internals, imported here: another Streamlit without them falls back below.
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

        ctx, fragment_id = get_script_run_ctx(), ThreadState.get().fragment_id
        if ctx is None or not fragment_id:
            return
        msg = ForwardMsg()
        msg.stop_auto_rerun.fragment_ids.append(fragment_id)
        ctx.enqueue(msg)
    except (ImportError, AttributeError):  # another Streamlit: the fragment keeps refreshing, harmlessly
        return


@contextmanager
def warming_notice(preset: str) -> Iterator[None]:
    """Around a score: while ``preset``'s models are still warming (or waiting for their
    turn), say so; the notice goes when the score is over. The score never waits for the
    whole warm-up: it loads what it needs through the same locks (a model the warm-up is
    loading is waited for, one it has not reached yet the score loads itself), so a Russian
    score does not wait for the other languages' models."""
    state = warmup.state()
    item = state.item(preset)
    if item is None or not state.pending(preset):
        yield
        return
    note = st.empty()
    if item.status == "warming":
        note.info(f"The models of **{render.md(item.label)}** are still warming up ({item.done}/{item.total}"
                  + (f" · {render.md(item.step)}" if item.step else "") + "): this first score loads what it "
                  "needs and may take a few seconds longer than the next ones.", icon=":material/hourglass_top:")
    else:
        now = state.current
        note.info(f"The models of **{render.md(item.label)}** are still to be warmed"
                  + (f" (after {render.md(now.label)})" if now else "") + ": this first score loads them itself, "
                  "which takes longer than the next ones.", icon=":material/hourglass_top:")
    try:
        yield
    finally:
        note.empty()


def app_steps(wait_for_server: bool = False) -> list[warmup.Step]:
    """What the pages need before any model, for the warm-up to do first
    (:func:`detox_core.metrics.warmup.start`): the modules the entry script and the pages import
    (about 3 s on a 2-core machine), then the per-language lexicons, the stemmers that compare
    insults (nltk: about 1.7 s) and the corpus the sidebar opens on (about 2.5 s). The first visitor of a fresh process finds them
    done; the caches are the pages' own (:mod:`detox_core.ui.app.cache`), so nothing is held twice.

    ``wait_for_server``: first wait (at most 30 s) until Streamlit's runtime exists, as the
    launcher starts the warm-up before the server: the pages' data caches then live in the
    runtime's storage, as they would had a page made them."""
    steps: list[warmup.Step] = [("the pages' code", import_page_modules),
                                ("the toxic lexicons (built once)", build_missing_lexicons),
                                ("the word stemmers", warm_stemmers),
                                ("the default corpus", prepare_default_corpus)]
    return [("the server", _await_runtime), *steps] if wait_for_server else steps


def _await_runtime(timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not runtime.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


class _QuietWarmup(logging.Filter):
    """Streamlit's "missing ScriptRunContext" warning, logged when a cached loader runs
    outside a page (the warm-up's thread fills the pages' caches): expected there, so dropped
    for that thread only."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.threadName == warmup.THREAD_NAME and "missing ScriptRunContext" in record.getMessage())


logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_QuietWarmup())


def page_modules() -> list[str]:
    """The modules ``app.py`` and ``pages/*.py`` import, in the order they name them (read
    from their source: the pages are scripts, not modules)."""
    names: list[str] = []
    for path in [app_root() / "app.py", *sorted((app_root() / "pages").glob("*.py"))]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.append(node.module)
    return list(dict.fromkeys(n for n in names if n != "__future__"))


def import_page_modules() -> None:
    for name in page_modules():
        try:
            importlib.import_module(name)
        except Exception as err:  # noqa: BLE001 - the page itself will say what is wrong
            log.warning("warm-up: could not import %s: %s", name, err)


def build_missing_lexicons() -> None:
    """Build the per-language lexicons when the data folder has none (an installed copy whose
    data command was never run): without them the Delete baseline is off outside Russian.
    Built from what the folder holds now (`fetch-data` builds them again from the fetched data)."""
    root = config.data_dir()
    if read_lexicons(root):
        return
    try:
        built = build_lexicons(root)
    except (OSError, ValueError) as err:  # a read-only data folder: the pages say the lists are missing
        log.warning("warm-up: the toxic lexicons could not be built in %s: %s", root / "lexicons", err)
        return
    log.info("warm-up: %d toxic lexicons built in %s", len(built), root / "lexicons")


def prepare_default_corpus() -> None:
    """The corpus the sidebar opens on (the first edition, every split that is here), its
    lexicon, and the per-language lexicons Live scoring reads; nothing when it is not fetched."""
    name = next(iter(editions.EDITIONS))
    splits = editions.EDITIONS[name].available_splits()
    if splits:
        cache.prepared_dataset(name, tuple(splits))
        cache.lexicon(name)
    cache.language_lexicons()

"""The models' warm-up (:mod:`detox_core.warmup`) as people see it: a line in the sidebar
while the models warm, and a word on the Live scoring page when a score comes before them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from detox_core import warmup
from detox_core.metrics.registry import preset_label
from detox_core.ui import render

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

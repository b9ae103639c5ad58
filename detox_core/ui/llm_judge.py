"""The LLM judge's endpoint in the app: ``[llm_judge]`` of ``.streamlit/secrets.toml``
(read once per server process) and the organizers' settings in the sidebar, both
server-wide like the model pool's folders. The key is kept in memory only and never
shown: the page says only whether one is set.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from detox_core.errors import DetoxInputError
from detox_core.judge.runner import MAX_CONCURRENCY, LLMJudge, cost_text
from detox_core.judge.settings import KEYS, resolve, server_settings, set_server_settings
from detox_core.ui import auth, render

#: secrets.toml keys read under ``[llm_judge]`` (``template``: a TOML file on the server).
SECRET_KEYS = KEYS


def _secrets() -> dict[str, Any]:
    return {k: v for k in SECRET_KEYS if (v := auth._secret("llm_judge", k)) not in (None, "")}


@st.cache_resource(show_spinner=False)
def _apply_secrets_once() -> bool:
    """Start the server-wide settings from ``secrets.toml`` (once per process: an organizer's
    later change is not undone by the next rerun)."""
    secrets = _secrets()
    if secrets:
        set_server_settings(**secrets)
    return True


def render_llm_judge_settings() -> None:
    """Sidebar expander: the judge's endpoint (organizers edit it; visitors see its state)."""
    _apply_secrets_once()
    try:
        settings = resolve()
        problem = None
    except DetoxInputError as err:
        settings, problem = None, str(err)
    with st.sidebar.expander("LLM judge", icon=":material/smart_toy:"):
        if problem:
            st.error(render.md(problem, None), icon=":material/error:")
        elif settings.endpoint.configured:
            prices = (f"${settings.price_in:g} / ${settings.price_out:g} per 1M input / output tokens"
                      if settings.price_in is not None and settings.price_out is not None else "prices unknown")
            st.caption(f"**Endpoint** {render.md(settings.endpoint.public)} · model {render.md(settings.endpoint.model)}"
                       f" · key {'set' if settings.endpoint.key else 'not set'} · {settings.concurrency} requests at "
                       f"a time · {prices}.")
        else:
            st.caption("**Not configured**: the LLM judge preset cannot run. Set `OPENAI_BASE_URL` and "
                       "`DETOX_LLM_MODEL` (and `OPENAI_API_KEY`), or `[llm_judge]` in `.streamlit/secrets.toml`"
                       + (", or below." if auth.is_organizer() else "."))
        if not auth.is_organizer():
            return
        current = server_settings()
        with st.form("llm_judge_form", border=False):
            base_url = st.text_input("Base URL", value=str(current.get("base_url", "")), max_chars=500, key="llmj_base_url",
                                     placeholder="https://api.openai.com/v1 or http://localhost:8000/v1")
            model = st.text_input("Model", value=str(current.get("model", "")), max_chars=200, key="llmj_model")
            key = st.text_input("API key", type="password", value="", max_chars=500, key="llmj_key",
                                placeholder="unchanged (never shown)",
                                help="Kept in this server's memory only: not stored, logged or shown.")
            concurrency = st.number_input("Requests at a time", 1, MAX_CONCURRENCY, int(current.get("concurrency", 8)),
                                          key="llmj_concurrency")
            c1, c2 = st.columns(2)
            price_in = c1.number_input("$ / 1M input tokens", min_value=0.0, value=current.get("price_in"),
                                       placeholder="unknown", format="%.4f", key="llmj_price_in")
            price_out = c2.number_input("$ / 1M output tokens", min_value=0.0, value=current.get("price_out"),
                                        placeholder="unknown", format="%.4f", key="llmj_price_out")
            if st.form_submit_button("Apply to this server"):
                values = {**current, "base_url": base_url.strip(), "model": model.strip(),
                          "concurrency": int(concurrency), "price_in": price_in, "price_out": price_out}
                with_key = {"api_key": key.strip()} if key.strip() else {}
                try:
                    set_server_settings(keep_key=True, **values, **with_key)
                    resolve()
                except DetoxInputError as err:
                    st.error(render.md(err, None), icon=":material/error:")
                else:
                    st.rerun()



def estimate_caption(inputs: list[str]) -> str | None:
    """Before a run on ``inputs``: the requests, tokens and cost of a submission whose outputs
    are as long as the inputs (the cache may make it cheaper); None without an endpoint."""
    try:
        settings = resolve()
    except DetoxInputError:
        return None
    if not settings.endpoint.configured or not inputs:
        return None
    estimate = LLMJudge(settings, cache=_NoCache()).estimate(inputs, inputs, check_cache=False)
    return (f"**LLM judge, before a run:** up to {estimate.requests:,} requests (3 per pair and one per input), about "
            f"{estimate.prompt_tokens:,} input and {estimate.completion_tokens:,} output tokens, "
            f"{cost_text(estimate.cost)}; answers already in the cache are free.")


class _NoCache:
    """A stand-in for the response cache where nothing is read (an estimate)."""

    def get_many(self, keys):  # noqa: ANN001, ANN201
        return {}

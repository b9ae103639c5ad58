"""The LLM judge's settings in the sidebar: organizers edit the server-wide endpoint (started
from ``secrets.toml`` by :mod:`detox_core.ui.app.llm_endpoint`), like the model pool's
folders. The key is kept in memory only and never shown: the page says only whether one is
set. Visitors see whether they may run the judge and within which limits
(:mod:`detox_core.llm.access`), never the endpoint.
"""

from __future__ import annotations

import streamlit as st

from detox_core.errors import DetoxInputError
from detox_core.llm.access import VisitorPolicy, allowance
from detox_core.llm.runner import MAX_CONCURRENCY, LLMJudge, cost_text
from detox_core.llm.settings import resolve, server_settings, set_server_settings
from detox_core.ui.app import auth, render
from detox_core.ui.app.llm_endpoint import apply_secrets_once


def _visitor_caption(policy: VisitorPolicy) -> str:
    if not policy.visitors:
        return "**For the organizers of this server**: each run is paid for."
    usd = f", ${policy.daily_usd:.2f} a day" if policy.daily_usd is not None else ""
    return (f"**Open to visitors** within limits: {policy.requests_per_hour:,} requests an hour from one address, "
            f"{policy.daily_requests:,} a day for all visitors{usd}.")


def render_llm_judge_settings() -> None:
    """Sidebar expander: the judge's endpoint (organizers edit it; visitors see its state)."""
    apply_secrets_once()
    try:
        settings = resolve()
        problem = None
    except DetoxInputError as err:
        settings, problem = None, str(err)
    with st.sidebar.expander("LLM judge", icon=":material/smart_toy:"):
        if not auth.is_organizer():
            # Visitors learn whether they may run it, never where it runs or which model.
            if problem or not settings.endpoint.configured:
                st.caption("**Not available** on this server.")
            else:
                st.caption(_visitor_caption(allowance().policy))
            return
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
                       "`DETOX_LLM_MODEL` (and `OPENAI_API_KEY`), or `[llm_judge]` in `.streamlit/secrets.toml`, "
                       "or below.")
        state = allowance().state()
        st.caption(_visitor_caption(allowance().policy) + f" Today: {state['requests_today']:,} visitor requests, "
                   f"${state['usd_today']:.2f}.")
        current = server_settings()
        if st.session_state.pop("llmj_key_dropped", False):
            st.warning("The API key belonged to the old base URL's host and was not kept for the new one (a key "
                       "is sent only to the host it was given for): type the key for the new host.",
                       icon=":material/key_off:")
        # Cleared on submit: a key typed once is not sent again with the next change (to another host).
        with st.form("llm_judge_form", border=False, clear_on_submit=True):
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
            policy = allowance().policy
            visitors = st.toggle("Visitors may run it", value=policy.visitors, key="llmj_visitors",
                                 help="Off: only organizers (signed in) run the judge. On: visitors too, within the "
                                      "limits below; the endpoint and model are never shown to them.")
            v1, v2 = st.columns(2)
            per_hour = v1.number_input("Visitor requests / hour", 0, 100_000, policy.requests_per_hour,
                                       key="llmj_per_hour", help="From one address.")
            per_day = v2.number_input("Visitor requests / day", 0, 10_000_000, policy.daily_requests,
                                      key="llmj_per_day", help="All visitors together.")
            usd_day = st.number_input("Visitors' $ / day", min_value=0.0, value=policy.daily_usd,
                                      placeholder="no cap", format="%.2f", key="llmj_usd_day",
                                      help="All visitors together, estimated from the prices above; empty = no "
                                           "dollar cap (the request caps still hold).")
            if st.form_submit_button("Apply to this server"):
                values = {**current, "base_url": base_url.strip(), "model": model.strip(),
                          "concurrency": int(concurrency), "price_in": price_in, "price_out": price_out}
                with_key = {"api_key": key.strip()} if key.strip() else {}
                try:
                    kept = set_server_settings(keep_key=True, **values, **with_key)
                    resolve()
                    allowance().set_policy(VisitorPolicy(bool(visitors), int(per_hour), int(per_day), usd_day))
                    if kept is False:
                        st.session_state["llmj_key_dropped"] = True
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

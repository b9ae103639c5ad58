"""The LLM judge's endpoint on this server: ``[llm_judge]`` of ``.streamlit/secrets.toml``,
read once per server process into the server-wide settings (:mod:`detox_core.llm.settings`)
and the visitors' allowance (:mod:`detox_core.llm.access`). The organizers change them in
the sidebar (:mod:`detox_core.ui.sidebar.llm_judge`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from detox_core.db import default_url, make_engine
from detox_core.llm.access import VisitorPolicy, allowance, share
from detox_core.llm.settings import KEYS, set_server_settings
from detox_core.ui.app import auth

#: secrets.toml keys of the visitors' access under ``[llm_judge]``.
POLICY_KEYS = ("visitors", "visitor_requests_per_hour", "visitor_daily_requests", "visitor_daily_usd")
#: secrets.toml keys read under ``[llm_judge]`` (``template``: a TOML file on the server).
SECRET_KEYS = KEYS + POLICY_KEYS


def _secrets() -> dict[str, Any]:
    return {k: v for k in SECRET_KEYS if (v := auth._secret("llm_judge", k)) not in (None, "")}


@st.cache_resource(show_spinner=False)
def apply_secrets_once() -> bool:
    """Start the server-wide settings from ``secrets.toml`` (once per process: an organizer's
    later change is not undone by the next rerun)."""
    secrets = _secrets()
    endpoint = {k: v for k, v in secrets.items() if k in KEYS}
    if endpoint:
        set_server_settings(**endpoint)
    share(make_engine(default_url()))  # the visitors' requests are counted where every process sees them
    allowance().set_policy(VisitorPolicy.from_mapping({k: v for k, v in secrets.items() if k in POLICY_KEYS}))
    return True

"""The shared model pool: one per server process (``st.cache_resource``), so models load
once and serve every session; the model settings of the sidebar
(:mod:`detox_core.ui.sidebar.model_settings`) apply to it, for the whole server."""

from __future__ import annotations

import streamlit as st

from detox_core.metrics.registry import model_roles
from detox_core.models import ModelPool, default_pool


def official_models() -> dict[tuple, str]:
    """(preset, role) -> model kind, for every model a registered preset loads."""
    return {(preset, role): kind for preset, role, kind in model_roles()}


@st.cache_resource(show_spinner=False)
def shared_pool() -> ModelPool:
    """The process-wide model pool.

    Whether there is a GPU is found out when a transformer model first loads (it
    imports torch, seconds): no page waits for it otherwise.
    """
    return default_pool()


def device_text(pool: ModelPool) -> str:
    """The pool's device, or what it will be while it is still being found out."""
    return f"`{pool.device}`" if pool.device_known else "the GPU when there is one, else the CPU"

"""The private parts of Streamlit that the app's limits lean on, checked before it serves.

The per-address limits read the client's address from Streamlit's client context
(``streamlit.runtime.context._get_client_context``), and the sweeper that closes tabs which
stopped beating lists the sessions through the runtime's session manager (``_session_mgr``)
and closes a session's WebSocket (``StarletteSessionClient._websocket``). None of them is
public: a Streamlit that moved one would leave the limits silently doing nothing (every
client "unknown", no tab ever closed). ``detox serve`` therefore refuses to start on such a
Streamlit, naming what is missing (:func:`internals_problem`); ``requirements.txt`` pins the
version these were read from.
"""

from __future__ import annotations

import inspect

import streamlit


def _source_sets(cls: type, attribute: str) -> bool:
    try:
        return f"self.{attribute} =" in inspect.getsource(cls.__init__)
    except (OSError, TypeError):
        return False


def internals_problem() -> str | None:
    """What the app's limits need and this Streamlit lacks (None: all there)."""
    missing: list[str] = []
    try:
        from streamlit.runtime.context import _get_client_context  # noqa: PLC0415 - private, checked here

        if not callable(_get_client_context):
            missing.append("streamlit.runtime.context._get_client_context (each client's address)")
    except ImportError:
        missing.append("streamlit.runtime.context._get_client_context (each client's address)")
    try:
        from streamlit.runtime.runtime import Runtime  # noqa: PLC0415
        from streamlit.runtime.session_manager import SessionManager  # noqa: PLC0415

        if not _source_sets(Runtime, "_session_mgr") or not hasattr(SessionManager, "list_active_sessions"):
            missing.append("Runtime._session_mgr.list_active_sessions (the sweeper's list of sessions)")
    except ImportError:
        missing.append("streamlit.runtime.runtime.Runtime (the sweeper's list of sessions)")
    try:
        from streamlit.web.server.starlette.starlette_websocket import StarletteSessionClient  # noqa: PLC0415

        if not _source_sets(StarletteSessionClient, "_websocket"):
            missing.append("StarletteSessionClient._websocket (closing a tab that stopped beating)")
    except ImportError:
        missing.append("streamlit.web.server.starlette.starlette_websocket (closing a tab that stopped beating)")
    if not missing:
        return None
    return (f"Streamlit {streamlit.__version__} lacks what the app's visitor limits use: {'; '.join(missing)}. "
            "Install the Streamlit version requirements.txt pins (make setup, or pip install -r requirements.txt)")

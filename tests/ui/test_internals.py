"""The Streamlit internals the visitor limits lean on are checked before the app serves: a
Streamlit that moved one stops ``detox serve`` with a message naming it, instead of limits
that silently do nothing (every client "unknown", no idle tab ever closed)."""

from __future__ import annotations

import pytest
import streamlit.runtime.context as st_context
from streamlit.web.server.starlette import starlette_websocket

from detox_core.deployment.addresses import UNKNOWN
from detox_core.deployment.presence import SessionCounter
from detox_core.ui.app.internals import internals_problem


def test_the_pinned_streamlit_has_everything_the_limits_use():
    assert internals_problem() is None


@pytest.mark.parametrize("moved", ["client context", "websocket"])
def test_a_streamlit_that_moved_an_internal_is_named(monkeypatch, moved):
    if moved == "client context":
        monkeypatch.delattr(st_context, "_get_client_context")
        words = "_get_client_context"
    else:
        def __init__(self, websocket, *args, **kwargs):  # noqa: N807 - keeps it under another name
            self._socket = websocket

        monkeypatch.setattr(starlette_websocket.StarletteSessionClient, "__init__", __init__)
        words = "_websocket"
    problem = internals_problem()
    assert problem is not None and words in problem and "requirements.txt" in problem


def test_detox_serve_refuses_to_start_without_them(monkeypatch, capsys):
    from detox_core.ui.app import serve as launcher

    def started(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr(launcher.streamlit_cli, "main", started)
    monkeypatch.setattr(launcher.warmup, "start", started)
    monkeypatch.delattr(st_context, "_get_client_context")
    assert launcher.serve(["--server.port", "1"]) == 2
    assert "_get_client_context" in capsys.readouterr().err


def test_an_unknown_client_is_held_to_the_limits_where_pages_beat():
    """Served by the launcher, a session whose address cannot be read is counted like an
    address (all unknown ones together); only a test harness or a script runs unlimited."""
    served = SessionCounter(3, max_total=100, heartbeat=lambda: True)
    admitted = [served.admit(UNKNOWN, f"s{k}") and served.beat(served.token(f"s{k}")) for k in range(10)]
    assert sum(admitted) == 3
    harness = SessionCounter(3, max_total=100)
    assert all(harness.admit(UNKNOWN, f"s{k}") for k in range(10))

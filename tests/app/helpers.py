"""Helpers shared by the AppTests."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def run(at: AppTest) -> AppTest:
    """Run the app and fail with the page's exceptions, if any."""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at

"""Helpers shared by the AppTests."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def run(at: AppTest) -> AppTest:
    """Run the app and fail with the page's exceptions, if any."""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def annotate_pages(at: AppTest) -> list:
    """The annotator's page components drawn (not the page's other, invisible components)."""
    return [e for e in at.get("bidi_component") if "detox_annotate_page" in e.proto.component_name]

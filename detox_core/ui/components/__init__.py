"""The JavaScript and CSS of the app's Streamlit components, as real files beside this module
(``annotate_page.js``, ``tab_session.js`` ...), read once when a component is declared: they are
linted as JavaScript in the tests (``node --check``), never kept inside Python strings."""

from __future__ import annotations

from importlib import resources


def source(name: str) -> str:
    """The text of the component file ``name`` (e.g. ``"annotate_page.js"``)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")

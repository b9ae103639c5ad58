"""The organizer's project picker sets its value once: no "default value but also set via
Session State" warning of Streamlit in the server's log, when a project has just been created
as when the page opens."""

from __future__ import annotations

import logging

import pandas as pd
import pytest
from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

from detox_core.annotation.store import AnnotationStore
from detox_core.data import PROJECT_ROOT
from tests.app.helpers import run

PROJECTS = str(PROJECT_ROOT / "pages" / "annotation_projects.py")


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def warnings(monkeypatch):
    """The warnings Streamlit's widget policies log (once per process: the flag is reset)."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    handler = _Records()
    logger = logging.getLogger(policies.__name__)
    logger.addHandler(handler)
    yield handler.messages
    logger.removeHandler(handler)


def test_the_project_picker_draws_without_a_session_state_warning(tiny_data, warnings):
    store = AnnotationStore()
    pairs = pd.DataFrame([{"system": "sys", "idx": i, "input": f"токсичный текст {i}", "output": f"текст {i}"}
                          for i in range(4)])
    first, second = (store.create_project(name, ["toxicity"], pairs) for name in ("first", "second"))
    at = AppTest.from_file(PROJECTS, default_timeout=60)
    at.secrets["annotation"] = {"organizer_password": "organizer-pw-12"}
    run(at)
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    assert at.selectbox(key="org_project").value == second.id  # the newest by default
    at.session_state["org_pending_project"] = first.id  # as the New project tab leaves it
    run(at)
    assert at.selectbox(key="org_project").value == first.id
    at.selectbox(key="org_project").set_value(second.id).run()
    assert at.selectbox(key="org_project").value == second.id
    assert not [m for m in warnings if "org_project" in m], warnings

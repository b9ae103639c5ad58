"""AppTests of app.py: navigation, the shared sidebar, every page reachable."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT

BUILT = {"live_scoring.py": "Live scoring", "submissions.py": "Submissions", "leaderboard.py": "Leaderboard",
         "compare.py": "Compare systems", "human_eval.py": "Human vs automatic", "annotate.py": "Annotate",
         "annotation_projects.py": "Annotation projects"}


def test_every_page_file_is_tested():
    pages = {p.name for p in (PROJECT_ROOT / "pages").glob("*.py")}
    assert pages == {"corpus.py", *BUILT}


def test_app_opens_on_the_corpus_page_with_the_shared_sidebar(tiny_data):
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Corpus"
    assert at.sidebar.selectbox(key="dataset").value == "RUSSE-2022"
    assert len(at.dataframe[0].value) == 8


def test_app_sidebar_choice_reaches_the_page(tiny_data):
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    at.sidebar.multiselect(key="splits").set_value(["test"]).run()
    assert not at.exception
    assert list(at.dataframe[0].value["pair_id"]) == ["test-0"]


@pytest.mark.parametrize("page", sorted(BUILT))
def test_app_switches_to_every_page(page, tiny_data):
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(f"pages/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == BUILT[page]
    # The shared sidebar is still there on every page.
    assert at.sidebar.selectbox(key="dataset").value == "RUSSE-2022"

"""Live scoring offline in English, Chinese and Arabic: a visitor types a real toxic input
of the TextDetox editions and gets the Delete baseline's rewrite as a candidate, at 1400
and 800 px. The lexicons are built (``build-lexicons``) when the data has none."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from detox_core.lexicons import read_lexicons
from tests.e2e.util import CHROMIUM, no_exception, shot, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

# (language label, a toxic input of the TextDetox 2024 development set, the insult, a word that stays)
CASES = [
    ("English (en)", "Stay the fuck off my page", "fuck", "page"),
    ("Chinese (zh)", "你他妈的就是个傻逼，滚吧", "傻逼", "就是"),
    ("Arabic (ar)", "هذا الرجل غبي جداً.", "غبي", "الرجل"),
]


@pytest.fixture(scope="module")
def lexicon_server(data_root, db_url, tmp_path_factory):
    if not read_lexicons(data_root):
        from detox_core.lexicons.build import build_lexicons

        build_lexicons(data_root)
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": "",
                           "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path_factory.mktemp("hf-cache")),
                           "DETOX_MODEL_DIR": "", "DETOX_MODEL_MAP": ""})
    yield url
    stop_app(proc)


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("lang_label, text, insult, kept", CASES, ids=["en", "zh", "ar"])
def test_delete_suggestion_for_a_typed_sentence(lexicon_server, page, width, lang_label, text, insult, kept):
    page.set_viewport_size({"width": width, "height": 1000})
    query = {"dataset": "TextDetox 2025", "live_lang": lang_label, "live_input": text}
    page.goto(f"{lexicon_server}/live_scoring?" + urllib.parse.urlencode(query))
    wait_idle(page, 120)
    no_exception(page)
    button = page.get_by_role("button", name="Suggest: Delete baseline")
    assert button.is_enabled()
    button.click()
    wait_idle(page, 60)
    no_exception(page)
    candidates = page.get_by_role("textbox", name="Candidate rewrites (one per line)").input_value()
    assert candidates.strip(), "no Delete suggestion"
    assert insult not in candidates and kept in candidates
    assert "  " not in candidates
    if lang_label.startswith("Chinese"):
        assert " " not in candidates  # no stray space where the word was
    shot(page, f"live_delete_{lang_label.split('(')[1][:2]}_{width}")

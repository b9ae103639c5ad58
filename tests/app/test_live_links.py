"""AppTests of Live scoring opened from a shared link: the language the link names (a code in any
case, or a language's name) is the one scored, a text in a script the language is not written in
is said to be, and the Example hint is given only where the Example button works. (These read what
the page says; the browser tests keep what needs a browser.)"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from tests.app.helpers import run

LIVE = str(PROJECT_ROOT / "pages" / "live_scoring.py")
EMBEDDED = "Embedded (offline CPU)"


def _said(at: AppTest) -> str:
    return " ".join(e.value for kind in (at.warning, at.info, at.error, at.caption, at.markdown) for e in kind)


def open_chinese_pair(live_lang: str) -> AppTest:
    """Live scoring on a Chinese pair, from a link naming the language ``live_lang``."""
    at = AppTest.from_file(LIVE, default_timeout=300)
    for key, value in {"dataset": "TextDetox 2025", "live_lang": live_lang, "preset": EMBEDDED,
                       "live_input": "你这个白痴快给我滚开", "live_candidates": "请你离开这里"}.items():
        at.query_params[key] = value
    return run(at)


def test_a_link_with_a_language_code_scores_that_language_and_a_wrong_script_is_said(real_data):
    at = open_chinese_pair("ZH")
    assert at.selectbox(key="live_lang").value == "zh"
    assert "is not written" not in _said(at)
    assert at.metric, "the Chinese pair was not scored"
    # The same Chinese text under Russian (a language's name in the link): scored with the Russian
    # models, and said.
    at = open_chinese_pair("Russian")
    assert at.selectbox(key="live_lang").value == "ru"
    warning = " ".join(w.value for w in at.warning if "is not written" in w.value)
    assert "Chinese characters or kana" in warning and "Chinese (zh)" in warning
    assert at.metric  # scored all the same


@pytest.mark.parametrize(("lang", "has_examples"), [("zh", False), ("ru", True)])
def test_the_example_hint_is_given_only_where_the_example_button_works(real_data, lang, has_examples):
    """RUSSE-2022 in the sidebar has no Chinese sentences: the Example button is disabled and the
    hint does not send people to it."""
    at = AppTest.from_file(LIVE, default_timeout=300)
    at.query_params["live_lang"] = lang
    at.query_params["preset"] = EMBEDDED
    run(at)
    example = next(b for b in at.button if b.label == "Example from the corpus")
    assert example.disabled is not has_examples
    hint = next(i.value for i in at.info if i.value.startswith("Type a toxic sentence and at least one rewrite"))
    assert hint == ("Type a toxic sentence and at least one rewrite (or press **Example from the corpus**)."
                    if has_examples else "Type a toxic sentence and at least one rewrite.")

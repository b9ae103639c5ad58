"""No widget value remembered from an address or an earlier run may break a page.

The sidebar's splits and languages change the data under the pages' widgets (the
Corpus length slider's range, the paraphrase counts offered); a value that no longer
fits is clamped or dropped, and an address with hostile values opens every page.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT

APP = str(PROJECT_ROOT / "app.py")
PAGES = ["corpus", "live_scoring", "submissions", "leaderboard", "compare", "human_eval", "annotate",
         "annotation_projects"]
#: The title each page opens under.
TITLES = {"corpus": "Corpus", "live_scoring": "Live scoring", "submissions": "Submissions", "leaderboard": "Leaderboard",
          "compare": "Compare systems", "human_eval": "Human vs automatic", "annotate": "Annotate",
          "annotation_projects": "Annotation projects"}
#: Every key the pages bind to the address, and a few of their own.
BOUND = ["dataset", "splits", "languages", "q", "regex", "case", "in", "refs", "len", "lex", "chart", "pair",
         "live_lang", "preset", "preset_cal", "split", "sub_preset", "he_tab"]
HOSTILE = {
    "out of range and not numbers": [["-5", "999999"], ["1e309", "nan"], ["abc"]],
    "markup, a huge string and repeats": [["<b>bold</b><script>alert(1)</script>"], ["x" * 20_000],
                                          ["1", "2", "3", "4"]],
}


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.exception]


def apply_languages(at: AppTest, codes: list[str]) -> None:
    at.sidebar.multiselect(key="languages").set_value(codes)
    next(b for b in at.sidebar.button if b.label == "Apply").click().run()


@pytest.fixture(scope="module")
def textdetox2025() -> Path:
    base = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data")) / "textdetox2025"
    if not (base / "dev_inputs.tsv").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"TextDetox 2025 data not fetched into {base}")
        pytest.skip("TextDetox 2025 data not fetched")
    return base


def test_corpus_length_filter_survives_removing_splits(real_data):
    """RUSSE-2022: remove train, then dev (the length range shrinks each time)."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not errors(at)
    at.multiselect(key="splits").set_value(["dev", "test"]).run()
    assert not errors(at), errors(at)
    at.multiselect(key="splits").set_value(["test"]).run()
    assert not errors(at), errors(at)
    slider = at.slider(key="len")
    assert slider.min <= slider.value[0] <= slider.value[1] <= slider.max


def test_a_narrowed_length_filter_is_clamped_to_the_new_range(real_data):
    at = AppTest.from_file(APP, default_timeout=120).run()
    lo = at.slider(key="len").min
    at.slider(key="len").set_range(lo, lo + 6).run()
    at.multiselect(key="refs").set_value([3]).run()  # the test split has one paraphrase per input
    at.multiselect(key="splits").set_value(["test"]).run()
    assert not errors(at), errors(at)
    slider = at.slider(key="len")
    assert slider.min > lo, "the test split's shortest input is longer than the whole corpus's"
    assert slider.value == (slider.min, lo + 6)  # clamped, not reset: the upper bound the user chose stays
    assert at.multiselect(key="refs").value == []  # 3 paraphrases are no longer offered


def test_textdetox2025_languages_cleared_then_picked_one_by_one(textdetox2025):
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.sidebar.selectbox(key="dataset").set_value("TextDetox 2025").run()
    assert not errors(at)
    apply_languages(at, [])
    assert not errors(at) and "Pick at least one language" in " ".join(i.value for i in at.info)
    for picked in (["ar"], ["ar", "zh"], ["ar", "ja", "zh"]):
        apply_languages(at, picked)
        assert not errors(at), (picked, errors(at))
        slider = at.slider(key="len")
        assert slider.min <= slider.value[0] <= slider.value[1] <= slider.max
        assert f"{len(picked)} of 15 languages" in at.caption[0].value


def test_choosing_languages_is_one_rerun_on_apply(textdetox2025):
    """The languages are picked in a form: nothing changes on the page until Apply."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.sidebar.selectbox(key="dataset").set_value("TextDetox 2025").run()
    at.sidebar.multiselect(key="languages").set_value(["de", "en"]).run()  # a rerun without Apply
    assert "15 of 15 languages" in at.caption[0].value
    apply_languages(at, ["de", "en"])
    assert "2 of 15 languages" in at.caption[0].value


def test_every_language_stays_picked_from_one_edition_to_the_next(textdetox2025):
    """All nine languages of TextDetox 2024 picked (the default) are all fifteen of 2025, not
    the nine it shares with 2024; a subset picked by hand is kept where it still exists."""
    base = textdetox2025.parent / "textdetox2024"
    if not (base / "dev_inputs.tsv").is_file():
        pytest.skip("TextDetox 2024 data not fetched")
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.sidebar.selectbox(key="dataset").set_value("TextDetox 2024").run()
    assert "9 of 9 languages" in at.caption[0].value
    at.sidebar.selectbox(key="dataset").set_value("TextDetox 2025").run()
    assert not errors(at), errors(at)
    assert len(at.sidebar.multiselect(key="languages").value) == 15
    assert "15 of 15 languages" in at.caption[0].value
    apply_languages(at, ["en", "ja"])  # ja is new in 2025
    at.sidebar.selectbox(key="dataset").set_value("TextDetox 2024").run()
    assert at.sidebar.multiselect(key="languages").value == ["en"]
    assert "1 of 9 languages" in at.caption[0].value


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_with_a_hostile_address(page, kind, tiny_data):
    for values in HOSTILE[kind]:
        at = AppTest.from_file(str(PROJECT_ROOT / "pages" / f"{page}.py"), default_timeout=120)
        for key in [*BOUND, "unknown_key"]:
            at.query_params[key] = values
        at.run()
        assert not errors(at), (page, values[0][:20], errors(at))
        assert at.title[0].value == TITLES[page]  # the page itself is drawn, under its title
        for md in at.markdown:  # markup from the address is never rendered as markup
            assert not (md.proto.allow_html and "<script>" in md.value), md.value[:200]


def test_address_values_are_clamped_or_dropped(tiny_data):
    at = AppTest.from_file(str(PROJECT_ROOT / "pages" / "corpus.py"), default_timeout=60)
    at.query_params["len"] = ["-5", "999"]
    at.query_params["splits"] = ["nope", "train"]
    at.query_params["lex"] = "sometimes"
    at.run()
    assert not errors(at)
    slider = at.slider(key="len")
    assert slider.value == (slider.min, slider.max)  # out of range: the whole range
    assert at.multiselect(key="splits").value == ["train"]  # the unknown split dropped, the known one kept
    assert at.selectbox(key="lex").value == "any"
    live = AppTest.from_file(str(PROJECT_ROOT / "pages" / "live_scoring.py"), default_timeout=60)
    live.query_params["live_lang"] = "xx"
    live.run()
    assert not errors(live) and live.selectbox(key="live_lang").value == "ru"


def test_a_link_with_an_unknown_test_set_opens_on_test_not_on_the_first_split():
    at = AppTest.from_file(str(PROJECT_ROOT / "pages" / "leaderboard.py"), default_timeout=180)
    at.query_params["split"] = "<b>nonsense</b>"
    at.run()
    assert not at.exception
    assert at.selectbox(key="split").value == "test"


def test_a_language_link_by_code_or_name_opens_on_it_without_a_warning(tiny_data, caplog):
    """?live_lang=zh and ?live_lang=Chinese pick Chinese, set the supported way: no
    "default value but also ... Session State API" warning in the server's log."""
    for value in ("zh", "Chinese", "ZH"):
        caplog.clear()
        live = AppTest.from_file(str(PROJECT_ROOT / "pages" / "live_scoring.py"), default_timeout=60)
        live.query_params["live_lang"] = value
        live.run()
        assert not errors(live) and live.selectbox(key="live_lang").value == "zh", value
        assert not [r for r in caplog.records if "Session State API" in r.getMessage()], caplog.text[-1500:]

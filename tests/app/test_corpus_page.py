"""AppTest of the Corpus page, on a tiny dataset and on the real one."""

from __future__ import annotations

import html
import re

from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT

PAGE = str(PROJECT_ROOT / "pages" / "corpus.py")


def run_page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def visible_text(at: AppTest) -> str:
    """What a reader sees of the page's markdown: tags dropped, entities decoded."""
    raw = "".join(m.value for m in at.markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def table(at: AppTest):
    return at.dataframe[0].value


def test_page_renders_with_key_widgets(tiny_data):
    at = run_page()
    assert at.title[0].value == "Corpus"
    assert at.text_input(key="q").value == ""
    assert at.toggle(key="regex").value is False and at.toggle(key="case").value is False
    assert at.multiselect(key="refs").options == ["1", "2", "3"]
    assert at.slider(key="len") is not None and at.selectbox(key="lex").value == "any"
    assert [b.label for b in at.get("download_button")] == ["Export CSV", "Export corpus TSV"]
    assert len(table(at)) == 8
    assert at.selectbox(key="dataset").value == "RUSSE-2022"
    assert at.multiselect(key="splits").value == ["train", "dev", "test"]


def test_search_narrows_the_table(tiny_data):
    at = run_page()
    at.text_input(key="q").input("дебил").run()
    assert not at.exception
    assert list(table(at)["pair_id"]) == ["train-0", "train-4"]
    assert at.metric[0].value == "2"


def test_filters_and_splits(tiny_data):
    at = run_page()
    at.multiselect(key="splits").set_value(["dev"]).run()
    assert list(table(at)["pair_id"]) == ["dev-0", "dev-1"]
    at.selectbox(key="lex").set_value("absent").run()
    assert len(table(at)) == 0
    assert "No pairs match." in [c.value for c in at.caption]


def test_invalid_regex_shows_an_error_not_a_crash(tiny_data):
    at = run_page()
    at.toggle(key="regex").set_value(True).run()
    at.text_input(key="q").input("(дебил").run()
    assert not at.exception
    assert any("invalid regular expression" in e.value for e in at.error)
    assert len(table(at)) == 0


def test_pair_from_the_url_is_shown(tiny_data):
    at = run_page({"pair": "train-2"})
    text = visible_text(at)
    assert "какая ерунда эта ваша новость" in text and "неинтересная новость" in text
    assert any("train-2" in c.value for c in at.caption)


def test_unknown_pair_in_the_url_warns(tiny_data):
    at = run_page({"pair": "train-999"})
    assert any("train-999" in w.value for w in at.warning)


def test_user_text_is_html_escaped(tiny_data):
    at = run_page({"pair": "dev-1"})
    raw = "".join(m.value for m in at.markdown)
    assert "<script" not in raw and "<b>" not in raw
    assert "&lt;" in raw and "&gt;" in raw
    text = visible_text(at)
    assert "<script>alert(1)</script> тупой" in text and "<b>не</b> умный" in text


def test_no_data_explains_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    at = run_page()
    text = " ".join(i.value for i in at.info)
    assert "fetch-data" in text and "Upload a corpus TSV" in text
    assert len(at.dataframe) == 0


def test_real_corpus_train_split(real_data, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(real_data.parent))
    at = run_page({"splits": "train"})
    assert len(table(at)) == 6948
    at.text_input(key="q").input("дебил").run()
    n = len(table(at))
    assert 0 < n < 6948


def test_fetch_button_fills_an_empty_data_dir(real_data, tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DETOX_MIRROR", str(real_data))
    at = run_page()
    assert len(at.dataframe) == 0
    at.sidebar.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert (tmp_path / "russe2022" / "train.tsv").is_file()
    assert len(table(at)) == 6948 + 800 + 875


def test_fetch_button_reports_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DETOX_MIRROR", str(tmp_path / "no-mirror"))
    monkeypatch.setattr("detox_core.config.SHARED_MIRRORS", tmp_path / "no-shared")  # no ../shared either
    import dataclasses

    from detox_core.data.fetch import DataFile, count_corpus
    from detox_core.editions import EDITIONS
    from detox_core.editions.russe2022 import RUSSE2022

    monkeypatch.setitem(EDITIONS, "russe2022", dataclasses.replace(RUSSE2022, files=(DataFile("train.tsv", 6948, count_corpus),)))
    at = run_page()
    at.sidebar.button[0].click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.sidebar.error)
    assert "1 of 1 files could not be fetched" in errors and "train.tsv" in errors
    assert "fetch-data" in at.info[0].value  # the page still explains what to do


def test_a_memory_bomb_link_is_refused_with_a_message(tiny_data):
    """A shared link whose pattern unfolds to billions of units when compiled (it took the
    server out of memory in ~12 s) is refused before compiling, and a flag clash gives a
    message, not a traceback with the server's paths."""
    for q, said in [("(?:x{65535}){65535}", "repeats too much"), ("(?V1)x", "inline flags"),
                    ("(?a)(?u)x", "inline flags")]:
        at = run_page({"q": q, "regex": "true"})
        errors = " ".join(e.value for e in at.error)
        assert said in errors, (q, errors)
        assert "Traceback" not in errors and "site-packages" not in errors


def test_charts_of_edits_say_so_when_the_shown_pairs_have_no_paraphrase():
    """An inputs-only edition (TextDetox 2025 ships no paraphrases): the edit charts say
    there is nothing to count instead of drawing empty axes."""
    import os
    from pathlib import Path

    import pytest

    data = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data"))
    if not (data / "textdetox2025" / "dev_inputs.tsv").is_file():
        if os.environ.get("CI"):
            pytest.fail("TextDetox 2025 data not fetched")
        pytest.skip("TextDetox 2025 data not fetched")
    for chart, text in (("Kinds of edit", "no edits to count"), ("Most often removed words", "No word was removed")):
        at = run_page({"dataset": "TextDetox 2025", "chart": chart})
        assert any(text in i.value for i in at.info), (chart, [i.value for i in at.info])
        assert not at.get("plotly_chart"), chart


def test_a_pair_shows_the_toxic_words_people_marked_in_it_as_text(tmp_path, monkeypatch):
    """TextDetox 2024 test inputs: the words people marked (textdetox/multilingual_toxic_spans),
    escaped like any text of the data."""
    base = tmp_path / "textdetox2024"
    base.mkdir()
    (base / "test_inputs.tsv").write_text("toxic_sentence\tlang\nyou stupid <b>idiot</b> go away\ten\n"
                                          "shut up moron\ten\n", encoding="utf-8")
    (base / "toxic_spans.tsv").write_text("toxic_sentence\ttoxic_words\tlang\n"
                                          "you stupid <b>idiot</b> go away \tstupid, <b>idiot</b>\ten\n",
                                          encoding="utf-8")
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    at = run_page({"dataset": "TextDetox 2024", "splits": "test", "pair": "test-en-0"})
    captions = [c.value for c in at.caption]
    marked = [c for c in captions if c.startswith("Toxic words people marked")]
    assert len(marked) == 1 and "textdetox/multilingual_toxic_spans" in marked[0]
    assert "stupid" in marked[0] and "<b>" not in marked[0].replace("\\<b\\>", "")  # shown as text, not markup
    at = run_page({"dataset": "TextDetox 2024", "splits": "test", "pair": "test-en-1"})
    assert not [c for c in at.caption if c.value.startswith("Toxic words people marked")]

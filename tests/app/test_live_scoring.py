"""AppTest of the Live scoring page (embedded preset trained on the tiny corpus)."""

from __future__ import annotations

import html
import re

from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.languages.detect import detector
from tests.app.helpers import run

PAGE = str(PROJECT_ROOT / "pages" / "live_scoring.py")



def metrics(at: AppTest) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in at.metric:
        out.setdefault(m.label, []).append(m.value)
    return out


def test_empty_page_explains_what_to_do(trained):
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    assert at.title[0].value == "Live scoring"
    assert "Type a toxic sentence" in at.info[0].value


def test_scores_every_candidate_and_names_the_limit(trained):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_input"] = "ты дебил, иди отсюда"
    at.session_state["live_candidates"] = "ты неправ, иди отсюда\nты дебил, иди отсюда"
    at.session_state["live_refs"] = "ты не прав, уходи"
    run(at)
    m = metrics(at)
    assert len(m["J"]) == 2 and len(m["STA"]) == 2
    assert all(0 <= float(v) <= 1 for v in m["J"])
    text = " ".join(x.value for x in at.markdown)
    assert "is the lowest axis" in text or "no axis scores low" in text
    # The unchanged copy is flagged.
    assert "unchanged copy of the input" in text
    # chrF against the reference is computed, and the other reference metrics beside it
    # (BERTScore n/a: it is computed only when asked).
    assert all(v != "n/a" for v in m["chrF"])
    lines = [c.value for c in at.caption if c.value.startswith("Against the references")]
    assert len(lines) == 2 and all("BLEU 0." in x and "ROUGE-L 0." in x and "BERTScore n/a" in x for x in lines)
    why = [c.value for c in at.caption if c.value.startswith("BERTScore: n/a")]
    assert len(why) == 1 and "Metric models" in why[0]  # the page says why, and where to turn it on


def test_delete_suggestion_adds_a_candidate(trained):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_input"] = "ну ты и дебил, сука"
    run(at)
    at.button[1].click()  # Suggest: Delete baseline
    run(at)
    assert at.session_state["live_candidates"] == "ну ты и"
    assert len(metrics(at)["J"]) == 1


def test_user_text_is_escaped(trained):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_input"] = "<script>alert(1)</script> дебил"
    at.session_state["live_candidates"] = "<img src=x onerror=alert(2)> человек"
    run(at)
    raw = "".join(m.value for m in at.markdown)
    assert "<script" not in raw and "<img" not in raw
    visible = html.unescape(re.sub(r"<[^>]+>", "", raw))
    assert "<img src=x onerror=alert(2)> человек" in visible


def test_official_preset_without_models_says_so(trained, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_input"] = "ты дебил"
    at.session_state["live_candidates"] = "ты неправ"
    run(at)
    at.segmented_control(key="preset").set_value("RUSSE-2022 official")
    run(at)
    # Said before any load is tried, in the visitor's words.
    assert any("**RUSSE-2022 official** cannot score on this server" in w.value for w in at.warning)
    assert any("Embedded" in i.value for i in at.info)
    assert "J" not in metrics(at)  # nothing scored with zeros


def test_a_request_over_the_limits_is_refused_before_scoring(trained):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_input"] = "ты дебил"
    at.session_state["live_candidates"] = "\n".join(f"вариант {k}" for k in range(11))
    run(at)
    assert not at.metric
    assert "at most 10 are scored" in at.error[0].value and "Candidate rewrites" in at.error[0].value


def test_boxes_of_several_lines_have_no_all_lines_character_counter(trained):
    """A counter such as "72/10010" counts every line together, not the per-line limit."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    run(at)
    for key in ("live_candidates", "live_refs"):
        box = at.text_area(key=key)
        assert not box.max_chars, (key, box.max_chars)
        assert "1,000 characters each" in box.help


def test_two_rewrites_with_equal_scores_from_a_link_render_both_cards(trained):
    """A shared link with two identical rewrites (so equal scores and equal explanations)
    was reported to raise StreamlitDuplicateElementId; every card's elements are its own."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["live_input"] = "ты дебил, иди отсюда"
    at.query_params["live_candidates"] = "ты неправ\nты неправ"
    at.query_params["live_refs"] = "ты неправ"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    values = [m.value for m in at.metric]
    assert len(values) == 10 and values[:5] == values[5:]


def _seq2seq_button(at: AppTest):
    return next(b for b in at.button if "seq2seq" in b.label)


def test_seq2seq_suggestion_offers_the_model_of_the_language_only(trained, monkeypatch):
    """A German or Ukrainian page offers the multilingual TextDetox model, the Russian page
    ruT5; Italian, which no published seq2seq detox model covers, says so (never ruT5)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # the hub on: each model would download on a click
    expected = {"ru": "s-nlp/ruT5-base-detox", "en": "s-nlp/bart-base-detox", "de": "s-nlp/mt0-xl-detox-orpo",
                "uk": "s-nlp/mt0-xl-detox-orpo"}
    for lang, model_id in expected.items():
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.session_state["live_lang"] = lang
        button = _seq2seq_button(run(at))
        assert button.label == "Suggest: seq2seq model" and not button.disabled
        assert model_id in button.help and (lang == "ru") == ("ruT5" in button.help)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_lang"] = "it"
    button = _seq2seq_button(run(at))
    assert button.label == "No seq2seq model for Italian" and button.disabled
    assert "ruT5" not in button.help and "No published seq2seq detoxification model covers Italian" in button.help


def test_a_seq2seq_model_that_cannot_be_had_here_is_said_before_the_click(trained, monkeypatch, tmp_path):
    """With the hub off and no copy of the model, the button is disabled and says why and
    what the organizers can do; a folder mapped to the model id enables it."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["live_lang"] = "ru"
    button = _seq2seq_button(run(at))
    assert button.disabled and "is not on this server and the model hub is off here" in button.help
    assert "DETOX_MODEL_DIR" in button.help and "s-nlp/ruT5-base-detox" in button.help
    from detox_core.ui.app.models import shared_pool

    folder = tmp_path / "rut5"
    folder.mkdir()
    before = dict(shared_pool()._model_map)
    shared_pool().set_model_map({**before, "s-nlp/ruT5-base-detox": str(folder)})
    try:
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.session_state["live_lang"] = "ru"
        assert not _seq2seq_button(run(at)).disabled
    finally:
        shared_pool().set_model_map(before)


def test_the_language_follows_the_typed_text_until_one_is_picked(real_data):
    """TextDetox 2024 opens in English, not Amharic (the first in order); Chinese typed switches
    the page to Chinese; once the visitor picks German, English typed leaves it German."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["dataset"] = "TextDetox 2024"
    run(at)
    if at.sidebar.selectbox(key="dataset").value != "TextDetox 2024":
        import pytest

        pytest.skip("TextDetox 2024 is not fetched here")
    assert at.selectbox(key="live_lang").value == "en"
    at.text_area(key="live_input").input("你是个白痴，闭嘴")
    run(at)
    assert at.selectbox(key="live_lang").value == "zh"
    at.selectbox(key="live_lang").select("de")
    run(at)
    at.text_area(key="live_input").input("You are a complete idiot, shut up.")
    run(at)
    assert at.selectbox(key="live_lang").value == "de"
    # ... and the page says the text reads as English, where its rewrites would be "another language"
    # (told by the detector the server's warm-up builds).
    detector()
    at.text_area(key="live_input").input("You are a complete idiot, shut up!")
    run(at)
    said = [w.value for w in at.warning if "reads as English, not German" in w.value]
    assert len(said) == 1 and "Pick English (en)" in said[0], [w.value for w in at.warning]
    # A link that names the language picked it: Chinese typed leaves it.
    linked = AppTest.from_file(PAGE, default_timeout=120)
    linked.query_params["dataset"] = "TextDetox 2024"
    linked.query_params["live_lang"] = "de"
    run(linked)
    linked.text_area(key="live_input").input("你是个白痴，闭嘴")
    run(linked)
    assert linked.selectbox(key="live_lang").value == "de"


def _elements(node):
    """The page's elements in the order drawn."""
    children = getattr(node, "children", None)
    if not children:
        yield node
        return
    for key in sorted(children):
        yield from _elements(children[key])


def test_a_short_rewrite_carries_the_presets_known_weakness(trained):
    # "Bitte sei still." for "Halt die Fresse, du Idiot." scored SIM 0.12 with nothing said: the
    # card of a short rewrite says the embedded preset's scores of such rewrites are erratic.
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["live_input"] = "ты дебил, иди отсюда и не возвращайся"
    at.session_state["live_candidates"] = "уйди, пожалуйста\nты неправ, иди отсюда и не возвращайся"
    run(at)
    captions = [c.value for c in at.caption]
    short = [c for c in captions if "A short rewrite (2 words)" in c]
    assert len(short) == 1 and "judge this one yourself" in short[0]  # on the short card only
    # Without references, the n/a reference metrics share one line per reason (not a line each).
    reasons = [c.split(": n/a — ", 1)[1] for c in captions if ": n/a — " in c]
    assert reasons and len(reasons) == len(set(reasons)), captions
    assert any(c.startswith("chrF, BLEU, ROUGE-L") for c in captions), captions
    # The caveat is drawn in the short rewrite's card (the first), not in the other one.
    order = [(e.type, e.value) for e in _elements(at.main) if e.type in ("markdown", "caption")]
    cards = [k for k, (kind, value) in enumerate(order) if kind == "markdown" and value.startswith("**Rewrite ")]
    assert len(cards) == 2
    assert any("A short rewrite" in v for _, v in order[cards[0]:cards[1]])
    assert not any("A short rewrite" in v for _, v in order[cards[1]:])


def test_a_more_toxic_rewrite_says_which_insults_it_adds_as_text(trained):
    # "more toxic than the input" beside "P(neutral) of the input: 0.00" read as a contradiction:
    # the card names the insults the rewrite adds (the rewrite's own words, never as markup).
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["live_input"] = "ты дебил, иди отсюда"
    at.session_state["live_candidates"] = "ты дебил и **мудак**, иди отсюда\nты неправ, иди отсюда"
    run(at)
    added = [c.value for c in at.caption if c.value.startswith("Adds toxic words the input does not have")]
    assert len(added) == 1 and added[0].endswith(": мудак")  # the word as a word, not the typed markup

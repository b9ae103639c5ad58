"""The multilingual edition in headless Chromium: Arabic and Chinese pairs shown in their
own direction and script on Corpus and Live scoring, and CodaLab submissions checked on
Submissions (a wrong language code and a missing row refused with both lines named, a
partial submission accepted and marked). Fixtures: ``conftest.py``."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from detox_core.editions.textdetox import TEXTDETOX2024
from tests.e2e.util import CHROMIUM, no_exception, shot, start_app, stop_app, wait_idle
from tests.multilingual import hub_named_models, tsv

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

# (language, toxic input, human paraphrase): the development references a hub copy would give.
PAIRS = [
    ("ar", "أنت غبي جدا ولا تفهم أي شيء", "أنت مخطئ ولا تفهم"),
    ("zh", "你这个白痴快给我滚开", "请你离开这里"),
    ("zh", "你们都是一群蠢货", "你们都错了"),
    ("de", "du bist so ein dummer idiot", "du irrst dich"),
    ("en", "shut up you stupid idiot", "please be quiet"),
    ("ru", "заткнись уже идиот", "помолчи уже"),
]
TEXT = {lang: toxic for lang, toxic, _ in reversed(PAIRS)}  # each language's first input


@pytest.fixture(scope="module")
def textdetox_server(tmp_path_factory, tiny_models):
    root = tmp_path_factory.mktemp("textdetox")
    base = TEXTDETOX2024.root(root)
    base.mkdir(parents=True)
    (base / "dev_references.tsv").write_text(tsv(("toxic_sentence", "neutral_sentence", "lang"),
                                                 [(t, n, lang) for lang, t, n in PAIRS]), encoding="utf-8")
    models = hub_named_models(tiny_models, root / "hub_models")
    try:
        proc, url = start_app({"DETOX_DATA_DIR": str(root), "DETOX_DB_URL": f"sqlite:///{root / 'detox.sqlite'}",
                               "DETOX_ORGANIZER_PASSWORD": "", "DETOX_MODEL_DIR": str(models),
                               "HF_HUB_OFFLINE": "1"})
    except RuntimeError as err:
        pytest.fail(str(err))
    yield url
    stop_app(proc)


def open_page(page, url: str, marker: str, timeout: float = 180) -> None:
    """Go to ``url`` and wait until the page has drawn ``marker`` and finished its run (on a
    busy machine the first run can start late)."""
    page.goto(url)
    page.get_by_text(marker, exact=True).first.wait_for(timeout=timeout * 1000)
    wait_idle(page, timeout)


def direction_of(page, selector: str) -> dict:
    """How the browser laid out the first element matching ``selector``: its text, its
    resolved direction, and whether its first character stands right of its last one."""
    return page.evaluate("""(sel) => {
        const el = document.querySelector(sel);
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        const nodes = []; while (walker.nextNode()) if (walker.currentNode.textContent.trim()) nodes.push(walker.currentNode);
        const first = document.createRange(); first.setStart(nodes[0], 0); first.setEnd(nodes[0], 1);
        const lastNode = nodes[nodes.length - 1], n = lastNode.textContent.trimEnd().length;
        const last = document.createRange(); last.setStart(lastNode, n - 1); last.setEnd(lastNode, n);
        return {text: el.innerText, bidi: getComputedStyle(el).unicodeBidi,
                firstRightOfLast: first.getBoundingClientRect().left > last.getBoundingClientRect().left};
    }""", selector)


def test_arabic_and_chinese_pairs_on_the_corpus_page(textdetox_server, page):
    open_page(page, f"{textdetox_server}/?dataset={urllib.parse.quote(TEXTDETOX2024.short)}&pair=dev-ar-0", "Pair")
    no_exception(page)
    shown = direction_of(page, ".dx-text")
    # The Arabic sentence reads right to left: its first letter is laid out right of its last one.
    assert shown["bidi"] == "plaintext" and shown["firstRightOfLast"]
    assert "".join(shown["text"].split()) == "".join(TEXT["ar"].split())
    assert "Arabic" in page.inner_text("body")
    shot(page, "multilingual_corpus_arabic")
    open_page(page, f"{textdetox_server}/?dataset={urllib.parse.quote(TEXTDETOX2024.short)}&pair=dev-zh-0", "Pair")
    no_exception(page)
    chinese = direction_of(page, ".dx-text")
    assert "".join(chinese["text"].split()) == TEXT["zh"] and not chinese["firstRightOfLast"]
    # Written without spaces, the diff works character by character: the removed characters are marked one by one.
    removed = page.locator(".dx-text").first.locator(".dx-del").all_inner_texts()
    assert removed and all(len(r.strip()) == 1 for r in removed) and "白" in removed
    by_language = page.get_by_text("By language")
    assert by_language.is_visible()


def test_live_scoring_in_arabic_and_chinese_offers_the_presets_that_cover_them(textdetox_server, page):
    query = urllib.parse.urlencode({"dataset": TEXTDETOX2024.short, "live_lang": "Arabic (ar)", "live_input": TEXT["ar"],
                                    "live_candidates": "أنت مخطئ ولا تفهم", "preset": "TextDetox 2024"})
    open_page(page, f"{textdetox_server}/live_scoring?{query}", "Candidate rewrites (one per line)")
    no_exception(page)
    body = page.inner_text("body")
    assert page.get_by_role("combobox", name="Language", exact=True).input_value() == "Arabic (ar)"
    # The offline preset's heads ship: it covers Arabic too, beside the 2024 recipe (RUSSE-2022's
    # Russian-only presets are named as not offered).
    assert "Embedded (offline CPU) (covers Russian only)" not in body
    presets = page.locator('[data-testid="stButtonGroup"]').first.inner_text()
    assert "TextDetox 2024" in presets and "Embedded (offline CPU)" in presets
    # Scored with the 2024 recipe's models (tiny ones under the real ids), the texts shown right to left.
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="STA").first
    assert 0.0 <= float(metric.locator('[data-testid="stMetricValue"]').inner_text()) <= 1.0
    shown = direction_of(page, ".dx-text")
    assert shown["bidi"] == "plaintext" and shown["firstRightOfLast"]
    shot(page, "multilingual_live_arabic")
    # A Chinese pair: scored, its diff marks the changed characters one by one.
    open_page(page, f"{textdetox_server}/live_scoring?" + urllib.parse.urlencode({
        "dataset": TEXTDETOX2024.short, "live_lang": "Chinese (zh)", "live_input": TEXT["zh"],
        "live_candidates": "请你离开这里", "preset": "TextDetox 2024"}), "Candidate rewrites (one per line)")
    no_exception(page)
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="SIM").first
    assert 0.0 <= float(metric.locator('[data-testid="stMetricValue"]').inner_text()) <= 1.0
    chinese = direction_of(page, ".dx-text")
    assert "".join(chinese["text"].split()) == TEXT["zh"] and not chinese["firstRightOfLast"]
    removed = page.locator(".dx-text").first.locator(".dx-del").all_inner_texts()
    assert removed and all(len(r.strip()) == 1 for r in removed) and "白" in removed
    # In Russian, the offline preset is offered as well.
    open_page(page, f"{textdetox_server}/live_scoring?" + urllib.parse.urlencode({"dataset": TEXTDETOX2024.short,
                                                                                 "live_lang": "Russian (ru)"}),
              "Candidate rewrites (one per line)")
    assert page.get_by_role("combobox", name="Language", exact=True).input_value() == "Russian (ru)"
    assert "Embedded (offline CPU)" in page.locator('[data-testid="stButtonGroup"]').first.inner_text()


def upload(page, server: str, path: Path) -> str:
    open_page(page, f"{server}/submissions?dataset={urllib.parse.quote(TEXTDETOX2024.short)}", "Add a submission")
    page.locator('[data-testid="stButtonGroup"]').first.get_by_text("TextDetox 2024", exact=True).click()
    wait_idle(page, 60)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    wait_idle(page, 60)
    page.get_by_role("button", name="Score the upload").click()
    wait_idle(page, 180)
    no_exception(page)
    return page.inner_text("body")


def test_a_bad_submission_is_refused_and_a_partial_one_marked(textdetox_server, page, tmp_path):
    rows = [(t, n, lang) for lang, t, n in PAIRS]
    bad = tmp_path / "bad.tsv"
    # Line 2 names an unknown language; the second Chinese input (line 4 of the inputs) has no row.
    bad.write_text(tsv(("toxic_sentence", "neutral_sentence", "lang"),
                       [(rows[0][0], rows[0][1], "arabic"), rows[1], *rows[3:]]), encoding="utf-8")
    body = upload(page, textdetox_server, bad)
    assert "Not scored, nothing stored" in body
    assert "line 2: 1 row(s) in language(s) this split does not have, on line(s) 2: 'arabic' is no language code" in body
    assert "1 input(s) of the answered languages have no row: input line(s) 4 of the split" in body
    partial = tmp_path / "partial.tsv"
    partial.write_text(tsv(("toxic_sentence", "neutral_sentence", "lang"), [rows[0], rows[3]]), encoding="utf-8")
    body = upload(page, textdetox_server, partial)
    assert "partial.tsv scored and stored" in body
    assert "Partial submission: partial: 2 of 5 languages" in body
    assert "Partial: the file does not answer English, Russian, Chinese" in body
    shot(page, "multilingual_submissions_partial")

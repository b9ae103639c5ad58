"""The running app in headless Chromium, driven by Playwright.

Skipped when Debian's Chromium is not installed. With ``DETOX_SCREENSHOTS=DIR`` the
tests also save their pages there (the docs' pictures are taken by ``make screenshots``). Fixtures: ``conftest.py``.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.util import (CHROMIUM, cut_off_controls, no_exception, pilot_project, shot, shown_pairs, wait_idle, wait_text,
                            wait_until)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def test_corpus_page_search_and_pair(server, page, data_root):
    page.goto(server + "/")
    wait_idle(page)
    no_exception(page)
    assert page.get_by_role("heading", name="Corpus", exact=True).is_visible()
    total = shown_pairs(page)
    assert total > 0
    box = page.get_by_role("textbox", name="Search", exact=True)
    box.fill("дебил")
    box.press("Enter")
    wait_idle(page)
    narrowed = shown_pairs(page)
    assert 0 < narrowed < total
    assert "q=" in page.url  # the search is in the address bar


def test_deep_link_to_a_pair_survives_reload(server, page, data_root):
    # A pair that matches the search, so the link also selects its table row.
    pair = "train-19" if (data_root / "russe2022" / "human_eval_test.csv").is_file() else "train-0"
    page.goto(f"{server}/?q=дебил&pair={pair}")
    wait_text(page, f"{pair} · line")
    no_exception(page)
    page.reload()
    wait_text(page, f"{pair} · line")
    assert f"{pair} · line" in page.inner_text("body") and f"pair={pair}" in page.url
    shot(page, "corpus", 1900)


def test_upload_own_corpus_and_a_bad_one(server, page, tmp_path):
    good = tmp_path / "mine.tsv"
    good.write_text("toxic_comment\tneutral_comment1\nэто <b>тупо</b>\tэто странно\n", encoding="utf-8")
    bad = tmp_path / "broken.tsv"
    bad.write_text("toxic_comment\tneutral_comment1\nа\tб\nв\tг\tлишнее\n", encoding="utf-8")
    page.goto(server + "/?dataset=Upload+a+corpus+TSV")
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(good))
    wait_idle(page)
    no_exception(page)
    assert shown_pairs(page) == 1
    page.goto(server + "/?dataset=Upload+a+corpus+TSV&pair=upload-0")
    wait_idle(page)
    # An upload asks for its run only once the file is sent, which the wait for a run does
    # not see: wait for what that run draws.
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(good))
    wait_text(page, "<b>тупо</b>")
    body = page.inner_text("body")
    assert "<b>тупо</b>" in body  # shown as text, not as markup
    assert page.query_selector(".dx-text b") is None
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    wait_text(page, "expected 2")
    assert "line 3" in page.inner_text("body") and "expected 2" in page.inner_text("body")


def test_live_scoring_shows_j_for_a_typed_pair(server, page):
    page.goto(server + "/live_scoring")
    wait_idle(page)
    page.get_by_role("textbox", name="Toxic sentence").fill("ты дебил, иди отсюда")
    page.get_by_role("textbox", name="Candidate rewrites (one per line)").fill("ты неправ, иди отсюда")
    page.get_by_role("textbox", name="Candidate rewrites (one per line)").press("Control+Enter")
    wait_idle(page)
    no_exception(page)
    j = page.locator('[data-testid="stMetric"]').filter(has_text="J").first
    value = float(j.locator('[data-testid="stMetricValue"]').inner_text())
    assert 0.0 <= value <= 1.0
    assert "is the lowest axis" in page.inner_text("body") or "no axis scores low" in page.inner_text("body")
    shot(page, "live_scoring_pair", 1250)


def test_submission_upload_scored_and_a_bad_one_refused(server, page, data_root, tmp_path):
    from detox_core.editions.registry import load_dataset

    inputs = load_dataset("russe2022", ["test"], data_root)["toxic_comment"].tolist()
    good = tmp_path / "mine.txt"
    good.write_text("<script>alert(1)</script> вежливо\n" + "".join(f"{t}\n" for t in inputs[1:]), encoding="utf-8")
    bad = tmp_path / "broken.txt"
    bad.write_text("".join(f"{t}\n" for t in inputs) + "лишняя строка\n", encoding="utf-8")
    page.goto(server + "/submissions")
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    wait_idle(page)
    page.get_by_role("button", name="Score the upload").click()
    wait_idle(page)
    body = page.inner_text("body")
    assert "Not scored, nothing stored" in body and f"line {len(inputs) + 1}" in body
    assert "No submission scored" in body
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(good))
    # The button is still there from the bad file: press it only once the run of the new
    # file is over (that run, the button not pressed, no longer shows the refusal).
    wait_until(page, "() => !document.body.innerText.includes('Not scored, nothing stored')")
    page.get_by_role("button", name="Score the upload").click()
    wait_idle(page)
    no_exception(page)
    assert "mine.txt scored and stored" in page.inner_text("body")
    assert page.evaluate("document.querySelectorAll('script').length") == page.evaluate(
        "[...document.querySelectorAll('script')].filter(s => !s.textContent.includes('alert(1)')).length")
    # A shipped output too, so that the leaderboard and compare pages have two systems.
    page.get_by_role("button", name="Score this output").click()
    wait_idle(page)
    no_exception(page)
    assert "scored and stored" in page.inner_text("body")
    shot(page, "submissions", 1900)


#: Every page, with the heading it opens on (Live scoring with a pair typed in, as a shared link gives it).
PAGES = [("", "Corpus"),
         ("live_scoring?" + urllib.parse.urlencode({"live_input": "ты дебил, иди отсюда",
                                                    "live_candidates": "ты неправ, иди отсюда"}), "Live scoring"),
         ("submissions", "Submissions"), ("leaderboard", "Leaderboard"), ("compare", "Compare systems"),
         ("human_eval", "Human vs automatic"), ("annotate", "Annotate"), ("annotation_projects", "Annotation projects")]


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("path, title", PAGES, ids=[p.split("?")[0] or "corpus" for p, _ in PAGES])
def test_every_page_opens_and_is_usable(server, browser, path, title, width):
    """Each page opens on its heading without an exception or "Page not found", and every control
    is whole (none cut off or hidden) on a wide screen and at 800 px."""
    ctx = browser.new_context(viewport={"width": width, "height": 1100})
    page = ctx.new_page()
    try:
        page.goto(f"{server}/{path}")
        wait_idle(page, 180)
        # The first page of a fresh server loads the corpus and the models: give it time.
        heading = page.get_by_role("heading", name=title, exact=True)
        heading.wait_for(timeout=120_000)
        wait_idle(page, 180)
        no_exception(page)
        assert heading.is_visible()
        assert "Page not found" not in page.inner_text("body")
        problems = cut_off_controls(page)
        assert not problems, problems
        name = path.split("?")[0] or "corpus"
        shot(page, name if width == 1400 else f"{name}-800",
             {"leaderboard": 2000, "compare": 1500, "human_eval": 1300}.get(name, 1900), width=width)
    finally:
        ctx.close()


def test_annotator_answers_a_page_with_the_keyboard(server, page, db_url):
    import pandas as pd

    from detox_core.annotation.store import AnnotationStore, Settings

    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(3), "input": [f"ты дурак номер {i}" for i in range(3)],
                          "output": ["ты неправ, друг мой", "ты <b>дурак</b>", "спасибо за ответ"]})
    p = store.create_project("keyboard", ["toxicity"], pairs,
                             settings=Settings(page_size=3, controls_per_page=0, min_page_seconds=0, training=False))
    page.goto(f"{server}/annotate")
    wait_idle(page)
    page.get_by_label("Access code").fill(p.access_code)
    page.get_by_label("Your name").fill("Kira")
    page.get_by_label("Your password", exact=True).fill("kiras-password")
    page.get_by_role("button", name="Join").click()
    wait_idle(page)
    no_exception(page)
    page.locator(".ap-item").first.wait_for(timeout=30_000)
    # Item texts are shown as text, markup included (the page is answered in the browser).
    order = page.locator(".ap-text").all_inner_texts()
    assert sorted(order) == sorted(pairs["output"]) and "ты <b>дурак</b>" in order
    page.locator("h1").first.click()  # focus the page, not a field
    for key in ("1", "2", "1"):
        page.keyboard.press(key)
    no_exception(page)
    shot(page, "annotate", 1300)
    page.keyboard.press("Enter")
    page.get_by_text("Page 1 saved: 3 answers").wait_for(timeout=30_000)
    no_exception(page)
    items = store.items(p.id).set_index("item")["text"]
    answers = store.answers(p.id)
    got = dict(zip(answers["task"].map(items), answers["label"]))
    assert [got[t] for t in order] == [1.0, 0.0, 1.0]


def test_organizer_pages(server, page, db_url, data_root):
    _store, p = pilot_project(db_url, data_root, overlap=4)  # answered by three careful annotators and a random one
    page.goto(f"{server}/annotation_projects")
    wait_idle(page)
    no_exception(page)
    body = page.inner_text("body")
    assert "Access code for annotators" in body and p.access_code in body
    assert "Krippendorff" in body
    shot(page, "annotation_projects", 1400)
    page.get_by_role("tab", name="Results").click()
    wait_idle(page)
    no_exception(page)
    assert "Human judgements" in page.inner_text("body")
    shot(page, "annotation_results", 1400)
    # The project's judgements on Human vs automatic.
    page.goto(f"{server}/human_eval")
    wait_idle(page)
    page.get_by_text("an annotation project").click()
    wait_idle(page, 120)
    no_exception(page)
    assert "16 judged outputs of 2 systems" in page.inner_text("body")


def test_organizer_uploads_crowd_results_and_control_items(server, page, db_url, tmp_path):
    import pandas as pd

    from detox_core.annotation.store import AnnotationStore

    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "s", "idx": [0], "input": ["ты дурак"], "output": ["ты неправ"]})
    p = store.create_project("uploads", ["toxicity"], pairs)
    header = ("INPUT:text\tOUTPUT:result\tGOLDEN:result\tASSIGNMENT:worker_id\tASSIGNMENT:started\t"
              "ASSIGNMENT:submitted\tASSIGNMENT:status")
    rows = [header]
    for worker in ("w1", "w2", "w3"):
        rows += [f"ты дурак\tyes\t\t{worker}\t2022-03-01T10:00:00\t2022-03-01T10:00:30\tAPPROVED",
                 f"спасибо\tno\t\t{worker}\t2022-03-01T10:00:00\t2022-03-01T10:00:30\tAPPROVED",
                 f"\t\t\t{worker}\t2022-03-01T10:00:00\t2022-03-01T10:00:30\tAPPROVED"]
    crowd = tmp_path / "toxicity.tsv"
    crowd.write_text("\n".join(rows) + "\n", encoding="utf-8")
    page.goto(f"{server}/annotation_projects")
    wait_idle(page)
    page.get_by_role("tab", name="Crowd import").click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploader"]').filter(has_text="Crowd export (TSV)").locator(
        '[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(crowd))
    wait_text(page, "6 answers of 3 workers")  # the upload's run (an upload is not seen by wait_idle)
    no_exception(page)
    body = page.inner_text("body")
    assert "6 answers of 3 workers" in body and "skipped 3 rows with empty input" in body

    # Control items of the project, uploaded on its Settings tab; a broken file names its line.
    assert page.get_by_role("combobox", name="Project").input_value() == "uploads"  # the newest project
    page.get_by_role("tab", name="Settings").click()
    wait_idle(page)
    def add_controls(name: str, body: str) -> str:
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(path))
        # The button is still there after a file before: press it once the run of this file
        # is over (that run, the button not pressed, no longer shows the last refusal).
        wait_until(page, "() => !document.body.innerText.includes('Nothing added')")
        page.get_by_role("button", name="Add these control items").click()
        wait_idle(page)
        no_exception(page)
        return page.inner_text("body")

    body = add_controls("controls_bad.tsv", "task\ttext\tgolden\ntoxicity\tты дурак\tmaybe\n")
    assert "Nothing added" in body and "line 2" in body
    body = add_controls("controls.tsv", "task\ttext\tgolden\ntoxicity\tты дурак\tyes\ntoxicity\tспасибо\tno\n")
    assert "Added 2 control items" in body
    assert (store.items(p.id)["kind"] == "control").sum() == 2

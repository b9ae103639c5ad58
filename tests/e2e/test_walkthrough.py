"""A new user's walkthrough of Submissions, Live scoring and Corpus, at 1400 and 800 px.

Each test is one thing a user got wrong, lost or could not see; the last one opens
every page at 800 px and checks that no control is cut off. Fixtures: ``conftest.py``.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.util import CHROMIUM, HANG_SLACK, cut_off_controls, no_exception, shot, wait_idle, wait_until

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def inputs_of(data_root) -> list[str]:
    from detox_core.editions.registry import load_dataset

    return load_dataset("russe2022", ["test"], data_root)["toxic_comment"].tolist()


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label``."""
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


def upload(page, path: Path) -> str:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    wait_idle(page)
    page.get_by_role("button", name="Score the upload").click()
    wait_idle(page, 180)
    no_exception(page)
    return page.inner_text("body")


def sentences_heading(page) -> str:
    return page.get_by_role("heading").filter(has_text="Sentences of").first.inner_text()


def test_the_sentence_table_follows_the_submission_just_scored(server, page, data_root):
    page.goto(server + "/submissions")
    wait_idle(page, 120)
    shipped = sorted(p.name.removesuffix("_test.txt") for p in (data_root / "russe2022" / "outputs").glob("*_test.txt"))
    assert len(shipped) >= 2
    first, second = shipped[0], shipped[-1]
    choose(page, "Or a shipped system output", first)
    page.get_by_role("button", name="Score this output").click()
    wait_idle(page, 180)
    assert first in sentences_heading(page)
    choose(page, "Or a shipped system output", second)
    page.get_by_role("button", name="Score this output").click()
    wait_idle(page, 180)
    no_exception(page)
    assert f"{second}_test.txt scored and stored" in page.inner_text("body")
    # The table below shows the submission just scored, not the one shown before.
    assert second in sentences_heading(page) and first not in sentences_heading(page)
    assert page.get_by_role("combobox", name="Show").input_value() == f"{second}_test.txt"


def test_trailing_blank_lines_are_not_outputs(server, page, data_root, tmp_path):
    inputs = inputs_of(data_root)
    path = tmp_path / "trailing.txt"
    path.write_text("".join(f"{t}\n" for t in inputs) + "\n\n", encoding="utf-8")
    page.goto(server + "/submissions")
    wait_idle(page, 120)
    body = upload(page, path)
    assert "trailing.txt scored and stored" in body and "Not scored" not in body
    assert "trailing.txt" in sentences_heading(page)


def test_a_tsv_with_other_column_names_is_told_which_columns_are_missing(server, page, data_root, tmp_path):
    inputs = inputs_of(data_root)
    path = tmp_path / "wrong_header.tsv"
    path.write_text("source\ttarget\n" + "".join(f"{t}\tвежливо\n" for t in inputs), encoding="utf-8")
    page.goto(server + "/submissions")
    wait_idle(page, 120)
    body = upload(page, path)
    assert "Not scored, nothing stored" in body
    assert "missing column" in body and "neutral_sentence" in body and "'source'" in body
    assert "shifted" not in body


def live_boxes(page):
    return (page.get_by_role("textbox", name="Toxic sentence"),
            page.get_by_role("textbox", name="Candidate rewrites (one per line)"),
            page.get_by_role("textbox", name="References (optional, one per line)"))


def j_cards(page):
    return page.locator('[data-testid="stMetric"]').filter(has_text="J").filter(has_not_text="chrF")


def j_values(page) -> list[float]:
    return [float(m.locator('[data-testid="stMetricValue"]').inner_text()) for m in j_cards(page).all()]


#: How long a first score may take: the embedded models load on the first request of the
#: server (a minute on two loaded cores).
SCORED_S = 300


def on_page(page, title: str, timeout: float = 120) -> None:
    """Wait until the page titled ``title`` is drawn and the app has settled."""
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=timeout * 1000)
    wait_idle(page, timeout)


def enter(page, box, text: str, param: str) -> None:
    """Type ``text`` into ``box`` and send it (Ctrl+Enter, as a user does), then wait until
    the app has it: the address holds it (``param``: the boxes are bound to the address)
    and the run it asked for is over. One box at a time: a text is never typed while the
    run of the one before is still drawing the page."""
    box.fill(text)
    expect(box).to_have_value(text)
    box.press("Control+Enter")
    wait_until(page, "([k, v]) => new URLSearchParams(location.search).get(k) === v", arg=[param, text],
               timeout=SCORED_S)


def test_live_texts_survive_a_page_change_and_travel_in_the_link(server, page, browser):
    page.goto(server + "/live_scoring")
    on_page(page, "Live scoring")
    source, candidates, refs = live_boxes(page)
    enter(page, source, "ты дебил, иди отсюда", "live_input")
    enter(page, refs, "ты не прав, уходи", "live_refs")
    enter(page, candidates, "ты дебил, иди отсюда\nты неправ, иди отсюда", "live_candidates")
    # The first score loads the models: its cards, then the end of the run.
    expect(j_cards(page)).to_have_count(2, timeout=SCORED_S * 1000)
    wait_idle(page, SCORED_S)
    no_exception(page)
    scores = j_values(page)
    assert len(scores) == 2
    # Away to another page and back through the menu: nothing typed is lost.
    page.get_by_role("link", name="Corpus").click()
    on_page(page, "Corpus")
    expect(source).to_have_count(0)
    page.get_by_role("link", name="Live scoring").click()
    on_page(page, "Live scoring")
    source, candidates, refs = live_boxes(page)
    assert source.input_value() == "ты дебил, иди отсюда"
    assert candidates.input_value() == "ты дебил, иди отсюда\nты неправ, иди отсюда"
    assert refs.input_value() == "ты не прав, уходи"
    # The address holds the texts: opened by someone else, it shows the same scores.
    link = page.url
    query = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)
    assert query["live_input"] == ["ты дебил, иди отсюда"]
    other = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        shared = other.new_page()
        shared.goto(link)
        on_page(shared, "Live scoring")
        expect(j_cards(shared)).to_have_count(2, timeout=SCORED_S * 1000)
        wait_idle(shared, SCORED_S)
        no_exception(shared)
        assert live_boxes(shared)[1].input_value() == "ты дебил, иди отсюда\nты неправ, иди отсюда"
        assert j_values(shared) == scores
    finally:
        other.close()


def test_live_cards_keep_the_users_order_and_mark_the_best(server, page):
    rewrites = ["ты дебил, иди отсюда", "ты неправ, иди отсюда", "ты дебил"]
    query = urllib.parse.urlencode({"live_input": "ты дебил, иди отсюда", "live_candidates": "\n".join(rewrites)})
    page.goto(f"{server}/live_scoring?{query}")
    wait_idle(page, 120)
    no_exception(page)
    titles = [t.inner_text() for t in page.get_by_text(re.compile(r"^Rewrite \d")).all()]
    assert [t.split(" ·")[0] for t in titles] == ["Rewrite 1", "Rewrite 2", "Rewrite 3"]
    scores = j_values(page)
    best = max(range(len(scores)), key=lambda i: scores[i])
    marked = [i for i, t in enumerate(titles) if "best J" in t]
    assert marked == [best]


def test_calibrated_switch_is_off_where_the_preset_has_no_calibration(server, page):
    page.goto(server + "/live_scoring")
    wait_idle(page, 120)
    switch = page.get_by_role("switch", name="Calibrated")
    # The embedded preset has no calibration: the switch says so (off), and cannot be turned on.
    assert not switch.is_checked() and switch.is_disabled()
    page.get_by_text("RUSSE-2022 official", exact=True).click()
    wait_idle(page, 120)
    switch = page.get_by_role("switch", name="Calibrated")
    assert switch.is_checked() and switch.is_enabled()
    assert "preset=" in page.url


def test_corpus_example_does_not_score_a_reference_against_itself(server, page):
    page.goto(server + "/live_scoring")
    wait_idle(page, 120)
    for _ in range(3):
        page.get_by_role("button", name="Example from the corpus").click()
        wait_idle(page, 120)
        no_exception(page)
        _, candidates, refs = live_boxes(page)
        cands = [c for c in candidates.input_value().split("\n") if c]
        references = [r for r in refs.input_value().split("\n") if r]
        assert cands and not set(cands) & set(references)
        assert "Example: rewrite 1 is a human paraphrase" in page.inner_text("body")
        chrf = page.locator('[data-testid="stMetric"]').filter(has_text="chrF").first
        value = chrf.locator('[data-testid="stMetricValue"]').inner_text()
        assert value == "n/a" if not references else float(value) < 1.0


def test_metric_help_says_what_the_number_measures_and_its_range(server, page):
    query = urllib.parse.urlencode({"live_input": "ты дебил", "live_candidates": "ты неправ"})
    page.goto(f"{server}/live_scoring?{query}")
    wait_idle(page, 120)
    for label, words in (("STA", "neutral"), ("SIM", "meaning"), ("FL", "fluen"), ("J", "STA × SIM × FL"),
                         ("chrF", "references")):
        metric = page.locator('[data-testid="stMetric"]').filter(
            has=page.locator('[data-testid="stMetricLabel"]', has_text=label)).first
        metric.locator('[data-testid="stTooltipHoverTarget"]').first.hover()
        tip = page.locator('[data-testid="stTooltipContent"]').last
        tip.wait_for(timeout=5000)
        text = tip.inner_text()
        assert words in text and "0" in text and "1" in text and len(text) > 60, (label, text)
        page.mouse.move(0, 0)
        expect(page.locator('[data-testid="stTooltipContent"]')).to_have_count(0, timeout=10_000)


def plots(page) -> list[dict]:
    """Per Plotly chart: whether it is a heatmap, its visible height and its point labels."""
    return page.evaluate("""[...document.querySelectorAll('.js-plotly-plot')].map(p => ({
        heatmap: p.querySelectorAll('.heatmaplayer').length > 0,
        height: p.getBoundingClientRect().height,
        labels: [...p.querySelectorAll('.textpoint text, text.textpoint')].map(t => t.textContent)}))""")


def test_leaderboard_shows_its_p_values_and_labels_its_points(server, page):
    page.goto(server + "/leaderboard")
    wait_idle(page, 180)
    no_exception(page)
    # The charts draw after the run: the heatmap and a scatter with its point labels.
    page.wait_for_function("""() => {
        const charts = [...document.querySelectorAll('.js-plotly-plot')];
        const heatmap = p => p.querySelectorAll('.heatmaplayer').length > 0;
        const labelled = p => p.querySelectorAll('.textpoint text, text.textpoint').length > 0;
        return charts.some(p => heatmap(p) && p.getBoundingClientRect().height > 100)
            && charts.some(p => !heatmap(p) && labelled(p));
    }""", timeout=180_000 * HANG_SLACK)
    shown = plots(page)
    heat = [p for p in shown if p["heatmap"]]
    # Shown without a click, with its explanation.
    assert heat and heat[0]["height"] > 100
    assert page.get_by_text("Which differences are significant").first.is_visible()
    assert "p < 0.05" in page.inner_text("body")
    # Every local system's point carries its name.
    scatter = [p for p in shown if not p["heatmap"] and p["labels"]]
    assert scatter and any(label.endswith("_test.txt") for label in scatter[0]["labels"])


def test_compare_tests_every_pair_with_intervals(server, page):
    page.goto(server + "/compare")
    wait_idle(page, 180)
    no_exception(page)
    body = page.inner_text("body")
    assert "Which differences are significant" in body and "Paired bootstrap over sentences" in body
    assert "95% bootstrap intervals" in body  # the means carry intervals
    # The test table lists the pair on J; "all" lists every axis of it.
    # (the first table may be the preset's agreement per system, in its expander). A grid
    # fills its cells after the run has ended: wait for them, not only for the run.
    wait_until(page, """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
        .some(t => t.textContent.includes('System A'))""", timeout=120)
    tables = [t.text_content() or "" for t in page.locator('[data-testid="stDataFrame"]').all()]
    first = next((t for t in tables if "System A" in t), "")
    assert "System A" in first and "95% CI of A - B" in first
    page.get_by_text("all", exact=True).click()
    wait_idle(page, 120)
    no_exception(page)


def test_human_vs_automatic_explains_its_figures(server, page):
    page.goto(server + "/human_eval")
    wait_idle(page, 300)
    no_exception(page)
    body = page.inner_text("body")
    # The stored-submissions switch says what it did.
    assert "Stored submissions" in body and ("none matches a judged system" in body or "joined" in body)
    page.get_by_role("tab", name="Meta-evaluation").click()
    wait_idle(page, 300)
    no_exception(page)
    page.get_by_text("system", exact=True).click()
    wait_idle(page, 120)
    assert "rest on 3 systems" in page.inner_text("body").replace("*", "")  # the shipped sample judges 3 systems
    page.get_by_role("tab", name="Calibration").click()
    wait_idle(page, 300)
    no_exception(page)
    # The charts draw after the run: wait for the reliability curve's legend.
    page.wait_for_function("""() => [...document.querySelectorAll('.js-plotly-plot .legendtext')]
        .some(t => t.textContent === 'calibrated')""", timeout=60_000)
    legends = page.evaluate("[...document.querySelectorAll('.js-plotly-plot .legendtext')].map(t => t.textContent)")
    assert "calibrated" in legends and any(t.startswith("raw ") for t in legends)  # the reliability curve


@pytest.mark.parametrize("width", [1400, 800])
def test_annotation_progress_reads_the_same_in_number_and_bar(server, browser, db_url, width):
    import pandas as pd

    from detox_core.annotation.store import AnnotationStore, Settings

    store = AnnotationStore(db_url)
    rows = [{"system": "s", "idx": i, "input": f"ты дурак {i}", "output": f"ответ {i}"} for i in range(10)]
    p = store.create_project(f"progress-{width}", ["toxicity"], pd.DataFrame(rows),
                             settings=Settings(overlap=2, page_size=5, controls_per_page=0, min_page_seconds=0,
                                               training=False))
    for name in ("a", "b", "c"):
        ann = store.join(p.access_code, name)
        page_ = store.next_page(ann.id, "toxicity")
        store.submit_page(ann.id, page_.assignment_id, {i.id: 1.0 for i in page_.items})
    ctx = browser.new_context(viewport={"width": width, "height": 1100})
    page = ctx.new_page()
    try:
        page.goto(server + "/annotation_projects")
        wait_idle(page, 120)
        page.get_by_role("combobox", name="Project").click()
        page.get_by_role("option", name=f"progress-{width}").click()
        wait_idle(page, 120)
        no_exception(page)
        done = page.locator('[data-testid="stMetric"]').filter(has_text="items done").first
        assert done.locator('[data-testid="stMetricValue"]').inner_text() == "5 / 10"
        bar = page.locator('[data-testid="stProgress"] [role="progressbar"]').first
        assert bar.get_attribute("aria-valuenow") == "50"
        assert "15 of 20 answers given" in page.inner_text("body")
        assert not cut_off_controls(page)  # "Expected finish" and every label fully shown
    finally:
        ctx.close()



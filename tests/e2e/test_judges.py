"""Human vs automatic on TextDetox 2024 in headless Chromium: the LLM judges' labels as
judgements, per language and judge against judge, at 1400 and 800 px; Arabic pairs right
to left; an upload in the multilingual human-evaluation schema, and a broken one.

Skipped when Debian's Chromium is not installed or the meta-evaluation sample is not fetched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, wait_idle, wait_text

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

HUB_HUMAN = (",toxic_sentence,neutral_sentence,lang,fluency_score,content_score,toxic_pairwise_score,participant_name,"
             "neutral_sentence_gold,CLS_OLD_GEN\n"
             "0,you idiot,you are wrong,en,1.0,1.0,1.0,a,you are mistaken,0.9\n"
             "1,أنت غبي,أنت مخطئ,ar,0.5,0.6666,1.0,a,,0.8\n"
             "2,you idiot,you idiot,en,1.0,1.0,0.5,b,you are mistaken,0.1\n")


@pytest.fixture
def sample(data_root) -> Path:
    base = data_root / "textdetox2024" / "meta_eval"
    if not (base / "pairs.tsv").is_file():
        pytest.skip("the TextDetox meta-evaluation sample is not fetched (python -m detox_core fetch-data)")
    return base


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    wait_idle(page, 180)
    no_exception(page)


@pytest.mark.parametrize("width", [1400, 800])
def test_llm_judges_per_language_and_against_each_other(server, page, sample, width):
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(f"{server}/human_eval?dataset=TextDetox+2024")
    wait_idle(page, 240)
    no_exception(page)
    body = page.inner_text("body")
    assert "automatic judgements, not human ones" in body and "4,320 judged outputs of 6 systems in 9 languages" in body
    # The embedded preset, trained with the TextDetox inputs, scores the judged pairs of all 9 languages.
    assert "embedded:j" in body and "embedded:sta" in body and "covers Russian only" not in body
    # The page opens on the judge's labels against a metric that is not that judge (gpt-4.1-mini
    # few-shot is the same model): the embedded preset's STA.
    assert page.get_by_role("combobox", name="Judge", exact=True).input_value() == "gpt-4.1-mini"
    assert page.get_by_role("combobox", name="Automatic metric", exact=True).first.input_value() == "embedded:sta"
    assert "Same judge on both sides" not in body
    assert not cut_off_controls(page)
    shot(page, f"human_eval_default_pair_{width}", 1300, width)
    open_tab(page, "Correlations")
    assert "Language by language" in page.inner_text("body") and "Kendall" in page.inner_text("body")
    assert not cut_off_controls(page)
    shot(page, f"human_eval_languages_{width}", 1900, width)
    open_tab(page, "Judges")
    assert "Cohen's kappa" in page.inner_text("body") and not cut_off_controls(page)
    shot(page, f"human_eval_judges_{width}", 1900, width)
    # Arabic pairs: the selected pair's texts run right to left.
    open_tab(page, "Per sentence")
    page.get_by_label("Language", exact=True).last.click()
    page.get_by_role("option", name="Arabic (ar)").click()
    wait_idle(page, 120)
    no_exception(page)
    assert page.locator(".dx-text[dir='rtl'][lang='ar']").count() == 2  # input and output
    assert not cut_off_controls(page)
    shot(page, f"human_eval_arabic_{width}", 1500, width)


def test_an_upload_in_the_multilingual_schema_loads_and_a_broken_one_is_named(server, page, tmp_path):
    good = tmp_path / "humaneval.csv"
    good.write_text(HUB_HUMAN, encoding="utf-8")
    bad = tmp_path / "broken.csv"
    bad.write_text(HUB_HUMAN.replace("0.6666,1.0,a", "1.5,1.0,a"), encoding="utf-8")
    page.goto(f"{server}/human_eval?dataset=TextDetox+2024")
    wait_idle(page, 240)
    page.get_by_text("upload a file").click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(good))
    wait_text(page, "3 judged outputs of 2 systems in 2 languages", 120)  # the upload's run: wait_idle misses it
    no_exception(page)
    assert "3 judged outputs of 2 systems in 2 languages" in page.inner_text("body")
    assert "automatic judgements, not human ones" not in page.inner_text("body")  # people's labels here
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    wait_idle(page, 120)
    no_exception(page)
    error = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert "broken.csv, line 3, column 'content_score'" in error and "expected a number in [0, 1]" in error

"""The offline default in the languages of TextDetox, as a visitor sees it at 1400 and
800 px on a server without the hub or the official models: Live scoring scores English,
Chinese, Arabic, Japanese and Tatar with the embedded preset (no n/a, the weaker parts
named for Tatar), and a TextDetox 2025 submission in all 15 languages is scored on
Submissions and ranked on Leaderboard with every language's J, beside the per-language
agreement with people.

Skipped when Chromium is not installed or the TextDetox editions and their embedded models
are not in the data folder (``make data``)."""

from __future__ import annotations

import csv
import re
import urllib.parse
from pathlib import Path

import pytest

from detox_core.editions.textdetox import TEXTDETOX2025
from detox_core.metrics.embedded.preset import WEAK_PARTS
from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, start_app, stop_app, wait_idle, wait_markup

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

EMBEDDED = "Embedded (offline CPU)"
#: language -> (its name on the page, a toxic input, a rewrite)
LIVE = {
    "en": ("English", "shut up you stupid idiot, nobody cares", "please be quiet, nobody cares"),
    "zh": ("Chinese", "你这个白痴快给我滚开", "请你离开这里"),
    "ar": ("Arabic", "أنت غبي جدا ولا تفهم أي شيء", "أنت مخطئ ولا تفهم"),
    "ja": ("Japanese", "お前は本当に馬鹿だな、もう黙れ", "少し静かにしてください"),
    "tt": ("Tatar", "син ахмак, тынычлан инде", "син ялгышасың, тынычлан инде"),
}


@pytest.fixture(scope="module")
def offline_server(data_root, tmp_path_factory):
    if not (data_root / "textdetox2025" / "dev_inputs.tsv").is_file():
        pytest.skip("the TextDetox editions are missing: run `make data`")
    db = tmp_path_factory.mktemp("db") / "detox.sqlite"
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": f"sqlite:///{db}",
                           "DETOX_ORGANIZER_PASSWORD": "", "HF_HUB_OFFLINE": "1",
                           "HF_HUB_CACHE": str(tmp_path_factory.mktemp("hf-cache")), "DETOX_MODEL_DIR": "",
                           "DETOX_MODEL_MAP": ""})
    yield url
    stop_app(proc)


def metric(page, name: str) -> float:
    box = page.locator('[data-testid="stMetric"]').filter(has_text=name).first
    return float(box.locator('[data-testid="stMetricValue"]').inner_text())


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("lang", list(LIVE))
def test_live_scoring_offline_in_each_family(offline_server, page, lang, width):
    name, toxic, rewrite = LIVE[lang]
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{offline_server}/live_scoring?" + urllib.parse.urlencode(
        {"dataset": "TextDetox 2025", "live_lang": f"{name} ({lang})", "preset": EMBEDDED,
         "live_input": toxic, "live_candidates": rewrite}))
    wait_idle(page, 180)
    no_exception(page)
    body = page.inner_text("body")
    assert page.get_by_role("combobox", name="Language", exact=True).input_value() == f"{name} ({lang})"
    assert "No metric preset can score" not in body
    assert page.query_selector('[data-testid="stAlertContentError"]') is None
    for axis in ("STA", "SIM", "FL", "J"):
        assert 0.0 <= metric(page, axis) <= 1.0, axis
    # the insult is gone: the rewrite reads as non-toxic; in Arabic, with no rewrites people wrote
    # outside a test set to learn from, only a little less toxic than its input (0.24: docs, embedded.md)
    assert metric(page, "STA") > (0.2 if lang == "ar" else 0.3)
    if lang in WEAK_PARTS:
        assert f"is weaker in {name} (" in body
    assert cut_off_controls(page) == []
    shot(page, f"embedded_live_{lang}_{width}", height=1600, width=width)


#: the languages whose Live scoring is checked on the people-written cases of
#: tests/embedded/data/judge_cases.tsv (the first case of each)
JUDGED = {"en": "English", "zh": "Chinese", "ar": "Arabic", "hi": "Hindi", "am": "Amharic"}
CASES = Path(__file__).resolve().parent.parent / "embedded" / "data" / "judge_cases.tsv"


def case_of(path: Path, lang: str) -> dict[str, str]:
    """The first row of ``lang`` in a TSV of people-written cases."""
    with open(path, encoding="utf-8", newline="") as fh:
        return next(row for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE) if row["lang"] == lang)


def j_values(page) -> list[float]:
    js = page.locator('[data-testid="stMetric"]').filter(has_text="J").filter(has_not_text="chrF")
    return [float(m.locator('[data-testid="stMetricValue"]').inner_text()) for m in js.all()]


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("lang", list(JUDGED))
def test_live_scoring_ranks_a_polite_rewrite_first_as_a_person_would(offline_server, page, lang, width):
    """A polite rewrite, the unchanged copy, an unrelated sentence, the polite rewrite in
    another language and a deletion that drops content: the polite rewrite has the highest
    J and the star, and the deletion scores below it."""
    case = case_of(CASES, lang)
    rewrites = [case["polite"], case["toxic"], case["unrelated"], case["other_text"], case["deletion"]]
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{offline_server}/live_scoring?" + urllib.parse.urlencode(
        {"dataset": "TextDetox 2025", "live_lang": f"{JUDGED[lang]} ({lang})", "preset": EMBEDDED,
         "live_input": case["toxic"], "live_candidates": "\n".join(rewrites)}))
    wait_idle(page, 180)
    no_exception(page)
    assert page.query_selector('[data-testid="stAlertContentError"]') is None
    scores = j_values(page)
    assert len(scores) == 5, scores
    assert scores[0] == max(scores) and all(scores[0] > s for s in scores[1:]), scores
    titles = [t.inner_text() for t in page.get_by_text(re.compile(r"^Rewrite \d")).all()]
    assert [i for i, t in enumerate(titles) if "best J" in t] == [0]
    assert cut_off_controls(page) == []
    shot(page, f"embedded_live_judged_{lang}_{width}", height=3200, width=width)


@pytest.fixture(scope="module")
def submission(data_root, tmp_path_factory) -> Path:
    """A TextDetox 2025 development submission in all 15 languages: each input without its
    first word (a crude rewrite, so that every axis has something to measure)."""
    path = tmp_path_factory.mktemp("sub") / "first-word-out.tsv"
    inputs = TEXTDETOX2025.load(["dev"], root=data_root)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, delimiter="\t", lineterminator="\n")  # quoted where a text has quotes
        out.writerow(["toxic_sentence", "neutral_sentence", "lang"])
        for text, lang in zip(inputs["toxic_comment"], inputs["lang"]):
            words = text.split()
            out.writerow([text, " ".join(words[1:]) if len(words) > 2 else text[1:], lang])
    return path


REFERENCE_METRICS = ("chrF", "BLEU", "ROUGE-L", "BERTScore")


def axes_na(text: str) -> str:
    """The lines saying n/a, but for the reference metrics' (no references in this split)."""
    return "\n".join(line for line in text.splitlines()
                     if "n/a" in line.replace("chrF n/a", "") and not line.startswith(REFERENCE_METRICS))


def measured_weak(data_root: Path) -> list[str]:
    """The names of the TextDetox 2024 languages (Russian apart) whose measured per-language
    agreement of the embedded preset the page calls weak, in the edition's order."""
    from detox_core.analysis import preset_agreement_by_language
    from detox_core.vocab import language_name

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DETOX_DATA_DIR", str(data_root))
        result = preset_agreement_by_language.stored("embedded", True)
    assert result is not None, "the page measured the agreement per language and stored it"
    return [language_name(c) for c in TEXTDETOX2025.languages
            if c != "ru" and c in result.figures and result.figures[c].weak]


def test_a_2025_submission_in_15_languages_scored_and_ranked_offline(offline_server, page, submission, data_root):
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1100})
        page.goto(f"{offline_server}/submissions?" + urllib.parse.urlencode(
            {"dataset": "TextDetox 2025", "splits": "dev", "preset": EMBEDDED}))
        wait_idle(page, 180)
        if width == 1400:  # scored once; the narrow window shows the stored submission
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(submission))
            wait_idle(page, 60)
            page.get_by_role("button", name="Score the upload").click()
            # 6,000 new outputs through the model of meaning: minutes on two cores (a hang guard only;
            # the speed is measured by benchmarks/bench_embedded_multilingual.py)
            wait_idle(page, 900)
        no_exception(page)
        body = page.inner_text("body")
        assert "first-word-out" in page.content() and "Not scored" not in body
        if width == 1400:
            assert "first-word-out.tsv scored and stored" in body
            assert "Mean J over the 15 languages, each counting once" in body and "Official average" not in body
            assert "The official average is this with TextDetox 2025" in body
        assert axes_na(body) == ""
        assert "Agreement of Embedded (offline CPU) with people per language" in body
        assert cut_off_controls(page) == []
        shot(page, f"embedded_submissions_2025_{width}", height=3000, width=width)

        page.goto(f"{offline_server}/leaderboard?" + urllib.parse.urlencode(
            {"dataset": "TextDetox 2025", "splits": "dev", "preset": EMBEDDED}))
        wait_idle(page, 180)
        no_exception(page)
        # The submission is named in the ranking's grid and the charts, drawn after the run has ended.
        wait_markup(page, "first-word-out", timeout=120)
        board = page.inner_text("body")
        assert "first-word-out" in page.content()
        assert axes_na(board) == ""
        assert "Agreement of Embedded (offline CPU) with people per language" in board
        # the languages the measured figures call weak, and no other (Russian is stated by RUSSE-2022's own
        # human evaluation, apart); the measure is chosen on, and the page says so
        weak = re.search(r"Weak \(below 0\.80\) in ([^.:()]*)", board)
        assert weak and weak.group(1).strip() == ", ".join(measured_weak(data_root)), \
            weak.group(0) if weak else board[-3000:]
        assert "Chosen on, not held out" in board
        assert cut_off_controls(page) == []
        shot(page, f"embedded_leaderboard_2025_{width}", height=3200, width=width)


def open_candidates(page, url: str, lang: str, toxic: str, rewrites: list[str], width: int) -> None:
    """Live scoring from a link holding the input and its candidates, scored by the offline preset."""
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{url}/live_scoring?" + urllib.parse.urlencode(
        {"dataset": "TextDetox 2025", "live_lang": lang, "preset": EMBEDDED,
         "live_input": toxic, "live_candidates": "\n".join(rewrites)}))
    wait_idle(page, 180)
    no_exception(page)


#: Where a new user saw the star on the copy (zh, hi, ja, tt) or on the unrelated sentence
#: (de, am, ru); each run at 1400 px, two of them at 800 px as well.
STAR_CASES = [(lang, 1400) for lang in ("zh", "hi", "ja", "tt", "de", "am", "ru")] + [("zh", 800), ("ru", 800)]


@pytest.mark.parametrize(("lang", "width"), STAR_CASES)
def test_the_star_never_marks_a_copy_an_unrelated_sentence_or_another_language(offline_server, page, lang, width):
    """Four candidates of a people-written case (a polite rewrite, the copy, an unrelated
    sentence, the polite idea in another language): only the polite rewrite may carry the
    star; the other three say why they are not ranked, and the star says when the preset's
    agreement with people in the language is weak or unknown."""
    from detox_core.vocab import language_name

    case = case_of(CASES, lang)
    open_candidates(page, offline_server, lang, case["toxic"],
                    [case["polite"], case["toxic"], case["unrelated"], case["other_text"]], width)
    # the plain code in the link picks the language
    assert page.get_by_role("combobox", name="Language", exact=True).input_value() == f"{language_name(lang)} ({lang})"
    titles = [t.inner_text() for t in page.get_by_text(re.compile(r"^Rewrite \d")).all()]
    assert len(titles) == 4, titles
    assert [i for i, t in enumerate(titles) if "best J" in t] in ([0], []), titles
    assert "not ranked: an unchanged copy of the input" in titles[1]
    # the unrelated sentence: called so where the model of meaning puts it further than nearly every
    # pair of different inputs; else left to its J, which the star never reaches
    assert "not ranked: unrelated to the input" in titles[2] or "best J" not in titles[2]
    # ... and a J that shows as 0.00 is told too: every rewrite the star skips says why.
    if j_values(page)[2] <= 0.0:
        assert "not ranked: unrelated to the input" in titles[2] or "not ranked: scored J 0.00" in titles[2], titles[2]
    assert "not ranked: in another language or script than the input" in titles[3]
    body = page.inner_text("body")
    assert "rewrite 2 is an unchanged copy of the input" in body
    if "best J (agreement with people" in titles[0]:
        assert "The star is this preset's pick, not a verdict" in body
    assert cut_off_controls(page) == []
    shot(page, f"embedded_live_star_{lang}_{width}", height=2600, width=width)


# A link's language, a wrong script and the Example hint are read by AppTests (tests/app/test_live_links.py).


#: Eight kinds of candidates written for Live scoring (tests/live/data/live_candidates.tsv):
#: the languages where a new user saw the star on the more toxic rewrite, a fragment or a J of 0.00.
EIGHT = Path(__file__).resolve().parent.parent / "live" / "data" / "live_candidates.tsv"
EIGHT_CASES = [("ru", 1400), ("tt", 1400), ("zh", 1400), ("ru", 800), ("zh", 800)]


@pytest.mark.parametrize(("lang", "width"), EIGHT_CASES)
def test_the_star_is_on_a_paraphrase_or_on_none_among_eight_kinds(offline_server, page, lang, width):
    """A polite and a loose paraphrase, the copy, the copy in other case, an unrelated sentence,
    a translation, a fragment and a more toxic rewrite: the star is never on the last six, a
    starred J never shows as 0.00, the paraphrases are never "unrelated", the more toxic
    rewrite says so on its title and its card."""
    case = case_of(EIGHT, lang)
    upper = case["toxic"].upper()
    open_candidates(page, offline_server, lang, case["toxic"],
                    [case["polite"], case["loose"], case["toxic"], upper if upper != case["toxic"] else case["toxic"] + "!",
                     case["unrelated"], case["translated"], case["fragment"], case["more_toxic"]], width)
    titles = [t.inner_text() for t in page.get_by_text(re.compile(r"^Rewrite \d")).all()]
    assert len(titles) == 8, titles
    starred = [i for i, t in enumerate(titles) if "best J" in t]
    assert starred in ([0], [1], []), titles
    if starred:
        assert j_values(page)[starred[0]] > 0, j_values(page)
    assert not any("unrelated" in t for t in titles[:2]), titles
    assert "not ranked: an unchanged copy of the input" in titles[2] and "not ranked: an unchanged copy" in titles[3]
    assert "not ranked: a fragment of the input" in titles[6], titles[6]
    assert "not ranked: more toxic than the input" in titles[7], titles[7]
    body = page.inner_text("body")
    assert "rewrite 8 is more toxic than the input" in body
    assert cut_off_controls(page) == []
    shot(page, f"embedded_live_eight_{lang}_{width}", height=4200, width=width)


@pytest.mark.parametrize("width", [1400, 800])
def test_a_short_rewrite_says_the_presets_known_weakness_on_its_card(offline_server, page, width):
    """"Bitte sei still." for "Halt die Fresse, du Idiot." scored SIM 0.12 with nothing said: the
    card of a rewrite of a few words says that this preset scores such rewrites erratically."""
    open_candidates(page, offline_server, "de", "Halt die Fresse, du Idiot, niemand will deine Meinung hören.",
                    ["Bitte sei still.", "Bitte sei leiser, deine Meinung interessiert hier gerade niemanden."], width)
    short = page.get_by_text(re.compile(r"A short rewrite \(3 words\): .*judge this one yourself"))
    assert short.count() == 1
    first = page.get_by_text(re.compile(r"^Rewrite 1")).bounding_box()
    second = page.get_by_text(re.compile(r"^Rewrite 2")).bounding_box()
    caption = short.bounding_box()
    assert first["y"] < caption["y"] < second["y"]  # in the short rewrite's card, not the long one's
    assert caption["x"] + caption["width"] <= width  # whole at 800 px too
    assert cut_off_controls(page) == []
    shot(page, f"embedded_live_short_{width}", height=2000, width=width)

"""The embedded preset beyond Russian, per language family: a copy keeps everything, an
output in the wrong language or script is penalised, deleting an insult raises STA."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from detox_core.embedded import multilingual as ml
from detox_core.metrics.chrf import sentence_chrf

#: per language: (neutral phrases, insults, joiner) from which tiny toxic inputs are made
FAMILIES = {
    "en": (["you are late again today", "this movie was long and boring", "my neighbour parks on the lawn",
            "the meeting starts at nine tomorrow", "please answer my email soon"], ["idiot", "moron", "bastard"], " "),
    "zh": (["你今天又迟到了", "这部电影太长了", "我的邻居把车停在草坪上", "会议明天九点开始", "请尽快回复我的邮件"],
           ["傻逼", "白痴", "混蛋"], ""),
    "ja": (["今日もまた遅刻した", "この映画は長すぎた", "隣の人が芝生に車を止めた", "会議は明日九時に始まる",
            "早くメールに返事してください"], ["馬鹿", "クズ", "アホ"], ""),
    "ar": (["لقد تأخرت مرة أخرى اليوم", "هذا الفيلم كان طويلا جدا", "جاري يوقف سيارته على العشب",
            "الاجتماع يبدأ غدا في التاسعة", "أرجو أن ترد على رسالتي"], ["حمار", "غبي", "كلب"], " "),
    "he": (["איחרת שוב היום", "הסרט הזה היה ארוך מדי", "השכן שלי חונה על הדשא", "הפגישה מתחילה מחר בתשע",
            "בבקשה תענה למייל שלי"], ["מטומטם", "אידיוט", "זבל"], " "),
    "hin": (["tum aaj phir late aaye", "yeh movie bahut lambi thi", "mera padosi ghaas par gaadi lagata hai",
             "meeting kal nau baje shuru hogi", "please mera email jaldi dekho"], ["chutiya", "kamina", "harami"], " "),
    "am": (["ዛሬ እንደገና ዘግይተሃል", "ይህ ፊልም በጣም ረጅም ነበር", "ጎረቤቴ መኪናውን በሳር ላይ ያቆማል",
            "ስብሰባው ነገ በሶስት ሰዓት ይጀምራል", "እባክህ ኢሜሌን መልስልኝ"], ["ደደብ", "ሞኝ", "ውሻ"], " "),
}
#: an output in another script than the language's
WRONG_SCRIPT = {"zh": "you are late again today", "ja": "you are late again today", "ar": "you are late again today",
                "he": "you are late again today", "am": "you are late again today", "hin": "तुम आज फिर देर से आए और मुझे तुम्हारा इंतजार करना पड़ा",
                "en": "ты сегодня опять опоздал"}


def _inputs(lang: str) -> list[str]:
    phrases, insults, joiner = FAMILIES[lang]
    sep = "，" if lang == "zh" else ("、" if lang == "ja" else " ")
    return [f"{p}{sep}{i}" if joiner == "" else f"{p} {i}" for p, i in itertools.product(phrases, insults)] + \
           [f"{i}{sep}{p}" if joiner == "" else f"{i} {p}" for p, i in itertools.product(phrases, insults)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Tiny per-language models, trained by the recipe's own code on inline inputs."""
    models = {}
    for lang, (_, insults, _) in FAMILIES.items():
        models[lang] = ml.train_language(lang, _inputs(lang), frozenset(insults))
    return models


@pytest.mark.parametrize("lang", sorted(FAMILIES))
def test_a_copy_gets_sim_1_and_fl_1(trained, lang):
    inputs = _inputs(lang)[:6]
    ax = ml.axes(trained[lang], inputs, inputs, [[] for _ in inputs], sentence_chrf)
    assert np.allclose(ax["sim"], 1.0) and np.allclose(ax["fl"], 1.0)
    assert not ax["wrong_language"].any()
    # A copy is as toxic as its input: STA gets no relative half.
    assert np.allclose(ax["sta"], ax["sta_raw"])


@pytest.mark.parametrize("lang", sorted(FAMILIES))
def test_deleting_the_insult_raises_sta_and_keeps_content(trained, lang):
    insults = FAMILIES[lang][1]
    inputs = _inputs(lang)[:5]
    outputs = list(inputs)
    for k, t in enumerate(inputs):
        for i in insults:
            t = t.replace(i, "")
        outputs[k] = t.strip(" ，、")
    ax = ml.axes(trained[lang], inputs, outputs, [[] for _ in inputs], sentence_chrf)
    copy = ml.axes(trained[lang], inputs, inputs, [[] for _ in inputs], sentence_chrf)
    assert (ax["sta"] > copy["sta"]).all()
    assert (ax["sim"] > 0.8).all()  # the insult's deletion costs (almost) no content
    assert not ax["wrong_language"].any()


@pytest.mark.parametrize("lang", sorted(FAMILIES))
def test_an_output_in_another_script_or_language_is_penalised(trained, lang):
    inputs = _inputs(lang)[:1]
    wrong = ml.axes(trained[lang], inputs, [WRONG_SCRIPT[lang]], [[]], sentence_chrf)
    assert wrong["wrong_language"][0] == 1.0
    assert wrong["sim"][0] <= 0.5 and wrong["fl"][0] <= 0.5


def test_lingua_catches_a_latin_output_in_another_language(trained):
    inputs = ["you are late again today and I am tired of waiting for you, idiot"]
    german = ["du bist heute schon wieder zu spät und ich bin es leid, auf dich zu warten"]
    english = ["you are late again today and I am tired of waiting for you"]
    assert ml.wrong_language("en", inputs, german)[0]
    assert not ml.wrong_language("en", inputs, english)[0]
    ax = ml.axes(trained["en"], inputs + inputs, german + english, [[], []], sentence_chrf)
    assert ax["sim"][0] < ax["sim"][1] and ax["fl"][0] <= 0.5 * 1.0 + 1e-9


def test_segmentation_of_chinese_and_japanese_finds_words():
    zh = ml.tokens("你这个傻逼，快滚开吧", "zh")
    assert "这个" in zh and "滚开" in zh
    # A lexicon word the segmenter cuts in pieces is still found, piece by piece.
    assert ml.unspaced_lexicon_pieces("你这个傻逼，快滚开吧", "zh", frozenset({"傻逼"})) <= {"傻", "逼", "傻逼"}
    assert ml.unspaced_lexicon_pieces("你这个傻逼，快滚开吧", "zh", frozenset({"傻逼"}))
    ja = ml.tokens("今日もまた遅刻した", "ja")
    assert len(ja) > 2 and "".join(ja) == "今日もまた遅刻した"


def test_scripts():
    assert ml.main_script("ዛሬ እንደገና ዘግይተሃል") == "ethiopic"
    assert ml.main_script("איחרת שוב היום") == "hebrew"
    assert ml.main_script("لقد تأخرت") == "arabic"
    assert ml.main_script("tum aaj phir late aaye") == "latin"
    assert ml.main_script("今日もまた") == "cjk"


def test_an_empty_output_gets_nothing(trained):
    inputs = _inputs("en")[:1]
    ax = ml.axes(trained["en"], inputs, [""], [[]], sentence_chrf)
    assert ax["sim"][0] == 0.0 and ax["fl"][0] == 0.0


def test_training_is_deterministic():
    a = ml.train_language("en", _inputs("en"), frozenset(FAMILIES["en"][1]))
    b = ml.train_language("en", _inputs("en"), frozenset(FAMILIES["en"][1]))
    texts = ["you are late again today", "idiot"]
    assert np.array_equal(a.p_neutral(texts), b.p_neutral(texts)) and a.fl_noise == b.fl_noise


def test_a_language_without_enough_inputs_is_skipped_and_the_others_train(tmp_path):
    """Only part of an edition fetched (German has 3 inputs, no 2025 languages at all):
    training goes on, and only the trained languages are listed as held."""
    base = tmp_path / "textdetox2024"
    base.mkdir()
    rows = [(f"{p} {i}", "en") for p, i in itertools.product(FAMILIES["en"][0], FAMILIES["en"][1])]
    rows += [(f"{i} {p}", "en") for p, i in itertools.product(FAMILIES["en"][0], FAMILIES["en"][1])]  # 30 distinct
    rows += [("du bist ein idiot", "de"), ("halt die klappe", "de"), ("so ein depp", "de")]
    (base / "dev_inputs.tsv").write_text("toxic_sentence\tlang\n" + "".join(f"{t}\t{c}\n" for t, c in rows),
                                         encoding="utf-8")
    said: list[str] = []
    meta = ml.train_all(tmp_path, tmp_path, said.append)
    assert "en" in meta and "de" not in meta and "fr" not in meta
    assert any(s.startswith("de: skipped, 3 toxic inputs") for s in said)
    assert set(ml.load_languages(tmp_path)) == {"en"}

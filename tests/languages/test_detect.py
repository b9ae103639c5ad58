"""Language detection (:mod:`detox_core.languages.detect`): a pair's language when nobody says it."""

from __future__ import annotations

from detox_core.languages.detect import detect, pair_languages


def test_languages_are_detected_per_sentence_across_scripts():
    texts = ["ты дебил, заткнись уже наконец", "ти дурень, що ти взагалі знаєш",
             "Du bist ein kompletter Idiot, halt die Klappe", "أنت غبي جدا ولا تفهم شيئا", "你真是个白痴，什么都不懂",
             "お前は本当にバカだな", "Сез бик әдәпсез кеше"]
    assert [code for code, _ in detect(texts)] == ["ru", "uk", "de", "ar", "zh", "ja", "tt"]


def test_chinese_with_a_middle_dot_is_chinese_japanese_needs_kana():
    texts = ["哈利・波特真是个白痴", "你这个笨蛋・真是的", "ハリー・ポッターはバカだ", "ラーメン"]
    assert [c for c, _ in detect(texts)] == ["zh", "zh", "ja", "ja"]


def test_a_pair_without_letters_takes_the_language_of_the_others():
    assert pair_languages(["you are a stupid idiot, shut up", "🤬🤬", "12345"], None) == (["en"] * 3, "detected")

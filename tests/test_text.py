"""Words, lexicon hits, word diffs and edit kinds."""

from __future__ import annotations

from detox_core.text import edit_kind, lexicon_hits, lexicon_spans, removed_words, word_diff, words

LEX = frozenset({"дебил", "хрень", "ебаный"})


def test_words_normalise_case_and_yo():
    assert words("Ёлки-палки, ТЫ х*р!") == ["елки-палки", "ты", "х*р"]


def test_lexicon_hits_folds_yo_and_case():
    assert lexicon_hits("Ёбаный ДЕБИЛ и хрень", LEX) == ["ебаный", "дебил", "хрень"]
    assert lexicon_hits("всё хорошо", frozenset()) == []


def test_word_diff_marks_removed_added_and_lexicon():
    diff = word_diff("ты дебил, иди отсюда", "ты неправ, иди отсюда", LEX)
    assert diff.removed == ["дебил"] and diff.added == ["неправ"]
    toxic = [t.text for t in diff.source if t.toxic]
    assert toxic == ["дебил"]
    # Joining each side's tokens gives the texts back, spaces included.
    assert "".join(t.text for t in diff.source) == "ты дебил, иди отсюда"
    assert "".join(t.text for t in diff.target) == "ты неправ, иди отсюда"


def test_word_diff_ignores_case_and_whitespace():
    diff = word_diff("Ну  и   ПОГОДА", "ну и погода")
    assert diff.removed == [] and diff.added == []
    assert all(t.op == "equal" for t in diff.source + diff.target)


def test_word_diff_keeps_html_as_text():
    diff = word_diff("<script>alert(1)</script>", "alert")
    assert "".join(t.text for t in diff.source) == "<script>alert(1)</script>"


def test_edit_kind():
    assert edit_kind("ты дебил, иди отсюда", "ты, иди отсюда") == "deletion"
    assert edit_kind("ты дебил, иди отсюда", "Ты дебил иди отсюда!") == "unchanged"
    assert edit_kind("ты дебил, иди отсюда", "ты неправ, иди отсюда") == "rewrite"
    assert edit_kind("ты дебил", "ты дебил и ещё") == "rewrite"  # only additions


def test_removed_words_counts_once_per_pair():
    counts = removed_words([("дебил дебил ушёл", "ушёл"), ("дебил пришёл", "человек пришёл")])
    assert counts == {"дебил": 2}


def test_scripts_without_spaces_are_diffed_character_by_character():
    from detox_core.text import word_diff, words

    assert words("尽管浪，谁是狗，不得house") == ["尽", "管", "浪", "谁", "是", "狗", "不", "得", "house"]
    diff = word_diff("你是个白痴", "你错了")
    assert [(t.text, t.op) for t in diff.source] == [("你", "equal"), ("是", "delete"), ("个", "delete"),
                                                    ("白", "delete"), ("痴", "delete")]
    assert diff.added == ["错", "了"] and "".join(t.text for t in diff.target) == "你错了"
    japanese = word_diff("お前はバカだ", "あなたは間違っている")
    assert "".join(t.text for t in japanese.source) == "お前はバカだ" and "は" not in japanese.removed
    # Spaced scripts keep their words (Arabic, Russian with inner hyphens).
    assert words("أنت غبي جدا") == ["أنت", "غبي", "جدا"] and words("по-русски") == ["по-русски"]


def test_a_lexicon_loaded_again_is_not_compared_word_by_word_on_every_sentence():
    """The app and the control generator load the same lexicon more than once (another object,
    equal words): finding its words in a sentence must not compare the two sets (138,000 words
    for Russian) on every call, as a cache keyed by the lexicon's value did (minutes for the
    controls of one project)."""
    compared = []

    class Lexicon(frozenset):
        def __eq__(self, other):
            compared.append(1)
            return frozenset.__eq__(self, other)

        __hash__ = frozenset.__hash__

    words_ = [f"слово{i}" for i in range(1000)] + ["дурак", "иди на хуй"]
    first, again = Lexicon(words_), Lexicon(words_)
    text = "ты дурак, иди на хуй"
    assert lexicon_spans(text, first) == lexicon_spans(text, again) == [(3, 8), (10, 20)]
    for _ in range(5):
        lexicon_spans(text, again)
    assert compared == []


def test_the_warm_up_builds_every_stemmer_so_a_visitors_first_card_imports_nothing(monkeypatch):
    # nltk's import took 1.7 s inside a visitor's first English card that compared insults.
    from detox_core import text
    from detox_core.languages import LANGUAGES

    monkeypatch.setattr(text, "_STEMMERS", {})
    text.warm_stemmers()
    assert set(text._STEMMERS) == {lang.stemmer for lang in LANGUAGES.values() if lang.stemmer}
    assert text.same_root("idiots", "idiot", "en") and not text.same_root("moron", "idiot", "en")

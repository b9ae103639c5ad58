"""Words, lexicon hits, word diffs and edit kinds."""

from __future__ import annotations

from detox_core.text import edit_kind, lexicon_hits, removed_words, word_diff, words

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

"""Live scoring's language before the visitor picks one: the typed text's, else the
browser's, else English on a multilingual edition (it was Amharic, the first in order)."""

from __future__ import annotations

from types import SimpleNamespace

from detox_core.editions.registry import get_edition
from detox_core.live.inputs import browser_languages, default_language


def choice(edition: str | None, languages: tuple[str, ...] = ()):
    return SimpleNamespace(edition=get_edition(edition) if edition else None, languages=languages)


def test_a_multilingual_edition_starts_in_english_not_its_first_language():
    for name in ("textdetox2024", "textdetox2025"):
        every = tuple(get_edition(name).languages)
        assert every[0] == "am"
        assert default_language(choice(name, every)) == "en"
        assert default_language(choice(name)) == "en"


def test_the_typed_text_decides_then_the_browser():
    from detox_core.languages.detect import detector

    detector()  # what the server's warm-up builds (a visitor's typing never does)
    every = tuple(get_edition("textdetox2024").languages)
    assert default_language(choice("textdetox2024", every), "Du bist ein Idiot, halt die Klappe.") == "de"
    assert default_language(choice("textdetox2024", every), "ты тупой идиот") == "ru"
    assert default_language(choice("textdetox2024", every), "你是个白痴") == "zh"
    assert default_language(choice("textdetox2024", every), "", ["fr", "es", "en"]) == "es"  # French is not there
    # A language picked in the sidebar narrows them; RUSSE-2022 stays Russian.
    assert default_language(choice("textdetox2024", ("de", "uk"))) == "de"
    assert default_language(choice("russe2022", ("ru",)), "", ["en"]) == "ru"
    assert default_language(choice(None)) == "ru"  # a corpus of no known language, as before


def test_the_browsers_languages_in_its_order():
    assert browser_languages("de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7") == ["de", "en"]
    assert browser_languages("en;q=0.5, uk", "ru-RU") == ["ru", "uk", "en"]
    assert browser_languages(None) == [] and browser_languages("*;q=0.1, ;q=x") == []


def test_typing_never_builds_a_language_detector(monkeypatch):
    """The wide detector takes about 4 s and 500 MB: a visitor's typing never builds it; before
    the warm-up built the server's, a Latin or Cyrillic text is not told (the default stays)."""
    import detox_core.languages.detect as detect

    monkeypatch.setattr(detect, "_DETECTORS", {})
    monkeypatch.setattr(detect, "_lingua", lambda codes: (_ for _ in ()).throw(AssertionError("a detector built")))
    every = tuple(get_edition("textdetox2024").languages)
    assert default_language(choice("textdetox2024", every), "Du bist ein Idiot, halt die Klappe.", ["en"]) == "en"
    assert default_language(choice("textdetox2024", every), "你是个白痴") == "zh"  # the script tells
    assert default_language(choice("textdetox2024", every), "तुम बेवकूफ हो") == "hi"

"""The embedded preset's known weak cases, said on a card where they apply."""

from __future__ import annotations

import pytest

from detox_core.metrics import preset_class
from detox_core.metrics.embedded.preset import short_rewrite


@pytest.mark.parametrize(("lang", "source", "output", "short"), [
    ("de", "Halt die Fresse, du Idiot.", "Bitte sei still.", "3 words"),
    ("en", "You are a fucking moron", "You are wrong", "3 words"),
    ("uk", "Замовкни, ідіоте, тебе ніхто не питав.", "Будь ласка, помовч.", "3 words"),
    ("zh", "闭嘴吧你这个蠢货，没人在乎你。", "请安静。", "4 characters"),
    ("en", "Shut up", "Please stop", None),  # as long as its input: nothing dropped to misread
    ("en", "Shut up, you moron, nobody cares about your opinion.", "Please stop, nobody asked for your opinion.",
     None),
    ("en", "Shut up, you moron", "", None),  # empty: a flag of its own
])
def test_a_rewrite_of_a_few_words_shorter_than_its_input_is_short(lang, source, output, short):
    assert short_rewrite(source, output, lang) == short
    caveats = preset_class("embedded").caveats(source, output, lang)
    assert (len(caveats) == 1 and short in caveats[0]) if short else caveats == []


def test_presets_without_known_weak_cases_say_nothing():
    assert preset_class("russe2022").caveats("Ты дурак", "Нет", "ru") == []

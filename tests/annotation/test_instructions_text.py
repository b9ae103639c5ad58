"""The instructions read in their own language: the examples inside their wording (a
masked swear word, a replacement) are in the instructions' language."""

from __future__ import annotations

import re

import pytest

from detox_core.annotation.instructions import localized
from detox_core.annotation.tasks import TASKS

CYRILLIC = re.compile(r"[\u0400-\u04ff]")


@pytest.mark.parametrize("task", TASKS)
def test_english_instructions_have_no_russian_words(task):
    sp = localized(task, "en")
    assert CYRILLIC.findall(sp.instructions) == []
    assert not CYRILLIC.search(sp.question) and not any(CYRILLIC.search(text) for _, text in sp.options)


def test_the_masked_swear_word_example_is_in_the_instructions_language():
    assert "`f*ck`" in localized("toxicity", "en").instructions
    assert "`х*р`" in localized("toxicity", "ru").instructions

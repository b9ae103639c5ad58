"""The score card's bars: plain HTML with the card's numbers, no chart library."""

from __future__ import annotations

from detox_core.ui.widgets.scores import score_bars_html


def test_bars_show_every_score_clamped_and_n_a_for_a_missing_one():
    row = {"sta": 0.95, "sim": 0.42, "fl": 1.2, "j": 0.1, "chrf": float("nan"), "bleu": 0.3, "rouge_l": 0.5,
           "bertscore": 0.8}
    out = score_bars_html(row)
    assert "width:95%;background:#2e7d5b" in out  # green from 0.7
    assert "width:42%;background:#e67e22" in out  # orange from 0.4
    assert "width:100%" in out and "width:120%" not in out  # a bar never leaves its track
    assert "width:10%;background:#c0392b" in out
    assert out.count(">n/a<") == 1 and "chrF n/a" in out  # shown, and read out, as n/a
    assert "<script" not in out

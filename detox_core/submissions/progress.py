"""What a page shows while a submission is scored: the stage, the pairs done and an estimate
of the time left, from a preset's ``progress(step, done, total)`` calls (:data:`StepProgress`).

A preset tells :data:`~detox_core.metrics.base.LOADING_STEP` while it loads its models
before the first pair (the first score after a start), then
:data:`~detox_core.metrics.base.PAIRS_STEP` with the pairs done; another step (a model
preset's ``sta``, ``sim`` ...) is shown with its own counts. The page then tells
:meth:`ScoringProgress.storing` and :meth:`ScoringProgress.finished`.

The time left is what is left of the step at its recent rate. A rate since the start misled
on a shared machine, where other people's work comes and goes and languages differ in
length: "about 7 min left" of a 5-minute score whose first minute was slow, "about 25 s
left" of 71 s when the machine got busier half-way. So the rate here is mostly that of the
last quarter of the counting (:data:`RECENT_WEIGHT`, :data:`WINDOW_SHARE`), and the time
before the first pairs are counted (the first batches hold the longest texts) is start-up,
not rate. For the pairs, the time left also counts what follows the last one (each
language's scores from the texts' vectors, the reference metrics, the storing) as a share
of the pairs' time (:data:`AFTER_SHARE`, then what the last score of this process took): the
bar does not say "a few seconds left" while that is still to come.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from detox_core.metrics.base import LOADING_STEP, PAIRS_STEP

#: What the page says while the models load.
LOADING_TEXT = "Loading the models (first score after a start)…"
#: Seconds between two updates of the page, at least (each update is a message to the browser).
MIN_INTERVAL = 0.25
#: Seconds of counting before the rate is trusted for an estimate (the first batches' rates
#: swing by half: "about 11 min left" of 7.5 min after 2.5 s).
SETTLE_SECONDS = 5.0
#: The recent rate is that of the last quarter of the counting, and of at least 30 s
#: (shorter windows swing with each batch: 55 to 135 pairs in 10 s of a steady 2-core run);
#: it weighs three quarters against the rate since the first pairs counted (replayed on
#: recorded and simulated runs, this mix missed least when the rate changed and about as
#: little as the rate since the start when it did not: benchmarks/bench_scoring_estimate.py).
WINDOW_SHARE = 0.25
WINDOW_SECONDS = 30.0
RECENT_WEIGHT = 0.75
#: What follows the last pair, as a share of the time the pairs took, until a score of this
#: process has measured it (the TextDetox 2024 dev set's first score: 12 s after 450 s of
#: pairs at load 7, 3%; a set whose inputs are embedded already spends less on its pairs
#: and as much after them).
AFTER_SHARE = 0.03
_AFTER = {"share": AFTER_SHARE}  # the share the last finished score of this process took


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
        self.total = 0
        self.first_done = 0
        self.first: tuple[float, int] | None = None  # the step's first call that counted pairs
        self.times: list[float] = []  # the calls that counted pairs and the window may reach
        self.counts: list[int] = []
        self.after = 0.0  # seconds of what follows the pairs, as last estimated
        self.shown_at: float | None = None
        self.last: ProgressView | None = None

    def __call__(self, step: str, done: int, total: int) -> None:
        now = self.clock()
        new_step = step != self.step
        if new_step:
            self.step, self.started, self.first_done, self.first = step, now, done, None
            self.times, self.counts = [], []
        self.total = total
        self._count(done, total, now)
        view = self.view(step, done, total, now)
        if new_step or done >= total or self.shown_at is None or now - self.shown_at >= MIN_INTERVAL:
            self._show(view, now)

    def storing(self) -> None:
        """Say that the scores are being stored (the preset has returned them)."""
        what = f"the scores of {self.total:,} pairs" if self.total else "the scores"
        self._show(ProgressView(1.0, f"Storing {what}…"), self.clock())

    def finished(self) -> None:
        """The scores are stored: keep the share of the pairs' time that what followed them
        took, for the next score's estimate."""
        if self.step != PAIRS_STEP or not self.times or self.first is None:
            return
        pairs = self.times[-1] - self.started
        if pairs >= SETTLE_SECONDS:
            share = (self.clock() - self.times[-1]) / pairs
            _AFTER["share"] = min(max(share, AFTER_SHARE / 4), 1.0)

    def _show(self, view: ProgressView, now: float) -> None:
        self.shown_at, self.last = now, view
        self.show(view)

    def _count(self, done: int, total: int, now: float) -> None:
        """Keep ``done`` at ``now`` when it counts more pairs than before (not the step's
        first call: start-up), and only the calls the rate's window may still reach."""
        if done >= total or done <= self.first_done or (self.counts and done <= self.counts[-1]):
            return
        if self.first is None:
            self.first = (now, done)
        self.times.append(now)
        self.counts.append(done)
        # The window's start only moves forward: what lies before it (but the one call at it) goes.
        k = bisect.bisect_right(self.times, now - self._window(now)) - 1
        if k > 0:
            del self.times[:k], self.counts[:k]

    def _window(self, now: float) -> float:
        return max(WINDOW_SECONDS, WINDOW_SHARE * (now - self.first[0])) if self.first else WINDOW_SECONDS

    def rate(self, now: float) -> float | None:
        """Pairs a second: the window's rate and the rate since the first pairs counted, in
        :data:`RECENT_WEIGHT` to the rest (as seconds a pair); None until
        :data:`SETTLE_SECONDS` of counting."""
        if self.first is None or len(self.times) < 2 or now - self.first[0] < SETTLE_SECONDS:
            return None
        k = max(bisect.bisect_right(self.times, now - self._window(now)) - 1, 0)
        recent = (self.counts[-1] - self.counts[k]) / (now - self.times[k])
        overall = (self.counts[-1] - self.first[1]) / (now - self.first[0])
        if recent <= 0 or overall <= 0:
            return None
        return 1.0 / (RECENT_WEIGHT / recent + (1.0 - RECENT_WEIGHT) / overall)

    def seconds_left(self, done: int, total: int, now: float) -> float | None:
        """What is left of the step at its :meth:`rate`, and for the pairs what follows them;
        None until the rate is known."""
        pairs = self.step == PAIRS_STEP
        if done >= total:  # what follows the pairs runs from the last ones counted
            last = self.times[-1] if self.times else self.started
            return max(self.after - (now - last), 0.0) if pairs else 0.0
        rate = self.rate(now)
        if rate is None:
            return None
        left = (total - done) / rate
        if pairs:
            self.after = _AFTER["share"] * (now - self.started + left)
            left += self.after
        return left

    def view(self, step: str, done: int, total: int, now: float) -> ProgressView:
        fraction = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
        if step == LOADING_STEP:
            return ProgressView(0.0, LOADING_TEXT)
        left = self.seconds_left(done, total, now)
        if step == PAIRS_STEP:
            if done >= total:
                # What follows can outlast its estimate: then no number rather than "a few seconds".
                said = f" · {time_left_text(left)}" if left is not None and left >= 5 else ""
                return ProgressView(1.0, f"Scored {total:,} pairs · finishing{said}", left)
            return ProgressView(fraction, f"Scoring {done:,} of {total:,} pairs · {time_left_text(left)}", left)
        return ProgressView(fraction, f"{step}: {done:,} / {total:,} · {time_left_text(left)}", left)

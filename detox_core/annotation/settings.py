"""A project's settings: quality-control thresholds, page layout, aggregation."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

from detox_core.annotation.aggregation import AGGREGATORS, DEFAULT_AGGREGATOR, describe_aggregators
from detox_core.annotation.instructions import DEFAULT_UI, UI_LANGUAGES
from detox_core.errors import AnnotationError


@dataclass
class Settings:
    """A project's quality-control thresholds and page layout (all configurable)."""

    overlap: int = 5
    page_size: int = 10
    controls_per_page: int = 2
    ban_control_accuracy: float = 0.7
    min_control_answers: int = 6
    # A ban needs evidence: the annotator's accuracy must be under ban_control_accuracy even at
    # the upper end of its confidence interval at this level (quality.accuracy_upper_bound).
    # At 95%, 6 controls ban at 1 of 6 right or fewer; a careful annotator (90% right) is banned
    # within 30 controls with probability 0.02% (a raw rate of 70% banned 12.7%), random yes/no
    # answers with 79% (99.6% under the raw rate).
    ban_confidence: float = 0.95
    min_page_seconds: float = 15.0
    max_skipped_pages: int = 5
    # The exam keeps out people who did not read the instructions, not careful people who
    # see one item differently: some exam items are debatable. With n items and pass mark
    # m, an annotator right on each item with probability p passes with
    # P(Binomial(n, p) >= ceil(m n)) (quality.exam_pass_chance). 10 items at 70% allow 3
    # mistakes: a careful annotator (p = 0.9) passes 98.7% of the time, p = 0.8 87.9%,
    # someone clicking at random on yes/no items (p = 0.5) 17.2%, and the control items
    # of the work pages stop the rest. 4 items at 80% allow no mistake: one debatable item
    # fails anyone, and only 65.6% of careful annotators pass.
    exam_pass: float = 0.7
    # Exam items each annotator gets, drawn from the project's exam pool (0 = the whole
    # pool): a pool larger than the exam gives each annotator other items.
    exam_size: int = 10
    # A new name is refused from an address from which this many attempts already failed
    # the exam or were banned; 0 = no limit. Off by default, as on crowd platforms: an
    # account is a person and an address is not (a lab, a household or a mobile network
    # shares one), so an address limit is the organizer's opt-in.
    max_refused_per_address: int = 0
    # An open page's items are given to others after this; before it too when nothing
    # else is left (store.next_page), so a page held open never stalls the campaign.
    page_timeout_minutes: float = 20.0
    # Open pages all the people who joined from one address may hold at once (0 = no
    # limit): 25 names from one address once held 54 pages. A lab sharing an address has
    # room; the organizer can raise it.
    max_open_pages_per_address: int = 20
    aggregate_min_accuracy: float = 0.5
    review_confidence: float = 0.9
    method: str = DEFAULT_AGGREGATOR
    training: bool = True
    # The language of the instructions, questions and answers annotators read first
    # (each annotator can switch); see detox_core.annotation.instructions.UI_LANGUAGES.
    ui_language: str = DEFAULT_UI
    # Whether this project's human scores are the public Leaderboard's human columns (an
    # organizer's choice, one project at a time; off by default, so a pilot never becomes
    # the public human score). Systems with fewer judged outputs than
    # results.MIN_JUDGED_PER_SYSTEM are not shown as human scores even then.
    public_leaderboard: bool = False

    @classmethod
    def from_json(cls, text: str) -> "Settings":
        """Settings stored by any version: unknown keys ignored, missing ones defaulted."""
        known = {f.name for f in fields(cls)}
        stored = json.loads(text)
        if "one_attempt_per_address" in stored and "max_refused_per_address" not in stored:
            # Stored before the limit had a number: "one attempt per address" is a limit of 1.
            stored["max_refused_per_address"] = 1 if stored["one_attempt_per_address"] else 0
        return cls(**{k: v for k, v in stored.items() if k in known})

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def validate(self) -> None:
        if self.overlap < 1:
            raise AnnotationError("overlap must be at least 1")
        if self.page_size < 1:
            raise AnnotationError("items per page must be at least 1")
        if not 0 <= self.controls_per_page < self.page_size:
            raise AnnotationError("control items per page must be fewer than the items per page")
        if self.exam_size < 0 or self.max_refused_per_address < 0 or self.max_open_pages_per_address < 0:
            raise AnnotationError("exam items and refused attempts per address cannot be negative")
        if self.ui_language not in UI_LANGUAGES:
            raise AnnotationError(f"the instructions' language is one of {', '.join(UI_LANGUAGES)}")
        if self.method not in AGGREGATORS:
            raise AnnotationError(f"the aggregation method is {describe_aggregators()}")
        if self.overlap < (needed := AGGREGATORS[self.method].votes_needed):
            raise AnnotationError(
                f"{AGGREGATORS[self.method].title} gives an item a label only with {needed} answers or more, and "
                f"this project asks {self.overlap} annotator{'s' if self.overlap != 1 else ''} per item: no item "
                f"would get a label. Ask {needed} or more per item, or choose "
                f"{AGGREGATORS[DEFAULT_AGGREGATOR].title}.")
        for name in ("ban_control_accuracy", "exam_pass", "aggregate_min_accuracy", "review_confidence"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise AnnotationError(f"{name} must be between 0 and 1")
        if not 0.5 <= self.ban_confidence < 1.0:
            raise AnnotationError("the ban's confidence must be at least 0.5 and under 1")

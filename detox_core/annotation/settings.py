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
    min_page_seconds: float = 15.0
    max_skipped_pages: int = 5
    exam_pass: float = 0.8
    # Exam items each annotator gets, drawn from the project's exam pool (0 = the whole
    # pool): a pool larger than the exam gives each annotator other items.
    exam_size: int = 8
    # A failed exam or a ban holds for the address the annotator joined from, not only
    # for the name (turn off where annotators share one address, e.g. a lab behind NAT).
    one_attempt_per_address: bool = True
    page_timeout_minutes: float = 30.0
    aggregate_min_accuracy: float = 0.5
    review_confidence: float = 0.9
    method: str = DEFAULT_AGGREGATOR
    training: bool = True
    # The language of the instructions, questions and answers annotators read first
    # (each annotator can switch); see detox_core.annotation.instructions.UI_LANGUAGES.
    ui_language: str = DEFAULT_UI

    @classmethod
    def from_json(cls, text: str) -> "Settings":
        """Settings stored by any version: unknown keys ignored, missing ones defaulted."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in json.loads(text).items() if k in known})

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def validate(self) -> None:
        if self.overlap < 1:
            raise AnnotationError("overlap must be at least 1")
        if self.page_size < 1:
            raise AnnotationError("items per page must be at least 1")
        if not 0 <= self.controls_per_page < self.page_size:
            raise AnnotationError("control items per page must be fewer than the items per page")
        if self.ui_language not in UI_LANGUAGES:
            raise AnnotationError(f"the instructions' language is one of {', '.join(UI_LANGUAGES)}")
        if self.method not in AGGREGATORS:
            raise AnnotationError(f"the aggregation method is {describe_aggregators()}")
        for name in ("ban_control_accuracy", "exam_pass", "aggregate_min_accuracy", "review_confidence"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise AnnotationError(f"{name} must be between 0 and 1")

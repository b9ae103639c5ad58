"""Quality rules of crowd annotation, as pure functions: what counts as an answer, when
a page or a skip bans an annotator, whether an exam is passed, which exam items to ask.

The store (:mod:`detox_core.annotation.store`) applies them inside its transactions; they
read settings and counts, never the database.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from detox_core.annotation.settings import Settings
from detox_core.annotation.tasks import spec
from detox_core.errors import AnnotationError


def check_label(task: str, label: float) -> float:
    """An answer of ``task`` as a number, or AnnotationError when the task has no such answer."""
    allowed = [v for v, _ in spec(task).options]
    try:
        value = float(label)
    except (TypeError, ValueError):
        raise AnnotationError(f"{label!r} is not an answer of the {task} task") from None
    if value not in allowed:
        raise AnnotationError(f"{label!r} is not an answer of the {task} task (expected one of {allowed})")
    return value


def check_complete(items: Mapping[int, Any], answers: Mapping[int, float]) -> None:
    """Every item of a page answered, and nothing else."""
    missing = [i for i in items if answers.get(i) is None]
    extra = [i for i in answers if i not in items]
    if extra:
        raise AnnotationError(f"answers to items that are not on this page: {extra}")
    if missing:
        raise AnnotationError(f"{len(missing)} of {len(items)} items have no answer yet")


def require_active(status: str, ban_reason: str | None) -> None:
    """Refuse work from an annotator who is banned, failed the exam or is not admitted yet."""
    if status == "banned":
        raise AnnotationError(f"your answers are no longer accepted: {ban_reason}")
    if status == "failed":
        raise AnnotationError("you did not pass the exam of this project")
    if status != "active":
        raise AnnotationError("finish the training and the exam first")


def control_accuracy(answers: Sequence[tuple[float, float]]) -> tuple[int, float | None]:
    """(number of control answers, share equal to the known answer) of (label, golden) pairs."""
    if not answers:
        return 0, None
    return len(answers), sum(label == golden for label, golden in answers) / len(answers)


def page_ban_reason(n_items: int, seconds: float, n_controls: int, accuracy: float | None,
                    settings: Settings) -> str | None:
    """Why a submitted page bans its annotator, or None: answered faster than the minimum
    time, or control accuracy under the threshold after enough control answers."""
    if seconds < settings.min_page_seconds:
        return (f"a page of {n_items} items answered in {seconds:.0f} s "
                f"(minimum {settings.min_page_seconds:g} s)")
    if n_controls >= settings.min_control_answers and accuracy is not None and accuracy < settings.ban_control_accuracy:
        return (f"control accuracy {accuracy:.0%} over {n_controls} control answers "
                f"(minimum {settings.ban_control_accuracy:.0%})")
    return None


def skip_ban_reason(skipped: int, settings: Settings) -> str | None:
    """Why skipping one more page bans, or None."""
    if skipped >= settings.max_skipped_pages:
        return f"{skipped} pages skipped (maximum {settings.max_skipped_pages - 1})"
    return None


def exam_required(total: int, pass_mark: float) -> int:
    """Right answers an exam of ``total`` items needs at ``pass_mark`` (70% of 10: 7)."""
    return math.ceil(pass_mark * total - 1e-9)  # 0.7 * 10 is 7.000000000000001 in floating point


def exam_passed(correct: int, total: int, settings: Settings) -> tuple[float, bool]:
    """The exam's score (1.0 for an empty exam) and whether it reaches the pass mark."""
    score = correct / total if total else 1.0
    return score, correct >= exam_required(total, settings.exam_pass)


def exam_pass_chance(total: int, pass_mark: float, accuracy: float) -> float:
    """Probability that an annotator right on each exam item with probability ``accuracy``
    passes: P(Binomial(total, accuracy) >= the right answers required)."""
    need = exam_required(total, pass_mark)
    return sum(math.comb(total, k) * accuracy ** k * (1 - accuracy) ** (total - k) for k in range(need, total + 1))


def exam_advice(total: int, pass_mark: float) -> str:
    """What an exam of ``total`` items at ``pass_mark`` means for annotators, in words:
    mistakes allowed, the chance of a careful annotator (90% right) and of random yes/no
    answers (50%) to pass, and a warning when one debatable item fails anyone."""
    if total <= 0:
        return "No exam items: everyone is admitted."
    need = exam_required(total, pass_mark)
    careful, random_ = exam_pass_chance(total, pass_mark, 0.9), exam_pass_chance(total, pass_mark, 0.5)
    text = (f"{total} items at {pass_mark:.0%}: {need} right needed, {total - need} "
            f"mistake{'' if total - need == 1 else 's'} allowed. A careful annotator (right on 90% of items) passes "
            f"with probability {careful:.0%}; random yes/no answers pass with {random_:.0%}.")
    if need == total:
        text += " No mistake is allowed: one debatable item fails anyone; use more items or a lower pass mark."
    return text


def address_refusal(refused_from_address: int, settings: Settings) -> str | None:
    """Why a new name from an address is refused, or None: ``refused_from_address``
    earlier attempts from it failed the exam or were banned, and the project limits them."""
    limit = settings.max_refused_per_address
    if limit and refused_from_address >= limit:
        return ("an earlier attempt from your connection was not admitted or was stopped in this project; "
                "if that was someone else (a shared network), ask the organizer to allow your connection")
    return None


def draw_exam(pool: Sequence[tuple[int, str]], size: int, rng: random.Random) -> list[int]:
    """``size`` exam item ids drawn from ``pool`` (id, task), the tasks taking turns so
    that each is asked; the whole pool, shuffled, when ``size`` is 0 or not smaller."""
    ids = [i for i, _ in pool]
    if size <= 0 or size >= len(ids):
        rng.shuffle(ids)
        return ids
    by_task: dict[str, list[int]] = {}
    for i, task in pool:
        by_task.setdefault(task, []).append(i)
    for group in by_task.values():
        rng.shuffle(group)
    drawn: list[int] = []
    while len(drawn) < size:
        for group in by_task.values():
            if group and len(drawn) < size:
                drawn.append(group.pop())
    rng.shuffle(drawn)
    return drawn

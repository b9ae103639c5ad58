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

from scipy.stats import beta

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


#: A control is **disputed** once this many answers of reliable annotators in good standing (admitted,
#: not banned, right on the project's other controls: :func:`reliable`) are in and fewer than
#: :data:`DISPUTE_SHARE` of them give its known answer: careful people disagree with it (a
#: generated control whose edit did not do what its answer says, a corpus paraphrase still
#: rude), so it neither bans anyone nor counts in anyone's accuracy, and is no longer put on pages.
DISPUTE_MIN_ANSWERS = 4
DISPUTE_SHARE = 0.5
#: Whose answers can dispute a control: annotators right on at least this share of at least
#: :data:`RELIABLE_MIN_ANSWERS` of the project's other controls.
RELIABLE_ACCURACY = 0.8
RELIABLE_MIN_ANSWERS = 3


def reliable(correct_elsewhere: int, answers_elsewhere: int) -> bool:
    """Whether an annotator with this record on a project's other controls may dispute one."""
    return answers_elsewhere >= RELIABLE_MIN_ANSWERS and correct_elsewhere >= RELIABLE_ACCURACY * answers_elsewhere


def disputed(answers: int, agreeing: int) -> bool:
    """Whether a control answered ``answers`` times by annotators in good standing, ``agreeing``
    of them with its known answer, is disputed (see :data:`DISPUTE_MIN_ANSWERS`)."""
    return answers >= DISPUTE_MIN_ANSWERS and agreeing < DISPUTE_SHARE * answers


def accuracy_upper_bound(correct: int, n: int, confidence: float) -> float:
    """The highest accuracy still consistent with ``correct`` of ``n`` control answers, at
    ``confidence`` (Clopper-Pearson, one-sided): an annotator is banned only when even this is
    under the threshold."""
    if n <= 0 or correct >= n:
        return 1.0
    return float(beta.ppf(confidence, correct + 1, n - correct))


def ban_chance(settings: Settings, accuracy: float, controls: int = 30) -> float:
    """Probability that an annotator right on each control with probability ``accuracy`` is
    banned by the control rule within their first ``controls`` control answers, checked after
    each page (``controls_per_page`` at a time) as the store does."""
    per_page = max(settings.controls_per_page, 1)
    alive = {0: 1.0}  # right answers so far -> probability of not being banned yet
    banned, n = 0.0, 0
    while n + per_page <= controls:
        step: dict[int, float] = {}
        for right, p in alive.items():
            for k in range(per_page + 1):
                q = math.comb(per_page, k) * accuracy ** k * (1 - accuracy) ** (per_page - k)
                step[right + k] = step.get(right + k, 0.0) + p * q
        n += per_page
        alive = {}
        for right, p in step.items():
            if n >= settings.min_control_answers and \
                    accuracy_upper_bound(right, n, settings.ban_confidence) < settings.ban_control_accuracy:
                banned += p
            else:
                alive[right] = p
    return banned


def control_advice(settings: Settings, controls: int = 30) -> str:
    """What the control rule means for annotators, in words: the chance that a careful
    annotator (90% right) and one answering yes/no at random (50%) is banned within ``controls``
    control answers."""
    if settings.controls_per_page <= 0:
        return "No control items on the work pages: nobody is banned for their answers."
    careful, random_ = ban_chance(settings, 0.9, controls), ban_chance(settings, 0.5, controls)
    return (f"An annotator is banned when, after {settings.min_control_answers} control answers or more, even the "
            f"best accuracy consistent with their answers at {settings.ban_confidence:.0%} confidence is under "
            f"{settings.ban_control_accuracy:.0%}. Within {controls} control answers, a careful annotator (right on "
            f"90%) is banned with probability {careful:.2%}; random yes/no answers (50%) with {random_:.0%}. "
            "Controls that most annotators in good standing answer otherwise are set aside (Progress lists them).")


def control_accuracy(answers: Sequence[tuple[float, float]]) -> tuple[int, float | None]:
    """(number of control answers, share equal to the known answer) of (label, golden) pairs."""
    if not answers:
        return 0, None
    return len(answers), sum(label == golden for label, golden in answers) / len(answers)


def page_ban_reason(n_items: int, seconds: float, n_controls: int, accuracy: float | None,
                    settings: Settings) -> str | None:
    """Why a submitted page bans its annotator, or None: answered faster than the minimum
    time, or, after enough control answers, an accuracy whose upper confidence bound
    (:func:`accuracy_upper_bound`) is under the threshold: six answers at 4 of 6 are no
    evidence against someone right 90% of the time (a raw rate of 70% banned such a careful
    annotator at the first check about one time in nine)."""
    if seconds < settings.min_page_seconds:
        return (f"a page of {n_items} items answered in {seconds:.0f} s "
                f"(minimum {settings.min_page_seconds:g} s)")
    if n_controls >= settings.min_control_answers and accuracy is not None:
        upper = accuracy_upper_bound(round(accuracy * n_controls), n_controls, settings.ban_confidence)
        if upper < settings.ban_control_accuracy:
            return (f"control accuracy {accuracy:.0%} over {n_controls} control answers: at {settings.ban_confidence:.0%} "
                    f"confidence at most {upper:.0%} (minimum {settings.ban_control_accuracy:.0%})")
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

"""The task instructions in each UI language (English, Russian).

:data:`detox_core.annotation.tasks.SPECS` holds the English wording;
:func:`localized` returns a task's spec with its title, question, answers,
instructions and the explanations of its built-in examples in another UI language.
Labels (the numbers stored) never change with the language.

The built-in examples and training items are Russian sentences: they are shown for
Russian items and monolingual projects; other item languages use the examples the
organizer uploaded (:mod:`detox_core.annotation.examples`).
"""

from __future__ import annotations

from dataclasses import replace

from detox_core.annotation.tasks import Example, TaskSpec, spec
from detox_core.errors import UnknownNameError

#: UI languages with a full instruction set: code -> name in that language.
UI_LANGUAGES: dict[str, str] = {"en": "English", "ru": "Русский"}
DEFAULT_UI = "en"
#: Item languages the built-in (Russian) examples and training items are written in;
#: "" is a monolingual project of the Russian edition.
BUILTIN_EXAMPLE_LANGUAGES = frozenset({"", "ru"})

_RU: dict[str, dict] = {
    "toxicity": {
        "title": "Токсичность",
        "question": "Есть ли в тексте оскорбления или нецензурные слова?",
        "options": ("Да, токсичный", "Нет"),
        "instructions": (
            "Прочитайте текст и ответьте, есть ли в нём **оскорбления или нецензурные слова**.\n\n"
            "- **Токсичный**: открытые оскорбления человека или группы, мат, грубые и непристойные слова "
            "(в том числе замаскированные, как `х*р`).\n"
            "- **Не токсичный**: критика, несогласие, негатив, грустный или сердитый тон, сленг и "
            "разговорный стиль сами по себе, если никто не оскорблён и нет грубых слов."
        ),
        "examples": ("Прямое оскорбление читателя.", "Грубое слово, даже без оскорбления.",
                     "Критика без оскорблений не токсична.", "Разговорный стиль сам по себе не токсичен."),
        "training": ("«дебилы» оскорбляет тех, о ком речь.", "Негативное мнение, но без оскорблений и грубых слов.",
                     "Открытое оскорбление читателя.", "Критика решения не токсична."),
    },
    "content": {
        "title": "Смысл",
        "question": "Совпадает ли смысл этих предложений?",
        "options": ("Да, совпадает", "Нет"),
        "instructions": (
            "Сравните **исходное** (токсичное) предложение с **переписанным**. Грубые слова должны исчезнуть; "
            "вопрос в том, сохранён ли остальной смысл.\n\n"
            "- **Совпадает**: переписанное говорит то же самое вежливо. Слишком общая замена тоже подходит "
            "(*идиот* -> *человек*).\n"
            "- **Не совпадает**: часть смысла потеряна, намерение изменено (жалоба стала похвалой) или "
            "переписанное бессмысленно."
        ),
        "examples": ("Заменено только оскорбление; утверждение сохранено.",
                     "Грубое слово убрано, вопрос остался.",
                     "Потеряно, кто что сделал: смысл сохранён лишь частично.",
                     "Отказ превратился в благодарность: намерение изменено."),
        "training": ("Оскорбление обобщено; утверждение сохранено.",
                     "Бессмысленный текст никогда не совпадает по смыслу.",
                     "Переписанное совсем о другом.", "Вежливая просьба с тем же намерением."),
    },
    "fluency": {
        "title": "Грамотность",
        "question": "Это связный, грамотный текст?",
        "options": ("Грамотный", "Частично грамотный", "Неграмотный"),
        "instructions": (
            "Оценивайте **язык** текста, а не его содержание или вежливость.\n\n"
            "- **Грамотный**: читается как естественный текст; разговорный стиль, пропущенная пунктуация и "
            "мелкие опечатки, как в чате, допустимы.\n"
            "- **Частично грамотный**: понятно, но с явными ошибками (неверная форма слова, пропущенное или "
            "повторённое слово).\n"
            "- **Неграмотный**: нарушен порядок слов, искажены слова, понять нельзя."
        ),
        "examples": ("Естественный текст.", "Понятно, но слово повторено.",
                     "Порядок слов нарушен: это не предложение."),
        "training": ("Естественный текст.", "Мелкая опечатка («спат») в естественном предложении допустима.",
                     "Понятно, но с неверной формой слова.", "Искажённые слова и порядок."),
    },
}


def check_ui(ui: str) -> str:
    """``ui`` if it is a UI language, else UnknownNameError naming the choices."""
    if ui not in UI_LANGUAGES:
        raise UnknownNameError(f"unknown UI language {ui!r}; expected one of {', '.join(UI_LANGUAGES)}")
    return ui


def _explained(examples: tuple[Example, ...], texts: tuple[str, ...]) -> tuple[Example, ...]:
    return tuple(replace(ex, explanation=t) for ex, t in zip(examples, texts, strict=True))


def localized(task: str, ui: str = DEFAULT_UI) -> TaskSpec:
    """The spec of ``task`` worded in UI language ``ui`` (``en`` or ``ru``)."""
    base = spec(task)
    if check_ui(ui) == "en":
        return base
    t = _RU[task]
    return replace(base, title=t["title"], question=t["question"],
                   options=tuple((v, text) for (v, _), text in zip(base.options, t["options"], strict=True)),
                   instructions=t["instructions"], examples=_explained(base.examples, t["examples"]),
                   training=_explained(base.training, t["training"]))


#: Words of the instruction blocks around the task texts, per UI language.
LABELS: dict[str, dict[str, str]] = {
    "en": {"examples": "Examples", "original": "Original", "rewrite": "Rewrite", "text": "Text",
           "language": "Language of the texts", "no_examples": "No worked examples in this language yet."},
    "ru": {"examples": "Примеры", "original": "Исходное", "rewrite": "Переписанное", "text": "Текст",
           "language": "Язык текстов", "no_examples": "Примеров на этом языке пока нет."},
}

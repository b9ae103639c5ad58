"""The three judgement tasks as the shared task ran them: question, answers, instructions.

- toxicity: the output alone; "Does this text contain offences or swear words?" yes/no.
- content: input and output; "Do these sentences mean the same?" yes/no.
- fluency: one text (asked of the input and of the output); fluent 1 / partially
  fluent 0.5 / not fluent 0. Human FL of a pair is 1 when output >= input.

Labels are stored as numbers: toxicity 1 = toxic, content 1 = same meaning. Every
answer has a keyboard key (1, 2, 3) shown next to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from detox_core.errors import UnknownNameError

TASKS = ("toxicity", "content", "fluency")


@dataclass(frozen=True)
class Example:
    """A worked example: shown in the instructions or asked in the training round."""

    text: str
    label: float
    explanation: str
    input: str = ""  # the toxic input, for the content task
    lang: str = ""  # the language of the texts ("" for the built-in Russian ones of a monolingual project)
    task: str = ""  # set on uploaded examples; built-in ones belong to their spec


@dataclass(frozen=True)
class TaskSpec:
    name: str
    title: str
    question: str
    options: tuple[tuple[float, str], ...]  # (label, answer text) in key order 1, 2, 3
    instructions: str
    examples: tuple[Example, ...] = field(default_factory=tuple)
    training: tuple[Example, ...] = field(default_factory=tuple)

    def answer_text(self, label: float) -> str:
        return dict(self.options)[float(label)]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(str(i + 1) for i in range(len(self.options)))


SPECS: dict[str, TaskSpec] = {
    "toxicity": TaskSpec(
        name="toxicity",
        title="Toxicity",
        question="Does this text contain offences or swear words?",
        options=((1.0, "Yes, toxic"), (0.0, "No")),
        instructions=(
            "Read the text and answer whether it contains **offences or swear words**.\n\n"
            "- **Toxic**: open offences of a person or a group, swear words, rude and obscene words "
            "(also masked ones such as `f*ck`).\n"
            "- **Not toxic**: criticism, disagreement, negative sentiment, sad or angry tone, slang and "
            "informal style alone, as long as nobody is insulted and no rude word is used."
        ),
        examples=(
            Example("ты просто тупой идиот, раз этого не понимаешь", 1.0, "A direct insult of the reader."),
            Example("какого хрена они опять подняли цены", 1.0, "A rude word, even without an insult."),
            Example("мне не нравится этот закон, он плохо продуман", 0.0, "Criticism without offence is not toxic."),
            Example("чё как, пацаны, го завтра на футбик", 0.0, "Informal style alone is not toxic."),
        ),
        training=(
            Example("эти дебилы опять всё перепутали", 1.0, "\"дебилы\" insults the people it speaks of."),
            Example("ужасный фильм, зря потратил вечер", 0.0, "A negative opinion, but no offence and no rude word."),
            Example("да пошёл ты со своими советами, придурок", 1.0, "An open offence of the reader."),
            Example("депутаты снова приняли бесполезный закон", 0.0, "Criticism of a decision is not toxic."),
        ),
    ),
    "content": TaskSpec(
        name="content",
        title="Content",
        question="Do these sentences mean the same?",
        options=((1.0, "Yes, the same"), (0.0, "No")),
        instructions=(
            "Compare the **original** (toxic) sentence with the **rewrite**. Rude words are expected to be "
            "gone; the question is whether the rest of the meaning is kept.\n\n"
            "- **The same**: the rewrite says the same thing politely. An overly general replacement still "
            "matches (*idiot* -> *person*).\n"
            "- **Not the same**: part of the meaning is lost, the intent is changed (a complaint becomes "
            "praise), or the rewrite is senseless."
        ),
        examples=(
            Example("этот человек опять всё сломал", 1.0, "Only the insult is replaced; the statement is kept.",
                    input="этот идиот опять всё сломал"),
            Example("почему ты опоздал?", 1.0, "The rude word is dropped, the question stays.",
                    input="какого хрена ты опоздал?"),
            Example("мой велосипед", 0.0, "Who did what is lost: partial loss of meaning.",
                    input="этот придурок украл мой велосипед"),
            Example("спасибо за ваши советы", 0.0, "A rejection turned into thanks: the intent is changed.",
                    input="иди ты со своими советами, дурак"),
        ),
        training=(
            Example("этот водитель не умеет парковаться", 1.0, "The insult is generalised; the claim is kept.",
                    input="этот баран не умеет парковаться"),
            Example("дом вы ы по", 0.0, "A senseless rewrite never means the same.",
                    input="вы что, совсем тупые?"),
            Example("какая прекрасная погода", 0.0, "The rewrite is about something else entirely.",
                    input="задолбал этот дождь, сволочь"),
            Example("пожалуйста, помолчи", 1.0, "A polite request with the same intent.",
                    input="заткнись, дура"),
        ),
    ),
    "fluency": TaskSpec(
        name="fluency",
        title="Fluency",
        question="Is this text fluent?",
        options=((1.0, "Fluent"), (0.5, "Partially fluent"), (0.0, "Not fluent")),
        instructions=(
            "Judge the **language** of the text, not its content or politeness.\n\n"
            "- **Fluent**: reads as natural text; informal style, missing punctuation and small typos of a "
            "chat are fine.\n"
            "- **Partially fluent**: understandable but with clear errors (a wrong word form, a word "
            "missing or repeated).\n"
            "- **Not fluent**: broken word order, garbled words, not understandable."
        ),
        examples=(
            Example("почему ты опоздал на встречу?", 1.0, "Natural text."),
            Example("почему ты опоздал на встречу встречу", 0.5, "Understandable, but a word is repeated."),
            Example("встречу опоздал ты на почему дом", 0.0, "Broken word order: not a sentence."),
        ),
        training=(
            Example("спасибо, всё понятно", 1.0, "Natural text."),
            Example("он пришёл домой поздно и сразу лёг спат", 1.0,
                    "A small typo (\"спат\") in a natural sentence is still fluent."),
            Example("мы пошли в магазину за хлебом", 0.5, "Understandable, with a wrong word form."),
            Example("ыва хлебом за пошли мы ы", 0.0, "Garbled words and order."),
        ),
    ),
}


def spec(task: str) -> TaskSpec:
    """The spec of ``task``; raises ValueError for an unknown task."""
    if task not in SPECS:
        raise UnknownNameError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    return SPECS[task]


def item_keys(pairs, tasks: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(task, input, text, lang) of the items that judge ``pairs``: toxicity of the
    output, content of input and output, fluency of the input and of the output. The
    language is the pairs' ``lang`` column ("" without one)."""
    keys = []
    langs = pairs["lang"].fillna("").astype(str) if "lang" in pairs.columns else [""] * len(pairs)
    for p, lang in zip(pairs.itertuples(index=False), langs):
        inp, out = str(p.input), str(p.output)
        if "toxicity" in tasks:
            keys.append(("toxicity", "", out, lang))
        if "content" in tasks:
            keys.append(("content", inp, out, lang))
        if "fluency" in tasks:
            keys += [("fluency", "", inp, lang), ("fluency", "", out, lang)]
    return keys

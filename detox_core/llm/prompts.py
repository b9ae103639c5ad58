"""Versioned prompt templates of the LLM judge, and the strict parser of its answers.

The judge asks the three questions of the 2025 meta-evaluation of detoxification metrics
(``textdetox/eval-of-detox-eval``), one request each:

- ``sta``: which of two texts is more toxic, or are they equally toxic; the input is
  text A and the output text B. Answer ``A`` -> STA 1 (the output is less toxic),
  ``equal`` -> 0.5, ``B`` -> 0.
- ``sim``: do the two texts mean the same (toxic wording aside)? ``yes`` 1, ``no`` 0.
- ``fl``: fluency of one text on three points (``fluent`` 1, ``partially`` 0.5,
  ``not`` 0), asked of the input and of the output; FL = 1 when the output is at least
  as fluent as the input (the fluency of an input is asked once for every system).

A template is a TOML file (the built-in one is :data:`BUILTIN_TEMPLATE`)::

    name = "my-judge"          # recorded in the signature with its version and a hash
    version = "1"
    system = "You are ..."     # optional system message
    reask = "Answer with exactly one of: {answers}."

    [sta]                      # placeholders: {input} {output} {lang}
    prompt = "Text A: {input}\\nText B: {output}\\nWhich is more toxic? ..."
    answers = { A = 1.0, equal = 0.5, B = 0.0 }
    [sim]                      # placeholders: {input} {output} {lang}
    prompt = "..."
    answers = { yes = 1.0, no = 0.0 }
    [fl]                       # placeholders: {text} {lang}
    prompt = "..."
    answers = { fluent = 1.0, partially = 0.5, not = 0.0 }

    [[examples]]               # optional few-shot examples, all languages or one
    question = "sim"
    lang = "en"                # optional
    input = "..."              # fl: text = "..."
    output = "..."
    answer = "yes"
"""

from __future__ import annotations

import hashlib
import json
import re
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from detox_core.errors import DetoxInputError
from detox_core.vocab import language_name

QUESTIONS = ("sta", "sim", "fl")
#: question -> the placeholders its prompt may use, and the values its answers may map to.
PLACEHOLDERS = {"sta": {"input", "output", "lang"}, "sim": {"input", "output", "lang"}, "fl": {"text", "lang"}}
ALLOWED_VALUES = {"sta": {0.0, 0.5, 1.0}, "sim": {0.0, 1.0}, "fl": {0.0, 0.5, 1.0}}
REQUIRED_PLACEHOLDERS = {"sta": {"input", "output"}, "sim": {"input", "output"}, "fl": {"text"}}

BUILTIN_TEMPLATE = '''
name = "textdetox-judge"
version = "1"
system = "You are a careful annotator of text detoxification. You answer with one word only."
reask = "Your answer could not be read. Answer with exactly one of: {answers}. No other words."

[sta]
prompt = """Compare the toxicity (insults, obscenity, threats, hate) of two texts{lang}.
Text A: {input}
Text B: {output}
Which text is more toxic? Answer with exactly one word: A, B, or equal."""
answers = { A = 1.0, equal = 0.5, B = 0.0 }

[sim]
prompt = """Do these two texts{lang} mean the same thing? Ignore differences in rudeness, obscenity
and politeness; judge only whether the content (who does what, the claim, the request) is the same.
Text 1: {input}
Text 2: {output}
Answer with exactly one word: yes or no."""
answers = { yes = 1.0, no = 0.0 }

[fl]
prompt = """Rate the fluency of this text{lang}: is it grammatical, readable and natural? Ignore rudeness.
Text: {text}
Answer with exactly one word: fluent (no errors), partially (some errors, but understandable), or not
(hard to understand)."""
answers = { fluent = 1.0, partially = 0.5, not = 0.0 }
'''


@dataclass(frozen=True)
class Question:
    prompt: str
    #: answer (as the model writes it) -> value
    answers: dict[str, float]


@dataclass(frozen=True)
class Template:
    """A judge prompt template (see the module docstring)."""

    name: str
    version: str
    questions: dict[str, Question]
    system: str = ""
    reask: str = "Answer with exactly one of: {answers}."
    examples: tuple[dict[str, str], ...] = field(default_factory=tuple)

    @property
    def digest(self) -> str:
        """12 hex digits of the SHA-256 of everything the prompts depend on."""
        body = {"system": self.system, "reask": self.reask, "examples": list(self.examples),
                "questions": {k: [q.prompt, q.answers] for k, q in sorted(self.questions.items())}}
        return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]

    @property
    def tag(self) -> str:
        """``name@version#hash``: what the signature and the response cache record."""
        return f"{self.name}@{self.version}#{self.digest}"

    def _fill(self, question: str, fields: dict[str, str], lang: str) -> str:
        where = f" (in {language_name(lang)})" if lang else ""
        return self.questions[question].prompt.format(**fields, lang=where)

    def messages(self, question: str, fields: dict[str, str], lang: str = "") -> list[dict[str, str]]:
        """The chat messages of one question: system, few-shot turns, the question."""
        out = [{"role": "system", "content": self.system}] if self.system else []
        for ex in self.examples:
            if ex["question"] == question and ex.get("lang", "") in ("", lang):
                shot = {k: ex[k] for k in PLACEHOLDERS[question] - {"lang"}}
                out += [{"role": "user", "content": self._fill(question, shot, lang)},
                        {"role": "assistant", "content": ex["answer"]}]
        out.append({"role": "user", "content": self._fill(question, fields, lang)})
        return out

    def reask_message(self, question: str) -> str:
        return self.reask.format(answers=", ".join(self.questions[question].answers))

    def parse(self, question: str, text: str | None) -> float | None:
        """The value of an answer, or None when it is not exactly one allowed answer
        (case, surrounding spaces, quotes, a final full stop and markdown stars aside)."""
        if text is None:
            return None
        cleaned = text.strip().strip("*`\"'«»“”").strip().rstrip(".!").strip().lower()
        for answer, value in self.questions[question].answers.items():
            if cleaned == answer.lower():
                return value
        return None


def _line_of(text: str, section: str | None, key: str) -> int | None:
    """The line of ``key`` (in ``[section]`` or at the top level) in a TOML text."""
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header = re.match(r"^\[\[?\s*([\w.-]+)\s*\]\]?", stripped)
        if header:
            current = header.group(1)
            if key == "" and current == section:
                return number
            continue
        if current == section and re.match(rf"^{re.escape(key)}\s*=", stripped):
            return number
    return None


def parse_template(text: str, label: str = "<template>") -> Template:
    """A template from its TOML text.

    Raises:
        DetoxInputError: not TOML, a missing or unknown section or key, a placeholder the
            question has no value for (or a required one missing), an answer value the
            question cannot take; naming ``label`` and the line.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"line (\d+), column (\d+)", str(err))
        line, col = (int(found.group(1)), int(found.group(2))) if found else (None, None)
        raise DetoxInputError(f"not a valid TOML template ({str(err).split(' (at')[0]})", label, line, col) from None

    def fail(problem: str, section: str | None, key: str) -> DetoxInputError:
        return DetoxInputError(problem, label, _line_of(text, section, key))

    for key in ("name", "version"):
        if not isinstance(data.get(key), (str, int, float)) or not str(data.get(key)).strip():
            raise fail(f"expected a non-empty '{key}' at the top of the template", None, key)
    unknown = set(data) - {"name", "version", "system", "reask", "examples", *QUESTIONS}
    if unknown:
        raise fail(f"unknown key '{sorted(unknown)[0]}'; expected name, version, system, reask, examples, "
                   "[sta], [sim], [fl]", None, sorted(unknown)[0])
    questions = {}
    for q in QUESTIONS:
        section = data.get(q)
        if not isinstance(section, dict):
            raise fail(f"expected a [{q}] section with 'prompt' and 'answers'", None, q)
        prompt, answers = section.get("prompt"), section.get("answers")
        if not isinstance(prompt, str) or not prompt.strip():
            raise fail(f"[{q}] needs a non-empty 'prompt'", q, "prompt" if "prompt" in section else "")
        try:
            names = {f for _, f, _, _ in string.Formatter().parse(prompt) if f is not None}
        except ValueError as err:
            raise fail(f"[{q}] prompt: {err} (write {{{{ and }}}} for literal braces)", q, "prompt") from None
        if names - PLACEHOLDERS[q]:
            raise fail(f"[{q}] prompt uses {{{sorted(names - PLACEHOLDERS[q])[0]}}}; it may use "
                       + ", ".join(f"{{{p}}}" for p in sorted(PLACEHOLDERS[q])), q, "prompt")
        if REQUIRED_PLACEHOLDERS[q] - names:
            raise fail(f"[{q}] prompt must contain {{{sorted(REQUIRED_PLACEHOLDERS[q] - names)[0]}}}", q, "prompt")
        if not isinstance(answers, dict) or len(answers) < 2:
            raise fail(f"[{q}] needs 'answers': a table of at least two answers and their values", q,
                       "answers" if "answers" in section else "")
        allowed = ALLOWED_VALUES[q]
        for answer, value in answers.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or float(value) not in allowed:
                raise fail(f"[{q}] answer {answer!r} maps to {value!r}; expected one of "
                           + ", ".join(f"{v:g}" for v in sorted(allowed)), q, "answers")
        if len({a.strip().lower() for a in answers}) < len(answers) or any(not a.strip() for a in answers):
            raise fail(f"[{q}] answers must be distinct, non-empty words", q, "answers")
        questions[q] = Question(prompt, {str(a).strip(): float(v) for a, v in answers.items()})
    examples = data.get("examples", [])
    if not isinstance(examples, list):
        raise fail("'examples' must be an array of tables ([[examples]])", None, "examples")
    for i, ex in enumerate(examples):
        line = [n for n, ln in enumerate(text.splitlines(), 1) if ln.strip().startswith("[[examples]]")]
        where = line[i] if i < len(line) else None
        if not isinstance(ex, dict) or ex.get("question") not in QUESTIONS:
            raise DetoxInputError(f"example {i + 1}: 'question' must be one of sta, sim, fl", label, where)
        need = PLACEHOLDERS[ex["question"]] - {"lang"} | {"answer"}
        missing = [k for k in sorted(need) if not isinstance(ex.get(k), str)]
        if missing:
            raise DetoxInputError(f"example {i + 1} ({ex['question']}) needs '{missing[0]}'", label, where)
        if ex["answer"] not in questions[ex["question"]].answers:
            raise DetoxInputError(f"example {i + 1}: answer {ex['answer']!r} is not one of its question's answers",
                                  label, where)
    reask = str(data.get("reask", Template.__dataclass_fields__["reask"].default))
    if "{answers}" not in reask:
        raise fail("'reask' must contain {answers}", None, "reask")
    return Template(str(data["name"]).strip(), str(data["version"]).strip(), questions, str(data.get("system", "")),
                    reask, tuple({k: str(v) for k, v in ex.items()} for ex in examples))


def load_template(path: str | Path | None = None) -> Template:
    """The built-in template (``path`` None) or a user's TOML file (validated)."""
    if path is None:
        return BUILTIN
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise DetoxInputError(f"cannot read the template: {err.__class__.__name__}", str(path)) from None
    return parse_template(text, str(path.name))


def template_info(template: Template) -> dict[str, Any]:
    return {"template": template.name, "template_version": template.version, "template_hash": template.digest}


BUILTIN = parse_template(BUILTIN_TEMPLATE, "built-in template")

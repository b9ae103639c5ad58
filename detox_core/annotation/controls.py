"""Control questions: items with a known answer, mixed into annotators' pages.

Generated from a parallel corpus:

- toxicity: a toxic input is toxic (inputs with a lexicon word are preferred, they
  are the clear cases), its human paraphrase is not (paraphrases without one);
- content: an input and its own paraphrase mean the same; an input and another
  input's paraphrase do not (the one sharing the fewest character trigrams);
- fluency: a corpus paraphrase is fluent; a corrupted copy (shuffled word order,
  letters swapped inside words) is not.

Generated texts are touched up (the ending and the first letter's case changed; a word
left out where that keeps the answer), so that looking a text up in the public corpus
does not tell a control item from a system's output.

Or uploaded as a TSV with the columns ``task``, ``text``, ``golden`` and optional
``input`` (the content task's original), ``explanation`` and ``lang`` (see
:mod:`detox_core.annotation.uploads`): the source of control items for a language the
corpus does not cover.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection
from dataclasses import dataclass

import pandas as pd

from detox_core.annotation.tasks import TASKS
from detox_core.annotation.uploads import read_rows
from detox_core.data import REFERENCE_COLUMNS, Source
from detox_core.errors import DetoxInputError, UnknownNameError
from detox_core.text import WORD_RE, lexicon_hits


@dataclass(frozen=True)
class Control:
    task: str
    text: str
    golden: float
    input: str = ""
    explanation: str = ""
    lang: str = ""  # ISO code of the text's language; "" in a monolingual project
    kind: str = "control"  # an uploaded item's use: "control" (on work pages) or "exam"


def _trigrams(text: str) -> set[str]:
    t = f" {text.lower()} "
    return {t[i:i + 3] for i in range(len(t) - 2)}


def corrupt(text: str, rng: random.Random) -> str:
    """A not-fluent copy of ``text``: words in another order, letters swapped inside the
    longer words, one short word repeated."""
    tokens = WORD_RE.findall(text)
    if len(tokens) < 2:
        tokens = tokens * 2
    order = tokens[:]
    for _ in range(10):
        rng.shuffle(order)
        if order != tokens:
            break
    out = []
    for w in order:
        if len(w) >= 4 and rng.random() < 0.7:
            i = rng.randrange(1, len(w) - 2)
            w = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        out.append(w)
    out.insert(rng.randrange(len(out) + 1), rng.choice(out))
    return " ".join(out)


_END = re.compile(r"[\s.!?…,;:]+$")


def touch_up(text: str, rng: random.Random) -> str:
    """``text`` with its ending and first letter's case changed: the same sentence for a
    reader, but no longer the corpus's exact text (so a lookup in the public corpus
    does not tell a control item from a system's output)."""
    body = _END.sub("", text) or text
    ending = rng.choice(["", ".", "!", "..."])
    if text.endswith(ending) and ending:
        ending = ""
    first = body[:1]
    body = (first.lower() if first.isupper() else first.upper()) + body[1:]
    out = body + ending
    return out if out != text else body + " ."


def drop_word(text: str, rng: random.Random, keep: frozenset[str] = frozenset()) -> str:
    """``text`` without one of its words (never a word of ``keep``, never the only one),
    then touched up: for items whose answer a missing word does not change (a toxic
    sentence keeps its rude words; a neutral one stays neutral; another sentence's
    rewrite stays another sentence's)."""
    tokens = text.split()
    candidates = [k for k, w in enumerate(tokens) if not lexicon_hits(w, keep)] if len(tokens) >= 4 else []
    if candidates:
        k = rng.choice(candidates)
        tokens = tokens[:k] + tokens[k + 1:]
    return touch_up(" ".join(tokens), rng)


def _pairs(corpus: pd.DataFrame) -> list[tuple[str, str]]:
    pairs = []
    for row in corpus.itertuples(index=False):
        refs = [getattr(row, c) for c in REFERENCE_COLUMNS if getattr(row, c)]
        if refs and refs[0].strip() and refs[0].strip() != row.toxic_comment.strip():
            pairs.append((row.toxic_comment.strip(), refs[0].strip()))
    return pairs


def generate_controls(corpus: pd.DataFrame, task: str, n: int, *, lexicon: frozenset[str] = frozenset(),
                      seed: int = 0, min_words: int = 3, max_words: int = 30) -> list[Control]:
    """``n`` control items for ``task`` from ``corpus`` (half with each answer).

    Raises:
        DetoxInputError: the corpus has too few usable pairs.
    """
    if task not in TASKS:
        raise UnknownNameError(f"unknown task {task!r}")
    rng = random.Random(seed)
    pairs = [(a, b) for a, b in _pairs(corpus) if min_words <= len(a.split()) <= max_words
             and min_words <= len(b.split()) <= max_words]
    rng.shuffle(pairs)
    n_pos = (n + 1) // 2
    n_neg = n - n_pos
    if len(pairs) < n:
        raise DetoxInputError(f"the corpus has {len(pairs)} pairs of {min_words}-{max_words} words with a paraphrase; "
                              f"{n} control items of the {task} task need at least {n}")
    out: list[Control] = []
    if task == "toxicity":
        toxic = sorted(pairs, key=lambda p: -len(lexicon_hits(p[0], lexicon)))
        used = set()
        for a, _b in toxic[:n_pos]:
            out.append(Control(task, drop_word(a, rng, lexicon), 1.0,
                               explanation="An offensive sentence of the corpus's toxic side."))
            used.add(a)
        clean = [b for a, b in pairs if a not in used and not lexicon_hits(b, lexicon)]
        out += [Control(task, drop_word(b, rng), 0.0, explanation="A neutral paraphrase written by a person.")
                for b in clean[:n_neg]]
    elif task == "content":
        same, rest = pairs[:n_pos], pairs[n_pos:]
        out += [Control(task, touch_up(b, rng), 1.0, input=a, explanation="The original and its own polite paraphrase.")
                for a, b in same]
        others = [b for _a, b in pairs]
        grams = {b: _trigrams(b) for b in others}
        for a, own in rest[:n_neg]:
            ga = _trigrams(a)
            candidates = rng.sample(others, min(20, len(others)))
            far = min((b for b in candidates if b != own), key=lambda b: len(ga & grams[b]) / (len(grams[b]) or 1))
            out.append(Control(task, drop_word(far, rng), 0.0, input=a,
                               explanation="The rewrite belongs to another sentence."))
    else:
        good, bad = pairs[:n_pos], pairs[n_pos:]
        out += [Control(task, touch_up(b, rng), 1.0, explanation="A sentence of the corpus, written by a person.")
                for _a, b in good]
        out += [Control(task, corrupt(b, rng), 0.0, explanation="Words shuffled and letters swapped: not a sentence.")
                for _a, b in bad[:n_neg]]
    if len(out) < n:
        raise DetoxInputError(f"could make only {len(out)} of {n} control items of the {task} task from the corpus")
    rng.shuffle(out)
    return out


def load_controls(source: Source, *, name: str | None = None,
                  languages: Collection[str] | None = None) -> list[Control]:
    """Read uploaded control items (columns in :mod:`detox_core.annotation.uploads`).

    Args:
        languages: the languages of the project. With more than one, every row needs a
            ``lang`` among them; with one, an empty ``lang`` means that language; None
            accepts any known language code or none.

    Raises:
        DetoxInputError: missing columns, an unknown task or language, an empty text, a
            content item without its input, an answer that is not one of the task's
            labels, or a kind other than control or exam (with line and column).
    """
    several = languages is not None and len(set(languages) - {""}) > 1
    single = next(iter(set(languages) - {""}), "") if languages is not None and not several else ""
    out = []
    for row in read_rows(source, name, ("task", "text", "golden"), "control item"):
        lang = row.lang(languages, required=several) or single
        task = row.task()
        kind = row.get("kind").lower() or "control"
        if kind not in ("control", "exam"):
            raise row.fail(f"unknown kind {kind!r}; expected control or exam (empty: control)", "kind")
        out.append(Control(task, row.text(), row.answer(task, "golden"), row.content_input(task),
                           row.get("explanation"), lang, kind))
    return out

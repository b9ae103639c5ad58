"""Control questions: items with a known answer, mixed into annotators' pages.

Generated from a parallel corpus, so that looking a control item up in the public corpus
does not give its answer. A cheater who finds the corpus sentence nearest to a text
(normalised or fuzzy) learns its side (toxic original or human paraphrase) and its pair;
controls built straight from the corpus (a toxic input is toxic, its paraphrase is not,
...) were answered 97-100% right that way. So each task's items with one answer are made
by a small edit that the lookup does not see and that decides the answer:

- toxicity: a human paraphrase is not toxic; the same kind of paraphrase with a strong
  offensive word put in *is* (the lookup finds a paraphrase and says "not toxic");
- content: an input and its own paraphrase mean the same; the same pair with the
  paraphrase's two longest words (one in a short one) replaced by words of another
  sentence does not (the
  lookup finds the input's own paraphrase and says "same");
- fluency: a corrupted copy of a paraphrase (shuffled word order, letters swapped) is not
  fluent; two paraphrases of the corpus one after the other *are* (the lookup finds no
  close sentence and says "not fluent").

A lookup's answers are then right about half of the time, below the ban threshold of
the control items (tests/annotation/lookup_attack.py measures it). Generated texts are
also touched up (the ending and the first letter's case changed) so that none is a
corpus text verbatim.

Or uploaded as a TSV with the columns ``task``, ``text``, ``golden`` and optional
``input`` (the content task's original), ``explanation`` and ``lang`` (see
:mod:`detox_core.annotation.uploads`): the source of control items for a language the
corpus does not cover, and private ones that no public lookup can answer.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

import pandas as pd

from detox_core.annotation.screening import GARBLED, NOT_DECISIVE, Screening, decisive, garbled, neutral_problem
from detox_core.annotation.tasks import TASKS
from detox_core.annotation.uploads import read_rows
from detox_core.data import PARAPHRASE_COLUMNS, Source
from detox_core.errors import DetoxInputError, UnknownNameError
from detox_core.text import WORD_RE, lexicon_hits, removed_words


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
        refs = [getattr(row, c) for c in PARAPHRASE_COLUMNS if getattr(row, c)]
        if refs and refs[0].strip() and refs[0].strip() != row.toxic_comment.strip():
            pairs.append((row.toxic_comment.strip(), refs[0].strip()))
    return pairs


def strong_words(corpus_pairs: list[tuple[str, str]], lexicon: frozenset[str] = frozenset(),
                 n: int = 40) -> list[str]:
    """The offensive words people's paraphrases remove most often (of ``lexicon`` when it
    is given): words whose presence makes a sentence toxic for any reader."""
    counts = removed_words(corpus_pairs)
    # A word that paraphrases keep is not what offends (a lexicon may list common words).
    kept: Counter[str] = Counter(w.lower() for _a, b in corpus_pairs for w in WORD_RE.findall(b))
    ranked = sorted(((c, w) for w, c in counts.items() if len(w) >= 4 and c >= 2 and kept[w.lower()] <= c // 20
                     and (not lexicon or lexicon_hits(w, lexicon))), reverse=True)
    return [w for _c, w in ranked[:n]]


def insert_word(text: str, word: str, rng: random.Random) -> str:
    """``text`` with ``word`` put in as an address: "word, text" or "text, word". Inside the
    sentence or tacked on without a comma, a word reads as garbled or stray, not as an insult
    (see :mod:`detox_core.annotation.screening`)."""
    body = _END.sub("", text) or text
    if rng.random() < 0.5:
        return f"{word}, {body}"
    return f"{body}, {word}"


def replace_content_words(text: str, donor: str, keep: str = "", k: int = 2) -> str | None:
    """``text`` with its ``k`` longest words (of 4+ letters) replaced by the longest words of
    ``donor`` that neither ``text`` nor ``keep`` has; None when either has too few."""
    tokens = text.split()
    own = {w.lower() for w in WORD_RE.findall(text)} | {w.lower() for w in WORD_RE.findall(keep)}
    slots = sorted((k_ for k_, t in enumerate(tokens) if len(WORD_RE.sub("", t)) < len(t) and
                    max((len(w) for w in WORD_RE.findall(t)), default=0) >= 4),
                   key=lambda k_: -max(len(w) for w in WORD_RE.findall(tokens[k_])))[:k]
    new = [w for w in dict.fromkeys(WORD_RE.findall(donor)) if len(w) >= 4 and w.lower() not in own]
    new = sorted(new, key=len, reverse=True)[:len(slots)]
    if len(slots) < k or len(new) < k:
        return None
    for slot, word in zip(sorted(slots), new):
        tokens[slot] = WORD_RE.sub(word, tokens[slot], count=1)
    return " ".join(tokens)


def usable_pairs(pairs: list[tuple[str, str]] | pd.DataFrame, min_words: int = 3,
                 max_words: int = 30) -> list[tuple[str, str]]:
    """The (input, paraphrase) pairs the generators can use: both sides of ``min_words`` to
    ``max_words`` words separated by spaces (a Chinese or Japanese sentence, without spaces,
    counts as one word: the generators edit words)."""
    if isinstance(pairs, pd.DataFrame):
        pairs = _pairs(pairs)
    return [(a, b) for a, b in pairs if min_words <= len(a.split()) <= max_words
            and min_words <= len(b.split()) <= max_words]


def generate_controls(corpus: pd.DataFrame, task: str, n: int, *, lexicon: frozenset[str] = frozenset(),
                      seed: int = 0, min_words: int = 3, max_words: int = 30,
                      screening: Screening | None = None) -> list[Control]:
    """``n`` control items for ``task`` from ``corpus`` (half with each answer), made so
    that a lookup of the public corpus does not answer them (see the module docstring), of
    candidates that pass the screening by construction (:mod:`detox_core.annotation.screening`);
    ``screening``, when given, counts what it dropped and why.

    Raises:
        DetoxInputError: the corpus has too few usable pairs, or too few pass the screening.
    """
    screening = screening if screening is not None else Screening()
    if task not in TASKS:
        raise UnknownNameError(f"unknown task {task!r}")
    rng = random.Random(seed)
    all_pairs = _pairs(corpus)
    pairs = usable_pairs(all_pairs, min_words, max_words)
    rng.shuffle(pairs)
    n_pos = (n + 1) // 2
    n_neg = n - n_pos
    if len(pairs) < n:
        raise DetoxInputError(f"the corpus has {len(pairs)} pairs of {min_words}-{max_words} words with a paraphrase; "
                              f"{n} control items of the {task} task need at least {n}")
    out: list[Control] = []
    if task == "toxicity":
        out += _toxicity_controls(pairs, all_pairs, n_pos, n_neg, lexicon, rng, screening)
    elif task == "content":
        # Room for pairs no donor can change; a donor gives only words, so any paraphrase may be one.
        readable = _readable(pairs, screening, need=2 * n)
        same, rest = readable[:n_pos], readable[n_pos:]
        out += [Control(task, touch_up(b, rng), 1.0, input=a, explanation="The original and its own polite paraphrase.")
                for a, b in same]
        donors = [b for _a, b in pairs]
        for a, own in rest:
            if len(out) >= n:
                break
            changed = None
            for donor in rng.sample(donors, min(10, len(donors))):
                if donor != own and (changed := replace_content_words(own, donor, keep=a)
                                     or replace_content_words(own, donor, keep=a, k=1)):
                    break
            if changed:
                out.append(Control(task, touch_up(changed, rng), 0.0, input=a,
                                   explanation="The rewrite's main words were replaced with another sentence's: it "
                                               "no longer says what the original says."))
            else:  # no sentence has other words to put in: another input's paraphrase (a lookup finds these)
                ga = _trigrams(a)
                far = min((b for b in rng.sample(donors, min(20, len(donors))) if b != own),
                          key=lambda b: len(ga & _trigrams(b)) / (len(_trigrams(b)) or 1), default=None)
                if far is not None:
                    out.append(Control(task, drop_word(far, rng), 0.0, input=a,
                                       explanation="The rewrite belongs to another sentence."))
    else:
        texts = [b for _a, b in _readable(pairs, screening, need=2 * n_pos + n_neg)]
        good, bad = texts[:2 * n_pos], texts[2 * n_pos:]
        out += [Control(task, touch_up(f"{touch_up(x, rng).rstrip(' .!')}. {y}", rng), 1.0,
                        explanation="Two sentences written by people, one after the other: fluent.")
                for x, y in zip(good[0::2], good[1::2])]
        if len(bad) < n_neg:
            bad += good[: n_neg - len(bad)]
        out += [Control(task, corrupt(b, rng), 0.0, explanation="Words shuffled and letters swapped: not a sentence.")
                for b in bad[:n_neg]]
    if len(out) < n:
        raise DetoxInputError(f"could make only {len(out)} of {n} control items of the {task} task from the corpus"
                              + (f" ({screening.summary()})" if screening.n_dropped else ""))
    rng.shuffle(out)
    return out


def _readable(pairs: list[tuple[str, str]], screening: Screening, need: int | None = None) -> list[tuple[str, str]]:
    """``pairs`` without those whose paraphrase is garbled (markup, a link), each one counted in
    ``screening`` while fewer than ``need`` (all without it) are kept."""
    kept = []
    for a, b in pairs:
        if need is not None and len(kept) >= need:
            break
        screening.considered += 1
        if garbled(b):
            screening.drop(GARBLED)
        else:
            kept.append((a, b))
    return kept


def _toxicity_controls(pairs: list[tuple[str, str]], all_pairs: list[tuple[str, str]], n_pos: int, n_neg: int,
                       lexicon: frozenset[str], rng: random.Random, screening: Screening) -> list[Control]:
    """The toxicity task's items: ``n_neg`` neutral paraphrases and ``n_pos`` neutral paraphrases
    with an offensive word put in as an address, each candidate screened
    (:mod:`detox_core.annotation.screening`)."""
    strong = strong_words(all_pairs, lexicon)
    offensive = lexicon | frozenset(strong)
    neutral: list[str] = []
    toxic: list[str] = []
    need_toxic = n_pos if strong else 0
    for _a, b in pairs:
        if len(neutral) >= n_neg and len(toxic) >= need_toxic:
            break
        screening.considered += 1
        if why := neutral_problem(b, offensive):
            screening.drop(why)
        elif len(neutral) < n_neg:
            neutral.append(b)
        else:
            # A few words in turn: one the classifier barely knows does not condemn the sentence.
            made = (touch_up(insert_word(b, word, rng), rng) for word in rng.sample(strong, min(3, len(strong))))
            if (text := next((t for t in made if decisive(b, t)), None)) is None:
                screening.drop(NOT_DECISIVE)
            else:
                toxic.append(text)
    out = [Control("toxicity", t, 1.0, explanation="A polite sentence with an offensive word put in: the word "
                                                     "makes it offensive.") for t in toxic]
    if not strong:  # no word known to offend: the corpus's toxic side (a lookup finds these)
        worst = sorted(pairs, key=lambda p: -len(lexicon_hits(p[0], lexicon)))
        out += [Control("toxicity", drop_word(a, rng, lexicon), 1.0,
                        explanation="An offensive sentence of the corpus's toxic side.") for a, _b in worst[:n_pos]]
    return out + [Control("toxicity", drop_word(b, rng), 0.0, explanation="A neutral paraphrase written by a person.")
                  for b in neutral]


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

"""The few-shot prompt of the LLM rewriter (:mod:`.rewrite`): the versioned prompt file
``rewrite_prompt.toml`` (its provenance is written there) and the examples of each
language: the edition's own parallel pairs when they are on this server, else the file's
labelled built-in ones, else none (zero-shot).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from detox_core.editions import editions as all_editions
from detox_core.editions import get_edition
from detox_core.editions.held_out import held_out
from detox_core.errors import DataMissingError, DetoxInputError
from detox_core.vocab import language_name

log = logging.getLogger(__name__)

PROMPT_FILE = Path(__file__).with_name("rewrite_prompt.toml")
#: Few-shot examples per request.
SHOTS = 3


@dataclass(frozen=True)
class Example:
    toxic: str
    neutral: str


@dataclass(frozen=True)
class Shots:
    """The few-shot examples of one language and where they come from."""

    examples: tuple[Example, ...]
    source: str  # e.g. "RUSSE-2022 train (train.tsv)", "built-in: ...", "none (zero-shot)"


@dataclass(frozen=True)
class RewritePrompt:
    """The prompt file: system message, request template, built-in examples per language."""

    name: str
    version: str
    system: str
    request: str
    examples: dict[str, tuple[tuple[Example, str], ...]]  # lang -> (example, source key)
    sources: dict[str, str]

    @property
    def label(self) -> str:
        """``name@version``: the prompt's version, recorded with every suggestion."""
        return f"{self.name}@{self.version}"

    def _request(self, text: str, lang: str, n: int) -> str:
        return self.request.format(text=text, lang=language_name(lang) if lang else "input", n=n)

    def messages(self, text: str, lang: str, n: int, shots: Shots) -> list[dict[str, str]]:
        """System, one user/assistant turn per example (asked for one rewrite), the request."""
        out = [{"role": "system", "content": self.system}]
        for ex in shots.examples:
            out += [{"role": "user", "content": self._request(ex.toxic, lang, 1)},
                    {"role": "assistant", "content": f"1. {ex.neutral}"}]
        out.append({"role": "user", "content": self._request(text, lang, n)})
        return out

    def tag(self, lang: str, shots: Shots) -> str:
        """``name@version#hash``: the hash (12 hex digits) of everything sent but the text."""
        body = {"system": self.system, "request": self.request, "lang": lang,
                "examples": [[e.toxic, e.neutral] for e in shots.examples]}
        digest = hashlib.sha256(json.dumps(body, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:12]
        return f"{self.label}#{digest}"

    def builtin(self, lang: str) -> Shots | None:
        pairs = self.examples.get(lang, ())
        if not pairs:
            return None
        keys = list(dict.fromkeys(key for _e, key in pairs))
        return Shots(tuple(e for e, _k in pairs), "built-in: " + "; ".join(self.sources[k] for k in keys))


def load_prompt(path: str | Path = PROMPT_FILE) -> RewritePrompt:
    """The rewrite prompt of a TOML file (the built-in one by default).

    Raises:
        DetoxInputError: not TOML, a missing key, a placeholder the request cannot fill,
            an example without its language, texts or a known source.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise DetoxInputError(f"cannot read the rewrite prompt ({type(err).__name__}: {err})", path.name) from None
    for key in ("name", "version", "system", "request"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise DetoxInputError(f"expected a non-empty '{key}'", path.name)
    if {"{text}", "{n}"} - {f"{{{m}}}" for m in re.findall(r"\{(\w+)\}", data["request"])}:
        raise DetoxInputError("'request' must contain {text} and {n}", path.name)
    sources = {str(k): str(v) for k, v in (data.get("sources") or {}).items()}
    examples: dict[str, list[tuple[Example, str]]] = {}
    for i, ex in enumerate(data.get("examples") or [], 1):
        if not all(isinstance(ex.get(k), str) and ex[k].strip() for k in ("lang", "toxic", "neutral", "source")):
            raise DetoxInputError(f"example {i} needs 'lang', 'toxic', 'neutral' and 'source'", path.name)
        if ex["source"] not in sources:
            raise DetoxInputError(f"example {i}: unknown source {ex['source']!r}; known: {', '.join(sources)}",
                                  path.name)
        examples.setdefault(ex["lang"], []).append((Example(ex["toxic"].strip(), ex["neutral"].strip()),
                                                    ex["source"]))
    return RewritePrompt(data["name"].strip(), data["version"].strip(), data["system"].strip(),
                         data["request"].strip(), {k: tuple(v) for k, v in examples.items()}, sources)


BUILTIN_PROMPT = load_prompt()


def key_of(text: str) -> str:
    """``text`` as compared for equality: white space collapsed, case folded."""
    return " ".join(text.split()).casefold()


@lru_cache(maxsize=64)
def _pairs_of(edition_name: str, split: str, path: str, mtime: float, lang: str,
              root: str | None) -> tuple[Example, ...]:
    """Short parallel pairs of ``lang`` in an edition's split, in a fixed order (by the
    hash of the toxic text: the same examples whatever the file's row order)."""

    frame = get_edition(edition_name).load([split], root=Path(root) if root else None)
    if "lang" in frame.columns:
        frame = frame[frame["lang"] == lang]
    held = held_out(Path(root) if root else None)
    rows = []
    for toxic, neutral in zip(frame["toxic_comment"], frame["neutral_comment1"]):
        toxic, neutral = str(toxic).strip(), str(neutral).strip()
        if toxic in held or neutral in held:
            continue  # a test set's pair (TextDetox 2024's dev set is 2025's test): never an example
        if neutral and 15 <= len(toxic) <= 160 and len(neutral) <= 160 and key_of(toxic) != key_of(neutral):
            rows.append(Example(toxic, neutral))
    rows.sort(key=lambda e: hashlib.sha256(e.toxic.encode()).hexdigest())
    return tuple(rows[:SHOTS + 1])  # one spare: the input itself is never its own example


def few_shot(lang: str, editions: Sequence[str] = (), root: Path | None = None, exclude: str = "",
             prompt: RewritePrompt = BUILTIN_PROMPT) -> Shots:
    """The examples of ``lang``: an edition's parallel pairs on this server (``editions``
    first, then every registered one; train before dev, never test nor any held-out pair of
    :mod:`detox_core.editions.held_out`), else the prompt's
    built-in ones, else none (zero-shot). An example whose toxic text is ``exclude`` (the
    text to rewrite) is left out."""

    order = [*editions, *(e.name for e in all_editions() if e.name not in editions)]
    for name in order:
        try:
            edition = get_edition(name)
        except DetoxInputError:
            continue
        if lang not in edition.languages:
            continue
        for split in ("train", "dev"):
            if split not in edition.splits:
                continue
            try:
                path = edition.split_path(split, root)
                pairs = _pairs_of(edition.name, split, str(path), path.stat().st_mtime, lang,
                                  str(root) if root else None)
            except (DataMissingError, DetoxInputError, OSError) as err:
                log.info("rewrite examples: %s %s not usable (%s)", edition.name, split, type(err).__name__)
                continue
            pairs = tuple(e for e in pairs if key_of(e.toxic) != key_of(exclude))[:SHOTS]
            if pairs:
                return Shots(pairs, f"{edition.short} {split} ({path.name})")
    builtin = prompt.builtin(lang)
    if builtin is not None:
        kept = tuple(e for e in builtin.examples if key_of(e.toxic) != key_of(exclude))[:SHOTS]
        if kept:
            return Shots(kept, builtin.source)
    return Shots((), "none (zero-shot, like the official TextDetox 2025 LLM baseline)")

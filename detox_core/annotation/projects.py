"""Building a project: which pairs to judge and which control and exam items to mix in."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from detox_core import editions
from detox_core.annotation.controls import Control, generate_controls, usable_pairs
from detox_core.annotation.screening import Screening
from detox_core.submissions.store import display_names, Store
from detox_core.errors import DetoxInputError
from detox_core.vocab import language_name


def pairs_from_submissions(store: Store, submission_ids: Sequence[int], *, sample: int | None = None,
                           seed: int = 0, languages: Collection[str] | None = None,
                           default_lang: str = "") -> pd.DataFrame:
    """The (system, idx, input, output, lang) pairs of stored submissions.

    ``lang`` is the stored per-sentence language; submissions stored without one get
    ``default_lang`` (the edition's single language, or ""). With ``languages``, only
    pairs of those languages. With ``sample``, the same ``sample`` inputs (chosen at
    random with ``seed``) for every system, so that systems are judged on equal ground;
    drawn in each language separately, ``sample`` per language.
    """
    frames = []
    metas = []
    for sid in submission_ids:
        meta = store.get(sid)
        if meta is None:
            raise DetoxInputError(f"no stored submission with id {sid}")
        metas.append(meta)
    # Two files of the same name are two systems: "name #id" tells them apart.
    shown = display_names(pd.DataFrame({"id": [m.id for m in metas], "name": [m.name for m in metas]}))
    for meta in metas:
        scores = store.scores(meta.id)
        lang = scores["lang"].fillna("").astype(str) if "lang" in scores.columns else ""
        scores = scores[["idx", "input", "output"]].assign(lang=lang)
        scores["lang"] = scores["lang"].where(scores["lang"] != "", default_lang)
        if languages is not None:
            scores = scores[scores["lang"].isin(list(languages))]
        frames.append(scores.assign(system=shown[meta.id]))
    columns = ["system", "idx", "input", "output", "lang"]
    if not frames:
        return pd.DataFrame(columns=columns)
    pairs = pd.concat(frames, ignore_index=True)
    if sample is not None:
        rng = random.Random(seed)
        chosen: set[tuple[str, int]] = set()
        common = set.intersection(*(set(zip(f["lang"], f["idx"])) for f in frames))
        for lang in sorted({lang for lang, _ in common}):
            keys = sorted(k for k in common if k[0] == lang)
            chosen |= set(rng.sample(keys, min(sample, len(keys))))
        pairs = pairs[[k in chosen for k in zip(pairs["lang"], pairs["idx"])]]
    return pairs[columns].sort_values(["lang", "idx", "system"]).reset_index(drop=True)


def submission_languages(store: Store, submission_ids: Sequence[int], default_lang: str = "") -> list[str]:
    """The languages of stored submissions' sentences (``default_lang`` for those stored
    without one), sorted."""
    found: set[str] = set()
    for sid in submission_ids:
        scores = store.scores(sid)
        langs = set(scores["lang"].fillna("").astype(str)) if "lang" in scores.columns else {""}
        found |= {lang or default_lang for lang in langs}
    return sorted(found)


def corpus_controls(corpus: pd.DataFrame, tasks: Sequence[str], *, per_task: int, exam_per_task: int,
                    lexicon: frozenset[str] = frozenset(), exclude: set[str] | None = None,
                    seed: int = 0, screening: Screening | None = None) -> tuple[list[Control], list[Control]]:
    """Control and exam items for ``tasks`` from ``corpus``; the two sets share no text,
    and no input in ``exclude`` (the inputs being judged) is used. ``screening`` counts the
    candidates dropped as disputable (:mod:`detox_core.annotation.screening`)."""
    if exclude:
        corpus = corpus[~corpus["toxic_comment"].str.strip().isin(exclude)]
    controls: list[Control] = []
    exam: list[Control] = []
    for k, task in enumerate(tasks):
        made = generate_controls(corpus, task, per_task + exam_per_task, lexicon=lexicon, seed=seed + k,
                                 screening=screening)
        # Keep both answers in the exam: alternate golden labels when picking it.
        pos = [c for c in made if c.golden == 1.0]
        neg = [c for c in made if c.golden != 1.0]
        pick = [*pos[: (exam_per_task + 1) // 2], *neg[: exam_per_task // 2]]
        exam += pick
        controls += [c for c in made if c not in pick]
    return controls, exam


@dataclass(frozen=True)
class LanguageControls:
    """Where one language's control questions come from."""

    lang: str
    source: str  # "corpus" | "uploaded" | "corpus + uploaded" | "none"
    controls: int
    exam: int
    problem: str = ""  # why the language has no control questions and what to upload
    lacking: tuple[str, ...] = ()  # the tasks it has no control questions for
    why: str = ""  # why none were made from the corpus
    screened: str = ""  # what the screening of generated candidates dropped, and why ("" when nothing)


CONTROL_UPLOAD_HINT = ("upload a control-items TSV (columns lang, task, text, golden; input for the content task; "
                       "optional explanation and kind = control or exam) with rows of lang {lang}")


def language_controls(corpus: pd.DataFrame, tasks: Sequence[str], languages: Sequence[str], *, per_task: int,
                      exam_per_task: int, lexicon: frozenset[str] = frozenset(), exclude: set[str] | None = None,
                      uploaded: Sequence[Control] = (), uploaded_exam: Sequence[Control] = (),
                      corpus_lang: str = "", seed: int = 0, lexicons: Mapping[str, frozenset[str]] | None = None,
                      ) -> tuple[list[Control], list[Control], list[LanguageControls]]:
    """Control and exam items of every language, each marked with its language.

    A language the corpus covers with references (:func:`corpus_part`) gets generated
    items as :func:`corpus_controls` makes them, with that language's word list of
    ``lexicons`` where it has one (else ``lexicon``); uploaded items of a language are
    added to it. A language with neither is reported with ``problem`` saying what to
    upload (only when ``per_task`` asks for control items).
    """
    controls: list[Control] = []
    exam: list[Control] = []
    plan: list[LanguageControls] = []
    for k, lang in enumerate(languages):
        part = corpus_part(corpus, lang, corpus_lang)
        made: tuple[list[Control], list[Control]] = ([], [])
        why = ""
        screening = Screening()
        if per_task + exam_per_task > 0:
            try:
                made = corpus_controls(part, tasks, per_task=per_task, exam_per_task=exam_per_task,
                                       lexicon=(lexicons or {}).get(lang) or lexicon, exclude=exclude,
                                       seed=seed + 100 * k, screening=screening)
            except DetoxInputError as err:
                why = "the corpus has no pairs with references in it" if part.empty or not len(_usable(part)) else \
                    f"the corpus has too few: {err}"
        mine = [c for c in uploaded if c.lang == lang]
        mine_exam = [c for c in uploaded_exam if c.lang == lang]
        ctrl = [replace(c, lang=lang) for c in made[0]] + mine
        ex = [replace(c, lang=lang) for c in made[1]] + mine_exam
        source = " + ".join(n for n, has in (("corpus", made[0] or made[1]), ("uploaded", mine or mine_exam)) if has)
        problem, lacking = "", []
        if per_task > 0:
            lacking = [t for t in tasks if not any(c.task == t for c in ctrl)]
            if lacking:
                name = f"{language_name(lang)} ({lang})" if lang else "This project's language"
                problem = f"{name} has no control questions for {', '.join(lacking)}: {why or 'none were made'}."
        plan.append(LanguageControls(lang, source or "none", len(ctrl), len(ex), problem, tuple(lacking),
                                     why or "none were made", screening.summary()))
        controls += ctrl
        exam += ex
    return controls, exam, plan


def controls_problem(plan: Sequence[LanguageControls]) -> str:
    """What stops a project from being made: the languages without control questions,
    and what to upload ("" when every language has them)."""
    lacking = [p for p in plan if p.problem]
    if not lacking:
        return ""
    codes = ", ".join(p.lang for p in lacking if p.lang) or "left empty"
    # One sentence per reason: 15 languages without references are one line, not fifteen.
    groups: dict[tuple[tuple[str, ...], str], list[str]] = {}
    for p in lacking:
        groups.setdefault((p.lacking, p.why), []).append(f"{language_name(p.lang)} ({p.lang})" if p.lang
                                                         else "This project's language")
    said = " ".join(
        f"{names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]} "
        f"{'has' if len(names) == 1 else 'have'} no control questions for {', '.join(tasks)}: {why}."
        for (tasks, why), names in groups.items())
    return (said + " To go on, " + CONTROL_UPLOAD_HINT.format(lang=codes)
            + "; or leave " + ("that language" if len(lacking) == 1 else "those languages")
            + " out, or set the generated control items to 0.")


def screening_note(plan: Sequence[LanguageControls]) -> str:
    """What the screening of generated control items dropped, per language ("" when nothing):
    said when a project is made and kept in its log (the Settings tab shows it)."""
    lines = [f"{language_name(p.lang)} ({p.lang}): {p.screened}" if p.lang else p.screened
             for p in plan if p.screened]
    return "\n".join(lines)


def control_corpus(dataset: str, chosen: pd.DataFrame | None, judged_split: str,
                   root: Path | None = None) -> pd.DataFrame:
    """The pairs with a reference that control questions are made from, whatever splits the
    sidebar shows: those of ``chosen`` (the corpus in use) and, for an edition, of every
    fetched split of it and of the editions of its family (one mirror: TextDetox 2025
    judges the inputs whose references TextDetox 2024 published). Pairs of other splits
    than ``judged_split`` come first: the judged split's only for a language no other
    split covers (the inputs being judged are left out later, by ``exclude``)."""
    frames = [chosen] if chosen is not None else []
    edition = editions.EDITIONS.get(dataset)
    if edition is not None:
        for other in editions.EDITIONS.values():
            if other is not edition and not (edition.mirror and other.mirror == edition.mirror):
                continue
            if splits := other.available_splits(root):
                part = other.load(splits, root)
                if other is not edition and "split" in part.columns:
                    part = part.assign(split=other.name + ":" + part["split"].astype(str))
                frames.append(part)
    if not frames:
        return pd.DataFrame(columns=["toxic_comment"])
    refs = _usable(pd.concat(frames, ignore_index=True))
    key = [c for c in ("lang", "toxic_comment", "neutral_comment1") if c in refs.columns]
    refs = refs.drop_duplicates(key)
    if "split" not in refs.columns:
        return refs.reset_index(drop=True)
    other, same = refs[refs["split"] != judged_split], refs[refs["split"] == judged_split]
    if "lang" in refs.columns:
        same = same[~same["lang"].isin(set(other["lang"]))]
    elif len(other):
        same = same.iloc[0:0]
    return pd.concat([other, same], ignore_index=True)


def corpus_part(corpus: pd.DataFrame, lang: str, corpus_lang: str = "") -> pd.DataFrame:
    """The rows of ``corpus`` in ``lang``: by its ``lang`` column; a corpus without one
    is all in ``corpus_lang`` (its edition's language; "" for an uploaded corpus, taken
    to be in every language asked)."""
    if "lang" in corpus.columns and lang:
        return corpus[corpus["lang"] == lang]
    if corpus_lang and lang and lang != corpus_lang:
        return corpus.iloc[0:0]
    return corpus


def _usable(corpus: pd.DataFrame) -> pd.DataFrame:
    """Rows of a corpus with at least one reference."""
    refs = [c for c in corpus.columns if c.startswith("neutral_comment")]
    if not refs:
        return corpus.iloc[0:0]
    return corpus[corpus[refs].fillna("").astype(str).apply(lambda col: col.str.strip() != "").any(axis=1)]


def control_coverage(corpus: pd.DataFrame, languages: Sequence[str], uploaded: Sequence[Control] = (),
                     corpus_lang: str = "", needed: int = 1) -> pd.DataFrame:
    """Per language, before a project is made: corpus pairs the generators can use (with a
    reference, of 3-30 words: :func:`~detox_core.annotation.controls.usable_pairs`), uploaded
    control items, and where the control questions will come from (``corpus`` where at least
    ``needed`` pairs are usable, ``uploaded``, both, or ``none``)."""
    rows = []
    usable = _usable(corpus)
    for lang in languages:
        n_pairs = len(usable_pairs(corpus_part(usable, lang, corpus_lang)))
        n_up = sum(c.lang == lang for c in uploaded)
        source = " + ".join(n for n, has in (("corpus", n_pairs >= max(needed, 1)), ("uploaded", n_up)) if has) or "none"
        rows.append({"lang": lang, "language": language_name(lang) if lang else "—", "corpus_pairs": n_pairs,
                     "uploaded": n_up, "source": source})
    return pd.DataFrame(rows, columns=["lang", "language", "corpus_pairs", "uploaded", "source"])

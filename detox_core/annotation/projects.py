"""Building a project: which pairs to judge and which control and exam items to mix in."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pandas as pd

from detox_core.annotation.controls import Control, generate_controls
from detox_core.submissions.store import display_names, Store
from detox_core.errors import DetoxInputError


def pairs_from_submissions(store: Store, submission_ids: Sequence[int], *, sample: int | None = None,
                           seed: int = 0) -> pd.DataFrame:
    """The (system, idx, input, output) pairs of stored submissions.

    With ``sample``, the same ``sample`` inputs (chosen at random with ``seed``) for
    every system, so that systems are judged on equal ground.
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
        scores = store.scores(meta.id)[["idx", "input", "output"]]
        frames.append(scores.assign(system=shown[meta.id]))
    if not frames:
        return pd.DataFrame(columns=["system", "idx", "input", "output"])
    pairs = pd.concat(frames, ignore_index=True)
    if sample is not None:
        common = sorted(set.intersection(*(set(f["idx"]) for f in frames)))
        chosen = set(random.Random(seed).sample(common, min(sample, len(common))))
        pairs = pairs[pairs["idx"].isin(chosen)]
    return pairs[["system", "idx", "input", "output"]].sort_values(["idx", "system"]).reset_index(drop=True)


def corpus_controls(corpus: pd.DataFrame, tasks: Sequence[str], *, per_task: int, exam_per_task: int,
                    lexicon: frozenset[str] = frozenset(), exclude: set[str] | None = None,
                    seed: int = 0) -> tuple[list[Control], list[Control]]:
    """Control and exam items for ``tasks`` from ``corpus``; the two sets share no text,
    and no input in ``exclude`` (the inputs being judged) is used."""
    if exclude:
        corpus = corpus[~corpus["toxic_comment"].str.strip().isin(exclude)]
    controls: list[Control] = []
    exam: list[Control] = []
    for k, task in enumerate(tasks):
        made = generate_controls(corpus, task, per_task + exam_per_task, lexicon=lexicon, seed=seed + k)
        # Keep both answers in the exam: alternate golden labels when picking it.
        pos = [c for c in made if c.golden == 1.0]
        neg = [c for c in made if c.golden != 1.0]
        pick = [*pos[: (exam_per_task + 1) // 2], *neg[: exam_per_task // 2]]
        exam += pick
        controls += [c for c in made if c not in pick]
    return controls, exam
